// Whole packages in the page: a ROCm wheel and a CUDA wheel from PyPI (cached by the CLI's
// package tests in ~/.cache/offload-explorer/wheels or $OFFLOAD_WHEEL_CACHE) opened through the
// file input, as a user would pick them. The "Runs on" summary must list the targets `offload
// sizes --json` finds in the same wheel (AMD ones for the ROCm wheel, NVIDIA ones for the CUDA
// wheel), with no page error. The time from picking to the explored summary is printed. Every
// kernel name the page shows for a CUDA, a ROCm and a SYCL wheel is llvm-cxxfilt's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, LLVM_BIN, OFFLOAD, cliList, dropFile, must, openPage, pageTargets, run, sharedPage, shot } from '../support.mjs';

const CACHE = process.env.OFFLOAD_WHEEL_CACHE ?? join(homedir(), '.cache/offload-explorer/wheels');
const WHEELS = [
  ['cupy_rocm_4_3-13.3.0-cp311-cp311-manylinux2014_x86_64.whl', 'AMD'],
  ['nvidia_curand_cu12-10.3.5.147-py3-none-manylinux2014_x86_64.whl', 'NVIDIA'],
];

const problems = [];
const shared = sharedPage(problems);

test('wheels picked through the file input show their AMD and NVIDIA targets under "Runs on"', async (t) => {
  const { page } = shared;
  const present = WHEELS.filter(([w]) => existsSync(join(CACHE, w)));
  if (present.length === 0) {
    t.skip(`no wheels in ${CACHE} (the CLI's package tests download them; offline?)`);
    return;
  }
  for (const [wheel, vendor] of present) {
    const path = join(CACHE, wheel);
    const expected = JSON.parse(must(OFFLOAD, ['sizes', '--json', path])).targets.map((x) => x.target);
    assert.ok(expected.length > 0, `${wheel}: the CLI finds targets`);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open file…' }).click();
    const started = Date.now();
    await (await chooser).setFiles(path);
    // A ROCm wheel holds about 110,000 nodes (kernels and their arguments): exploring takes
    // seconds, drawing the views more, so this waits longer than a fixture's drop does.
    await page.locator('[role=tab][aria-selected=true]', { hasText: wheel }).waitFor();
    await page.locator('#tab-panel section.summary').waitFor({ timeout: 180_000 });
    const lines = page.locator('.runs-on-vendor', { has: page.locator('.runs-on-vendor-name', { hasText: vendor }) }).locator('li.runs-on-line');
    await lines.first().waitFor();
    const ms = Date.now() - started;
    const shown = await lines.evaluateAll((lis) => lis.map((li) => li.dataset.target));
    assert.deepEqual([...shown].sort(), [...expected].sort(), `${wheel}: Runs on lists the targets offload sizes finds`);
    console.log(`${wheel}: ${shown.length} ${vendor} targets under "Runs on", ${ms} ms from picking the file to the summary`);
    await shot(page, `package-${vendor.toLowerCase()}`);
  }
  assert.deepEqual(problems, []);
});

test('the page binary explores in its workers and is fetched once; packages by their name or their bytes', async () => {
  // Without the service worker, which would fetch every file of the site in the background.
  const from = shared.site.served.length;
  const own = await openPage(shared.site.browser, shared.site.siteUrl, problems, { serviceWorkers: 'block' });
  const targetsOf = (path) => cliList(path).targets.map((t) => t.target_id);
  try {
    const host = join(FIXTURES, 'hip_elf_2arch.o');
    await dropFile(own.page, host);
    assert.deepEqual(await pageTargets(own.page), targetsOf(host), 'a host file');
    const deb = join(FIXTURES, 'packages/gpu-libs_1.0_amd64.deb');
    await dropFile(own.page, deb);
    assert.deepEqual(await pageTargets(own.page), targetsOf(deb), 'a .deb');
    const tarGz = join(FIXTURES, 'packages/pkg.tar.gz');
    await dropFile(own.page, tarGz, 'libraries.bin');
    assert.deepEqual(await pageTargets(own.page), targetsOf(tarGz), 'a .tar.gz under another name');
    await shot(own.page, 'package-by-its-bytes');

    // The page and each of its three explorer workers run the same binary: the server sends its
    // wasm once, for the page, which hands each worker the module it compiled.
    const sent = (name) => shared.site.served.slice(from).filter((r) => r.path.endsWith(`/${name}`)).map((r) => r.status);
    assert.deepEqual(sent('app_bg.wasm'), [200], 'the binary is sent once');
    assert.equal(sent('explorer.js').length, 3, 'three explorer workers were started');

    // Comparing is the editor's work, started by the explorer of the tab compared.
    const r = run(OFFLOAD, ['diff', '--json', deb, tarGz]);
    assert.ok(r.status === 0 || r.status === 1, `offload diff: ${r.stderr}`);
    const theirs = JSON.parse(r.stdout);
    await own.page.getByLabel('Compare with').selectOption({ label: 'gpu-libs_1.0_amd64.deb' });
    await own.page.getByRole('button', { name: 'Compare', exact: true }).click();
    const verdict = own.page.locator('section.compare-panel .compare-verdict');
    await verdict.waitFor();
    const differing = theirs.images.filter((i) => i.equal !== true).length;
    assert.equal(await verdict.textContent(), theirs.equal
      ? 'Equal: the same targets, and every device image the same byte for byte.'
      : `Different: ${theirs.targets.added.length} added, ${theirs.targets.removed.length} removed, ` +
        `${theirs.targets.common.length} common; ${differing} of ${theirs.images.length} images differ.`);
    assert.deepEqual(sent('editor_bg.wasm'), [200], 'the explorer started the editor');
  } finally {
    await own.context.close();
  }
  assert.deepEqual(problems, []);
});

// Every kernel name of real CUDA, ROCm and SYCL wheels, as the page's Kernels view shows it,
// is what llvm-cxxfilt 22 prints for its mangled name: the page demangles with LLVM's own
// demangler compiled to wasm32, as the CLI does natively.
const NAMED_WHEELS = [
  'cupy_rocm_4_3-13.3.0-cp311-cp311-manylinux2014_x86_64.whl',
  'nvidia_curand_cu12-10.3.5.147-py3-none-manylinux2014_x86_64.whl',
  'onemkl_sycl_stats-2026.2.0-py2.py3-none-manylinux_2_28_x86_64.whl',
];

/** Every row of the (virtualised) Kernels table, scrolled through: mangled name → shown name. */
async function allKernelNames(page) {
  const panel = page.locator('section.kernels-panel');
  await panel.locator('tbody tr[data-kernel]').first().waitFor();
  return panel.locator('.table-scroll').evaluate(async (scroller) => {
    const names = {};
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    scroller.scrollTop = 0;
    for (;;) {
      await frame();
      for (const tr of scroller.querySelectorAll('tbody tr[data-kernel]')) {
        names[tr.dataset.kernel] = tr.querySelector('button.kernel-name').textContent;
      }
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) return names;
      scroller.scrollTop += Math.max(1, Math.floor(scroller.clientHeight * 0.8));
    }
  });
}

test('kernel names in the page are what llvm-cxxfilt prints, for CUDA, ROCm and SYCL wheels', async (t) => {
  const { page } = shared;
  const present = NAMED_WHEELS.filter((w) => existsSync(join(CACHE, w)));
  if (present.length === 0) {
    t.skip(`no wheels in ${CACHE} (the CLI's tests download them; offline?)`);
    return;
  }
  for (const wheel of present) {
    const path = join(CACHE, wheel);
    const mangled = [...new Set(JSON.parse(must(OFFLOAD, ['kernels', '--json', path])).kernels.map((k) => k.name))];
    const want = must(join(LLVM_BIN, 'llvm-cxxfilt'), [], { input: mangled.join('\n') + '\n' }).trimEnd().split('\n');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open file…' }).click();
    await (await chooser).setFiles(path);
    await page.locator('[role=tab][aria-selected=true]', { hasText: wheel }).waitFor();
    await page.locator('#tab-panel section.summary').waitFor({ timeout: 180_000 });
    const shown = await allKernelNames(page);
    assert.equal(Object.keys(shown).length, mangled.length, `${wheel}: every kernel has a row`);
    const differ = mangled.filter((name, i) => shown[name] !== want[i]).map((name) => `${name}\n  page: ${shown[name]}\n  llvm: ${want[mangled.indexOf(name)]}`);
    assert.deepEqual(differ, [], `${wheel}: names that differ from llvm-cxxfilt`);
    console.log(`${wheel}: ${mangled.length} kernel names in the page agree with llvm-cxxfilt`);
  }
  assert.deepEqual(problems, []);
});
