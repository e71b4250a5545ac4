import { expect } from 'chai';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { lines, scenarioDir, svc } from '../support/cli.js';

/** A scenario in a fresh directory, its CSVs in data/ beside it. */
function replayScenario(entries: string, csv: Record<string, string>): string {
  const { dir, scenario } = scenarioDir('svc-csv-cli-');
  mkdirSync(join(dir, 'data'));
  for (const [name, text] of Object.entries(csv)) writeFileSync(join(dir, 'data', name), text);
  return scenario('replay.yaml', `version: 2\nkind: runnable\nscenarios:\n${entries}`);
}

describe('svc run: csv_replay', () => {
  it("replays a log CSV, its path relative to the scenario file, the rows on the CSV's own time", async () => {
    const file = replayScenario(
      `  - name: app
    signal_type: logs
    rate: 1
    duration: 5s
    start_time: 2024-05-01T10:00:00Z
    log_generator: { type: csv_replay, file: data/app.csv }
    encoder: { type: json_lines }
`,
      { 'app.csv': 'timestamp,severity,message,user\n100,info,login,ann\n102,error,denied,bob\n106,warn,retry,ann\n' },
    );
    const result = await svc(['run', file, '--backfill', '--quiet']);
    expect(result.code, result.stderr).to.equal(0);
    const records = lines(result.stdout).map(
      (line) => JSON.parse(line) as { timestamp: string; severity: string; message: string; fields: object },
    );
    expect(
      records.map(({ timestamp, severity, message, fields }) => [timestamp.slice(17, 19), severity, message, fields]),
    ).to.deep.equal([
      ['00', 'info', 'login', { user: 'ann' }],
      ['01', 'info', 'login', { user: 'ann' }],
      ['02', 'error', 'denied', { user: 'bob' }],
      ['03', 'error', 'denied', { user: 'bob' }],
      ['04', 'error', 'denied', { user: 'bob' }],
    ]);
  });

  it('replays each column of a Grafana export as its own series', async () => {
    const file = replayScenario(
      `  - name: load
    signal_type: metrics
    rate: 1
    duration: 3s
    start_time: 2024-05-01T10:00:00Z
    generator: { type: csv_replay, file: data/load.csv, timescale: 15 }
`,
      {
        'load.csv':
          '"Time","{__name__=""node_load1"", instance=""a""}","{__name__=""node_load1"", instance=""b""}"\n1714557600000,0.5,1.5\n1714557615000,0.75,2\n1714557630000,1,2.5\n',
      },
    );
    const result = await svc(['run', file, '--backfill', '--quiet']);
    expect(result.code, result.stderr).to.equal(0);
    const at = Date.parse('2024-05-01T10:00:00Z');
    expect(lines(result.stdout).sort()).to.deep.equal(
      [
        `node_load1{instance="a"} 0.5 ${at}`,
        `node_load1{instance="a"} 0.75 ${at + 1000}`,
        `node_load1{instance="a"} 1 ${at + 2000}`,
        `node_load1{instance="b"} 1.5 ${at}`,
        `node_load1{instance="b"} 2 ${at + 1000}`,
        `node_load1{instance="b"} 2.5 ${at + 2000}`,
      ].sort(),
    );
  });

  it('names the CSV, its line and column when a cell is wrong (exit 1)', async () => {
    const file = replayScenario(
      `  - { name: load, signal_type: metrics, rate: 1, generator: { type: csv_replay, file: data/load.csv } }\n`,
      { 'load.csv': 'Time,load\n1,0.5\n2,high\n' },
    );
    const result = await svc(['run', file, '--dry-run']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include(
      `${join(file, '..', 'data', 'load.csv')}: line 3, column 2 (load): expected a finite decimal number (NaN, infinities and values beyond ±1.8e308 are not replayed), got "high"`,
    );
  });
});

describe("svc run: replay (the reference tool's log replay)", () => {
  it('writes one line of the file a tick, in order, starting over after the last', async () => {
    const file = replayScenario(
      `  - name: app
    signal_type: logs
    rate: 2
    duration: 3s
    start_time: 2024-05-01T10:00:00Z
    log_generator: { type: replay, file: data/app.log }
    encoder: { type: json_lines }
`,
      { 'app.log': '10.0.0.1 - GET /a 200\n\n10.0.0.2 - GET /b 500\n10.0.0.3 - GET /c 404\n' },
    );
    const result = await svc(['run', file, '--backfill', '--quiet']);
    expect(result.code, result.stderr).to.equal(0);
    const records = lines(result.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      records.map(({ timestamp, severity, message, fields }) => [timestamp, severity, message, fields]),
    ).to.deep.equal(
      [
        ['2024-05-01T10:00:00.000Z', '10.0.0.1 - GET /a 200'],
        ['2024-05-01T10:00:00.500Z', '10.0.0.2 - GET /b 500'],
        ['2024-05-01T10:00:01.000Z', '10.0.0.3 - GET /c 404'],
        ['2024-05-01T10:00:01.500Z', '10.0.0.1 - GET /a 200'],
        ['2024-05-01T10:00:02.000Z', '10.0.0.2 - GET /b 500'],
        ['2024-05-01T10:00:02.500Z', '10.0.0.3 - GET /c 404'],
      ].map(([timestamp, message]) => [timestamp, 'info', message, {}]),
    );
  });
});

describe('svc run: a file sink onto a file the scenario reads', () => {
  const csv = 'Time,load\n1714557600000,0.5\n1714557615000,0.75\n';
  const log = 'GET /a 200\nGET /b 500\n';
  const pack = 'name: web\ndescription: a pack\nmetrics:\n  - name: hits\n';

  /** A scenario reading data/load.csv, data/app.log and data/web.yaml (a pack file); `sink` of its first entry. */
  function reading(sink?: (data: string) => string) {
    const { dir, scenario } = scenarioDir('svc-inputs-');
    const data = join(dir, 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'load.csv'), csv);
    writeFileSync(join(data, 'app.log'), log);
    writeFileSync(join(data, 'web.yaml'), pack);
    const file = scenario(
      'reads.yaml',
      `version: 2
kind: runnable
scenarios:
  - name: load
    signal_type: metrics
    rate: 1
    duration: 1s
    generator: { type: csv_replay, file: data/load.csv }
${sink?.(data) ?? ''}  - name: app
    signal_type: logs
    rate: 1
    duration: 1s
    log_generator: { type: replay, file: data/app.log }
  - pack: ./data/web.yaml
    signal_type: metrics
    rate: 1
    duration: 1s
`,
    );
    return { file, data };
  }

  it('is refused before any entry starts, exit 1, naming -o and the file it would overwrite, once for every entry', async () => {
    const { file, data } = reading();
    symlinkSync(join(data, 'load.csv'), join(data, 'link.csv'));
    for (const [target, input] of [
      [join(data, 'load.csv'), `the csv_replay file ${join(data, 'load.csv')}`],
      // Another spelling of the path, and a symbolic link to the file: the same file.
      [`${data}/../data/load.csv`, `the csv_replay file ${join(data, 'load.csv')}`],
      [join(data, 'link.csv'), `the csv_replay file ${join(data, 'load.csv')}`],
      [join(data, 'app.log'), `the replay file ${join(data, 'app.log')}`],
      [join(data, 'web.yaml'), `the pack file ${join(data, 'web.yaml')}`],
    ]) {
      const why = `cannot open ${target}: it is ${input} the scenario reads, which writing would overwrite`;
      for (const argv of [
        ['run', file, '-o', target],
        ['run', '--dry-run', file, '-o', target],
      ]) {
        const result = await svc(argv);
        expect(result, argv.join(' ')).to.include({ code: 1, stdout: '' });
        // One line for the three entries that write the path.
        expect(result.stderr, argv.join(' ')).to.equal(
          `error: ${file}: -o/--output: ${why}\n${argv[1] === '--dry-run' ? 'Validation: FAILED\n' : ''}`,
        );
      }
    }
    expect(['load.csv', 'app.log', 'web.yaml'].map((name) => readFileSync(join(data, name), 'utf8'))).to.deep.equal([
      csv,
      log,
      pack,
    ]);
  });

  it("is refused when the entry's own sink in the file names it (relative: from the working directory)", async () => {
    let path = '';
    const { file, data } = reading((dir) => {
      path = relative(process.cwd(), join(dir, 'load.csv'));
      return `    sink: { type: file, path: ${path} }\n`;
    });
    const result = await svc(['run', file]);
    expect(result, result.stderr).to.include({ code: 1, stdout: '' });
    expect(result.stderr).to.equal(
      `error: ${file}: load: sink.path: cannot open ${path}: it is the csv_replay file ${join(data, 'load.csv')} the scenario reads, which writing would overwrite\n`,
    );
    expect(readFileSync(join(data, 'load.csv'), 'utf8')).to.equal(csv);
  });

  it("is refused onto a catalog's pack that an entry uses by name (--catalog), read with the catalog", async () => {
    const { dir, scenario } = scenarioDir('svc-inputs-catalog-');
    const catalog = join(dir, 'catalog');
    mkdirSync(catalog);
    writeFileSync(join(catalog, 'web.yaml'), pack);
    const file = scenario(
      'uses.yaml',
      'version: 2\nkind: runnable\nscenarios:\n  - pack: web\n    signal_type: metrics\n    rate: 1\n    duration: 1s\n',
    );
    const target = join(catalog, 'web.yaml');
    const result = await svc(['run', '--catalog', catalog, file, '-o', target]);
    expect(result).to.include({ code: 1, stdout: '' });
    expect(result.stderr).to.equal(
      `error: ${file}: -o/--output: cannot open ${target}: it is the pack file ${target} the scenario reads, which writing would overwrite\n`,
    );
    expect(readFileSync(target, 'utf8')).to.equal(pack);
  });
});
