// The page and the CLI fetch the same bytes of the same file (issue #38): both follow the plan
// the core makes (`offload::explore::fetch_plan`). For each wheel the remote tests serve, the
// page opens `#url=` on `scripts/remote_server.py` (started here on 127.0.0.1) and the CLI lists
// the same URL; the union of the byte ranges the server's log says it sent each (the page asks
// in smaller requests, one at a time, the CLI in parallel blocks) must be the same. Stated
// bounds on bytes fetched twice (docs/web-app.md, "Read by ranges"): the CLI none (within 2%),
// the page at most once per worker, since each keeps a cache of its own.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, OFFLOAD, buildPaddedWheel, buildWheel, cliList, openPage, run, pageTargets, startRemoteServer, startSite, waitExplored } from '../support.mjs';

const WHEELS = [
  ['gpukit-1.0-cp312-cp312-manylinux_2_28_x86_64.whl', 520],
  ['midkit-1.0-cp312-cp312-manylinux_2_28_x86_64.whl', 40],
  ['gpukit-1.0-py3-none-any.whl', 0],
];
const SMALL = 'gpu_libs-1.0-py3-none-linux_x86_64.whl';
const PADDED = 'padded-1.0-py3-none-linux_x86_64.whl';
/** A real ROCm wheel from the wheel cache (the CLI's remote tests read it too), when cached. */
const CACHE = process.env.OFFLOAD_WHEEL_CACHE ?? join(homedir(), '.cache/offload-explorer/wheels');
const REAL = 'cupy_rocm_5_0-13.3.0-cp311-cp311-manylinux2014_x86_64.whl';
const realCached = existsSync(join(CACHE, REAL));
/** The first bytes both ask for to learn whether the host serves ranges (the CLI's first
 * request, the page's probe). */
const PROBE = 4096;

let site, root, server, serverUrl;

async function stats() {
  return (await fetch(`${serverUrl}_stats`)).json();
}

/** `[start, end)` ranges sorted and merged where they touch or overlap. */
function union(ranges) {
  const out = [];
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** The parts of `ranges` that none of `taken` covers (both sorted, merged). */
function minus(ranges, taken) {
  let out = ranges.map((r) => [...r]);
  for (const [a, b] of taken) {
    out = out.flatMap(([s, e]) => (b <= s || e <= a ? [[s, e]] : [...(s < a ? [[s, a]] : []), ...(b < e ? [[b, e]] : [])]));
  }
  return out;
}

const covered = (ranges) => ranges.reduce((sum, [a, b]) => sum + b - a, 0);

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'offload-same-bytes-'));
  for (const [name, data] of WHEELS) buildWheel(join(root, name), data);
  copyFileSync(join(FIXTURES, 'packages', SMALL), join(root, SMALL));
  buildPaddedWheel(join(root, PADDED));
  if (realCached) symlinkSync(join(CACHE, REAL), join(root, REAL));
  ({ process: server, url: serverUrl } = await startRemoteServer(root));
  site = await startSite();
});

after(async () => {
  await site?.browser.close();
  site?.server.close();
  server?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Waits until the server writes no answer (its `active` count is 0): a connection the browser
 * dropped mid-answer (Chromium sometimes asks a worker's range again on another connection)
 * keeps its server thread writing, and counting, until the socket fails, which may come after
 * the page's summary; counted after the next reset, its bytes were the CLI's. */
async function quiet() {
  for (let waited = 0; (await stats()).active > 0; waited += 50) {
    assert.ok(waited < 30_000, 'the server still writes answers 30 s after the reader is done');
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** What the server sent of `name` while `read` ran, and until every answer it started is
 * written: { ranges (their union), bytes, requests }. */
async function sentWhile(name, read) {
  await quiet();
  await fetch(`${serverUrl}_stats/reset`);
  await read();
  await quiet();
  const sent = (await stats()).paths[name] ?? { ranges: [], bytes: 0, requests: 0 };
  return { ranges: union(sent.ranges), bytes: sent.bytes, requests: sent.requests };
}

for (const name of [...WHEELS.map(([n]) => n), SMALL, PADDED, REAL]) {
  const skip = name === REAL && !realCached && `${REAL} is not in ${CACHE}`;
  test(`the page and the CLI fetch the same bytes of ${name}`, { skip, timeout: 600_000 }, async () => {
    const url = `${serverUrl}pypi-files/${name}`;
    const size = statSync(join(root, name)).size;
    // The real wheel's JSON listing is hundreds of MB: its targets are not compared here (the
    // CLI's remote tests compare them), only the bytes fetched.
    const local = name === REAL ? null : cliList(join(root, name));
    const problems = [];
    const { context, page } = await openPage(site.browser, site.siteUrl, problems);
    let targets, cores;
    const byPage = await sentWhile(name, async () => {
      await page.evaluate((h) => { location.hash = h; }, `#url=${url}`);
      await page.locator('dialog.remote[open]').getByRole('button', { name: 'Open' }).click();
      await waitExplored(page, name);
      targets = await pageTargets(page);
      cores = await page.evaluate(() => navigator.hardwareConcurrency);
      // Its connections closed, so that an answer the browser dropped stops being written.
      await context.close();
    });
    if (local) assert.deepEqual(targets, local.targets.map((t) => t.target_id), 'the page finds what offload list finds');
    const byCli = await sentWhile(name, async () => {
      if (local) {
        assert.deepEqual(cliList(url).targets, local.targets, 'the CLI on the URL finds what it finds locally');
      } else {
        const r = run(OFFLOAD, ['list', url]);
        assert.ok(r.status === 0 || r.status === 1, `offload list ${url}: ${r.stderr}`);
      }
    });
    console.log(`# ${name}: ${size} bytes; the CLI fetched ${byCli.bytes} in ${byCli.requests} requests, the page ${byPage.bytes} in ${byPage.requests}; distinct bytes: ${covered(byCli.ranges)} and ${covered(byPage.ranges)}`);
    // The same bytes: the page's tree reads the header fields of members the explorer does not
    // read (named as text) only once such a member is selected, never while it is made.
    assert.deepEqual(minus(byCli.ranges, byPage.ranges), [], 'every byte the CLI fetched, the page fetched');
    assert.deepEqual(minus(byPage.ranges, byCli.ranges), [], 'every byte the page fetched, the CLI fetched');
    // Each of the page's workers (the explorer and its share workers: one per core, 2 to 4)
    // keeps a cache of its own, so a byte two of them read is fetched by each; and the probe
    // that tells whether the host serves ranges is read again by the worker.
    const once = covered(byPage.ranges);
    const workers = 1 + Math.min(Math.max(cores, 2), 4);
    assert.ok(byPage.bytes <= workers * once + PROBE, `the page fetched ${byPage.bytes} bytes for ${once} distinct ones, on ${workers} workers`);
    assert.ok(byCli.bytes <= once + once / 50, `the CLI fetched ${byCli.bytes} bytes for ${once} distinct ones`);
    assert.deepEqual(problems.filter((p) => !/status of 403/.test(p)), []);
  });
}
