import { writeFile } from 'node:fs/promises';
import { statIfAny } from '../real-file.js';
import { explainFile } from '../sinks/core/errors.js';

/**
 * Writes `data` to the file the option `option` names (`-o`, `--svg`), failing with an error that names the
 * option, the path and why, in words. `exclusive`: refuse an existing file (its EEXIST error is thrown as it is,
 * for the caller to answer), but not a directory.
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
    // A directory is no file that --force could replace: it is refused as without `exclusive`.
    const code =
      (error as NodeJS.ErrnoException).code === 'EEXIST' && (await statIfAny(path))?.isDirectory()
        ? 'EISDIR'
        : (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw error;
    throw new Error(`${option}: cannot write ${path}: ${explainFile(code, path) ?? (error as Error).message}`);
  }
}
