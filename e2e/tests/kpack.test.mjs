// kpack'd ROCm builds in the page: a binary whose device code rocm-kpack moved into `.kpack`
// archives (tests/fixtures/kpack), dropped together with its archives, shows the targets and
// kernels of the build before the transform, as `offload list` and `offload kernels` give them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, OFFLOAD, assertKernelsView, cliList, dropFiles, must, pageTargets, sharedPage, shot, waitExplored } from '../support.mjs';

const KPACK = join(FIXTURES, 'kpack');
const problems = [];
const shared = sharedPage(problems);

test('a kpack\'d library dropped with its archives shows the targets and kernels of the build before the transform', async () => {
  const { page } = shared;
  const before = join(KPACK, 'before/lib/libkp.so');
  const archives = ['kp_gfx90a.kpack', 'kp_gfx1100.kpack'].map((f) => join(KPACK, 'after/.kpack', f));
  await dropFiles(page, [join(KPACK, 'after/lib/libkp.so'), ...archives]);
  await waitExplored(page, 'libkp.so');
  // One tab: the archives went with the library, not into tabs of their own.
  assert.equal(await page.locator('[role=tab]').count(), 1);
  const expected = cliList(before).targets.map((t) => t.target_id);
  assert.equal(expected.length, 4);
  assert.deepEqual(await pageTargets(page), expected);

  await assertKernelsView(page, JSON.parse(must(OFFLOAD, ['kernels', '--json', before])));
  await shot(page, 'kpack-joined');
  assert.deepEqual(problems, []);
});

test('a kpack\'d library alone says where its device code is; an archive alone lists its code objects', async () => {
  const { page } = shared;
  await dropFiles(page, [join(KPACK, 'after/lib/libkp.so')]);
  await page.locator('[role=tab]', { hasText: 'libkp.so' }).nth(1).waitFor();
  await page.locator('#tab-panel section.summary').waitFor();
  await page.locator('#tab-panel', { hasText: 'kpack archive' }).waitFor();
  assert.deepEqual(await pageTargets(page), []);

  const archive = join(KPACK, 'after/.kpack/kp_gfx90a.kpack');
  await dropFiles(page, [archive]);
  await waitExplored(page, 'kp_gfx90a.kpack');
  assert.deepEqual(await pageTargets(page), cliList(archive).targets.map((t) => t.target_id));
  assert.deepEqual(problems, []);
});
