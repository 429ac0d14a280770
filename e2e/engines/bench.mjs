// Browser engines benchmark (`make bench`, after e2e/bench.mjs, whose files it reuses): the
// release build opens the same files, picked through its file input, in headless Chromium
// (playwright-core), Firefox ESR (geckodriver) and WebKitGTK (MiniBrowser under Xvfb), and this
// prints, per engine, the time from pick to the targets on screen: the page's own figure
// (`data-first-render-ms`, from the file's arrival to the explored summary) and the wall time
// around it. Best of BENCH_RUNS (default 3), each in a freshly loaded page. Nothing here asserts
// on time; a slow engine shows in the table.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { serveStatic } from '../../scripts/static-server.mjs';
import { BASE, DIST, FIXTURES, ROOT, openPage, startSite } from '../support.mjs';
import { By, startEngine, until } from './driver.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WORK = join(ROOT, 'bench', 'work');
const CACHE = process.env.OFFLOAD_WHEEL_CACHE ?? join(homedir(), '.cache/offload-explorer/wheels');
const TIMING = '#tab-panel section.summary .timing[data-first-render-ms]';
const TIMEOUT = 600_000;

/** The files: a sample, those e2e/bench.mjs made, and a real ROCm library and its wheel from
 * the cache of the CLI's real-library tests (each skipped, saying so, when missing). */
function files() {
  const cupy = 'cupy_rocm_4_3-13.3.0-cp311-cp311-manylinux2014_x86_64';
  const list = [
    [join(FIXTURES, 'libhip_3tu_compressed.so'), 'HIP shared library, 3 compressed bundles (sample)'],
    [join(WORK, 'browser.cbundle'), 'compressed bundle of 256 MiB (4 images), listed from its header'],
    [join(WORK, 'host-1gib.o'), '1 GiB host file (HIP object + 1 GiB section)'],
    [join(CACHE, `${cupy}.unpacked/cupy/cuda/thrust.cpython-311-x86_64-linux-gnu.so`), 'cupy ROCm 4.3 thrust.so (real HIP library)'],
    [join(CACHE, `${cupy}.whl`), 'cupy ROCm 4.3 wheel, whole'],
  ];
  return list.filter(([path]) => existsSync(path) || (console.error(`bench: ${path} is missing, skipped`), false));
}

const size = (path) => {
  const bytes = statSync(path).size;
  return bytes < 2 ** 20 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
};

/** One engine as the benchmark needs it: load a fresh page, pick a file and wait for its
 * summary, giving { pageMs, wallMs }. */
async function chromium() {
  const site = await startSite();
  return {
    name: 'Chromium',
    version: (await site.browser.version()),
    async measure(path) {
      const { context, page } = await openPage(site.browser, site.siteUrl);
      try {
        const started = Date.now();
        await page.locator('#file-input').setInputFiles(path);
        const timing = page.locator(TIMING);
        await timing.waitFor({ timeout: TIMEOUT });
        return { pageMs: Number(await timing.getAttribute('data-first-render-ms')), wallMs: Date.now() - started };
      } finally {
        await context.close();
      }
    },
    async close() {
      await site.browser.close();
      site.server.close();
    },
  };
}

async function webdriver(engine, siteUrl) {
  const session = await startEngine(engine);
  const d = session.driver;
  return {
    name: engine === 'firefox' ? 'Firefox ESR' : 'WebKitGTK',
    version: session.version.split(' ').pop(),
    async measure(path) {
      await d.get('about:blank');
      await d.get(siteUrl);
      await d.wait(until.elementLocated(By.css('.welcome')), 60_000);
      const started = Date.now();
      await d.findElement(By.css('#file-input')).sendKeys(path);
      const timing = await d.wait(until.elementLocated(By.css(TIMING)), TIMEOUT);
      return { pageMs: Number(await timing.getAttribute('data-first-render-ms')), wallMs: Date.now() - started };
    },
    close: () => session.quit(),
  };
}

async function main() {
  const list = files();
  const results = []; // per engine: { name, version, times: [{ pageMs, wallMs } | null] }
  const engines = [await chromium()];
  // The WebDriver engines get a server of their own (startSite's serves Chromium).
  const { server, url } = await serveStatic({ dir: DIST, base: BASE });
  try {
    engines.push(await webdriver('firefox', url), await webdriver('webkit', url));
    for (const e of engines) {
      const times = [];
      for (const [path] of list) {
        let best = null;
        for (let i = 0; i < RUNS; i++) {
          const r = await e.measure(path);
          if (!best || r.pageMs < best.pageMs) best = r;
        }
        times.push(best);
        console.error(`bench: ${e.name}: ${path}: ${best.pageMs.toFixed(0)} ms`);
      }
      results.push({ name: e.name, version: e.version, times });
    }
  } finally {
    for (const e of engines) await e.close();
    server.close();
  }
  console.log();
  console.log(`Pick to targets on screen, per engine (release build, best of ${RUNS}; page-measured, wall time in brackets):`);
  console.log();
  console.log(`| file | ${results.map((r) => `${r.name} ${r.version}`).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---|').join('')}`);
  list.forEach(([path, what], i) => {
    const cells = results.map((r) => `${r.times[i].pageMs.toFixed(0)} ms (${r.times[i].wallMs} ms)`);
    console.log(`| ${what}, ${size(path)} | ${cells.join(' | ')} |`);
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
