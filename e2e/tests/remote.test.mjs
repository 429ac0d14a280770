// Files on other sites read by ranges, on the RELEASE build: `#url=` links, "Open URL…" and
// `#pypi=` links, against `scripts/remote_server.py` (started here on a temporary root, on
// 127.0.0.1: nothing here reaches the internet).
//
// The server holds a synthetic wheel of over 500 MiB — one large stored member of incompressible
// bytes, as a framework's bundled data or a library without device code, and the device members
// of the fixtures (a HIP object, two NVIDIA fatbins), deflated — and, for the synthetic package
// index, other wheels of the same project: an older release, an aarch64 build and a pure-Python
// one. Checked: `#url=` of the wheel under `/pypi-files/` (ranges, no suffix ranges, CORS
// without exposed headers, as the package index's file host) shows the targets `offload list`
// gives for the local file, having fetched (the server's own count) a small part of it;
// `#pypi=` on the synthetic index asks before reading the index, then opens the manylinux x86_64
// wheel and says why, and another wheel can be picked; `/norange/` is read whole, streamed, and says so; a host that cannot be
// read gives its message; "Open URL…" opens the same file and puts it in the page's link.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, buildWheel, cliList, download, openPage, pageTargets, startRemoteServer, startSite, waitExplored } from '../support.mjs';

const BIG = 'gpukit-1.0-cp312-cp312-manylinux_2_28_x86_64.whl';
const BIG_DATA_MIB = 520;
const OTHERS = [
  'gpukit-0.9-cp312-cp312-manylinux_2_28_x86_64.whl',
  'gpukit-1.0-cp312-cp312-manylinux_2_28_aarch64.whl',
  'gpukit-1.0-py3-none-any.whl',
];
const SMALL = 'gpu_libs-1.0-py3-none-linux_x86_64.whl';
/** A wheel whose stored data member (MID_DATA_MIB) is larger than what the workers read through
 * their cache, so that downloading it is one request of its own. */
const MID = 'midkit-1.0-cp312-cp312-manylinux_2_28_x86_64.whl';
const MID_DATA_MIB = 40;

let site, root, server, serverUrl, bigSize;

async function stats() {
  return (await fetch(`${serverUrl}_stats`)).json();
}

async function resetStats() {
  await fetch(`${serverUrl}_stats/reset`);
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort() {
  const probe = createServer();
  await new Promise((ok) => probe.listen(0, '127.0.0.1', ok));
  const { port } = probe.address();
  await new Promise((ok) => probe.close(ok));
  return port;
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'offload-remote-'));
  buildWheel(join(root, BIG), BIG_DATA_MIB);
  for (const other of OTHERS) buildWheel(join(root, other), 0);
  copyFileSync(join(FIXTURES, 'packages', SMALL), join(root, SMALL));
  buildWheel(join(root, MID), MID_DATA_MIB);
  bigSize = statSync(join(root, BIG)).size;
  ({ process: server, url: serverUrl } = await startRemoteServer(root));
  site = await startSite();
});

after(async () => {
  await site?.browser.close();
  site?.server.close();
  server?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Opens `hash` in a fresh page, says Open in the remote dialog, and waits for `name`'s tab. */
async function openRemote(hash, name) {
  const problems = [];
  const { context, page } = await openPage(site.browser, site.siteUrl, problems);
  await page.evaluate((h) => { location.hash = h; }, hash);
  const dialog = page.locator('dialog.remote[open]');
  await dialog.getByRole('button', { name: 'Open' }).click();
  await waitExplored(page, name);
  return { context, page, problems, dialog };
}

test('#url= of a 500 MiB wheel on a host like the package index\'s reads only what it needs', async () => {
  assert.ok(bigSize > 500 * 2 ** 20, `the wheel is over 500 MiB (${bigSize} bytes)`);
  const local = cliList(join(root, BIG));
  await resetStats();
  const { context, page, problems } = await openRemote(`#url=${serverUrl}pypi-files/${BIG}`, BIG);
  assert.deepEqual(await pageTargets(page), local.targets.map((t) => t.target_id), 'the targets offload list gives');
  const fetched = (await stats()).paths[BIG];
  console.log(`# ${BIG}: ${bigSize} bytes, fetched ${fetched.bytes} in ${fetched.requests} requests (${(100 * fetched.bytes / bigSize).toFixed(2)}%)`);
  console.log(`# ranges sent: ${JSON.stringify(fetched.ranges)}`);
  assert.ok(fetched.bytes < bigSize / 10, `fetched ${fetched.bytes} of ${bigSize} bytes`);
  // The CLI on the same URL, for comparison: both skip the members named as text.
  await resetStats();
  const byCli = cliList(`${serverUrl}pypi-files/${BIG}`);
  assert.deepEqual(byCli.targets.map((t) => t.target_id), local.targets.map((t) => t.target_id));
  const cliFetched = (await stats()).paths[BIG];
  console.log(`# the CLI fetched ${cliFetched.bytes} bytes in ${cliFetched.requests} requests; the page ${fetched.bytes} in ${fetched.requests}`);
  // Never a suffix range: the host refuses them with 501, which would be an error here.
  assert.equal(await page.locator('#tab-panel .diagnostics li.diagnostic.error').count(), 0, 'no errors');

  // The hex view reads the file's own bytes by ranges too: the wheel starts with "PK".
  await page.locator('[role=treeitem]').first().locator(':scope > .row').click();
  const byte = (o) => page.locator(`.hex-panel .hex-bytes .byte[data-offset="${o}"]`);
  await page.waitForFunction(() => document.querySelector('.hex-panel .hex-bytes .byte[data-offset="0"]')?.textContent === '50');
  assert.deepEqual([await byte(1).textContent(), await byte(2).textContent(), await byte(3).textContent()], ['4b', '03', '04']);
  // A member named as text is not read, its local header neither (the CLI fetches none of it):
  // selected, the inspector asks the worker for its fields and shows its header's raw bytes.
  const zip = local.root.children[0];
  const member = zip.children.findIndex((n) => n.label.startsWith('gpukit/__init__.py'));
  const { offset, size } = zip.children[member].field_spans.name;
  // Selected by a link's `sel=` (child indices from the root), as a shared link would.
  await page.evaluate((h) => { location.hash = h; }, `#sel=0.0.${member}&url=${serverUrl}pypi-files/${BIG}`);
  await page.locator('dialog.remote[open]').getByRole('button', { name: 'Open' }).click();
  await page.locator('[role=treeitem][aria-selected=true] > .row', { hasText: 'gpukit/__init__.py' }).waitFor();
  const raw = page.locator('.inspector tr[data-raw-of="name"] td.raw');
  await raw.waitFor();
  const header = [...readFileSync(join(root, BIG)).subarray(offset, offset + size)].map((b) => b.toString(16).padStart(2, '0'));
  assert.equal((await raw.locator('.raw-row').allTextContents()).join(' ').replace(/\s+/g, ' ').trim(), header.join(' '),
    'the local header of the member, fetched when it is selected');
  assert.deepEqual(problems, []);
  await context.close();

  // Throttled to 1 MB/s (a few seconds for what it reads), the progress panel shows the bytes
  // fetched of the file's size.
  const slow = await openPage(site.browser, site.siteUrl, problems);
  await slow.page.evaluate((h) => { location.hash = h; }, `#url=${serverUrl}throttle=1000000/pypi-files/${BIG}`);
  await slow.page.locator('dialog.remote[open]').getByRole('button', { name: 'Open' }).click();
  const line = slow.page.locator('.progress-panel .remote-fetched');
  await line.waitFor();
  assert.match(await line.textContent(), /^Read [\d.]+ (B|KiB|MiB) of 520\.0 MiB from its host/);
  await waitExplored(slow.page, BIG);
  assert.deepEqual(problems, []);
  await slow.context.close();
});

test('where HEAD is refused, the size comes from a plain GET aborted after its headers', async () => {
  const local = cliList(join(root, MID));
  const size = statSync(join(root, MID)).size;
  await resetStats();
  const { context, page, problems } = await openRemote(`#url=${serverUrl}nohead/pypi-files/${MID}`, MID);
  assert.deepEqual(await pageTargets(page), local.targets.map((t) => t.target_id));
  const fetched = (await stats()).paths[MID];
  console.log(`# ${MID} without HEAD: ${size} bytes, fetched ${fetched.bytes} in ${fetched.requests} requests`);
  assert.ok(fetched.bytes < size / 2, `fetched ${fetched.bytes} of ${size} bytes`);
  // Chromium reports the refused HEAD itself.
  assert.deepEqual(problems.filter((p) => !/status of 403/.test(p)), []);
  await context.close();
});

test('#pypi= on the synthetic index opens the manylinux x86_64 wheel, says why, and offers the others', async () => {
  const index = `${serverUrl}simple/`;
  const problems = [];
  const { context, page } = await openPage(site.browser, site.siteUrl, problems);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.evaluate((h) => { location.hash = h; }, `#pypi=gpukit&index=${encodeURIComponent(index)}`);
  const dialog = page.locator('dialog.remote[open]');
  // Nothing is asked of the index before the user agrees.
  await dialog.locator('code', { hasText: index }).waitFor();
  assert.deepEqual(requests.filter((u) => u.startsWith(serverUrl)), [], 'no request before "Look up"');
  await dialog.getByRole('button', { name: 'Look up' }).click();
  await dialog.locator('.chosen-wheel', { hasText: BIG }).waitFor();
  const why = await dialog.locator('.wheel-why').textContent();
  assert.match(why, /release 1\.0 \(the newest\)/i);
  assert.match(why, /manylinux x86_64 \(the default/);
  assert.match(why, /CPython 3\.12/);
  const offered = await dialog.locator('select#remote-wheel option').allTextContents();
  assert.deepEqual(offered.sort(), [BIG, 'gpukit-1.0-cp312-cp312-manylinux_2_28_aarch64.whl', 'gpukit-1.0-py3-none-any.whl'].sort());
  await resetStats();
  await dialog.getByRole('button', { name: 'Open' }).click();
  await waitExplored(page, BIG);
  assert.deepEqual(await pageTargets(page), cliList(join(root, BIG)).targets.map((t) => t.target_id));
  assert.ok((await stats()).paths[BIG].bytes < bigSize / 10, 'read by ranges');

  // A platform named in the link, and another wheel picked by hand.
  await page.evaluate((h) => { location.hash = h; }, `#pypi=gpukit==1.0&platform=manylinux_2_28_aarch64&index=${encodeURIComponent(index)}`);
  await dialog.getByRole('button', { name: 'Look up' }).click();
  await dialog.locator('.chosen-wheel', { hasText: 'gpukit-1.0-cp312-cp312-manylinux_2_28_aarch64.whl' }).waitFor();
  await dialog.locator('select#remote-wheel').selectOption({ label: 'gpukit-1.0-py3-none-any.whl' });
  await dialog.locator('.chosen-wheel', { hasText: 'gpukit-1.0-py3-none-any.whl' }).waitFor();
  assert.match(await dialog.locator('.wheel-why').textContent(), /Picked by you/);
  await dialog.getByRole('button', { name: 'Open' }).click();
  await waitExplored(page, 'gpukit-1.0-py3-none-any.whl');

  // A release the index does not have says which it has.
  await page.evaluate((h) => { location.hash = h; }, `#pypi=gpukit==7.0&index=${encodeURIComponent(index)}`);
  await dialog.getByRole('button', { name: 'Look up' }).click();
  await dialog.locator('.problem', { hasText: /no wheels of version 7\.0.*versions with wheels: .*0\.9/ }).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a host without ranges (no range support, chunked, gzip) is read whole, streamed, and the dialog says so', async () => {
  const local = cliList(join(FIXTURES, 'packages', SMALL));
  // Slowed down so that the download is seen under way.
  const problems = [];
  const { context, page } = await openPage(site.browser, site.siteUrl, problems);
  await page.evaluate((h) => { location.hash = h; }, `#url=${serverUrl}throttle=4000/norange/${SMALL}`);
  const dialog = page.locator('dialog.remote[open]');
  await dialog.getByRole('button', { name: 'Open' }).click();
  await dialog.locator('.remote-note', { hasText: 'Read whole: the host does not serve ranges' }).waitFor();
  await waitExplored(page, SMALL);
  assert.deepEqual(await pageTargets(page), local.targets.map((t) => t.target_id));
  // Without a length (chunked), and gzip-encoded on the way: read whole too, the same file.
  for (const behaviour of ['chunked', 'gzip']) {
    await page.getByRole('button', { name: `Close ${SMALL}` }).click();
    await page.evaluate((h) => { location.hash = h; }, `#url=${serverUrl}${behaviour}/${SMALL}`);
    await dialog.getByRole('button', { name: 'Open' }).click();
    await waitExplored(page, SMALL);
    assert.deepEqual(await pageTargets(page), local.targets.map((t) => t.target_id), behaviour);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('a host that cannot be read from this page says what would work', async () => {
  const port = await closedPort();
  const problems = [];
  const { context, page } = await openPage(site.browser, site.siteUrl, problems);
  await page.evaluate((h) => { location.hash = h; }, `#url=http://127.0.0.1:${port}/${BIG}`);
  const dialog = page.locator('dialog.remote[open]');
  await dialog.getByRole('button', { name: 'Open' }).click();
  const text = await dialog.locator('.problem').textContent();
  assert.match(text, /did not allow this page to read the file/);
  assert.match(text, /Download the file and drop it on this page instead, or open it from a host that sends Access-Control-Allow-Origin/);
  assert.equal(await page.locator('[role=tab]').count(), 0);
  // Chromium reports the failed request itself.
  assert.deepEqual(problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(p)), []);
  await context.close();
});

test('"Open URL…" opens the same file and puts its address in the page\'s link', async () => {
  const address = `${serverUrl}pypi-files/${SMALL}`;
  const problems = [];
  const { context, page } = await openPage(site.browser, site.siteUrl, problems);
  await page.getByRole('button', { name: 'Open URL…' }).click();
  const dialog = page.locator('dialog.remote[open]');
  // An address the page may not fetch is refused in the dialog, which stays open.
  await dialog.locator('#remote-address').fill('http://example.com/x.whl');
  await dialog.getByRole('button', { name: 'Open' }).click();
  await dialog.locator('.problem', { hasText: /expected an https address/i }).waitFor();
  await dialog.locator('#remote-address').fill(address);
  await dialog.getByRole('button', { name: 'Open' }).click();
  await waitExplored(page, SMALL);
  assert.deepEqual(await pageTargets(page), cliList(join(FIXTURES, 'packages', SMALL)).targets.map((t) => t.target_id));
  assert.equal(await page.evaluate(() => location.hash), `#url=${address}`);
  // The start page's button opens the same dialog.
  const fresh = await openPage(site.browser, site.siteUrl, problems);
  await fresh.page.locator('.welcome button.open-url').click();
  await fresh.page.locator('dialog.remote[open] #remote-address').waitFor();
  await fresh.context.close();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a signed address on another origin that expires is resolved again from the original', async () => {
  const local = cliList(join(root, MID));
  const address = `${serverUrl}ttl=2/redirect/${MID}`;
  const { context, page, problems } = await openRemote(`#url=${address}`, MID);
  assert.deepEqual(await pageTargets(page), local.targets.map((t) => t.target_id));
  // The signed address the workers were redirected to expires; "Download file" (the whole file,
  // read by the worker in one request of its own, past its cache) must come through a fresh one.
  await page.waitForTimeout(2500);
  const out = mkdtempSync(join(tmpdir(), 'offload-remote-dl-'));
  const got = await download(page, () => page.getByRole('button', { name: 'Download file', exact: true }).click(), out);
  assert.equal(got.name, MID);
  assert.ok(readFileSync(got.path).equals(readFileSync(join(root, MID))), 'the downloaded file is the wheel');
  rmSync(out, { recursive: true, force: true });
  // Chromium reports the expired address's 403 itself.
  assert.deepEqual(problems.filter((p) => !/status of 403/.test(p)), []);
  await context.close();
});
