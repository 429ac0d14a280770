// `make serve`: serves the built site (dist/) and prints its URL.
//   node scripts/serve.mjs DIR [--host 127.0.0.1] [--port 8080] [--base /]
import { serveStatic } from './static-server.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const dir = args[0] ?? 'dist';
const { url } = await serveStatic({ dir, host: opt('host', '127.0.0.1'), port: Number(opt('port', 8080)), base: opt('base', '/') });
console.log(`Offload Explorer is served at ${url}  (Ctrl+C stops it)`);
