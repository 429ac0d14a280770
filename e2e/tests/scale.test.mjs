// A package at a framework's scale: a wheel of 12,500 members built here from fixtures that
// clang and nvcc made (12,000 small Python sources, then 400 NVIDIA fatbins whose every entry is
// LZ4-compressed and 100 compressed clang offload bundles: 1,800 images; scripts/scale_wheel.py),
// picked through the file input. Within 2 s the progress panel counts members and bytes, which
// grow; the first targets show before the end; then "Runs on" lists what `offload sizes --json`
// finds and the Kernels view holds exactly the kernels `offload kernels --json` finds, without a
// click, every row reachable by scrolling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, OFFLOAD, ROOT, must, sharedPage, shot } from '../support.mjs';

const WORK = join(ROOT, 'test-output', 'scale');
const WHEEL = join(WORK, 'scale-1.0-py3-none-linux_x86_64.whl');

function buildWheel() {
  mkdirSync(WORK, { recursive: true });
  execFileSync('python3', [join(ROOT, 'scripts', 'scale_wheel.py'), WHEEL]);
}

/** The last kernel node of the CLI's tree in an image for `target`. */
function lastKernelNode(root, target) {
  let found = null;
  const walk = (n, image) => {
    const here = n.kind === 'image' ? n : image;
    if (n.kind === 'kernel' && here?.fields.target_id === target) found = n;
    for (const c of n.children ?? []) walk(c, here);
  };
  walk(root, null);
  assert.ok(found, `a ${target} kernel in the CLI's tree`);
  return found;
}

const problems = [];
const shared = sharedPage(problems);

test('a wheel of 12,500 members: progress at once, first targets early, every kernel the CLI finds without a click', async () => {
  buildWheel();
  const { page } = shared;
  const cli = JSON.parse(must(OFFLOAD, ['kernels', '--json', WHEEL]));
  // --verify: every image decoded, as the page decodes a package's.
  const listed = JSON.parse(must(OFFLOAD, ['list', '--json', '--verify', WHEEL]));
  assert.ok(listed.targets.length >= 1000, `the wheel holds ${listed.targets.length} device images`);
  const expectedTargets = JSON.parse(must(OFFLOAD, ['sizes', '--json', WHEEL])).targets.map((t) => t.target);

  // What the progress panel says while the wheel is read, as it changes, and when.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const status = document.querySelector('.progress-panel [role=status]');
      const found = document.querySelectorAll('.progress-panel .found-so-far li.runs-on-line').length;
      const summary = !!document.querySelector('#tab-panel section.summary');
      if (status) window.__progress.push({ at: Date.now(), text: status.textContent, found, summary });
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  const picked = Date.now();
  await (await chooser).setFiles(WHEEL);
  await page.locator('#tab-panel section.summary').waitFor({ timeout: 120_000 });
  const done = Date.now();
  const progress = await page.evaluate(() => window.__progress);
  const members = Number(execFileSync('python3', ['-c', 'import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).infolist()))', WHEEL]));
  const ofAll = new RegExp(`member [\\d,]+ of ${members.toLocaleString('en-US')}, .* of .*`);
  const byMember = progress.filter((p) => ofAll.test(p.text));
  assert.ok(byMember.length, `progress by member: ${JSON.stringify(progress.slice(0, 5))}`);
  assert.ok(byMember[0].at - picked <= 2000, `the member count showed ${byMember[0].at - picked} ms after the pick`);
  const bytes = byMember.map((p) => p.text.match(/member [\d,]+ of [\d,]+, (.*) of/)[1]);
  assert.ok(new Set(bytes).size >= 2, `the bytes read grow: ${JSON.stringify(bytes)}`);
  const firstFound = progress.find((p) => p.found > 0);
  assert.ok(firstFound && firstFound.at < done, 'targets found so far are shown before the whole wheel is read');

  const shown = await page.locator('#tab-panel section.summary li.runs-on-line').evaluateAll((lis) => lis.map((li) => li.dataset.target));
  assert.deepEqual([...shown].sort(), [...expectedTargets].sort(), 'Runs on lists what offload sizes finds');

  // Every image was decoded while the wheel was read: the count is the CLI's, without a click.
  const panel = page.locator('section.kernels-panel');
  const count = panel.locator('.kernels-count');
  const total = cli.kernels.length.toLocaleString('en-US');
  assert.equal(await count.textContent(), `${total} kernels across ${cli.targets.length} targets`);
  assert.equal(await panel.getByRole('button', { name: 'Decode every image' }).count(), 0);
  const columns = await panel.locator('th.kernel-target').allTextContents();
  assert.deepEqual(columns, cli.targets.map((t) => t.target));

  // The tree: the members with device code first, in package order, then the others behind
  // one row; opened, the tree scrolls to the last member (tree_scale.test.mjs checks the rest).
  const hasImage = (n) => n.kind === 'image' || (n.children ?? []).some(hasImage);
  const pkg = listed.root.children.find((c) => c.kind === 'package');
  const device = pkg.children.filter(hasImage);
  const others = pkg.children.filter((m) => !hasImage(m));
  const rows = await page.locator('#tree [role=treeitem]').evaluateAll((items) => items.map((li) => ({
    level: Number(li.getAttribute('aria-level')), label: li.querySelector(':scope > .row .label').textContent })));
  const pkgAt = rows.findIndex((r) => r.label.startsWith('zip package'));
  const memberRows = rows.slice(pkgAt + 1).filter((r) => r.level === rows[pkgAt].level + 1).map((r) => r.label);
  assert.deepEqual(memberRows.slice(0, 3), device.slice(0, 3).map((m) => m.label), 'device members first');
  // Closed, the group row is the package's last row: scrolled to, then opened.
  await page.locator('#tree').evaluate((el) => { el.scrollTop = el.scrollHeight; });
  const group = page.locator('#tree [role=treeitem]', { hasText: `${others.length.toLocaleString('en-US')} other members` });
  await group.locator('[data-toggle-others]').click();
  await page.locator('#tree').evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await page.waitForFunction((want) => {
    const items = document.querySelectorAll('#tree [role=treeitem]');
    return items.length > 0 && items[items.length - 1].querySelector(':scope > .row .label').textContent === want;
  }, others.at(-1).label);

  // Only the rows in view are drawn, and scrolling reaches the last kernel.
  const drawn = await panel.locator('tbody tr[data-kernel]').count();
  assert.ok(drawn > 0 && drawn < cli.kernels.length, `${drawn} of ${cli.kernels.length} rows drawn`);
  await panel.locator('.table-scroll').evaluate((el) => { el.scrollTop = el.scrollHeight; });
  const last = panel.locator('tbody tr[data-kernel]').last();
  await page.waitForFunction((name) => {
    const rows = document.querySelectorAll('section.kernels-panel tbody tr[data-kernel]');
    return rows.length && rows[rows.length - 1].dataset.kernel === name;
  }, cli.kernels.at(-1).name);
  assert.equal(await last.getAttribute('data-kernel'), cli.kernels.at(-1).name);
  await shot(page, 'scale-kernels');

  // The page dropped the bytes of the wheel's members once explored; selecting the last
  // member's gfx90a kernel finds them again: the hex view shows that kernel's bytes, as
  // `offload decompress` gives the compressed bundle they are in.
  const kernel = lastKernelNode(listed.root, 'gfx90a');
  await last.locator('button[aria-label^="regs of"][aria-label$="on gfx90a: ' + kernel.fields.vgpr_count + '"]').click();
  const highlighted = `#hex-grid[data-space="${kernel.space}"] .hex-bytes .byte.in-node`;
  await page.waitForFunction(
    ([sel, off]) => document.querySelector(sel)?.dataset.offset === String(off) && document.querySelector(sel).textContent !== '··',
    [highlighted, kernel.offset], { timeout: 60_000 },
  );
  const shownBytes = await page.locator(highlighted).evaluateAll((cs) => cs.slice(0, 16).map((c) => parseInt(c.textContent, 16)));
  const decompressed = join(WORK, 'bundle.hipfb');
  must(OFFLOAD, ['decompress', '--output', decompressed, join(FIXTURES, 'hip_elf_2arch_compressed.hipfb')]);
  assert.deepEqual(shownBytes, [...readFileSync(decompressed).subarray(kernel.offset, kernel.offset + 16)]);
  // With 3,600 kernel nodes, the page's document has their names only: the inspector asks the
  // explorer for the rest, and shows the kernel's fields as the CLI lists them.
  const vgprs = page.locator('.inspector tr[data-field="vgpr_count"] td.value');
  await vgprs.waitFor({ timeout: 30_000 });
  assert.match(await vgprs.textContent(), new RegExp(`^${kernel.fields.vgpr_count}\\b`));
  assert.equal(await page.locator('.inspector tr[data-field]').count(), Object.keys(kernel.fields).length);
  assert.deepEqual(problems, []);
});
