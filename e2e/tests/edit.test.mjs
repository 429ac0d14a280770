// End-to-end tests of editing in the page: each edit is made by a user's clicks and keys in the
// release build, the file is downloaded, and the download is checked with the real tools
// (llvm-objdump, clang-offload-bundler, llvm-objcopy, our CLI), or linked and run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, LLVM_BIN, OFFLOAD, cliList, download, dropFile, must, openPage, run, shot, startSite } from '../support.mjs';

const BUNDLER = join(LLVM_BIN, 'clang-offload-bundler');
const OBJDUMP = join(LLVM_BIN, 'llvm-objdump');
const OBJCOPY = join(LLVM_BIN, 'llvm-objcopy');
const CLANG = join(LLVM_BIN, 'clang');

let site, page, context, dir;
const problems = [];

before(async () => {
  site = await startSite();
  ({ context, page } = await openPage(site.browser, site.siteUrl, problems));
  dir = mkdtempSync(join(tmpdir(), 'offload-edit-e2e-'));
});

after(async () => {
  await context?.close();
  await site?.browser.close();
  site?.server.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(problems, [], 'no page errors, CSP violations or dialogs');
});

// ------------------------------------------------------------------ helpers --

/** Clicks the tree row whose label starts with `label`. */
async function select(label) {
  const row = page.locator('#tree .row', { has: page.locator('.label', { hasText: label }) }).first();
  await row.click();
  await page.locator('.inspector .node-label', { hasText: label }).waitFor();
}

/** Waits until the active tab shows version `n` of its file (0 is the file as opened). */
async function waitVersion(n) {
  await page.locator(`#tab-panel[data-version="${n}"] section.summary`).waitFor();
}

/** Waits for an edit to be refused; returns the message. */
async function waitRefused() {
  const status = page.locator('.edit-status.failed');
  await status.waitFor();
  return status.locator('.edit-error').innerText();
}

/** A screenshot with the inspector's edit section in sight. */
async function editShot(name) {
  await page.locator('.edit-panel').scrollIntoViewIfNeeded();
  await shot(page, name);
}

async function downloadFile() {
  return download(page, () => page.getByRole('button', { name: 'Download file' }).click(), dir);
}

async function closeTab(name) {
  await page.getByRole('button', { name: `Close ${name}` }).click();
}

function bytesEqual(a, b) {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** The 32-bit FNV-1a of a buffer, as the stub runtime below prints it. */
function fnv1a(buf) {
  let h = 0x811c9dc5;
  for (const b of buf) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** Entry IDs the real bundler lists in the .hip_fatbin section of an object. */
function bundlerIdsOfObject(object) {
  const fatbin = join(dir, 'section.hipfb');
  must(OBJCOPY, [`--dump-section=.hip_fatbin=${fatbin}`, object, join(dir, 'scratch.o')]);
  return must(BUNDLER, ['--list', '--type=o', `--input=${fatbin}`]).trim().split('\n').sort();
}

// ------------------------------------------------------------------ tests --

test('an offload entry triple and a bundle entry ID are edited, downloaded and read by the real tools', async () => {
  // The OpenMP object: change the triple of the first offload entry.
  await dropFile(page, join(FIXTURES, 'omp_elf_2arch.o'));
  await select('offload entry openmp amdgcn-amd-amdhsa gfx1030');
  const triple = page.getByLabel('Value of triple');
  await triple.fill('nonsense-triple');
  await page.locator('.edit-strings .field-problem', { hasText: 'is not a target triple LLVM knows' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Apply triple' }).isDisabled(), true, 'a refused value cannot be applied');
  await triple.fill('amdgcn-amd-amdpal');
  assert.equal(await page.locator('.edit-strings .field-problem').count(), 0);
  await editShot('21-edit-offload-strings');
  await page.getByRole('button', { name: 'Apply triple' }).click();
  await waitVersion(1);
  await page.locator('.edit-status.done').waitFor();
  await page.locator('[role=tab][aria-selected=true] .tab-edited').waitFor();
  const omp = await downloadFile();
  assert.equal(omp.name, 'omp_elf_2arch.o');
  const offloading = must(OBJDUMP, ['--offloading', omp.path]);
  assert.match(offloading, /triple\s+amdgcn-amd-amdpal/, offloading);
  assert.match(offloading, /triple\s+amdgcn-amd-amdhsa/, 'the other entry keeps its triple');
  const listed = cliList(omp.path);
  assert.deepEqual(listed.targets.map((t) => t.triple).sort(), ['amdgcn-amd-amdhsa', 'amdgcn-amd-amdpal']);
  await closeTab('omp_elf_2arch.o');

  // The HIP object: change a bundle entry's ID.
  await dropFile(page, join(FIXTURES, 'hip_elf_2arch.o'));
  await select('hipv4-amdgcn-amd-amdhsa--gfx906:xnack-');
  const id = page.getByLabel('Entry ID', { exact: true });
  await id.fill('hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-');
  const canonical = page.getByRole('button', { name: /Use canonical form/ });
  await canonical.waitFor();
  assert.match(await canonical.innerText(), /hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack\+/);
  await id.fill('hipv4-nonsense-amd-amdhsa--gfx908');
  await page.locator('.edit-entry-id .field-problem', { hasText: "'nonsense-amd-amdhsa' is not a target triple LLVM knows" }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Apply the entry ID' }).isDisabled(), true);
  await id.fill('hipv4-amdgcn-amd-amdhsa--gfx908');
  await editShot('20-edit-entry-id');
  await page.getByRole('button', { name: 'Apply the entry ID' }).click();
  await waitVersion(1);
  await page.locator('#tree .row.edited', { hasText: 'hipv4-amdgcn-amd-amdhsa--gfx908' }).waitFor();
  const hip = await downloadFile();
  const ids = bundlerIdsOfObject(hip.path);
  assert.deepEqual(ids, ['hipv4-amdgcn-amd-amdhsa--gfx908', 'hipv4-amdgcn-amd-amdhsa--gfx90a', 'host-x86_64-unknown-linux-gnu-']);
  const ours = cliList(hip.path);
  assert.deepEqual(ours.targets.map((t) => t.target_id).sort(), ['hipv4-amdgcn-amd-amdhsa--gfx908', 'hipv4-amdgcn-amd-amdhsa--gfx90a']);
  await closeTab('hip_elf_2arch.o');
});

test('a bundle compressed and decompressed in the page is the original again; undo restores it too', async () => {
  const original = readFileSync(join(FIXTURES, 'bundle_bin.bc'));
  await dropFile(page, join(FIXTURES, 'bundle_bin.bc'));
  await select('clang offload bundle');
  // Defaults: zstd at its default level, format version 3.
  assert.equal(await page.getByLabel('Method').inputValue(), 'zstd');
  assert.equal(await page.getByLabel('Format version').inputValue(), '3');
  await page.getByLabel('Level', { exact: true }).fill('99');
  await page.locator('.edit-compression .field-problem', { hasText: 'expected a zstd level from 1 to 22' }).waitFor();
  await page.getByLabel('Level', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Compress', exact: true }).click();
  await waitVersion(1);
  await page.locator('#tree .row', { hasText: 'compressed bundle v3 (zstd' }).waitFor();
  await page.locator('.edit-status.done', { hasText: 'Done: compressing with zstd level 3, format version 3.' }).waitFor();
  assert.equal(await page.locator('.edit-status.done .edit-notes').count(), 0, 'no note says the same again');

  const compressed = await downloadFile();
  const listedCompressed = must(BUNDLER, ['--list', '--type=bc', `--input=${compressed.path}`]).trim().split('\n').sort();
  assert.deepEqual(listedCompressed, ['hipv4-amdgcn-amd-amdhsa--gfx906', 'hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+', 'host-x86_64-unknown-linux-gnu-']);

  await select('compressed bundle v3');
  await editShot('22-edit-compression');
  await page.getByRole('button', { name: 'Verify the hash' }).click();
  await page.locator('.edit-status.verified.ok', { hasText: 'the hash matches' }).waitFor();
  await page.getByRole('button', { name: 'Decompress' }).click();
  await waitVersion(2);
  await page.locator('#tree .row', { hasText: 'clang offload bundle, 3 entries' }).waitFor();
  const decompressed = await downloadFile();
  assert.ok(bytesEqual(readFileSync(decompressed.path), original), 'decompressing gives back the original bytes');

  // Undo twice: the file as opened.
  await page.getByRole('button', { name: 'Undo' }).click();
  await waitVersion(1);
  await page.getByRole('button', { name: 'Undo' }).click();
  await waitVersion(0);
  assert.equal(await page.getByRole('button', { name: 'Undo' }).isDisabled(), true);
  assert.equal(await page.locator('[role=tab][aria-selected=true] .tab-edited').count(), 0);
  const undone = await downloadFile();
  assert.ok(bytesEqual(readFileSync(undone.path), original), 'undo gives back the original bytes');
  await closeTab('bundle_bin.bc');
});

const STUB_HIP_H = `#pragma once
typedef __SIZE_TYPE__ size_t;
#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
typedef struct ihipStream_t *hipStream_t;
extern "C" {
int hipLaunchKernel(const void *, dim3, dim3, void **, size_t, hipStream_t);
unsigned __hipPushCallConfiguration(dim3, dim3, size_t = 0, hipStream_t = 0);
int __hipPopCallConfiguration(dim3 *, dim3 *, size_t *, hipStream_t *);
}
`;
const KERNEL_HIP = `#include "stub_hip.h"
__global__ void bump(int *p) { p[__builtin_amdgcn_workitem_id_x()] += 1; }
void launch_bump(int *p) { bump<<<1, 64>>>(p); }
`;
// A HIP runtime that, when the program registers its fat binary, prints each bundle entry's ID,
// size and FNV-1a hash, so the test sees which code objects the linked program carries.
const RUNTIME_C = `#include <stdio.h>
#include <stdint.h>
#include <string.h>
struct fatbin_wrapper { int magic; int version; const unsigned char *binary; void *unused; };
static void *handle;
static uint64_t u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
void **__hipRegisterFatBinary(const struct fatbin_wrapper *w) {
  const unsigned char *b = w->binary;
  if (memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) { printf("not a bundle\\n"); return &handle; }
  const unsigned char *p = b + 32;
  for (uint64_t i = 0, n = u64(b + 24); i < n; i++) {
    uint64_t offset = u64(p), size = u64(p + 8), len = u64(p + 16);
    uint32_t h = 2166136261u;
    for (uint64_t j = 0; j < size; j++) { h ^= b[offset + j]; h *= 16777619u; }
    printf("entry %.*s size %llu fnv %08x\\n", (int)len, (const char *)(p + 24), (unsigned long long)size, h);
    p += 24 + len;
  }
  return &handle;
}
void __hipRegisterFunction(void **h, const void *f, char *device_function, const char *name, unsigned t,
                           void *tid, void *bid, void *block, void *grid, int *size) { printf("kernel %s\\n", name); }
void __hipUnregisterFatBinary(void **h) {}
int hipLaunchKernel() { return 0; }
unsigned __hipPushCallConfiguration() { return 0; }
int __hipPopCallConfiguration() { return 0; }
int main(void) { printf("main ran\\n"); return 0; }
`;

test('a HIP object whose gfx90a image is replaced in the page links and registers the new image', async () => {
  writeFileSync(join(dir, 'stub_hip.h'), STUB_HIP_H);
  writeFileSync(join(dir, 'bump.hip'), KERNEL_HIP);
  const hipFlags = ['-x', 'hip', '-nogpulib', '-nogpuinc', '-O2', '-c', 'bump.hip'];
  must(CLANG, [...hipFlags, '--offload-arch=gfx90a', '-o', 'bump.o'], { cwd: dir });
  must(CLANG, [...hipFlags, '--offload-arch=gfx906', '--cuda-device-only', '--no-gpu-bundle-output', '-o', 'bump_gfx906.co'], { cwd: dir });
  const replacement = readFileSync(join(dir, 'bump_gfx906.co'));

  await dropFile(page, join(dir, 'bump.o'));
  await select('hipv4-amdgcn-amd-amdhsa--gfx90a');
  await page.getByLabel('Replace contents from file…').setInputFiles(join(dir, 'bump_gfx906.co'));
  await waitVersion(1);
  await page.locator('.edit-status.done').waitFor();
  // The image is a gfx906 code object now: say so in its ID too.
  await page.getByLabel('Entry ID', { exact: true }).fill('hipv4-amdgcn-amd-amdhsa--gfx906');
  await page.getByRole('button', { name: 'Apply the entry ID' }).click();
  await waitVersion(2);
  const edited = await downloadFile();

  writeFileSync(join(dir, 'runtime.c'), RUNTIME_C);
  must('cc', ['runtime.c', edited.path, '-o', 'bump_prog'], { cwd: dir });
  const printed = must(join(dir, 'bump_prog'), []);
  assert.match(printed, new RegExp(`entry hipv4-amdgcn-amd-amdhsa--gfx906 size ${replacement.length} fnv ${fnv1a(replacement)}\n`), printed);
  assert.doesNotMatch(printed, /gfx90a/);
  assert.match(printed, /kernel _Z4bumpPi\n/);
  assert.match(printed, /main ran\n$/);
  assert.deepEqual(cliList(edited.path).targets.map((t) => t.target_id), ['hipv4-amdgcn-amd-amdhsa--gfx906']);
  await closeTab('bump.o');
});

/** A real gfx942 code object compiled by clang-22 from the kernel above (once); its path. */
function gfx942CodeObject() {
  const path = join(dir, 'bump_gfx942.co');
  if (!existsSync(path)) {
    writeFileSync(join(dir, 'stub_hip.h'), STUB_HIP_H);
    writeFileSync(join(dir, 'bump.hip'), KERNEL_HIP);
    must(CLANG, ['-x', 'hip', '-nogpulib', '-nogpuinc', '-O2', '-c', 'bump.hip', '--offload-arch=gfx942', '--cuda-device-only',
      '--no-gpu-bundle-output', '-o', path], { cwd: dir });
  }
  return path;
}

test('every other offload entry edit, made by clicks, is what llvm-objdump --offloading reads', async () => {
  const added = readFileSync(gfx942CodeObject());

  await dropFile(page, join(FIXTURES, 'omp_elf_2arch.o'));
  let version = 0;
  const applied = async () => {
    version += 1;
    await waitVersion(version);
    await page.locator('.edit-status.done').waitFor();
  };
  await select('offload entry openmp amdgcn-amd-amdhsa gfx1030');

  // Strings: add two keys, remove one of them.
  for (const [key, value] of [['note', 'edited in the page'], ['scratch', 'to be removed']]) {
    await page.getByLabel('New key', { exact: true }).fill(key);
    await page.getByLabel('Value of the new key').fill(value);
    await page.getByRole('button', { name: 'Add key' }).click();
    await applied();
    await page.locator(`.edit-strings tr[data-key="${key}"]`).waitFor();
  }
  await page.getByLabel('New key', { exact: true }).fill('note');
  await page.locator('.edit-strings .field-problem', { hasText: "already has a key 'note'" }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Add key' }).isDisabled(), true, 'a key cannot be added twice');
  await page.getByLabel('New key', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Remove scratch' }).click();
  await applied();

  // Kinds and flags.
  await page.locator('#edit-image-kind').selectOption('1');
  await page.getByRole('button', { name: 'Apply the image kind' }).click();
  await applied();
  // The image is bitcode: the page says the new kind does not fit it (and still makes the edit).
  await page.locator('.edit-status.done', { hasText: 'new warning: offload entry openmp amdgcn-amd-amdhsa gfx1030 (object, 7.2 KiB): image kind object (1) does not fit the image, which is LLVM bitcode' }).waitFor();
  await page.locator('#edit-offload-kind').selectOption('4');
  await page.getByRole('button', { name: 'Apply the offload kind' }).click();
  await applied();
  await page.locator('.inspector .node-label', { hasText: 'offload entry hip amdgcn-amd-amdhsa gfx1030' }).waitFor();
  await page.locator('#edit-flags').fill('0x1_0000_0000');
  await page.locator('.edit-offload-entry .field-problem', { hasText: 'expected a number from 0 to 4294967295' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Apply the flags' }).isDisabled(), true);
  await page.locator('#edit-flags').fill('0x5');
  await page.getByRole('button', { name: 'Apply the flags' }).click();
  await applied();

  // Order: the edited entry's binary goes after the other one, and stays selected.
  await page.getByRole('button', { name: 'Move down' }).click();
  await applied();
  await page.locator('.inspector .node-label', { hasText: 'offload entry hip amdgcn-amd-amdhsa gfx1030' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Move down' }).isDisabled(), true, 'the moved entry is last now');
  assert.equal(await page.getByRole('button', { name: 'Move up' }).isDisabled(), false);

  // A new offload binary at the end of the section, from a file.
  await select('section .llvm.offloading');
  await page.locator('#add-arch').fill('gfx942');
  await page.locator('#add-image-kind').selectOption('1');
  await page.locator('#add-offload-kind').selectOption('1');
  await page.locator('#add-entry-file').setInputFiles(gfx942CodeObject());
  await page.getByRole('button', { name: 'Add image' }).click();
  await applied();
  await page.locator('.inspector .node-label', { hasText: 'offload entry openmp amdgcn-amd-amdhsa gfx942' }).waitFor();

  // Remove the entry that was not edited.
  await select('offload entry openmp amdgcn-amd-amdhsa gfx90a:xnack+');
  await page.getByRole('button', { name: 'Remove entry' }).click();
  await applied();
  await shot(page, '25-edit-offload-entries');

  const edited = await downloadFile();
  const objdump = must(OBJDUMP, ['--offloading', edited.path]);
  const images = objdump.split(/OFFLOADING IMAGE \[\d+\]:/).slice(1).map((block) =>
    Object.fromEntries(block.trim().split('\n').map((line) => line.trim().split(/\s{2,}/))));
  assert.deepEqual(images, [
    { kind: 'elf', arch: 'gfx1030', triple: 'amdgcn-amd-amdhsa', producer: 'hip' },
    { kind: 'elf', arch: 'gfx942', triple: 'amdgcn-amd-amdhsa', producer: 'openmp' },
  ], objdump);

  // What llvm-objdump does not print: the strings, the flags and the image bytes.
  const listed = cliList(edited.path);
  const entries = [];
  const walk = (n) => { if (n.kind === 'offload-entry') entries.push(n); (n.children ?? []).forEach(walk); };
  walk(listed.root);
  assert.deepEqual(entries.map((e) => e.fields.strings), [
    { arch: 'gfx1030', note: 'edited in the page', triple: 'amdgcn-amd-amdhsa' },
    { arch: 'gfx942', triple: 'amdgcn-amd-amdhsa' },
  ]);
  assert.deepEqual(entries.map((e) => e.fields.flags), [5, 0]);
  const extracted = join(dir, 'extracted');
  must(OFFLOAD, ['extract', edited.path, '--image=arch=gfx942', '-o', extracted]);
  const [name] = readdirSync(extracted);
  assert.ok(bytesEqual(readFileSync(join(extracted, name)), added), 'the added image is the file given');

  // An edit that is allowed but leaves something LLVM would warn about says so with its result.
  await select('offload entry openmp amdgcn-amd-amdhsa gfx942');
  await page.getByRole('button', { name: 'Remove triple' }).click();
  await applied();
  await page.locator('.edit-status.done', { hasText: "new warning: offload entry openmp gfx942 (object, 4.4 KiB): no triple: LLVM's linker wrapper cannot tell the target" }).waitFor();
  await closeTab('omp_elf_2arch.o');
});

test('bundle entries are added from a file, moved and removed by clicks, as clang-offload-bundler reads them', async () => {
  const added = readFileSync(gfx942CodeObject());
  await dropFile(page, join(FIXTURES, 'bundle_bin.bc'));
  await select('clang offload bundle');
  const id = page.locator('#add-entry-id');
  await id.fill('hipv4-amdgcn-amd-amdhsa--gfx906');
  await page.locator('.add-entry .field-problem', { hasText: "the bundle already has an entry 'hipv4-amdgcn-amd-amdhsa--gfx906'" }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Add image' }).isDisabled(), true);
  await id.fill('hipv4-amdgcn-amd-amdhsa--gfx942');
  await page.locator('#add-entry-file').setInputFiles(gfx942CodeObject());
  await page.getByRole('button', { name: 'Add image' }).click();
  await waitVersion(1);
  await page.locator('.inspector .node-label', { hasText: 'hipv4-amdgcn-amd-amdhsa--gfx942' }).waitFor();
  // The new entry is last: move it up once, then remove the gfx906 entry.
  await page.getByRole('button', { name: 'Move up' }).click();
  await waitVersion(2);
  await page.locator('.inspector .node-label', { hasText: 'hipv4-amdgcn-amd-amdhsa--gfx942' }).waitFor();
  await select('hipv4-amdgcn-amd-amdhsa--gfx906');
  await page.getByRole('button', { name: 'Remove entry' }).click();
  await waitVersion(3);

  const edited = await downloadFile();
  // The bundler lists in its own (hash) order; the order of the entries in the file is ours.
  const listed = must(BUNDLER, ['--list', '--type=bc', `--input=${edited.path}`]).trim().split('\n').sort();
  assert.deepEqual(listed, ['hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+', 'hipv4-amdgcn-amd-amdhsa--gfx942', 'host-x86_64-unknown-linux-gnu-']);
  assert.deepEqual(cliList(edited.path).targets.map((t) => t.target_id), ['hipv4-amdgcn-amd-amdhsa--gfx942', 'hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+']);
  const out = join(dir, 'unbundled-gfx942.co');
  must(BUNDLER, ['--unbundle', '--type=bc', `--input=${edited.path}`, '--targets=hipv4-amdgcn-amd-amdhsa--gfx942', `--output=${out}`]);
  assert.ok(bytesEqual(readFileSync(out), added), 'the bundler unbundles the file that was added');
  await closeTab('bundle_bin.bc');
});

test('a compressed bundle grown past its slot in a linked library is refused, and its payload is offered alone', async () => {
  const original = readFileSync(join(FIXTURES, 'libhip_3tu_compressed.so'));
  await dropFile(page, join(FIXTURES, 'libhip_3tu_compressed.so'));
  await select('compressed bundle v3 (zstd, 1.5 KiB');
  await page.getByRole('button', { name: 'Decompress' }).click();
  const message = await waitRefused();
  assert.match(message, /do not fit in the 4096 bytes this container has in the linked file's section \.hip_fatbin.*: \d+ bytes over/, message);
  await editShot('23-edit-does-not-fit');
  assert.equal(await page.locator('#tab-panel').getAttribute('data-version'), '0', 'the file stays as it was');
  const payload = await download(page, () => page.getByRole('button', { name: /Download the payload alone/ }).click(), dir);
  assert.equal(payload.name, 'libhip_3tu_compressed.so.hipfb');
  const listed = cliList(payload.path);
  assert.equal(listed.root.children[0].kind, 'bundle');
  assert.deepEqual(listed.targets.map((t) => t.target_id).sort(), ['hipv4-amdgcn-amd-amdhsa--gfx906:xnack-', 'hipv4-amdgcn-amd-amdhsa--gfx90a']);
  const bundlerIds = must(BUNDLER, ['--list', '--type=o', `--input=${payload.path}`]).trim().split('\n').sort();
  assert.deepEqual(bundlerIds, ['hipv4-amdgcn-amd-amdhsa--gfx906:xnack-', 'hipv4-amdgcn-amd-amdhsa--gfx90a', 'host-x86_64-unknown-linux-gnu-']);
  const file = await downloadFile();
  assert.ok(bytesEqual(readFileSync(file.path), original), 'the refused edit changed nothing');
  await closeTab('libhip_3tu_compressed.so');
});

test('Ctrl+Z undoes an edit and Ctrl+Shift+Z redoes it; the edited node is marked', async () => {
  await dropFile(page, join(FIXTURES, 'hip_elf_2arch.o'));
  assert.equal(await page.getByRole('button', { name: 'Undo' }).isDisabled(), true);
  await select('hipv4-amdgcn-amd-amdhsa--gfx906:xnack-');
  await page.getByLabel('Entry ID', { exact: true }).fill('hipv4-amdgcn-amd-amdhsa--gfx908');
  await page.getByRole('button', { name: 'Apply the entry ID' }).click();
  await waitVersion(1);
  const editedRow = page.locator('#tree .row.edited', { hasText: 'hipv4-amdgcn-amd-amdhsa--gfx908' });
  await editedRow.locator('.badge.edited').waitFor();
  await page.locator('.inspector .node-label .badge.edited').waitFor();
  await page.locator('.map-panel rect.region.edited').first().waitFor();
  assert.equal(await page.locator('.inspector .node-label').innerText().then((t) => t.startsWith('hipv4-amdgcn-amd-amdhsa--gfx908')), true, 'the selection stays on the edited entry');
  await shot(page, '24-edit-marked');

  await page.locator('#tree').focus();
  await page.keyboard.press('Control+z');
  await waitVersion(0);
  await page.locator('#tree .row', { hasText: 'hipv4-amdgcn-amd-amdhsa--gfx906:xnack-' }).waitFor();
  assert.equal(await page.locator('#tree .row.edited').count(), 0, 'the file as opened has no marks');
  assert.equal(await page.getByLabel('Entry ID', { exact: true }).inputValue(), 'hipv4-amdgcn-amd-amdhsa--gfx906:xnack-');
  assert.equal(await page.getByRole('button', { name: 'Redo' }).isDisabled(), false);

  await page.locator('#tree').focus();
  await page.keyboard.press('Control+Shift+Z');
  await waitVersion(1);
  await editedRow.waitFor();
  assert.equal(await page.getByRole('button', { name: 'Redo' }).isDisabled(), true);
  // Ctrl+Y redoes too, as on Windows.
  await page.keyboard.press('Control+z');
  await waitVersion(0);
  await page.keyboard.press('Control+y');
  await waitVersion(1);
  const redone = await downloadFile();
  assert.deepEqual(bundlerIdsOfObject(redone.path), ['hipv4-amdgcn-amd-amdhsa--gfx908', 'hipv4-amdgcn-amd-amdhsa--gfx90a', 'host-x86_64-unknown-linux-gnu-']);

  // The shortcuts dialog lists the keys.
  await page.locator('body').press('?');
  await page.locator('dialog.help', { hasText: 'Ctrl+Shift+Z' }).waitFor();
  await page.keyboard.press('Escape');
  await closeTab('hip_elf_2arch.o');
});

test('"Size by target": ticking a target and removing it everywhere gives a file the bundler reads without it', async () => {
  await dropFile(page, join(FIXTURES, 'hip_elf_2arch_compressed.o'));
  const runsOn = await page.locator('li.runs-on-line').evaluateAll((lis) => lis.map((li) => li.dataset.target));
  assert.deepEqual(runsOn, ['gfx906:xnack-', 'gfx90a']);
  // The GPUs to pick from: AMD processors in each xnack/sramecc mode and NVIDIA GPUs, each one
  // that offload fit answers for.
  const choices = await page.locator('#gpu-choices option').evaluateAll((os) => os.map((o) => o.value));
  for (const gpu of ['gfx90a', 'gfx90a:sramecc+:xnack+', 'gfx1201', 'sm_89']) assert.ok(choices.includes(gpu), gpu);
  assert.ok(!choices.includes('sm_90a') && !choices.includes('gfx11-generic'), 'code names are not GPUs');
  assert.equal(await page.getByLabel('Is my GPU in here?').getAttribute('list'), 'gpu-choices');
  await page.getByLabel('Is my GPU in here?').fill('gfx90a:xnack+');
  await page.locator('.runs-on-answer', { hasText: 'gfx90a:xnack+: yes' }).waitFor();
  // The whole answer, as offload fit gives it.
  const fit = JSON.parse(must(OFFLOAD, ['fit', '--json', '--gpu', 'gfx90a:xnack+', join(FIXTURES, 'hip_elf_2arch_compressed.o')])).gpus[0];
  await page.getByRole('button', { name: 'Check every library and kernel' }).click();
  const verdict = page.locator('.fit-verdict');
  await verdict.waitFor();
  assert.equal(await verdict.textContent(), `${fit.gpu}: ${fit.runs ? 'yes' : 'no'} — ${fit.reason}`);
  assert.equal(await page.locator('.fit-library').count(), fit.libraries.length);
  await editShot('24-will-it-run');
  await page.getByRole('button', { name: 'Close the answer' }).click();
  await page.getByRole('checkbox', { name: 'Drop gfx906:xnack-' }).check();
  await page.locator('.drop-row', { hasText: 'Without gfx906:xnack-' }).waitFor();
  await editShot('22-size-by-target');
  await page.getByRole('button', { name: 'Remove 1 target everywhere' }).click();
  await waitVersion(1);
  await page.locator('.edit-status.done', { hasText: 'removed 1 image of gfx906:xnack-' }).waitFor();
  const edited = await downloadFile();
  assert.deepEqual(bundlerIdsOfObject(edited.path), ['hipv4-amdgcn-amd-amdhsa--gfx90a', 'host-x86_64-unknown-linux-gnu-']);
  assert.deepEqual(cliList(edited.path).targets.map((t) => t.target_id), ['hipv4-amdgcn-amd-amdhsa--gfx90a']);

  // Compare the edited file with the file as opened: what offload diff says of the two.
  const original = join(FIXTURES, 'hip_elf_2arch_compressed.o');
  const r = run(OFFLOAD, ['diff', '--json', original, edited.path]);
  assert.equal(r.status, 1, `offload diff: different (${r.stderr})`);
  const theirs = JSON.parse(r.stdout);
  await page.getByLabel('Compare with').selectOption({ label: 'this file as opened (before its edits)' });
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  const panel = page.locator('section.compare-panel');
  await panel.locator('.compare-verdict').waitFor();
  assert.equal(await panel.locator('.compare-verdict').textContent(),
    `Different: ${theirs.targets.added.length} added, ${theirs.targets.removed.length} removed, ${theirs.targets.common.length} common; ` +
    `${theirs.images.filter((i) => i.equal !== true).length} of ${theirs.images.length} images differ.`);
  assert.deepEqual(await panel.locator('.compare-targets.removed li').allTextContents(), theirs.targets.removed);
  await editShot('23-compare');
  await panel.getByRole('button', { name: 'Close the comparison' }).click();
  await panel.waitFor({ state: 'detached' });
  await closeTab('hip_elf_2arch_compressed.o');
});

test('the editor worker is loaded on the first edit, not to explore', async () => {
  // Without the service worker, which would fetch every file of the site in the background.
  const own = await openPage(site.browser, site.siteUrl, problems, { serviceWorkers: 'block' });
  const fetched = [];
  own.context.on('request', (r) => fetched.push(new URL(r.url()).pathname.split('/').pop()));
  try {
    await dropFile(own.page, join(FIXTURES, 'hip_elf_2arch_compressed.o'));
    assert.ok(fetched.includes('explorer.js'), `the explorer worker was loaded: ${fetched.join(' ')}`);
    assert.deepEqual(fetched.filter((f) => f.startsWith('editor')), [], 'exploring loads no editor');
    await own.page.getByRole('checkbox', { name: 'Drop gfx906:xnack-' }).check();
    await own.page.getByRole('button', { name: 'Remove 1 target everywhere' }).click();
    await own.page.locator('#tab-panel[data-version="1"] section.summary').waitFor();
    await own.page.locator('.edit-status.done', { hasText: 'removed 1 image of gfx906:xnack-' }).waitFor();
    assert.ok(fetched.includes('editor_bg.wasm'), `the first edit loads the editor: ${fetched.join(' ')}`);
    // The explorer keeps the new version: its bytes are what the hex view and downloads read.
    const edited = await download(own.page, () => own.page.getByRole('button', { name: 'Download file' }).click(), dir);
    assert.deepEqual(cliList(edited.path).targets.map((t) => t.target_id), ['hipv4-amdgcn-amd-amdhsa--gfx90a']);
  } finally {
    await own.context.close();
  }
});
