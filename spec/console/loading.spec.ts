import { expect } from 'chai';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { consoleFixture, problemsOf, waitForText, waitForEditor } from '../support/browser.js';

/** Whether the element `selector` is disabled. */
const disabled = (page: Page, selector: string) =>
  page.$eval(selector, (button) => (button as unknown as { disabled: boolean }).disabled);

/** Opens the console with the editor's script held back (as a slow network would): the request, for the caller to continue or abort. */
async function openWithEditorHeld(page: Page, base: string): Promise<Promise<HTTPRequest>> {
  await page.setRequestInterception(true);
  const held = new Promise<HTTPRequest>((resolve) =>
    page.on('request', (request) =>
      /\/ui\/assets\/editor-[^/]*\.js$/.test(request.url()) ? resolve(request) : void request.continue(),
    ),
  );
  // The held script delays the load event: wait for the document only.
  await page.goto(`${base}/`, { waitUntil: 'domcontentloaded' });
  return held;
}

describe('web console while its editor loads (docs/console.md)', () => {
  const fixture = consoleFixture(['--catalog', 'examples/catalog']);

  it('lists the catalog and says the editor is loading, its Start and Preview disabled until it is there', async () => {
    const page = await fixture.browser.newPage();
    const problems = problemsOf(page);
    const editorScript = await openWithEditorHeld(page, fixture.server.base);
    await waitForText(page, '#catalog', /checkout-incident/);
    await waitForText(page, '#editor', /Loading the editor/);
    expect(await disabled(page, '#start'), 'Start').to.equal(true);
    expect(await disabled(page, '#preview'), 'Preview').to.equal(true);
    await (await editorScript).continue();
    // (waitForSelector of `#editor >>> .cm-content` watches the document, not the shadow root the editor fills.)
    await waitForEditor(page);
    expect(await disabled(page, '#start'), 'Start').to.equal(false);
    expect(await disabled(page, '#preview'), 'Preview').to.equal(false);
    expect(await page.$('#editor >>> .cm-content')).to.not.equal(null);
    expect(problems).to.deep.equal([]);
    await page.close();
  });

  it('says so when the editor could not be loaded', async () => {
    const page = await fixture.browser.newPage();
    const problems = problemsOf(page);
    await (await openWithEditorHeld(page, fixture.server.base)).abort('connectionfailed');
    await waitForText(page, '#editor', /Could not load the editor .*reload the page/);
    expect(await disabled(page, '#start'), 'Start').to.equal(true);
    expect(await disabled(page, '#preview'), 'Preview').to.equal(true);
    // The failed script is the only error the page logged.
    expect(problems.filter((problem) => !/ERR_CONNECTION_FAILED/.test(problem))).to.deep.equal([]);
    await page.close();
  });
});
