import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { consoleFixture, type PageGlobals, problemsOf, setEditorText, waitForText } from '../support/browser.js';
import { SPIKE_AND_INCIDENT } from '../support/scenarios.js';

describe('web console preview in Chromium (docs/console.md)', () => {
  const fixture = consoleFixture();
  let page: Page;
  let problems: string[];

  before(async () => {
    page = await fixture.browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    problems = problemsOf(page, [422]);
    await page.goto(`${fixture.server.base}/ui/`);
    await page.waitForSelector('#editor >>> .cm-content');
  });

  const setText = (text: string) => setEditorText(page, text);
  const setMinutes = (minutes: string) =>
    page.$eval(
      '#minutes',
      (input, value) => {
        (input as unknown as { value: string }).value = value;
      },
      minutes,
    );

  /** Previews `text` (`entries` entries) over 30 minutes; each chart's value axis, by chart key. */
  const previewedYAxes = async (text: string, entries: number) => {
    await setText(text);
    await setMinutes('30');
    await page.click('#preview');
    await waitForText(page, '#message', new RegExp(`^Preview of 30 minutes: ${entries} entries`));
    return page.evaluate(() =>
      Object.fromEntries(
        [...(globalThis as unknown as PageGlobals).svcConsole.axes].map(([key, byScale]) => [key, byScale.get('y')!]),
      ),
    );
  };

  it('says the catalog is empty on a server without one', async () => {
    await waitForText(page, '#catalog + .when-empty', /^No runnable scenario in the catalog/);
    expect(await page.$eval('#catalog + .when-empty', (note) => note.checkVisibility())).to.equal(true);
  });

  it("draws every entry's preview: the series the server computed, point for point", async () => {
    const text = readFileSync('examples/plot.yaml', 'utf8');
    await setText(text);
    await setMinutes('20');
    const asked = new Promise<HTTPRequest>((resolve) =>
      page.on('request', (request) => request.url().includes('/preview?') && resolve(request)),
    );
    await page.click('#preview');
    await waitForText(page, '#message', /Preview of 20 minutes: 6 entries/);
    const request = await asked;
    expect(request.postData()).to.equal(text);
    expect(request.url()).to.match(/\/preview\?for=20m&points=240&start=\d+$/);

    // The same request, answered to this spec: what the charts draw must be its data.
    const url = new URL(request.url());
    const preview = (await (
      await fetch(`${fixture.server.base}${url.pathname}${url.search}`, {
        method: 'POST',
        headers: { 'content-type': 'application/yaml' },
        body: text,
      })
    ).json()) as {
      from: number;
      step: number;
      points: number;
      entries: { id: string; series: { values: (number | null)[] }[]; marks: unknown[] }[];
    };
    const drawn = await page.evaluate(() =>
      Object.fromEntries(
        [...(globalThis as unknown as PageGlobals).svcConsole.charts]
          .filter(([key]) => key.startsWith('preview:'))
          .map(([key, chart]) => [key.slice('preview:'.length), chart.data]),
      ),
    );
    expect(Object.keys(drawn)).to.deep.equal(preview.entries.map((e) => e.id));
    const times = Array.from({ length: preview.points }, (_, i) => preview.from + i * preview.step);
    for (const entry of preview.entries) {
      expect(drawn[entry.id], entry.id).to.deep.equal([times, ...entry.series.map((s) => s.values)]);
      expect(
        entry.series.flatMap((s) => s.values).some((v) => v !== null),
        `${entry.id} has values`,
      ).to.equal(true);
    }
    // Gaps are drawn as gaps: the CPU's two-minute gaps are nulls in what the chart holds.
    expect(drawn.cpu![1]!.filter((v) => v === null).length).to.be.above(0);
  });

  it('labels each mark inside its plot, and no label covers another', async () => {
    const drawn = await page.evaluate(() =>
      Object.fromEntries(
        [...(globalThis as unknown as PageGlobals).svcConsole.marks]
          .filter(([key]) => key.startsWith('preview:'))
          .map(([key, marks]) => [key.slice('preview:'.length), marks]),
      ),
    );
    // The CPU's start, its bursts and its gaps: the start and the first burst begin together.
    expect(drawn.cpu!.labels.map((l) => l.text)).to.include.members(['start', '×5', 'gap']);
    for (const [id, { plot, labels }] of Object.entries(drawn)) {
      for (const label of labels) {
        expect(label.left, `${id} ${label.text}`).to.be.within(plot.left, plot.left + plot.width - label.width);
        expect(label.top, `${id} ${label.text}`).to.be.within(plot.top, plot.top + plot.height - label.height);
      }
      for (const [i, a] of labels.entries())
        for (const b of labels.slice(i + 1)) {
          const apart =
            a.left + a.width <= b.left ||
            b.left + b.width <= a.left ||
            a.top + a.height <= b.top ||
            b.top + b.height <= a.top;
          expect(apart, `${id}: "${a.text}" and "${b.text}" overlap`).to.equal(true);
        }
    }
  });

  it('draws only the newest preview: a newer Preview aborts the one being computed, which shows as computing', async () => {
    // The first preview's request is held, as a long one computing on the server would be.
    await page.setRequestInterception(true);
    let first: HTTPRequest | undefined;
    let hold = (_: HTTPRequest) => {};
    const held = new Promise<HTTPRequest>((resolve) => {
      hold = (request) => {
        if (!first && request.url().includes('/preview?')) resolve((first = request));
        else void request.continue();
      };
    });
    let fail = (_: HTTPRequest) => {};
    const gaveUp = new Promise<HTTPRequest>((resolve) => {
      fail = (request) => request === first && resolve(request);
    });
    page.on('request', hold);
    page.on('requestfailed', fail);
    try {
      await setText(readFileSync('examples/plot.yaml', 'utf8'));
      await setMinutes('1440');
      await page.click('#preview');
      await held;
      await waitForText(page, '#message', /^Computing the preview of 1440 minutes/);
      expect(await page.$('#preview-charts[aria-busy="true"]')).to.not.equal(null);

      await setText(readFileSync('examples/quickstart.yaml', 'utf8'));
      await setMinutes('2');
      await page.click('#preview');
      await waitForText(page, '#message', /^Preview of 2 minutes: 2 entries/);
      // The older request was given up, so its answer can never replace the newer charts.
      expect((await gaveUp).failure()?.errorText).to.equal('net::ERR_ABORTED');
      expect(await page.$('#preview-charts[aria-busy]')).to.equal(null);
      const keys = await page.evaluate(() =>
        [...(globalThis as unknown as PageGlobals).svcConsole.charts.keys()].filter((k) => k.startsWith('preview:')),
      );
      expect(keys).to.deep.equal(['preview:cpu_usage_percent', 'preview:http_requests_total']);
    } finally {
      page.off('request', hold);
      page.off('requestfailed', fail);
      await page.setRequestInterception(false);
    }
  });

  it('writes axis values as svc plot does, on an axis wide enough for them: large and small values', async () => {
    const axes = await previewedYAxes(
      [
        'version: 2',
        'kind: runnable',
        'scenarios:',
        '  - { id: large, signal_type: metrics, name: large, rate: 1, generator: { type: step, start: 123456789, step_size: 98765 } }',
        '  - { id: small, signal_type: metrics, name: small, rate: 1, generator: { type: sine, amplitude: 0.00002, period_secs: 300, offset: 0.00005 } }',
        '',
      ].join('\n'),
      2,
    );
    // Counted in millions from 123,456,789 on; around 5e-5.
    for (const [key, pattern] of [
      ['preview:large', /^\d+M$/],
      ['preview:small', /^\d\.\de-5$/],
    ] as const) {
      expect(axes[key]!.labels.length, key).to.be.above(1);
      for (const label of axes[key]!.labels) expect(label, key).to.match(pattern);
    }
    for (const [key, { labels, widest, room }] of Object.entries(axes))
      expect(widest, `${key}: ${labels.join(' ')}`).to.be.at.most(room);
  });

  it('writes the labels all series share once, by the title, and draws seven series in seven colours', async () => {
    await setText(
      'signal_type: metrics\nname: pods\nrate: 7\ngenerator: { type: constant, value: 1 }\nlabels: { region: eu }\n' +
        'dynamic_labels: [{ key: pod, values: [a, b, c, d, e, f, g] }]\n',
    );
    await setMinutes('1');
    await page.click('#preview');
    await waitForText(page, '#message', /^Preview of 1 minute: 1 entry\.$/);
    const card = '#preview-charts .card';
    expect(await page.$eval(`${card} header`, (e) => e.textContent)).to.equal('pods · gauge (value) {region="eu"}');
    const labels = await page.$$eval(`${card} .u-legend .u-label`, (cells) => cells.map((cell) => cell.textContent));
    expect(labels).to.deep.equal(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((pod) => `{pod="${pod}"}`));
    const colours = await page.$$eval(`${card} .u-legend .u-marker`, (markers) =>
      markers.map((marker) => (marker as unknown as { style: { borderColor: string } }).style.borderColor),
    );
    expect(new Set(colours).size, colours.join(' ')).to.equal(7);
  });

  it('marks cardinality spikes and traces incidents, labelled', async () => {
    await setText(SPIKE_AND_INCIDENT);
    await setMinutes('30');
    await page.click('#preview');
    await waitForText(page, '#message', /^Preview of 30 minutes: 2 entries/);
    const texts = await page.evaluate(() =>
      Object.fromEntries(
        ['m', 't'].map((id) => [
          id,
          (globalThis as unknown as PageGlobals).svcConsole.marks.get(`preview:${id}`)!.labels.map((l) => l.text),
        ]),
      ),
    );
    expect(texts.m).to.include('spike pod: 50 values');
    expect(texts.t).to.include('incident checkout');
  });

  it('draws a series written every other step: each lone value as a dot', async () => {
    // Every 15 s on steps of 7.5 s: a value, a null, a value… No two values in a row, so no line joins them.
    await setText('signal_type: metrics\nname: sparse\nrate: 0.0666667\ngenerator: { type: constant, value: 1 }\n');
    await setMinutes('30');
    await page.click('#preview');
    await waitForText(page, '#message', /^Preview of 30 minutes: 1 entry\.$/);
    const { columns, width } = await drawnColumns('preview:sparse');
    expect(columns, `${columns} of ${width} columns`).to.be.above(width / 2);
  });

  it('draws values at the ends of what a number can be, on an axis labelled in their units', async () => {
    // uPlot's range and tick math broke past them: no axis and no line for ±1.7e308, nor any label for 5e-324;
    // 1e-31 labelled 0, 50 and 100; a page error for values apart by 1e-8.
    const entries = {
      wide: ['[-1.7e308, 0, 1.7e308]', /^(-?\d\.\de308|0)$/],
      least: ['[5e-324, 0]', /^(\d\.\de-324|0)$/],
      small: ['[1e-31, 3e-31]', /^\d\.\de-31$/],
      close: ['[1.00000001, 1.00000002]', /^1\.0000000\d+$/],
    } as const;
    const axes = await previewedYAxes(
      `version: 2\nkind: runnable\nscenarios:\n${Object.entries(entries)
        .map(
          ([id, [values]]) =>
            `  - { id: ${id}, signal_type: metrics, name: ${id}, rate: 1, generator: { type: sequence, values: ${values} } }\n`,
        )
        .join('')}`,
      4,
    );
    for (const [id, [, pattern]] of Object.entries(entries)) {
      const { labels } = axes[`preview:${id}`]!;
      expect(labels.length, `${id}: ${labels.join(' ')}`).to.be.above(1);
      for (const label of labels) expect(label, id).to.match(pattern);
      const { columns, width } = await drawnColumns(`preview:${id}`);
      expect(columns, `${id}: ${columns} of ${width} columns`).to.be.above(width / 2);
    }
    // Every tick inside the plot: uPlot's own started at 1 and 1.000000005, below it.
    for (const label of axes['preview:close']!.labels)
      expect(Number(label), label).to.be.within(1.000000009, 1.000000021);
    expect(axes['preview:wide']!.exponent).to.equal(308);
    expect(axes['preview:least']!.exponent).to.equal(-324);
  });

  it('writes a tick drawn in a power of ten as svc plot writes its value: 500T, 0.001, not 5.0e14, 1.0e-3', async () => {
    // Drawn divided by 1e15 and 1e-4, whose ticks were all written as mantissa and exponent.
    const entries = {
      large: ['sequence, values: [0, 1.2e15]', 15, /^\d+T$/, /^(0|\d+T|\d\.\d+e15)$/],
      small: ['constant, value: 0.0009999999', -4, /^0\.\d+$/, /^(0|\d\.\de-4|0\.\d+)$/],
    } as const;
    const axes = await previewedYAxes(
      `version: 2\nkind: runnable\nscenarios:\n${Object.entries(entries)
        .map(
          ([id, [generator]]) =>
            `  - { id: ${id}, signal_type: metrics, name: ${id}, rate: 1, generator: { type: ${generator} } }\n`,
        )
        .join('')}`,
      2,
    );
    for (const [id, [, exponent, plain, pattern]] of Object.entries(entries)) {
      const { labels, exponent: drawnIn } = axes[`preview:${id}`]!;
      expect(drawnIn, id).to.equal(exponent);
      expect(
        labels.some((label) => plain.test(label)),
        `${id}: ${labels.join(' ')}`,
      ).to.equal(true);
      for (const label of labels) expect(label, id).to.match(pattern);
    }
  });

  it('draws a value no axis can place (Infinity) as a gap, and the others in their power of ten', async () => {
    // JSON.parse reads 1e999 as Infinity: it made the largest magnitude Infinity, and every value NaN (no line).
    const values = Array.from({ length: 60 }, (_, i) => (i === 30 ? '1e999' : `${(i % 7) + 1}e20`));
    const body = `{"from":${Date.now()},"step":30000,"points":60,"entries":[{"id":"huge","signal":"metrics","type":"gauge","unit":"value","series":[{"name":"{}","values":[${values}]}],"marks":[]}]}`;
    await page.setRequestInterception(true);
    const answer = (request: HTTPRequest) =>
      request.url().includes('/preview?')
        ? void request.respond({ status: 200, contentType: 'application/json', body })
        : void request.continue();
    page.on('request', answer);
    try {
      await setMinutes('30');
      await page.click('#preview');
      await waitForText(page, '#message', /^Preview of 30 minutes: 1 entry/);
    } finally {
      page.off('request', answer);
      await page.setRequestInterception(false);
    }
    const y = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).svcConsole.axes.get('preview:huge')?.get('y'),
    );
    expect(y?.exponent, 'no value axis drawn').to.equal(20);
    expect(y!.labels.length, y!.labels.join(' ')).to.be.above(1);
    for (const label of y!.labels) expect(label).to.match(/^(0|\d\.\de20)$/);
    const { columns, width } = await drawnColumns('preview:huge');
    expect(columns, `${columns} of ${width} columns`).to.be.above(width / 2);
  });

  it('counts a rate from 0, as svc plot does: the steps of a steady rate do not look like a swing', async () => {
    // 3 events/s in steps of 1.25 s: 3 or 4 events a step, 2.4 or 3.2 events/s, drawn from 2.4 to 3.2 before.
    await setText(
      'signal_type: logs\nname: steady\nrate: 3\nlog_generator: { type: template, templates: [{ message: m }] }\n',
    );
    await setMinutes('5');
    await page.click('#preview');
    await waitForText(page, '#message', /^Preview of 5 minutes: 1 entry\.$/);
    const { labels } = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).svcConsole.axes.get('preview:steady')!.get('y')!,
    );
    expect(labels[0], labels.join(' ')).to.equal('0');
  });

  it("draws a traces entry's error ratio on its own axis, from 0 to 1", async () => {
    await setText(readFileSync('examples/traces.yaml', 'utf8'));
    await setMinutes('30');
    await page.click('#preview');
    await waitForText(page, '#message', /^Preview of 30 minutes: /);
    const axes = await page.evaluate(() =>
      Object.fromEntries((globalThis as unknown as PageGlobals).svcConsole.axes.get('preview:checkout')!),
    );
    // Spans/s on the left, tens of them; the ratio on the right, where 2 % of errors is not a line at 0.
    expect(Object.keys(axes)).to.deep.equal(['x', 'y', 'ratio']);
    expect(axes.y!.labels.map(Number)).to.satisfy((values: number[]) => Math.max(...values) > 1);
    expect(axes.ratio!.labels[0]).to.equal('0');
    expect(axes.ratio!.labels.at(-1)).to.equal('1');
  });

  /** How many of the plot's columns of the chart of `key` the first series' colour (#2f6fdf) was drawn in. */
  async function drawnColumns(key: string): Promise<{ columns: number; width: number }> {
    return page.evaluate((k) => {
      type Chart = {
        ctx: { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
        bbox: { left: number; top: number; width: number; height: number };
      };
      const chart = (globalThis as unknown as { svcConsole: { charts: Map<string, Chart> } }).svcConsole.charts.get(k)!;
      const { left, top, width, height } = chart.bbox;
      const { data } = chart.ctx.getImageData(left, top, width, height);
      const blue = new Set<number>();
      for (let i = 0; i < data.length; i += 4)
        if (data[i + 2]! > 150 && data[i + 2]! - data[i]! > 100) blue.add((i / 4) % width);
      return { columns: blue.size, width };
    }, key);
  }

  /** Clicks Preview, the server asked for the preview from `start` (epoch ms), and waits for its `message`. */
  async function previewFrom(start: number, message: RegExp): Promise<void> {
    await page.setRequestInterception(true);
    const from = (request: HTTPRequest) => {
      const url = new URL(request.url());
      if (!url.pathname.startsWith('/preview')) return void request.continue();
      url.searchParams.set('start', String(start));
      void request.continue({ url: url.href });
    };
    page.on('request', from);
    try {
      await page.click('#preview');
      await waitForText(page, '#message', message);
    } finally {
      page.off('request', from);
      await page.setRequestInterception(false);
    }
  }

  it("keeps the time axis' first label, its date, inside the chart when its tick is at the plot's left edge", async () => {
    await setText('signal_type: metrics\nname: edge\nrate: 1\ngenerator: { type: constant, value: 1 }\n');
    await setMinutes('1');
    // The preview starts 50 ms before a whole 10 s: its first tick, "11/29/26 2:24am" under ":10", is at the edge.
    await previewFrom(Math.ceil(Date.now() / 10_000) * 10_000 - 50, /^Preview of 1 minute: 1 entry\.$/);
    const x = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).svcConsole.axes.get('preview:edge')!.get('x')!,
    );
    expect(x.labels[0], 'a date under the first tick').to.include('\n');
    expect(x.widest, `${JSON.stringify(x.labels[0])} reaches ${x.widest} px left of its tick`).to.be.at.most(x.room);
  });

  it("writes no time axis label over another: the first tick's date beside the next minute's time", async () => {
    await setText('signal_type: metrics\nname: minute\nrate: 1\ngenerator: { type: constant, value: 1 }\n');
    await setMinutes('1');
    // A narrow chart ticks every 10 s, 50 px apart: ":50" with its date ("11/29/26 2:25pm"), then ":00", a minute
    // starting ("2:26pm"); the date reaches about 56 px right of its tick, "2:26pm" about 27 px left of its own.
    await page.setViewport({ width: 440, height: 900 });
    try {
      await previewFrom(Math.ceil(Date.now() / 60_000) * 60_000 - 10_050, /^Preview of 1 minute: 1 entry\.$/);
      const x = await page.evaluate(
        () => (globalThis as unknown as PageGlobals).svcConsole.axes.get('preview:minute')!.get('x')!,
      );
      expect(x.labels.slice(0, 2).map((label) => label.split('\n')[0])).to.deep.equal([':50', ':00']);
      expect(x.labels[0], 'a date under the first tick').to.include('\n');
      for (const [i, a] of x.lines!.entries())
        for (const b of x.lines!.slice(i + 1))
          if (a.line === b.line)
            expect(a.right <= b.left || b.right <= a.left, `"${a.text}" and "${b.text}" overlap`).to.equal(true);
    } finally {
      await page.setViewport({ width: 1280, height: 900 });
    }
  });

  it('asks for a whole number of minutes', async () => {
    await setMinutes('1.5');
    await page.click('#preview');
    await waitForText(
      page,
      '#message.failed',
      /^Preview: Next must be a whole number of minutes from 1 to 1440, got 1\.5\.$/,
    );
    await setMinutes('30');
  });

  it('shows the refusal of a file the server cannot preview, naming the field', async () => {
    await setText('signal_type: metrics\nname: x\n');
    await page.click('#preview');
    await waitForText(page, '#message', /^422 validation_failed: .*generator/);
  });

  it('ran without a page error or a Content-Security-Policy violation', () => {
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
});
