// One-off timing (not a test): the Code view on a large real code object, from the click on
// "Code" to the listing, the block outline and the pressure strip of its largest kernel drawn.
import { OFFLOAD, dropFile, must, openPage, startSite } from './support.mjs';
const FILE = process.argv[2];
const doc = JSON.parse(must(OFFLOAD, ['disasm', '--pressure', '--json', FILE]));
const fns = doc.images[0].functions.sort((a, b) => b.instructions - a.instructions);
const big = fns[0];
console.log(`largest: ${big.instructions} instructions at 0x${big.address.toString(16)}; ${fns.length} functions`);
const site = await startSite();
const problems = [];
const { context, page } = await openPage(site.browser, site.siteUrl, problems, { serviceWorkers: 'block', viewport: { width: 1366, height: 900 } });
for (let run = 0; run < 2; run++) {
  await dropFile(page, FILE, `big${run}.co`);
  await page.locator('[role=treeitem] > .row', { hasText: 'AMDGPU code object' }).first().click();
  const t0 = Date.now();
  await page.locator('.inspector button', { hasText: 'Code' }).click();
  await page.locator('section.code-panel svg.pressure-strip').waitFor({ timeout: 60000 });
  await page.locator('#code-blocks .flow-block').first().waitFor();
  const t1 = Date.now();
  // The largest kernel: go to its label, its strip drawn.
  await page.getByLabel('Go to label').selectOption({ label: big.name });
  await page.waitForFunction((n) => document.querySelector('svg.pressure-strip')?.getAttribute('aria-label')?.includes(n), big.name);
  const t2 = Date.now();
  // Scroll the listing and the outline: frames stay short.
  const scroll = await page.evaluate(async () => {
    const list = document.querySelector('#code-list');
    const times = [];
    for (let i = 0; i < 40; i++) {
      const s = performance.now();
      list.scrollTop += 2000;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      times.push(performance.now() - s);
    }
    return { max: Math.max(...times), mean: times.reduce((a, b) => a + b) / times.length, rows: document.querySelectorAll('#code-list .code-row').length, blocks: document.querySelectorAll('#code-blocks .flow-block').length };
  });
  const t3 = Date.now();
  await page.locator('svg.pressure-strip rect.pressure-peak').click();
  await page.locator('#code-list .code-line.selected').waitFor();
  const t4 = Date.now();
  console.log(`run ${run}: Code opened with strip ${t1 - t0} ms; largest kernel's strip ${t2 - t1} ms; peak click → selected ${t4 - t3} ms; scroll frames mean ${scroll.mean.toFixed(1)} max ${scroll.max.toFixed(1)} ms; rows drawn ${scroll.rows}, blocks drawn ${scroll.blocks}`);
  console.log(await page.locator('button.pressure-summary').textContent());
  await page.keyboard.press('7');
  await page.locator('section.code-panel').waitFor({ state: 'detached' });
}
console.log('problems', problems);
await context.close();
await site.browser.close();
site.server.close();
