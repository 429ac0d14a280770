// End-to-end tests of the web page: the RELEASE build served from a sub-path by a tiny static
// server, driven in Debian's Chromium through playwright-core, checked against what the real
// tools (our CLI, clang-offload-bundler) say about the same files.
//
// Environment (set by `make e2e`): E2E_DIST (the built site), E2E_BASE (its public URL, a
// sub-path), OFFLOAD (the release CLI). LLVM_BIN locates clang-22 and friends.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from '../../scripts/static-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = process.env.E2E_DIST ?? join(ROOT, 'target/e2e-dist');
const BASE = process.env.E2E_BASE ?? '/some/sub/path/';
const OFFLOAD = process.env.OFFLOAD ?? join(ROOT, 'target/release/offload');
const LLVM_BIN = process.env.LLVM_BIN ?? '/usr/lib/llvm-22/bin';
const FIXTURES = join(ROOT, 'tests/fixtures');
const SHOTS = join(ROOT, 'test-output/screenshots');

let server, siteUrl, origin, browser, context, page;
const requests = [];      // every URL the browser asked for, from the page and its workers
const pageErrors = [];    // uncaught exceptions and console errors

// ------------------------------------------------------------------ helpers --

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.error) throw r.error;
  return r;
}

function must(cmd, args, opts) {
  const r = run(cmd, args, opts);
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

/** What our CLI says about a file: `offload list --json` (exit 1 only means "has errors"). */
function cliList(file) {
  const r = run(OFFLOAD, ['list', '--json', file]);
  assert.ok(r.status === 0 || r.status === 1, `offload list ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Samples the page offers, from the list the page itself is built from. */
function samples() {
  return readFileSync(join(ROOT, 'www/samples.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.split('\t')[0].trim());
}

/** Nodes of a CLI JSON tree in pre-order. */
function walk(node, out = []) {
  out.push(node);
  for (const c of node.children) walk(c, out);
  return out;
}

async function shot(name, target = page) {
  mkdirSync(SHOTS, { recursive: true });
  await target.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** Waits until the active tab shows an explored file (its summary is on the page). */
async function waitExplored(name) {
  await page.locator(`[role=tab][aria-selected=true]`, { hasText: name }).waitFor();
  await page.locator('#tab-panel section.summary').waitFor();
}

async function openSample(file) {
  await page.locator('#samples-menu > summary').click();
  await page.locator(`#samples-menu button[data-sample="${file}"]`).click();
  await waitExplored(file);
}

/** Target IDs in the summary table, in order. */
async function pageTargets() {
  return page.locator('table.targets tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.targetId));
}

/** Drops a file of the machine onto the page as a user would: drags it in (a DataTransfer
 * with a File), waits for the drop target to show, then drops it. */
async function dropFile(path, { screenshot } = {}) {
  const name = path.split('/').pop();
  const data = readFileSync(path).toString('base64');
  await page.evaluate(
    ({ name, data }) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      window.__drag = new DataTransfer();
      window.__drag.items.add(new File([bytes], name));
      for (const type of ['dragenter', 'dragover']) {
        document.body.dispatchEvent(new DragEvent(type, { dataTransfer: window.__drag, bubbles: true, cancelable: true }));
      }
    },
    { name, data },
  );
  await page.locator('.drop-overlay').waitFor();
  if (screenshot) await shot(screenshot);
  await page.evaluate(() => {
    window.__dropStarted = performance.now();
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: window.__drag, bubbles: true, cancelable: true }));
  });
  return name;
}

/** The app's own drop-to-first-render time for the active tab, in milliseconds. */
async function firstRenderMs() {
  const el = page.locator('#tab-panel .timing[data-first-render-ms]');
  await el.waitFor();
  return Number(await el.getAttribute('data-first-render-ms'));
}

// -------------------------------------------------------------------- setup --

before(async () => {
  assert.ok(statSync(join(DIST, 'index.html')).isFile(), `no build in ${DIST}: run make e2e`);
  ({ server, url: siteUrl } = await serveStatic({ dir: DIST, base: BASE }));
  origin = new URL(siteUrl).origin;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  context.on('request', (r) => requests.push(r.url()));
  // Requests of the explorer worker (a dedicated worker) are reported through the page in
  // Chromium; record service-worker and worker requests too in case a browser reports them apart.
  context.on('serviceworker', (w) => w.on?.('request', (r) => requests.push(r.url())));
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`); });
  await page.goto(siteUrl);
  await page.locator('.welcome').waitFor();
});

after(async () => {
  await browser?.close();
  server?.close();
});

// -------------------------------------------------------------------- tests --

test('the page starts from its sub-path under its Content-Security-Policy', async () => {
  assert.match(siteUrl, new RegExp(`${BASE}$`));
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'/);
  assert.doesNotMatch(csp, /'unsafe-eval'|'unsafe-inline'/);
  assert.doesNotMatch(csp, /TRUNK_LOADER_HASH/, 'the build hook filled in the loader hash');
  // Everything the page loaded so far came from under the sub-path.
  for (const u of requests) assert.ok(u.startsWith(siteUrl), `${u} is not under ${siteUrl}`);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  await shot('01-welcome');
});

test('every sample opens in its own tab and shows the targets our CLI finds', async () => {
  const list = samples();
  assert.ok(list.length >= 5);
  for (const file of list) {
    await openSample(file);
    const expected = cliList(join(FIXTURES, file)).targets.map((t) => t.target_id);
    assert.deepEqual(await pageTargets(), expected, `targets of ${file}`);
    if (expected.length === 0) {
      await page.locator('#tab-panel #targets', { hasText: 'No device targets found.' }).waitFor();
    }
    // No error notice: the file was explored, whatever it holds.
    assert.equal(await page.locator('#tab-panel .notice.error').count(), 0, file);
  }
  assert.equal(await page.locator('[role=tab]').count(), list.length, 'one tab per file');
  // Keyboard: ] and [ move between tabs.
  const active = () => page.locator('[role=tab][aria-selected=true] .tab-name').textContent();
  assert.equal(await active(), list.at(-1));
  await page.keyboard.press(']');
  assert.equal(await active(), list[0]);
  await page.keyboard.press('[');
  assert.equal(await active(), list.at(-1));
});

test('a shared library linked here with several compressed bundles shows every target', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'offload-e2e-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const clang = join(LLVM_BIN, 'clang');
  writeFileSync(join(work, 'mini_hip.h'), `#pragma once
typedef __SIZE_TYPE__ size_t;
#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {} };
typedef struct ihipStream_t *hipStream_t;
extern "C" {
int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shmem, hipStream_t stream);
unsigned __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0, hipStream_t stream = 0);
int __hipPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, hipStream_t *stream);
}
#define TID() ((int)__builtin_amdgcn_workitem_id_x())
`);
  // Four translation units, each compressed into its own bundle; the linker puts the bundles
  // back to back in .hip_fatbin.
  const units = ['scale', 'shift', 'square', 'negate'];
  const ops = { scale: 'x[TID()] *= 2', shift: 'x[TID()] += 1', square: 'x[TID()] *= x[TID()]', negate: 'x[TID()] = -x[TID()]' };
  const objects = [];
  for (const u of units) {
    writeFileSync(join(work, `${u}.hip`), `#include "mini_hip.h"
__global__ void k_${u}(float *x) { ${ops[u]}; }
void run_${u}(float *x) { k_${u}<<<1, 64>>>(x); }
`);
    must(clang, ['-x', 'hip', '--offload-arch=gfx906:xnack-,gfx90a,gfx1030', '-nogpulib', '-nogpuinc', '--offload-compress',
      '-fPIC', '-O1', `-cuid=e2e${u}`, '-c', `${u}.hip`, '-o', `${u}.o`], { cwd: work });
    objects.push(`${u}.o`);
  }
  must(clang, ['-shared', '-nostdlib', '-fuse-ld=lld', ...objects, '-o', 'libe2e_multi.so'], { cwd: work });
  const lib = join(work, 'libe2e_multi.so');

  // What the reference tools say: each object's .hip_fatbin listed by clang-offload-bundler
  // (it cannot list the linked library's several bundles), in link order, host entries left out.
  const reference = [];
  for (const o of objects) {
    const fatbin = join(work, `${o}.hipfb`);
    must(join(LLVM_BIN, 'llvm-objcopy'), [`--dump-section=.hip_fatbin=${fatbin}`, join(work, o), join(work, `${o}.copy`)]);
    const listed = must(join(LLVM_BIN, 'clang-offload-bundler'), ['--list', '--type=o', `--input=${fatbin}`]);
    reference.push(...listed.split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('host-')));
  }
  const cli = cliList(lib).targets.map((x) => x.target_id);
  assert.equal(reference.length, units.length * 3);
  assert.deepEqual([...cli].sort(), [...reference].sort(), 'our CLI agrees with clang-offload-bundler');

  await dropFile(lib, { screenshot: '02-drop-target' });
  await waitExplored('libe2e_multi.so');
  assert.equal(await page.locator('.drop-overlay').count(), 0, 'and goes away on drop');
  const shown = await pageTargets();
  assert.deepEqual([...shown].sort(), [...reference].sort(), 'the page shows every target the bundler lists');
  assert.deepEqual(shown, cli, 'in the order of the file, as the CLI lists them');
  assert.match(await page.locator('table.targets caption').textContent(), new RegExp(`Device targets \\(${reference.length}\\)`));
  console.log(`# dropped libe2e_multi.so (${statSync(lib).size} bytes, ${units.length} compressed bundles): first render after ${await firstRenderMs()} ms`);
  await shot('03-shared-library');
});

test('selecting a target highlights its bytes in the hex view', async (t) => {
  const file = 'hip_elf_2arch_compressed.o';
  await page.locator('[role=tab]', { hasText: file }).click();
  await waitExplored(file);
  const json = cliList(join(FIXTURES, file));
  const out = mkdtempSync(join(tmpdir(), 'offload-extract-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  must(OFFLOAD, ['extract', join(FIXTURES, file), '-o', out]);

  for (const target of json.targets) {
    const entry = walk(json.root).find((n) => n.kind === 'bundle-entry' && n.fields.id === target.target_id);
    assert.ok(entry, `the CLI's tree has an entry for ${target.target_id}`);
    await page.locator(`table.targets tr[data-target-id="${target.target_id}"] button`).click();
    // The hex view shows the entry's byte space and highlights from its first byte.
    await page.locator(`#hex-grid[data-space="${entry.space}"] .hex-bytes .byte.in-node`).first().waitFor();
    await page.waitForFunction(
      (off) => document.querySelector('#hex-grid .hex-bytes .byte.in-node')?.dataset.offset === String(off) &&
        document.querySelector('#hex-grid .hex-bytes .byte.in-node').textContent !== '··',
      entry.offset,
    );
    const cells = await page.locator('#hex-grid .hex-bytes .byte.in-node').evaluateAll((cs) => cs.map((c) => [Number(c.dataset.offset), c.textContent]));
    const offsets = cells.map(([o]) => o);
    assert.equal(offsets[0], entry.offset, `${target.target_id} starts at ${entry.offset}`);
    assert.ok(offsets.every((o, i) => i === 0 || o === offsets[i - 1] + 1), 'highlighted bytes are contiguous');
    assert.ok(offsets.at(-1) < entry.offset + entry.size, 'and end inside the entry');
    // The byte before the entry is not highlighted (when it is on screen).
    const before = await page.locator(`#hex-grid .hex-bytes .byte[data-offset="${entry.offset - 1}"]`).evaluateAll((cs) => cs.map((c) => c.classList.contains('in-node')));
    assert.ok(before.every((h) => !h));
    // The highlighted bytes are the image's bytes, as `offload extract` writes them.
    const extracted = readdirSync(out).find((f) => f.includes(target.target_id.replaceAll(':', '_')) && f.endsWith('.co'));
    assert.ok(extracted, `extract wrote ${target.target_id}: ${readdirSync(out)}`);
    const image = readFileSync(join(out, extracted));
    const shownBytes = cells.slice(0, 16).map(([, text]) => parseInt(text, 16));
    assert.deepEqual(shownBytes, [...image.subarray(0, 16)]);
    assert.match(await page.locator('.inspector .node-label').textContent(), new RegExp(target.target_id.replace(/[-:]/g, '.')));
  }
  await shot('04-target-selected');
  await page.locator('section.hex-panel').screenshot({ path: join(SHOTS, '05-hex-view.png') });
});

test('clicking a byte selects the innermost node there and go-to-offset jumps', async () => {
  const file = 'omp_elf_2arch.o';
  await page.locator('[role=tab]', { hasText: file }).click();
  await waitExplored(file);
  const json = cliList(join(FIXTURES, file));
  const nodes = walk(json.root);
  const entry = nodes.find((n) => n.kind === 'offload-entry');
  // Go to the entry's header with the keyboard: g focuses the box.
  await page.keyboard.press('g');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'goto-offset');
  await page.keyboard.type(`0x${(entry.offset + 2).toString(16)}`);
  await page.keyboard.press('Enter');
  await page.locator(`#hex-grid .byte.cursor[data-offset="${entry.offset + 2}"]`).waitFor();
  // The innermost node at that byte in the CLI's tree is what the inspector shows.
  const innermost = nodes
    .filter((n) => n.space === 0 && n.offset <= entry.offset + 2 && entry.offset + 2 < n.offset + n.size)
    .at(-1);
  assert.equal(await page.locator('.inspector .node-label').textContent(), innermost.label);
  // A bad offset is explained in place.
  await page.locator('#goto-offset').fill('12zz');
  await page.keyboard.press('Enter');
  assert.match(await page.locator('#goto-problem').textContent(), /not a decimal or hex offset/);
  // A click on a byte of the string table selects it.
  const strtab = nodes.find((n) => n.kind === 'string-table');
  await page.locator('#goto-offset').fill(String(strtab.offset));
  await page.keyboard.press('Enter');
  await page.locator(`#hex-grid .hex-bytes .byte[data-offset="${strtab.offset + 1}"]`).click();
  assert.equal(await page.locator('.inspector .node-label').textContent(), strtab.label);
  assert.equal(await page.locator(`#hex-grid .byte.in-node[data-offset="${strtab.offset}"]`).count(), 1);
  await page.locator('section.inspector').screenshot({ path: join(SHOTS, '06-inspector.png') });
});

test('a damaged file shows its error in place, with the byte offset, and stays explorable', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'offload-damaged-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  // Corrupt 16 bytes in the middle of the compressed payload of a real HIP object.
  const good = join(FIXTURES, 'hip_elf_2arch_compressed.o');
  const payload = walk(cliList(good).root).find((n) => n.kind === 'compressed-payload');
  const bytes = readFileSync(good);
  const at = payload.offset + (payload.size >> 1);
  for (let i = at; i < at + 16; i++) bytes[i] ^= 0x5a;
  const damaged = join(work, 'damaged.o');
  writeFileSync(damaged, bytes);
  const errors = walk(cliList(damaged).root).flatMap((n) => n.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ node: n, d })));
  assert.ok(errors.length > 0, 'our CLI reports the damage');

  await dropFile(damaged);
  await waitExplored('damaged.o');
  assert.equal(await page.locator('[role=tab][aria-selected=true] .status-dot.error').count(), 1, 'the tab says the file has errors');
  const shown = await page.locator('.diagnostics li.diagnostic.error').allTextContents();
  assert.equal(shown.length, errors.length);
  for (const [i, { d }] of errors.entries()) {
    assert.ok(shown[i].includes(d.message), `${shown[i]} tells ${d.message}`);
    assert.ok(shown[i].includes(`at 0x${d.span.offset.toString(16)} (space ${d.span.space})`), shown[i]);
  }
  // The rest of the file is still there: the section and the bundle's header are in the tree,
  // the node with the error is marked, and the error's location opens in the hex view.
  await page.locator('[role=treeitem] > .row', { hasText: 'section .hip_fatbin' }).waitFor();
  assert.ok((await page.locator('[role=treeitem] .badge.error').count()) >= 1);
  await page.locator('.diagnostics li.diagnostic.error button.where').first().click();
  await page.locator(`#hex-grid[data-space="${errors[0].d.span.space}"] .byte.cursor[data-offset="${errors[0].d.span.offset}"]`).waitFor();
  assert.equal(await page.locator('.inspector .node-label').textContent(), errors[0].node.label);
  await shot('13-damaged-file');
});

test('the file picker opens files too (o)', async () => {
  const chooser = page.waitForEvent('filechooser');
  await page.locator('#tree').focus().catch(() => {});
  await page.keyboard.press('o');
  const fc = await chooser;
  assert.ok(fc.isMultiple(), 'several files can be picked at once');
  await fc.setFiles([join(FIXTURES, 'sycl_elf.o'), join(FIXTURES, 'offbin_cuda_ptx.offbin')]);
  for (const f of ['sycl_elf.o', 'offbin_cuda_ptx.offbin']) {
    await page.locator('[role=tab]', { hasText: f }).click();
    await waitExplored(f);
    assert.deepEqual(await pageTargets(), cliList(join(FIXTURES, f)).targets.map((x) => x.target_id), f);
  }
});

test('a 1 GiB file: the hex view renders only the rows on screen and reaches the last byte', async () => {
  // A real HIP object followed by 1 GiB of zeros (ELF readers ignore trailing bytes): the
  // explorer reads only headers and sections, and the hex view scrolls the whole file.
  const fixture = readFileSync(join(FIXTURES, 'hip_elf_2arch_compressed.o')).toString('base64');
  const size = await page.evaluate((data) => {
    const head = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const file = new File([head, new Uint8Array(1 << 30)], 'huge.o');
    const dt = new DataTransfer();
    dt.items.add(file);
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    return file.size;
  }, fixture);
  await waitExplored('huge.o');
  assert.equal((await pageTargets()).length, 2);
  await page.locator('#hex-grid').focus();
  await page.keyboard.press('End');
  const lastRow = Math.floor((size - 1) / 16) * 16;
  await page.locator(`#hex-grid .hex-bytes .byte[data-offset="${size - 1}"]`).waitFor();
  const rows = await page.locator('#hex-grid .hex-row .hex-offset').allTextContents();
  assert.ok(rows.length > 5 && rows.length < 80, `${rows.length} rows rendered`);
  assert.equal(parseInt(rows.at(-1), 16), lastRow, 'End shows the last row');
  assert.equal(await page.locator(`#hex-grid .hex-bytes .byte[data-offset="${size - 1}"]`).textContent(), '00');
  // Row by row, even though one pixel of the scrollbar stands for many rows here.
  const top = parseInt(rows[0], 16);
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction((want) => parseInt(document.querySelector('#hex-grid .hex-row .hex-offset').textContent, 16) === want, top - 16);
  // Jump to the middle.
  const middle = 0x20000000;
  await page.locator('#goto-offset').fill('0x20000000');
  await page.keyboard.press('Enter');
  await page.locator(`#hex-grid .byte.cursor[data-offset="${middle}"]`).waitFor();
  await page.locator('#hex-grid').focus();
  await page.keyboard.press('Home');
  await page.locator('#hex-grid .hex-bytes .byte[data-offset="0"]').waitFor();
  assert.equal(await page.locator('#hex-grid .hex-bytes .byte[data-offset="0"]').textContent(), '7f');
  await page.keyboard.press('w');
});

test('every control has an accessible name', async () => {
  const unnamed = await page.evaluate(() => {
    const name = (el) => (el.getAttribute('aria-label') || el.textContent || el.getAttribute('title') || '').trim()
      || (el.getAttribute('aria-labelledby') && document.getElementById(el.getAttribute('aria-labelledby'))?.textContent.trim());
    return [...document.querySelectorAll('button, input, select, summary, [role=tab], [role=treeitem], [role=tree], [tabindex="0"]')]
      .filter((el) => !name(el))
      .map((el) => el.outerHTML.slice(0, 120));
  });
  assert.deepEqual(unnamed, []);
});

test('the tree can be used with the keyboard alone', async () => {
  const file = 'libhip_3tu_compressed.so';
  await page.locator('[role=tab]', { hasText: file }).click();
  await waitExplored(file);
  const json = cliList(join(FIXTURES, file));
  const selectedLabel = () => page.locator('[role=treeitem][aria-selected=true] > .row .label').textContent();

  await page.keyboard.press('t');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('role')), 'tree');
  await page.keyboard.press('Home');
  assert.equal(await selectedLabel(), json.root.label);
  await page.keyboard.press('ArrowDown');
  const first = json.root.children[0];
  assert.equal(await selectedLabel(), first.label);
  const row = () => page.locator('[role=treeitem][aria-selected=true]');
  if (first.children.length > 0) {
    assert.equal(await row().getAttribute('aria-expanded'), 'true');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await row().getAttribute('aria-expanded'), 'false', 'left collapses');
    await page.keyboard.press('ArrowRight');
    assert.equal(await row().getAttribute('aria-expanded'), 'true', 'right expands');
    await page.keyboard.press('ArrowRight');
    assert.equal(await selectedLabel(), first.children[0].label, 'right again enters the first child');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await selectedLabel(), first.label, 'left goes back to the parent');
    await page.keyboard.press('Enter');
    assert.equal(await row().getAttribute('aria-expanded'), 'false', 'Enter toggles');
    await page.keyboard.press('Enter');
  }
  await page.keyboard.press('End');
  const all = walk(json.root);
  assert.equal(await selectedLabel(), all.at(-1).label, 'End goes to the last row');
  // The other views follow: the inspector shows the selected node, the hex view its space.
  assert.equal(await page.locator('.inspector .node-label').textContent(), all.at(-1).label);
  assert.equal(await page.locator('#hex-grid').getAttribute('data-space'), String(all.at(-1).space));
  // Focus never left the tree.
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tree');
  await page.locator('section.tree-panel').screenshot({ path: join(SHOTS, '07-tree.png') });
  await page.locator('section.map-panel').screenshot({ path: join(SHOTS, '08-layout-map.png') });
  await page.locator('section.summary').screenshot({ path: join(SHOTS, '09-summary.png') });
});

test('views toggle, the shortcuts dialog lists the keys, dark theme follows the system', async () => {
  await page.locator('body').click({ position: { x: 5, y: 300 } }).catch(() => {});
  await page.keyboard.press('4');
  assert.equal(await page.locator('section.hex-panel').count(), 0, '4 hides the hex view');
  assert.equal(await page.locator('button.toggle', { hasText: 'Hex' }).getAttribute('aria-pressed'), 'false');
  await page.keyboard.press('4');
  await page.locator('section.hex-panel').waitFor();
  await page.keyboard.press('?');
  const dialog = page.locator('dialog.help[open]');
  await dialog.waitFor();
  assert.ok((await dialog.locator('tr').count()) >= 14);
  assert.match(await dialog.textContent(), /Go to an offset/);
  await shot('10-shortcuts');
  await page.keyboard.press('1');
  assert.equal(await page.locator('section.summary').count(), 1, 'keys meant for the page do nothing while the dialog is open');
  await page.keyboard.press('Escape');
  await page.locator('dialog.help[open]').waitFor({ state: 'detached' });
  // s opens the samples menu with its first sample focused; Escape closes it, and so does a click elsewhere.
  await page.keyboard.press('s');
  await page.locator('#samples-menu[open]').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.dataset.sample), samples()[0]);
  await page.keyboard.press('Escape');
  await page.locator('#samples-menu[open]').waitFor({ state: 'detached' });
  await page.locator('#samples-menu > summary').click();
  await page.locator('#samples-menu[open]').waitFor();
  await page.locator('section.inspector').click({ position: { x: 5, y: 5 } });
  await page.locator('#samples-menu[open]').waitFor({ state: 'detached' });
  await page.emulateMedia({ colorScheme: 'dark' });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(20, 23, 28)', 'dark background');
  await shot('11-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

test('the page stays responsive while a large file is explored, and exploring can be cancelled', async () => {
  // 512 MiB of zeros: no container, so the explorer reads all of it and scans every byte for a
  // magic number, which takes seconds; the page's own round trip below takes a fraction of that,
  // and the large file must still be loading when it is done.
  const size = 512 << 20;
  await page.evaluate((size) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(size)], 'zeros.bin'));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, size);
  await page.locator('[role=tab][aria-selected=true]', { hasText: 'zeros.bin' }).waitFor();
  const progress = page.locator('.progress-panel progress');
  await progress.waitFor();
  // While the worker is busy, the page answers: switch to another tab and select in its tree.
  await page.locator('[role=tab]', { hasText: 'bundle_text.ll' }).click();
  await waitExplored('bundle_text.ll');
  await page.locator('[role=treeitem] > .row', { hasText: 'hipv4-amdgcn-amd-amdhsa--gfx906' }).first().click();
  assert.match(await page.locator('.inspector .node-label').textContent(), /gfx906/);
  assert.equal(await page.locator('[role=tab]', { hasText: 'zeros.bin' }).locator('.status-dot.loading').count(), 1,
    'the large file is still being explored meanwhile');
  await page.locator('[role=tab]', { hasText: 'zeros.bin' }).click();
  await page.locator('.progress-panel').waitFor();
  await shot('12-progress');
  await page.locator('button.cancel').click();
  await page.locator('.notice', { hasText: 'was cancelled' }).waitFor();
  await page.locator('[role=tab][aria-selected=true]').locator('.status-dot.cancelled').waitFor();
  await page.keyboard.press('w');
  assert.equal(await page.locator('[role=tab]', { hasText: 'zeros.bin' }).count(), 0, 'w closes the tab');
});

test('drop-to-first-render time of the largest sample', async () => {
  const largest = samples().map((f) => [f, statSync(join(FIXTURES, f)).size]).sort((a, b) => b[1] - a[1])[0];
  await dropFile(join(FIXTURES, largest[0]));
  await page.locator('[role=tab]').last().waitFor();
  await page.locator('#tab-panel section.summary').waitFor();
  const ms = await firstRenderMs();
  const wall = await page.evaluate(() => performance.now() - window.__dropStarted);
  assert.ok(ms > 0 && ms <= wall, `${ms} ms measured by the app, ${wall} ms since the drop`);
  console.log(`# drop-to-first-render of the largest sample, ${largest[0]} (${largest[1]} bytes): ${ms.toFixed(1)} ms`);
});

test('no request went to another origin and nothing failed on the page', async () => {
  assert.ok(requests.length > 5);
  const foreign = requests.filter((u) => !u.startsWith(origin + '/') && !u.startsWith('blob:') && !u.startsWith('data:'));
  assert.deepEqual(foreign, [], 'requests to other origins');
  const outside = requests.filter((u) => u.startsWith(origin) && !u.startsWith(siteUrl));
  assert.deepEqual(outside, [], 'requests outside the sub-path');
  assert.ok(requests.some((u) => u.endsWith('worker_loader.js')), 'the worker was loaded from the sub-path');
  assert.ok(requests.some((u) => u.includes('/samples/')), 'samples were fetched from the sub-path');
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(pageErrors, []);
});
