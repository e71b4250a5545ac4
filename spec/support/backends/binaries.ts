import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The path of a backend binary, or an error that says which Debian package provides it. Specs
 * against real backends fail loudly when it is missing (CI installs it in .ci/run), never skip.
 */
export function requireBinary(name: string, debianPackage: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/sbin'];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  throw new Error(
    `${name} not found: this spec runs against a real ${name}. Install it with ` +
      `"apt-get install -y --no-install-recommends ${debianPackage}" (.ci/run does so on CI).`,
  );
}
