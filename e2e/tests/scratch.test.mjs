// Large members never held whole: a wheel whose two libraries each inflate past 64 MiB (fixtures
// that clang made, padded by llvm-objcopy with a section of zeros, so the wheel stays small) is
// explored with each library kept in a worker's memory only by what the host reader reads of it
// (offload::explore::sparse), the scratch file of the origin's private file system standing by
// for what cannot be kept so (www/src/worker/scratch.rs). The page finds what the CLI finds, and
// the scratch files are left empty; an image inside such a library, whose bytes the exploration
// dropped, is found again by inflating the library again and downloads as `offload extract`
// writes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OFFLOAD, ROOT, buildPaddedWheel, download, must, sharedPage } from '../support.mjs';

const WHEEL = join(ROOT, 'test-output', 'scratch', 'padded-1.0-py3-none-linux_x86_64.whl');
const DOMINATED = join(ROOT, 'test-output', 'scratch', 'dominated-1.0-py3-none-linux_x86_64.whl');

/** The origin's private files the page left: name and size. */
function privateFiles(page) {
  return page.evaluate(async () => {
    const files = [];
    const directory = await navigator.storage.getDirectory();
    for await (const [name, handle] of directory.entries()) {
      if (handle.kind === 'file') files.push({ name, size: (await handle.getFile()).size });
    }
    return files;
  });
}

/** Picks `wheel` through the file input and checks that "Runs on" lists the targets `offload
 * sizes` finds and the Kernels view counts the kernels `offload kernels` finds; returns those
 * targets. */
async function pickedAsTheCliSays(page, wheel) {
  const cli = JSON.parse(must(OFFLOAD, ['kernels', '--json', wheel]));
  const expectedTargets = JSON.parse(must(OFFLOAD, ['sizes', '--json', wheel])).targets.map((t) => t.target);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  await (await chooser).setFiles(wheel);
  await page.locator('#tab-panel section.summary').waitFor({ timeout: 120_000 });
  const shown = await page.locator('#tab-panel section.summary li.runs-on-line').evaluateAll((lis) => lis.map((li) => li.dataset.target));
  assert.deepEqual([...shown].sort(), [...expectedTargets].sort(), 'Runs on lists what offload sizes finds');
  const panel = page.locator('section.kernels-panel');
  if (!(await panel.count())) await page.getByRole('button', { name: /^Kernels/ }).first().click();
  const total = cli.kernels.length.toLocaleString('en-US');
  assert.equal(await panel.locator('.kernels-count').textContent(), `${total} kernels across ${cli.targets.length} targets`);
  return expectedTargets;
}

const problems = [];
const shared = sharedPage(problems);

test('libraries inflating past 64 MiB are explored as the CLI explores them, and the scratch files are left empty', async () => {
  buildPaddedWheel(WHEEL);
  const { page } = shared;
  const expectedTargets = await pickedAsTheCliSays(page, WHEEL);
  assert.ok(expectedTargets.length >= 2, `the CLI finds targets in the padded libraries: ${expectedTargets}`);

  // One scratch file per worker that explored a padded library (taken before it starts, in case
  // the library cannot be kept in memory), each emptied when let go.
  const scratch = (await privateFiles(page)).filter((f) => f.name.startsWith('offload-scratch-'));
  assert.ok(scratch.length >= 1, `a scratch file was made: ${JSON.stringify(scratch)}`);
  assert.deepEqual(scratch.filter((f) => f.size > 0), [], 'every scratch file is left empty');
  assert.deepEqual(problems, []);
});

test('an image inside a library inflating past 64 MiB downloads as offload extract writes it', async () => {
  buildPaddedWheel(WHEEL);
  const { page } = shared;
  const work = mkdtempSync(join(tmpdir(), 'offload-scratch-'));
  try {
    const extracted = join(work, 'extracted');
    must(OFFLOAD, ['extract', WHEEL, '-o', extracted]);
    const theirs = new Set(readdirSync(extracted));
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open file…' }).click();
    await (await chooser).setFiles(WHEEL);
    await page.locator('#tab-panel section.summary').waitFor({ timeout: 120_000 });
    // The first target's image: its bytes were dropped once described, so the worker explores
    // its library again (inflated into a scratch file) to find them.
    await page.locator('table.targets tbody tr').first().locator('button.target-id').click();
    await page.locator('.inspector .download-node button:not([disabled])').waitFor({ timeout: 120_000 });
    const got = await download(page, () => page.locator('.inspector .download-node button').click(), work);
    assert.ok(theirs.has(got.name), `offload extract wrote ${[...theirs]}, the page ${got.name}`);
    assert.ok(readFileSync(got.path).equals(readFileSync(join(extracted, got.name))), `${got.name} differs from offload extract's`);
    const scratch = (await privateFiles(page)).filter((f) => f.name.startsWith('offload-scratch-'));
    assert.ok(scratch.length >= 1, 'a scratch file is kept for finding bytes again');
    assert.deepEqual(problems, []);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a wheel whose one library outweighs the rest: its worker starts before the listing, and the page finds what the CLI finds', async () => {
  // One padded library (about 80 KiB stored) and three plain objects (a fifth of that): the
  // explorer starts the library's share worker from the central directory alone
  // (offload::explore::shares::dominant), lists the wheel once that worker is up, and the other
  // members go to a second worker.
  buildPaddedWheel(DOMINATED, {
    padded: [['dominated/libhip.so', 'hip_elf_2arch.o']],
    plain: [['dominated/cuda.o', 'cuda_elf_newdriver_rdc.o'], ['dominated/omp.o', 'omp_elf_2arch.o'], ['dominated/rdc.o', 'hip_elf_rdc.o']],
  });
  const { page } = shared;
  await pickedAsTheCliSays(page, DOMINATED);
  assert.deepEqual(problems, []);
});

test('scratch files a stopped worker left full are removed when the page starts', async () => {
  const { page } = shared;
  // As a worker stopped in the middle of a large member leaves its file.
  await page.evaluate(async () => {
    const directory = await navigator.storage.getDirectory();
    const file = await directory.getFileHandle('offload-scratch-11', { create: true });
    const writable = await file.createWritable();
    await writable.write(new Uint8Array(1 << 20).fill(7));
    await writable.close();
  });
  assert.deepEqual((await privateFiles(page)).filter((f) => f.name === 'offload-scratch-11'), [{ name: 'offload-scratch-11', size: 1 << 20 }]);
  await page.reload();
  await page.locator('.welcome').waitFor();
  await page.waitForFunction(async () => {
    const directory = await navigator.storage.getDirectory();
    for await (const name of directory.keys()) if (name.startsWith('offload-scratch-')) return false;
    return true;
  }, null, { timeout: 10_000 });
  assert.deepEqual(problems, []);
});
