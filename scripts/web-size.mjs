// Prints what the built site costs to download: every .wasm and .js file of DIR, raw and
// gzipped (level 9, what a static host typically serves), and the total; then the two figures
// the size aims are about (issue #14): what the first paint needs (the page, its style sheet
// and the shell's script: the static shell in index.html is drawn before any wasm arrives) and
// what exploring a file needs (the page's binary, which its explorer workers run too: wasm and
// js, fetched once).
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

// The first paint: the HTML, its style sheet and the scripts it loads before the app (shell.js).
const gzOf = (f) => gzipSync(readFileSync(f), { level: 9 }).length;
const top = readdirSync(dir).map((n) => join(dir, n)).filter((p) => statSync(p).isFile());
const firstPaint = top.filter((p) => /(^|\/)(index\.html|shell\.js)$|\.css$/.test(p));
const firstPaintGz = firstPaint.reduce((n, f) => n + gzOf(f), 0);
// The editor worker is loaded on the first edit, the disassembler when the Code view first
// opens: neither to explore.
const laterOnly = /(^|\/)((sw|shell)\.js|(editor|disasm)[_.].*)$/;
const explore = files.filter((f) => !laterOnly.test(f));
const exploreGz = explore.reduce((n, f) => n + gzOf(f), 0);
const verdict = (n, aim) => `${kib(n)} gzipped (aim: at most ${aim} KiB: ${n <= aim * 1024 ? 'met' : 'not met'})`;
console.log(`  first paint (${firstPaint.map((f) => relative(dir, f)).join(', ')}): ${verdict(firstPaintGz, 200)}`);
console.log(`  page + worker, to explore a file or a package (wasm + js): ${verdict(exploreGz, 400)}`);
