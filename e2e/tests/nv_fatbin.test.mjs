// NVIDIA fatbins in the page: every NVIDIA fixture (tests/fixtures/nvidia, made by nvcc 13.5) and,
// when the differential tests have downloaded them into .tools/nvidia/libs, the two real nvJPEG
// libraries are dropped on the page, which must show the targets our CLI lists — one `sm_NN cubin`
// row per cubin cuobjdump lists (when it is installed) — with no page error or CSP violation. A
// cubin's 64-byte constant bank shows in the inspector as a hex dump.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, FIXTURES, OFFLOAD, cliList, download, dropFile, must, pageTargets, run, sharedPage, shot } from '../support.mjs';

const NV = join(FIXTURES, 'nvidia');
const CUOBJDUMP = process.env.NVCC_BIN ? join(process.env.NVCC_BIN, 'cuobjdump') : join(ROOT, '.tools/nvidia/root/nvidia/cu13/bin/cuobjdump');

const problems = [];
const shared = sharedPage(problems);

function inputs() {
  const files = readdirSync(NV).filter((f) => !/\.(sh|txt|md)$/.test(f)).map((f) => join(NV, f));
  const libs = join(ROOT, '.tools/nvidia/libs');
  if (existsSync(libs)) {
    for (const dir of readdirSync(libs)) {
      for (const f of readdirSync(join(libs, dir)).filter((f) => f.includes('.so'))) files.push(join(libs, dir, f));
    }
  } else {
    console.log('no real CUDA libraries in .tools/nvidia/libs (cargo test downloads them): fixtures only');
  }
  return files;
}

test('the page shows the NVIDIA targets our CLI and cuobjdump find', async () => {
  const { page } = shared;
  for (const path of inputs()) {
    const name = await dropFile(page, path);
    const expected = cliList(path).targets.map((t) => t.target_id);
    assert.ok(expected.length > 0, `${name}: the CLI finds targets`);
    assert.deepEqual(await pageTargets(page), expected, `targets of ${name}`);
    if (existsSync(CUOBJDUMP)) {
      const r = run(CUOBJDUMP, ['--list-elf', path]);
      if (r.signal) {
        console.log(`${name}: cuobjdump died by ${r.signal}: no answer, comparison skipped`);
      } else if (r.status !== 0) {
        // cuobjdump 13.5 refuses CUDA 11 libraries (sm_35): it gave no listing to compare with.
        console.log(`${name}: cuobjdump refused it (${r.stderr.trim()}): comparison skipped`);
      } else {
        const cubins = r.stdout.split('\n').filter((l) => l.startsWith('ELF file')).length;
        assert.equal(expected.filter((t) => t.endsWith(' cubin')).length, cubins, `${name}: one cubin row per ELF cuobjdump lists`);
      }
    }
    if (name === 'libnv_2arch.so') await shot(page, 'nv-fatbin-library');
  }
  assert.deepEqual(problems, []);
  const csp = await page.evaluate(() => window.__cspViolations);
  assert.deepEqual(csp, []);
});

test('fatbin entries are decompressed and removed in the page; cuobjdump and our CLI read the download', async () => {
  const { page } = shared;
  const dir = mkdtempSync(join(tmpdir(), 'offload-nv-e2e-'));
  try {
    const path = join(NV, 'nv_3arch_size.fatbin');
    await dropFile(page, path);
    const select = async (label) => {
      await page.locator('#tree .row', { has: page.locator('.label', { hasText: label }) }).first().click();
      await page.locator('.inspector .node-label', { hasText: label }).waitFor();
    };
    // The image downloads under the name cuobjdump -xelf gives it, with the bytes offload extract writes.
    await select('cubin sm_80');
    const image = await download(page, () => page.getByRole('button', { name: 'Download sm_80 cubin', exact: true }).click(), dir);
    assert.equal(image.name, 'nv_3arch_size.2.sm_80.cubin');
    const extracted = join(dir, 'extracted');
    must(OFFLOAD, ['extract', path, '-o', extracted]);
    assert.ok(readFileSync(image.path).equals(readFileSync(join(extracted, image.name))), 'the same bytes as offload extract');

    await select('cubin sm_75');
    await page.getByRole('button', { name: 'Decompress the entry', exact: true }).click();
    await page.locator('#tab-panel[data-version="1"] section.summary').waitFor();
    await select('cubin sm_90a');
    await page.getByRole('button', { name: 'Remove entry', exact: true }).click();
    await page.locator('#tab-panel[data-version="2"] section.summary').waitFor();
    await shot(page, 'nv-fatbin-edited');
    const edited = await download(page, () => page.getByRole('button', { name: 'Download file', exact: true }).click(), dir);
    const listed = cliList(edited.path).targets;
    assert.deepEqual(listed.map((t) => t.target_id), ['sm_75 cubin', 'sm_80 cubin', 'compute_80 PTX']);
    assert.deepEqual(listed.map((t) => t.compression ?? 'none'), ['none', 'zstd', 'zstd']);
    if (existsSync(CUOBJDUMP)) {
      const r = run(CUOBJDUMP, ['--list-elf', edited.path]);
      if (r.signal) {
        console.log(`cuobjdump died by ${r.signal}: no answer, comparison skipped`);
      } else {
        assert.equal(r.status, 0, r.stderr);
        assert.deepEqual(r.stdout.split('\n').filter((l) => l.startsWith('ELF file')).map((l) => l.split(':').pop().trim()),
          ['nv_3arch_size.1.sm_75.cubin', 'nv_3arch_size.2.sm_80.cubin']);
      }
    }
    assert.deepEqual(problems, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Lines a field's raw bytes are drawn on, and whether any group of bytes is broken across two. */
function rawLines(raw) {
  return raw.locator('.raw-group').evaluateAll((groups) => ({
    lines: new Set(groups.map((g) => Math.round(g.getBoundingClientRect().top))).size,
    broken: groups.filter((g) => g.getClientRects().length !== 1).length,
  }));
}

test('the inspector shows a long raw field as a hex dump: rows of 16 bytes, never broken inside a byte', async () => {
  const { page } = shared;
  const cubin = join(ROOT, 'tests/images/cuda_kernels_sm80.cubin');
  await dropFile(page, cubin);
  await page.locator('[role=treeitem] > .row', { hasText: 'CUDA cubin sm_80' }).click();
  const raw = page.locator('.inspector tr[data-raw-of="constant3_size"] td.raw');
  await raw.waitFor();
  // The field's bytes (the .nv.constant3 bank) where our CLI says they are.
  const walk = (n) => [n, ...n.children.flatMap(walk)];
  const node = walk(cliList(cubin).root).find((n) => n.label === 'CUDA cubin sm_80');
  const { offset, size } = node.field_spans.constant3_size;
  assert.equal(size, 64);
  const bytes = [...readFileSync(cubin).subarray(offset, offset + size)].map((b) => b.toString(16).padStart(2, '0'));
  const rows = [0, 16, 32, 48].map((at) => bytes.slice(at, at + 16).join(' '));
  assert.deepEqual(await raw.locator('.raw-row').allTextContents(), rows, 'four rows of 16 bytes, as a hex dump');

  // In the inspector's quarter of the window a row wraps between groups of 4 bytes, and the
  // value keeps its room.
  const narrow = await rawLines(raw);
  assert.equal(narrow.broken, 0, 'no group of bytes is broken across lines');
  assert.ok(narrow.lines <= 8, `64 bytes on ${narrow.lines} lines in the inspector's column`);
  const fields = await page.locator('.inspector table.fields').evaluate((t) => ({
    table: t.scrollWidth, box: t.parentElement.clientWidth,
    value: t.querySelector('tr[data-field="e_flags"] td.value').getBoundingClientRect().width,
  }));
  assert.ok(fields.table <= fields.box, `the fields fit across the inspector: ${fields.table} px in ${fields.box}`);
  assert.ok(fields.value >= 80, `the value column is ${fields.value} px wide`);
  // With room, each row is one line.
  await page.getByRole('button', { name: 'Maximise Inspector' }).click();
  await page.locator('#pane-tree').waitFor({ state: 'detached' });
  assert.deepEqual(await rawLines(raw), { lines: 4, broken: 0 });
  await shot(page, 'inspector-raw-hex');
  await page.keyboard.press('m');
  await page.locator('#pane-tree').waitFor();
  assert.deepEqual(problems, []);
});
