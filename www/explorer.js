// The explorer worker's loader (an ES module worker; www/src/page/client.rs starts it). The
// page and its explorer run one binary (www/src/bin/app.rs): the page posts this worker the
// WebAssembly.Module it has already compiled, as its first message, so the worker neither
// fetches nor compiles the code again; the binary then sees it runs in a worker and explores.
// The page sends nothing else until the explorer says it is ready.
import init from './app.js';

addEventListener('message', (event) => init({ module_or_path: event.data }), { once: true });
