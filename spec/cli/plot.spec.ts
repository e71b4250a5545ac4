import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { svc } from '../support/cli.js';
import { fakeTerminal } from '../support/terminal.js';
import { GUTTER } from '../../lib/cli/plot/terminal.js';
import { SPIKE_AND_INCIDENT } from '../support/scenarios.js';
import { temporaryDirectory } from '../support/directories.js';

const dir = temporaryDirectory('svc-plot-');
const scenario = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** A gauge with a 2-minute gap and a 1-minute burst every 10 minutes. */
const windows = scenario(
  'windows.yaml',
  `version: 2
kind: runnable
scenarios:
  - id: q
    name: queue_depth
    signal_type: metrics
    rate: 1
    generator: { type: sine, amplitude: 10, period_secs: 300, offset: 20 }
    gaps: { every: 10m, for: 2m }
    bursts: { every: 10m, for: 1m, multiplier: 3 }
`,
);

const MINUTE = 60_000;

/** The rows of the chart titled by `id`: its braille rows, its marks row and its time axis, without the gutter. */
function chartOf(stdout: string, id: string) {
  const lines = stdout.split('\n');
  const title = lines.findIndex((line) => line.startsWith(`${id} · `));
  expect(title, stdout).to.be.at.least(0);
  const body = lines.slice(title + 1, title + 8).map((line) => line.slice(GUTTER));
  return { chart: body.slice(0, 5), marks: body[5]!, axis: body[6]! };
}

describe('svc plot', () => {
  it('draws the same picture twice for the same file', async () => {
    const first = await svc(['plot', 'examples/plot.yaml', '--width', '90']);
    const second = await svc(['plot', 'examples/plot.yaml', '--width', '90']);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.equal(second.stdout);
    // One chart per entry of the file.
    for (const id of ['cpu', 'drain', 'page', 'app_logs', 'latency', 'checkout'])
      expect(first.stdout).to.match(new RegExp(`^${id} · `, 'm'));
  });

  it('leaves the columns of a gap empty and marks the columns of a burst', async () => {
    const width = 70;
    const { code, stdout, stderr } = await svc(['plot', windows, '--for', '30m', '--width', String(width)]);
    expect(code, stderr).to.equal(0);
    const { chart, marks, axis } = chartOf(stdout, 'q');
    const columns = width - GUTTER;
    // Two points a cell, so a cell covers 2·(30m / (2·columns)).
    const cellMs = (30 * MINUTE) / columns;
    const inside = (c: number, windows: [number, number][]) =>
      windows.some(([from, to]) => c * cellMs >= from && (c + 1) * cellMs <= to);
    const touches = (c: number, windows: [number, number][]) =>
      windows.some(([from, to]) => c * cellMs < to && (c + 1) * cellMs > from);
    const gaps: [number, number][] = [8, 18, 28].map((m) => [m * MINUTE, (m + 2) * MINUTE]);
    const bursts: [number, number][] = [0, 10, 20].map((m) => [m * MINUTE, (m + 1) * MINUTE]);
    const drawn = (c: number) => chart.some((row) => (row[c] ?? ' ') !== ' ');
    let gapColumns = 0;
    for (let c = 0; c < columns; c++) {
      if (inside(c, gaps)) {
        gapColumns++;
        expect(drawn(c), `column ${c} in a gap`).to.equal(false);
      } else if (!touches(c, gaps)) expect(drawn(c), `column ${c} outside the gaps`).to.equal(true);
      if (inside(c, bursts)) expect(marks[c], `column ${c} in a burst`).to.equal('^');
      else if (!touches(c, bursts)) expect(marks[c] ?? ' ', `column ${c} outside the bursts`).to.equal(' ');
    }
    expect(gapColumns).to.be.greaterThan(4);
    expect(axis.startsWith('0')).to.equal(true);
    expect(axis).to.contain('10m').and.contain('20m');
    expect(stdout).to.contain('^ burst ×3');
  });

  it('without --for, draws a file whose entries all have a duration until the last ends, and says so', async () => {
    const width = 70;
    const { code, stdout, stderr } = await svc(['plot', 'examples/histogram.yaml', '--width', String(width)]);
    expect(code, stderr).to.equal(0);
    expect(stdout.split('\n')[1]).to.match(/^3s \(until the entries end\) from 2026-01-01T00:00:00\.000Z, a point/);
    // At a width whose step is no whole number of ms, the header still says the span, not 29m60s.
    const wide = await svc([
      'plot',
      join(import.meta.dirname, '../../examples/plot.yaml'),
      '--entry',
      'cpu',
      '--width',
      '59',
    ]);
    expect(wide.code, wide.stderr).to.equal(0);
    expect(wide.stdout.split('\n')[1]).to.match(/^30m from /);
    // Its three ticks (at 0, 1s and 2s) spread over the chart, not all in its first column.
    const { chart, axis } = chartOf(stdout, 'http_request_duration_seconds');
    const drawn = new Set(chart.flatMap((row) => [...row].flatMap((char, c) => (char === ' ' ? [] : [c]))));
    const columns = width - GUTTER;
    expect([...drawn].some((c) => c > columns / 2)).to.equal(true);
    expect(axis.trimEnd()).to.match(/ 3s$/);
    // An entry without a duration runs on: 30 minutes, as before.
    expect((await svc(['plot', windows, '--width', '70'])).stdout.split('\n')[1]).to.match(/^30m from /);
  });

  it('draws logs as a strip per severity and traces as spans/s with an error ratio strip', async () => {
    const { stdout } = await svc(['plot', 'examples/plot.yaml', '--entry', 'app_logs', '--width', '60']);
    const lines = stdout.split('\n');
    for (const severity of ['info', 'warn', 'error'])
      expect(lines.some((line) => line.trimStart().startsWith(`${severity} `) && /[▁-█]/.test(line))).to.equal(true);
    const traces = await svc(['plot', 'examples/plot.yaml', '--entry', 'checkout', '--width', '60']);
    expect(traces.stdout).to.match(/^checkout · traces · spans\/s/m);
    expect(
      traces.stdout.split('\n').some((line) => line.trimStart().startsWith('error ratio') && /[▁-█]/.test(line)),
    ).to.equal(true);
  });

  it('draws a catalog scenario named @name, as svc run takes it, and says so when --catalog is missing, exit 1', async () => {
    const { code, stdout, stderr } = await svc(['plot', '@checkout-incident', '--catalog', 'examples/catalog']);
    expect(code, stderr).to.equal(0);
    expect(stdout).to.match(/^@checkout-incident\n/);
    // A chart for the entries of both packs the catalog file uses.
    expect(stdout).to.match(/^cache\.redis_rejected_connections_total · counter · value/m);
    expect(stdout).to.match(/^api\.http_request_errors_total · counter · value/m);
    // As svc run: a configuration error, exit 1.
    const without = await svc(['plot', '@checkout-incident']);
    expect(without.code).to.equal(1);
    expect(without.stderr).to.contain('a catalog reference needs a catalog: give --catalog <dir>');
  });

  it('fits the terminal width, and colours only a terminal without NO_COLOR', async () => {
    const terminal = fakeTerminal(64);
    const stderr = fakeTerminal(64);
    expect(
      await svc(['plot', windows, '--for', '10m'], {
        stdout: terminal.stream,
        stderr: stderr.stream,
        colorDepth: 8,
        env: {},
      }),
    ).to.include({ code: 0 });
    expect((await terminal.rows()).some((row) => row.wrapped)).to.equal(false);
    expect(terminal.raw()).to.contain('\u001b[');
    const plain = fakeTerminal(64);
    await svc(['plot', windows, '--for', '10m'], {
      stdout: plain.stream,
      stderr: fakeTerminal(64).stream,
      colorDepth: 8,
      env: { NO_COLOR: '1' },
    });
    expect(plain.raw()).to.not.contain('\u001b[');
    expect(plain.raw()).to.contain('q · gauge · value');
  });

  it('keeps every line within the width: the header, long legends and wide characters', async () => {
    const labelled = scenario(
      'long-labels.yaml',
      `version: 2
kind: runnable
scenarios:
  - id: pods
    name: kube_pod_status_ready
    signal_type: metrics
    rate: 1
    generator: { type: constant, value: 1 }
    labels: { kubernetes_namespace: production-eu-west, kubernetes_pod_name: checkout-api-7d9f8b6c5-x2x9z }
  - id: ログ
    name: latency
    signal_type: metrics
    rate: 1
    generator: { type: constant, value: 2 }
    labels: { region: 東京都千代田区丸の内一丁目, service: 決済処理サービス }
`,
    );
    const terminal = fakeTerminal(40);
    const run = await svc(['plot', labelled, '--for', '10m'], {
      stdout: terminal.stream,
      stderr: fakeTerminal(40).stream,
      colorDepth: 8,
      env: { NO_COLOR: '1' },
    });
    expect(run.code, run.stderr).to.equal(0);
    const rows = await terminal.rows();
    expect(rows.filter((row) => row.wrapped)).to.deep.equal([]);
    expect(terminal.raw()).to.contain('point every').and.contain('…');
  });

  it('writes the labels its series share once, by the title, and in each legend item only those that differ', async () => {
    const pods = scenario(
      'pods.yaml',
      `version: 2
kind: runnable
scenarios:
  - id: pods
    name: kube_pod_status_ready
    signal_type: metrics
    rate: 1
    duration: 10s
    generator: { type: constant, value: 1 }
    labels: { kubernetes_namespace: production-eu-west, kubernetes_cluster: checkout-eu-west-1-primary }
    dynamic_labels: [{ key: pod, cardinality: 3, prefix: checkout-api-7d9f8b6c5- }]
`,
    );
    const { code, stdout, stderr } = await svc(['plot', pods, '--width', '80']);
    expect(code, stderr).to.equal(0);
    const lines = stdout.split('\n');
    const legend = lines.slice(lines.indexOf('pods · gauge · value'), lines.indexOf('pods · gauge · value') + 4);
    // The shared labels are too wide for a line of their own: broken after a comma, not cut.
    expect(legend).to.deep.equal([
      'pods · gauge · value',
      '{kubernetes_cluster="checkout-eu-west-1-primary",',
      '  kubernetes_namespace="production-eu-west"}',
      '━ {pod="checkout-api-7d9f8b6c5-0"}  ━ {pod="checkout-api-7d9f8b6c5-1"}',
    ]);
    const svgPath = join(dir, 'pods.svg');
    expect((await svc(['plot', pods, '--svg', svgPath])).code).to.equal(0);
    const texts = [...readFileSync(svgPath, 'utf8').matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(texts).to.include.members([
      '{kubernetes_cluster=&quot;checkout-eu-west-1-primary&quot;,kubernetes_namespace=&quot;production-eu-west&quot;}',
      '{pod=&quot;checkout-api-7d9f8b6c5-2&quot;}',
    ]);
  });

  it('gives a legend item too wide for a line lines of its own in the SVG, as in the terminal', async () => {
    const long = (c: string) => c.repeat(60);
    const wide = scenario(
      'wide.yaml',
      `version: 2
kind: runnable
scenarios:
  - id: w
    name: w
    signal_type: metrics
    rate: 2
    duration: 10s
    generator: { type: constant, value: 1 }
    dynamic_labels: [{ key: a, values: [${long('p')}, ${long('q')}] }, { key: b, values: [${long('r')}, ${long('s')}] }]
`,
    );
    const { stdout } = await svc(['plot', wide, '--width', '120']);
    const lines = stdout.split('\n');
    // The title, then each item broken after its comma, each part on a line of its own.
    expect(lines.slice(3, 8)).to.deep.equal([
      'w · gauge · value',
      `━ {a="${long('p')}",`,
      `  b="${long('r')}"}`,
      `━ {a="${long('q')}",`,
      `  b="${long('s')}"}`,
    ]);
    const svgPath = join(dir, 'wide.svg');
    expect((await svc(['plot', wide, '--svg', svgPath])).code).to.equal(0);
    const texts = [...readFileSync(svgPath, 'utf8').matchAll(/<text x="([\d.]+)" y="(\d+)"[^>]*>([^<]*)<\/text>/g)];
    const title = texts.find((m) => m[3] === 'w · gauge · value')!;
    const parts = texts.filter((m) => /^ *(\{a|b)=/.test(m[3]!));
    expect(parts.map((m) => m[3]!.trim().slice(0, 3))).to.deep.equal(['{a=', 'b=&', '{a=', 'b=&']);
    // Each part at the left of a line of its own, under the title's.
    expect(new Set(parts.map((m) => m[1]))).to.deep.equal(new Set(['88.0']));
    const ys = parts.map((m) => Number(m[2]));
    expect(ys[0]).to.be.above(Number(title[2]));
    expect(new Set(ys).size).to.equal(4);
  });

  it('draws each of up to eight label sets in a colour of its own in the SVG', async () => {
    const eight = scenario(
      'eight.yaml',
      `version: 2
kind: runnable
scenarios:
  - id: pods
    name: pods
    signal_type: metrics
    rate: 8
    duration: 10s
    generator: { type: constant, value: 1 }
    dynamic_labels: [{ key: pod, cardinality: 8 }]
`,
    );
    const svgPath = join(dir, 'eight.svg');
    expect((await svc(['plot', eight, '--svg', svgPath])).code).to.equal(0);
    const strokes = [...readFileSync(svgPath, 'utf8').matchAll(/<path d="[^"]*" fill="none" stroke="([^"]+)"/g)];
    expect(strokes).to.have.length(8);
    expect(new Set(strokes.map((m) => m[1])).size).to.equal(8);
  });

  it('breaks a legend item too wide for a line after its commas, never cutting where label sets differ', async () => {
    const { code, stdout, stderr } = await svc([
      'plot',
      'examples/incident.yaml',
      '--entry',
      'checkout.calls',
      '--width',
      '100',
    ]);
    expect(code, stderr).to.equal(0);
    const legend = stdout.split('\n').filter((line) => /^(━ | {2})[{s]/.test(line));
    expect(legend).to.have.length(14);
    expect(legend.filter((line) => line.includes('status.code="STATUS_CODE_ERROR"}'))).to.have.length(3);
    expect(stdout).to.not.contain('…');
    const svgPath = join(dir, 'incident.svg');
    expect(
      (await svc(['plot', 'examples/incident.yaml', '--entry', 'checkout.calls', '--svg', svgPath])).code,
    ).to.equal(0);
    // Every item on a line of its own within the 960-pixel panel, not past its right edge.
    const xs = [...readFileSync(svgPath, 'utf8').matchAll(/<text x="([\d.]+)"[^>]*>\{service/g)].map((m) =>
      Number(m[1]),
    );
    expect(xs).to.have.length(7);
    expect(new Set(xs).size).to.equal(1);
  });

  it('refuses --for past 24h, a --width out of bounds and an unknown --entry, with exit 2', async () => {
    const longer = await svc(['plot', windows, '--for', '25h']);
    expect(longer.code).to.equal(2);
    expect(longer.stderr).to.contain('--for: at most 24h, got "25h"');
    const tiny = await svc(['plot', windows, '--for', '0.5ms']);
    expect(tiny.code).to.equal(2);
    expect(tiny.stderr).to.contain('--for: expected a duration from 1ms to 24h');
    const narrow = await svc(['plot', windows, '--width', '10']);
    expect(narrow.code).to.equal(2);
    expect(narrow.stderr).to.contain('--width').and.contain('40 to 500');
    const unknown = await svc(['plot', windows, '--entry', 'nope']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.contain('--entry: no entry of the file has the id "nope"');
    const busy = scenario('busy.yaml', readFileSync(windows, 'utf8').replace('rate: 1', 'rate: 50000'));
    const costly = await svc(['plot', busy, '--for', '24h']);
    expect(costly.code).to.equal(1);
    expect(costly.stderr).to.match(
      /^error: the preview would make the work of about .* q, at rate 50000 events\/s over 24h: give a shorter --for, or one --entry$/m,
    );
  });

  it('writes the charts as SVG and PNG', async () => {
    const svgPath = join(dir, 'plot.svg');
    const pngPath = join(dir, 'plot.png');
    const { code, stderr } = await svc(['plot', windows, '--svg', svgPath, '--png', pngPath]);
    expect(code, stderr).to.equal(0);
    expect(stderr).to.equal(`wrote ${svgPath}\nwrote ${pngPath}\n`);
    const svg = readFileSync(svgPath, 'utf8');
    expect(svg).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="960"/);
    expect(svg).to.contain('q · gauge · value');
    // Three bursts and three gaps shaded, titled by what they are.
    expect(svg.match(/<title>burst ×3<\/title>/g)).to.have.length(3);
    expect(svg.match(/<title>gap<\/title>/g)).to.have.length(3);
    const png = readFileSync(pngPath);
    expect(png.subarray(0, 8).toString('hex')).to.equal('89504e470d0a1a0a');
    // IHDR: the width the SVG declares.
    expect(png.readUInt32BE(16)).to.equal(960);
  });

  it('writes an image to standard output for -, not to a file named -, and refuses both there', async () => {
    const dash = join(process.cwd(), '-');
    const svgPath = join(dir, 'dash.svg');
    const svg = await svc(['plot', windows, '--svg', '-', '--png', join(dir, 'dash.png')]);
    expect(svg.code, svg.stderr).to.equal(0);
    expect(svg.stdout).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="960"/);
    expect(svg.stdout).to.contain('q · gauge · value');
    expect(svg.stderr).to.equal(`wrote ${join(dir, 'dash.png')}\n`);
    const chunks: Buffer[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    const png = await svc(['plot', windows, '--png', '-', '--svg', svgPath], { stdout });
    expect(png.code, png.stderr).to.equal(0);
    expect(Buffer.concat(chunks).subarray(0, 8).toString('hex')).to.equal('89504e470d0a1a0a');
    expect(readFileSync(svgPath, 'utf8')).to.match(/^<svg /);
    const both = await svc(['plot', windows, '--svg', '-', '--png', '-']);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.include('--svg - and --png - would both write standard output: give one of them a file');
    expect(existsSync(dash)).to.equal(false);
  });

  it('marks cardinality spikes and traces incidents under the chart and shades them in the SVG', async () => {
    const marked = scenario('marked.yaml', SPIKE_AND_INCIDENT);
    const width = 72;
    const { code, stdout, stderr } = await svc(['plot', marked, '--for', '30m', '--width', String(width)]);
    expect(code, stderr).to.equal(0);
    const cellMs = (30 * MINUTE) / (width - GUTTER);
    const columnsOf = (row: string, sign: string) => [...row].flatMap((char, c) => (char === sign ? [c] : []));
    const lines = stdout.split('\n');
    // Spikes at [0, 2m), [10m, 12m), [20m, 22m): 2m is 4 cells of 30 s.
    const spikes = columnsOf(lines[lines.findIndex((line) => line.startsWith('m · ')) + 6]!.slice(GUTTER), '*');
    expect(spikes.map((c) => Math.floor((c * cellMs) / (10 * MINUTE)))).to.deep.equal([
      0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
    ]);
    expect(stdout).to.contain('* spike pod: 50 values');
    // Traces draw spans/s (5 rows) and an error ratio strip before their marks row.
    const incident = columnsOf(lines[lines.findIndex((line) => line.startsWith('t · ')) + 7]!.slice(GUTTER), '!');
    expect([incident[0]! * cellMs, (incident.at(-1)! + 1) * cellMs]).to.deep.equal([15 * MINUTE, 20 * MINUTE]);
    expect(stdout).to.contain('! incident checkout');

    const svgPath = join(dir, 'marked.svg');
    expect((await svc(['plot', marked, '--for', '30m', '--svg', svgPath])).code).to.equal(0);
    const svg = readFileSync(svgPath, 'utf8');
    expect(svg.match(/<title>spike pod: 50 values<\/title>/g)).to.have.length(3);
    expect(svg.match(/<title>incident checkout<\/title>/g)).to.have.length(1);
  });

  it('draws values whose range is wider than the largest number where they lie, with no NaN in the SVG', async () => {
    const wide = scenario(
      'wide.yaml',
      `
version: 2
kind: runnable
scenarios:
  - {id: w, signal_type: metrics, name: w, rate: 1, duration: 20s, generator: {type: sequence, values: [-1.7e308, 0, 1.7e308]}}
`,
    );
    const width = 52;
    const { code, stdout, stderr } = await svc(['plot', wide, '--width', String(width)]);
    expect(code, stderr).to.equal(0);
    // The lowest, middle and highest values on the bottom, middle and top rows, not all at the bottom.
    const { chart } = chartOf(stdout, 'w');
    expect(chart.map((row) => row.trim() !== '')).to.deep.equal([true, false, true, false, true]);
    const svgPath = join(dir, 'wide.svg');
    expect((await svc(['plot', wide, '--svg', svgPath])).code).to.equal(0);
    expect(readFileSync(svgPath, 'utf8')).to.not.contain('NaN');
  });

  it("escapes a label value's control characters: nothing reaches the terminal raw, and the SVG stays XML", async () => {
    const controls = scenario(
      'controls.yaml',
      `version: 2
kind: runnable
scenarios:
  - {id: c, signal_type: metrics, name: c, rate: 1, duration: 10s, generator: {type: constant, value: 1}, labels: {host: "a\\e[2Jb\\tc"}}
`,
    );
    const { code, stdout, stderr } = await svc(['plot', controls, '--width', '60']);
    expect(code, stderr).to.equal(0);
    expect(stdout)
      .to.contain('{host="a\\u001b[2Jb\\tc"}')
      .and.not.match(/[\u0000-\u0009\u000b-\u001f]/);
    const svgPath = join(dir, 'controls.svg');
    const pngPath = join(dir, 'controls.png');
    const image = await svc(['plot', controls, '--svg', svgPath, '--png', pngPath]);
    expect(image.code, image.stderr).to.equal(0);
    expect(readFileSync(svgPath, 'utf8'))
      .to.contain('a\\u001b[2Jb\\tc')
      .and.not.match(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  });

  it('places the SVG legend items by the width of their escaped text, so none overlaps the next', async () => {
    const controls = scenario(
      'legend-controls.yaml',
      `version: 2
kind: runnable
scenarios:
  - id: e
    name: e
    signal_type: metrics
    rate: 2
    duration: 10s
    generator: { type: constant, value: 1 }
    dynamic_labels: [{ key: host, values: ["a\\e\\e\\e\\e\\e\\eb", "c"] }]
`,
    );
    const svgPath = join(dir, 'legend-controls.svg');
    const { code, stderr } = await svc(['plot', controls, '--svg', svgPath]);
    expect(code, stderr).to.equal(0);
    const items = [
      ...readFileSync(svgPath, 'utf8').matchAll(/<text x="([\d.]+)" y="\d+"[^>]*>(\{host=[^<]*)<\/text>/g),
    ];
    const [first, next] = items.map((m) => ({ x: Number(m[1]), text: m[2]!.replaceAll('&quot;', '"') }));
    expect(first!.text).to.equal('{host="a\\u001b\\u001b\\u001b\\u001b\\u001b\\u001bb"}');
    // About 7 pixels a character of the text as shown.
    expect(next!.x).to.be.at.least(first!.x + first!.text.length * 7);
  });

  it('draws a dot for each value of a series sparser than its points, which no line joins', async () => {
    const sparse = scenario(
      'sparse.yaml',
      `
version: 2
kind: runnable
scenarios:
  - {signal_type: metrics, name: every_15s, rate: 0.0667, generator: {type: constant, value: 5}}
`,
    );
    const svgPath = join(dir, 'sparse.svg');
    const { code, stderr } = await svc(['plot', sparse, '--for', '10m', '--svg', svgPath]);
    expect(code, stderr).to.equal(0);
    // One event every 15 s over 10 minutes, each alone among points a few seconds apart.
    expect(readFileSync(svgPath, 'utf8').match(/<circle /g)).to.have.length(Math.ceil(600 * 0.0667));
  });
});
