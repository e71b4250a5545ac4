import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../lib/config/index.js';
import { filesIn, logLines, logTable, metricTable, readReplays } from '../../lib/config/csv-replay.js';
import { MAX_CSV_CELL, MAX_CSV_COLUMNS, MAX_CSV_ROWS } from '../../lib/language/limits.js';
import { load, v2 } from '../support/scenarios.js';
import { temporaryDirectory } from '../support/directories.js';

/** The messages (with the file named) of the ConfigError `run` throws. */
function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  return expect.fail('expected a ConfigError');
}

const GRAFANA = [
  '"Time","{__name__=""node_load1"", instance=""web-1:9100""}","up{job=""api"", path=""/a\\""b""}",queue_depth',
  '1714557600000,0.5,1,',
  '1714557615000,,0,7',
  '1714557630000,1.25,1,8',
].join('\n');

describe('csv_replay: metric CSV files', () => {
  it('reads Grafana series headers: {__name__="x", k="v"}, x{k="v"} and a bare metric name', () => {
    const table = metricTable(GRAFANA, 'load.csv');
    expect(table.columns.map(({ header, ...column }) => column)).to.deep.equal([
      { name: 'node_load1', labels: { instance: 'web-1:9100' }, values: [0.5, 0.5, 1.25] },
      { name: 'up', labels: { job: 'api', path: '/a"b' }, values: [1, 0, 1] },
      // An empty cell holds the value before it; leading empty cells take the first value.
      { name: 'queue_depth', labels: {}, values: [7, 7, 8] },
    ]);
    // Milliseconds from the first row; the last row holds for one spacing.
    expect(table.times).to.deep.equal({ at: [0, 15_000, 30_000], span: 45_000 });
  });

  it('reads a cell written null, as Grafana 12 exports a null, as an empty one', () => {
    const table = metricTable(
      'Time,a,b\n1714557600000,null,1\n1714557615000,2,null\n1714557630000,"null",3\n',
      'g.csv',
    );
    expect(table.columns.map((column) => column.values)).to.deep.equal([
      [2, 2, 2],
      [1, 1, 3],
    ]);
  });

  it('skips lines that begin with #, as the reference tool does; a # within a cell is data', () => {
    const text =
      '# CPU during an incident.\n# Exported from VictoriaMetrics.\ntimestamp,"cpu{note=""a#b""}"\n1700000000,1\n# a pause\n1700000010,2\n';
    const table = metricTable(text, 'cpu.csv');
    expect(table.columns.map(({ header, ...column }) => column)).to.deep.equal([
      { name: 'cpu', labels: { note: 'a#b' }, values: [1, 2] },
    ]);
    expect(table.times.at).to.deep.equal([0, 10_000]);
    expect(logTable('# nginx\nts,message\n1700000000,GET /#top\n', 'log.csv').records).to.deep.equal([
      { severity: 'info', message: 'GET /#top', fields: {} },
    ]);
  });

  it("keeps each log row's line in the file, comments and blank lines counted, for messages that name it", () => {
    expect(logTable('# nginx\nts,message\n\n1,a\n# b\n2,"b\nc"\n3,d\n', 'log.csv').lineNumbers).to.deep.equal([
      4, 7, 8,
    ]);
  });

  it('reads a header of one label written by hand, unquoted; one split at its commas is told to quote it', () => {
    const table = metricTable('time,load{host="a"}\n1,1\n2,2\n', 'load.csv');
    expect(table.columns.map(({ header, ...column }) => column)).to.deep.equal([
      { name: 'load', labels: { host: 'a' }, values: [1, 2] },
    ]);
    expect(problems(() => metricTable('time,load{host="a",dc="b"}\n1,1\n', 'load.csv'))).to.deep.equal([
      'load.csv: line 2, column 3 (dc="b"}): missing: the row has 2 cells, the header 3 (an empty cell, not a missing one, holds the value before it); a header whose labels hold commas is one CSV cell only when quoted, its quotes doubled, as Grafana writes it: "node_load1{instance=""a"",job=""b""}"',
    ]);
  });

  it('takes Unix seconds and date-time texts as timestamps', () => {
    expect(metricTable('time,x\n1714557600,1\n1714557601.5,2\n', 'a.csv').times).to.deep.equal({
      at: [0, 1500],
      span: 3000,
    });
    expect(metricTable('Time,x\n2024-05-01T10:00:00Z,1\n2024-05-01T10:00:10Z,2\n', 'a.csv').times.at).to.deep.equal([
      0, 10_000,
    ]);
  });

  it('names the file, line and column of every problem', () => {
    const NUMBER = 'a finite decimal number (NaN, infinities and values beyond ±1.8e308 are not replayed)';
    const cases: [string, string][] = [
      ['Time,x\n1,1\n2,abc\n', `bad.csv: line 3, column 2 (x): expected ${NUMBER}, got "abc"`],
      // Prometheus writes these, and Number() reads hex: each said only "expected a number", or was read as 16.
      ...['NaN', '+Inf', '1e400', '0x10'].map((cell): [string, string] => [
        `Time,x\n1,1\n2,${cell}\n`,
        `bad.csv: line 3, column 2 (x): expected ${NUMBER}, got "${cell}"`,
      ]),
      [
        'Time,x\n1,1\nyesterday,2\n',
        'bad.csv: line 3, column 1 (Time): expected a timestamp (Unix seconds or milliseconds, or a date-time such as 2024-05-01T10:00:00Z), got "yesterday"',
      ],
      [
        'Time,x\n2,1\n1,2\n',
        'bad.csv: line 3, column 1 (Time): expected a time later than the row before\'s (rows must be in time order, read to 1 µs), got "1"',
      ],
      [
        'value,Time\n1,1\n',
        'bad.csv: line 1, column 1: expected the time column first (headed Time or timestamp), got "value"',
      ],
      [
        'Time,cpu usage\n1,1\n',
        'bad.csv: line 1, column 2: expected a metric name or a series header such as {__name__="up", job="api"}, got "cpu usage"',
      ],
      [
        'Time,"{__name__=""cpu usage""}"\n1,1\n',
        'bad.csv: line 1, column 2: expected a metric name or a series header such as {__name__="up", job="api"}, got "{__name__=\\"cpu usage\\"}"',
      ],
      // A header's labels are written as an entry's labels are, and obey their rules: __x was replayed as it was.
      [
        'Time,cpu{__x="a"}\n1,1\n',
        'bad.csv: line 1, column 2 (cpu{__x="a"}): labels.__x: expected a label key not beginning with __ (Prometheus reserves those; __name__ is the metric name, the entry\'s name), got "__x"',
      ],
      // __proto__ set the prototype of the labels and was dropped without a word.
      [
        'Time,cpu{__proto__="a"}\n1,1\n',
        'bad.csv: line 1, column 2 (cpu{__proto__="a"}): labels.__proto__: expected a label key not beginning with __ (Prometheus reserves those; __name__ is the metric name, the entry\'s name), got "__proto__"',
      ],
      // The last of two values was kept without a word.
      [
        'Time,"cpu{pod=""a"", pod=""b""}"\n1,1\n',
        'bad.csv: line 1, column 2 (cpu{pod="a", pod="b"}): the header gives pod twice: a series has one value a label, so give it once',
      ],
      [
        'Time,"cpu{__name__=""mem""}"\n1,1\n',
        'bad.csv: line 1, column 2 (cpu{__name__="mem"}): the header gives __name__ twice: a series has one value a label, so give it once',
      ],
      [
        `Time,cpu{k="${'v'.repeat(2049)}"}\n1,1\n`,
        `bad.csv: line 1, column 2 (cpu{k="${'v'.repeat(2049)}"}): labels.k: expected a label value of at most 2048 characters, got 2049 characters`,
      ],
      ['Time,x,y\n1,1,\n2,2,\n', 'bad.csv: line 1, column 3 (y): the column has no value in any row'],
      ['Time,x\n1,1\n2,2,3\n', 'bad.csv: line 3, column 3: beyond the header: the row has 3 cells, the header 2'],
      [
        'Time,x,y\n1,1,2\n2,,3\n3,4\n',
        'bad.csv: line 4, column 3 (y): missing: the row has 2 cells, the header 3 (an empty cell, not a missing one, holds the value before it)',
      ],
      ['Time,x\n', 'bad.csv: expected a header line and at least one row'],
    ];
    for (const [text, message] of cases)
      expect(
        problems(() => metricTable(text, 'bad.csv')),
        text,
      ).to.deep.equal([message]);
  });

  it('is bounded in rows and columns', () => {
    const rows = Array.from({ length: MAX_CSV_ROWS + 1 }, (_, i) => `${i + 1},1`).join('\n');
    expect(problems(() => metricTable(`Time,x\n${rows}\n`, 'big.csv'))).to.deep.equal([
      `big.csv: more than ${MAX_CSV_ROWS} rows, the limit for a csv_replay file`,
    ]);
    const header = ['Time', ...Array.from({ length: MAX_CSV_COLUMNS }, (_, i) => `m${i}`)].join(',');
    expect(problems(() => metricTable(`${header}\n`, 'wide.csv'))[0]).to.equal(
      'wide.csv: expected a header line and at least one row',
    );
    const row = Array.from({ length: MAX_CSV_COLUMNS + 1 }, () => '1').join(',');
    expect(problems(() => metricTable(`${header}\n${row}\n`, 'wide.csv'))).to.deep.equal([
      `wide.csv: ${MAX_CSV_COLUMNS + 1} columns, more than ${MAX_CSV_COLUMNS}, the limit for a csv_replay file`,
    ]);
  });
});

describe('csv_replay: log CSV files', () => {
  it('finds timestamp, severity and message by header name; other columns become fields', () => {
    const table = logTable('service,Level,ts,msg,user\napi,WARNING,1,"slow, very slow",ann\nweb,,3,ok,\n', 'app.csv');
    expect(table.records).to.deep.equal([
      { severity: 'warn', message: 'slow, very slow', fields: { service: 'api', user: 'ann' } },
      { severity: 'info', message: 'ok', fields: { service: 'web' } },
    ]);
    expect(table.times).to.deep.equal({ at: [0, 2000], span: 4000 });
  });

  it('keeps a column headed __proto__ as a field, as any other', () => {
    const [record] = logTable('ts,msg,__proto__\n1,a,b\n', 'app.csv').records;
    expect(Object.entries(record!.fields)).to.deep.equal([['__proto__', 'b']]);
  });

  it('reads row times on the microsecond grid, finer fractions rounded', () => {
    // In ms, 1.0137 s from 1 s is 13.700000000000045: a tick at 13.7 ms read the row before.
    const table = logTable('ts,msg\n1,a\n1.0137,b\n1.0274004,c\n', 'app.csv');
    expect(table.times).to.deep.equal({ at: [0, 13.7, 27.4], span: 41.1 });
  });

  it('names the file, line and column of every problem', () => {
    expect(problems(() => logTable('time,severity\n1,info\n', 'app.csv'))).to.deep.equal([
      'app.csv: line 1: no message column (headed message, msg)',
    ]);
    expect(problems(() => logTable('severity,message\ninfo,x\n', 'app.csv'))).to.deep.equal([
      'app.csv: line 1: no timestamp column (headed time, timestamp, ts)',
    ]);
    expect(problems(() => logTable('time,severity,message\n1,constructor,a\n', 'app.csv'))).to.deep.equal([
      'app.csv: line 2, column 2 (severity): expected one of trace, debug, info, warn, error, fatal, got "constructor"',
    ]);
    expect(problems(() => logTable('time,severity,message\n1,info,a\n2,loud,b\n', 'app.csv'))).to.deep.equal([
      'app.csv: line 3, column 2 (severity): expected one of trace, debug, info, warn, error, fatal, got "loud"',
    ]);
    // The second user column would replace the first in every record: refused, not lost.
    expect(problems(() => logTable('time,message,user,host,user\n1,a,ann,h1,bob\n', 'app.csv'))).to.deep.equal([
      'app.csv: line 1, column 5 (user): the header names the field "user" twice (columns 3 and 5): a record has one value a field, so rename one',
    ]);
  });
});

describe('csv_replay: reading the files of a scenario', () => {
  const dir = temporaryDirectory('svc-csv-');
  writeFileSync(join(dir, 'load.csv'), GRAFANA);
  const scenario = (file: string) =>
    load(v2([{ signal_type: 'metrics', name: 'load', rate: 1, generator: { type: 'csv_replay', file } }]), {
      format: 'json',
    });

  it("reads relative paths from the scenario file's directory", async () => {
    const read = await readReplays(scenario('load.csv'), filesIn(dir));
    const generator = read.scenarios[0]!.generator!;
    expect(generator.type === 'csv_replay' && generator.table?.columns.length).to.equal(3);
  });

  it('names a file it cannot read', async () => {
    const error = await readReplays(scenario('missing.csv'), filesIn(dir)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).message).to.equal(
      `missing.csv: cannot read the csv_replay file (no such file): looked for ${join(dir, 'missing.csv')} (from the scenario file's directory) and ${join(process.cwd(), 'missing.csv')} (from the working directory)`,
    );
  });
});

describe('replay: log files', () => {
  it('keeps every line that is not blank, in order, without its line ending', () => {
    expect(logLines('GET /a 200\r\n\n   \nGET /b 500\nlast without a newline', 'app.log').lines).to.deep.equal([
      'GET /a 200',
      'GET /b 500',
      'last without a newline',
    ]);
  });

  it('keeps the line in the file of each line kept, blank ones counted, for messages that name it', () => {
    expect(logLines('a\r\n\n   \nb\nc', 'app.log').lineNumbers).to.deep.equal([1, 4, 5]);
  });

  it("drops a byte-order mark at the start of the file: it is no text of the first record's message", () => {
    expect(logLines('\uFEFFGET /a 200\r\nGET /b 500\r\n', 'app.log').lines).to.deep.equal(['GET /a 200', 'GET /b 500']);
  });

  it('names the file and the line of every problem, and is bounded', () => {
    expect(problems(() => logLines('\n \n', 'app.log'))).to.deep.equal([
      'app.log: expected at least one line that is not blank, got none',
    ]);
    expect(problems(() => logLines(`a\n\n${'x'.repeat(MAX_CSV_CELL + 1)}\n`, 'app.log'))).to.deep.equal([
      `app.log: line 3: longer than ${MAX_CSV_CELL} characters, the limit for a line of a replay file`,
    ]);
    expect(problems(() => logLines('a\n'.repeat(MAX_CSV_ROWS + 1), 'app.log'))).to.deep.equal([
      `app.log: more than ${MAX_CSV_ROWS} lines that are not blank, the limit for a replay file`,
    ]);
  });

  it("reads a replay generator's file from the scenario file's directory, and names one it cannot read", async () => {
    const dir = temporaryDirectory('svc-replay-');
    writeFileSync(join(dir, 'app.log'), 'one\ntwo\n');
    const scenario = (file: string) =>
      load(v2([{ signal_type: 'logs', name: 'app', rate: 1, log_generator: { type: 'replay', file } }]), {
        format: 'json',
      });
    const read = await readReplays(scenario('app.log'), filesIn(dir));
    const generator = read.scenarios[0]!.log_generator!;
    expect(generator.type === 'replay' && generator.lines?.lines).to.deep.equal(['one', 'two']);
    const error = await readReplays(scenario('missing.log'), filesIn(dir)).catch((e: unknown) => e);
    expect((error as ConfigError).message).to.match(/^missing\.log: cannot read the replay file \(no such file\)/);
  });

  it('names a log file in another encoding (Latin-1) as text that is not UTF-8, with its first such line', async () => {
    const dir = temporaryDirectory('svc-replay-');
    writeFileSync(join(dir, 'latin1.log'), Buffer.from('GET / 200\ncaf\xe9 ol\xe9\n', 'latin1'));
    const scenario = load(
      v2([{ signal_type: 'logs', name: 'app', rate: 1, log_generator: { type: 'replay', file: 'latin1.log' } }]),
      { format: 'json' },
    );
    const error = await readReplays(scenario, filesIn(dir)).catch((e: unknown) => e);
    expect((error as ConfigError).message).to.equal(
      `${join(dir, 'latin1.log')}: not UTF-8 text (line 2 is not: in another encoding, such as Latin-1? iconv -f latin1 -t utf-8 converts that): give a text replay file`,
    );
  });
});
