// End-to-end tests of share links, `#url=` links and offline use, on the RELEASE build served
// from a sub-path (see page.test.mjs for the setup this shares). A link copied in one browser
// context is opened in a fresh one; remote files come from a second local server on another
// port, with and without CORS headers; offline, the site's server is shut down.
//
// Environment (set by `make e2e`): E2E_DIST, E2E_BASE, OFFLOAD.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { serveStatic } from '../../scripts/static-server.mjs';
import { consoleProblem } from '../support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = process.env.E2E_DIST ?? join(ROOT, 'target/e2e-dist');
const BASE = process.env.E2E_BASE ?? '/some/sub/path/';
const OFFLOAD = process.env.OFFLOAD ?? join(ROOT, 'target/release/offload');
const FIXTURES = join(ROOT, 'tests/fixtures');

// The file fetched through `#url=` links, its expected tree, and a node deep inside it (the
// gfx90a entry of the decompressed bundle: section → compressed bundle → decompressed bundle
// → bundle → entry) named by its path of child indices.
const REMOTE_FILE = 'hip_elf_2arch_compressed.o';
const REMOTE_SEL = [0, 0, 1, 0, 2];
// 200 KiB of random bytes: no compressor gets them under the 64 KiB a link carries.
const NOISE_FILE = 'noise.bin';
const NOISE_SIZE = 200 * 1024;

let site, siteUrl, origin, files, filesUrl, noCors, noCorsUrl, browser, workDir;

// ------------------------------------------------------------------ helpers --

/** What our CLI says about a file (`offload list --json`). */
function cliList(file) {
  const r = spawnSync(OFFLOAD, ['list', '--json', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.ok(r.status === 0 || r.status === 1, `offload list ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function nodeAt(json, path) {
  return path.reduce((node, i) => node.children[i], json.root);
}

/** A fresh browser context (no storage, no service worker, no clipboard of another) with a
 * page that records its errors, CSP violations, native dialogs and every request. */
async function openContext({ clipboard = true, noClipboardApi = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  if (noClipboardApi) {
    // As on a page served over plain http from another machine: no navigator.clipboard.
    await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true }));
  }
  const page = await context.newPage();
  const seen = { errors: [], dialogs: [], requests: [], serviceWorkerRequests: [] };
  page.on('pageerror', (e) => seen.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (consoleProblem(m)) seen.errors.push(`console: ${m.text()}`); });
  page.on('dialog', (d) => { seen.dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
  // The page's own requests (and its workers'); the service worker's precaching is apart.
  context.on('request', (r) => (r.serviceWorker() ? seen.serviceWorkerRequests : seen.requests).push(r.url()));
  return { context, page, seen };
}

/** Nothing went wrong on the page: no error, no CSP violation, no native dialog. `expected`
 * lists console errors the browser itself prints for what the test does on purpose. */
async function assertClean(page, seen, expected = []) {
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'CSP violations');
  assert.deepEqual(seen.errors.filter((e) => !expected.some((re) => re.test(e))), [], 'page errors');
  assert.deepEqual(seen.dialogs, [], 'native dialogs');
}

async function waitExplored(page, name) {
  await page.locator('[role=tab][aria-selected=true]', { hasText: name }).waitFor();
  await page.locator('#tab-panel section.summary').waitFor();
}

async function openSample(page, file) {
  await page.locator('#samples-menu > summary').click();
  await page.locator(`#samples-menu button[data-sample="${file}"]`).click();
  await waitExplored(page, file);
}

async function pageTargets(page) {
  return page.locator('table.targets tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.targetId));
}

/** The selected tree row: its label and level. */
async function selectedRow(page) {
  const row = page.locator('[role=treeitem][aria-selected=true]');
  return { label: await row.locator(':scope > .row .label').textContent(), level: Number(await row.getAttribute('aria-level')) };
}

/** Drops a file made of `bytes` onto the page. */
async function dropBytes(page, name, bytes) {
  await page.evaluate(({ name, data }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], name));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { name, data: Buffer.from(bytes).toString('base64') });
}

async function copyLink(page) {
  await page.getByRole('button', { name: 'Copy link' }).click();
  await page.locator('.share-status', { hasText: /Link copied|too big|copy this link/ }).waitFor();
}

const clipboardText = (page) => page.evaluate(() => navigator.clipboard.readText());

function closeServer(server) {
  server.closeAllConnections?.();
  return new Promise((ok) => server.close(ok));
}

// -------------------------------------------------------------------- setup --

before(async () => {
  assert.ok(statSync(join(DIST, 'index.html')).isFile(), `no build in ${DIST}: run make e2e`);
  ({ server: site, url: siteUrl } = await serveStatic({ dir: DIST, base: BASE }));
  origin = new URL(siteUrl).origin;
  // The files `#url=` links point at, on two other ports: one server allows any origin to
  // read them, the other sends no CORS header (as most servers do).
  workDir = mkdtempSync(join(tmpdir(), 'offload-share-'));
  copyFileSync(join(FIXTURES, REMOTE_FILE), join(workDir, REMOTE_FILE));
  writeFileSync(join(workDir, NOISE_FILE), randomBytes(NOISE_SIZE));
  ({ server: files, url: filesUrl } = await serveStatic({ dir: workDir, base: '/', cors: true }));
  ({ server: noCors, url: noCorsUrl } = await serveStatic({ dir: workDir, base: '/' }));
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  for (const s of [site, files, noCors]) if (s) await closeServer(s);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

// -------------------------------------------------------------------- tests --

test('a copied link opens the same file, targets and selected node in a fresh browser', async () => {
  const { context, page, seen } = await openContext();
  await page.goto(siteUrl);
  const file = 'libhip_3tu_compressed.so';
  await openSample(page, file);
  // The deepest node of the tree, last of its level: a path several levels down.
  const rows = page.locator('[role=treeitem]');
  const levels = await rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('aria-level'))));
  const deepest = levels.lastIndexOf(Math.max(...levels));
  await rows.nth(deepest).locator(':scope > .row').click();
  const selected = await selectedRow(page);
  assert.ok(selected.level >= 4, `a deep node is selected: ${JSON.stringify(selected)}`);
  const targets = await pageTargets(page);
  assert.ok(targets.length >= 2, 'the file has device targets');

  await copyLink(page);
  await page.locator('.share-status', { hasText: 'Link copied' }).waitFor();
  const link = await clipboardText(page);
  assert.ok(link.startsWith(`${siteUrl}#file=${file}&sel=`), link.slice(0, 120));
  const shownLength = Number(await page.locator('.share-status').getAttribute('data-link-length'));
  assert.equal(shownLength, link.length, 'the status gives the length of the copied link');
  console.log(`# share link for ${file} (${statSync(join(FIXTURES, file)).size} bytes), node "${selected.label}": ${link.length} characters`);
  console.log(`# ${link.slice(0, 160)}…`);

  // The shortcut copies the same link.
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await page.locator('body').press('l');
  await page.locator('.share-status', { hasText: 'Link copied' }).waitFor();
  await page.waitForFunction((expected) => navigator.clipboard.readText().then((t) => t === expected), link);

  // A fresh context: nothing of the first one (storage, caches) is there.
  const fresh = await openContext();
  await fresh.page.goto(link);
  await waitExplored(fresh.page, file);
  assert.deepEqual(await pageTargets(fresh.page), targets, 'same targets');
  assert.deepEqual(await selectedRow(fresh.page), selected, 'same selected node');
  assert.equal(await fresh.page.locator('.inspector .node-label').textContent(), selected.label);
  await fresh.page.locator('[role=treeitem][aria-selected=true]').screenshot({ path: join(ROOT, 'test-output/screenshots/20-share-opened.png') }).catch(() => {});
  await assertClean(fresh.page, fresh.seen);
  // Nothing was fetched for the file: it came in the link.
  assert.deepEqual(fresh.seen.requests.filter((u) => u.includes('/samples/')), [], 'no sample fetched by the page');

  // Following a link in an open page (hashchange) opens it in another tab.
  const tabs = await page.locator('[role=tab]').count();
  await page.evaluate((hash) => { location.hash = hash; }, new URL(link).hash);
  await page.locator('[role=tab]').nth(tabs).waitFor();
  await waitExplored(page, file);
  assert.deepEqual(await selectedRow(page), selected, 'same selected node after hashchange');
  await assertClean(page, seen);
  await fresh.context.close();
  await context.close();
});

test('without a clipboard, the link is shown selected for copying by hand', async () => {
  const { context, page, seen } = await openContext({ clipboard: false, noClipboardApi: true });
  await page.goto(siteUrl);
  await openSample(page, 'bundle_text.ll');
  await copyLink(page);
  const field = page.locator('#share-link-text');
  await field.waitFor();
  const link = await field.inputValue();
  assert.ok(link.startsWith(`${siteUrl}#file=bundle_text.ll&zlib=`), link.slice(0, 100));
  const selection = await page.evaluate(() => {
    const el = document.activeElement;
    return { id: el.id, readOnly: el.readOnly, selected: el.selectionEnd - el.selectionStart, length: el.value.length };
  });
  assert.deepEqual(selection, { id: 'share-link-text', readOnly: true, selected: link.length, length: link.length });
  await assertClean(page, seen);
  await context.close();
});

test('a damaged link says what is wrong and the page keeps working', async () => {
  const { context, page, seen } = await openContext();
  await page.goto(siteUrl);
  await openSample(page, 'omp_elf_2arch.o');
  await copyLink(page);
  const good = await clipboardText(page);
  const cut = good.slice(0, good.length - 40);
  const cases = [
    [`${siteUrl}#file=x.o&zlib=AB*D`, /expected base64url .* found '\*' at character 2/i],
    [cut, /the compressed stream ends early|cut short/],
    [`${siteUrl}#file=x.o&sel=1.x&zlib=AAAA`, /expected the selection \(sel=\) as child indices joined by dots, like 0\.2\.1, found "1\.x"/i],
    [`${siteUrl}#file=x.o&size=1&zlib=AAAA`, /expected the parameters file=, sel=, zlib= or url=, found "size="/i],
  ];
  for (const [url, message] of cases) {
    const fresh = await openContext();
    await fresh.page.goto(url);
    const dialog = fresh.page.locator('dialog.remote[open]');
    await dialog.locator('h2', { hasText: 'This link could not be opened' }).waitFor();
    assert.match(await dialog.locator('.problem').textContent(), message);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    await fresh.page.locator('.welcome').waitFor();
    await openSample(fresh.page, 'bundle_text.ll');
    await assertClean(fresh.page, fresh.seen);
    await fresh.context.close();
  }
  await assertClean(page, seen);
  await context.close();
});

test('a #url= link asks first, then fetches with CORS and opens the file with its selection', async () => {
  const { context, page, seen } = await openContext();
  const address = `${filesUrl}${REMOTE_FILE}`;
  const json = cliList(join(FIXTURES, REMOTE_FILE));
  await page.goto(`${siteUrl}#sel=${REMOTE_SEL.join('.')}&url=${address}`);
  const dialog = page.locator('dialog.remote[open]');
  await dialog.locator('code', { hasText: address }).waitFor();
  assert.deepEqual(seen.requests.filter((u) => u.startsWith(filesUrl)), [], 'nothing is fetched before the user says Open');
  await page.screenshot({ path: join(ROOT, 'test-output/screenshots/21-url-prompt.png') });
  await dialog.getByRole('button', { name: 'Open' }).click();
  await waitExplored(page, REMOTE_FILE);
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(await pageTargets(page), json.targets.map((t) => t.target_id), 'targets');
  const expected = nodeAt(json, REMOTE_SEL);
  assert.deepEqual(await selectedRow(page), { label: expected.label, level: REMOTE_SEL.length + 1 }, 'the selection of the link');
  assert.ok(seen.requests.includes(address), 'fetched from the other server');

  // The same link written with encodeURIComponent (as URLSearchParams and most tools write it)
  // opens the same address, not a path under the page.
  await page.getByRole('button', { name: `Close ${REMOTE_FILE}` }).click();
  await page.evaluate((hash) => { location.hash = hash; }, `#sel=${REMOTE_SEL.join('.')}&url=${encodeURIComponent(address)}`);
  await dialog.locator('code', { hasText: address }).waitFor();
  await dialog.getByRole('button', { name: 'Open' }).click();
  await waitExplored(page, REMOTE_FILE);
  assert.deepEqual(await pageTargets(page), json.targets.map((t) => t.target_id), 'targets of the encoded link');
  assert.deepEqual(await selectedRow(page), { label: expected.label, level: REMOTE_SEL.length + 1 }, 'the selection of the encoded link');

  // Cancel: nothing is fetched, no tab opens.
  const before = await page.locator('[role=tab]').count();
  await page.evaluate((hash) => { location.hash = hash; }, `#url=${filesUrl}${NOISE_FILE}`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await page.locator('[role=tab]').count(), before);
  assert.ok(!seen.requests.includes(`${filesUrl}${NOISE_FILE}`), 'cancelled before fetching');

  // An HTTP error says its status.
  await page.evaluate((hash) => { location.hash = hash; }, `#url=${filesUrl}missing.o`);
  await dialog.getByRole('button', { name: 'Open' }).click();
  await dialog.locator('.problem', { hasText: 'HTTP 404' }).waitFor();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
  await assertClean(page, seen, [/Failed to load resource: the server responded with a status of 404/]);
  await context.close();
});

test('a #url= download shows its progress and Cancel stops it', async () => {
  // A server that announces 1 MiB, sends 64 KiB, then waits: the download stays under way.
  let closed;
  const hung = new Promise((ok) => { closed = ok; });
  const slow = createServer((req, res) => {
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Length': 1 << 20, 'Content-Type': 'application/octet-stream' });
    res.write(Buffer.alloc(64 << 10));
    req.socket.on('close', closed);
  });
  await new Promise((ok) => slow.listen(0, '127.0.0.1', ok));
  const address = `http://127.0.0.1:${slow.address().port}/slow.bin`;
  const { context, page, seen } = await openContext();
  await page.goto(`${siteUrl}#url=${address}`);
  const dialog = page.locator('dialog.remote[open]');
  await dialog.getByRole('button', { name: 'Open' }).click();
  await dialog.locator('.remote-progress', { hasText: '64.0 KiB of 1.0 MiB read' }).waitFor();
  assert.equal(await dialog.locator('progress').getAttribute('max'), String(1 << 20));
  await page.screenshot({ path: join(ROOT, 'test-output/screenshots/25-url-progress.png') });
  await dialog.getByRole('button', { name: 'Cancel the download' }).click();
  await dialog.waitFor({ state: 'detached' });
  await hung; // the browser dropped the connection
  await page.waitForTimeout(300);
  assert.equal(await page.locator('dialog.remote[open]').count(), 0, 'the dialog stays closed');
  assert.equal(await page.locator('[role=tab]').count(), 0, 'no tab for a cancelled download');
  await assertClean(page, seen);
  await context.close();
  slow.closeAllConnections();
  slow.close();
});

test('a #url= link to a server without CORS headers says so clearly, and addresses that are not https are refused', async () => {
  const { context, page, seen } = await openContext();
  await page.goto(`${siteUrl}#url=${noCorsUrl}${REMOTE_FILE}`);
  const dialog = page.locator('dialog.remote[open]');
  await dialog.getByRole('button', { name: 'Open' }).click();
  const problem = dialog.locator('.problem');
  await problem.waitFor();
  const text = await problem.textContent();
  assert.match(text, /did not allow this page to read the file/);
  assert.match(text, /no Access-Control-Allow-Origin header/);
  assert.match(text, /Download the file and drop it on this page instead/);
  await page.screenshot({ path: join(ROOT, 'test-output/screenshots/22-url-no-cors.png') });
  await dialog.getByRole('button', { name: 'Close' }).click();
  assert.equal(await page.locator('[role=tab]').count(), 0, 'no tab for a file that could not be read');

  for (const [address, message] of [
    ['http://example.com/x.o', /expected an https address \(or http on localhost or 127\.0\.0\.1\), found http on example\.com/i],
    ['http://[::1]:8080/x.o', /found http on \[::1\], which the page's Content-Security-Policy cannot name: use http:\/\/localhost/i],
    ['ftp://example.com/x.o', /found a ftp: address/],
    ['javascript:alert(1)', /found a javascript: address/],
  ]) {
    await page.evaluate((hash) => { location.hash = hash; }, `#url=${address}`);
    await dialog.locator('.problem', { hasText: message }).waitFor();
    assert.equal(await dialog.getByRole('button', { name: 'Open' }).count(), 0, 'nothing to open');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  }
  assert.deepEqual(seen.requests.filter((u) => !u.startsWith(origin) && !u.startsWith(noCorsUrl)), [], 'no request to a refused address');
  // Still working.
  await openSample(page, 'bundle_text.ll');
  // Chromium itself reports the refused read in the console (the page cannot prevent that).
  await assertClean(page, seen, [/blocked by CORS policy/, /Failed to load resource: net::ERR_FAILED/]);
  await context.close();
});

test('a file too big for a link says so; opened from a #url= link, its address is shared instead', async () => {
  const { context, page, seen } = await openContext();
  await page.goto(siteUrl);
  await dropBytes(page, NOISE_FILE, readFileSync(join(workDir, NOISE_FILE)));
  await page.locator('[role=tab][aria-selected=true]', { hasText: NOISE_FILE }).waitFor();
  await page.evaluate(() => navigator.clipboard.writeText('untouched'));
  await copyLink(page);
  const status = page.locator('.share-status.problem');
  await status.waitFor();
  const text = await status.textContent();
  assert.match(text, new RegExp(`${NOISE_FILE}: The file \\(${NOISE_SIZE} bytes\\) is too big for a link`));
  assert.match(text, /links carry at most 64 KiB compressed, and its first \d+ bytes already compress to more than that/);
  assert.equal(await clipboardText(page), 'untouched', 'nothing was copied');
  await page.screenshot({ path: join(ROOT, 'test-output/screenshots/23-too-big.png') });
  await status.getByRole('button', { name: 'Dismiss' }).click();

  const address = `${filesUrl}${NOISE_FILE}`;
  await page.evaluate((hash) => { location.hash = hash; }, `#url=${address}`);
  await page.locator('dialog.remote[open]').getByRole('button', { name: 'Open' }).click();
  await page.locator('[role=tab][aria-selected=true]', { hasText: NOISE_FILE }).waitFor();
  await page.locator('#tab-panel section.summary').waitFor();
  await copyLink(page);
  const note = page.locator('.share-status', { hasText: 'Link copied' });
  await note.waitFor();
  assert.match(await note.textContent(), /too big for a link.*So the link points at the address it came from/);
  assert.equal(await clipboardText(page), `${siteUrl}#url=${address}`);
  await assertClean(page, seen);
  await context.close();
});

test('offline: after one visit the page opens and explores a sample with no network', async () => {
  // A server of its own, to shut down.
  const { server, url } = await serveStatic({ dir: DIST, base: BASE });
  const serverOrigin = new URL(url).origin;
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const page = await context.newPage();
  const seen = { errors: [], dialogs: [] };
  page.on('pageerror', (e) => seen.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (consoleProblem(m)) seen.errors.push(`console: ${m.text()}`); });
  page.on('dialog', (d) => { seen.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.goto(url);
  await page.locator('.welcome').waitFor();
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, url, 'the service worker\'s scope is the sub-path');
  // clients.claim() makes the worker control this page once it is active.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const cached = await page.evaluate(async () => {
    const names = await caches.keys();
    const cache = await caches.open(names.find((n) => n.startsWith('offload-explorer ')));
    return (await cache.keys()).map((r) => r.url);
  });
  assert.ok(cached.includes(url), 'the page is cached as its scope URL');
  for (const binary of ['app_bg.wasm', 'app.js', 'app_loader.js', 'explorer.js', 'editor_bg.wasm', 'disasm_bg.wasm', 'disasm_worker.js']) {
    assert.ok(cached.some((u) => u.endsWith(`/${binary}`)), `${binary} is cached: ${cached.join(' ')}`);
  }

  await closeServer(server);
  await context.setOffline(true);
  const down = await fetch(url).then(() => 'up', () => 'down');
  assert.equal(down, 'down', 'the server is really gone');
  await page.reload();
  await page.locator('.welcome').waitFor();
  await openSample(page, 'hip_rdc_archive.a');
  const expected = cliList(join(FIXTURES, 'hip_rdc_archive.a')).targets.map((t) => t.target_id);
  assert.deepEqual(await pageTargets(page), expected, 'explored offline');
  assert.equal(await page.locator('#tab-panel .notice.error').count(), 0);
  await page.screenshot({ path: join(ROOT, 'test-output/screenshots/24-offline.png') });
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.dialogs, []);
  assert.ok(serverOrigin.startsWith('http://127.0.0.1:'));
  await context.close();
});
