// The Code view on one large kernel (`make bench`, scripts/bench_code_view.py): the release
// build in headless Chromium, a fresh page each run (so the disassembler worker, started by the
// first listing, starts within the time measured, as it does for a user), the code object
// dropped on it, the kernel selected in the tree; then the inspector's Code button is clicked
// and the page itself records (performance.now(), checked on every animation frame) when the
// listing's first line and the pressure strip's bars are in the document: the click's own
// event time to each. The wall time around the click and the wait is printed beside. Then the
// strip's peak is clicked, and the address of the instruction it selects is printed, for the
// caller to compare with the CLI's.
// Usage: node e2e/bench_code_view.mjs CODE_OBJECT KERNEL RUNS (one JSON object per run, a line
// each). Nothing here asserts on time.
import { chromium } from 'playwright-core';
import { serveStatic } from '../scripts/static-server.mjs';
import { BASE, CHROMIUM, DIST, dropFile } from './support.mjs';

/** Installed in the page before the click: the click's time and, on every animation frame
 * until both are there, when the listing's first line and the strip's bars are first seen. */
function watchCodeView() {
  const times = { click: null, listing: null, strip: null };
  window.__codeViewTimes = times;
  document.addEventListener('click', (e) => {
    if (times.click === null && e.target.closest?.('.inspector button')) times.click = e.timeStamp;
  }, true);
  const frame = () => {
    const now = performance.now();
    if (times.listing === null && document.querySelector('#code-list .code-line')) times.listing = now;
    if (times.strip === null && document.querySelector('svg.pressure-strip rect.pressure-bar')) times.strip = now;
    if (times.listing === null || times.strip === null) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

async function oneRun(browser, url, file, kernel) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('.welcome').waitFor();
    await dropFile(page, file);
    await page.locator('[role=treeitem] > .row', { hasText: `kernel ${kernel}` }).click();
    const code = page.locator('.inspector button', { hasText: 'Code' });
    await code.waitFor();
    await page.evaluate(watchCodeView);
    const started = Date.now();
    await code.click();
    const strip = page.locator('section.code-panel svg.pressure-strip');
    await strip.locator('rect.pressure-bar').first().waitFor({ timeout: 120_000 });
    await page.waitForFunction(() => window.__codeViewTimes.strip !== null && window.__codeViewTimes.listing !== null);
    const wallMs = Date.now() - started;
    const t = await page.evaluate(() => window.__codeViewTimes);
    if (t.click === null) throw new Error('the click on the Code button was not seen by the page');
    const bars = Number(await strip.getAttribute('data-bars'));
    await strip.locator('rect.pressure-peak').click();
    const selected = page.locator('#code-list .code-line.selected');
    await selected.waitFor();
    const peakAddress = await selected.getAttribute('data-address');
    return { listingMs: t.listing - t.click, stripMs: t.strip - t.click, wallMs, bars, peakAddress };
  } finally {
    await context.close();
  }
}

async function main() {
  const [file, kernel, runs = '3'] = process.argv.slice(2);
  if (!file || !kernel) throw new Error('usage: node e2e/bench_code_view.mjs CODE_OBJECT KERNEL [RUNS]');
  const { server, url } = await serveStatic({ dir: DIST, base: BASE });
  const browser = await chromium.launch(CHROMIUM);
  try {
    for (let i = 0; i < Number(runs); i++) {
      console.log(JSON.stringify(await oneRun(browser, url, file, kernel)));
    }
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
