// Downloads, end to end: what the page saves is compared byte for byte with what our CLI
// (`offload extract`, `offload unbundle --type=a`) and the LLVM tools (clang-offload-bundler,
// llvm-objcopy, llvm-ar, tar) give for the same files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, LLVM_BIN, OFFLOAD, download, dropFile, must, openPage, openSample, shot, startSite } from '../support.mjs';

let site, context, page, work;
const problems = [];

before(async () => {
  site = await startSite();
  ({ context, page } = await openPage(site.browser, site.siteUrl, problems));
  work = mkdtempSync(join(tmpdir(), 'offload-download-'));
});

after(async () => {
  await context?.close();
  await site?.browser.close();
  site?.server.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A fresh directory under the test's work directory. */
function dir(name) {
  const d = join(work, name);
  mkdirSync(d, { recursive: true });
  return d;
}

/** What `offload extract` writes for a fixture: file names in the order printed, and bytes. */
function extract(fixture) {
  const out = dir(`extract-${fixture}`);
  const printed = must(OFFLOAD, ['extract', join(FIXTURES, fixture), '-o', out]);
  const names = printed.trim().split('\n').map((l) => l.split('  ')[0].split('/').pop());
  return { names, bytes: (name) => readFileSync(join(out, name)) };
}

/** The status line says the download was saved (and not refused). */
async function expectSaved(page, name) {
  await page.locator('.download-status.saved', { hasText: `Saved ${name}` }).waitFor();
}

async function selectTarget(page, row) {
  await page.locator('table.targets tbody tr').nth(row).locator('button.target-id').click();
}

test('a code object from a compressed bundle of the shared library downloads as offload extract writes it', async () => {
  await openSample(page, 'libhip_3tu_compressed.so');
  const cli = extract('libhip_3tu_compressed.so');
  const out = dir('node');

  await selectTarget(page, 1);
  const button = page.getByRole('button', { name: 'Download AMDGPU code object for hipv4-amdgcn-amd-amdhsa--gfx90a', exact: true });
  const got = await download(page, () => button.click(), out);
  assert.equal(got.name, 'libhip_3tu_compressed.so.hipv4-amdgcn-amd-amdhsa--gfx90a.co');
  assert.ok(cli.names.includes(got.name), `offload extract wrote ${cli.names}`);
  const bytes = readFileSync(got.path);
  assert.ok(bytes.equals(cli.bytes(got.name)), 'the downloaded code object differs from offload extract');
  await expectSaved(page, got.name);

  // The `d` key downloads the selection: the second translation unit's gfx906 code object,
  // numbered as offload extract numbers it.
  await selectTarget(page, 2);
  const byKey = await download(page, () => page.keyboard.press('d'), out);
  assert.equal(byKey.name, 'libhip_3tu_compressed.so.hipv4-amdgcn-amd-amdhsa--gfx906_xnack-.1.co');
  assert.ok(readFileSync(byKey.path).equals(cli.bytes(byKey.name)));

  // clang-offload-bundler, given the first compressed bundle of .hip_fatbin, unbundles the
  // same bytes (it cannot read the whole section: "Src size is incorrect").
  const section = join(work, 'hip_fatbin.bin');
  must(join(LLVM_BIN, 'llvm-objcopy'), [`--dump-section=.hip_fatbin=${section}`, join(FIXTURES, 'libhip_3tu_compressed.so'), join(work, 'objcopy-out.so')]);
  const fatbin = readFileSync(section);
  assert.equal(fatbin.subarray(0, 4).toString('latin1'), 'CCOB');
  const first = join(work, 'first.ccob');
  writeFileSync(first, fatbin.subarray(0, Number(fatbin.readBigUInt64LE(8))));
  const unbundled = join(work, 'bundler-gfx90a.co');
  must(join(LLVM_BIN, 'clang-offload-bundler'), ['--unbundle', '--type=o', `--input=${first}`, '--targets=hipv4-amdgcn-amd-amdhsa--gfx90a', `--output=${unbundled}`]);
  assert.ok(bytes.equals(readFileSync(unbundled)), 'the downloaded code object differs from clang-offload-bundler --unbundle');

  // A node in the file's own bytes (saved as a slice of the file): the section.
  await page.locator('[role=treeitem] > .row', { hasText: 'section .hip_fatbin' }).click();
  const sectionButton = page.getByRole('button', { name: /^Download section \.hip_fatbin/ });
  const sec = await download(page, () => sectionButton.click(), out);
  assert.equal(sec.name, 'libhip_3tu_compressed.so.hip_fatbin.bin');
  assert.ok(readFileSync(sec.path).equals(fatbin), 'the section differs from llvm-objcopy --dump-section');
  await shot(page, 'download-node');
});

for (const fixture of ['omp_elf_2arch.o', 'libhip_3tu_compressed.so']) {
  test(`"Download all images" of ${fixture} is a tar of what offload extract writes`, async () => {
    await openSample(page, fixture);
    const cli = extract(fixture);
    const out = dir(`tar-${fixture}`);
    const got = await download(page, () => page.getByRole('button', { name: 'Download all images', exact: true }).click(), out);
    assert.equal(got.name, `${fixture}.images.tar`);
    await expectSaved(page, got.name);
    const listed = must('tar', ['-tf', got.path]).trim().split('\n');
    assert.deepEqual(listed, cli.names);
    const verbose = must('tar', ['-tvf', got.path]);
    assert.equal(verbose.trim().split('\n').length, cli.names.length);
    const unpacked = dir(`untar-${fixture}`);
    must('tar', ['-xf', got.path, '-C', unpacked]);
    assert.deepEqual(readdirSync(unpacked).sort(), [...cli.names].sort());
    for (const name of cli.names) {
      assert.ok(readFileSync(join(unpacked, name)).equals(cli.bytes(name)), `${name} in the tar differs from offload extract`);
    }
  });
}

test('the device archive for gfx90a of hip_rdc_archive.a is the one offload unbundle --type=a writes', async () => {
  await openSample(page, 'hip_rdc_archive.a');
  const target = 'hip-amdgcn-amd-amdhsa--gfx90a';
  const listed = must(OFFLOAD, ['unbundle', '--type=a', '--list', `--input=${join(FIXTURES, 'hip_rdc_archive.a')}`]).trim().split('\n');
  assert.ok(listed.includes(target), `the archive has ${listed}`);
  const out = dir('device-archive');
  const got = await download(page, () => page.getByRole('button', { name: `Device archive for ${target}`, exact: true }).click(), out);
  assert.equal(got.name, 'hip_rdc_archive-gfx90a.a');
  await expectSaved(page, got.name);
  const cliOut = join(work, 'cli-gfx90a.a');
  must(OFFLOAD, ['unbundle', '--type=a', `--input=${join(FIXTURES, 'hip_rdc_archive.a')}`, `--targets=${target}`, `--output=${cliOut}`]);
  assert.ok(readFileSync(got.path).equals(readFileSync(cliOut)), 'the device archive differs from offload unbundle --type=a');
  assert.deepEqual(must(join(LLVM_BIN, 'llvm-ar'), ['t', got.path]).trim().split('\n'), ['rdc_a-gfx90a.bc', 'rdc_c-gfx90a.bc']);
  await shot(page, 'download-device-archive');
});

test('"Download file" gives back the exact bytes of a dropped file', async () => {
  const source = join(FIXTURES, 'hip_elf_2arch_compressed.o');
  const name = await dropFile(page, source, 'dropped copy.o');
  const out = dir('file');
  const got = await download(page, () => page.getByRole('button', { name: 'Download file', exact: true }).click(), out);
  assert.equal(got.name, name);
  assert.ok(readFileSync(got.path).equals(readFileSync(source)));
  await expectSaved(page, name);
});

test('downloads left no page error, CSP violation or dialog', async () => {
  const csp = await page.evaluate(() => window.__cspViolations);
  assert.deepEqual(csp, []);
  assert.deepEqual(problems, []);
});
