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
import { assertKernelsView, consoleProblem, samples } from '../support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = process.env.E2E_DIST ?? join(ROOT, 'target/e2e-dist');
const BASE = process.env.E2E_BASE ?? '/some/sub/path/';
const OFFLOAD = process.env.OFFLOAD ?? join(ROOT, 'target/release/offload');
const LLVM_BIN = process.env.LLVM_BIN ?? '/usr/lib/llvm-22/bin';
const BUNDLER = join(LLVM_BIN, 'clang-offload-bundler');
const FIXTURES = join(ROOT, 'tests/fixtures');
const SHOTS = join(ROOT, 'test-output/screenshots');

let server, siteUrl, origin, browser, context, page;
const requests = [];      // every URL the browser asked for, from the page and its workers
const pageErrors = [];    // uncaught exceptions and console errors
const dialogs = [];       // alert(), confirm(), prompt() and beforeunload dialogs, which nothing here should open

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

/** What our CLI says about a file: `offload list --json` (exit 1 only means "has errors"),
 * with the limits in `flags` (`--verify`, `--max-depth=N`, `--max-decompressed=BYTES`). */
function cliList(file, ...flags) {
  const r = run(OFFLOAD, ['list', '--json', ...flags, file]);
  assert.ok(r.status === 0 || r.status === 1, `offload list ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout);
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

/** Every diagnostic message of a CLI JSON tree, in tree order (the summary's order). */
function cliMessages(json) {
  return walk(json.root).flatMap((n) => n.diagnostics.map((d) => d.message));
}

/** The messages of the summary's diagnostics, in order. */
async function pageMessages() {
  return page.locator('#tab-panel .diagnostics li .message').allTextContents();
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
  page.on('console', (m) => { if (consoleProblem(m)) pageErrors.push(`console: ${m.text()}`); });
  page.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
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
  // No inline script at all: the page's loader is a file of its own (app_loader.js).
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(csp, /'unsafe-eval'|'unsafe-inline'|sha256-/);
  assert.equal(await page.locator('script:not([src])').count(), 0, 'the page has no inline script');
  // Everything the page loaded so far came from under the sub-path.
  for (const u of requests) assert.ok(u.startsWith(siteUrl), `${u} is not under ${siteUrl}`);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  // The start page says what the page reads, and offers every sample.
  const reads = await page.locator('.welcome .welcome-reads').textContent();
  for (const what of ['NVIDIA fatbins with their cubins and PTX', 'wheels, tarballs, conda, deb and rpm', 'AMDGPU code is disassembled']) {
    assert.ok(reads.includes(what), `the start page should say it reads ${what}: ${reads}`);
  }
  assert.deepEqual(await page.locator('.welcome-samples code').allTextContents(), samples().map((s) => s.file));
  await shot('01-welcome');
});

test('every sample opens in its own tab and shows the targets our CLI finds', async () => {
  const list = samples();
  assert.ok(list.length >= 7);
  for (const { file, fixture } of list) {
    await openSample(file);
    const expected = cliList(fixture).targets.map((t) => t.target_id);
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
  assert.equal(await active(), list.at(-1).file);
  await page.keyboard.press(']');
  assert.equal(await active(), list[0].file);
  await page.keyboard.press('[');
  assert.equal(await active(), list.at(-1).file);
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
  // Corrupt the stored hash of the compressed bundle in a real HIP object (the 8 bytes before
  // its payload). Not the payload itself: what a zstd decoder makes of a corrupt stream differs
  // between libzstd (the CLI) and ruzstd (the page), and so would the errors found inside it.
  const good = join(FIXTURES, 'hip_elf_2arch_compressed.o');
  const payload = walk(cliList(good).root).find((n) => n.kind === 'compressed-payload');
  const bytes = readFileSync(good);
  const at = payload.offset - 8;
  for (let i = at; i < at + 8; i++) bytes[i] ^= 0x5a;
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

// Markup and script in the strings of files made here by the real tools. Every string read from
// a file must reach the page as text: in the tab, the tree, the summary and the inspector.
const ARCH = '<img src=x onerror="window.__pwned=1;alert(1)">';
const NOTE = '<script>window.__pwned=2</script>';
// clang-offload-bundler keeps markup in a target ID's features and environment field (it drops
// an invalid processor such as `gfx90a<b>x</b>`, standardizing the ID to `...--`).
const HOSTILE_IDS = [
  'hip-amdgcn-amd-amdhsa--gfx90a:<b>x</b>:<img src=x onerror=window.__pwned=3>',
  'hipv4-amdgcn-amd-amdhsa<script>window.__pwned=4</script>--gfx906',
];

/** The entry IDs in a binary bundle's header: magic (24 bytes), entry count (u64), then per
 * entry offset, size, ID length (u64 each) and the ID. */
function bundleHeaderIds(bytes) {
  assert.equal(bytes.subarray(0, 24).toString('latin1'), '__CLANG_OFFLOAD_BUNDLE__');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = Number(view.getBigUint64(24, true));
  const ids = [];
  for (let i = 0, at = 32; i < count; i++) {
    const length = Number(view.getBigUint64(at + 16, true));
    ids.push(bytes.subarray(at + 24, at + 24 + length).toString('utf8'));
    at += 24 + length;
  }
  return ids;
}

/** What markup in the strings would have made had the page parsed it as HTML. The page itself
 * uses no <img> and no <b>, and none of its elements has an inline event handler. */
async function injected() {
  return page.evaluate(() => ({
    pwned: window.__pwned,
    elements: [...document.querySelectorAll('img, b, [onerror], [onload]')].map((e) => e.outerHTML.slice(0, 100)),
    boldInTree: document.querySelectorAll('[role=tree] b').length,
    scripts: [...document.scripts].filter((s) => s.textContent.includes('__pwned')).length,
  }));
}

/** Checks the page shows `file` (explored by our CLI as `json`) with every string as text. */
async function assertShownAsText(name, json) {
  assert.equal(await page.locator('[role=tab][aria-selected=true] .tab-name').textContent(), name, 'tab');
  assert.equal(await page.locator('[role=tab][aria-selected=true]').getAttribute('title'), name);
  assert.equal(await page.locator('.tab.active .tab-close').getAttribute('aria-label'), `Close ${name}`);
  assert.equal(await page.locator('#tab-panel .summary .file-name').textContent(), name, 'summary');
  // Every node's label, exactly as the CLI gives it (small trees open fully expanded).
  assert.deepEqual(await page.locator('[role=treeitem] > .row .label').allTextContents(), walk(json.root).map((n) => n.label), 'tree');
  // The targets table: ID, kind, processor, features.
  const rows = page.locator('table.targets tbody tr');
  assert.equal(await rows.count(), json.targets.length);
  for (const [i, target] of json.targets.entries()) {
    const cells = await rows.nth(i).locator('th, td').allTextContents();
    assert.deepEqual(cells.slice(0, 4), [target.target_id, target.offload_kind, target.processor, target.features || '—'], 'targets');
    assert.equal(await rows.nth(i).getAttribute('data-target-id'), target.target_id);
  }
  assert.deepEqual(await pageMessages(), cliMessages(json), 'diagnostics');
  // The hex view's byte spaces are named after the file.
  const spaces = await page.locator('#tab-panel .hex-panel select option').allTextContents();
  assert.deepEqual(spaces.map((o) => o.replace(/ \([^)]*\)$/, '')), json.spaces.map((sp, i) => `space ${i}: ${sp.label}`), 'space picker');
  // The inspector of each target's entry: its label and every text field.
  const entries = walk(json.root).filter((n) => n.kind === 'bundle-entry' || n.kind === 'offload-entry');
  for (const [i, entry] of entries.filter((n) => !n.label.startsWith('host-')).entries()) {
    await rows.nth(i).locator('button').click();
    assert.equal(await page.locator('.inspector .node-label').textContent(), entry.label, 'inspector label');
    for (const [field, value] of Object.entries(entry.fields)) {
      if (typeof value === 'string') {
        assert.equal(await page.locator(`.inspector tr[data-field="${field}"] td.value`).textContent(), value, `inspector ${field}`);
      } else if (value && typeof value === 'object') {
        // A string map (an offload entry's strings): each key and value as text.
        const shown = await page.locator(`.inspector tr[data-field="${field}"] dl.map-value`).evaluate((dl) =>
          Object.fromEntries([...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent])));
        assert.deepEqual(shown, value, `inspector ${field}`);
      }
    }
  }
  const found = await injected();
  assert.deepEqual(found, { pwned: undefined, elements: [], boldInTree: 0, scripts: 0 }, `nothing was made from ${name}'s strings`);
}

test('strings from files are shown as text, never run or parsed as markup', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'offload-hostile-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  // Real device images, unbundled from a fixture by clang-offload-bundler (`.o`, so that
  // llvm-offload-binary records them as objects).
  const hipfb = join(FIXTURES, 'hip_elf_2arch.hipfb');
  for (const [file, id] of [['gfx90a.o', 'hipv4-amdgcn-amd-amdhsa--gfx90a'], ['gfx906.o', 'hipv4-amdgcn-amd-amdhsa--gfx906:xnack-']]) {
    must(BUNDLER, ['-unbundle', '-type=o', `-targets=${id}`, `-input=${hipfb}`, `-output=${join(work, file)}`]);
  }
  // An LLVM offload binary whose arch and an extra string are markup. llvm-offload-binary
  // splits --image at commas, then each part at its first '=': values hold no comma.
  const offbin = join(work, '<img src=x onerror="window.__pwned=5">.offbin');
  must(join(LLVM_BIN, 'llvm-offload-binary'), ['-o', offbin, `--image=file=${join(work, 'gfx90a.o')},triple=amdgcn-amd-amdhsa,arch=${ARCH},kind=openmp,note=${NOTE}`]);
  const dumped = must(join(LLVM_BIN, 'llvm-objdump'), ['--offloading', offbin]);
  assert.ok(dumped.split('\n').some((l) => l.replace(/^arch\s+/, '') === ARCH), `llvm-objdump reads the arch back:\n${dumped}`);
  // A clang offload bundle whose target IDs hold markup. clang-offload-bundler 22.1.8 dies by
  // SIGSEGV on such IDs (a feature without +/-) on some machines, so our own CLI writes it; the
  // header is read back here, and compared with the bundler's --list where the bundler answers.
  const bundle = join(work, '<svg onload=window.__pwned=6>.bc');
  writeFileSync(join(work, 'host.bc'), '');
  must(OFFLOAD, ['bundle', '--type=bc', `--targets=host-x86_64-unknown-linux-gnu,${HOSTILE_IDS.join(',')}`,
    `--input=${join(work, 'host.bc')}`, `--input=${join(work, 'gfx90a.o')}`, `--input=${join(work, 'gfx906.o')}`, `--output=${bundle}`]);
  const written = bundleHeaderIds(readFileSync(bundle)).filter((id) => !id.startsWith('host-'));
  assert.deepEqual(written, HOSTILE_IDS, 'the bundle header holds the IDs as given');
  const listed = run(BUNDLER, ['-list', '-type=bc', `-input=${bundle}`]);
  if (listed.signal) {
    t.diagnostic(`clang-offload-bundler --list died by ${listed.signal}: no answer to compare with`);
  } else {
    assert.equal(listed.status, 0, `clang-offload-bundler --list: ${listed.stderr}`);
    const ids = listed.stdout.split('\n').filter((l) => l && !l.startsWith('host-'));
    assert.deepEqual(ids.sort(), [...HOSTILE_IDS].sort(), 'clang-offload-bundler lists the IDs as given');
  }

  const offbinJson = cliList(offbin);
  const entry = walk(offbinJson.root).find((n) => n.kind === 'offload-entry');
  assert.equal(entry.fields.arch, ARCH);
  assert.equal(entry.fields.strings.note, NOTE);
  await waitExplored(await dropFile(offbin));
  await assertShownAsText(offbin.split('/').pop(), offbinJson);
  assert.ok((await page.locator('#tab-panel').textContent()).includes(NOTE), 'the script text is on the page, as text');

  const bundleJson = cliList(bundle);
  assert.deepEqual(bundleJson.targets.map((x) => x.target_id), HOSTILE_IDS);
  await waitExplored(await dropFile(bundle));
  await assertShownAsText(bundle.split('/').pop(), bundleJson);
  // The container chain of the selected target names it too.
  assert.ok((await page.locator('nav.chain').textContent()).includes(HOSTILE_IDS[1]));
  await shot('14-hostile-strings');

  // Nothing was fetched for <img src=x>, nothing ran, nothing broke.
  assert.deepEqual(requests.filter((u) => new URL(u).pathname.endsWith('/x')), [], 'no request for the img');
  assert.deepEqual(dialogs, [], 'no alert');
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'no CSP violation');
  assert.deepEqual(pageErrors, [], 'no page error');
});

/** Opens the settings dialog with its button and waits for it. */
async function openSettings(target = page) {
  await target.getByRole('button', { name: 'Settings', exact: true }).click();
  await target.locator('dialog.settings[open]').waitFor();
  return {
    mib: target.getByLabel('Largest decompressed bundle (MiB)'),
    depth: target.getByLabel('Deepest nesting (levels)'),
    verify: target.getByLabel('Verify every compressed bundle'),
  };
}

async function settingsShown(fields) {
  return { mib: await fields.mib.inputValue(), depth: await fields.depth.inputValue(), verify: await fields.verify.isChecked() };
}

const SETTINGS_KEY = 'offload-explorer.settings';
const DEFAULTS = { mib: '4096', depth: '8', verify: false };

test('settings: limits are checked, kept, used for files opened next, and a limit that stops the explorer says so', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'offload-limits-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  // A compressed bundle that decompresses to 40 MiB (a real code object padded with zeros):
  // above the 32 MiB up to which bundles are decompressed unless every bundle is verified.
  const image = join(work, 'big.co');
  must(BUNDLER, ['-unbundle', '-type=o', '-targets=hipv4-amdgcn-amd-amdhsa--gfx90a', `-input=${join(FIXTURES, 'hip_elf_2arch.hipfb')}`, `-output=${image}`]);
  const code = readFileSync(image);
  writeFileSync(image, Buffer.concat([code, Buffer.alloc((40 << 20) - code.length)]));
  const big = join(work, 'big.hipfb');
  must(BUNDLER, ['-type=o', '-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a', '-input=/dev/null', `-input=${image}`, `-output=${big}`, '-compress'],
    { env: { ...process.env, COMPRESSED_BUNDLE_FORMAT_VERSION: '3' } });

  // The dialog starts from the core's defaults; the ? dialog lists its key.
  let fields = await openSettings();
  assert.deepEqual(await settingsShown(fields), DEFAULTS);
  // Wrong values are explained in place and not saved.
  await fields.mib.fill('0');
  await fields.depth.fill('100');
  await page.locator('dialog.settings button[type=submit]').click();
  assert.equal(await page.locator('#setting-max-decompressed-problem').textContent(), 'Must be at least 1.');
  assert.equal(await page.locator('#setting-max-depth-problem').textContent(), 'Must be at most 32 levels.');
  assert.equal(await fields.mib.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'setting-max-decompressed', 'the first wrong field has the focus');
  assert.equal(await page.locator('dialog.settings[open]').count(), 1, 'the dialog stays open');
  await fields.mib.fill('lots');
  assert.equal(await page.locator('#setting-max-decompressed-problem').textContent(), '“lots” is not a whole number. Enter one from 1 to 4096.');
  await shot('15-settings-invalid');
  // A 16 MiB limit with every bundle verified: the 40 MiB bundle is refused, and says why.
  await fields.mib.fill('16');
  await fields.depth.fill('8');
  await fields.verify.check();
  await page.locator('dialog.settings button[type=submit]').click();
  await page.locator('dialog.settings[open]').waitFor({ state: 'detached' });
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), SETTINGS_KEY), 'max_decompressed_mib=16\nmax_depth=8\nverify_all=true\nmax_entries=100000\n');

  await dropFile(big);
  await waitExplored('big.hipfb');
  const refused = cliList(big, '--verify', `--max-decompressed=${16 << 20}`);
  assert.ok(cliMessages(refused).some((m) => m.includes('within the limit of 16777216 bytes')), 'our CLI refuses it too');
  assert.deepEqual(await pageMessages(), cliMessages(refused), 'the summary shows why the bundle was not decompressed');
  assert.match(await page.locator('#tab-panel .explored-with').textContent(), /Limits: decompressed bundles up to 16 MiB, nesting up to 8 levels, up to 100000 entries per container, every compressed bundle verified\./);
  assert.equal(await page.locator('[role=tab][aria-selected=true] .status-dot.error').count(), 1);
  await page.locator('section.summary').screenshot({ path: join(SHOTS, '16-limit-reached.png') });

  // Raised again and re-opened from the dialog (its key is ","): decompressed and verified.
  await page.locator('body').click({ position: { x: 5, y: 300 } }).catch(() => {});
  await page.keyboard.press(',');
  await page.locator('dialog.settings[open]').waitFor();
  await fields.mib.fill('4096');
  await page.getByRole('button', { name: 'Save and re-open big.hipfb' }).click();
  await page.locator('#tab-panel .explored-with', { hasText: 'up to 4096 MiB' }).waitFor();
  await page.locator('#tab-panel .summary .empty', { hasText: 'No diagnostics.' }).waitFor();
  const verified = cliList(big, '--verify');
  assert.deepEqual(cliMessages(verified), []);
  assert.deepEqual(await pageTargets(), verified.targets.map((x) => x.target_id));
  await page.locator('[role=treeitem] > .row', { hasText: 'AMDGPU code object gfx90a' }).waitFor();
  await page.locator('[role=treeitem] > .row', { hasText: 'compressed bundle v3' }).click();
  assert.equal(await page.locator('.inspector tr[data-field="hash_ok"] td.value').textContent(), 'true', 'the hash was checked');

  // Back to the defaults, saved only: the open file says the settings changed and re-opens.
  await openSettings();
  await page.getByRole('button', { name: 'Restore defaults' }).click();
  assert.deepEqual(await settingsShown(fields), DEFAULTS);
  await page.locator('dialog.settings button[type=submit]').click();
  await page.locator('#tab-panel .explored-with .stale', { hasText: 'The settings have changed since.' }).waitFor();
  await page.getByRole('button', { name: 'Re-open with the current settings' }).click();
  await page.locator('#tab-panel .explored-with', { hasText: 'listed from their header' }).waitFor();
  const listedOnly = cliList(big);
  assert.ok(cliMessages(listedOnly)[0].startsWith('hash not checked'));
  assert.deepEqual(await pageMessages(), cliMessages(listedOnly));

  // A nesting limit of 1 applies to the next file (a sample here): it stops inside the
  // compressed bundle, and the summary says so where our CLI does.
  fields = await openSettings();
  await fields.depth.fill('1');
  await page.keyboard.press('Enter');
  await page.locator('dialog.settings[open]').waitFor({ state: 'detached' });
  await openSample('hip_elf_2arch_compressed.o');
  const shallow = cliList(join(FIXTURES, 'hip_elf_2arch_compressed.o'), '--max-depth=1');
  assert.deepEqual(cliMessages(shallow), ['containers nested deeper than 1 levels are not explored']);
  assert.deepEqual(await pageMessages(), cliMessages(shallow));
  await page.locator('#tab-panel #targets', { hasText: 'No device targets found.' }).waitFor();
  await page.locator('[role=treeitem] > .row', { hasText: 'nested too deeply' }).waitFor();

  // The settings are kept for the next visit; a damaged copy gives the defaults, quietly.
  const other = await context.newPage();
  const otherErrors = [];
  other.on('pageerror', (e) => otherErrors.push(e.message));
  other.on('console', (m) => { if (consoleProblem(m)) otherErrors.push(m.text()); });
  await other.goto(siteUrl);
  await other.locator('.welcome').waitFor();
  assert.deepEqual(await settingsShown(await openSettings(other)), { ...DEFAULTS, depth: '1' });
  await other.evaluate((k) => localStorage.setItem(k, 'max_depth=banana\nverify_all=maybe\nmax_decompressed_mib=-3\n<script>'), SETTINGS_KEY);
  await other.reload();
  await other.locator('.welcome').waitFor();
  assert.deepEqual(await settingsShown(await openSettings(other)), DEFAULTS);
  assert.equal(await other.evaluate((k) => localStorage.getItem(k), SETTINGS_KEY), 'max_decompressed_mib=4096\nmax_depth=8\nverify_all=false\nmax_entries=100000\n', 'rewritten whole');
  assert.deepEqual(otherErrors, []);
  await other.close();

  // Back to the defaults for the tests that follow; the shortcuts dialog lists the key.
  await openSettings();
  await page.getByRole('button', { name: 'Restore defaults' }).click();
  await page.locator('dialog.settings button[type=submit]').click();
  await page.locator('dialog.settings[open]').waitFor({ state: 'detached' });
  await page.keyboard.press('?');
  const row = page.locator('dialog.help[open] tr', { has: page.locator('kbd', { hasText: /^,$/ }) });
  assert.match(await row.textContent(), /Settings/);
  await page.keyboard.press('Escape');
  await page.locator('dialog.help[open]').waitFor({ state: 'detached' });
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
  // The cell shows '··' until its bytes are read from the file (Blob.slice, asynchronous).
  await page.waitForFunction((o) => (document.querySelector(`#hex-grid .hex-bytes .byte[data-offset="${o}"]`)?.textContent ?? '··') !== '··', size - 1);
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
  await page.waitForFunction(() => (document.querySelector('#hex-grid .hex-bytes .byte[data-offset="0"]')?.textContent ?? '··') !== '··');
  assert.equal(await page.locator('#hex-grid .hex-bytes .byte[data-offset="0"]').textContent(), '7f');
  await page.keyboard.press('w');
});

test('every control has an accessible name', async () => {
  const unnamed = await page.evaluate(() => {
    const name = (el) => (el.getAttribute('aria-label') || el.textContent || el.getAttribute('title') || '').trim()
      || (el.getAttribute('aria-labelledby') && document.getElementById(el.getAttribute('aria-labelledby'))?.textContent.trim())
      || [...(el.labels ?? [])].map((l) => l.textContent).join(' ').trim();
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

test('the Kernels view shows every kernel offload kernels finds, across targets, and selects one', async () => {
  const file = join(ROOT, 'tests/images/hip_kernels.o');
  const theirs = JSON.parse(must(OFFLOAD, ['kernels', '--json', file]));
  await dropFile(file);
  await assertKernelsView(page, theirs);
  const panel = page.locator('section.kernels-panel');
  // The LDS kernel's value selects its kernel node for gfx90a in the tree and the inspector.
  // Names are shown demangled (the mangled one is the row's key and its tooltip).
  await panel.getByRole('button', { name: 'LDS of reduce_lds(int const*, int*) on gfx90a: 1024' }).click();
  await page.locator('.inspector .node-label', { hasText: '_Z10reduce_ldsPKiPi' }).waitFor();
  await panel.locator('tr.selected[data-kernel="_Z10reduce_ldsPKiPi"]').waitFor();
  await shot('12-kernels');
  await page.keyboard.press('6');
  assert.equal(await page.locator('section.kernels-panel').count(), 0, '6 hides the kernels view');
  await page.keyboard.press('6');
  await page.locator('section.kernels-panel').waitFor();
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
  assert.equal(await page.evaluate(() => document.activeElement.dataset.sample), samples()[0].file);
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
  const largest = samples().map((s) => [s.fixture, statSync(s.fixture).size]).sort((a, b) => b[1] - a[1])[0];
  await dropFile(largest[0]);
  await page.locator('[role=tab]').last().waitFor();
  await page.locator('#tab-panel section.summary').waitFor();
  const ms = await firstRenderMs();
  const wall = await page.evaluate(() => performance.now() - window.__dropStarted);
  assert.ok(ms > 0 && ms <= wall, `${ms} ms measured by the app, ${wall} ms since the drop`);
  console.log(`# drop-to-first-render of the largest sample, ${largest[0].split('/').pop()} (${largest[1]} bytes): ${ms.toFixed(1)} ms`);
});

test('no request went to another origin and nothing failed on the page', async () => {
  assert.ok(requests.length > 5);
  const foreign = requests.filter((u) => !u.startsWith(origin + '/') && !u.startsWith('blob:') && !u.startsWith('data:'));
  assert.deepEqual(foreign, [], 'requests to other origins');
  const outside = requests.filter((u) => u.startsWith(origin) && !u.startsWith(siteUrl));
  assert.deepEqual(outside, [], 'requests outside the sub-path');
  assert.ok(requests.some((u) => u.endsWith('/explorer.js')), 'the explorer worker was loaded from the sub-path');
  assert.ok(requests.some((u) => u.includes('/samples/')), 'samples were fetched from the sub-path');
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(dialogs, []);
});
