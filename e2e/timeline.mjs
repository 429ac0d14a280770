// Where the page's time goes on one file: the release build in headless Chromium opens FILE
// through its file input and records, with their times from the pick, every text the progress
// panel shows, when the first targets show, when the summary shows, the page's own figures
// (`data-first-render-ms`: the file's arrival to the summary; the worker's exploring time) and
// the Kernels view's count line. A profile of stages, not a benchmark: nothing is asserted.
// Usage: E2E_DIST=… E2E_BASE=… node e2e/timeline.mjs FILE
import { openPage, startSite } from './support.mjs';

async function main() {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node e2e/timeline.mjs FILE');
  const site = await startSite();
  try {
    const { page } = await openPage(site.browser, site.siteUrl);
    await page.evaluate(() => {
      window.__seen = [];
      let last = '';
      new MutationObserver(() => {
        const status = document.querySelector('.progress-panel [role=status]')?.textContent ?? '';
        const found = document.querySelectorAll('.progress-panel .found-so-far li.runs-on-line').length;
        const text = `${status}${found ? ` [${found} targets found]` : ''}`;
        if (text && text !== last) window.__seen.push({ at: Date.now(), text });
        last = text;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open file…' }).click();
    const picked = Date.now();
    await (await chooser).setFiles(file);
    const timing = page.locator('#tab-panel section.summary .timing[data-first-render-ms]');
    await timing.waitFor({ timeout: 600_000 });
    const summary = Date.now() - picked;
    const seen = await page.evaluate(() => window.__seen);
    let shown = 0;
    for (const s of seen) {
      // Every change in the first second, then one line a second: enough to see the stages.
      const at = s.at - picked;
      if (at < 1000 || at >= shown + 1000 || process.env.TIMELINE_ALL) {
        console.log(`${String(at).padStart(7)} ms  ${s.text}`);
        shown = at;
      }
    }
    console.log(`${String(summary).padStart(7)} ms  summary on screen (page-measured ${await timing.getAttribute('data-first-render-ms')} ms)`);
    const kernels = page.locator('section.kernels-panel .kernels-count');
    if (!(await kernels.count())) await page.keyboard.press('5');
    console.log(`           kernels: ${await kernels.first().textContent({ timeout: 5000 }).catch(() => '(view not shown)')}`);
    const rows = await page.locator('#tree [role=treeitem]').count();
    console.log(`           tree items in the DOM: ${rows}; elements in the page: ${await page.evaluate(() => document.querySelectorAll('*').length)}`);
  } finally {
    await site.browser.close();
    site.server.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
