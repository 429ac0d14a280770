// Decompressing on demand: a compressed bundle over the 32 MiB decompressed on opening is listed
// from its header; selecting one of its entries decompresses it in the tab's worker, with a
// progress bar and Cancel, and without a trip to the settings. What the page then shows and
// downloads is compared with clang-offload-bundler's unbundling and our CLI's `list --verify`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, LLVM_BIN, cliList, download, must, sharedPage, shot } from '../support.mjs';

const BUNDLER = join(LLVM_BIN, 'clang-offload-bundler');
const GFX90A = 'hipv4-amdgcn-amd-amdhsa--gfx90a';

const problems = [];
const shared = sharedPage(problems);

/** A real gfx90a code object followed by `mib` MiB of bytes that compress about as well as
 * code (8-byte words from a skewed vocabulary), so that decoding takes as long as a real
 * bundle's would. */
function paddedImage(dir, mib) {
  const image = join(dir, 'image.co');
  must(BUNDLER, ['-unbundle', '-type=o', `-targets=${GFX90A}`, `-input=${join(FIXTURES, 'hip_elf_2arch.hipfb')}`, `-output=${image}`]);
  const code = readFileSync(image);
  const words = Array.from({ length: 8192 }, (_, i) => Buffer.from([i, i >> 8, i * 7, i * 13, i * 31, i * 61, i * 97, i * 127].map((b) => b & 255)));
  const body = Buffer.alloc(mib << 20);
  let seed = 12345;
  for (let at = 0; at < body.length; at += 8) {
    // xorshift32: cheap, and without the short periods that would let zstd match far back.
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
    const r = seed / 2 ** 32;
    words[Math.floor(r * r * r * words.length)].copy(body, at);
  }
  writeFileSync(image, Buffer.concat([code, body]));
  return image;
}

function compressedBundle(dir, image) {
  const bundle = join(dir, 'big.hipfb');
  must(BUNDLER, ['-type=o', `-targets=host-x86_64-unknown-linux-gnu,${GFX90A}`, '-input=/dev/null', `-input=${image}`, `-output=${bundle}`, '-compress'],
    { env: { ...process.env, COMPRESSED_BUNDLE_FORMAT_VERSION: '3' } });
  return bundle;
}

async function pick(page, path) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file…' }).click();
  await (await chooser).setFiles(path);
  await page.locator('#tab-panel section.summary').waitFor();
}

/** Every diagnostic message of `offload list --json`'s tree. */
function messages(json) {
  const out = [];
  const visit = (n) => { out.push(...n.diagnostics.map((d) => d.message)); n.children.forEach(visit); };
  visit(json.root);
  return out;
}

const row = (page, text) => page.locator('[role=treeitem] > .row', { hasText: text }).first();

test('an entry of a bundle listed from its header is decompressed on selection, with progress and Cancel', async () => {
  const { page } = shared;
  const dir = mkdtempSync(join(tmpdir(), 'offload-decompress-'));
  try {
    const image = paddedImage(dir, 128);
    const bundle = compressedBundle(dir, image);
    await pick(page, bundle);
    const listed = cliList(bundle);
    assert.ok(messages(listed).some((m) => m.startsWith('hash not checked')), 'our CLI lists it from its header too');

    // Selecting the entry starts decompressing it: a progress bar, then Cancel.
    await row(page, GFX90A).click();
    const prompt = page.locator('.inspector .decompress-prompt');
    await prompt.locator('progress').waitFor();
    await shot(page, 'decompress-progress');
    await prompt.getByRole('button', { name: 'Cancel' }).click();
    await prompt.filter({ hasText: 'Decompression cancelled.' }).waitFor();
    assert.equal(await row(page, 'AMDGPU code object gfx90a').count(), 0, 'nothing was decompressed');
    // Selecting again does not start it; the button does, and this time it runs to the end.
    await row(page, 'host-x86_64').click();
    await row(page, GFX90A).click();
    assert.equal(await prompt.locator('progress').count(), 0, 'a cancelled bundle does not start again on selection');
    const started = Date.now();
    await prompt.getByRole('button', { name: /^Decompress and verify/ }).click();
    await row(page, 'AMDGPU code object gfx90a').waitFor({ timeout: 60_000 });
    console.log(`${(statSync(bundle).size / 2 ** 20).toFixed(1)} MiB bundle of 128 MiB: decompressed, verified and shown in ${Date.now() - started} ms`);
    assert.equal(await prompt.count(), 0, 'the entry has its bytes now');

    // The same tree as our CLI's `list --verify`, the hash checked, and the entry's download is
    // what clang-offload-bundler unbundles.
    const verified = cliList(bundle, '--verify');
    assert.deepEqual(messages(verified), []);
    await row(page, 'compressed bundle v3').click();
    assert.equal(await page.locator('.inspector tr[data-field="hash_ok"] td.value').textContent(), 'true');
    await row(page, GFX90A).click();
    const saved = await download(page, () => page.locator('.inspector .download-node button').click(), dir);
    assert.ok(readFileSync(saved.path).equals(readFileSync(image)), `${saved.name} is the bundler's image`);
    assert.deepEqual(problems, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
