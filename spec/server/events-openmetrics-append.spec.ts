import { expect } from 'chai';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TAIL_BYTES } from '../../lib/sinks/core/file-tail.js';
import { promtoolCheck, strictOpenMetricsCheck } from '../support/promtool.js';
import { testServer } from '../support/server.js';
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
  function post(path: string, name: string, value: number, encoder = 'openmetrics') {
    return server.postJson('/events', {
      signal_type: 'metrics',
      labels: { env: 'ci' },
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
});
