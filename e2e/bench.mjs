// Browser benchmark (`make bench`, after the CLI table): the release build in headless Chromium
// opens, through its file input as a user would,
//   - the compressed bundle of bench.py (4 x 64 MiB images, compressed by clang-offload-bundler),
//     with the default settings (listed from its header) and with "verify every compressed
//     bundle" (decompressed and its hash checked), and then decompressed on demand by selecting
//     one of its entries;
//   - a 1 GiB host file (a HIP object with a 1 GiB section added by llvm-objcopy).
// It prints the time from the file's arrival to the explored summary on screen, as the page
// measures it (`data-first-render-ms`), the wall time around it, and the peak resident memory
// of all Chromium processes sampled every 50 ms. Nothing here asserts on time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, LLVM_BIN, ROOT, openPage, startSite } from './support.mjs';

const WORK = join(ROOT, 'bench', 'work');
const BUNDLER = join(LLVM_BIN, 'clang-offload-bundler');
const OBJCOPY = join(LLVM_BIN, 'llvm-objcopy');
const TARGETS = ['gfx906', 'gfx908', 'gfx90a', 'gfx942'].map((p) => `hipv4-amdgcn-amd-amdhsa--${p}`);
const SETTINGS_KEY = 'offload-explorer.settings';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function compressedBundle() {
  const out = join(WORK, 'browser.cbundle');
  if (!existsSync(out)) {
    const inputs = TARGETS.map((_, i) => `--input=${join(WORK, `image${i}.co`)}`);
    for (const i of inputs) if (!existsSync(i.slice(8))) throw new Error(`bench: ${i.slice(8)} is missing: run scripts/bench.py first`);
    execFileSync(BUNDLER, ['--type=o', `--targets=${TARGETS.join(',')}`, ...inputs, `--output=${out}`, '--compress']);
  }
  return out;
}

function oneGibHostFile() {
  const out = join(WORK, 'host-1gib.o');
  if (!existsSync(out)) {
    const filler = join(WORK, 'filler-1gib.bin');
    writeFileSync(filler, '');
    truncateSync(filler, 1 << 30);
    execFileSync(OBJCOPY, ['--add-section', `.bench_filler=${filler}`, join(FIXTURES, 'hip_elf_2arch_compressed.o'), out]);
    rmSync(filler);
  }
  return out;
}

/** Peak resident memory (MiB) of every Chromium process while `work` runs. */
async function peakChromiumMemory(work) {
  let peak = 0;
  const sample = () => {
    try {
      const rss = execFileSync('ps', ['-C', 'chromium', '-o', 'rss='], { encoding: 'utf8' });
      peak = Math.max(peak, rss.split('\n').filter(Boolean).reduce((sum, kib) => sum + Number(kib), 0) / 1024);
    } catch { /* no process at this instant */ }
  };
  const timer = setInterval(sample, 50);
  try {
    const result = await work();
    sample();
    return { ...result, peakMib: peak };
  } finally {
    clearInterval(timer);
  }
}

async function pick(page, path) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  const started = Date.now();
  await (await chooser).setFiles(path);
  const timing = page.locator('#tab-panel section.summary .timing[data-first-render-ms]');
  await timing.waitFor({ timeout: 300_000 });
  return { pageMs: Number(await timing.getAttribute('data-first-render-ms')), wallMs: Date.now() - started };
}

/** One measurement in a fresh page with the given settings. */
async function measure(site, settings, work) {
  const { context, page } = await openPage(site.browser, site.siteUrl);
  try {
    if (settings) {
      await page.evaluate(([k, v]) => localStorage.setItem(k, v), [SETTINGS_KEY, settings]);
      await page.reload();
      await page.locator('.welcome').waitFor();
    }
    return await peakChromiumMemory(() => work(page));
  } finally {
    await context.close();
  }
}

async function best(site, settings, work) {
  let result = null;
  for (let i = 0; i < RUNS; i++) {
    const r = await measure(site, settings, work);
    if (!result || r.pageMs < result.pageMs) result = { ...r, peakMib: Math.max(r.peakMib, result?.peakMib ?? 0) };
  }
  return result;
}

async function main() {
  mkdirSync(WORK, { recursive: true });
  const bundle = compressedBundle();
  const host = oneGibHostFile();
  const site = await startSite();
  const rows = [];
  try {
    const mib = (statSync(bundle).size / 2 ** 20).toFixed(1);
    rows.push([`${mib} MiB compressed bundle of 256 MiB, default settings: drop to render (header listed)`,
      await best(site, null, (page) => pick(page, bundle))]);
    rows.push([`the same, "verify every compressed bundle": drop to verified`,
      await best(site, 'verify_all=true\n', async (page) => {
        const r = await pick(page, bundle);
        await page.locator('[role=treeitem] > .row', { hasText: 'compressed bundle' }).first().click();
        const ok = await page.locator('.inspector tr[data-field="hash_ok"] td.value').textContent();
        if (ok !== 'true') throw new Error(`bench: the hash reads ${ok}`);
        return r;
      })]);
    rows.push(['the same, default settings: an entry selected, decompressed and verified on demand',
      await best(site, null, async (page) => {
        await pick(page, bundle);
        const started = Date.now();
        await page.locator('[role=treeitem] > .row', { hasText: TARGETS[2] }).first().click();
        // The entry's bytes are there once it offers a download.
        await page.locator('.inspector .download-node button').waitFor({ timeout: 300_000 });
        const ms = Date.now() - started;
        return { pageMs: ms, wallMs: ms };
      })]);
    rows.push(['1 GiB host file (HIP object + 1 GiB section): drop to render',
      await best(site, null, (page) => pick(page, host))]);
  } finally {
    await site.browser.close();
    site.server.close();
  }
  console.log();
  console.log(`Browser (headless Chromium, release build, best of ${RUNS}):`);
  console.log();
  console.log('| in the page | time (page-measured) | wall time | peak memory, all Chromium processes |');
  console.log('|---|---|---|---|');
  for (const [name, r] of rows) {
    console.log(`| ${name} | ${r.pageMs.toFixed(0)} ms | ${r.wallMs} ms | ${r.peakMib.toFixed(0)} MiB |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
