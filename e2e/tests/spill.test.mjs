// A wheel whose library is past the size at which the page inflates a member into a file of the
// origin's private file system (OPFS) rather than the worker's memory (`explore::SPILL_OVER`,
// 64 MiB): a fixture HIP library that clang made, padded to 65 MiB and deflated into a wheel
// here, picked through the file input. The page's Kernels view is `offload kernels --json`'s on
// the library alone, and the member went through a private file (the explorer says so in the console), left empty
// afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, OFFLOAD, ROOT, assertKernelsView, must, sharedPage } from '../support.mjs';

const WORK = join(ROOT, 'test-output', 'spill');
const LIBRARY = join(WORK, 'libbig.so');
const WHEEL = join(WORK, 'big-1.0-py3-none-linux_x86_64.whl');

function buildWheel() {
  mkdirSync(WORK, { recursive: true });
  const library = Buffer.alloc(65 << 20);
  readFileSync(join(FIXTURES, 'libhip_3tu_compressed.so')).copy(library);
  writeFileSync(LIBRARY, library);
  execFileSync('python3', ['-c', 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z: z.write(sys.argv[2], "big/libbig.so")', WHEEL, LIBRARY]);
}

/** The page's private files: name and size. */
async function privateFiles(page) {
  return page.evaluate(async () => {
    const files = [];
    for await (const [name, handle] of (await navigator.storage.getDirectory()).entries()) {
      files.push({ name, size: handle.kind === 'file' ? (await handle.getFile()).size : null });
    }
    return files;
  });
}

const problems = [];
const shared = sharedPage(problems);

test('a 65 MiB member is inflated into a private file and gives the kernels of the library alone', async () => {
  buildWheel();
  const { page } = shared;
  const alone = JSON.parse(must(OFFLOAD, ['kernels', '--json', LIBRARY]));
  assert.ok(alone.kernels.length > 0, 'the library has kernels');

  const said = [];
  page.on('console', (m) => said.push(m.text()));
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  await (await chooser).setFiles(WHEEL);
  await page.locator('#tab-panel section.summary').waitFor({ timeout: 120_000 });
  const kernels = page.getByRole('button', { name: /^Kernels/ });
  if (!(await page.locator('section.kernels-panel').count())) await kernels.first().click();
  await assertKernelsView(page, alone);

  // The explorer says so in the console (workers' messages reach the page's).
  assert.ok(said.includes(`a member of ${65 << 20} bytes was inflated into a private file`), JSON.stringify(said));
  const spilled = (await privateFiles(page)).filter((f) => f.name.startsWith('offload-member-'));
  assert.ok(spilled.length >= 1, `a worker's private file: ${JSON.stringify(spilled)}`);
  assert.ok(spilled.every((f) => f.size === 0), `emptied once explored: ${JSON.stringify(spilled)}`);
  assert.deepEqual(problems, []);
});
