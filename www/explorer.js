// The explorer worker's loader (an ES module worker; www/src/page/client.rs starts it). The
// page and its explorer run one binary (www/src/bin/app.rs): the page posts this worker the
// WebAssembly.Module it has already compiled, as its first message, so the worker neither
// fetches nor compiles the code again; the binary then sees it runs in a worker and explores.
// The page sends nothing else until the explorer says it is ready. An explorer starting a share
// worker (www/src/worker/shares.rs) posts its share right behind the code, without waiting, as
// it may be busy listing the package for a second: what comes while the code starts is held
// here and handed over once the binary listens.
import init from './app.js';

addEventListener('message', async (event) => {
  const held = [];
  const hold = (later) => held.push(later.data);
  addEventListener('message', hold);
  await init({ module_or_path: event.data });
  removeEventListener('message', hold);
  for (const data of held) dispatchEvent(new MessageEvent('message', { data }));
}, { once: true });
