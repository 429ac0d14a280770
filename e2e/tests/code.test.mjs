// The Code view: a code object's listing from the disassembler worker, which is loaded only when
// the view first opens. Checked against llvm-objdump 22 where the answer does not depend on how
// far the instruction decoders go (labels, where they start, the bytes of an instruction); where
// it does (a branch's link), against the page's own lines.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { LLVM_BIN, OFFLOAD, ROOT, dropFile, must, openPage, shot, startSite } from '../support.mjs';

const CODE_OBJECT = join(ROOT, 'tests/images/hip_kernels_gfx90a.co');
// Assembled with a known loop and register peak (tests/disasm/flow/loop_gfx900.s).
const LOOP_OBJECT = join(ROOT, 'tests/disasm/flow/loop_gfx900.co');
const problems = [];
let site;

before(async () => {
  site = await startSite();
});
after(async () => {
  await site?.browser.close();
  site?.server.close();
});

/** llvm-objdump's labels (`0000000000001e00 <name>:`) and branches (address, target label). */
function objdump() {
  const out = must(join(LLVM_BIN, 'llvm-objdump'), ['-d', CODE_OBJECT]);
  const labels = [...out.matchAll(/^([0-9a-f]{16}) <(.+)>:$/gm)].map((m) => ({ address: parseInt(m[1], 16), name: m[2] }));
  const branches = [...out.matchAll(/^\ts_c?branch\S* .*\/\/ ([0-9A-F]{12}): \S+ <(.+)>$/gm)]
    .map((m) => ({ address: parseInt(m[1], 16), target: m[2] }));
  return { labels, branches };
}

/** Where `.text` is in the file and in memory. */
function textSection() {
  const out = must(join(LLVM_BIN, 'llvm-readelf'), ['-S', '--wide', CODE_OBJECT]);
  const m = out.match(/\.text\s+PROGBITS\s+([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+)/);
  return { addr: parseInt(m[1], 16), offset: parseInt(m[2], 16), size: parseInt(m[3], 16) };
}

const selectedLine = (page) => page.locator('#code-list .code-line.selected');

test('the Code view lists a code object, linked with the hex view, and its worker loads only when it opens', async () => {
  // Without the service worker, which would fetch every file of the site in the background.
  const { context, page } = await openPage(site.browser, site.siteUrl, problems, { serviceWorkers: 'block' });
  const fetched = [];
  context.on('request', (r) => fetched.push(new URL(r.url()).pathname.split('/').pop()));
  try {
    await dropFile(page, CODE_OBJECT);
    await page.locator('[role=treeitem] > .row', { hasText: 'AMDGPU code object gfx90a' }).click();
    const code = page.getByRole('button', { name: 'Code', exact: true }).and(page.locator('.inspector button'));
    await code.waitFor();
    assert.deepEqual(fetched.filter((f) => f.startsWith('disasm')), [], 'exploring loads no disassembler');
    assert.equal(await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /disasm/.test(e.name)).length), 0);

    await code.click();
    const panel = page.locator('section.code-panel');
    const list = panel.locator('#code-list');
    await list.waitFor();
    // Opened on a code object, it takes the tab; restored, it sits in the centre column, and
    // with the summary and the layout map hidden it has room beside the hex view.
    await page.getByRole('button', { name: 'Restore the layout (Code maximised)' }).click();
    await page.locator('#pane-hex').waitFor();
    await list.waitFor();
    await page.keyboard.press('1');
    await page.keyboard.press('3');
    assert.ok(fetched.includes('disasm_worker.js') && fetched.includes('disasm_bg.wasm'), `opening Code loads the disassembler: ${fetched.join(' ')}`);

    // Every label llvm-objdump prints, in its order, offered to go to.
    const theirs = objdump();
    const labels = await panel.getByLabel('Go to label').locator('option').evaluateAll((os) => os.slice(1).map((o) => o.textContent));
    assert.deepEqual(labels, theirs.labels.map((l) => l.name));
    assert.ok(labels.includes('_Z10reduce_ldsPKiPi') && labels.includes('_Z9recursivePi'));

    // Only the rows on screen are in the page.
    const total = Number(await list.getAttribute('data-rows'));
    const drawn = await list.locator('.code-row').count();
    assert.ok(drawn > 5 && drawn < total, `${drawn} rows drawn of ${total}`);

    // The legend names every class, and the mix adds up.
    assert.deepEqual(await panel.locator('ul.code-legend li').allTextContents(),
      ['scalar ALU', 'vector ALU', 'scalar memory', 'vector memory', 'LDS', 'matrix', 'branch', 'wait', 'other', 'not decoded (.long)']);
    const percents = await panel.locator('.instruction-mix .mix-pct').allTextContents();
    const sum = percents.reduce((s, p) => s + parseFloat(p), 0);
    assert.ok(percents.length >= 1 && Math.abs(sum - 100) < 1, `mix: ${percents.join(' ')}`);

    // Going to a label shows it, its first line at its address.
    const last = theirs.labels.at(-1);
    await panel.getByLabel('Go to label').selectOption({ label: last.name });
    const label = list.locator(`.code-label[data-label="${last.name}"]`);
    await label.waitFor();
    assert.equal(parseInt(await selectedLine(page).getAttribute('data-address'), 16), last.address);

    // A kernel selected in the tree is scrolled to, and its mix is shown.
    const first = theirs.labels[0];
    await page.locator('[role=treeitem] > .row', { hasText: `kernel ${first.name}` }).click();
    await list.locator(`.code-label[data-label="${first.name}"]`).waitFor();
    assert.match(await panel.locator('.instruction-mix .mix-title').textContent(), new RegExp(`of ${first.name}:`));

    // Instruction → bytes: clicking a line highlights its bytes in the hex view.
    const text = textSection();
    const line = list.locator('.code-line').nth(3);
    await line.click();
    const offset = Number(await line.getAttribute('data-offset'));
    const size = Number(await line.getAttribute('data-size'));
    const address = parseInt(await line.getAttribute('data-address'), 16);
    assert.equal(offset, address - text.addr + text.offset, 'a line says where its bytes are');
    const marked = page.locator('#hex-grid .byte.in-mark');
    await marked.first().waitFor();
    assert.deepEqual((await marked.evaluateAll((bs) => bs.map((b) => Number(b.dataset.offset)))),
      Array.from({ length: size }, (_, i) => offset + i));
    assert.equal(Number(await page.locator('#hex-grid .byte.cursor').getAttribute('data-offset')), offset);

    // Keys move the selection.
    const next = Number(await line.getAttribute('data-line')) + 1;
    await list.focus();
    await page.keyboard.press('ArrowDown');
    await list.locator(`.code-line.selected[data-line="${next}"]`).waitFor();
    await page.keyboard.press('ArrowUp');
    await list.locator(`.code-line.selected[data-line="${next - 1}"]`).waitFor();

    // Byte → instruction: a byte clicked in the hex view selects the instruction holding it.
    const branch = theirs.branches[0];
    const at = branch.address - text.addr + text.offset;
    await page.locator('#goto-offset').fill(`0x${(at + 2).toString(16)}`);
    await page.locator('#goto-offset').press('Enter');
    await page.locator(`#hex-grid .byte[data-offset="${at + 2}"]`).click();
    await selectedLine(page).waitFor();
    assert.equal(parseInt(await selectedLine(page).getAttribute('data-address'), 16), branch.address);
    await shot(page, 'code-view');

    // A branch is a link to where it goes, once the decoders know it.
    const link = selectedLine(page).locator('a.code-target');
    if (await link.count()) {
      assert.equal(await link.textContent(), `<${branch.target}>`);
      const to = Number(await link.getAttribute('data-target-line'));
      await link.click();
      await list.locator(`.code-line.selected[data-line="${to}"]`).waitFor();
      const [name, plus] = branch.target.split('+');
      const base = theirs.labels.find((l) => l.name === name).address;
      assert.equal(parseInt(await selectedLine(page).getAttribute('data-address'), 16), base + (plus ? parseInt(plus, 16) : 0));
    } else {
      assert.match(await selectedLine(page).locator('.code-text').textContent(), /^\.long 0x|^s_c?branch/);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/** What `offload disasm --cfg --pressure --json` says of the one kernel of `file`. */
function cliFlow(file) {
  const doc = JSON.parse(must(OFFLOAD, ['disasm', '--cfg', '--pressure', '--json', file]));
  assert.equal(doc.images.length, 1);
  assert.equal(doc.images[0].functions.length, 1);
  return doc.images[0].functions[0];
}

/** The bytes of the instruction at `address` as llvm-objdump prints its words (little-endian
 * dwords), lower-case hex. */
function objdumpBytes(file, address) {
  const out = must(join(LLVM_BIN, 'llvm-objdump'), ['-d', file]);
  const m = out.match(new RegExp(`// ${address.toString(16).toUpperCase().padStart(12, '0')}: ((?:[0-9A-F]{8} ?)+)`));
  assert.ok(m, `llvm-objdump prints an instruction at ${address.toString(16)}`);
  return m[1].trim().split(' ').flatMap((w) => [6, 4, 2, 0].map((i) => w.slice(i, i + 2).toLowerCase()));
}

test('the Code view outlines the blocks and loops the CLI finds, and a click on the pressure peak selects its instruction and bytes', async () => {
  const theirs = cliFlow(LOOP_OBJECT);
  const { context, page } = await openPage(site.browser, site.siteUrl, problems, { serviceWorkers: 'block' });
  try {
    await dropFile(page, LOOP_OBJECT);
    await page.locator('[role=treeitem] > .row', { hasText: 'AMDGPU code object gfx900' }).click();
    await page.locator('.inspector button', { hasText: 'Code' }).click();
    const panel = page.locator('section.code-panel');
    const outline = panel.locator('#code-blocks');
    await outline.locator('.flow-block').first().waitFor();
    // Beside the hex view, to see the bytes a click selects.
    await page.getByRole('button', { name: 'Restore the layout (Code maximised)' }).click();
    await page.locator('#pane-hex').waitFor();
    await outline.locator('.flow-block').first().waitFor();

    // Every block the CLI finds, with its range, its loop (header address and depth), whether
    // it heads a loop and whether it is reachable.
    const { blocks, loops } = theirs.cfg;
    const shown = await outline.locator('.flow-block').evaluateAll((rows) => rows.map((r) => ({
      address: parseInt(r.dataset.address, 16),
      end: parseInt(r.dataset.end, 16),
      loop: r.dataset.loop === undefined ? null : parseInt(r.dataset.loop, 16),
      depth: Number(r.dataset.loopDepth),
      header: r.classList.contains('loop-header'),
      reachable: !r.classList.contains('unreachable'),
    })));
    assert.deepEqual(shown, blocks.map((b, i) => ({
      address: b.address, end: b.end, loop: b.loop, depth: b.loop_depth,
      header: loops.some((l) => l.header === i), reachable: b.reachable,
    })));
    assert.ok(loops.length >= 1, 'the fixture has a loop');
    const edges = blocks.reduce((n, b) => n + b.successors.length, 0);
    const unreachable = blocks.filter((b) => !b.reachable).length;
    assert.equal(await panel.locator('.flow-facts').textContent(),
      `${blocks.length} blocks, ${edges} edges, ${loops.length} loop${loops.length === 1 ? '' : 's'}, ${unreachable} unreachable`);
    const header = outline.locator(`.flow-block[data-block="${loops[0].header}"]`);
    assert.match(await header.locator('.flow-loop').textContent(), new RegExp(`header, depth ${blocks[loops[0].header].loop_depth}`));

    // The pressure line reads as the CLI prints it, and the strip is drawn.
    const summary = panel.locator('button.pressure-summary');
    assert.equal(await summary.textContent(), theirs.pressure.summary);
    const strip = panel.locator('svg.pressure-strip');
    const bars = await strip.locator('rect.pressure-bar').count();
    assert.equal(bars, Math.min(theirs.instructions, 320), 'a bar per instruction, up to the strip\'s width');
    const box = await strip.boundingBox();
    assert.ok(box.width > 100 && box.height > 10, `the strip is drawn (${box.width}x${box.height})`);

    // A click on the peak in the strip selects the instruction at the CLI's peak, shows its live
    // count in the pressure column and its bytes in the hex view.
    const peak = theirs.pressure.peak.vgprs;
    await strip.locator('rect.pressure-peak').click();
    const selected = panel.locator('#code-list .code-line.selected');
    await selected.waitFor();
    assert.equal(parseInt(await selected.getAttribute('data-address'), 16), peak.address);
    assert.equal(Number(await selected.locator('.live-v').textContent()), peak.count);
    const offset = Number(await selected.getAttribute('data-offset'));
    const bytes = objdumpBytes(LOOP_OBJECT, peak.address);
    const marked = page.locator('#hex-grid .byte.in-mark');
    await marked.first().waitFor();
    assert.deepEqual(await marked.evaluateAll((bs) => bs.map((b) => Number(b.dataset.offset))),
      bytes.map((_, i) => offset + i));
    assert.deepEqual(await marked.allTextContents(), bytes, 'the hex view shows the instruction\'s bytes');
    // The peak's block is marked in the outline; the strip marks the selection.
    const peakBlock = blocks.findIndex((b) => b.address <= peak.address && peak.address < b.end);
    await outline.locator(`.flow-block.selected[data-block="${peakBlock}"]`).waitFor();
    await strip.locator('rect.pressure-cursor').waitFor();
    await shot(page, 'code-view-flow');

    // An edge jumps to the block it goes to.
    const jump = blocks.findIndex((b) => b.successors.some((e) => e.block !== null && e.block !== peakBlock));
    const to = blocks[jump].successors.find((e) => e.block !== null && e.block !== peakBlock).block;
    await outline.locator(`.flow-block[data-block="${jump}"] button.flow-edge[data-to="${to}"]`).click();
    await panel.locator(`#code-list .code-line.selected[data-address="${blocks[to].address.toString(16)}"]`).waitFor();

    // The line's peak selects it again.
    await summary.click();
    await panel.locator(`#code-list .code-line.selected[data-address="${peak.address.toString(16)}"]`).waitFor();

    // Folding a block leaves its first line and one row for the rest; unfolding gives them back.
    const list = panel.locator('#code-list');
    const rows = Number(await list.getAttribute('data-rows'));
    const last = blocks.length - 1;
    await outline.getByRole('button', { name: `Fold block ${last}` }).click();
    const folded = list.locator('.code-folded');
    await folded.waitFor();
    assert.equal(await folded.textContent(), `… ${blocks[last].instructions - 1} more instructions folded`);
    assert.equal(Number(await list.getAttribute('data-rows')), rows - blocks[last].instructions + 2);
    await folded.click();
    await folded.waitFor({ state: 'detached' });
    assert.equal(Number(await list.getAttribute('data-rows')), rows);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/** How many rows of the listing are wholly on screen. */
function rowsOnScreen(list) {
  return list.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return [...el.querySelectorAll('.code-row')].filter((r) => {
      const b = r.getBoundingClientRect();
      return b.height > 0 && b.top >= box.top && b.bottom <= box.bottom;
    }).length;
  });
}

test('opened with the default views, the Code view gives its listing most of the window', async () => {
  const viewport = { width: 1280, height: 800 };
  const { context, page } = await openPage(site.browser, site.siteUrl, problems, { serviceWorkers: 'block', viewport });
  try {
    await dropFile(page, CODE_OBJECT);
    await page.locator('[role=treeitem] > .row', { hasText: 'AMDGPU code object gfx90a' }).click();
    await page.keyboard.press('7');
    const list = page.locator('section.code-panel #code-list');
    await list.locator('.code-line').first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('#code-list .code-row').length >= 20);
    const shown = await rowsOnScreen(list);
    const { height } = await list.boundingBox();
    assert.ok(shown >= 20, `${shown} rows of the listing on screen (${height} px of ${viewport.height})`);
    assert.ok(height > viewport.height / 2, `the listing is ${height} px tall in a window of ${viewport.height}`);
    await shot(page, 'code-view-opened');

    // Until it is restored: then it is in the centre column again, the other views beside it.
    await page.keyboard.press('m');
    await page.locator('#pane-tree').waitFor();
    await page.locator('#pane-hex').waitFor();
    // The listing made for the maximised view is kept, not asked of the worker again.
    assert.equal(await list.count(), 1, 'the listing is there at once');
    // Or hidden: 7 hides it, and 7 again opens it as at first.
    await page.keyboard.press('7');
    await page.locator('section.code-panel').waitFor({ state: 'detached' });
    await page.keyboard.press('7');
    await page.locator('#pane-tree').waitFor({ state: 'detached' });
    await list.locator('.code-line').first().waitFor();
    assert.ok(await rowsOnScreen(list) >= 20);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a cubin says why it is not disassembled and where its resources are', async () => {
  const { context, page } = await openPage(site.browser, site.siteUrl, problems, { serviceWorkers: 'block' });
  try {
    await dropFile(page, join(ROOT, 'tests/images/cuda_kernels_sm80.cubin'));
    await page.locator('[role=treeitem] > .row', { hasText: 'CUDA cubin sm_80' }).click();
    await page.locator('.inspector button', { hasText: 'Code' }).click();
    const note = page.locator('section.code-panel .code-cubin');
    await note.waitFor();
    assert.match(await note.textContent(), /SASS\) has no public encoding/);
    await note.getByRole('button', { name: 'Kernels view' }).click();
    await page.locator('section.kernels-panel').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('PTX is shown by function', async () => {
  const { context, page } = await openPage(site.browser, site.siteUrl, problems, { serviceWorkers: 'block' });
  try {
    await dropFile(page, join(ROOT, 'tests/images/cuda_kernels_sm80.ptx'));
    await page.locator('[role=treeitem] > .row', { hasText: 'kernel lds' }).click();
    await page.locator('.inspector button', { hasText: 'Code' }).click();
    const functions = page.locator('section.code-panel nav.ptx-functions button');
    await functions.first().waitFor();
    assert.ok((await functions.allTextContents()).includes('lds'));
    // The kernel selected is scrolled to: its .entry line is on screen.
    await page.locator('#ptx-list .ptx-line', { hasText: '.entry lds' }).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
