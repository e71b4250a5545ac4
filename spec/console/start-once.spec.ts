import { expect } from 'chai';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { consoleFixture, problemsOf, waitForText, waitForEditor, withoutGonePolls } from '../support/browser.js';
import { waitFor } from '../support/backends/ports.js';

describe('web console on a slow network: a Start clicked twice starts once (docs/console.md)', () => {
  const fixture = consoleFixture(['--catalog', 'examples/catalog']);
  let page: Page;
  let problems: string[];
  /** The `POST /scenarios` requests the page sent, held until the spec lets them go, as a slow network would. */
  let posts: HTTPRequest[];
  /** Resolves the wait of {@link sentSoFar} once its marker request reaches the spec. */
  let markerSeen: (() => void) | undefined;

  /**
   * Waits until every request the page has sent so far reached the spec: requests reach it after the page sends
   * them, so a duplicate POST could be counted only after an assertion right after the click. A click's handler
   * sends its POST at once, before the marker the page sends next.
   */
  const sentSoFar = async () => {
    const seen = new Promise<void>((resolve) => (markerSeen = resolve));
    await page.evaluate(() => void fetch('/health?marker'));
    await seen;
  };

  const listed = async () =>
    ((await (await fetch(`${fixture.server.base}/scenarios`)).json()) as { scenarios: unknown[] }).scenarios.length;

  before(async () => {
    page = await fixture.browser.newPage();
    problems = problemsOf(page);
    posts = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.method() === 'POST' && url.pathname === '/scenarios') return void posts.push(request);
      if (url.pathname === '/health' && url.search === '?marker') markerSeen?.();
      void request.continue();
    });
    await page.goto(`${fixture.server.base}/`);
    await waitForText(page, '#catalog', /checkout-incident/);
    await waitForEditor(page);
  });

  afterEach(async () => {
    for (const id of (
      (await (await fetch(`${fixture.server.base}/scenarios`)).json()) as { scenarios: { id: string }[] }
    ).scenarios)
      await fetch(`${fixture.server.base}/scenarios/${id.id}`, { method: 'DELETE' });
    posts = [];
  });

  for (const [where, button, message, started] of [
    ["the editor's Start", '#start', '#message', /^Started 2 entries\./],
    ["a catalog scenario's Start", '#catalog button', '#catalog-message', /^Started @checkout-incident\.$/],
  ] as const) {
    it(`${where}: says it is starting, and a second click while the first is out sends nothing`, async () => {
      await page.click(button);
      await waitForText(page, message, /^Starting/);
      await page.click(button);
      await page.click(button);
      await sentSoFar();
      expect(posts, 'requests sent').to.have.length(1);
      await posts[0]!.continue();
      await waitForText(page, message, started);
      const entries = await listed();
      expect(entries, 'scenarios listed after the first Start').to.be.above(0);
      // Once it answered, the button starts again.
      await page.click(button);
      await (await waitFor('the next POST /scenarios', () => posts[1])).continue();
      await waitForText(page, message, started);
      await sentSoFar();
      expect(posts, 'requests sent').to.have.length(2);
      expect(await listed()).to.equal(entries * 2);
    });
  }

  it('ran without a page error', () => {
    // The afterEach deletes the scenarios the page is polling.
    const left = withoutGonePolls(problems);
    expect(left, left.join('\n')).to.deep.equal([]);
  });
});
