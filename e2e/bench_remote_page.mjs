// The page's `#url=` against the CLI on the same file (issue #38), one wheel at a time:
//   node bench_remote_page.mjs WHEEL [PREFIX]
// serves WHEEL's folder with scripts/remote_server.py, under `PREFIX` (default `pypi-files/`;
// e.g. `latency=50/throttle=12500000/pypi-files/` for 100 Mbit/s and 50 ms per request), opens
// `#url=` in headless Chromium from the build in E2E_DIST (as the e2e tests do) and prints, for
// BENCH_RUNS runs (default 3) each: the time from "Open" to the summary, the bytes and requests
// the server counted, the most requests the page had in flight at once (from Chromium's network
// events, the workers' included) and, with BENCH_LOG_REQUESTS=1, every request and the bytes the
// server sent twice; then the same for `offload list URL`. Nothing here asserts: it measures (docs/web-app.md quotes it).
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { basename, dirname } from 'node:path';
import { CHROMIUM, OFFLOAD, openPage, startRemoteServer, startSite, waitExplored } from './support.mjs';

const [wheel, prefix = 'pypi-files/'] = process.argv.slice(2);
if (!wheel) throw new Error('usage: node bench_remote_page.mjs WHEEL [PREFIX]');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const name = basename(wheel);

// BENCH_CHROMIUM_ARGS: more switches for Chromium (e.g. --disable-http-cache), space-separated.
CHROMIUM.args.push(...(process.env.BENCH_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean));
const { process: server, url: serverUrl } = await startRemoteServer(dirname(wheel));
const site = await startSite();
const url = `${serverUrl}${prefix}${name}`;
const stats = async () => (await (await fetch(`${serverUrl}_stats`)).json()).paths[name] ?? { bytes: 0, requests: 0 };
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

try {
  for (let run = 1; run <= RUNS; run++) {
    const { context, page } = await openPage(site.browser, site.siteUrl);
    // Requests to the file in flight, from the browser's own network events.
    let inFlight = 0, most = 0;
    const ours = (r) => r.url().includes(name);
    let explored = false;
    const after = [];
    context.on('request', (r) => {
      if (!ours(r)) return;
      most = Math.max(most, ++inFlight);
      if (explored) after.push(`${r.method()} ${r.headers().range ?? 'whole'}`);
    });
    for (const done of ['requestfinished', 'requestfailed']) context.on(done, (r) => { if (ours(r)) inFlight--; });
    // BENCH_LOG_REQUESTS=1: every request for the file, with its range.
    const logged = [];
    if (process.env.BENCH_LOG_REQUESTS) context.on('requestfinished', async (r) => { if (ours(r)) logged.push(`${r.method()} ${r.headers().range ?? 'whole'} ${(await r.sizes().catch(() => ({}))).responseBodySize ?? '?'}`); });
    context.on('requestfailed', (r) => { if (ours(r)) logged.push(`FAILED ${r.method()} ${r.headers().range ?? 'whole'} ${r.failure()?.errorText}`); });
    await fetch(`${serverUrl}_stats/reset`);
    await page.evaluate((h) => { location.hash = h; }, `#url=${url}`);
    const open = page.locator('dialog.remote[open]').getByRole('button', { name: 'Open' });
    await open.waitFor();
    const started = performance.now();
    await open.click();
    await waitExplored(page, name);
    explored = true;
    const seconds = (performance.now() - started) / 1000;
    const sent = await stats();
    console.log(`page run ${run}: ${seconds.toFixed(2)} s, ${sent.bytes} bytes in ${sent.requests} requests, at most ${most} in flight; load ${load()}`);
    for (const line of logged) console.log(`  ${line}`);
    if (process.env.BENCH_LOG_REQUESTS) {
      await page.waitForTimeout(3000);
      console.log(`  started after the summary, in 3 s: ${after.join(', ') || 'none'}; the server's count now ${(await stats()).bytes}`);
      // Bytes the server sent more than once: its log's ranges, overlapping.
      const ranges = [...sent.ranges].sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < ranges.length; i++) {
        if (ranges[i][0] < ranges[i - 1][1]) console.log(`  twice: ${ranges[i - 1]} and ${ranges[i]}`);
      }
      console.log(`  agents: ${JSON.stringify(sent.agents)}`);
    }
    await context.close();
  }
  for (let run = 1; run <= RUNS; run++) {
    await fetch(`${serverUrl}_stats/reset`);
    const started = performance.now();
    const r = spawnSync(OFFLOAD, ['list', url], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const seconds = (performance.now() - started) / 1000;
    const sent = await stats();
    console.log(`CLI run ${run} (exit ${r.status}): ${seconds.toFixed(2)} s, ${sent.bytes} bytes in ${sent.requests} requests; load ${load()}`);
  }
} finally {
  await site.browser.close();
  site.server.close();
  server.kill();
}
