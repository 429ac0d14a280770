// Trunk post-build hook: allows Trunk's inline loader script in the page's
// Content-Security-Policy by its SHA-256 hash, so the policy needs neither 'unsafe-inline' nor a
// server that adds nonces. Reads and rewrites index.html in TRUNK_STAGING_DIR (or the directory
// given as argument). Fails the build if the page has an inline script it cannot account for.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PLACEHOLDER = "'sha256-TRUNK_LOADER_HASH'";
const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('csp-hash: no TRUNK_STAGING_DIR and no directory given');
  process.exit(1);
}
const file = join(dir, 'index.html');
let html = readFileSync(file, 'utf8');

// Inline scripts: <script ...> without src. The hash covers exactly the text between the tags.
const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
  .filter(([, attrs]) => !/\bsrc\s*=/.test(attrs))
  .map(([, , body]) => body);
if (inline.length === 0) {
  console.error('csp-hash: found no inline loader script in', file);
  process.exit(1);
}
const hashes = inline.map((body) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
if (!html.includes(PLACEHOLDER)) {
  console.error(`csp-hash: the Content-Security-Policy in ${file} has no ${PLACEHOLDER} to replace`);
  process.exit(1);
}
html = html.replace(PLACEHOLDER, hashes.join(' '));
writeFileSync(file, html);
console.log(`csp-hash: ${hashes.length} inline script(s) allowed by hash: ${hashes.join(' ')}`);
