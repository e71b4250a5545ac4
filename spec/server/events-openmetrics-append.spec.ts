import { expect } from 'chai';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TAIL_BYTES } from '../../lib/sinks/core/file-tail.js';
import { DEFAULT_FLUSH_TIMEOUT } from '../../lib/sinks/core/sink-core.js';
import { settle } from '../support/clock.js';
import { promtoolCheck, strictOpenMetricsCheck } from '../support/promtool.js';
import { testServer } from '../support/server.js';
import { MemorySink } from '../support/sinks.js';
import { temporaryDirectory } from '../support/directories.js';

/**
 * `POST /events` appending openmetrics events to a file: each family's metadata once, before its samples, as the
 * strict parser of the Python client wants (before, every event wrote it again: "Received metadata after samples").
 */
describe('POST /events appending openmetrics to a file', () => {
  let dir: string;
  let server: ReturnType<typeof testServer>;
  beforeEach(async () => {
    dir = await realpath(temporaryDirectory('svc-events-append-'));
    server = testServer({ deps: { createSink: undefined, fileRoot: dir } });
  });

  /** Posts a metric event `name` of `value` to the file at `path`; its answer. */
  function post(
    path: string,
    name: string,
    value: number,
    encoder = 'openmetrics',
    labels: Record<string, string> = { env: 'ci' },
  ) {
    return server.postJson('/events', {
      signal_type: 'metrics',
      labels,
      metric: { name, value },
      encoder: { type: encoder },
      sink: { type: 'file', path },
    });
  }

  /** Posts each of `events` (metric name, value) to the file at `path`, each taken: the file's text then. */
  async function postAll(path: string, events: [string, number][]): Promise<string> {
    for (const [name, value] of events) {
      const res = await post(path, name, value);
      expect(res.statusCode, res.body).to.equal(200);
    }
    return readFile(path, 'utf8');
  }

  it('several events of one metric into a new file write its metadata once: the strict parser reads the file', async () => {
    const path = join(dir, 'events.om');
    const text = await postAll(path, [
      ['deploys', 1],
      ['deploys', 2],
      ['deploys', 3],
    ]);
    expect(text).to.equal(
      '# TYPE deploys unknown\ndeploys{env="ci"} 1 0\ndeploys{env="ci"} 2 0\ndeploys{env="ci"} 3 0\n# EOF\n',
    );
    expect(strictOpenMetricsCheck(text)).to.equal('ok');
  });

  it('events of the family a scenario ended its file with (# EOF after it, with or without its line feed) join it: the strict parser and promtool read the file', async () => {
    for (const eof of ['# EOF\n', '# EOF']) {
      const path = join(dir, `jobs-${eof.length}.om`);
      await writeFile(path, `# HELP jobs Jobs running.\n# TYPE jobs gauge\njobs 1 0\n${eof}`);
      const text = await postAll(path, [
        ['jobs', 2],
        ['jobs', 3],
      ]);
      expect(text, eof).to.equal(
        '# HELP jobs Jobs running.\n# TYPE jobs gauge\njobs 1 0\njobs{env="ci"} 2 0\njobs{env="ci"} 3 0\n# EOF\n',
      );
      expect(strictOpenMetricsCheck(text)).to.equal('ok');
      // Before: exit 1, "second TYPE line for metric name "jobs", or TYPE reported after samples".
      expect(promtoolCheck(text)).to.deep.equal({ code: 0, problems: [] });
    }
  });

  it('a file without # EOF (a run killed before its end) is continued the same, and ends with one', async () => {
    const path = join(dir, 'killed.om');
    await writeFile(path, '# TYPE deploys unknown\ndeploys{env="ci"} 1 0\n');
    const text = await postAll(path, [['deploys', 2]]);
    expect(text).to.equal('# TYPE deploys unknown\ndeploys{env="ci"} 1 0\ndeploys{env="ci"} 2 0\n# EOF\n');
    expect(strictOpenMetricsCheck(text)).to.equal('ok');
  });

  it('an event of another family than the last starts it with its metadata, once however many follow', async () => {
    const path = join(dir, 'families.om');
    await writeFile(path, '# TYPE jobs gauge\njobs 1 0\n# EOF\n');
    const text = await postAll(path, [
      ['deploys', 1],
      ['deploys', 2],
      ['restarts', 1],
      ['restarts', 2],
    ]);
    expect(text).to.equal(
      '# TYPE jobs gauge\njobs 1 0\n' +
        '# TYPE deploys unknown\ndeploys{env="ci"} 1 0\ndeploys{env="ci"} 2 0\n' +
        '# TYPE restarts unknown\nrestarts{env="ci"} 1 0\nrestarts{env="ci"} 2 0\n# EOF\n',
    );
    expect(strictOpenMetricsCheck(text)).to.equal('ok');
  });

  it('a family that is not the last gets its metadata again: only the last line is read, not the whole file', async () => {
    // Documented (docs/http-api.md): strict parsers refuse the file, Prometheus' parser takes it.
    const path = join(dir, 'again.om');
    const text = await postAll(path, [
      ['deploys', 1],
      ['jobs', 1],
      ['deploys', 2],
    ]);
    expect(text.match(/# TYPE deploys unknown\n/g)).to.have.length(2);
    expect(strictOpenMetricsCheck(text)).to.equal('Clashing name: deploys');
  });

  it(`a last line longer than the ${TAIL_BYTES} bytes read of the file's end is not looked at: the metadata is written`, async () => {
    const path = join(dir, 'long.om');
    const line = `deploys{env="${'x'.repeat(TAIL_BYTES)}"} 1 0\n`;
    await writeFile(path, `# TYPE deploys unknown\n${line}# EOF\n`);
    expect(await postAll(path, [['deploys', 2]])).to.equal(
      `# TYPE deploys unknown\n${line}# TYPE deploys unknown\ndeploys{env="ci"} 2 0\n# EOF\n`,
    );
  });

  it('an openmetrics event onto a file of another encoder, or another event onto an openmetrics file, is refused, 422 naming sink.path, the file left as it is', async () => {
    const json = join(dir, 'events.jsonl');
    const jsonLines = '{"time":"1970-01-01T00:00:00.000Z","deploys":1}\n';
    await writeFile(json, jsonLines);
    const refused = await post(json, 'deploys', 2);
    expect(refused.statusCode, refused.body).to.equal(422);
    expect(refused.json()).to.deep.equal({
      error: 'file_sink_cannot_open',
      detail: `sink.path: cannot open ${json}: its last line is not OpenMetrics (${JSON.stringify(jsonLines.trimEnd())}): the file holds another encoder's lines, where an OpenMetrics reader would stop. Give this event another path`,
    });
    expect(await readFile(json, 'utf8')).to.equal(jsonLines);
    // An influx_lp line without tags begins as a sample does, its name and a space: its value is no number.
    const influx = join(dir, 'events.lp');
    await writeFile(influx, 'deploys value=1 0\n');
    const notSample = await post(influx, 'deploys', 2);
    expect(notSample.statusCode, notSample.body).to.equal(422);
    expect(await readFile(influx, 'utf8')).to.equal('deploys value=1 0\n');

    const om = join(dir, 'events.om');
    const exposition = '# TYPE jobs gauge\njobs 1 0\n# EOF\n';
    await writeFile(om, exposition);
    for (const encoder of ['json_lines', 'metrics_text']) {
      const res = await post(om, 'deploys', 2, encoder);
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json()).to.deep.equal({
        error: 'file_sink_cannot_open',
        detail: `sink.path: cannot open ${om}: its last line is "# EOF": a file of openmetrics holds nothing but its lines up to its "# EOF". Give this event another path`,
      });
    }
    expect(await readFile(om, 'utf8')).to.equal(exposition);
  });

  it('a file whose last line a kill cut short, which is no OpenMetrics, is refused, 422 saying it is cut short, not that another encoder wrote it', async () => {
    // svc killed in the middle of a write: the file is svc's own, its last line ends without a line break.
    const path = join(dir, 'cut.om');
    const cut = '# TYPE jobs gauge\njobs 1 0\njo';
    await writeFile(path, cut);
    const res = await post(path, 'jobs', 2);
    expect(res.statusCode, res.body).to.equal(422);
    // Before: "its last line is not OpenMetrics ("jo"): the file holds another encoder's lines, …".
    expect(res.json()).to.deep.equal({
      error: 'file_sink_cannot_open',
      detail: `sink.path: cannot open ${path}: its last line is cut short ("jo", no line break ends it: svc killed in the middle of a write?), where an OpenMetrics reader would stop. Give this event another path`,
    });
    expect(await readFile(path, 'utf8')).to.equal(cut);
  });

  it('a last line without a line break that is OpenMetrics is ended with one, and the event follows it', async () => {
    const path = join(dir, 'unended.om');
    await writeFile(path, '# TYPE jobs gauge\njobs 1 0');
    const text = await postAll(path, [['jobs', 2]]);
    expect(text).to.equal('# TYPE jobs gauge\njobs 1 0\njobs{env="ci"} 2 0\n# EOF\n');
    expect(strictOpenMetricsCheck(text)).to.equal('ok');
  });

  it('a line that ends with # EOF but is not it (a log message) refuses nothing: the next event goes after it', async () => {
    const path = join(dir, 'app.log');
    const logged = '<14>1 1970-01-01T00:00:00.000Z ci svc - - - done # EOF\n';
    await writeFile(path, logged);
    const res = await server.postJson('/events', {
      signal_type: 'logs',
      labels: {},
      log: { severity: 'info', message: 'next' },
      encoder: { type: 'syslog', hostname: 'ci' },
      sink: { type: 'file', path },
    });
    // Before: 422, "its last line is "# EOF"".
    expect(res.statusCode, res.body).to.equal(200);
    expect(await readFile(path, 'utf8')).to.equal(`${logged}${logged.replace('done # EOF', 'next')}`);
  });

  it('events of encoders whose lines are not recognised append as before: metrics_text after json_lines', async () => {
    const path = join(dir, 'mixed.log');
    await writeFile(path, '{"deploys":1}\n');
    const res = await post(path, 'deploys', 2, 'metrics_text');
    expect(res.statusCode, res.body).to.equal(200);
    expect(await readFile(path, 'utf8')).to.equal('{"deploys":1}\ndeploys{env="ci"} 2 0\n');
  });

  describe('events sent at once to one file', () => {
    /** Posts the events (metric name, value) to the file at `path` at once, each labelled by its value: their statuses. */
    async function postAtOnce(path: string, events: [string, number][]) {
      const answers = await Promise.all(
        events.map(([name, value]) => post(path, name, value, 'openmetrics', { event: String(value) })),
      );
      return answers.map((res) => res.statusCode);
    }

    /**
     * The text `text` should be: its samples in the order they were written, each run of a family after `before`
     * started by its metadata, once, and `# EOF` at the end.
     */
    function runsOf(text: string, before = ''): string {
      const kept = before.replace(/# EOF\n$/, '');
      const samples = text.slice(kept.length).match(/^\w+\{.*$/gm) ?? [];
      const family = (line: string) => line.slice(0, line.indexOf('{'));
      const last = kept.trimEnd().split('\n').at(-1)?.split(' ')[0];
      const lines = samples.map((line, i) => {
        const previous = i === 0 ? last : family(samples[i - 1]!);
        return `${family(line) === previous ? '' : `# TYPE ${family(line)} unknown\n`}${line}\n`;
      });
      return `${kept}${lines.join('')}# EOF\n`;
    }

    /** The values of the samples of `text`, sorted. */
    const valuesOf = (text: string) =>
      [...text.matchAll(/\{event="(\d+)"\} (\d+) 0$/gm)]
        .map(([, label, value]) => {
          expect(label).to.equal(value);
          return Number(value);
        })
        .sort((a, b) => a - b);

    it('events of one family write its metadata once, each event once, # EOF at the end: the strict parser reads the file', async () => {
      const path = join(dir, 'once.om');
      const values = Array.from({ length: 20 }, (_, i) => i);
      const events = values.map((value): [string, number] => ['deploys', value]);
      expect(await postAtOnce(path, events)).to.deep.equal(values.map(() => 200));
      const text = await readFile(path, 'utf8');
      // Before: each event read the file's end before any had written it, each wrote `# TYPE deploys unknown`.
      expect(text.match(/^# TYPE deploys unknown$/gm)).to.have.length(1);
      expect(text).to.equal(runsOf(text));
      expect(valuesOf(text)).to.deep.equal(values);
      expect(strictOpenMetricsCheck(text)).to.equal('ok');
    });

    it('events of two families write each run of a family with its metadata once, after a family the file had', async () => {
      const path = join(dir, 'twice.om');
      const before = '# TYPE jobs gauge\njobs 1 0\n# EOF\n';
      await writeFile(path, before);
      const values = Array.from({ length: 20 }, (_, i) => i);
      const events = values.map((value): [string, number] => [value < 10 ? 'jobs' : 'restarts', value]);
      expect(await postAtOnce(path, events)).to.deep.equal(values.map(() => 200));
      const text = await readFile(path, 'utf8');
      // The runs are as the events reached the file, one after another: an event after the other family's starts a
      // run of its own with the metadata again (docs/http-api.md), as it would sent after it.
      expect(text).to.equal(runsOf(text, before));
      expect(valuesOf(text)).to.deep.equal(values);
    });

    it('an event refused (422) gives the next its turn: the others are written, the file as they left it', async () => {
      const path = join(dir, 'refused.om');
      const before = '# TYPE jobs gauge\njobs 1 0\n# EOF\n';
      await writeFile(path, before);
      // Refused in its turn, reading the file's end (nothing else writes the file).
      expect((await post(path, 'deploys', 1, 'json_lines')).statusCode).to.equal(422);
      const answers = await Promise.all([
        post(path, 'deploys', 2, 'openmetrics', { event: '2' }),
        post(path, 'deploys', 3, 'json_lines', { event: '3' }),
        post(path, 'deploys', 4, 'openmetrics', { event: '4' }),
      ]);
      expect(answers.map((res) => res.statusCode)).to.deep.equal([200, 422, 200]);
      const text = await readFile(path, 'utf8');
      expect(text).to.equal(runsOf(text, before));
      expect(valuesOf(text)).to.deep.equal([2, 4]);
      expect(strictOpenMetricsCheck(text)).to.equal('ok');
    });

    it('an event whose sink failed (502) gives the next its turn', async () => {
      const failing = [new Error('no space left on device')];
      server = testServer({
        deps: {
          fileRoot: dir,
          createSink: () => {
            const sink = new MemorySink();
            sink.failWith = failing.shift();
            return sink;
          },
        },
      });
      expect((await post('full.om', 'deploys', 1)).statusCode).to.equal(502);
      expect((await post('full.om', 'deploys', 2)).statusCode).to.equal(200);
    });

    it(`an event whose turn has not come within ${DEFAULT_FLUSH_TIMEOUT / 1000} s (the write before it hung) is answered 502 sink_failed, unwritten; events to other files go on`, async () => {
      const sinks: MemorySink[] = [];
      server = testServer({
        deps: {
          fileRoot: dir,
          createSink: () => {
            const sink = new MemorySink();
            // The first event's write hangs, as on a network mount that stopped answering.
            if (sinks.push(sink) === 1) sink.hold();
            return sink;
          },
        },
      });
      const hung = post('hung.om', 'deploys', 1);
      while (sinks.length === 0) await settle();
      let answered = false;
      const queued = post('hung.om', 'deploys', 2).finally(() => {
        answered = true;
      });
      expect((await post('other.om', 'deploys', 3)).statusCode).to.equal(200);
      // Queued: its deadline set (before, it was written at once).
      while (!answered && server.scheduler.actions.length === 0) await settle();
      server.advance(DEFAULT_FLUSH_TIMEOUT - 1);
      await settle();
      expect(answered).to.equal(false);
      server.advance(1);
      const refused = await queued;
      expect(refused.statusCode, refused.body).to.equal(502);
      expect(refused.json()).to.deep.equal({
        error: 'sink_failed',
        detail: `sink.path: cannot write hung.om: the events sent to it before this one were not written within ${DEFAULT_FLUSH_TIMEOUT / 1000} s (a hung file system, such as a network mount that stopped answering?). Try again once they are`,
      });
      // It opened no sink: only the hung event's and the other file's.
      expect(sinks).to.have.length(2);
      sinks[0]!.release();
      expect((await hung).statusCode).to.equal(200);
      expect((await post('hung.om', 'deploys', 4)).statusCode).to.equal(200);
      expect(sinks.map((sink) => sink.text.match(/\} (\d+) \d+$/m)?.[1])).to.deep.equal(['1', '3', '4']);
    });
  });
});
