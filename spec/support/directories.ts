import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const removedAtExit = new Set<string>();
// On the process's exit rather than in a root hook: it is the same whether mocha read .mocharc.json or ran with
// --no-config. Without --exit, mocha's process ends only once every child process a spec started (svc-server, a
// backend) has, so none still writes in these directories.
process.once('exit', () => {
  for (const path of removedAtExit)
    try {
      rmSync(path, { recursive: true, force: true });
    } catch (error) {
      // Told, not thrown: a directory a spec left undeletable (chattr +i) is not a failure of the run's specs.
      process.stderr.write(`spec support: ${path} is left behind: ${(error as Error).message}\n`);
    }
});

/** Removes `path` (and all it holds) when the spec process exits: for a directory svc made, such as a kept test's. */
export function removeAtExit(path: string): string {
  removedAtExit.add(path);
  return path;
}

/**
 * A fresh directory in the system's temporary one, removed when the spec process exits; its name begins with
 * `prefix` (`svc-state-`), so that one left by an interrupted run can be told from another's.
 */
export function temporaryDirectory(prefix: string): string {
  return removeAtExit(mkdtempSync(join(tmpdir(), prefix)));
}

/** A fresh directory holding `files` (path relative to it → text). */
export function directory(files: Record<string, string>): string {
  const dir = temporaryDirectory('svc-catalog-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
