// The static shell: the page paints from index.html and the style sheet before the app's wasm
// has arrived, and a file dropped on the shell opens once the app has started.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliList, FIXTURES, pageTargets, startSite, waitExplored } from '../support.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.browser.close(); site?.server.close(); });

test('the shell paints before the app code arrives and keeps a file dropped on it', async () => {
  const context = await site.browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  // Hold the app's wasm back until the shell has been checked.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  let appWasmRequested = false;
  await page.route(/\/app_bg\.wasm$/, async (route) => {
    appWasmRequested = true;
    await held;
    await route.continue();
  });
  await page.goto(site.siteUrl, { waitUntil: 'domcontentloaded' });
  await page.locator('#shell-title').waitFor();
  assert.equal(await page.locator('#shell-title').textContent(), 'See what is inside a GPU fat binary');
  assert.match(await page.locator('#shell-status').textContent(), /Loading the explorer/);
  // Painted with nothing of the wasm: what has arrived so far is the page, its style sheet and
  // small scripts.
  const arrived = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((r) => r.responseEnd > 0).map((r) => r.name));
  assert.ok(!arrived.some((n) => n.endsWith('.wasm')), `no wasm should have arrived yet: ${arrived.join(', ')}`);

  const name = 'hip_elf_2arch.o';
  const data = readFileSync(join(FIXTURES, name)).toString('base64');
  await page.evaluate(({ name, data }) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const drag = new DataTransfer();
    drag.items.add(new File([bytes], name));
    for (const type of ['dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(type, { dataTransfer: drag, bubbles: true, cancelable: true }));
    }
  }, { name, data });
  assert.match(await page.locator('#shell-status').textContent(), /1 file will open when it is ready/);
  assert.ok(page.url().startsWith(site.siteUrl), 'the drop must not navigate away from the page');

  assert.ok(appWasmRequested, 'the app wasm is requested while the shell shows');
  release();
  await page.locator('#shell').waitFor({ state: 'detached' });
  await waitExplored(page, name);
  const expected = cliList(join(FIXTURES, name)).targets.map((t) => t.target_id);
  assert.deepEqual(await pageTargets(page), expected);
  assert.deepEqual(problems, []);
  await context.close();
});
