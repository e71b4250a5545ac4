import { expect } from 'chai';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { launchOrSkip, problemsOf, waitForText } from '../support/browser.js';
import { waitFor } from '../support/backends/ports.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

describe('web console on a slow network: a Start clicked twice starts once (docs/console.md)', () => {
  let browser: Browser;
  let server: ServerProcess;
  let page: Page;
  let problems: string[];
  /** The `POST /scenarios` requests the page sent, held until the spec lets them go, as a slow network would. */
  let posts: HTTPRequest[];

  const listed = async () =>
    ((await (await fetch(`${server.base}/scenarios`)).json()) as { scenarios: unknown[] }).scenarios.length;

  before(async function () {
    browser = await launchOrSkip(this);
    server = await startServerProcess({ args: ['--catalog', 'examples/catalog'], quiet: true });
    page = await browser.newPage();
    problems = problemsOf(page);
    posts = [];
    await page.setRequestInterception(true);
    page.on('request', (request) =>
      request.method() === 'POST' && new URL(request.url()).pathname === '/scenarios'
        ? void posts.push(request)
        : void request.continue(),
    );
    await page.goto(`${server.base}/`);
    await waitForText(page, '#catalog', /checkout-incident/);
    await page.waitForFunction(
      () => !!(globalThis as unknown as { svcConsole: { editor?: unknown } }).svcConsole.editor,
    );
  });

  afterEach(async () => {
    for (const id of ((await (await fetch(`${server.base}/scenarios`)).json()) as { scenarios: { id: string }[] })
      .scenarios)
      await fetch(`${server.base}/scenarios/${id.id}`, { method: 'DELETE' });
    posts = [];
  });

  after(async () => {
    await browser?.close();
    server?.kill();
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
      expect(posts, 'requests sent').to.have.length(1);
      await posts[0]!.continue();
      await waitForText(page, message, started);
      const entries = await listed();
      // Once it answered, the button starts again.
      await page.click(button);
      await (await waitFor('the next POST /scenarios', () => posts[1])).continue();
      await waitForText(page, message, started);
      expect(await listed()).to.equal(entries * 2);
    });
  }

  it('ran without a page error', () => {
    expect(problems).to.deep.equal([]);
  });
});
