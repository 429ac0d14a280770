// A package with thousands of device images in the page: a wheel built here from fixtures that
// clang and nvcc made (400 NVIDIA fatbins whose every entry is LZ4-compressed, 100 compressed
// clang offload bundles: 1,800 images), picked through the file input. While it is read, the
// progress panel counts members; then "Runs on" lists what `offload sizes --json` finds; the
// Kernels view says how many images the listing left undecoded, decodes them on request, and
// then holds exactly the kernels `offload kernels --json` finds, every row reachable by scrolling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, OFFLOAD, ROOT, must, sharedPage, shot } from '../support.mjs';

const WORK = join(ROOT, 'test-output', 'scale');
const WHEEL = join(WORK, 'many_images-1.0-py3-none-linux_x86_64.whl');

/** The wheel: members deflated, as pip's wheels are. */
function buildWheel() {
  mkdirSync(WORK, { recursive: true });
  const script = `
import sys, zipfile
nv = open(sys.argv[2], 'rb').read()
hip = open(sys.argv[3], 'rb').read()
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    for i in range(400):
        z.writestr(f'many_images/nv/kernels_{i:03}.fatbin', nv)
    for i in range(100):
        z.writestr(f'many_images/hip/kernels_{i:03}.hipfb', hip)
    z.writestr('many_images/__init__.py', '')
`;
  execFileSync('python3', ['-c', script, WHEEL, join(FIXTURES, 'nvidia/nv_3arch_lz4_all.fatbin'),
    join(FIXTURES, 'hip_elf_2arch_compressed.hipfb')]);
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

test('a wheel of 1,800 images: progress by member, then every target and every kernel the CLI finds', async () => {
  buildWheel();
  const { page } = shared;
  const cli = JSON.parse(must(OFFLOAD, ['kernels', '--json', WHEEL]));
  const images = JSON.parse(must(OFFLOAD, ['list', '--json', WHEEL])).targets.length;
  assert.ok(images >= 1000, `the wheel holds ${images} device images`);
  const expectedTargets = JSON.parse(must(OFFLOAD, ['sizes', '--json', WHEEL])).targets.map((t) => t.target);

  // What the progress panel says while the wheel is read, as it changes.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const status = document.querySelector('.progress-panel [role=status]');
      if (status) window.__progress.push(status.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  await (await chooser).setFiles(WHEEL);
  await page.locator('#tab-panel section.summary').waitFor({ timeout: 120_000 });
  const progress = await page.evaluate(() => window.__progress);
  assert.ok(progress.some((p) => /member [\d,]+ of [\d,]+, .* of .*/.test(p)), `progress by member: ${JSON.stringify(progress.slice(0, 5))}`);

  const shown = await page.locator('#tab-panel section.summary li.runs-on-line').evaluateAll((lis) => lis.map((li) => li.dataset.target));
  assert.deepEqual([...shown].sort(), [...expectedTargets].sort(), 'Runs on lists what offload sizes finds');

  // The listing decoded some images only: the count says so, and offers to decode the rest.
  const panel = page.locator('section.kernels-panel');
  const count = panel.locator('.kernels-count');
  assert.match(await count.textContent(), /in the decoded images; [\d,]+ device images? listed but not decoded/);
  await panel.getByRole('button', { name: 'Decode every image' }).click();
  await panel.locator('.kernels-count', { hasNotText: 'not decoded' }).waitFor({ timeout: 120_000 });
  const total = cli.kernels.length.toLocaleString('en-US');
  assert.equal(await count.textContent(), `${total} kernels across ${cli.targets.length} targets`);
  const columns = await panel.locator('th.kernel-target').allTextContents();
  assert.deepEqual(columns, cli.targets.map((t) => t.target));

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
  const kernel = lastKernelNode(JSON.parse(must(OFFLOAD, ['list', '--json', WHEEL])).root, 'gfx90a');
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
  assert.deepEqual(problems, []);
});
