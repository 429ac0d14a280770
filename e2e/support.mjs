// Helpers shared by the end-to-end test files: the built site served from its sub-path, Debian's
// Chromium driven by playwright-core, and the real tools the page is checked against. Every
// helper takes the page it works on, so that a test file can open fresh contexts.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from '../scripts/static-server.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = process.env.E2E_DIST ?? join(ROOT, 'target/e2e-dist');
export const BASE = process.env.E2E_BASE ?? '/some/sub/path/';
export const OFFLOAD = process.env.OFFLOAD ?? join(ROOT, 'target/release/offload');
export const LLVM_BIN = process.env.LLVM_BIN ?? '/usr/lib/llvm-22/bin';
export const FIXTURES = join(ROOT, 'tests/fixtures');
export const SHOTS = join(ROOT, 'test-output/screenshots');

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.error) throw r.error;
  return r;
}

export function must(cmd, args, opts) {
  const r = run(cmd, args, opts);
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

/** `offload list --json` of a file (exit 1 only means "has errors"). */
export function cliList(file, ...flags) {
  const r = run(OFFLOAD, ['list', '--json', ...flags, file]);
  assert.ok(r.status === 0 || r.status === 1, `offload list ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The samples the page offers, from the list the page itself is built from (www/samples.txt):
 * `file`, the name the menu, the tab and the site give it; `fixture`, its path on this machine
 * (listed below tests/fixtures, possibly in a folder, e.g. `packages/x.whl`). */
export function samples() {
  return readFileSync(join(ROOT, 'www/samples.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.split('\t')[0].trim())
    .map((path) => ({ file: path.split('/').pop(), fixture: join(FIXTURES, path) }));
}

/** The built site served from its sub-path, and Chromium. Returns { server, siteUrl, browser,
 * served }; `served` lists every answer the server gave, as { path, status }, in order. */
/** How the tests launch Chromium. */
export const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

export async function startSite() {
  assert.ok(statSync(join(DIST, 'index.html')).isFile(), `no build in ${DIST}: run make e2e`);
  const served = [];
  const onRequest = (method, path, status) => served.push({ path, status });
  const { server, url: siteUrl } = await serveStatic({ dir: DIST, base: BASE, onRequest });
  const browser = await chromium.launch(CHROMIUM);
  return { server, siteUrl, browser, served };
}

/** Whether a console message is one a user would see as a problem: an error or a warning of
 * the page, not Playwright's own note that it blocks service workers (`serviceWorkers: 'block'`). */
export function consoleProblem(m) {
  return (m.type() === 'error' || m.type() === 'warning') && m.text() !== 'Service Worker registration blocked by Playwright';
}

/** A fresh context and page on the site, recording page errors, console errors and warnings, CSP
 * violations and native dialogs into `problems`; downloads are accepted. */
export async function openPage(browser, siteUrl, problems = [], options = {}) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, acceptDownloads: true, ...options });
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (consoleProblem(m)) problems.push(`console: ${m.text()}`); });
  page.on('dialog', (d) => { problems.push(`dialog ${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
  await page.goto(siteUrl);
  await page.locator('.welcome').waitFor();
  return { context, page };
}

/** For a test file that works in one page: registers the hooks that serve the site and open
 * the page before its tests and close both after them. Returns an object whose `page` is set
 * once the tests run; `problems` collects the page's errors (see `openPage`). */
export function sharedPage(problems) {
  const shared = {};
  before(async () => {
    shared.site = await startSite();
    Object.assign(shared, await openPage(shared.site.browser, shared.site.siteUrl, problems));
  });
  after(async () => {
    await shared.context?.close();
    await shared.site?.browser.close();
    shared.site?.server.close();
  });
  return shared;
}

export async function shot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** Waits until the active tab shows an explored file (its summary is on the page). */
export async function waitExplored(page, name) {
  await page.locator(`[role=tab][aria-selected=true]`, { hasText: name }).waitFor();
  await page.locator('#tab-panel section.summary').waitFor();
}

export async function openSample(page, file) {
  await page.locator('#samples-menu > summary').click();
  await page.locator(`#samples-menu button[data-sample="${file}"]`).click();
  await waitExplored(page, file);
}

/** Drops a file onto the page as a user would (a DataTransfer with a File), under `name`. */
export async function dropFile(page, path, name = path.split('/').pop()) {
  await dropFiles(page, [path], [name]);
  await waitExplored(page, name);
  return name;
}

/** Drops several files at once, as a user selecting them together would (under `names`). */
export async function dropFiles(page, paths, names = paths.map((p) => p.split('/').pop())) {
  const files = paths.map((p, i) => ({ name: names[i], data: readFileSync(p).toString('base64') }));
  await page.evaluate((files) => {
    const drag = new DataTransfer();
    for (const { name, data } of files) {
      drag.items.add(new File([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], name));
    }
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(type, { dataTransfer: drag, bubbles: true, cancelable: true }));
    }
  }, files);
}

/** Checks the Kernels view against `offload kernels --json` (`theirs`): its target columns, its
 * rows in order, and each row's registers, LDS, scratch and occupancy per target. */
export async function assertKernelsView(page, theirs) {
  const panel = page.locator('section.kernels-panel');
  await panel.waitFor();
  const targets = await panel.locator('th.kernel-target').allTextContents();
  assert.deepEqual(targets, theirs.targets.map((t) => t.target));
  const rows = await panel.locator('tbody tr[data-kernel]').evaluateAll((trs) => trs.map((tr) => ({
    name: tr.dataset.kernel,
    shown: tr.querySelector('button.kernel-name').textContent,
    title: tr.querySelector('button.kernel-name').title,
    cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
  })));
  assert.deepEqual(rows.map((r) => r.name), theirs.kernels.map((k) => k.name));
  // Shown demangled as the CLI prints them, the mangled name on hover.
  assert.deepEqual(rows.map((r) => r.shown), theirs.kernels.map((k) => k.demangled));
  assert.deepEqual(rows.map((r) => r.title), theirs.kernels.map((k) => k.name));
  for (const [row, k] of rows.map((r, i) => [r, theirs.kernels[i]])) {
    const want = theirs.targets.flatMap((t) => {
      const c = k.targets[t.target];
      return [c?.registers, c?.lds, c?.scratch, c?.occupancy].map((v) => (v === undefined ? '—' : String(v)));
    });
    assert.deepEqual(row.cells, want, row.name);
  }
}

/** Target IDs in the summary table, in order. */
export async function pageTargets(page) {
  return page.locator('table.targets tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.targetId));
}

/** Saves what a click starts downloading; returns { path, name }. */
export async function download(page, click, dir) {
  const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
  const name = dl.suggestedFilename();
  const path = join(dir, name);
  await dl.saveAs(path);
  return { path, name };
}

// ------------------------------------------------- files on other sites (remote) --

/** A wheel: `data` MiB of incompressible bytes stored, then the fixtures' device members
 * deflated (or, with `data` 0, one small module), and its dist-info. */
export function buildWheel(path, data) {
  const script = `
import os, sys, zipfile
out, data_mib, hip, nv_size, nv_none = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
name, version = os.path.basename(out).split('-')[:2]
info = f'{name}-{version}.dist-info'
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr(f'{name}/__init__.py', 'VERSION = "%s"\\n' % version)
    if data_mib:
        with z.open(zipfile.ZipInfo(f'{name}/data/weights.bin'), 'w', force_zip64=True) as member:
            for _ in range(data_mib):
                member.write(os.urandom(1 << 20))
        z.writestr(f'{name}/_C/hip_kernels.o', open(hip, 'rb').read())
        z.writestr(f'{name}/cuda/kernels_size.fatbin', open(nv_size, 'rb').read())
        z.writestr(f'{name}/cuda/kernels_none.fatbin', open(nv_none, 'rb').read())
    z.writestr(f'{info}/METADATA', f'Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n')
    z.writestr(f'{info}/WHEEL', 'Wheel-Version: 1.0\\nGenerator: offload-e2e\\nRoot-Is-Purelib: false\\n')
    z.writestr(f'{info}/RECORD', '')
`;
  execFileSync('python3', ['-c', script, path, String(data), join(FIXTURES, 'hip_elf_2arch_compressed.o'),
    join(FIXTURES, 'nvidia/nv_3arch_size.fatbin'), join(FIXTURES, 'nvidia/nv_3arch_none.fatbin')]);
}

/** Builds at `path` a wheel of two libraries that each inflate past the core's SPILL_OVER
 * (64 MiB): fixtures that clang made, padded by llvm-objcopy with a section of zeros (so the
 * wheel stays small), and a `__init__.py`. `padded` names the padded libraries (member name,
 * fixture), `plain` members added as the fixtures are. */
export function buildPaddedWheel(path, {
  padded = [['padded/libhip.so', 'hip_elf_2arch.o'], ['padded/libcuda.so', 'cuda_elf_newdriver_rdc.o']],
  plain = [],
} = {}) {
  const work = mkdtempSync(join(tmpdir(), 'offload-padded-'));
  try {
    const zeros = join(work, 'zeros.bin');
    writeFileSync(zeros, Buffer.alloc(70 << 20));
    for (const [name, fixture] of padded) {
      must(join(LLVM_BIN, 'llvm-objcopy'), ['--add-section', `.pad=${zeros}`, join(FIXTURES, fixture), join(work, basename(name))]);
    }
    mkdirSync(dirname(path), { recursive: true });
    const script = `
import os, sys, zipfile
out, work, fixtures, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('padded/__init__.py', '')
    for name in names:
        source, _, fixture = name.partition('=')
        z.write(os.path.join(fixtures, fixture) if fixture else os.path.join(work, os.path.basename(name)), source)
`;
    const names = [...padded.map(([name]) => name), ...plain.map(([name, fixture]) => `${name}=${fixture}`)];
    execFileSync('python3', ['-c', script, path, work, FIXTURES, ...names]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Starts `scripts/remote_server.py` on `dir`; resolves to { process, url }. Its stderr is
 * kept, not shown: the size probe's plain GET is aborted after its headers on purpose, and
 * Python's server prints each connection reset so; it is shown if the server stops. */
export function startRemoteServer(dir) {
  const process = spawn('python3', [join(ROOT, 'scripts/remote_server.py'), '--root', dir, '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  process.stderr.on('data', (d) => { stderr = (stderr + d).slice(-20000); });
  const lines = createInterface({ input: process.stdout });
  return new Promise((ok, fail) => {
    process.on('error', fail);
    process.on('exit', (code) => {
      if (code !== null) console.log(`# remote_server.py exited with ${code}:\n${stderr}`);
      fail(new Error(`remote_server.py exited with ${code}`));
    });
    lines.once('line', (line) => ok({ process, url: line.trim() }));
  });
}

