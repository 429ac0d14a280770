// Large members kept on disk: a wheel whose two libraries each inflate past 64 MiB (fixtures that
// clang made, padded by llvm-objcopy with a section of zeros, so the wheel stays small) is
// explored with each library inflated into a scratch file of the origin's private file system
// rather than into a worker's memory (www/src/worker/scratch.rs). The page finds what the CLI
// finds, and the scratch files are left empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, LLVM_BIN, OFFLOAD, ROOT, must, sharedPage } from '../support.mjs';

const WORK = join(ROOT, 'test-output', 'scratch');
const WHEEL = join(WORK, 'padded-1.0-py3-none-linux_x86_64.whl');
/** Past the core's SPILL_OVER (64 MiB). */
const PAD = 70 << 20;

/** `fixture` with a section of `PAD` zero bytes added, written to `out`. */
function padded(fixture, out) {
  const zeros = join(WORK, 'zeros.bin');
  writeFileSync(zeros, Buffer.alloc(PAD));
  must(join(LLVM_BIN, 'llvm-objcopy'), ['--add-section', `.pad=${zeros}`, join(FIXTURES, fixture), out]);
  rmSync(zeros);
}

function buildWheel() {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const members = [['padded/libhip.so', 'hip_elf_2arch.o'], ['padded/libcuda.so', 'cuda_elf_newdriver_rdc.o']];
  for (const [name, fixture] of members) padded(fixture, join(WORK, name.split('/')[1]));
  const script = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('padded/__init__.py', '')
    for name in sys.argv[2:]:
        z.write(f'${WORK}/' + name.split('/')[1], name)
`;
  execFileSync('python3', ['-c', script, WHEEL, ...members.map(([name]) => name)]);
}

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

const problems = [];
const shared = sharedPage(problems);

test('libraries inflating past 64 MiB are explored from scratch files, which are left empty', async () => {
  buildWheel();
  const { page } = shared;
  const cli = JSON.parse(must(OFFLOAD, ['kernels', '--json', WHEEL]));
  const expectedTargets = JSON.parse(must(OFFLOAD, ['sizes', '--json', WHEEL])).targets.map((t) => t.target);
  assert.ok(expectedTargets.length >= 2, `the CLI finds targets in the padded libraries: ${expectedTargets}`);

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  await (await chooser).setFiles(WHEEL);
  await page.locator('#tab-panel section.summary').waitFor({ timeout: 120_000 });

  const shown = await page.locator('#tab-panel section.summary li.runs-on-line').evaluateAll((lis) => lis.map((li) => li.dataset.target));
  assert.deepEqual([...shown].sort(), [...expectedTargets].sort(), 'Runs on lists what offload sizes finds');
  const panel = page.locator('section.kernels-panel');
  if (!(await panel.count())) await page.getByRole('button', { name: /^Kernels/ }).first().click();
  const total = cli.kernels.length.toLocaleString('en-US');
  assert.equal(await panel.locator('.kernels-count').textContent(), `${total} kernels across ${cli.targets.length} targets`);

  // One scratch file per worker that explored a padded library, each emptied when let go.
  const scratch = (await privateFiles(page)).filter((f) => f.name.startsWith('offload-scratch-'));
  assert.ok(scratch.length >= 1, `a scratch file was made: ${JSON.stringify(scratch)}`);
  assert.deepEqual(scratch.filter((f) => f.size > 0), [], 'every scratch file is left empty');
  assert.deepEqual(problems, []);
});
