// Kernel × target holes and the generic-target advisor on the page, against the CLI on the
// same files, both compiled here with clang-22 from tests/images/check_release.hip (as
// cli/tests/check.rs does): the second release of the HIP library, built without `scale` for
// gfx1100, shows in the Kernels view what `offload kernels --holes` says; the library built for
// gfx1030 and gfx1031 (one generic family, gfx10-3-generic, whose code comes out identical)
// shows in the size view what `offload sizes --identical` says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LLVM_BIN, OFFLOAD, ROOT, dropFile, must, sharedPage } from '../support.mjs';

const WORK = join(ROOT, 'test-output', 'holes');
const IMAGES = join(ROOT, 'tests/images');

/** The HIP library of check_release.hip for `archs` with `defines`, at WORK/`name`. */
function hipLibrary(name, archs, defines = []) {
  mkdirSync(WORK, { recursive: true });
  const out = join(WORK, name);
  must('clang-22', [
    '-x', 'hip', '-nogpulib', '-nogpuinc', '-O2', '-g0', '-fPIC', '-shared', '-nostdlib', '-fuse-ld=lld',
    '--no-offload-add-rpath', ...archs.map((a) => `--offload-arch=${a}`), ...defines,
    `-I${IMAGES}`, join(IMAGES, 'check_release.hip'), '-o', out,
  ], { env: { ...process.env, PATH: `${LLVM_BIN}:${process.env.PATH}` } });
  return out;
}

/** `offload kernels --holes`: each count line prefixed by its library ("lib: 1 kernel missing
 * on gfx1100 of 2 targets"), and under each the kernels it lists. */
function cliHoles(file) {
  const out = must(OFFLOAD, ['kernels', '--holes', file]);
  const holes = [];
  let library = null;
  for (const line of out.slice(out.indexOf('\nholes in ') + 1).split('\n')) {
    const heading = line.match(/^holes in (.*) \(\d+ kernels?, \d+ targets?\):$/);
    if (heading) library = heading[1];
    else if (library && /^ {4}\S/.test(line)) holes.at(-1).kernels.push(line.trim());
    else if (library && /^ {2}\S.* missing on /.test(line)) holes.push({ line: `${library}: ${line.trim()}`, kernels: [] });
  }
  return holes;
}

const problems = [];
const shared = sharedPage(problems);

test('the Kernels view counts and lists the kernels missing on a target as offload kernels --holes does', async () => {
  const { page } = shared;
  const file = hipLibrary('librelease.so.2', ['gfx90a', 'gfx1100'], ['-DDROP_SCALE_ON_GFX1100']);
  const theirs = cliHoles(file);
  assert.ok(theirs.length > 0, 'the second release has holes');
  await dropFile(page, file);
  if (!(await page.locator('section.kernels-panel').count())) await page.getByRole('button', { name: /^Kernels/ }).first().click();
  const holes = page.locator('section.kernels-panel .kernel-hole');
  await holes.first().waitFor();
  assert.deepEqual(await holes.locator('summary').allTextContents(), theirs.map((h) => h.line));
  // Closed lines hold no list yet (a wheel's lines name tens of thousands of kernels).
  assert.equal(await holes.locator('li').count(), 0);
  // Each line opens to its kernels.
  for (let i = 0; i < theirs.length; i += 1) {
    await holes.nth(i).locator('summary').click();
    assert.deepEqual(await holes.nth(i).locator('li').allTextContents(), theirs[i].kernels);
  }
  // The table marks those kernels' cells on the target that lacks them.
  const json = JSON.parse(must(OFFLOAD, ['kernels', '--json', file]));
  const demangled = new Map(json.kernels.map((k) => [k.name, k.demangled]));
  const marked = await page.locator('section.kernels-panel td.missing').evaluateAll((tds) =>
    tds.filter((td) => td.textContent === 'missing').map((td) => td.closest('tr').dataset.kernel));
  assert.deepEqual(marked.map((k) => demangled.get(k)).sort(), theirs.flatMap((h) => h.kernels).sort());
  assert.deepEqual(problems, []);
});

test('the size view groups identical code objects and the generic target as offload sizes --identical does', async () => {
  const { page } = shared;
  const file = hipLibrary('libsame.so', ['gfx1030', 'gfx1031']);
  const theirs = JSON.parse(must(OFFLOAD, ['sizes', '--identical', '--json', file])).identical;
  assert.ok(theirs.groups.length > 0, 'gfx1030 and gfx1031 came out identical');
  const text = must(OFFLOAD, ['sizes', '--identical', file]).split('\n');
  const headline = text.find((l) => l.startsWith('identical code across targets'));
  const lines = text.slice(text.indexOf(headline) + 1).filter((l) => l.startsWith('  ')).map((l) => l.trim());
  await dropFile(page, file);
  const advisor = page.locator('section.generic-advisor');
  await advisor.waitFor();
  assert.equal(await advisor.locator('.advisor-headline').textContent(), headline);
  const groups = advisor.locator('li.advisor-group');
  assert.deepEqual(await groups.allTextContents(), lines);
  const buildFor = await groups.evaluateAll((lis) => lis.map((li) => li.dataset.buildFor));
  assert.deepEqual(buildFor, theirs.groups.map((g) => g.build_for));
  for (const [line, g] of lines.map((l, i) => [l, theirs.groups[i]])) {
    assert.ok(line.startsWith(`${g.targets.join(', ')}: ${g.images} identical`), line);
  }
  assert.deepEqual(problems, []);
});
