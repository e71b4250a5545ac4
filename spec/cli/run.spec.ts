import { expect } from 'chai';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { Readable, Writable } from 'node:stream';
import { svc, lines, STOPPED, scenarioDir, stoppedCounts, unreadPipe } from '../support/cli.js';

const { dir: tmp, scenario } = scenarioDir('svc-cli-');

const gauge = scenario(
  'gauge.yaml',
  `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: temp
    rate: 20
    duration: 300ms
    generator: { type: constant, value: 21.5 }
    labels: { room: lab }
`,
);

describe('svc run', () => {
  it('runs a file: metric lines on stdout, a STOPPED line per entry on stderr, exit 0', async () => {
    const result = await svc(['run', gauge]);
    expect(result.code).to.equal(0);
    const out = lines(result.stdout);
    expect(out).to.have.length(6);
    for (const line of out) expect(line).to.match(/^temp\{room="lab"\} 21\.5 \d{13}$/);
    const stopped = lines(result.stderr).filter((l) => STOPPED.test(l));
    expect(stopped).to.deep.equal([
      `[progress] temp  STOPPED | events: 6 | bytes: ${result.stdout.length} B | elapsed: ${stopped[0]!.split('elapsed: ')[1]}`,
    ]);
  });

  it('takes the file as --scenario too', async () => {
    const result = await svc(['run', '--scenario', gauge]);
    expect(result.code).to.equal(0);
    expect(lines(result.stdout)).to.have.length(6);
  });

  it('reads the file from standard input as -', async () => {
    const stdin = () => Readable.from([readFileSync(gauge, 'utf8')]);
    const result = await svc(['run', '-'], { stdin: stdin() });
    expect(result.code, result.stderr).to.equal(0);
    expect(lines(result.stdout)).to.have.length(6);
    const dry = await svc(['run', '--dry-run', '-', '--rate', '5'], { stdin: stdin() });
    expect(dry.stderr)
      .to.include('scenario: standard input')
      .and.match(/rate: +5\/s/);
    const bad = await svc(['run', '-'], { stdin: Readable.from(['version: 2\nkind: runnable\nscenarios: 3\n']) });
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/^error: standard input: /);
  });

  it('reads standard input with the bound and checks of a file: over 1 MiB, or binary, it is refused the same way', async () => {
    const big = `${readFileSync(gauge, 'utf8')}# ${'x'.repeat(1024 * 1024)}\n`;
    const binary = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0xff, 0xfe, 0x00]);
    for (const [name, data, message] of [
      ['big.yaml', big, 'the text is larger than 1048576 bytes (1 MiB), the limit for a scenario file'],
      ['binary.yaml', binary, 'not a text file (it holds binary data): give a YAML or JSON scenario file'],
    ] as const) {
      const path = join(tmp, name);
      writeFileSync(path, data);
      const fromFile = await svc(['run', path]);
      const fromStdin = await svc(['run', '-'], { stdin: Readable.from([data]) });
      expect(fromFile.code, fromFile.stderr).to.equal(1);
      expect(fromFile.stderr).to.equal(`error: ${path}: ${message}\n`);
      expect(fromStdin.code, fromStdin.stderr).to.equal(1);
      expect(fromStdin.stderr).to.equal(`error: standard input: ${message}\n`);
    }
  });

  it('refuses a directory given as standard input, which node reads as an empty stream', async () => {
    // What node makes of `svc run - < dir`: a stream on descriptor 0 that ends at once.
    const fd = openSync(tmp, 'r');
    try {
      const result = await svc(['run', '-'], { stdin: Object.assign(Readable.from([]), { fd }) });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.equal('error: standard input: cannot read the scenario file (it is a directory)\n');
    } finally {
      closeSync(fd);
    }
  });

  it('lets flags override every entry: rate, duration, labels, encoder, sink and endpoint', async () => {
    const out = join(tmp, 'override.jsonl');
    const result = await svc([
      'run',
      gauge,
      '--rate',
      '10',
      '--duration',
      '0.5s',
      '--label',
      'team=obs',
      '--label',
      'room=hall',
      '--encoder',
      'json_lines',
      '--sink',
      'file',
      '--endpoint',
      out,
    ]);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.equal('');
    const written = lines(readFileSync(out, 'utf8')).map((l) => JSON.parse(l));
    expect(written).to.have.length(5);
    expect(written[0]).to.include({ name: 'temp', value: 21.5 });
    expect(written[0].labels).to.deep.equal({ room: 'hall', team: 'obs' });
  });

  it('refuses a label key given twice by --label, which kept the last value without a word', async () => {
    const result = await svc(['run', gauge, '--label', 'team=obs', '--label', 'team=infra', '--dry-run']);
    expect(result.code, result.stderr).to.equal(2);
    expect(result.stderr).to.match(
      /^Usage Error: --label: team is given twice, and only one value could be kept: give one --label team=<value>\n/,
    );
  });

  it('lets several entries write one file: it starts empty and keeps every line of every entry', async () => {
    const out = join(tmp, 'shared.prom');
    writeFileSync(out, 'stale line from an earlier run\n');
    const file = scenario(
      'shared.yaml',
      `version: 2
kind: runnable
defaults: { rate: 20, duration: 300ms, sink: { type: file, path: ${out} } }
scenarios:
  - { signal_type: metrics, name: a_gauge, generator: { type: constant, value: 1 } }
  - { signal_type: metrics, name: b_gauge, generator: { type: constant, value: 2 } }
`,
    );
    const result = await svc(['run', file]);
    expect(result.code, result.stderr).to.equal(0);
    const written = lines(readFileSync(out, 'utf8'));
    expect(written.filter((l) => l.startsWith('a_gauge 1 '))).to.have.length(6);
    expect(written.filter((l) => l.startsWith('b_gauge 2 '))).to.have.length(6);
    expect(written).to.have.length(12);
  });

  it('--dry-run shows the generator (and jitter) each operational alias became', async () => {
    const result = await svc(['run', '--dry-run', 'examples/operational-aliases.yaml']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(/generator: +spike baseline=2 magnitude=-1 duration_secs=20 interval_secs=30\n/);
    expect(result.stderr).to.match(/generator: +sawtooth min=0.05 max=1.5 period_secs=120, jitter ±0.02 \(seed 1\)\n/);
    expect(result.stderr).to.match(/generator: +sine amplitude=5 period_secs=30 offset=40, jitter ±1 \(seed 0\)\n/);
  });

  it('--dry-run validates, prints the resolved settings on stderr and emits nothing', async () => {
    const result = await svc(['run', '--dry-run', 'examples/quickstart.yaml']);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.include('entry 1: cpu_usage_percent');
    expect(result.stderr).to.match(/rate: +2\/s/);
    expect(result.stderr).to.match(/generator: +sine amplitude=30 period_secs=10 offset=50, jitter ±2/);
    expect(result.stderr).to.match(/labels: +env=demo, route=\[\/\|\/login\|\/api\]/);
    expect(result.stderr).to.match(/phase offset: +none/);
    expect(result.stderr.trimEnd().split('\n').at(-1)).to.equal('Validation: OK (2 scenarios)');
  });

  it('--verbose prints the resolved settings, then runs', async () => {
    const result = await svc(['run', '--verbose', gauge]);
    expect(result.code).to.equal(0);
    expect(result.stderr).to.match(/entry 1: temp[\s\S]*STOPPED/);
    expect(lines(result.stdout)).to.have.length(6);
  });

  it('exits 1 naming the field when the file is invalid, also under --dry-run', async () => {
    const bad = scenario('bad.yaml', readFileSync(gauge, 'utf8').replace('rate: 20', 'rate: "20"'));
    for (const argv of [
      ['run', bad],
      ['run', '--dry-run', bad],
    ]) {
      const result = await svc(argv);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include('scenarios[0] (temp): rate: invalid type: expected a number, got string "20"');
      expect(result.stdout).to.equal('');
    }
    expect((await svc(['run', '--dry-run', bad])).stderr).to.include('Validation: FAILED');
  });

  it('exits 1 when a flag override makes the file invalid', async () => {
    const result = await svc(['run', gauge, '--rate', '0']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('rate: expected a number greater than 0, got 0');
  });

  it('names the aliases of sink kinds a --sink may be, and the closest one to a typo', async () => {
    const result = await svc(['run', gauge, '--sink', 'lokki']);
    expect(result).to.include({ code: 1, stdout: '' });
    expect(result.stderr).to.equal(
      `error: ${gauge}: --sink lokki: expected one of stdout, file, tcp, udp, http_push, logstore, remote_write, otlp_grpc, otlp_http, broker (or loki for logstore, kafka for broker), got "lokki"; did you mean loki?\n`,
    );
  });

  it('exits 1 naming the path of a missing file', async () => {
    const result = await svc(['run', join(tmp, 'nope.yaml')]);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include(join(tmp, 'nope.yaml'));
  });

  it('exits 2 on usage errors, with the message on stderr', async () => {
    for (const argv of [
      ['run', gauge, '--nope'],
      ['frobnicate'],
      ['run'],
      ['run', gauge, '--scenario', gauge],
      ['run', gauge, '--rate', 'fast'],
      ['run', gauge, '--label', 'novalue'],
    ]) {
      const result = await svc(argv);
      expect(result.code, argv.join(' ')).to.equal(2);
      expect(result.stdout, argv.join(' ')).to.equal('');
      expect(result.stderr, argv.join(' ')).to.not.equal('');
    }
  });

  it('stops on a signal: flushes everything it counted, prints STOPPED, exits 0', async () => {
    const forever = scenario(
      'forever.yaml',
      readFileSync(gauge, 'utf8').replace('    duration: 300ms\n', '').replace('rate: 20', 'rate: 2000'),
    );
    const signals = new Subject<string>();
    setTimeout(() => signals.next('SIGTERM'), 300);
    const result = await svc(['run', forever], { signals });
    expect(result.code).to.equal(0);
    const [, , , counted] = STOPPED.exec(lines(result.stderr).at(-1)!)!;
    expect(Number(counted)).to.be.greaterThan(100);
    expect(lines(result.stdout)).to.have.length(Number(counted));
  });

  for (const workers of ['1', '2'])
    it(`stops quietly and exits 0 when the reader of stdout goes away (EPIPE), --workers ${workers}`, async () => {
      const forever = scenario(
        'endless.yaml',
        readFileSync(gauge, 'utf8')
          .replace('    duration: 300ms\n', '    dynamic_labels: [{ key: pod, cardinality: 2 }]\n')
          .replace('rate: 20', 'rate: 200'),
      );
      let written = 0;
      let taken = 0;
      const stdout = new Writable({
        write(chunk, _encoding, done) {
          if (++written > 3) return done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
          taken += lines(String(chunk)).length;
          done();
        },
      });
      // Bounded: a run that does not stop on its own is stopped after 5 s, and the spec fails.
      const signals = new Subject<string>();
      const bound = setTimeout(() => signals.next('SIGTERM'), 5000);
      const started = Date.now();
      const result = await svc(['run', forever, '--workers', workers], { stdout, signals }).finally(() =>
        clearTimeout(bound),
      );
      expect(Date.now() - started, 'stopped by the bound, not by EPIPE').to.be.lessThan(5000);
      const { code, stderr } = result;
      expect(code, stderr).to.equal(0);
      expect(stderr).to.not.match(/EPIPE|\[warn\]|error/i);
      const stopped = lines(stderr).filter((l) => STOPPED.test(l));
      expect(stopped).to.have.length(1);
      // What the reader never took is counted: events − dropped is what reached it.
      const { events, dropped } = stoppedCounts(stderr, 'temp');
      expect(dropped, stopped[0]).to.be.greaterThan(0);
      expect(events - dropped, stopped[0]).to.equal(taken);
    });

  it('refuses before starting, exit 1, a file sink that cannot open its path, naming the entry and sink.path (or -o)', async () => {
    const notDir = join(tmp, 'plain-file');
    writeFileSync(notDir, '');
    const missing = join(tmp, 'missing', 'dir', 'out.prom');
    for (const [path, why] of [
      [missing, `the directory ${join(tmp, 'missing', 'dir')} does not exist`],
      [tmp, 'it is a directory; path must name a file'],
      [join(notDir, 'out.prom'), `a part of ${notDir} is a file, not a directory`],
      [join(tmp, 'new-dir/'), 'it ends with /, which names a directory; path must name a file'],
    ]) {
      const expected = `error: ${gauge}: temp: sink.path: cannot open ${path}: ${why}\n`;
      // Given by -o, the path is the flag's, once however many entries write it.
      const byOutput = `error: ${gauge}: -o/--output: cannot open ${path}: ${why}\n`;
      const inFile = scenario(
        'unopenable.yaml',
        readFileSync(gauge, 'utf8').replace('labels:', `sink: { type: file, path: "${path}" }\n    labels:`),
      );
      for (const argv of [
        ['run', inFile],
        ['run', gauge, '-o', path],
        ['run', gauge, '--sink', 'file', '--endpoint', path],
      ]) {
        const result = await svc(argv);
        expect(result, argv.join(' ')).to.include({ code: 1, stdout: '' });
        expect(result.stderr, argv.join(' ')).to.equal(
          argv[1] === inFile ? expected.replace(gauge, inFile) : argv[2] === '-o' ? byOutput : expected,
        );
      }
      const dry = await svc(['run', '--dry-run', gauge, '-o', path]);
      expect(dry.code).to.equal(1);
      expect(dry.stderr).to.equal(`${byOutput}Validation: FAILED\n`);
    }
    expect(readdirSync(tmp)).to.not.include('missing');
  });

  /** A scenario-file entry `name` writing `path` for 1 s (with `encoder`, when given), as YAML. */
  const fileEntry = (name: string, path: string, encoder?: string) =>
    `  - signal_type: metrics\n    name: ${name}\n    generator: { type: constant, value: 1 }\n    rate: 1\n    duration: 1s\n${encoder ? `    encoder: { type: ${encoder} }\n` : ''}    sink: { type: file, path: "${path}" }\n`;

  it('refuses a path several entries write once, naming them all', async () => {
    const path = join(tmp, 'missing', 'shared.prom');
    const file = scenario(
      'shared.yaml',
      `version: 2\nkind: runnable\nscenarios:\n${fileEntry('cpu', path)}${fileEntry('mem', path)}`,
    );
    const result = await svc(['run', file]);
    expect(result).to.include({ code: 1, stdout: '' });
    expect(result.stderr).to.equal(
      `error: ${file}: cpu, mem: sink.path: cannot open ${path}: the directory ${join(tmp, 'missing')} does not exist\n`,
    );
  });

  it('refuses before starting entries writing one file with openmetrics and another encoder, naming them all', async () => {
    // Before, the run wrote json lines into the OpenMetrics exposition, then its `# EOF`: a file no reader takes.
    const path = join(tmp, 'mixed.om');
    const file = scenario(
      'mixed.yaml',
      `version: 2\nkind: runnable\nscenarios:\n${fileEntry('cpu', path, 'openmetrics')}${fileEntry('mem', path, 'json_lines')}`,
    );
    const result = await svc(['run', file]);
    expect(result).to.include({ code: 1, stdout: '' });
    expect(result.stderr).to.equal(
      `error: ${file}: cpu, mem: sink.path: cannot open ${path}: the entries write it with encodings that cannot share a file (cpu as openmetrics, mem as json_lines): a file of openmetrics holds nothing but its lines up to its "# EOF". Give them different paths\n`,
    );
    expect(existsSync(path)).to.equal(false);
  });

  it('refuses the same file written with two encoders whatever its spelling, and under -o says how to run them', async () => {
    // Before, the check grouped the entries by the path as written: `mixed.om` and `./mixed.om` started, one entry
    // then failing as its sink opened, with no field named; under -o its advice (different paths) could not be taken.
    const path = join(tmp, 'spelt.om');
    const file = scenario(
      'spelt.yaml',
      `version: 2\nkind: runnable\nscenarios:\n${fileEntry('cpu', path, 'openmetrics')}${fileEntry('mem', join(tmp, '.', 'x', '..', 'spelt.om'), 'json_lines')}`,
    );
    const refusal = (advice: string) =>
      `the entries write it with encodings that cannot share a file (cpu as openmetrics, mem as json_lines): a file of openmetrics holds nothing but its lines up to its "# EOF". ${advice}`;
    const spelt = await svc(['run', file]);
    expect(spelt).to.include({ code: 1, stdout: '' });
    expect(spelt.stderr).to.equal(
      `error: ${file}: cpu, mem: sink.path: cannot open ${path}: ${refusal('Give them different paths')}\n`,
    );
    const output = join(tmp, 'both.om');
    const underO = await svc(['run', file, '-o', output]);
    expect(underO).to.include({ code: 1, stdout: '' });
    expect(underO.stderr).to.equal(
      `error: ${file}: -o/--output: cannot open ${output}: ${refusal('Run them without -o, each to its own sink.path, or with one encoder')}\n`,
    );
    expect([existsSync(path), existsSync(output)]).to.deep.equal([false, false]);
  });

  it('refuses before starting a symbolic link to nowhere that the open could not create, saying where it leads', async () => {
    const links = join(tmp, 'links');
    mkdirSync(links);
    writeFileSync(join(links, 'plain'), '');
    const link = (name: string, to: string) => {
      symlinkSync(to, join(links, name));
      return join(links, name);
    };
    const gone = join(links, 'gone', 'out.prom');
    link('loop-b', 'loop-a');
    for (const [path, why] of [
      [link('to-gone', gone), `it is a symbolic link to ${gone}: the directory ${join(links, 'gone')} does not exist`],
      // A chain of links ends at the same place; a relative target is taken from the link's directory.
      [
        link('chained', 'to-gone'),
        `it is a symbolic link to ${gone}: the directory ${join(links, 'gone')} does not exist`,
      ],
      [
        link('through-file', 'plain/out.prom'),
        `it is a symbolic link to ${join(links, 'plain', 'out.prom')}: a part of ${join(links, 'plain')} is a file, not a directory`,
      ],
      [link('loop-a', 'loop-b'), 'too many symbolic links encountered'],
    ]) {
      const result = await svc(['run', '--dry-run', gauge, '-o', path]);
      expect(result.code, path).to.equal(1);
      expect(result.stderr, path).to.equal(
        `error: ${gauge}: -o/--output: cannot open ${path}: ${why}\nValidation: FAILED\n`,
      );
    }
  });

  it('follows a symbolic link to nowhere whose directory exists, as the open does: the run creates its target', async () => {
    const dir = join(tmp, 'follow');
    mkdirSync(join(dir, 'data'), { recursive: true });
    symlinkSync('data/out.prom', join(dir, 'out.prom'));
    const result = await svc(['run', '-q', gauge, '-o', join(dir, 'out.prom')]);
    expect(result, result.stderr).to.include({ code: 0, stderr: '' });
    expect(lines(readFileSync(join(dir, 'data', 'out.prom'), 'utf8'))).to.have.length(6);
    // In a directory reached through a link, a `..` of the target is taken from where that directory really is.
    mkdirSync(join(dir, 'a', 'b', 'c'), { recursive: true });
    mkdirSync(join(dir, 'a', 'b', 'y'));
    symlinkSync('a/b/c', join(dir, 'deep'));
    symlinkSync('../y/out.prom', join(dir, 'deep', 'out.prom'));
    const through = await svc(['run', '-q', gauge, '-o', join(dir, 'deep', 'out.prom')]);
    expect(through, through.stderr).to.include({ code: 0, stderr: '' });
    expect(lines(readFileSync(join(dir, 'a', 'b', 'y', 'out.prom'), 'utf8'))).to.have.length(6);
  });

  it('refuses a file sink onto the scenario file itself (svc run f.yaml -o f.yaml), which it would overwrite', async () => {
    const own = scenario('own.yaml', readFileSync(gauge, 'utf8'));
    const text = readFileSync(own, 'utf8');
    for (const target of [own, `${tmp}/./own.yaml`]) {
      const result = await svc(['run', own, '-o', target]);
      expect(result).to.include({ code: 1, stdout: '' });
      expect(result.stderr).to.equal(
        `error: ${own}: -o/--output: cannot open ${target}: it is the scenario file being run, which writing would overwrite\n`,
      );
    }
    expect(readFileSync(own, 'utf8')).to.equal(text);
  });

  // A named pipe that no process reads passes the checks before the run (it exists and may be written); opening it fails.
  it('under --on-sink-error fail exits 1 with the sink error in the STOPPED line and an error line', async () => {
    const pipe = unreadPipe(tmp, 'fail.pipe');
    const result = await svc(['run', gauge, '--sink', 'file', '--endpoint', pipe, '--on-sink-error', 'fail']);
    expect(result.code).to.equal(1);
    const stopped = lines(result.stderr).find((l) => STOPPED.test(l))!;
    expect(stopped).to.include(
      `(sink: file sink: cannot open ${pipe}: it is a named pipe that no process reads: start its reader first)`,
    );
    expect(lines(result.stderr).at(-1)).to.equal(
      'error: temp: its sink failed (the error is on its STOPPED line above)',
    );
  });

  it('a file that cannot be written stops its entry even under warn: said once, on the STOPPED line, exit 1', async () => {
    const result = await svc(['run', gauge, '--sink', 'file', '--endpoint', unreadPipe(tmp, 'warn.pipe')]);
    expect(result.code).to.equal(1);
    const err = lines(result.stderr);
    expect(err.find((l) => STOPPED.test(l))).to.include('STOPPED (sink: file sink: cannot open');
    expect(err.filter((l) => l.includes('file sink: cannot open'))).to.have.length(1);
    expect(err.at(-1)).to.equal('error: temp: its sink failed (the error is on its STOPPED line above)');
  });
});

/**
 * Examples that write to a backend; the backend's spec runs them (spec/sinks/remote-write.backends.spec.ts,
 * otlp.spec.ts, broker.mock-cluster.spec.ts, spec/runtime/traces.spec.ts).
 */
const BACKEND_EXAMPLES = new Set(['remote-write.yaml', 'otlp.yaml', 'kafka.yaml', 'traces.yaml', 'incident.yaml']);

describe('examples', () => {
  for (const file of readdirSync('examples').filter((f) => f.endsWith('.yaml') && !BACKEND_EXAMPLES.has(f))) {
    it(`examples/${file} runs`, async () => {
      const result = await svc(['run', `examples/${file}`, '--duration', '1s']);
      expect(result.code, result.stderr).to.equal(0);
      const stopped = lines(result.stderr).filter((l) => STOPPED.test(l));
      expect(stopped.length).to.be.greaterThan(0);
      for (const line of stopped) expect(line).to.not.include('(sink:');
      const events = stopped.reduce((sum, line) => sum + Number(STOPPED.exec(line)![3]), 0);
      expect(events).to.be.greaterThan(0);
    });
  }
});
