import { expect } from 'chai';
import type { HTTPRequest, JSHandle, Page } from 'puppeteer-core';
import {
  consoleFixture,
  type PageGlobals,
  problemsOf,
  setEditorText,
  waitForEditorText,
  waitForText,
  withoutGonePolls,
} from '../support/browser.js';

const KEY = 'console-spec-key';

/** The number of points the chart of `key` draws, 0 without such a chart. */
const drawnPoints = (page: Page, key: string) =>
  page.evaluate((k) => (globalThis as unknown as PageGlobals).svcConsole.charts.get(k)?.data[0]?.length ?? 0, key);

/** Hovers the editor's `rate` key and waits for its docs in a hover tooltip (a lint error under the mouse may show too). */
async function hoverShowsRateDocs(page: Page): Promise<void> {
  for (const key of await page.$$('#editor >>> .cm-line span')) {
    if ((await key.evaluate((k) => k.textContent)) === 'rate') await key.hover();
  }
  await page.waitForFunction(
    (e) =>
      [...e!.shadowRoot!.querySelectorAll('.cm-tooltip-hover')].some((t) => /Events per second/.test(t.textContent!)),
    {},
    await page.$('#editor'),
  );
}

/** Ctrl-Space in the editor, as a person asks for completions. */
async function askCompletions(page: Page): Promise<void> {
  await page.keyboard.down('Control');
  await page.keyboard.press('Space');
  await page.keyboard.up('Control');
}

/** Clicks the completion option whose label is `chosen`, once the options show. */
async function chooseCompletion(page: Page, chosen: string): Promise<void> {
  await page.waitForSelector('#editor >>> .cm-tooltip-autocomplete');
  for (const label of await page.$$('#editor >>> .cm-completionLabel'))
    if ((await label.evaluate((l) => l.textContent)) === chosen) await label.click();
}

/**
 * `{done}`, in the page: a promise that resolves once the page is done with the answer of its next `DELETE`: its
 * body read (the console reads it with json()), and every promise that waited on it settled (the console's own
 * handling, an error it shows). Wrapped: a promise returned would be awaited here. Source text, not a function:
 * tsx would name the functions of a function's body with a helper the page does not have.
 */
async function afterNextDeleteHandled(page: Page): Promise<JSHandle<{ done: Promise<void> }>> {
  return (await page.evaluateHandle(`(() => {
    const fetchOfPage = globalThis.fetch;
    const done = new Promise((resolve) => {
      globalThis.fetch = async (input, init) => {
        const response = await fetchOfPage(input, init);
        if ((input instanceof Request ? input.method : init?.method) !== 'DELETE') return response;
        globalThis.fetch = fetchOfPage;
        const json = response.json.bind(response);
        Object.defineProperty(response, 'json', {
          value: () => {
            const read = json();
            // A task after the body: the microtasks of those who await the read ran by then.
            read.finally(() => setTimeout(resolve, 0)).catch(() => undefined);
            return read;
          },
        });
        return response;
      };
    });
    return { done };
  })()`)) as JSHandle<{ done: Promise<void> }>;
}

/** Types `key` into the open sign-in dialog and submits it. */
async function signIn(page: Page, key: string): Promise<void> {
  await page.type('#login input[name=key]', key);
  await page.click('#login button[type=submit]');
}

describe('web console in Chromium (docs/console.md)', () => {
  const fixture = consoleFixture(['--api-key', KEY, '--catalog', 'examples/catalog']);
  let page: Page;
  let problems: string[];

  const api = async (path: string, init: RequestInit = {}) =>
    fetch(`${fixture.server.base}${path}`, { ...init, headers: { Authorization: `Bearer ${KEY}`, ...init.headers } });
  /** Starts the scenario `yaml` through the API, as another client of the server would. */
  const post = (yaml: string) =>
    api('/scenarios', { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: yaml });

  before(async () => {
    page = await fixture.browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    problems = problemsOf(page);
  });

  it('refuses a key no browser can send in a header (a character beyond ISO-8859-1), saying so, and keeps none', async () => {
    await page.goto(`${fixture.server.base}/`);
    await page.waitForSelector('#login[open]');
    await signIn(page, 'console-spec-k€y');
    await waitForText(page, '#login .login-error', /^A browser cannot send this key: .* ISO-8859-1 /);
    expect(await page.$('#login[open]')).to.not.equal(null);
    const stored = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).sessionStorage.getItem('svc-api-key'),
    );
    expect(stored).to.equal(null);
    // Such a key kept from before is no server down: the banner says what the browser refused.
    await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).sessionStorage.setItem('svc-api-key', 'console-spec-k€y'),
    );
    await page.reload();
    await waitForText(page, '#banner', /ISO-8859-1/);
    expect(await page.$eval('#banner', (banner) => banner.textContent)).to.not.match(/did not answer/);
    await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.removeItem('svc-api-key'));
  });

  it('asks for the key at the first 401, again after a wrong one, then shows the console', async () => {
    await page.goto(`${fixture.server.base}/`);
    await page.waitForSelector('#login[open]');
    // Nothing is known without the key: the page says neither that nothing runs nor that the catalog is empty.
    const said = await page.$$eval('.when-empty', (notes) =>
      notes
        .filter((note) => note.ownerDocument.defaultView!.getComputedStyle(note).display !== 'none')
        .map((note) => note.textContent),
    );
    expect(said).to.deep.equal([]);
    await signIn(page, 'wrong-key');
    await waitForText(page, '#login .login-error', /refused/);
    expect(await page.$('#login[open]')).to.not.equal(null);
    await signIn(page, KEY);
    await page.waitForSelector('#login:not([open])');
    // The catalog lists its runnable scenario once the key is accepted.
    await waitForText(page, '#catalog', /checkout/);
    const stored = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).sessionStorage.getItem('svc-api-key'),
    );
    expect(stored).to.equal(KEY);
  });

  it('keeps the key for the tab: a reload asks nothing', async () => {
    await page.reload();
    await waitForText(page, '#catalog', /checkout/);
    expect(await page.$('#login[open]')).to.equal(null);
  });

  it("starts the editor's scenario, and its chart moves", async () => {
    await page.waitForSelector('#editor >>> .cm-content');
    await page.click('#start');
    await waitForText(page, '#message', /Started 2 entries/);
    const { scenarios } = (await (await api('/scenarios')).json()) as { scenarios: { id: string; entry: string }[] };
    expect(scenarios).to.have.length(2);
    const key = `running:${scenarios[0]!.id}`;
    await page.waitForFunction((k) => (globalThis as unknown as PageGlobals).svcConsole.charts.has(k), {}, key);
    const first = await drawnPoints(page, key);
    await page.waitForFunction(
      (k, n) => ((globalThis as unknown as PageGlobals).svcConsole.charts.get(k)?.data[0]?.length ?? 0) > n + 1,
      {},
      key,
      first,
    );
    // It draws the rate and the entry's series, whose values the server reports.
    const data = await page.evaluate((k) => (globalThis as unknown as PageGlobals).svcConsole.charts.get(k)!.data, key);
    expect(data.length).to.be.at.least(3);
    expect(
      data.at(-1)!.some((rate) => (rate ?? 0) > 0),
      'a rate above 0',
    ).to.equal(true);
  });

  it('stops one scenario with its Stop button', async () => {
    const { scenarios } = (await (await api('/scenarios')).json()) as { scenarios: { id: string }[] };
    const [stopped, kept] = scenarios;
    await page.click(`.card[data-id="${stopped!.id}"] .stop`);
    await page.waitForFunction(
      (id) => !(globalThis as unknown as PageGlobals).document.querySelector(`.card[data-id="${id}"]`),
      {},
      stopped!.id,
    );
    expect((await api(`/scenarios/${stopped!.id}`)).status).to.equal(404);
    expect((await api(`/scenarios/${kept!.id}`)).status).to.equal(200);
  });

  it('shows an ended scenario as it ended: its button removes it, its chart and statistics are no longer read', async () => {
    const { scenarios } = (await (await api('/scenarios')).json()) as {
      scenarios: { id: string; entry: string; name: string }[];
    };
    const [ended] = scenarios;
    const card = `.card[data-id="${ended!.id}"]`;
    // examples/quickstart.yaml runs 5 s.
    await waitForText(page, `${card} .status`, /^stopped$/);
    await waitForText(page, `${card} .stop`, /^Remove$/);
    // Its id in the file is its name: said once.
    expect(ended!.entry).to.equal(ended!.name);
    expect(await page.$eval(`${card} .name`, (e) => e.textContent)).to.equal(ended!.name);
    // Its total, and no rate: nothing is sent any more.
    expect(await page.$eval(`${card} .facts`, (e) => e.textContent)).to.match(/^metrics · \d+ events · \d+ series/);
    const points = await drawnPoints(page, `running:${ended!.id}`);
    expect(points, 'points drawn while it ran').to.be.above(0);
    // Two more polls of the list, and nothing asked about the ended scenario in between.
    const asked: string[] = [];
    let polls = 0;
    const count = (request: HTTPRequest) => {
      const { pathname } = new URL(request.url());
      if (pathname === '/scenarios') polls++;
      if (pathname.startsWith(`/scenarios/${ended!.id}/`)) asked.push(pathname);
    };
    page.on('request', count);
    try {
      while (polls < 3) await page.waitForRequest((request) => new URL(request.url()).pathname === '/scenarios');
    } finally {
      page.off('request', count);
    }
    expect(asked).to.deep.equal([]);
    expect(await drawnPoints(page, `running:${ended!.id}`)).to.equal(points);
    await page.click(`${card} .stop`);
    await page.waitForFunction(
      (id) => !(globalThis as unknown as PageGlobals).document.querySelector(`.card[data-id="${id}"]`),
      {},
      ended!.id,
    );
    expect((await api(`/scenarios/${ended!.id}`)).status).to.equal(404);
  });

  it('starts a catalog scenario, and Delete all stops everything', async () => {
    await page.click('#catalog li button');
    // Said under the catalog, by the button.
    await waitForText(page, '#catalog-message', /^Started @checkout-incident\.$/);
    const started = ((await (await api('/scenarios')).json()) as { scenarios: unknown[] }).scenarios.length;
    expect(started).to.be.above(1);
    // Its cards drawn first: an empty list would pass the wait below before anything was deleted.
    await page.waitForFunction(
      (n) => (globalThis as unknown as PageGlobals).document.querySelectorAll('#running .card').length === n,
      {},
      started,
    );
    expect(await page.$eval('#running .card .stop', (button) => button.getAttribute('aria-label'))).to.match(
      /^Stop \S/,
    );
    // Every scenario of the server goes: the page asks first, and a No keeps them.
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => void dialog.dismiss().then(() => resolve(dialog.message()))),
    );
    await page.click('#delete-all');
    expect(await asked).to.equal(`Stop and remove all ${started} scenarios of this server, other people's too?`);
    expect(((await (await api('/scenarios')).json()) as { scenarios: unknown[] }).scenarios).to.have.length(started);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#delete-all');
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.querySelectorAll('#running .card').length === 0,
    );
    expect(((await (await api('/scenarios')).json()) as { scenarios: unknown[] }).scenarios).to.deep.equal([]);
  });

  it('says how many scenarios have no card past the 24 shown', async () => {
    const entries = Array.from(
      { length: 26 },
      (_, i) =>
        `  - { id: e${i}, signal_type: metrics, name: m${i}, rate: 0.1, generator: { type: constant, value: ${i} } }`,
    );
    const started = await post(['version: 2', 'kind: runnable', 'scenarios:', ...entries, ''].join('\n'));
    expect(started.status).to.equal(201);
    await waitForText(page, '#running-hidden:not([hidden])', /^Showing 24 of 26 scenarios/);
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.querySelectorAll('#running .card').length === 24,
    );
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#delete-all');
    await page.waitForSelector('#running-hidden[hidden]');
  });

  it('says "sink failing" from the first failed write, before the API calls the sink degraded', async () => {
    // Port 1: every write is refused at once.
    const started = await post(
      'signal_type: metrics\nname: refused\nrate: 5\ngenerator: { type: constant, value: 1 }\nsink: { type: http_push, url: "http://127.0.0.1:1/push" }\n',
    );
    const { id } = (await started.json()) as { id: string };
    const card = `.card[data-id="${id}"]`;
    await waitForText(page, `${card} .health`, /^sink failing$/);
    expect(await page.$eval(`${card} .sink-error`, (e) => e.textContent)).to.match(/^Last sink error \(\d+ in a row\)/);
    const { stats } = (await (await api(`/scenarios/${id}`)).json()) as { stats: { degraded: boolean } };
    expect(stats.degraded, 'degraded in its first 30 s').to.equal(false);
    expect((await api(`/scenarios/${id}`, { method: 'DELETE' })).ok).to.equal(true);
  });

  it('draws a label set that appears after the first poll, beside the ones already drawn', async () => {
    // One route a tick, a tick every 2.5 s: the first poll that sees a series sees one, the next two come later.
    const started = await post(
      'signal_type: metrics\nname: routes\nrate: 0.4\ngenerator: { type: constant, value: 1 }\n' +
        'dynamic_labels: [{ key: route, values: [a, b, c] }]\n',
    );
    const { id } = (await started.json()) as { id: string };
    const key = `running:${id}`;
    try {
      // The time column, the three routes and the rate.
      await page.waitForFunction(
        (k) => (globalThis as unknown as PageGlobals).svcConsole.charts.get(k)?.data.length === 5,
        { timeout: 15_000 },
        key,
      );
      const labels = await page.$$eval(`.card[data-id="${id}"] .u-legend .u-label`, (cells) =>
        cells.map((cell) => cell.textContent),
      );
      expect(labels).to.deep.equal(['routes{route="a"}', 'routes{route="b"}', 'routes{route="c"}', 'events/s']);
    } finally {
      await api(`/scenarios/${id}`, { method: 'DELETE' });
    }
  });

  it('says why a Stop failed under the Running heading', async () => {
    const started = await post('signal_type: metrics\nname: kept\nrate: 1\ngenerator: { type: constant, value: 1 }\n');
    const { id } = (await started.json()) as { id: string };
    await page.waitForSelector(`.card[data-id="${id}"] .stop`);
    // The server refuses the DELETE, as one shutting down would.
    await page.setRequestInterception(true);
    const refuse = (request: HTTPRequest) =>
      void (request.method() === 'DELETE'
        ? request.respond({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: 'draining', detail: 'the server is shutting down' }),
          })
        : request.continue());
    page.on('request', refuse);
    try {
      await page.click(`.card[data-id="${id}"] .stop`);
      await waitForText(page, '#running-message.failed', /^Could not stop kept: the server is shutting down$/);
    } finally {
      page.off('request', refuse);
      await page.setRequestInterception(false);
      await api(`/scenarios/${id}`, { method: 'DELETE' });
    }
    // The refusal this spec made is no problem of the page's.
    problems.splice(0, problems.length, ...problems.filter((problem) => !/status of 503/.test(problem)));
  });

  it('takes a Stop answered 404 (removed by another client since the last poll) as done: no error', async () => {
    const started = await post('signal_type: metrics\nname: gone\nrate: 1\ngenerator: { type: constant, value: 1 }\n');
    const { id } = (await started.json()) as { id: string };
    const card = `.card[data-id="${id}"]`;
    await page.waitForSelector(`${card} .stop`);
    // Another client removes it just before the page's DELETE reaches the server.
    await page.setRequestInterception(true);
    const race = (request: HTTPRequest) =>
      void (request.method() === 'DELETE'
        ? api(`/scenarios/${id}`, { method: 'DELETE' }).then(() => request.continue())
        : request.continue());
    page.on('request', race);
    try {
      const answered = page.waitForResponse((response) => response.request().method() === 'DELETE');
      const handled = await afterNextDeleteHandled(page);
      await page.click(`${card} .stop`);
      expect((await answered).status()).to.equal(404);
      // Before, the checks below ran once the card was gone, which a poll could do before the page had the 404:
      // they then passed untried, and Chromium's log of the 404 came after the spec had taken it out of `problems`.
      await handled.evaluate((inPage) => inPage.done);
      await page.waitForFunction(
        (selector) => !(globalThis as unknown as PageGlobals).document.querySelector(selector),
        {},
        card,
      );
    } finally {
      page.off('request', race);
      await page.setRequestInterception(false);
    }
    // Before, 'Could not stop gone: scenario … not found' under the Running heading.
    expect(await page.$eval('#running-message', (message) => message.textContent)).to.not.include(
      'Could not stop gone',
    );
    problems.splice(0, problems.length, ...problems.filter((problem) => !/status of 404/.test(problem)));
  });

  it("takes a scenario removed between a poll's list and its reads as gone: its card goes, and no poll failed", async () => {
    const started = await post('signal_type: metrics\nname: raced\nrate: 1\ngenerator: { type: constant, value: 1 }\n');
    const { id } = (await started.json()) as { id: string };
    const card = `.card[data-id="${id}"]`;
    await page.waitForSelector(card);
    // Another client removes it after the page listed it and before the page asks for its statistics.
    await page.setRequestInterception(true);
    let raced = false;
    const race = (request: HTTPRequest) => {
      if (raced || new URL(request.url()).pathname !== `/scenarios/${id}/stats`) return void request.continue();
      raced = true;
      void api(`/scenarios/${id}`, { method: 'DELETE' }).then(() => request.continue());
    };
    page.on('request', race);
    try {
      await page.waitForFunction(
        (selector) => {
          const { document } = globalThis as unknown as PageGlobals;
          return !document.querySelector(selector) || document.querySelector('#banner:not([hidden])') !== null;
        },
        {},
        card,
      );
    } finally {
      page.off('request', race);
      await page.setRequestInterception(false);
    }
    expect(raced).to.equal(true);
    expect(await page.$eval('#banner', (banner) => [banner.hidden, banner.textContent])).to.deep.equal([true, '']);
    expect(await page.$(card)).to.equal(null);
  });

  it('checks the YAML as you type: errors at the field, completion of fields, docs on hover', async () => {
    await page.click('#editor >>> .cm-content');
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    // Deleted first: typing over a selection lets Chromium's editing code try a style attribute, which the CSP
    // blocks (harmless: CodeMirror redraws the line), and the last spec would count it.
    await page.keyboard.press('Backspace');
    await page.keyboard.type('signal_type: metrics\nname: x\nrate: -3\nbogus_field: 1\n');
    const editor = await page.$('#editor');
    await page.waitForFunction((e) => e!.shadowRoot!.querySelectorAll('.cm-lintRange-error').length === 3, {}, editor);
    const flagged = await page.$$eval('#editor >>> .cm-lintRange-error', (spans) => spans.map((s) => s.textContent));
    // The entry itself (its first field) is flagged too: a metrics entry needs a generator, typed next.
    expect(flagged).to.deep.equal(['signal_type: metrics', '-3', 'bogus_field']);
    await page.keyboard.type('gener');
    await askCompletions(page);
    await page.waitForSelector('#editor >>> .cm-tooltip-autocomplete');
    const offered = await page.$$eval('#editor >>> .cm-tooltip-autocomplete li', (items) =>
      items.map((i) => i.textContent),
    );
    expect(offered).to.include('generator');
    await page.keyboard.press('Escape');
    await hoverShowsRateDocs(page);
  });

  it('completes and documents the fields of an entry under scenarios: as it does a single entry', async () => {
    const editor = await page.$('#editor');
    const entry = 'version: 2\nkind: runnable\nscenarios:\n  - signal_type: metrics\n    name: cpu\n    rate: 2\n';
    for (const [typed, wanted] of [
      ['    sink:\n      type: st', 'stdout'],
      ['    generator:\n      type: si', 'sine'],
    ] as const) {
      await setEditorText(page, entry + typed);
      await askCompletions(page);
      await page.waitForFunction(
        (e, w) => [...e!.shadowRoot!.querySelectorAll('.cm-completionLabel')].some((l) => l.textContent === w),
        {},
        editor,
        wanted,
      );
      await page.keyboard.press('Escape');
    }
    await hoverShowsRateDocs(page);
  });

  it('offers every value of an empty value at Ctrl-Space, and takes the one chosen', async () => {
    const completions = () =>
      page.$$eval('#editor >>> .cm-completionLabel', (labels) => labels.map((label) => label.textContent));
    for (const [text, some, chosen] of [
      ['signal_type: ', ['metrics', 'logs', 'histogram', 'summary', 'traces'], 'metrics'],
      [
        'version: 2\nkind: runnable\nscenarios:\n  - signal_type: metrics\n    sink:\n      type: ',
        ['stdout', 'remote_write'],
        'stdout',
      ],
      ['signal_type: metrics\ngenerator: {type: ', ['constant', 'sine'], 'constant'],
    ] as const) {
      await setEditorText(page, text);
      await askCompletions(page);
      await page.waitForSelector('#editor >>> .cm-tooltip-autocomplete');
      expect(await completions(), text).to.include.members([...some]);
      // The option clicked is written where the cursor was.
      await chooseCompletion(page, chosen);
      await waitForEditorText(page, text + chosen);
    }
  });

  it("offers the fields of a mapping at its first field's first letters, and takes the one chosen", async () => {
    const entry = 'version: 2\nkind: runnable\nscenarios:\n';
    for (const [text, chosen] of [
      [`${entry}  - sig`, 'signal_type'],
      [`${entry}  - signal_type: metrics\n    generator:\n      ty`, 'type'],
      [`${entry}  - signal_type: histogram\n    exemplars:\n      ev`, 'every'],
      [`${entry}  - signal_type: metrics\n    gap_windows:\n      - a`, 'at'],
    ] as const) {
      await setEditorText(page, text);
      await askCompletions(page);
      await chooseCompletion(page, chosen);
      // The word typed is replaced by the field, and its colon.
      await waitForEditorText(page, `${text.replace(/\w+$/, chosen)}: `);
    }
  });

  it('shows the cards in start order, whichever statistics answer first', async () => {
    const start = async (name: string) => {
      const answer = await post(
        `name: ${name}\nsignal_type: metrics\nrate: 1\ngenerator: {type: constant, value: 1}\n`,
      );
      return ((await answer.json()) as { id: string }).id;
    };
    const [first, second] = [await start('first'), await start('second')];
    // A fresh tab whose first answer for the older scenario's statistics is held until the newer card is drawn.
    const tab = await fixture.browser.newPage();
    await tab.evaluateOnNewDocument(
      (key) => (globalThis as unknown as PageGlobals).sessionStorage.setItem('svc-api-key', key),
      KEY,
    );
    await tab.setRequestInterception(true);
    const held = new Promise<HTTPRequest>((resolve) => {
      let once = false;
      tab.on('request', (request) => {
        if (!once && request.url().endsWith(`/scenarios/${first}/stats`)) {
          once = true;
          resolve(request);
        } else void request.continue();
      });
    });
    await tab.goto(`${fixture.server.base}/`);
    const stats = await held;
    await tab.waitForSelector(`#running .card[data-id="${second}"]`);
    await stats.continue();
    await tab.waitForFunction(
      (ids) => {
        const { document } = globalThis as unknown as {
          document: { querySelectorAll(selector: string): ArrayLike<{ dataset: { id?: string } }> };
        };
        return Array.from(document.querySelectorAll('#running .card'), (card) => card.dataset.id).join() === ids.join();
      },
      { timeout: 10_000 },
      [first, second],
    );
    await tab.close();
    await Promise.all([first, second].map((id) => api(`/scenarios/${id}`, { method: 'DELETE' })));
  });

  it('a refusal that answers a key already replaced asks nothing: the call goes again with the new key', async () => {
    // A slow machine answers the calls sent with the wrong key in any order: here the catalog's answer is held
    // until the right key has been given, so its 401 arrives after the dialog closed.
    const tab = await fixture.browser.newPage();
    const tabProblems = problemsOf(tab);
    await tab.setRequestInterception(true);
    const held = new Promise<HTTPRequest>((resolve) =>
      tab.on('request', (request) => {
        const stale = request.url().endsWith('/catalog') && request.headers().authorization === 'Bearer wrong-key';
        if (stale) resolve(request);
        else void request.continue();
      }),
    );
    await tab.goto(`${fixture.server.base}/`);
    await tab.waitForSelector('#login[open]');
    await signIn(tab, 'wrong-key');
    await waitForText(tab, '#login .login-error', /refused/);
    const catalog = await held;
    await signIn(tab, KEY);
    await tab.waitForSelector('#login:not([open])');
    await catalog.continue();
    const shown = await tab.waitForFunction(
      () => {
        const { document } = globalThis as unknown as PageGlobals;
        if (document.querySelector('#login[open]')) return 'the login dialog';
        return /checkout/.test(document.querySelector('#catalog')?.textContent ?? '') && 'the catalog';
      },
      { timeout: 10_000 },
    );
    expect(await shown.jsonValue()).to.equal('the catalog');
    expect(tabProblems).to.deep.equal([]);
    await tab.close();
  });

  it("fits a phone's width: a card and a preview of a long label set scroll nothing sideways", async () => {
    const wide =
      'signal_type: metrics\nname: checkout_frontend_request_duration_seconds_total\nrate: 2\n' +
      'labels: { service: checkout-frontend-eu-west-1, pod: checkout-frontend-7d9c6b5f4-abcde }\n' +
      'generator: { type: constant, value: 1 }\n';
    const started = await post(wide);
    expect(started.status, await started.clone().text()).to.equal(201);
    const { id } = (await started.json()) as { id: string };
    // Each wait fails on its own, before the spec's timeout, so a failure names the one that did not happen.
    const waitShort = { timeout: 8000 };
    await page.waitForFunction(
      (k) => (globalThis as unknown as PageGlobals).svcConsole.charts.has(k),
      waitShort,
      `running:${id}`,
    );
    await setEditorText(page, wide);
    await page.setViewport({ width: 360, height: 800 });
    try {
      await page.click('#preview');
      await page.waitForFunction(
        () =>
          /^Preview of /.test(
            (globalThis as unknown as PageGlobals).document.querySelector('#message')?.textContent ?? '',
          ),
        waitShort,
      );
      const sideways = await page.evaluate(() => {
        const { documentElement } = (globalThis as unknown as PageGlobals).document;
        return documentElement.scrollWidth - documentElement.clientWidth;
      });
      expect(sideways).to.equal(0);
      // A button's label is not broken up to make room (the catalog's Start read "St", "ar", "t").
      const broken = await page.$$eval('button', (buttons) =>
        buttons
          .filter((button) => button.getClientRects().length > 0)
          .filter((button) => {
            const text = button.ownerDocument.createRange();
            text.selectNodeContents(button);
            return text.getClientRects().length > 1;
          })
          .map((button) => button.textContent),
      );
      expect(broken).to.deep.equal([]);
    } finally {
      await page.setViewport({ width: 1280, height: 900 });
      await api(`/scenarios/${id}`, { method: 'DELETE' });
    }
  });

  it("keeps a live chart's first time label whole at every poll, on a phone's width", async () => {
    // A logs scenario's chart has no left axis: the first label's date reaches furthest past the plot there.
    const started = await post(
      'signal_type: logs\nname: edge_logs\nrate: 3\nlog_generator: { type: template, templates: [{ message: m }] }\n',
    );
    expect(started.status, await started.clone().text()).to.equal(201);
    const { id } = (await started.json()) as { id: string };
    await page.setViewport({ width: 360, height: 800 });
    try {
      // Every 50 ms of its first seconds (a drawing stays until the next poll), while its ticks go from a quarter second apart to seconds: the room made
      // for the label moved the ticks, whose label then needed other room, and what uPlot's last layout pass asked
      // for was not applied (the date cut, "1/29/26 10:15pm", until the next poll, or for good once it ended).
      const cut = await page.evaluate(async (k) => {
        const seen: string[] = [];
        for (const end = performance.now() + 6000; performance.now() < end; ) {
          const x = (globalThis as unknown as PageGlobals).svcConsole.axes.get(k)?.get('x');
          for (const line of x?.lines ?? []) if (line.left < 0) seen.push(`${line.text} at ${line.left}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return seen;
      }, `running:${id}`);
      expect(cut).to.deep.equal([]);
    } finally {
      await page.setViewport({ width: 1280, height: 900 });
      await api(`/scenarios/${id}`, { method: 'DELETE' });
    }
  });

  it("writes a live chart's value axis in the power of ten of each poll: its labels follow values crossing 1e15", async () => {
    // From 500T up by 50T a tick, 1e15 after 5 s: drawn as they are, then divided by 1e15.
    const started = await post(
      'signal_type: metrics\nname: growing\nrate: 2\ngenerator: { type: step, start: 5e14, step_size: 5e13 }\n',
    );
    expect(started.status, await started.clone().text()).to.equal(201);
    const { id } = (await started.json()) as { id: string };
    try {
      // Every 50 ms until drawn in 1e15 for 2 s: each label's value (500T, 1.0e15) must lie within the scale's range
      // in real units, which a label written in the power of ten of an earlier poll does not.
      const { exponents, astray } = await page.evaluate(async (k) => {
        const { svcConsole } = globalThis as unknown as PageGlobals;
        const units: Record<string, number> = { '': 1, K: 1e3, M: 1e6, B: 1e9, T: 1e12 };
        const exponents = new Set<number>();
        const astray: string[] = [];
        let since: number | undefined;
        for (const end = performance.now() + 15000; performance.now() < end; ) {
          const y = svcConsole.axes.get(k)?.get('y');
          const scale = svcConsole.charts.get(k)?.scales.y;
          if (y && scale?.min != null && scale.max != null) {
            const power = 10 ** y.exponent!;
            exponents.add(y.exponent!);
            for (const label of y.labels) {
              // (A function declared here is sent as text that names a helper of the spec's build: none.)
              const [, number, unit] = /^(.*?)([KMBT]?)$/.exec(label)!;
              const value = Number(number) * units[unit!]!;
              if (!(value >= scale.min * power * 0.999 && value <= scale.max * power * 1.001))
                astray.push(`${label} in 10^${y.exponent} ${scale.min}..${scale.max}`);
            }
            if (y.exponent === 15) since ??= performance.now();
            if (since !== undefined && performance.now() - since > 2000) break;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return { exponents: [...exponents], astray };
      }, `running:${id}`);
      expect(exponents).to.include.members([0, 15]);
      expect(astray).to.deep.equal([]);
    } finally {
      await api(`/scenarios/${id}`, { method: 'DELETE' });
    }
  });

  it('ran without a page error or a Content-Security-Policy violation', () => {
    // The console takes a scenario removed while a poll reads it as gone (above).
    const left = withoutGonePolls(problems);
    expect(left, left.join('\n')).to.deep.equal([]);
  });
});
