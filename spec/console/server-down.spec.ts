import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { consoleFixture, problemsOf, waitForText, waitForEditor } from '../support/browser.js';
import { startServerProcess } from '../support/server-process.js';

/** The WCAG contrast ratio of two `rgb(r, g, b)` colours: 4.5 is the least for text (level AA). */
function contrast(one: string, other: string): number {
  const luminance = (colour: string) => {
    const [r, g, b] = colour.match(/\d+/g)!.map((c) => {
      const s = Number(c) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a);
  return (light! + 0.05) / (dark! + 0.05);
}

/** What a person reads on the page: the banner, the messages, the cards. */
const pageText = (page: Page) => page.$eval('body', (body) => body.textContent ?? '');

describe('web console while svc-server is down and when it is back (docs/console.md)', () => {
  const fixture = consoleFixture(['--catalog', 'examples/catalog']);
  let page: Page;
  let problems: string[];

  before(async () => {
    page = await fixture.browser.newPage();
    problems = problemsOf(page);
    await page.goto(`${fixture.server.base}/`);
    await waitForText(page, '#catalog', /checkout-incident/);
    const started = await fetch(`${fixture.server.base}/scenarios`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/yaml' },
      body: 'signal_type: metrics\nname: live_gauge\nrate: 5\ngenerator: {type: constant, value: 1}\n',
    });
    expect(started.status).to.equal(201);
    await page.waitForSelector('#running .card');
    await waitForEditor(page);
  });

  it("says the server does not answer, in words, where the browser's own error said 'TypeError: Failed to fetch'", async () => {
    fixture.server.kill();
    await fixture.server.exited;
    await waitForText(
      page,
      '#banner',
      /^Could not read the scenarios since \d.* \(the cards are as last read\): svc-server did not answer \(is it running\?\)$/,
    );
    await page.click('#start');
    await waitForText(page, '#message', /^svc-server did not answer \(is it running\?\)$/);
    await page.click('#catalog button');
    await waitForText(page, '#catalog-message', /^svc-server did not answer \(is it running\?\)$/);
    expect(await pageText(page)).to.not.match(/TypeError|Failed to fetch/);
  });

  it('dims the cards while the polls fail: as last read, they still say running', async () => {
    await page.waitForFunction(() => {
      const { document, getComputedStyle } = globalThis as unknown as {
        document: {
          querySelector(selector: string): { querySelector(selector: string): { textContent: string } | null } | null;
        };
        getComputedStyle(element: unknown): { opacity: string };
      };
      const card = document.querySelector('#running .card');
      return (
        card !== null &&
        Number(getComputedStyle(card).opacity) < 1 &&
        card.querySelector('.status')?.textContent === 'running'
      );
    });
  });

  it('writes that line in the top bar readably: a contrast of at least 4.5 with the bar', async () => {
    const [text, bar] = await page.evaluate(() => {
      const { document, getComputedStyle } = globalThis as unknown as {
        document: { querySelector(selector: string): unknown };
        getComputedStyle(element: unknown): { color: string; backgroundColor: string };
      };
      return [
        getComputedStyle(document.querySelector('#banner')).color,
        getComputedStyle(document.querySelector('.top')).backgroundColor,
      ];
    });
    expect(contrast(text!, bar!), `${text} on ${bar}`).to.be.at.least(4.5);
  });

  it('recovers once the server is back on its address: the banner goes', async () => {
    fixture.server = await startServerProcess({
      args: ['--catalog', 'examples/catalog', '--port', new URL(fixture.server.base).port],
      quiet: true,
    });
    await page.waitForSelector('#banner[hidden]');
    // The scenario went with the server (no --state): its card goes, and no card is dimmed.
    await page.waitForSelector('#running .card', { hidden: true });
    await page.waitForSelector('#running:not(.stale)');
  });

  it('logged no page error but the refused connections', () => {
    expect(problems.filter((problem) => !/ERR_CONNECTION_REFUSED/.test(problem)).join('\n')).to.equal('');
  });
});
