import { writeFile } from 'node:fs/promises';
import { explainFile } from '../sinks/core/errors.js';

/**
 * Writes `data` to the file the option `option` names (`-o`, `--svg`), failing with an error that names the
 * option, the path and why, in words. `exclusive`: refuse an existing file (its EEXIST error is thrown as it is,
 * for the caller to answer).
 */
export async function writeOutputFile(
  option: string,
  path: string,
  data: string | Uint8Array,
  { exclusive = false } = {},
): Promise<void> {
  try {
    await writeFile(path, data, { flag: exclusive ? 'wx' : 'w' });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST' && exclusive) throw error;
    throw new Error(`${option}: cannot write ${path}: ${explainFile(code, path) ?? (error as Error).message}`);
  }
}
