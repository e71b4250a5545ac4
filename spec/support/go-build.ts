import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { temporaryDirectory } from './directories.js';

const run = promisify(execFile);

/**
 * Builds the Go program `source` (one file) into a temporary directory and returns the binary's path: `go build` in
 * GOPATH mode against Debian's golang-*-dev packages, offline, with one build cache shared by every run
 * (svc-go-build-cache), so only the first run compiles the libraries. Rejects, saying to install `packages` as
 * .ci/run does, when Go or they are missing; `what` names the program in that message.
 */
export async function buildGoProgram(source: string, packages: string, what: string): Promise<string> {
  const name = basename(source, '.go');
  const binary = join(temporaryDirectory(`svc-go-${name}-`), name);
  const env = {
    ...process.env,
    GO111MODULE: 'off',
    GOPATH: '/usr/share/gocode',
    GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'svc-go-build-cache'),
    GOFLAGS: '',
  };
  try {
    await run('go', ['build', '-o', binary, source], { env });
  } catch (error) {
    const { stderr, code } = error as { stderr?: string; code?: string };
    const why = code === 'ENOENT' ? 'go is not installed' : stderr;
    throw new Error(`cannot build the ${what} (${why}): apt-get install golang-go ${packages}, as .ci/run does`);
  }
  return binary;
}
