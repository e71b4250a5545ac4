import { expect } from 'chai';
import { svc, lines, scenarioDir } from '../support/cli.js';

describe('svc logs', () => {
  it('emits seeded records from flag templates and pools, with labels, as json_lines', async () => {
    const argv = [
      'logs',
      '--message',
      'user {user} did {thing}',
      '--field',
      'user=ann,bob',
      '--rate',
      '20',
      '--duration',
      '250ms',
      '--label',
      'app=shop',
    ];
    const result = await svc(argv);
    expect(result.code, result.stderr).to.equal(0);
    const records = lines(result.stdout).map((l) => JSON.parse(l));
    expect(records).to.have.length(5);
    for (const r of records) {
      expect(r.message).to.match(/^user (ann|bob) did \{thing\}$/);
      expect(r.fields).to.deep.equal({ user: r.message.split(' ')[1] });
      expect(r.labels).to.deep.equal({ app: 'shop' });
      expect(r.severity).to.equal('info');
    }
    const again = await svc(argv);
    expect(lines(again.stdout).map((l) => JSON.parse(l).message)).to.deep.equal(records.map((r) => r.message));
  });

  it('takes severity weights and the syslog encoder', async () => {
    const result = await svc([
      'logs',
      '--message',
      'boom',
      '--severity',
      'error=1',
      '--rate',
      '10',
      '--duration',
      '200ms',
      '--encoder',
      'syslog',
    ]);
    expect(result.code, result.stderr).to.equal(0);
    for (const line of lines(result.stdout)) expect(line).to.match(/^<11>1 \S+ \S+ svc - - - boom$/);
  });

  it('refuses metrics_text on a log entry with a message naming the flag', async () => {
    const result = await svc(['logs', '--message', 'x', '--rate', '1', '--encoder', 'metrics_text']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('--encoder metrics_text: metrics_text cannot encode a logs entry');
  });

  it('names the flag whose value is wrong, not the field it wrote', async () => {
    const cases: [string[], string][] = [
      [['--seed', '1.5'], 'svc logs flags: --seed: expected an integer, got 1.5'],
      [
        ['--severity', 'critical=1'],
        'svc logs flags: --severity: critical: unknown field (allowed: trace, debug, info, warn, error, fatal)',
      ],
      [['--name', 'a b'], 'svc logs flags: --name: expected a name matching'],
    ];
    for (const [flags, message] of cases) {
      const result = await svc(['logs', '--message', 'x', '--rate', '1', ...flags]);
      expect(result.code, flags.join(' ')).to.equal(1);
      expect(result.stderr, flags.join(' ')).to.include(message);
    }
    const metrics = await svc(['metrics', '--name', 'cpu-usage', '--rate', '1']);
    expect(metrics.code).to.equal(1);
    expect(metrics.stderr).to.include('svc metrics flags: --name: expected a name matching');
  });

  it("takes the reference tool's --mode replay --file, and --severity-weights", async () => {
    const { scenario } = scenarioDir('svc-logs-replay-');
    const file = scenario('app.log', 'line one\nline two\n');
    const replay = await svc(['logs', '--mode', 'replay', '--file', file, '--rate', '20', '--duration', '200ms']);
    expect(replay.code, replay.stderr).to.equal(0);
    expect(lines(replay.stdout).map((l) => JSON.parse(l).message)).to.deep.equal([
      'line one',
      'line two',
      'line one',
      'line two',
    ]);
    const weighted = await svc([
      'logs',
      '--mode',
      'template',
      '--message',
      'boom',
      '--severity-weights',
      'error=1',
      '--rate',
      '10',
      '--duration',
      '200ms',
    ]);
    expect(weighted.code, weighted.stderr).to.equal(0);
    expect(lines(weighted.stdout)).to.have.lengthOf(2);
    for (const line of lines(weighted.stdout)) expect(JSON.parse(line).severity).to.equal('error');
    const mistakes: [string[], string][] = [
      [['--mode', 'replay', '--file', file, '--message', 'x'], '--message shapes templates: --mode replay'],
      [['--mode', 'replay'], '--mode replay needs --file <file>'],
      [['--message', 'x', '--file', file], '--file is the file of --mode replay: give --mode replay too'],
      [['--message', 'x', '--replay-file', file], '--replay-file is the file of --mode replay: give --mode replay too'],
      [['--message', 'x', '--severity-weights', 'error=x'], '--severity-weights: expected a number, got "x"'],
      [
        ['--mode', 'replay', '--file', file, '--replay-file', file],
        '--file and --replay-file are one flag: give one of them',
      ],
      [
        ['--message', 'x', '--severity', 'error=1', '--severity-weights', 'info=1'],
        '--severity and --severity-weights are one flag: give one of them',
      ],
      [['--mode', 'tail', '--message', 'x'], '--mode: expected one of template, replay, got "tail"'],
    ];
    for (const [argv, message] of mistakes) {
      const result = await svc(['logs', '--rate', '1', ...argv]);
      expect(result.code, argv.join(' ')).to.equal(2);
      expect(result.stderr, argv.join(' ')).to.include(message);
    }
    const unknownLevel = await svc(['logs', '--rate', '1', '--message', 'x', '--severity-weights', 'bogus=1']);
    expect(unknownLevel.code).to.equal(1);
    expect(unknownLevel.stderr).to.include('--severity-weights: bogus: unknown field');
  });

  it('refuses a pool or a severity given twice, which kept the last value only', async () => {
    // --field user=ann --field user=bob wrote bob in every record: ann's pool was dropped without a word.
    for (const [argv, message] of [
      [
        ['--field', 'user=ann', '--field', 'user=bob'],
        '--field: user is given twice, and only one value could be kept: give all its values in one --field user=a,b',
      ],
      [
        ['--severity', 'info=1,error=2,info=3'],
        '--severity: info is given twice, and only one value could be kept: give each severity one weight',
      ],
      // Across repeated flags too: --severity info=1 --severity info=2 kept info=2 without a word.
      [
        ['--severity', 'info=1', '--severity', 'info=2'],
        '--severity: info is given twice, and only one value could be kept: give each severity one weight',
      ],
    ] as const) {
      const result = await svc(['logs', '--rate', '1', '--duration', '1s', '--message', '{user}', ...argv]);
      expect(result.code, argv.join(' ')).to.equal(2);
      expect(result.stderr, argv.join(' ')).to.include(message);
    }
  });

  it('merges repeated --severity flags, as repeated --field flags', async () => {
    // --severity info=1 --severity error=1 weighted error alone: the last flag replaced the first.
    const result = await svc([
      'logs',
      '--rate',
      '200',
      '--duration',
      '1s',
      '--message',
      'x',
      '--severity',
      'info=1',
      '--severity',
      'error=1',
      '-q',
    ]);
    expect(result.code, result.stderr).to.equal(0);
    const severities = new Set(lines(result.stdout).map((line) => JSON.parse(line).severity));
    expect([...severities].sort()).to.deep.equal(['error', 'info']);
  });

  it('exits 2 on usage mistakes', async () => {
    for (const argv of [
      ['logs', '--rate', '1'],
      ['logs', '--message', 'x'],
      ['logs', '--message', 'x', '--rate', '1', '--field', 'nopool'],
      ['logs', '--message', 'x', '--rate', '1', '--severity', 'info=lots'],
    ]) {
      expect((await svc(argv)).code, argv.join(' ')).to.equal(2);
    }
  });
});
