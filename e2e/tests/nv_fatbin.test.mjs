// NVIDIA fatbins in the page: every NVIDIA fixture (tests/fixtures/nvidia, made by nvcc 13.5) and,
// when the differential tests have downloaded them into .tools/nvidia/libs, the two real nvJPEG
// libraries are dropped on the page, which must show the targets our CLI lists — one `sm_NN cubin`
// row per cubin cuobjdump lists (when it is installed) — with no page error or CSP violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, FIXTURES, cliList, dropFile, openPage, pageTargets, run, shot, startSite } from '../support.mjs';

const NV = join(FIXTURES, 'nvidia');
const CUOBJDUMP = process.env.NVCC_BIN ? join(process.env.NVCC_BIN, 'cuobjdump') : join(ROOT, '.tools/nvidia/root/nvidia/cu13/bin/cuobjdump');

let site, page, context;
const problems = [];

before(async () => {
  site = await startSite();
  ({ context, page } = await openPage(site.browser, site.siteUrl, problems));
});

after(async () => {
  await context?.close();
  await site?.browser.close();
  site?.server.close();
});

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
  for (const path of inputs()) {
    const name = await dropFile(page, path);
    const expected = cliList(path).targets.map((t) => t.target_id);
    assert.ok(expected.length > 0, `${name}: the CLI finds targets`);
    assert.deepEqual(await pageTargets(page), expected, `targets of ${name}`);
    if (existsSync(CUOBJDUMP)) {
      const r = run(CUOBJDUMP, ['--list-elf', path]);
      if (r.signal) {
        console.log(`${name}: cuobjdump died by ${r.signal}: no answer, comparison skipped`);
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
