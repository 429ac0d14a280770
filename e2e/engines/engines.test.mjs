// The page in the engines other than Chromium (E2E_ENGINE=firefox or webkit; see driver.mjs):
// the release build served from a sub-path, driven through WebDriver as a user would (pointer
// clicks, keys, the file input), checked against what our CLI says about the same files. The
// Chromium suite (../tests/) covers much more; this one covers what differs between engines:
// opening files, every view, hex bytes, an edit and Undo, a download, a share link, many tabs,
// the layout of the views, the service worker, and a console with nothing in it.
//
// Environment (set by `make e2e-engines`): E2E_ENGINE, E2E_DIST, E2E_BASE, OFFLOAD.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveStatic } from '../../scripts/static-server.mjs';
import { DIST, BASE, FIXTURES, OFFLOAD, ROOT, buildPaddedWheel, buildWheel, cliList, must, samples, startRemoteServer } from '../support.mjs';
import { By, Origin, startEngine, until, watchPage, webkitConsoleOfLoad } from './driver.mjs';

const ENGINE = process.env.E2E_ENGINE ?? 'firefox';
const SHOTS = join(ROOT, 'test-output/screenshots', ENGINE);
const SAMPLES = samples();

let server, siteUrl, session, d;
const served = []; // { path, status, referer }
const tmp = mkdtempSync(join(tmpdir(), `e2e-${ENGINE}-`));

before(async () => {
  assert.ok(statSync(join(DIST, 'index.html')).isFile(), `no build in ${DIST}: run make e2e-engines`);
  ({ server, url: siteUrl } = await serveStatic({
    dir: DIST, base: BASE,
    onRequest: (method, path, status, headers) => served.push({ path, status, referer: headers.referer ?? '' }),
  }));
  session = await startEngine(ENGINE, { downloads: join(tmp, 'downloads') });
  d = session.driver;
  console.log(`engine: ${session.version}`);
});

after(async () => {
  await session?.quit();
  server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

// ------------------------------------------------------------------ helpers --

/** `find` again while WebKit says an element it found went stale as the page drew anew. */
async function unstale(find) {
  for (let tries = 0; ; tries++) {
    try {
      return await find();
    } catch (e) {
      if (e.name !== 'StaleElementReferenceError' || tries >= 20) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
const $ = (css) => d.findElement(By.css(css));
const $$ = (css) => unstale(() => d.findElements(By.css(css)));
const js = (body, ...args) => d.executeScript(body, ...args);

async function waitFor(css, ms = 60000) {
  return d.wait(async () => (await $$(css))[0] ?? null, ms, `waiting for ${css}`);
}

async function waitUntil(body, ms = 60000, ...args) {
  return d.wait(async () => js(body, ...args), ms, `waiting until ${body}`);
}

async function load(url = siteUrl) {
  await d.get(url);
  await watchPage(session);
  await waitFor('.welcome, #tab-panel');
}

async function shot(name) {
  mkdirSync(SHOTS, { recursive: true });
  writeFileSync(join(SHOTS, `${name}.png`), await d.takeScreenshot(), 'base64');
}

/** Waits until the active tab shows `name` explored. */
async function waitExplored(name) {
  try {
    await waitUntil(
      `const tab = document.querySelector('[role=tab][aria-selected=true]');
       return !!tab && tab.textContent.includes(arguments[0]) && !!document.querySelector('#tab-panel section.summary');`,
      60000, name);
  } catch (e) {
    // What the page showed instead, so that a failure in CI says why (a progress line stuck, an
    // error, another tab selected) rather than only that the summary never came.
    await shot(`timeout-${name}`).catch(() => {});
    const shown = await js(`const tab = document.querySelector('[role=tab][aria-selected=true]');
      return { tab: tab?.textContent ?? null, panel: (document.querySelector('#tab-panel')?.innerText ?? '').slice(0, 600) };`)
      .catch((why) => ({ unreadable: String(why) }));
    e.message += `\nwaiting for ${name}; the page showed ${JSON.stringify(shown)}`;
    throw e;
  }
}

async function openSample(file) {
  await $('#samples-menu > summary').click();
  await (await waitFor(`#samples-menu button[data-sample="${file}"]`)).click();
  await waitExplored(file);
}

async function pageTargets() {
  return js(`return [...document.querySelectorAll('table.targets tbody tr')].map((r) => r.dataset.targetId)`);
}

const cliTargets = (path) => cliList(path).targets.map((t) => t.target_id);

function walk(node, out = []) {
  out.push(node);
  for (const c of node.children) walk(c, out);
  return out;
}

/** A view's pane and its box. */
async function rect(css) {
  return js(`const el = document.querySelector(arguments[0]); if (!el) return null;
    const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: r.height, left: r.left, width: r.width };`, css);
}

/** Clicks an element with the pointer, scrolled into the middle of its panel first (as a user
 * scrolls a panel to what they want to click). */
async function click(el) {
  await d.wait(async () => js(`const el = arguments[0];
    el.scrollIntoView({ block: 'center', inline: 'nearest' });
    const r = el.getBoundingClientRect();
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!at && el.contains(at);`, el), 10000, 'the element is on screen, uncovered').catch(async (e) => {
    await shot('failed-click');
    const why = await js(`const r = arguments[0].getBoundingClientRect();
      return JSON.stringify(r) + ' ' + document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.outerHTML.slice(0, 160)`, el);
    throw new Error(`${e.message}: ${why}`);
  });
  try {
    await el.click();
  } catch (e) {
    const why = await js(`const r = arguments[0].getBoundingClientRect();
      return JSON.stringify(r) + ' ' + document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.outerHTML.slice(0, 120)`, el);
    throw new Error(`${e.name} clicking ${await el.getAttribute('outerHTML').then((h) => h.slice(0, 120))}: ${why}`);
  }
}

/** Presses a key as a user would (to whatever has the focus). */
async function press(key) {
  await d.actions().sendKeys(key).perform();
}

/** The file a click saves: Firefox saves it into the session's download folder; WebKitGTK's
 * automation has no download folder, so there the file the page hands the browser (the object
 * URL of its `<a download>`) is read back instead. Returns { name, bytes }. */
async function download(click) {
  if (ENGINE === 'firefox') {
    const dir = session.downloads;
    const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
    await click();
    let name;
    await d.wait(async () => {
      const now = existsSync(dir) ? readdirSync(dir) : [];
      name = now.find((f) => !before.has(f) && !f.endsWith('.part'));
      return !!name && !now.some((f) => f.endsWith('.part'));
    }, 30000, 'waiting for the download');
    return { name, bytes: readFileSync(join(dir, name)) };
  }
  // The Blob behind each object URL the page makes, kept when it is made (fetching a blob:
  // URL would be a request the page's CSP does not allow).
  await js(`window.__saved = null;
    if (!window.__clickPatched) {
      window.__clickPatched = true;
      const blobs = new Map();
      const make = URL.createObjectURL;
      URL.createObjectURL = (b) => { const u = make(b); blobs.set(u, b); return u; };
      const click = HTMLAnchorElement.prototype.click;
      HTMLAnchorElement.prototype.click = function () {
        const blob = this.download && blobs.get(this.href);
        if (!blob) return click.call(this);
        const name = this.download;
        blob.arrayBuffer().then((b) => {
          let s = ''; const u = new Uint8Array(b);
          for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode(...u.subarray(i, i + 0x8000));
          window.__saved = { name, data: btoa(s) };
        });
      };
    }`);
  await click();
  const saved = await d.wait(async () => js('return window.__saved'), 30000, 'waiting for the download');
  return { name: saved.name, bytes: Buffer.from(saved.data, 'base64') };
}

// -------------------------------------------------------------------- tests --

test('the page loads with its wasm fetched once and no error, warning or CSP complaint', async () => {
  const from = served.length;
  await load();
  await shot('01-welcome');
  // The service worker (its requests come from sw.js) caches every file in the background;
  // the page itself asks for its binary once.
  await d.sleep(1500);
  const pageAsked = served.slice(from).filter((r) => r.path.endsWith('/app_bg.wasm') && !r.referer.endsWith('/sw.js'));
  assert.equal(pageAsked.length, 1, `app_bg.wasm asked for ${pageAsked.length} times: ${JSON.stringify(pageAsked)}`);
  assert.deepEqual(await session.problems(), []);
  if (ENGINE === 'webkit') {
    // What WebKit's console says while loading the page (with a file from a link, so that the
    // app runs and explores): nothing.
    const link = `${siteUrl}#file=x.bin&zlib=${Buffer.from([0x78, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]).toString('base64url')}`;
    assert.deepEqual(await webkitConsoleOfLoad(link, 8000), []);
  }
});

test('every sample, and a file picked with the file input, show the targets `offload list` gives', async () => {
  for (const { file, fixture } of SAMPLES) {
    await openSample(file);
    assert.deepEqual(await pageTargets(), cliTargets(fixture), file);
  }
  const kernels = join(ROOT, 'tests/images/hip_kernels.o');
  await $('#file-input').sendKeys(kernels);
  await waitExplored('hip_kernels.o');
  assert.deepEqual(await pageTargets(), cliTargets(kernels), 'hip_kernels.o');
  await shot('02-file-input');
});

test('every view shows, and hides and shows again with its key', async () => {
  // hip_kernels.o (the active tab) has kernels, so all six views are there.
  const views = { 1: 'section.summary', 2: 'section.tree-panel', 3: 'section.map-panel', 4: 'section.hex-panel', 5: 'section.inspector', 6: 'section.kernels-panel' };
  const theirs = JSON.parse(must(OFFLOAD, ['kernels', '--json', join(ROOT, 'tests/images/hip_kernels.o')]));
  for (const [key, css] of Object.entries(views)) {
    const shown = await rect(`#tab-panel ${css}`);
    assert.ok(shown && shown.height > 40 && shown.width > 100, `${css} is on screen: ${JSON.stringify(shown)}`);
    await js('document.activeElement?.blur()');
    await press(key);
    await d.wait(async () => (await $$(`#tab-panel ${css}`)).length === 0, 10000, `${key} hides ${css}`);
    await press(key);
    await waitFor(`#tab-panel ${css}`);
  }
  const names = await js(`return [...document.querySelectorAll('section.kernels-panel tbody tr[data-kernel]')].map((tr) => tr.dataset.kernel)`);
  assert.deepEqual(names, theirs.kernels.map((k) => k.name), 'the kernels view lists what `offload kernels` lists');
  // Kernel names are not underlined (an underline hid their underscores).
  const decoration = await js(`return getComputedStyle(document.querySelector('button.kernel-name')).textDecorationLine`);
  assert.equal(decoration, 'none');
  await shot('03-every-view');
});

test('selecting a target highlights its bytes, which are the bytes `offload extract` writes', async () => {
  const file = 'hip_elf_2arch_compressed.o';
  await (await waitFor(`[role=tab][title="${file}"]`)).click();
  await waitExplored(file);
  const json = cliList(join(FIXTURES, file));
  const out = join(tmp, 'extract');
  must(OFFLOAD, ['extract', join(FIXTURES, file), '-o', out]);
  for (const target of json.targets) {
    const entry = walk(json.root).find((n) => n.kind === 'bundle-entry' && n.fields.id === target.target_id);
    await click(await $(`table.targets tr[data-target-id="${target.target_id}"] button`));
    await waitUntil(`const b = document.querySelector('#hex-grid[data-space="${entry.space}"] .hex-bytes .byte.in-node');
      return !!b && b.dataset.offset === '${entry.offset}' && b.textContent !== '··';`);
    const shown = await js(`return [...document.querySelectorAll('#hex-grid .hex-bytes .byte.in-node')].slice(0, 16).map((c) => parseInt(c.textContent, 16))`);
    const extracted = readdirSync(out).find((f) => f.includes(target.target_id.replaceAll(':', '_')) && f.endsWith('.co'));
    assert.ok(extracted, `extract wrote ${target.target_id}`);
    assert.deepEqual(shown, [...readFileSync(join(out, extracted)).subarray(0, 16)], target.target_id);
  }
  await shot('04-hex-selection');
});

test('an edit, its download, Undo, and the download of the file as opened, byte for byte', async () => {
  const file = 'omp_elf_2arch.o';
  await (await waitFor(`[role=tab][title="${file}"]`)).click();
  await waitExplored(file);
  const label = 'offload entry openmp amdgcn-amd-amdhsa gfx1030';
  const row = await d.wait(async () => js(
    `return [...document.querySelectorAll('#tree .row')].find((r) => r.querySelector('.label')?.textContent.includes(arguments[0]))`, label),
  10000, 'the entry in the tree');
  await click(row);
  await waitUntil(`return document.querySelector('.inspector .node-label')?.textContent.includes(arguments[0])`, 10000, label);
  const triple = await $('input[aria-label="Value of triple"]');
  await triple.clear();
  await triple.sendKeys('amdgcn-amd-amdpal');
  await click(await findButton('Apply triple'));
  await waitFor('#tab-panel[data-version="1"] section.summary');
  await waitFor('[role=tab][aria-selected=true] .tab-edited');
  const edited = await download(async () => (await findButton('Download file')).click());
  assert.equal(edited.name, file);
  const editedPath = join(tmp, `edited-${file}`);
  writeFileSync(editedPath, edited.bytes);
  assert.deepEqual(cliList(editedPath).targets.map((t) => t.triple).sort(), ['amdgcn-amd-amdhsa', 'amdgcn-amd-amdpal']);

  await (await findButton('Undo')).click();
  await waitFor('#tab-panel[data-version="0"] section.summary');
  const original = await download(async () => (await findButton('Download file')).click());
  assert.ok(original.bytes.equals(readFileSync(join(FIXTURES, file))), 'after Undo the download is the file as opened, byte for byte');
  await shot('05-after-undo');
  // The editor worker started for the edit: it too said nothing.
  assert.deepEqual(await session.problems(), []);
});

async function findButton(text) {
  // Found in the page in one step: looking through every button from here raced with the page
  // drawing them anew (WebKit then reports a stale element).
  return d.wait(async () => js(`return [...document.querySelectorAll('button')]
    .find((b) => b.getAttribute('aria-label') === arguments[0] || b.textContent.trim() === arguments[0]) ?? null`, text)
    .catch((e) => { if (e.name === 'StaleElementReferenceError') return null; throw e; }), 10000, `a button "${text}"`);
}

test('many tabs: each is clicked with the pointer and shown, and none is hidden or covered', async () => {
  while ((await $$('[role=tab]')).length < 14) await openSample(SAMPLES[(await $$('[role=tab]')).length % SAMPLES.length].file);
  const tabs = await $$('[role=tab]');
  await shot('06-many-tabs');
  for (const [i, tab] of [...tabs.entries()].reverse()) {
    // What a pointer at the tab's centre would hit is the tab.
    const hit = await js(`const r = arguments[0].getBoundingClientRect();
      const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !!at && arguments[0].contains(at) && r.bottom <= innerHeight && r.right <= innerWidth;`, tab);
    assert.ok(hit, `tab ${i} is on screen and uncovered`);
    await tab.click();
    assert.equal(await tab.getAttribute('aria-selected'), 'true', `tab ${i} is selected by a click`);
    await waitExplored(await tab.getAttribute('title'));
  }
});

test('two views shown fill the window; the splitter, its keys, maximise and per-tab layout', async () => {
  await (await waitFor('[role=tab][title="hip_kernels.o"]')).click();
  await waitExplored('hip_kernels.o');
  await js('document.activeElement?.blur()');
  for (const key of ['2', '3', '4', '5']) await press(key); // hide tree, map, hex, inspector
  await waitUntil(`return document.querySelectorAll('#tab-panel .pane').length === 2`);
  const workspace = await rect('#tab-panel .workspace');
  const viewport = await js('return innerHeight');
  assert.ok(Math.abs(workspace.bottom - viewport) <= 1, `the views reach the window's bottom: ${workspace.bottom} of ${viewport}`);
  const summary = await rect('#pane-summary');
  const kernels = await rect('#pane-kernels');
  const splitter = await rect('#tab-panel .splitter-rows');
  const padding = 6;
  assert.ok(Math.abs(summary.top - (workspace.top + padding)) <= 1, 'the summary starts at the top');
  assert.ok(Math.abs(kernels.bottom - (workspace.bottom - padding)) <= 1, 'the kernels end at the bottom');
  assert.ok(Math.abs(summary.height + splitter.height + kernels.height - (workspace.height - 2 * padding)) <= 2,
    `together they cover the height: ${summary.height} + ${splitter.height} + ${kernels.height} of ${workspace.height}`);
  await shot('07-two-views');

  // Dragged down by 120 px: the summary grows by as much as the kernels shrink.
  const bar = await $('#tab-panel .splitter-rows');
  await d.actions().move({ origin: bar }).press().move({ origin: Origin.POINTER, y: 60 }).move({ origin: Origin.POINTER, y: 60 }).release().perform();
  const summary2 = await rect('#pane-summary');
  const kernels2 = await rect('#pane-kernels');
  assert.ok(Math.abs(summary2.height - summary.height - 120) <= 4, `the summary grew by 120 px: ${summary.height} → ${summary2.height}`);
  assert.ok(Math.abs(kernels.height - kernels2.height - 120) <= 4, `the kernels shrank by 120 px: ${kernels.height} → ${kernels2.height}`);
  // Keys: the splitter is focused, ArrowUp gives room back.
  await bar.sendKeys('\uE013'); // ArrowUp
  const summary3 = await rect('#pane-summary');
  assert.ok(summary3.height < summary2.height - 10, `ArrowUp shrinks the summary: ${summary2.height} → ${summary3.height}`);
  assert.equal(await bar.getAttribute('role'), 'separator');

  // Maximise the kernels with the button: they take the whole tab; `m` restores.
  await (await findButton('Maximise Kernels')).click();
  await waitUntil(`return !document.querySelector('#pane-summary')`);
  const max = await rect('#pane-kernels');
  assert.ok(Math.abs(max.height - (workspace.height - 2 * padding)) <= 2, `maximised, the kernels take the height: ${max.height}`);
  await shot('08-maximised');
  await press('m');
  await waitFor('#pane-summary');
  assert.ok(Math.abs((await rect('#pane-summary')).height - summary3.height) <= 2, 'restored as it was');

  // Each tab keeps its layout: another tab has the default, this one its own when back.
  const other = SAMPLES[0].file;
  await (await waitFor(`[role=tab][title="${other}"]`)).click();
  await waitExplored(other);
  const otherSummary = await rect('#pane-summary');
  assert.ok(Math.abs(otherSummary.height - summary3.height) > 10, 'another tab has its own sizes');
  await (await waitFor('[role=tab][title="hip_kernels.o"]')).click();
  await waitExplored('hip_kernels.o');
  assert.ok(Math.abs((await rect('#pane-summary')).height - summary3.height) <= 2, 'and this tab has kept its own');
  await js('document.activeElement?.blur()');
  for (const key of ['2', '3', '4', '5']) await press(key);
  await waitUntil(`return document.querySelectorAll('#tab-panel .pane').length === 6`);
  // Columns: the splitter between the tree and the centre moves sideways.
  const tree = await rect('#pane-tree');
  const columnBar = await $('#tab-panel .splitter-columns');
  await d.actions().move({ origin: columnBar }).press().move({ origin: Origin.POINTER, x: 80 }).release().perform();
  assert.ok(Math.abs((await rect('#pane-tree')).width - tree.width - 80) <= 4, 'the tree is 80 px wider');
  await shot('09-all-views');
  assert.deepEqual(await session.problems(), []);
});

test('a share link opens in a fresh session with the same file, targets and selection', async () => {
  const file = 'libhip_3tu_compressed.so';
  await (await waitFor(`[role=tab][title="${file}"]`)).click();
  await waitExplored(file);
  const target = cliList(join(FIXTURES, file)).targets[0].target_id;
  const before = await js(`return document.querySelector('.inspector .node-label')?.textContent ?? ''`);
  await click(await $(`table.targets tr[data-target-id="${target}"] button`));
  await waitUntil(`const l = document.querySelector('.inspector .node-label')?.textContent; return !!l && l !== arguments[0]`, 10000, before);
  const selected = await js(`return document.querySelector('.inspector .node-label').textContent`);
  // The text the page hands the clipboard (a ClipboardItem's, or writeText's), noted on the
  // way, since WebDriver cannot read the clipboard.
  await js(`window.__copied = null;
    const clipboard = navigator.clipboard;
    const write = clipboard.write.bind(clipboard);
    clipboard.write = (items) => {
      items[0].getType('text/plain').then((b) => b.text()).then((t) => { window.__copied = t; }, () => {});
      return write(items);
    };
    const writeText = clipboard.writeText.bind(clipboard);
    clipboard.writeText = (t) => { window.__copied = t; return writeText(t); };`);
  await (await findButton('Copy link')).click();
  await waitFor('.share-status');
  const link = await d.wait(async () => js(`return window.__copied`), 10000, 'the link');
  assert.ok(link.startsWith(`${siteUrl}#file=${file}&sel=`), link);
  // It made it to the clipboard, in every engine (WebKit refused a write made once the link
  // was ready, after the click; the page now asks during the click).
  await waitUntil(`return document.querySelector('.share-status strong')?.textContent === 'Link copied'`, 10000);
  assert.equal((await $$('#share-link-text')).length, 0, 'no field to copy it from by hand');

  const fresh = await startEngine(ENGINE, { downloads: join(tmp, 'fresh') });
  try {
    await fresh.driver.get(link);
    await watchPage(fresh);
    await fresh.driver.wait(async () => fresh.driver.executeScript(
      `return document.querySelector('[role=tab][aria-selected=true]')?.textContent.includes(arguments[0])
         && document.querySelector('.inspector .node-label')?.textContent === arguments[1]`, file, selected), 60000, 'the link opened');
    const theirs = await fresh.driver.executeScript(`return [...document.querySelectorAll('table.targets tbody tr')].map((r) => r.dataset.targetId)`);
    assert.deepEqual(theirs, cliTargets(join(FIXTURES, file)));
    assert.deepEqual(await fresh.problems(), []);
  } finally {
    await fresh.quit();
  }
});

test('a #url= link is read by ranges from a host like the package index\'s', async () => {
  // A 40 MiB wheel (a stored data member, then device members) on scripts/remote_server.py,
  // under /pypi-files/: ranges without suffix ranges, CORS without exposed headers.
  const dir = mkdtempSync(join(tmpdir(), `e2e-${ENGINE}-remote-`));
  const wheel = 'midkit-1.0-cp312-cp312-manylinux_2_28_x86_64.whl';
  buildWheel(join(dir, wheel), 40);
  const remote = await startRemoteServer(dir);
  try {
    await load(`${siteUrl}#url=${remote.url}pypi-files/${wheel}`);
    await click(await waitFor('dialog.remote[open] button.primary'));
    await waitExplored(wheel);
    assert.deepEqual(await pageTargets(), cliTargets(join(dir, wheel)));
    const fetched = (await (await fetch(`${remote.url}_stats`)).json()).paths[wheel];
    const size = statSync(join(dir, wheel)).size;
    console.log(`# ${ENGINE}: ${wheel} (${size} bytes) read by ranges: ${fetched.bytes} bytes in ${fetched.requests} requests`);
    assert.ok(fetched.bytes < size / 2, `fetched ${fetched.bytes} of ${size} bytes`);
    assert.deepEqual(await session.problems(), []);
  } finally {
    remote.process.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a wheel whose libraries inflate past 64 MiB shows the targets `offload list` gives', async () => {
  // Inflated into scratch files of the origin's private file system where the engine gives a
  // worker synchronous access to it, else into memory (www/src/worker/scratch.rs): either way,
  // the CLI's answer.
  const wheel = join(tmp, 'padded-1.0-py3-none-linux_x86_64.whl');
  buildPaddedWheel(wheel);
  await $('#file-input').sendKeys(wheel);
  await waitExplored('padded-1.0-py3-none-linux_x86_64.whl');
  assert.deepEqual(await pageTargets(), cliTargets(wheel));
  const scratch = await js(`return navigator.storage?.getDirectory ? (async () => {
      const names = [];
      for await (const name of (await navigator.storage.getDirectory()).keys()) names.push(name);
      return names.filter((n) => n.startsWith('offload-scratch-')).length;
    })().catch(() => -1) : -1`);
  console.log(`# ${ENGINE}: ${scratch < 0 ? 'no private file system: inflated in memory' : `${scratch} scratch files`}`);
  assert.deepEqual(await session.problems(), []);
});

test('the service worker controls a reload, which explores with the site\'s server gone', async () => {
  await load();
  await d.executeAsyncScript('const done = arguments[arguments.length - 1]; navigator.serviceWorker.ready.then(() => done(true))');
  await load();
  const controller = await js('return navigator.serviceWorker.controller?.scriptURL ?? null');
  assert.equal(controller, `${siteUrl}sw.js`, 'the service worker controls the page');
  const closed = new Promise((ok) => server.close(ok));
  server.closeAllConnections();
  await closed;
  await load();
  await openSample('hip_rdc_archive.a');
  assert.deepEqual(await pageTargets(), cliTargets(join(FIXTURES, 'hip_rdc_archive.a')), 'explored with the server gone');
  await shot('10-offline');
  assert.deepEqual(await session.problems(), []);
});
