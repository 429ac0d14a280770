// Prints what the built site costs to download: every .wasm and .js file of DIR, raw and
// gzipped (level 9, what a static host typically serves), and the total.
//   node scripts/web-size.mjs DIR
import { gzipSync } from 'node:zlib';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const dir = process.argv[2] ?? 'dist';
const files = [];
(function walk(d) {
  for (const name of readdirSync(d)) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(wasm|js)$/.test(name)) files.push(p);
  }
})(dir);
if (files.length === 0) {
  console.error(`web-size: no .wasm or .js files in ${dir}`);
  process.exit(1);
}
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
let raw = 0;
let gz = 0;
console.log('web-size: transfer size of the page (gzip -9)');
for (const f of files.sort()) {
  const data = readFileSync(f);
  const z = gzipSync(data, { level: 9 }).length;
  raw += data.length;
  gz += z;
  console.log(`  ${relative(dir, f).padEnd(36)} ${kib(data.length).padStart(11)} raw ${kib(z).padStart(11)} gzipped`);
}
console.log(`  ${'total wasm + js'.padEnd(36)} ${kib(raw).padStart(11)} raw ${kib(gz).padStart(11)} gzipped`);
