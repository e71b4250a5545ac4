import { expect } from 'chai';
import { logLines } from '../../lib/config/csv-replay.js';
import { loadScenario } from '../../lib/config/index.js';
import type { Entry } from '../../lib/config/types.js';
import type { ReplayTimes } from '../../lib/language/types.js';
import { MAX_RATE } from '../../lib/language/limits.js';
import { compileScenario } from '../../lib/compile/index.js';
import { entryWarnings, LOKI_DEFAULT_MAX_STREAMS } from '../../lib/compile/warnings.js';
import { scenarioDir, svc } from '../support/cli.js';
import { testServer } from '../support/server.js';

/** A traces entry of `duration` whose root span has an incident from `rootStart` and its call one from `callStart`. */
const traces = (duration: string, rootStart: string, callStart: string) => `version: 2
kind: runnable
scenarios:
  - id: checkout
    name: checkout
    signal_type: traces
    rate: 1
    duration: ${duration}
    sink: {type: stdout}
    trace_generator:
      services: {frontend: {}, db: {}}
      root:
        service: frontend
        operation: GET /
        kind: server
        duration: 10ms
        incident: {start: ${rootStart}, for: 1m, error_rate: 0.5}
        calls:
          - {service: db, operation: SELECT, kind: client, duration: 5ms, incident: {start: ${callStart}, for: 1m, duration: 1s}}
`;

const warningsOf = (yaml: string) =>
  compileScenario(loadScenario(yaml, { origin: 'test.yaml', format: 'yaml' }), {
    origin: 'test.yaml',
  }).scenarios.flatMap((entry, _, entries) => entryWarnings(entry, undefined, entries));

/** A logs csv_replay entry of r.csv whose rows are `times`, as planning reads them, at `rate`. */
const replayEntry = (times: ReplayTimes, rate: number, { repeat = false, timescale = 1 } = {}) =>
  ({
    id: 'app',
    signal_type: 'logs',
    sink: { type: 'stdout' },
    dynamic_labels: [],
    rate,
    log_generator: { type: 'csv_replay', file: 'r.csv', repeat, timescale, table: { times } },
  }) as unknown as Entry;

/**
 * A runnable file of one logs entry `app` at rate 1 with `fields` (YAML lines indented for the entry) into `sink`:
 * a log store, or a file.
 */
const logsEntry = (fields: string, sink = 'logstore') => `version: 2
kind: runnable
scenarios:
  - id: app
    name: app
    signal_type: logs
    rate: 1
${fields}
    sink: {type: ${sink}, ${sink === 'logstore' ? 'url: "http://loki:3100"' : 'path: app.log'}}
    log_generator: {type: template, templates: [{message: hello}]}
`;

describe('entryWarnings: what an entry asks for that never happens', () => {
  describe('an entry naming spans that runs on after its traces entry ends', () => {
    /** The traces entry (5m), and a histogram naming its spans from `phase` for `duration` (or without end). */
    const naming = (phase: string, duration?: string) =>
      traces('5m', '1m', '2m') +
      `  - id: lat
    name: lat_seconds
    signal_type: histogram
    rate: 1
    phase_offset: ${phase}
${duration ? `    duration: ${duration}\n` : ''}    sink: {type: stdout}
    distribution: {type: uniform, min: 0, max: 1}
    exemplars: {from: checkout}
`;
    const outlived = (until: string, when: string) =>
      `exemplars.from: "checkout" ends at 5m and this entry ${until}: ${when} its exemplars name the last spans "checkout" made, ever older`;

    it('is named with when the spans end and until when the entry names them', () => {
      // Shortening the traces of examples/incident.yaml left its error logs naming spans of minutes before.
      expect(warningsOf(naming('6m', '5m'))).to.deep.equal([outlived('runs until 11m', 'all')]);
      expect(warningsOf(naming('1m', '5m'))).to.deep.equal([outlived('runs until 6m', 'from 5m on,')]);
      expect(warningsOf(naming('1m'))).to.deep.equal([outlived('has no end', 'from 5m on,')]);
    });

    it('is not warned of while the spans are made', () => {
      expect(warningsOf(naming('1m', '4m'))).to.deep.equal([]);
      expect(warningsOf(naming('10s', '290s'))).to.deep.equal([]);
    });
  });

  describe('trace_context whose on leaves out every severity the entry writes', () => {
    /** A traces entry, and a logs entry naming its spans with `context`, of templates `templates`. */
    const namingLogs = (context: string, templates: string, weights = '') =>
      traces('5m', '1m', '2m') +
      `  - id: app
    name: app
    signal_type: logs
    rate: 1
    duration: 5m
    sink: {type: stdout}
    log_generator: {type: template, templates: ${templates}${weights}}
    trace_context: {from: checkout${context}}
`;
    const warning = (on: string, severities: string) =>
      `trace_context.on: ${on} gives the ids of a span of "checkout" to records of severity error or fatal only, and this entry writes ${severities} records: none carries them (on: all gives them to every record)`;

    it('is named when no record can be an error: info templates (the default), weights without error, on: probability 0', () => {
      expect(warningsOf(namingLogs('', '[{message: paid}]'))).to.deep.equal([warning('error (the default)', 'info')]);
      expect(
        warningsOf(
          namingLogs(
            ', on: error',
            '[{message: paid}, {message: slow, severity: warn}]',
            ', severity_weights: {debug: 1, error: 0}',
          ),
        ),
      ).to.deep.equal([warning('error', 'debug, warn')]);
      expect(
        warningsOf(namingLogs(', on: probability, probability: 0', '[{message: paid, severity: info}]')),
      ).to.deep.equal([warning('probability 0', 'info')]);
    });

    it('is not warned of when some record can be an error, or on gives ids to others', () => {
      expect(warningsOf(namingLogs('', '[{message: paid}, {message: failed, severity: error}]'))).to.deep.equal([]);
      expect(warningsOf(namingLogs('', '[{message: paid}]', ', severity_weights: {info: 9, fatal: 1}'))).to.deep.equal(
        [],
      );
      expect(warningsOf(namingLogs(', on: all', '[{message: paid}]'))).to.deep.equal([]);
      expect(warningsOf(namingLogs(', on: probability, probability: 0.1', '[{message: paid}]'))).to.deep.equal([]);
    });
  });

  describe('a traces incident starting at or after the entry ends', () => {
    it('is named by its path, with its start and the duration', () => {
      expect(warningsOf(traces('5m', '1m', '5m'))).to.deep.equal([
        "trace_generator.root.calls[0].incident.start: the incident starts at 5m, at or after the entry's end (duration 5m): it never happens",
      ]);
    });

    it('is not warned of when it starts before the end, or the entry has no end', () => {
      expect(warningsOf(traces('5m', '1m', '299s'))).to.deep.equal([]);
      expect(warningsOf(traces('5m', '1m', '10m').replace('    duration: 5m\n', ''))).to.deep.equal([]);
    });

    it('svc prints it at --dry-run, against the --duration given, and still validates', async () => {
      const { scenario } = scenarioDir('svc-incident-warn-');
      const result = await svc(['run', scenario('t.yaml', traces('5m', '1m', '2m')), '--dry-run', '--duration', '90s']);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.include(
        "[warn] checkout: trace_generator.root.calls[0].incident.start: the incident starts at 2m, at or after the entry's end (duration 1m30s): it never happens\n",
      );
      expect(result.stderr).to.not.include('trace_generator.root.incident');
      expect(result.stderr).to.include('Validation: OK');
    });

    it('svc-server answers it among the warnings of POST /scenarios, and starts the entry', async () => {
      const res = await testServer().request({
        method: 'POST',
        url: '/scenarios',
        headers: { 'content-type': 'text/yaml' },
        payload: traces('1m', '2m', '10s'),
      });
      expect(res.statusCode).to.equal(201);
      expect(res.json().warnings).to.deep.equal([
        "checkout: trace_generator.root.incident.start: the incident starts at 2m, at or after the entry's end (duration 1m): it never happens",
      ]);
    });
  });
  describe('a logs entry into a log store with more streams than Loki takes by default', () => {
    const logs = (labels: string, sink = 'logstore') => logsEntry(`    labels: {job: app}\n    ${labels}`, sink);
    const pods = (n: number) =>
      `dynamic_labels: [{key: pod, prefix: p, cardinality: ${n}}, {key: level, values: [info, error]}]`;

    it("names the entry's labels, the streams they make and the Loki setting", () => {
      expect(warningsOf(logs(pods(2501)))).to.deep.equal([
        `dynamic_labels: the labels make up to 5002 streams (label sets) in the log store; Loki keeps at most ${LOKI_DEFAULT_MAX_STREAMS} active streams per tenant by default (limits_config.max_global_streams_per_user) and refuses pushes to more: raise that limit, or lower the cardinalities`,
      ]);
    });

    it('counts cardinality spikes as validation does', () => {
      const spikes = 'cardinality_spikes: [{label: user, cardinality: 5001, every: 10m, for: 1m}]';
      expect(warningsOf(logs(spikes))[0]).to.match(/^cardinality_spikes: the labels make up to 5002 streams/);
    });

    it('is not warned of at the limit, nor for another sink', () => {
      expect(warningsOf(logs(pods(2500)))).to.deep.equal([]);
      expect(warningsOf(logs(pods(2501), 'file'))).to.deep.equal([]);
    });

    it('svc prints it at --dry-run, naming the entry', async () => {
      const { scenario } = scenarioDir('svc-streams-warn-');
      const result = await svc(['run', scenario('l.yaml', logs(pods(3001))), '--dry-run']);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.match(
        /^\[warn\] app: dynamic_labels: the labels make up to 6002 streams .*max_global_streams_per_user/m,
      );
    });
  });

  describe("an entry into a log store whose labels pass Loki's default limits", () => {
    const labels = (n: number, extra = '') =>
      `    labels: {${Array.from({ length: n }, (_, i) => `l${i}: v`).join(', ')}${extra}}`;

    it('warns of more than 15 label names a stream, counting dynamic and spike labels, not empty ones', () => {
      expect(warningsOf(logsEntry(labels(16)))).to.deep.equal([
        "labels: the entry's streams carry 16 labels (l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15); Loki takes at most 15 a stream by default (limits_config.max_label_names_per_series) and answers 400 to every push of more: raise that limit, or drop labels",
      ]);
      const more = `${labels(14)}\n    dynamic_labels: [{key: pod, cardinality: 2}]\n    cardinality_spikes: [{label: user, cardinality: 2, every: 10m, for: 1m}]`;
      expect(warningsOf(logsEntry(more))[0]).to.match(
        /^labels: the entry's streams carry 16 labels \(l0, .*, l13, pod, user\)/,
      );
      // Loki drops an empty label and does not count service_name, which it adds itself.
      expect(warningsOf(logsEntry(labels(15, ', empty: "", service_name: shop')))).to.deep.equal([]);
      expect(warningsOf(logsEntry(labels(16), 'file'))).to.deep.equal([]);
      // A histogram's bucket lines carry le, a label of their streams.
      const histogram = logsEntry(labels(15))
        .replace('signal_type: logs', 'signal_type: histogram\n    distribution: {type: uniform, min: 0, max: 1}')
        .replace(/ {4}log_generator: .*\n/, '');
      expect(warningsOf(histogram)[0]).to.match(/^labels: the entry's streams carry 16 labels \(l0, .*, l14, le\)/);
    });

    it('warns of a label value longer than 2048 bytes in UTF-8, naming where it is written', () => {
      const value = 'é'.repeat(1025); // 1025 characters, 2050 bytes
      expect(warningsOf(logsEntry(`    labels: {job: "${value}"}`))).to.deep.equal([
        'labels.job: a value of 2050 bytes (UTF-8); Loki takes label values of at most 2048 bytes by default (limits_config.max_label_value_length) and answers 400 to every push that carries a longer one: shorten it, or raise that limit',
      ]);
      const dynamic = `    labels: {job: app}\n    dynamic_labels: [{key: a, values: [x, "${value}"]}, {key: b, prefix: "${value}", cardinality: 2}]`;
      expect(warningsOf(logsEntry(dynamic)).map((w) => w.split(':')[0])).to.deep.equal([
        'dynamic_labels[0].values[1]',
        'dynamic_labels[1].prefix',
      ]);
      expect(warningsOf(logsEntry(`    labels: {job: "${'é'.repeat(1024)}"}`))).to.deep.equal([]);
    });
  });

  describe("an entry into a log store whose records are longer than Loki's default max_line_size", () => {
    // A template line of 600 115 bytes went out unwarned and every push carrying one was answered 400 "Max entry size
    // '262144' bytes exceeded …" (a scratch receiver validating as Loki's distributor does).
    const template = (message: string, pools: string, sink = 'logstore') =>
      logsEntry('    labels: {job: app}', sink).replace(
        '{type: template, templates: [{message: hello}]}',
        `{type: template, templates: [{message: ok}, {message: "${message}"}], field_pools: {${pools}}}`,
      );

    const tail =
      "bytes as the entry's encoder writes them (UTF-8); Loki takes lines of at most 262144 bytes by default (limits_config.max_line_size) and answers 400 to each push that carries a longer one (svc counts the whole push dropped): shorten the messages, or raise that limit";

    it('warns of a template whose longest record, as the encoder writes it, passes 262144 bytes, naming the template', () => {
      // 40 000 × é is 80 000 bytes, three times in the message and once as the field; json_lines adds the rest.
      const pools = `v: [x, "${'é'.repeat(40_000)}"]`;
      expect(warningsOf(template('a: {v}{v}{v}', pools))).to.deep.equal([
        `log_generator.templates[1].message: records of 320116 ${tail}`,
      ]);
      expect(warningsOf(template('a: {v}{v}{v}', pools, 'file'))).to.deep.equal([]);
      // 196 605 bytes in the message and 65 535 as the field: 262 140, within the limit counting them alone, but the
      // encoder's timestamp, severity, labels and field name made a line of 262 252 bytes, answered 400.
      expect(warningsOf(template('{v}{v}{v}', `v: ["${'x'.repeat(65_535)}"]`))).to.deep.equal([
        `log_generator.templates[1].message: records of 262253 ${tail}`,
      ]);
      expect(warningsOf(template('{v}{v}', `v: ["${'x'.repeat(65_535)}"]`))).to.deep.equal([]);
    });

    it('fills the record it encodes with the value longest once escaped, not the one of most bytes', () => {
      // 45 000 quotes are 90 000 bytes escaped (\"), three times in the message and once as the field; the 50 000
      // x's, more bytes as they are, make a line of about 200 000, within the limit.
      const pools = `v: ['${'x'.repeat(50_000)}', '${'"'.repeat(45_000)}']`;
      expect(warningsOf(template('{v}{v}{v}', pools))).to.deep.equal([
        `log_generator.templates[1].message: records of 360113 ${tail}`,
      ]);
    });

    it('counts the field names of a template whose placeholders are longer than their values', () => {
      // 3 700 placeholders of 64-character names, each value `x`: the message is 3 700 bytes, but json_lines writes
      // each name as a field too: a line of 266 506 bytes. The names were left out of the bound, the line not encoded.
      const names = Array.from({ length: 3_700 }, (_, i) => `f${String(i).padStart(63, '0')}`);
      const message = names.map((name) => `{${name}}`).join('');
      // Past the YAML limit (128 KiB): sent as JSON, as a file this large would be.
      const json = JSON.stringify({
        version: 2,
        kind: 'runnable',
        scenarios: [
          {
            id: 'app',
            name: 'app',
            signal_type: 'logs',
            rate: 1,
            labels: { job: 'app' },
            sink: { type: 'logstore', url: 'http://loki:3100' },
            log_generator: {
              type: 'template',
              templates: [{ message }],
              field_pools: Object.fromEntries(names.map((name) => [name, ['x']])),
            },
          },
        ],
      });
      const file = loadScenario(json, { origin: 'test.json', format: 'json' });
      expect(
        compileScenario(file, { origin: 'test.json' }).scenarios.flatMap((entry) => entryWarnings(entry))[0],
      ).to.match(/^log_generator\.templates\[0\]\.message: records of 266\d{3} bytes/);
    });

    it('counts what the encoder escapes: a quote is 2 bytes in json_lines', () => {
      // 100 000 bytes of text, 200 000 escaped, plus the field's 50 000 × 2.
      const quotes = `v: ['${'"'.repeat(50_000)}']`;
      expect(warningsOf(template('{v}{v}', quotes))[0]).to.match(
        /^log_generator\.templates\[1\]\.message: records of 300\d{3} bytes/,
      );
    });

    it('gives one warning for all the templates over the limit, naming the first and counting the others', () => {
      const big = `{message: "{v}{v}{v}{v}"}`;
      const entry = logsEntry('    labels: {job: app}').replace(
        '{type: template, templates: [{message: hello}]}',
        `{type: template, templates: [{message: ok}, ${Array(100).fill(big).join(', ')}], field_pools: {v: ["${'x'.repeat(70_000)}"]}}`,
      );
      expect(warningsOf(entry)).to.have.length(1);
      expect(warningsOf(entry)[0]).to.match(
        /^log_generator\.templates\[1\]\.message \(and 99 other templates\): records of 350\d{3} bytes/,
      );
    });

    const replayEntry = (generator: object) =>
      ({
        id: 'app',
        signal_type: 'logs',
        sink: { type: 'logstore', url: 'http://loki:3100' },
        encoder: { type: 'json_lines' },
        labels: { job: 'app' },
        dynamic_labels: [],
        cardinality_spikes: [],
        start_time: { kind: 'now' },
        rate: 1,
        log_generator: generator,
      }) as unknown as Entry;

    it("warns of a csv_replay row whose record passes it, naming the row's line in the file", () => {
      const row = (message: string, fields: Record<string, string>) => ({ severity: 'info', message, fields });
      // 65 536 bytes of message, 65 536 of field a and 2 × b's characters of field b (é), and the encoder's bytes.
      const entry = (b: number) =>
        replayEntry({
          type: 'csv_replay',
          file: 'r.csv',
          repeat: true,
          timescale: 1,
          table: {
            times: { at: [0, 1000], span: 2000 },
            records: [row('a', {}), row('x'.repeat(65_536), { a: 'y'.repeat(65_536), b: 'é'.repeat(b) })],
            // A comment before the second row: it is the file's line 4, its second row.
            lineNumbers: [2, 4],
          },
        });
      expect(entryWarnings(entry(65_500))).to.deep.equal([`log_generator.file line 4: records of 262191 ${tail}`]);
      expect(entryWarnings(entry(65_400))).to.deep.equal([]);
    });

    it("warns of a replayed line that passes it once escaped, naming the file's line, blank ones counted", () => {
      // 65 536 control characters are 65 536 bytes, each written \u0001 by json_lines: 393 216 bytes. It is the file's
      // line 3, after a blank one (named line 2 once, the line before it in the file).
      const lines = logLines(`a\n\n${'\u0001'.repeat(65_536)}\n`, 'r.log');
      const entry = replayEntry({ type: 'replay', file: 'r.log', lines });
      expect(entryWarnings(entry)[0]).to.match(
        /^log_generator\.file line 3: records of 393\d{3} bytes as the entry's encoder/,
      );
    });
  });

  describe('an entry into a log store whose records are stamped further from now than Loki takes by default', () => {
    const NOW = Date.parse('2026-06-01T00:00:00Z');
    const entry = (startTime: string, sink = 'logstore') =>
      loadScenario(
        `version: 2
kind: runnable
scenarios:
  - {id: app, name: app, signal_type: logs, rate: 1, duration: 1h, start_time: "${startTime}", labels: {job: app}, log_generator: {type: template, templates: [{message: hello}]}, sink: {type: ${sink}, ${sink === 'logstore' ? 'url: "http://loki:3100"' : 'path: app.log'}}}
`,
        { origin: 'test.yaml', format: 'yaml' },
      ).scenarios[0]!;
    const realTime = { now: NOW, backfill: false };
    const backfill = { now: NOW, backfill: true };

    it('warns of records older than a week when they are sent, in real time and in a backfill', () => {
      const old =
        'start_time: records stamped up to 720h before they are sent (start_time -720h); Loki refuses records older than 168h by default (limits_config.reject_old_samples_max_age) and answers 400 to every push of them: a later start_time, or raise that limit';
      expect(entryWarnings(entry('-30d'), realTime)).to.deep.equal([old]);
      expect(entryWarnings(entry('-30d'), backfill)).to.deep.equal([old]);
      expect(entryWarnings(entry('2026-05-01T00:00:00Z'), realTime)[0]).to.match(
        /^start_time: records stamped up to 744h before they are sent \(start_time 2026-05-01T00:00:00.000Z\)/,
      );
      expect(entryWarnings(entry('-6d'), backfill)).to.deep.equal([]);
    });

    it('warns of records more than 10 minutes ahead in real time (a backfill past now has its own warning)', () => {
      expect(entryWarnings(entry('+1h'), realTime)).to.deep.equal([
        'start_time: records stamped 1h after they are sent (start_time +1h); Loki refuses records more than 10m ahead by default (limits_config.creation_grace_period) and answers 400 to every push of them: start_time: now, or one in the past',
      ]);
      expect(entryWarnings(entry('+5m'), realTime)).to.deep.equal([]);
      expect(entryWarnings(entry('+1h'), backfill)).to.deep.equal([]);
    });

    it('is not warned of for another sink, nor without the time of the run', () => {
      expect(entryWarnings(entry('-30d', 'file'), realTime)).to.deep.equal([]);
      expect(entryWarnings(entry('-30d'))).to.deep.equal([]);
    });

    it('svc prints it at --dry-run', async () => {
      const { scenario } = scenarioDir('svc-old-records-');
      const file = scenario(
        'old.yaml',
        'version: 2\nkind: runnable\nscenarios:\n  - {name: app, signal_type: logs, rate: 1, duration: 1m, start_time: -30d, labels: {job: app}, log_generator: {type: template, templates: [{message: hi}]}, sink: {type: logstore, url: "http://loki:3100"}}\n',
      );
      const result = await svc(['run', file, '--dry-run', '--backfill']);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.match(/^\[warn\] app: start_time: records stamped up to 720h before they are sent/m);
    });
  });

  describe('a logs csv_replay whose rows come closer together than its ticks', () => {
    const { scenario } = scenarioDir('svc-replay-warn-');
    scenario('app.csv', 'timestamp,message\n100,a\n100.1,b\n100.2,c\n101,d\n103,e\n');
    /** What `svc run <path> --dry-run` prints on stderr, once it passed: a run that failed has no warning either. */
    const dryRun = async (path: string) => {
      const result = await svc(['run', path, '--dry-run']);
      expect(result.code, result.stderr).to.equal(0);
      return result.stderr;
    };
    const file = (rate: number, timescale = 1) =>
      scenario(
        `r${rate}-${timescale}.yaml`,
        `version: 2\nkind: runnable\nscenarios:\n  - {name: app, signal_type: logs, rate: ${rate}, log_generator: {type: csv_replay, file: app.csv, timescale: ${timescale}}}\n`,
      );

    it('counts the rows never written and says the rate that writes them all', async () => {
      expect(await dryRun(file(1))).to.include(
        "[warn] app: rate: 2 of the 5 rows of app.csv fall between two ticks in some passes through the file and are not written in those (rows 100ms apart on the CSV's time; a tick every 1s): each tick writes the row in force, so give rate: 10 or more to write every row",
      );
    });

    it('without repeat, does not count the last row: it stays in force until the entry stops', async () => {
      // Rows at 0, 1000 and 1100 ms (span 1200), a tick a second: ticks at 0 and 1 s write rows 0 and 1, and
      // the tick at 2 s, past the span, writes the last row, which holds.
      scenario('held.csv', 'timestamp,message\n100,a\n101,b\n101.1,c\n');
      const entry = (repeat: boolean) =>
        scenario(
          `held-${repeat}.yaml`,
          `version: 2\nkind: runnable\nscenarios:\n  - {name: app, signal_type: logs, rate: 1, log_generator: {type: csv_replay, file: held.csv, repeat: ${repeat}}}\n`,
        );
      expect(await dryRun(entry(false))).not.to.include('[warn]');
      expect(await dryRun(entry(true))).to.include('[warn] app: rate: 2 of the 3 rows');
    });

    it('counts ticks as the runtime schedules them, on its microsecond grid, where rows and ticks meet at fractions of a ms', async () => {
      // A tick every 333.333… ms at timescale 0.7 is every 233.333… ms of the CSV's time: tick 3 is at 700 ms on the
      // runtime's grid and writes the row there; tick 15 is at 3500 ms, not just before, and skips the row at 3300 ms.
      const entry = (rows: string) => {
        const name = `frac-${rows.replaceAll(' ', '_')}`;
        scenario(`${name}.csv`, `timestamp,message\n${rows.replaceAll(' ', ',x\n')},x\n`);
        return scenario(
          `${name}.yaml`,
          `version: 2\nkind: runnable\nscenarios:\n  - {name: app, signal_type: logs, rate: 3, log_generator: {type: csv_replay, file: ${name}.csv, timescale: 0.7, repeat: false}}\n`,
        );
      };
      expect(await dryRun(entry('100 100.7 100.9'))).not.to.include('[warn]');
      expect(await dryRun(entry('100 103.3 103.5'))).to.include('[warn] app: rate: 1 of the 3 rows');
    });

    it('with repeat, counts a row skipped in any pass, as each pass meets the ticks elsewhere', async () => {
      // Rows at 0, 1000 and 1300 ms (span 1600), a tick a second: the first pass writes rows 0 and 1, the second
      // (1.6 to 3.2 s) rows 0 and 2 (at 2 and 3 s): each of rows 1 and 2 is skipped in some pass, though each is
      // written in some pass too.
      scenario('passes.csv', 'timestamp,message\n100,a\n101,b\n101.3,c\n');
      const entry = (repeat: boolean) =>
        scenario(
          `passes-${repeat}.yaml`,
          `version: 2\nkind: runnable\nscenarios:\n  - {name: app, signal_type: logs, rate: 1, log_generator: {type: csv_replay, file: passes.csv, repeat: ${repeat}}}\n`,
        );
      expect(await dryRun(entry(true))).to.include(
        '[warn] app: rate: 2 of the 3 rows of passes.csv fall between two ticks in some passes through the file and are not written in those',
      );
      // Without repeat, one pass: the tick at 2 s writes the last row, which holds.
      expect(await dryRun(entry(false))).not.to.include('[warn]');
    });

    it("counts ticks at the rate its bursts give, as the runtime's schedule does", async () => {
      // Rows 10 ms apart, a tick every 10 ms: every row is written, but for 500 ms of each second the bursts halve
      // the rate, a tick every 20 ms, which skips every other row.
      scenario(
        'bursts.csv',
        `timestamp,message\n${Array.from({ length: 1000 }, (_, i) => `${100 + i / 100},x`).join('\n')}\n`,
      );
      const entry = (bursts: string) =>
        scenario(
          `bursts-${bursts.length}.yaml`,
          `version: 2\nkind: runnable\nscenarios:\n  - {name: app, signal_type: logs, rate: 100, ${bursts}log_generator: {type: csv_replay, file: bursts.csv, repeat: false}}\n`,
        );
      expect(await dryRun(entry(''))).not.to.include('[warn]');
      expect(await dryRun(entry('bursts: {every: 1s, for: 500ms, multiplier: 0.5}, '))).to.match(
        /\[warn\] app: rate: \d+ of the 1000 rows of bursts.csv fall between two ticks and are never written .*a tick every 10ms, every 20ms in its bursts\): .* give rate: 200 or more/,
      );
    });

    it('finds the pass of a tick in microseconds, as the runtime finds its place in the pass', () => {
      // Rows 13.7 ms apart, a pass of 41.1 ms, a tick every 13.7 ms: each tick writes a row. In ms, 123.3 % 41.1 is
      // 41.09999999999999, which put the tick where the fourth pass starts in the third, and a row seemed skipped.
      expect(
        entryWarnings(replayEntry({ at: [0, 13.7, 27.4], span: 41.1 }, 1000 / 13.7, { repeat: true })),
      ).to.deep.equal([]);
    });

    it('past the highest rate svc takes, says to replay slower, and writes sub-ms intervals', () => {
      const rows = { at: [0, 0.001, 0.002], span: 0.003 };
      expect(entryWarnings(replayEntry(rows, 1e5))).to.deep.equal([
        "rate: 1 of the 3 rows of r.csv fall between two ticks and are never written (rows 0.001ms apart on the CSV's time; a tick every 0.01ms): each tick writes the row in force, so give rate: 1000000 or more to write every row",
      ]);
      expect(entryWarnings(replayEntry(rows, 5e7, { timescale: 1000 }))).to.deep.equal([
        `rate: 1 of the 3 rows of r.csv fall between two ticks and are never written (rows 0.001ms apart on the CSV's time, timescale 1000; a tick every 0.00002ms): each tick writes the row in force, so no rate svc takes (at most ${MAX_RATE}) writes every row: give timescale: 100 or less to replay the CSV slower`,
      ]);
    });

    it('is not warned of when every row gets a tick, timescale counted', async () => {
      for (const argv of [file(10), file(1, 0.1)]) expect(await dryRun(argv), argv).not.to.include('[warn]');
    });
  });

  describe('a static label whose key a dynamic label has too', () => {
    const metric = (labels: string) => `version: 2
kind: runnable
scenarios:
  - id: web
    name: web
    signal_type: metrics
    rate: 1
    duration: 1s
    generator: {type: constant, value: 1}
    sink: {type: stdout}
    ${labels}
`;
    const shadowed =
      'labels.pod: "a" is never written: dynamic_labels[1] sets pod on every event, and a dynamic label wins over a static one; give one of them another name';

    it('is named by its key, with its value and the dynamic label', () => {
      const both =
        'labels: {pod: a, env: ci}\n    dynamic_labels: [{key: zone, values: [x]}, {key: pod, cardinality: 2}]';
      expect(warningsOf(metric(both))).to.deep.equal([shadowed]);
    });

    it('is not warned of for a spike of that key, which wins only in its windows, nor for an empty value', () => {
      const spike = 'labels: {pod: a}\n    cardinality_spikes: [{label: pod, cardinality: 2, every: 10s, for: 1s}]';
      expect(warningsOf(metric(spike))).to.deep.equal([]);
      const empty = 'labels: {pod: ""}\n    dynamic_labels: [{key: zone, values: [x]}, {key: pod, cardinality: 2}]';
      expect(warningsOf(metric(empty))).to.deep.equal([]);
    });

    it('svc says so of a --label the dynamic label overrides, which would otherwise vanish without a word', async () => {
      const { scenario } = scenarioDir('svc-shadowed-label-');
      const file = scenario('w.yaml', metric('dynamic_labels: [{key: zone, values: [x]}, {key: pod, cardinality: 2}]'));
      const result = await svc(['run', file, '--dry-run', '--label', 'pod=a']);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.include(`[warn] web: ${shadowed}\n`);
    });
  });

  describe('a broker sink keyed by a label that no event of the entry carries', () => {
    const keyed = (
      key: string,
      fields = 'labels: {env: ci}\n    dynamic_labels: [{key: instance, cardinality: 2}]',
    ) => `version: 2
kind: runnable
scenarios:
  - id: web
    name: web
    signal_type: metrics
    rate: 1
    generator: {type: constant, value: 1}
    ${fields}
    sink: {type: broker, brokers: "kafka:9092", topic: t, key: ${key}}
`;
    const unkeyed = (label: string, carried: string) =>
      `sink.key: no event of this entry carries the label "${label}" (${carried}), so every message goes without a key, spread over the partitions in turn: name one of its labels, or key: none`;

    it("is named by the key, with the entry's labels (every message would go without a key)", () => {
      expect(warningsOf(keyed('instnace'))).to.deep.equal([unkeyed('instnace', 'its labels: env, instance')]);
      expect(warningsOf(keyed('pod', 'labels: {}'))).to.deep.equal([unkeyed('pod', 'its labels: none')]);
    });

    it("a span's labels are its service's resource attributes: a key may name one of the services' attributes", () => {
      const span = (key: string, attributes = '') =>
        traces('1m', '10s', '10s')
          .replace('sink: {type: stdout}', `sink: {type: broker, brokers: "kafka:9092", topic: t, key: ${key}}`)
          .replace('frontend: {}', `frontend: {${attributes}}`)
          .replace(/ +incident: \{[^}]*\}\n/, '');
      const resource = "a span's labels are its service's resource attributes; those of trace_generator.services";
      expect(warningsOf(span('service'))).to.deep.equal([unkeyed('service', `${resource}: none`)]);
      expect(warningsOf(span('region', 'attributes: {cloud.region: eu}'))).to.deep.equal([
        unkeyed('region', `${resource}: cloud.region`),
      ]);
      expect(warningsOf(span('zone', 'attributes: {zone: z1}'))).to.deep.equal([]);
    });

    it("a span metric's labels are the span's dimensions: a key may name one, another is warned of naming them", () => {
      const spanMetrics = (key: string) =>
        traces('1m', '10s', '10s')
          .replace(/ +incident: \{[^}]*\}\n/, '')
          .replace(
            'sink: {type: stdout}',
            `sink: {type: stdout}\n    span_metrics: {sink: {type: broker, brokers: "kafka:9092", topic: t, key: ${key}}}`,
          );
      expect(warningsOf(spanMetrics('service_name'))).to.deep.equal([]);
      const dimensions = 'service_name, span_name, span_kind, status_code';
      expect(warningsOf(spanMetrics('pod'))).to.deep.equal([
        unkeyed('pod', `its labels: ${dimensions}`),
        unkeyed('pod', `its labels: ${dimensions}`),
      ]);
    });

    it('is not warned of for a static, dynamic or spike label, key none or no key', () => {
      for (const key of ['env', 'instance', 'none']) expect(warningsOf(keyed(key)), key).to.deep.equal([]);
      const spike = 'cardinality_spikes: [{label: pod, cardinality: 2, every: 10s, for: 1s}]';
      expect(warningsOf(keyed('pod', spike))).to.deep.equal([]);
      expect(warningsOf(keyed('none').replace(', key: none', ''))).to.deep.equal([]);
    });

    it("the le of a histogram, the quantile of a summary: every message is keyed by its event's first row, the same", () => {
      const distribution = (signal: string, key: string) =>
        keyed(key, 'labels: {env: ci}')
          .replace('metrics', signal)
          .replace('generator: {type: constant, value: 1}', 'distribution: {type: exponential, rate: 5}');
      const same = (key: string, samples: string) =>
        `sink.key: "${key}" is the same on every message, so they all go to one partition: an event of this entry is a series set whose ${samples}, and a message takes its key from its event's first row; name one of its labels (its labels: env), or key: none`;
      expect(warningsOf(distribution('histogram', 'le'))).to.deep.equal([
        same('le', 'bucket samples carry le, their bound'),
      ]);
      expect(warningsOf(distribution('summary', 'quantile'))).to.deep.equal([
        same('quantile', 'quantile samples carry quantile'),
      ]);
      expect(warningsOf(distribution('histogram', 'env'))).to.deep.equal([]);
    });

    it('svc prints it at --dry-run, naming the entry', async () => {
      const { scenario } = scenarioDir('svc-broker-key-');
      const result = await svc(['run', scenario('k.yaml', keyed('instnace')), '--dry-run']);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.include(`[warn] web: ${unkeyed('instnace', 'its labels: env, instance')}\n`);
    });
  });
});
