import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A fresh directory holding `files` (path relative to it → text). */
export function directory(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-catalog-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
