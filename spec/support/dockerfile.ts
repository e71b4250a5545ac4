import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, delimiter, join, posix, relative } from 'node:path';

/**
 * Replays a Dockerfile without a container engine: each stage gets a directory standing for its
 * file system, COPY copies from the build context (less what .dockerignore excludes) or from an
 * earlier stage, RUN runs the command in the stage's working directory with this machine's tools
 * (so it stands for the image's only as far as those tools agree: Node and npm versions, libc).
 * Only the instructions svc's Dockerfile uses are known; any other one throws.
 */

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

export interface Stage {
  readonly from: string;
  readonly name?: string;
  readonly instructions: readonly Instruction[];
}

export interface Dockerfile {
  /** ARGs before the first FROM, with their defaults. */
  readonly args: Readonly<Record<string, string>>;
  readonly stages: readonly Stage[];
}

/** Instructions, continuation lines joined, comments dropped; FROM starts a stage. */
export function parseDockerfile(text: string): Dockerfile {
  const args: Record<string, string> = {};
  const stages: { from: string; name?: string; instructions: Instruction[] }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    let content = lines[i]!.trim();
    while (content.endsWith('\\') && i + 1 < lines.length)
      content = `${content.slice(0, -1).trim()} ${lines[++i]!.trim()}`;
    if (content === '' || content.startsWith('#')) continue;
    const [, keyword, rest = ''] = /^(\S+)\s*(.*)$/.exec(content)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: rest, line };
    if (instruction.keyword === 'FROM') {
      const [, image, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest) ?? [];
      if (!image) throw new Error(`Dockerfile:${line}: FROM ${rest}: expected an image and an optional AS name`);
      stages.push({ from: substitute(image, args), ...(name && { name }), instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG') throw new Error(`Dockerfile:${line}: only ARG may come before FROM`);
      const [name, value = ''] = rest.split('=');
      args[name!] = value;
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { args, stages };
}

/** The JSON array of an exec-form instruction (CMD ["a", "b"]); undefined for the shell form. */
export function execForm(instruction: Instruction | undefined): string[] | undefined {
  if (!instruction?.args.startsWith('[')) return undefined;
  return JSON.parse(instruction.args) as string[];
}

/** A .dockerignore as a predicate on context-relative paths (`/` separated): `*`, `**`, `?`, `!` exceptions. */
export function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exception = line.startsWith('!');
      const pattern = posix.normalize((exception ? line.slice(1) : line).replace(/^\/+/, '')).replace(/\/$/, '');
      return { exception, regex: globRegex(pattern) };
    });
  return (path) => {
    // A path is excluded when it or a directory above it matches, the last matching rule deciding.
    const prefixes = path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const rule of rules) if (prefixes.some((prefix) => rule.regex.test(prefix))) ignored = !rule.exception;
    return ignored;
  };
}

function globRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches any number of directories, none included.
      source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export interface ReplayedImage {
  /** The final stage's file system: container path `/x` is `join(root, 'x')`. */
  readonly root: string;
  /** The final stage's working directory, on this machine. */
  readonly workdir: string;
  /** The final stage's ENV, with PATH entries inside the stage mapped to this machine and `$PATH` this machine's. */
  readonly env: Readonly<Record<string, string>>;
  readonly user?: string;
  readonly expose: readonly string[];
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
}

/** Replays every stage of `dockerfile` with `context` as the build context, each stage in a directory below `into`. */
export function replayDockerfile(
  dockerfile: Dockerfile,
  context: string,
  into: string,
  ignored: (path: string) => boolean,
): ReplayedImage {
  const roots = new Map<string, string>();
  let image: ReplayedImage | undefined;
  dockerfile.stages.forEach((stage, index) => {
    const root = join(into, stage.name ?? `stage-${index}`);
    mkdirSync(root, { recursive: true });
    const inStage = (path: string) => join(root, path);
    let workdir = '/';
    const env: Record<string, string> = {};
    let user: string | undefined;
    const expose: string[] = [];
    let entrypoint: string[] | undefined;
    let cmd: string[] | undefined;
    const hostEnv = () => ({ ...buildEnv(), ...env, PATH: hostPath(env.PATH, inStage) });
    for (const instruction of stage.instructions) {
      const where = `Dockerfile:${instruction.line}: ${instruction.keyword}`;
      switch (instruction.keyword) {
        case 'WORKDIR':
          workdir = posix.resolve(workdir, instruction.args);
          mkdirSync(inStage(workdir), { recursive: true });
          break;
        case 'ENV':
          for (const [, name, value] of instruction.args.matchAll(/(\w+)=(\S+)/g)) env[name!] = value!;
          break;
        case 'COPY': {
          const words = instruction.args.split(/\s+/);
          const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
          const paths = words.filter((w) => !w.startsWith('--'));
          const destination = posix.resolve(workdir, paths.at(-1)!);
          const sources = paths.slice(0, -1);
          if (sources.some((source) => /[*?[]/.test(source))) throw new Error(`${where}: wildcards are not replayed`);
          const intoDirectory = sources.length > 1 || paths.at(-1)!.endsWith('/');
          for (const source of sources) {
            const origin =
              from === undefined
                ? join(context, source)
                : join(roots.get(from) ?? fail(`${where}: no stage named ${from}`), posix.resolve('/', source));
            if (from === undefined && ignored(posix.normalize(source)))
              throw new Error(`${where}: ${source} is excluded by .dockerignore`);
            if (!existsSync(origin)) throw new Error(`${where}: ${source} does not exist`);
            const target = inStage(
              intoDirectory && !statSync(origin).isDirectory()
                ? posix.join(destination, basename(source))
                : destination,
            );
            mkdirSync(join(target, '..'), { recursive: true });
            cpSync(origin, target, {
              recursive: true,
              // From the context, only what .dockerignore lets through.
              filter: (path) => from !== undefined || !ignored(relative(context, path).split('\\').join('/')),
            });
          }
          break;
        }
        case 'RUN':
          execFileSync('sh', ['-c', instruction.args], {
            cwd: inStage(workdir),
            env: hostEnv(),
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          break;
        case 'USER':
          user = instruction.args;
          break;
        case 'EXPOSE':
          expose.push(...instruction.args.split(/\s+/));
          break;
        case 'ENTRYPOINT':
          entrypoint =
            execForm(instruction) ??
            fail(`${where}: use the exec form (a JSON array), so no shell stands between the engine and the process`);
          break;
        case 'CMD':
          cmd = execForm(instruction) ?? fail(`${where}: use the exec form (a JSON array)`);
          break;
        default:
          throw new Error(`${where}: not replayed here`);
      }
    }
    roots.set(stage.name ?? String(index), root);
    image = {
      root,
      workdir: inStage(workdir),
      env: { ...env, PATH: hostPath(env.PATH, inStage) },
      ...(user && { user }),
      expose,
      ...(entrypoint && { entrypoint }),
      ...(cmd && { cmd }),
    };
  });
  return image ?? fail('the Dockerfile has no stage');
}

/** An image PATH on this machine: entries that exist in the stage are mapped into it, `$PATH` is this machine's. */
function hostPath(path: string | undefined, inStage: (path: string) => string): string {
  if (path === undefined) return process.env.PATH ?? '';
  return path
    .split(':')
    .map((entry) =>
      entry === '$PATH' || entry === '${PATH}'
        ? (process.env.PATH ?? '')
        : existsSync(inStage(entry))
          ? inStage(entry)
          : entry,
    )
    .join(delimiter);
}

/** The file `command` names through `path`, as the engine finds a CMD's program. */
export function which(command: string, path: string): string {
  for (const dir of path.split(delimiter)) if (existsSync(join(dir, command))) return join(dir, command);
  throw new Error(`${command} is not on the image's PATH (${path})`);
}

/** Entries of a directory, sorted. */
export function listing(dir: string): string[] {
  return readdirSync(dir).sort();
}

/**
 * This machine's environment without what the test run put there: a build knows nothing of it
 * (npm's settings of the running `npm test`, such as its project directory; c8's coverage
 * directory, which tsc would fill). npm reads its own configuration files again.
 */
function buildEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('npm_') && name !== 'NODE_V8_COVERAGE'),
  );
}

function substitute(text: string, args: Readonly<Record<string, string>>): string {
  return text.replace(
    /\$\{(\w+)\}|\$(\w+)/g,
    (_, a: string | undefined, b: string | undefined) => args[(a ?? b)!] ?? fail(`ARG ${a ?? b} has no value`),
  );
}

function fail(message: string): never {
  throw new Error(message);
}
