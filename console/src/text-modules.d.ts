/** YAML files imported as text (esbuild's `text` loader, console/build.ts). */
declare module '*.yaml' {
  const text: string;
  export default text;
}
