// A small static file server for the built site: serves DIR under a base path (the site's
// public URL, e.g. /some/sub/path/), with the MIME types browsers insist on for wasm and
// modules, and nothing else (no directory listings, nothing outside DIR). Used by `make serve`
// and by the end-to-end tests.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/// Starts serving; resolves to { server, url } once listening. `onRequest(method, path, status,
/// headers)` hears every request, the status it was answered with and the request's headers
/// (the tests record them). With
/// `cors`, every answer allows any origin to read it (Access-Control-Allow-Origin: *), as a file
/// host that welcomes `#url=` links does.
export async function serveStatic({ dir, base = '/', host = '127.0.0.1', port = 0, cors = false, onRequest = () => {} }) {
  const root = resolve(dir);
  if (!base.startsWith('/')) base = '/' + base;
  if (!base.endsWith('/')) base += '/';
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    res.on('finish', () => onRequest(req.method, path, res.statusCode, req.headers));
    if (cors) res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    if (path === base.slice(0, -1)) {
      res.writeHead(301, { Location: base }).end();
      return;
    }
    if (!path.startsWith(base)) {
      res.writeHead(404).end('not found');
      return;
    }
    let file = normalize(join(root, path.slice(base.length)));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      // Browsers may keep a copy but must ask before using it (no-cache); the ETag lets them
      // ask cheaply: each explorer worker imports the page's script (app.js) again, and gets
      // "not modified".
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      const headers = {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'no-cache',
        ETag: etag,
      };
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, headers).end();
        return;
      }
      res.writeHead(200, { ...headers, 'Content-Length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, ok);
  });
  const { port: bound } = server.address();
  return { server, url: `http://${host}:${bound}${base}` };
}
