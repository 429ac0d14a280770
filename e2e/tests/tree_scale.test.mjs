// The tree of a framework-sized wheel in the page: 12,000 small Python files and three members
// with device code (a HIP object and two NVIDIA fatbins from the fixtures), built here and picked
// through the file input. Under the package the members with device code come first, in package
// order, and the others wait behind one closed "12,000 other members" row, as `offload list`
// lists the first and counts the others. Opened, scrolling the tree reaches the last member with
// only the rows around the view in the page; its filter narrows the members; the keys walk the
// rows as shown; a member selected from the hex view opens the group to show its row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, OFFLOAD, ROOT, must, sharedPage, shot } from '../support.mjs';

const WORK = join(ROOT, 'test-output', 'tree-scale');
const WHEEL = join(WORK, 'framework-1.0-py3-none-linux_x86_64.whl');
const SMALL_FILES = 12000;
/** Far fewer rows than the group holds are ever in the page at once. */
const MOST_ROWS_DRAWN = 300;

/** The wheel, deflated as pip's are: the device members at zip positions 4,000 and 9,000 and at
 * the end, among `SMALL_FILES` one-line Python files. */
function buildWheel() {
  mkdirSync(WORK, { recursive: true });
  const script = `
import sys, zipfile
out, small, hip, nv_size, nv_none = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
device = {4000: ('framework/_C/hip_kernels.o', hip), 9000: ('framework/cuda/kernels_size.fatbin', nv_size)}
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    for i in range(small):
        if i in device:
            name, path = device[i]
            z.writestr(name, open(path, 'rb').read())
        z.writestr(f'framework/mod_{i:05}.py', f'VALUE = {i}\\n')
    z.writestr('framework/cuda/kernels_none.fatbin', open(nv_none, 'rb').read())
`;
  execFileSync('python3', ['-c', script, WHEEL, String(SMALL_FILES), join(FIXTURES, 'hip_elf_2arch_compressed.o'),
    join(FIXTURES, 'nvidia/nv_3arch_size.fatbin'), join(FIXTURES, 'nvidia/nv_3arch_none.fatbin')]);
}

/** The package's members as the CLI lists them: those with a device image below, and the others. */
function membersOf(root) {
  const hasImage = (n) => n.kind === 'image' || (n.children ?? []).some(hasImage);
  const pkg = root.children.find((c) => c.kind === 'package');
  assert.ok(pkg, 'the wheel is a package');
  return { pkg, device: pkg.children.filter(hasImage), others: pkg.children.filter((m) => !hasImage(m)) };
}

/** The tree's rows in the page, top to bottom: only those drawn. */
function drawnRows(page) {
  return page.locator('#tree [role=treeitem]').evaluateAll((items) => items.map((li) => ({
    id: li.id,
    level: Number(li.getAttribute('aria-level')),
    position: Number(li.getAttribute('aria-posinset')),
    size: Number(li.getAttribute('aria-setsize')),
    expanded: li.getAttribute('aria-expanded'),
    label: li.querySelector(':scope > .row .label').textContent,
  })));
}

/** Waits until the last row drawn is `label`. */
async function waitLastRow(page, label) {
  await page.waitForFunction((want) => {
    const items = document.querySelectorAll('#tree [role=treeitem]');
    return items.length > 0 && items[items.length - 1].querySelector(':scope > .row .label').textContent === want;
  }, label);
}

const problems = [];
const shared = sharedPage(problems);

test('a wheel of 12,003 members: device members first, the others behind one row that opens, scrolls and filters', async () => {
  buildWheel();
  const { page } = shared;
  const { device, others } = membersOf(JSON.parse(must(OFFLOAD, ['list', '--json', WHEEL])).root);
  assert.deepEqual(device.map((m) => m.fields.name),
    ['framework/_C/hip_kernels.o', 'framework/cuda/kernels_size.fatbin', 'framework/cuda/kernels_none.fatbin']);
  assert.equal(others.length, SMALL_FILES);

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  await (await chooser).setFiles(WHEEL);
  await page.locator('#tab-panel section.summary').waitFor({ timeout: 120_000 });
  const tree = page.locator('#tree');

  // The package's rows: its device members, in package order, then the group row, closed.
  let rows = await drawnRows(page);
  const pkgAt = rows.findIndex((r) => r.label.startsWith('zip package'));
  assert.ok(pkgAt >= 0, 'the package has a row');
  const memberLevel = rows[pkgAt].level + 1;
  const children = rows.slice(pkgAt + 1).filter((r) => r.level === memberLevel);
  const groupLabel = `${others.length.toLocaleString('en-US')} other members`;
  assert.deepEqual(children.map((r) => r.label), [...device.map((m) => m.label), groupLabel]);
  assert.deepEqual(children.map((r) => [r.position, r.size]), [[1, 4], [2, 4], [3, 4], [4, 4]]);
  const group = children.at(-1);
  assert.equal(group.expanded, 'false', 'the group starts closed');
  assert.ok(rows.length < 100, `${rows.length} rows before the group is opened`);
  await shot(page, 'tree-scale-closed');

  // Opened: every other member, one level deeper, in package order; the tree scrolls to the last
  // one with only the rows around the view drawn.
  await page.locator(`#${group.id} [data-toggle-others]`).click();
  await page.locator(`#${group.id}[aria-expanded=true]`).waitFor();
  assert.equal(Number(await tree.getAttribute('data-rows')), rows.length + others.length);
  rows = await drawnRows(page);
  assert.ok(rows.length < MOST_ROWS_DRAWN, `${rows.length} rows drawn with the group open`);
  const groupAt = rows.findIndex((r) => r.id === group.id);
  assert.deepEqual(rows.slice(groupAt + 1, groupAt + 6).map((r) => r.label), others.slice(0, 5).map((m) => m.label));
  assert.ok(rows.slice(groupAt + 1).every((r) => r.level === memberLevel + 1 && r.size === others.length));

  await tree.evaluate((el) => { el.scrollTop = el.scrollHeight / 2; });
  await page.waitForFunction(() => !document.getElementById('tree').textContent.includes('zip package'));
  rows = await drawnRows(page);
  assert.ok(rows.length < MOST_ROWS_DRAWN, `${rows.length} rows drawn half way down`);
  const labels = others.map((m) => m.label);
  const from = labels.indexOf(rows[0].label);
  assert.ok(from > 0, `the middle of the group is drawn: ${rows[0].label}`);
  assert.deepEqual(rows.map((r) => r.label), labels.slice(from, from + rows.length), 'drawn rows are consecutive members');

  await tree.evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await waitLastRow(page, others.at(-1).label);
  rows = await drawnRows(page);
  assert.ok(rows.length < MOST_ROWS_DRAWN, `${rows.length} rows drawn at the bottom`);
  assert.deepEqual([rows.at(-1).position, rows.at(-1).size], [others.length, others.length]);
  const last = await page.locator('#tree [role=treeitem]').last().boundingBox();
  const box = await tree.boundingBox();
  assert.ok(last.y >= box.y && last.y + last.height <= box.y + box.height + 1, 'the last member is in view');
  await shot(page, 'tree-scale-bottom');

  // The filter narrows the group to the members whose name holds the text, in any case.
  await tree.evaluate((el) => { el.scrollTop = 0; });
  const filter = page.getByRole('searchbox', { name: 'Filter other members' });
  await filter.fill('MOD_0999');
  const matching = others.filter((m) => m.fields.name.toLowerCase().includes('mod_0999'));
  assert.equal(matching.length, 10);
  await page.locator(`#${group.id} .others-shown`, { hasText: '10 shown' }).waitFor();
  await waitLastRow(page, matching.at(-1).label);
  rows = await drawnRows(page);
  const inGroup = rows.slice(rows.findIndex((r) => r.id === group.id) + 1);
  assert.deepEqual(inGroup.map((r) => r.label), matching.map((m) => m.label));
  assert.ok(inGroup.every((r) => r.size === matching.length));

  // The keys walk the rows as shown: the group row, then its filtered members.
  await page.locator(`#${group.id} > .row .label`).click();
  assert.equal(await tree.getAttribute('aria-activedescendant'), group.id);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tree');
  const selectedLabel = () => page.locator('[role=treeitem][aria-selected=true] > .row .label').textContent();
  await page.keyboard.press('ArrowDown');
  assert.equal(await selectedLabel(), matching[0].label);
  await page.keyboard.press('End');
  assert.equal(await selectedLabel(), matching.at(-1).label);
  const active = await tree.getAttribute('aria-activedescendant');
  assert.equal(await page.locator(`#${active} > .row .label`).textContent(), matching.at(-1).label);
  // Left goes to the group row, Left again closes it.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.locator(`#${group.id}[aria-expanded=false]`).waitFor();
  assert.ok((await drawnRows(page)).length < 100, 'closed, the group draws no member');

  // A member the filter hid, picked from the hex view ("go to offset" on its header), opens the
  // group, clears the filter and is scrolled into view in the tree.
  const hidden = others[5000];
  await page.locator('#goto-offset').fill(`0x${hidden.offset.toString(16)}`);
  await page.keyboard.press('Enter');
  await page.locator('.inspector .node-label', { hasText: hidden.fields.name }).waitFor();
  assert.equal(await selectedLabel(), hidden.label);
  assert.equal(await page.locator('#tree [role=treeitem][aria-selected=true]').getAttribute('aria-posinset'), '5001');
  const row = await page.locator('#tree [role=treeitem][aria-selected=true]').boundingBox();
  const view = await tree.boundingBox();
  const where = await tree.evaluate((el) => ({ top: el.scrollTop, height: el.clientHeight, scrollHeight: el.scrollHeight, rows: el.dataset.rows }));
  assert.ok(row.y >= view.y && row.y + row.height <= view.y + view.height + 1, `the selected member is in view: ${JSON.stringify({ row, view, where })}`);
  // The group row, far above it now, is open.
  await tree.evaluate((el) => { el.scrollTop = 0; });
  await page.locator(`#${group.id}[aria-expanded=true]`).waitFor();
  assert.equal(await filter.inputValue(), '', 'the filter that hid it is cleared');
  assert.ok((await drawnRows(page)).length < MOST_ROWS_DRAWN);
  await shot(page, 'tree-scale-selected');
  assert.deepEqual(problems, []);
});
