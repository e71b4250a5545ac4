/**
 * Takes the console's screenshots for docs/console.md (docs/images/console-*.png): running scenarios with their
 * charts, and the editor with a preview of examples/plot.yaml. Needs a build (`npm run build`) and Chromium.
 *   node --import tsx console/screenshots.ts
 */
import { readFileSync } from 'node:fs';
import { launch } from 'puppeteer-core';
import { chromiumPath, type PageGlobals } from '../spec/support/browser.js';
import { startServerProcess } from '../spec/support/server-process.js';

const executablePath = chromiumPath();
if (!executablePath) throw new Error('no chromium binary: apt-get install chromium, or set CHROMIUM_PATH');
const server = await startServerProcess({ args: ['--catalog', 'examples/catalog'], quiet: true });
const browser = await launch({ executablePath, headless: true, args: ['--no-sandbox'] });
try {
  const post = (body: string) =>
    fetch(`${server.base}/scenarios`, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body });
  const plot = readFileSync('examples/plot.yaml', 'utf8');
  await post(plot.replace('period_secs: 900', 'period_secs: 20'));
  await post('@checkout-incident');
  const page = await browser.newPage();
  await page.setViewport({ width: 1440, height: 1000 });
  await page.goto(`${server.base}/`);
  await page.waitForSelector('#editor >>> .cm-content');
  // Twelve polls: the live charts show a few seconds of their values and rates (a scenario that ended before keeps
  // the chart it had).
  await page.waitForFunction(
    () =>
      [...(globalThis as unknown as PageGlobals).svcConsole.charts]
        .filter(([key]) => key.startsWith('running:'))
        .some(([, chart]) => chart.data[0]!.length >= 12),
    { timeout: 30_000 },
  );
  await page.screenshot({ path: 'docs/images/console-running.png' });

  await fetch(`${server.base}/scenarios`).then(async (res) => {
    const { scenarios } = (await res.json()) as { scenarios: { id: string }[] };
    await Promise.all(scenarios.map((s) => fetch(`${server.base}/scenarios/${s.id}`, { method: 'DELETE' })));
  });
  // The preview alone: the next poll takes the deleted scenarios' cards off.
  await page.waitForFunction(
    () => (globalThis as unknown as PageGlobals).document.querySelectorAll('#running .card').length === 0,
  );
  await page.evaluate((text) => {
    type Editor = {
      state: { doc: { length: number } };
      dispatch(spec: { changes: { from: number; to: number; insert: string } }): void;
    };
    const { editor } = (globalThis as unknown as { svcConsole: { editor: Editor } }).svcConsole;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
  }, plot);
  await page.click('#preview');
  await page.waitForSelector('#preview-charts .card');
  await page.screenshot({ path: 'docs/images/console-preview.png', fullPage: true });
} finally {
  await browser.close();
  server.kill();
}
