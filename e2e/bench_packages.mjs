// The page on large packages (`make bench`, the "large packages" step of scripts/bench_packages.py):
// the release build in headless Chromium opens each wheel given on the command line through its
// file input, as a user would, and prints
//   - pick to first "Runs on" target on screen (shown while the rest is still being read),
//   - pick to the explored summary (the page's own figure, `data-first-render-ms`, and the wall
//     time), and the Kernels view's count line once the summary is there,
//   - the peak memory of the browser's processes (its own process tree, so that other browsers
//     on the machine do not count), sampled every 50 ms in a second run (the times are the
//     first run's: sampling takes a share of the cores), two ways: the sum of their resident
//     sizes (RSS), which counts each page they share (the browser's code, the shared memory
//     between processes) once per process, and the sum of their proportional sizes (PSS, from
//     /proc/PID/smaps_rollup), which counts a shared page once in all: what the browser takes
//     from the machine. An empty page's processes: about 1.0 GiB of RSS, 0.4 GiB of PSS.
// Usage: node e2e/bench_packages.mjs WHEEL... (prints one JSON object per wheel, one per line).
// Nothing here asserts on time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serveStatic } from '../scripts/static-server.mjs';
import { BASE, CHROMIUM, DIST } from './support.mjs';

/** The proportional set size (MiB) of process `pid`: its private pages, and its share of the
 * pages it shares with others; 0 once it has ended. */
function pss(pid) {
  try {
    const kib = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m);
    return kib ? Number(kib[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory (MiB) of the descendants of the process `root`, by Chromium process type
 * (`--type=renderer`, `gpu-process`, ...; the browser's own process is "browser"), and their
 * proportional sizes in all (`pss`, when `proportionalToo`: reading them costs the machine
 * more): this script's browser's processes only, whatever else runs on the machine. */
function treeMemory(root, proportionalToo) {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,rss=,args='], { encoding: 'utf8' })
    .split('\n').filter(Boolean).map((l) => {
      const [pid, ppid, rss, ...args] = l.trim().split(/\s+/);
      const type = args.join(' ').match(/--type=([a-z-]+)/)?.[1] ?? 'browser';
      return [Number(pid), Number(ppid), Number(rss), type];
    });
  const inTree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of rows) if (inTree.has(ppid) && !inTree.has(pid)) { inTree.add(pid); grew = true; }
  }
  // The root itself (this script) is not counted.
  const byType = {};
  let proportional = 0;
  for (const [pid, , kib, type] of rows) {
    if (pid !== root && inTree.has(pid)) {
      byType[type] = (byType[type] ?? 0) + kib / 1024;
      if (proportionalToo) proportional += pss(pid);
    }
  }
  return { byType, pss: proportional };
}

/** Peak memory (MiB) of the browser's processes while `work` runs: the sum of their resident
 * sizes and how it was split between process types at that instant, and the peak of the sum of
 * their proportional sizes. */
async function peakChromiumMemory(browserPid, work) {
  let peak = 0;
  let peakByType = {};
  let peakPss = 0;
  const sample = () => {
    try {
      const rss = treeMemory(browserPid, false).byType;
      const total = Object.values(rss).reduce((a, b) => a + b, 0);
      if (total > peak) [peak, peakByType] = [total, rss];
      // The proportional sizes are read near the resident peak only: reading a large
      // process's page map every 50 ms would slow the page being measured.
      if (total >= 0.9 * peak) peakPss = Math.max(peakPss, treeMemory(browserPid, true).pss);
    } catch { /* no process at this instant */ }
  };
  const timer = setInterval(sample, 50);
  try {
    const result = await work();
    sample();
    const split = Object.fromEntries(Object.entries(peakByType).map(([t, m]) => [t, Math.round(m)]));
    return { ...result, peakMib: Math.round(peak), peakByType: split, peakPssMib: Math.round(peakPss) };
  } finally {
    clearInterval(timer);
  }
}

/** Picks `path` through the file input; times the first "Runs on" line and the summary. */
async function open(page, path) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  const started = Date.now();
  await (await chooser).setFiles(path);
  const firstTarget = page.locator('#tab-panel .runs-on-line').first()
    .waitFor({ timeout: 600_000 }).then(() => Date.now() - started);
  const timing = page.locator('#tab-panel section.summary .timing[data-first-render-ms]');
  await timing.waitFor({ timeout: 600_000 });
  const wallMs = Date.now() - started;
  const pageMs = Number(await timing.getAttribute('data-first-render-ms'));
  const firstTargetMs = await firstTarget;
  const targets = await page.locator('#tab-panel section.summary .runs-on-line').count();
  const kernels = await kernelsLine(page);
  return { firstTargetMs, pageMs, wallMs, targets, kernels };
}

/** The Kernels view's count line, the view opened if it is not shown. */
async function kernelsLine(page) {
  const panel = page.locator('section.kernels-panel');
  if (!(await panel.count())) {
    const toggle = page.getByRole('button', { name: /^Kernels/ });
    if (await toggle.count()) await toggle.first().click();
  }
  if (!(await panel.count())) return null;
  return (await panel.locator('.kernels-header .muted').first().textContent())?.trim() ?? null;
}

/** `work` on the page at `url`, in a browser of its own with a profile on disk as a user's
 * browser has (a context made by `browser.newContext()` is a private window, whose storage is
 * kept in memory: the page's scratch files for large members would count as the browser's
 * memory there). */
async function inBrowser(url, work) {
  const profile = mkdtempSync(join(tmpdir(), 'offload-bench-profile-'));
  const context = await chromium.launchPersistentContext(profile, { ...CHROMIUM, viewport: { width: 1366, height: 768 } });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    await page.goto(url);
    await page.locator('.welcome').waitFor();
    return await work(page);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function main() {
  const wheels = process.argv.slice(2);
  if (!wheels.length) throw new Error('usage: node e2e/bench_packages.mjs WHEEL...');
  const { server, url } = await serveStatic({ dir: DIST, base: BASE });
  try {
    for (const wheel of wheels) {
      // Timed in one browser, measured in another: sampling the processes' memory takes a
      // share of the machine's two cores and would slow the page it measures.
      const timed = await inBrowser(url, (page) => open(page, wheel));
      // The browser is a child of this script: its processes are this script's descendants.
      const measured = await inBrowser(url, (page) => peakChromiumMemory(process.pid, () => open(page, wheel)));
      const mib = statSync(wheel).size / 2 ** 20;
      const { peakMib, peakByType, peakPssMib, wallMs: measuredWallMs } = measured;
      console.log(JSON.stringify({ wheel: wheel.split('/').pop(), mib: Math.round(mib), ...timed, peakMib, peakByType, peakPssMib, measuredWallMs }));
    }
  } finally {
    server.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
