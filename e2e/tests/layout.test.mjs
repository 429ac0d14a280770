// How the views share the window, in Chromium (the same checks run in Firefox and WebKit in
// ../engines/): two views shown cover the window's height, a splitter dragged with the mouse or
// moved with its keys moves room from one to the other, a view maximised takes the tab and `m`
// restores it, each tab keeps its own layout; many tabs wrap and each takes its clicks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { ROOT, openSample, sharedPage, shot, waitExplored } from '../support.mjs';

const problems = [];
const shared = sharedPage(problems);
const KERNELS = join(ROOT, 'tests/images/hip_kernels.o');
const PADDING = 6; // .workspace's padding

async function box(page, css) {
  return page.locator(css).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: r.height, width: r.width };
  });
}

test('two views fill the window; splitters, maximise and per-tab layout', async () => {
  const { page } = shared;
  await openSample(page, 'hip_elf_2arch_compressed.o');
  await page.locator('#file-input').setInputFiles(KERNELS);
  await waitExplored(page, 'hip_kernels.o');
  for (const key of ['2', '3', '4', '5']) await page.keyboard.press(key); // tree, map, hex, inspector
  await page.waitForFunction(() => document.querySelectorAll('#tab-panel .pane').length === 2);

  const workspace = await box(page, '#tab-panel .workspace');
  assert.ok(Math.abs(workspace.bottom - (await page.evaluate(() => innerHeight))) <= 1, 'the views reach the bottom');
  const summary = await box(page, '#pane-summary');
  const kernels = await box(page, '#pane-kernels');
  const bar = await box(page, '#tab-panel .splitter-rows');
  assert.ok(Math.abs(summary.top - workspace.top - PADDING) <= 1);
  assert.ok(Math.abs(workspace.bottom - PADDING - kernels.bottom) <= 1);
  assert.ok(Math.abs(summary.height + bar.height + kernels.height - (workspace.height - 2 * PADDING)) <= 2,
    `they cover the height: ${summary.height} + ${bar.height} + ${kernels.height} of ${workspace.height}`);
  await shot(page, 'layout-two-views');

  // The mouse drags the splitter 120 px down.
  const y = bar.top + bar.height / 2;
  const x = (await page.locator('#tab-panel .splitter-rows').boundingBox()).x + 200;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x, y + 60);
  await page.mouse.move(x, y + 120);
  await page.mouse.up();
  const summary2 = await box(page, '#pane-summary');
  const kernels2 = await box(page, '#pane-kernels');
  assert.ok(Math.abs(summary2.height - summary.height - 120) <= 3, `${summary.height} → ${summary2.height}`);
  assert.ok(Math.abs(kernels.height - kernels2.height - 120) <= 3, `${kernels.height} → ${kernels2.height}`);
  const separator = page.getByRole('separator', { name: 'Resize Summary and Kernels' });
  const before = Number(await separator.getAttribute('aria-valuenow'));
  await separator.focus();
  await page.keyboard.press('ArrowUp');
  assert.equal(Number(await separator.getAttribute('aria-valuenow')), before - 5, 'ArrowUp moves it 5% of the pair up');
  await page.keyboard.press('End');
  assert.equal(await separator.getAttribute('aria-valuenow'), '95');
  await page.keyboard.press('Home');
  assert.equal(await separator.getAttribute('aria-valuenow'), '5');
  const small = await box(page, '#pane-summary');

  // Maximised with the button, restored with `m`.
  await page.getByRole('button', { name: 'Maximise Kernels' }).click();
  await page.locator('#pane-summary').waitFor({ state: 'detached' });
  assert.ok(Math.abs((await box(page, '#pane-kernels')).height - (workspace.height - 2 * PADDING)) <= 2);
  assert.equal(await page.getByRole('button', { name: /Restore the layout/ }).getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('m');
  await page.locator('#pane-summary').waitFor();
  assert.ok(Math.abs((await box(page, '#pane-summary')).height - small.height) <= 2, 'restored as it was');

  // `m` maximises the view last clicked.
  await page.locator('#pane-summary .file-line').click();
  await page.keyboard.press('m');
  await page.locator('#pane-kernels').waitFor({ state: 'detached' });
  await page.keyboard.press('m');
  await page.locator('#pane-kernels').waitFor();

  // Each tab keeps its own layout.
  await page.locator('[role=tab]', { hasText: 'hip_elf_2arch_compressed.o' }).click();
  await waitExplored(page, 'hip_elf_2arch_compressed.o');
  assert.ok(Math.abs((await box(page, '#pane-summary')).height - small.height) > 10, 'the other tab has its own sizes');
  await page.locator('[role=tab]', { hasText: 'hip_kernels.o' }).click();
  await waitExplored(page, 'hip_kernels.o');
  assert.ok(Math.abs((await box(page, '#pane-summary')).height - small.height) <= 2, 'this one kept its own');
  for (const key of ['2', '3', '4', '5']) await page.keyboard.press(key);
  await page.waitForFunction(() => document.querySelectorAll('#tab-panel .pane').length === 6);

  // The hex view grows by 40 px when the splitter above it is dragged up, and shows two more
  // of its 20 px rows.
  const rows = () => page.locator('#hex-grid .hex-row').count();
  const hexBefore = await box(page, '#pane-hex');
  const rowsBefore = await rows();
  const above = await page.getByRole('separator', { name: 'Resize Layout map and Hex' }).boundingBox();
  await page.mouse.move(above.x + 200, above.y + above.height / 2);
  await page.mouse.down();
  await page.mouse.move(above.x + 200, above.y + above.height / 2 - 40, { steps: 4 });
  await page.mouse.up();
  const hexAfter = await box(page, '#pane-hex');
  assert.ok(Math.abs(hexAfter.height - hexBefore.height - 40) <= 3, `${hexBefore.height} → ${hexAfter.height}`);
  await page.waitForFunction((n) => document.querySelectorAll('#hex-grid .hex-row').length >= n + 2, rowsBefore);
  assert.deepEqual(problems, []);
});

test('hiding and showing a view leaves the others as they were', async () => {
  const { page } = shared;
  const filter = page.getByLabel('Filter kernels by name (demangled or mangled)');
  await filter.fill('spill');
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('2'); // the tree goes; the centre column moves left
  await page.locator('#pane-tree').waitFor({ state: 'detached' });
  assert.equal(await filter.inputValue(), 'spill', 'the kernels view kept its filter');
  await page.keyboard.press('2');
  await page.locator('#pane-tree').waitFor();
  assert.equal(await filter.inputValue(), 'spill');
  await filter.fill('');
});

test('kernel names are not underlined, so their underscores show', async () => {
  const { page } = shared;
  const decoration = await page.locator('button.kernel-name').first().evaluate((el) => getComputedStyle(el).textDecorationLine);
  assert.equal(decoration, 'none');
});

test('with more tabs than fit across, every tab is on screen and a click selects it', async () => {
  const { page } = shared;
  const samples = ['hip_elf_2arch_compressed.o', 'libhip_3tu_compressed.so', 'omp_elf_2arch.o', 'bundle_text.ll', 'hip_rdc_archive.a'];
  for (let i = 0; (await page.locator('[role=tab]').count()) < 16; i++) await openSample(page, samples[i % samples.length]);
  const tabs = page.locator('[role=tab]');
  const rows = new Set(await tabs.evaluateAll((ts) => ts.map((t) => Math.round(t.getBoundingClientRect().top))));
  assert.ok(rows.size >= 2, 'the tabs wrap onto more rows');
  await shot(page, 'layout-many-tabs');
  const count = await tabs.count();
  for (let i = count - 1; i >= 0; i--) {
    const tab = tabs.nth(i);
    // A real mouse click at its centre (Playwright's click does not scroll here: all are visible).
    const b = await tab.boundingBox();
    assert.ok(b.y + b.height <= (await page.evaluate(() => innerHeight)) && b.x + b.width <= (await page.evaluate(() => innerWidth)));
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
    assert.equal(await tab.getAttribute('aria-selected'), 'true', `tab ${i}`);
  }
  assert.deepEqual(problems, []);
});
