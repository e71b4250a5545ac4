import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/backends/ports.js';
import {
  dockerignore,
  execForm,
  listing,
  parseDockerfile,
  replayDockerfile,
  which,
  type ReplayedImage,
} from '../support/dockerfile.js';
import { temporaryDirectory } from '../support/directories.js';

/**
 * The Dockerfile, checked without a container engine (none runs here): its text against the
 * practices the image promises, then its build steps replayed (spec/support/dockerfile.ts) into
 * a temporary directory, and svc-server started from the final stage holding only what the image
 * would hold. Not covered: the base image itself (Alpine, musl, its npm), an engine's build, a run
 * as a container (docs/deploy.md).
 */

const REPO = new URL('../../', import.meta.url).pathname;
const text = (path: string) => readFileSync(join(REPO, path), 'utf8');
const DOCKERFILE = parseDockerfile(text('Dockerfile'));
const IGNORED = dockerignore(text('.dockerignore'));
const PACKAGE = JSON.parse(text('package.json')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const LOCK = JSON.parse(text('package-lock.json')) as { packages: Record<string, { dev?: boolean }> };
const final = DOCKERFILE.stages.at(-1)!;
const last = (keyword: string) => final.instructions.filter((i) => i.keyword === keyword).at(-1);

describe('Container image (Dockerfile)', () => {
  describe('as written', () => {
    it('builds in one stage and ships from another, both on a Node 20 base pinned by tag', () => {
      expect(DOCKERFILE.stages.map((s) => s.name ?? '(final)')).to.deep.equal(['build', '(final)']);
      for (const stage of DOCKERFILE.stages) expect(stage.from).to.match(/^node:20\.\d+-alpine\d+\.\d+$/);
    });

    it('runs svc-server on 0.0.0.0:8080 as PID 1, with no shell or entrypoint script in between, as a numeric non-root user', () => {
      expect(execForm(last('ENTRYPOINT'))).to.deep.equal([]);
      expect(execForm(last('CMD'))).to.deep.equal(['svc-server', '--port', '8080', '--bind', '0.0.0.0']);
      expect(last('EXPOSE')?.args).to.equal('8080');
      const user = last('USER')?.args ?? 'root';
      expect(user).to.match(/^[1-9]\d*(:[1-9]\d*)?$/);
      // The image is only copies of the build's output: nothing runs in it at build time.
      expect(final.instructions.filter((i) => i.keyword === 'RUN')).to.deep.equal([]);
    });

    it('holds no secret: no ARG or ENV named like one, and .dockerignore keeps keys, .env files and local state out of the context', () => {
      const settings = DOCKERFILE.stages
        .flatMap((s) => s.instructions)
        .filter((i) => i.keyword === 'ARG' || i.keyword === 'ENV');
      for (const setting of [...settings.map((s) => s.args), ...Object.keys(DOCKERFILE.args)])
        expect(setting).not.to.match(/secret|password|token|api.?key|credential/i);
      for (const path of [
        '.env',
        'config/.env.local',
        'certs/tls.key',
        'tls.pem',
        'node_modules/x/index.js',
        'dist/lib/index.js',
        '.git/config',
        'npm-debug.log',
      ]) {
        expect(IGNORED(path), path).to.equal(true);
      }
      for (const path of [
        'package.json',
        'package-lock.json',
        'lib/index.ts',
        'bin/svc-server',
        'docs/openapi.json',
        'schema/scenario.schema.json',
        'console/src/main.ts',
        'examples/quickstart.yaml',
      ])
        expect(IGNORED(path), path).to.equal(false);
    });
  });

  describe('its build steps replayed into a temporary directory', function () {
    // npm ci, tsc and the prune, on a cold directory: this is the slow spec of the suite.
    this.timeout(600_000);
    let image: ReplayedImage;

    before(() => {
      image = replayDockerfile(DOCKERFILE, REPO, temporaryDirectory('svc-image-'), IGNORED);
    });

    it('leaves only package.json, bin, dist, the production node_modules, the OpenAPI document and the scenario schema', () => {
      expect(listing(image.root)).to.deep.equal(['app']);
      expect(listing(image.workdir)).to.deep.equal(['bin', 'dist', 'docs', 'node_modules', 'package.json', 'schema']);
      expect(listing(join(image.workdir, 'docs'))).to.deep.equal(['openapi.json']);
      expect(listing(join(image.workdir, 'schema'))).to.deep.equal(['scenario.schema.json']);
      expect(listing(join(image.workdir, 'dist'))).to.deep.equal(['console', 'lib', 'operators']);
      const modules = join(image.workdir, 'node_modules');
      for (const name of Object.keys({ ...PACKAGE.dependencies, ...PACKAGE.optionalDependencies }))
        expect(existsSync(join(modules, name)), name).to.equal(true);
      // A dev dependency that a production package also needs (protobufjs needs @types/node) stays: the lock marks it devOptional, not dev.
      for (const name of Object.keys(PACKAGE.devDependencies).filter((n) => LOCK.packages[`node_modules/${n}`]?.dev))
        expect(existsSync(join(modules, name)), name).to.equal(false);
    });

    it('starts svc-server from there, as the image CMD does, answers GET /health, and flushes on SIGTERM', async () => {
      const [program, ...args] = image.cmd!;
      // The image's own port and bind would take 8080 on every interface of this machine.
      const local = args.map((arg, i) =>
        args[i - 1] === '--port' ? '0' : args[i - 1] === '--bind' ? '127.0.0.1' : arg,
      );
      const child = spawn(which(program!, image.env.PATH!), local, {
        cwd: image.workdir,
        env: { ...process.env, ...image.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
      child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      try {
        const port = await waitFor(
          'the start-up line',
          () => /^\{"svc_server":\{"port":(\d+)\}\}\n/.exec(out)?.[1],
          10_000,
        );
        const base = `http://127.0.0.1:${port}`;
        const health = await fetch(`${base}/health`);
        expect([health.status, await health.json()]).to.deep.equal([200, { status: 'ok' }]);
        expect((await fetch(`${base}/health?ready`)).status).to.equal(200);
        expect((await fetch(`${base}/openapi.json`)).status).to.equal(200);
        // The web console, built in the build stage (dist/console).
        const page = await fetch(`${base}/`);
        expect([page.status, await page.text()]).to.satisfy(
          ([status, html]: [number, string]) => status === 200 && html.includes('svc console'),
        );
        const started = await fetch(`${base}/scenarios`, {
          method: 'POST',
          headers: { 'content-type': 'text/yaml' },
          body: 'signal_type: metrics\nname: up\nrate: 20\ngenerator: { type: constant, value: 1 }\n',
        });
        expect(started.status).to.equal(201);
        await waitFor('events on stdout', () => (/^up 1 \d{13}$/m.test(out) ? true : undefined));
        // The program the engine starts is node itself (the launcher's `env node` execs it): the signal reaches it.
        child.kill('SIGTERM');
        expect(await exited).to.equal(0);
        expect(err).to.include('stopping: flushing every scenario');
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });

    it('runs the CLI too, as `docker run IMAGE svc …` would', () => {
      const run = spawnSync(
        which('svc', image.env.PATH!),
        ['metrics', '--name', 'up', '--rate', '20', '--duration', '200ms', '--quiet'],
        {
          cwd: image.workdir,
          env: { ...process.env, ...image.env },
          encoding: 'utf8',
        },
      );
      expect(run.status, run.stderr).to.equal(0);
      expect(run.stdout.trim().split('\n'))
        .to.have.length(4)
        .and.to.satisfy((lines: string[]) => lines.every((line) => /^up 1 \d{13}$/.test(line)));
    });

    it('runs svc new there, whose modeline names the schema the image holds', () => {
      const run = spawnSync(which('svc', image.env.PATH!), ['new'], {
        cwd: image.workdir,
        env: { ...process.env, ...image.env },
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).to.equal(0);
      const schema = /^# yaml-language-server: \$schema=file:\/\/(\S+)$/m.exec(run.stdout)?.[1];
      expect(schema).to.equal(join(image.workdir, 'schema', 'scenario.schema.json'));
    });
  });
});
