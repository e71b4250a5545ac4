import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { consoleFixture, problemsOf, waitForText, waitForEditor } from '../support/browser.js';

/** The element Tab focused (the editor's host for its content, which lives in a shadow root) and its outline. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as unknown as {
      document: { activeElement: { id: string; textContent: string | null } };
      getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string };
    };
    const element = document.activeElement;
    const { outlineStyle, outlineWidth } = getComputedStyle(element);
    return {
      id: element.id || element.textContent,
      outline: outlineStyle === 'none' ? 0 : Number.parseFloat(outlineWidth),
    };
  });

describe('web console with the keyboard only (docs/console.md)', () => {
  const fixture = consoleFixture(['--catalog', 'examples/catalog']);

  it('tabs through every control in reading order, each with its focus visible, the editor too', async () => {
    const page = await fixture.browser.newPage();
    const problems = problemsOf(page);
    await page.goto(`${fixture.server.base}/`);
    await waitForText(page, '#catalog', /checkout-incident/);
    await waitForEditor(page);
    const stops = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      stops.push(await focused(page));
    }
    expect(stops.map((stop) => stop.id)).to.deep.equal([
      'delete-all',
      'Start',
      'editor',
      'minutes',
      'preview',
      'start',
    ]);
    for (const { id, outline } of stops) expect(outline, `the outline of ${id}`).to.be.at.least(1);
    // Every control: the next Tab leaves them (to the browser's own address bar, the page's body focused).
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { tagName: string } | null } }).document.activeElement
            ?.tagName,
      ),
    ).to.be.oneOf(['BODY', undefined]);
    expect(problems).to.deep.equal([]);
    await page.close();
  });
});
