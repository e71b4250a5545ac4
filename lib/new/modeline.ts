/** The first line of a scenario file svc writes: points YAML editors at the scenario JSON Schema. */
export const SCHEMA_MODELINE = '# yaml-language-server: $schema=https://raw.githubusercontent.com/svc-dev/svc/main/schema/scenario.schema.json';
