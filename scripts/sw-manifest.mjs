// Trunk post-build hook: writes into the service worker (sw.js in TRUNK_STAGING_DIR, or the
// directory given as argument) the files of this build and a version derived from their
// contents. Trunk names some files after a hash of their content (style-<hash>.css); those the
// worker may serve from its cache first. The others (the page, the binaries' loaders, scripts
// and wasm, which keep fixed names, the samples) it fetches from the network first.
// The page is listed as './', the URL it is served at (the worker's scope).
// Fails the build if sw.js lacks the placeholders it fills in.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const SW = 'sw.js';
const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('sw-manifest: no TRUNK_STAGING_DIR and no directory given');
  process.exit(1);
}

/** Every file under `d`, as paths relative to `dir` with forward slashes, sorted. */
function files(d) {
  return readdirSync(d).flatMap((name) => {
    const p = join(d, name);
    return statSync(p).isDirectory() ? files(p) : [relative(dir, p).split(sep).join('/')];
  }).sort();
}

// Trunk's content hash: hex digits before the extension (app-ba07055d67f3a7d1_bg.wasm). Trunk
// writes the 64-bit hash without leading zeros, so it can be shorter than 16 digits.
const HASHED_NAME = /-[0-9a-f]{1,16}(_bg)?\.[a-z0-9]+$/;
const listed = files(dir).filter((f) => f !== SW);
const url = (f) => (f === 'index.html' ? './' : f.split('/').map(encodeURIComponent).join('/'));
const hashed = listed.filter((f) => HASHED_NAME.test(f)).map(url);
const fixed = listed.filter((f) => !HASHED_NAME.test(f)).map(url);
if (!listed.includes('index.html') || !listed.some((f) => f.endsWith('.wasm'))) {
  console.error(`sw-manifest: expected index.html and .wasm files in ${dir}, found ${listed.join(', ')}`);
  process.exit(1);
}

// The version changes when any listed file does, names and contents.
const version = createHash('sha256');
for (const f of listed) version.update(`${f}\0${createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')}\n`);
const VERSION = version.digest('hex').slice(0, 16);

const file = join(dir, SW);
let sw = readFileSync(file, 'utf8');
const fills = [
  ["'SW_VERSION'", JSON.stringify(VERSION)],
  ['[/* SW_HASHED */]', JSON.stringify(hashed)],
  ['[/* SW_FIXED */]', JSON.stringify(fixed)],
];
for (const [placeholder, value] of fills) {
  if (!sw.includes(placeholder)) {
    console.error(`sw-manifest: ${file} has no ${placeholder} to replace`);
    process.exit(1);
  }
  sw = sw.replace(placeholder, value);
}
writeFileSync(file, sw);
console.log(`sw-manifest: version ${VERSION}, ${hashed.length} hashed and ${fixed.length} fixed-name files: ${fixed.join(' ')}`);
