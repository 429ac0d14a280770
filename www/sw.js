// Offload Explorer's service worker: keeps the app shell so that, after one visit, the page
// opens and explores files with no network. Its scope is the directory it is served from (the
// site's sub-path); it never looks at requests to other origins or outside that scope.
//
// scripts/sw-manifest.mjs (a Trunk post-build hook) writes the lists below into dist/sw.js
// after every build: the files of this build, as URLs relative to this script, and a version
// derived from their contents. A new build is a new version, so browsers install it as an
// update; it takes over once no page of the old version is open (no skipWaiting: an open page
// of the old version must keep getting the old files), and then deletes the old caches.
//
// Nothing is ever stored at run time: only the files of the build, on install. Files a
// `#url=` link downloads (fetched with cache: 'no-store') pass through untouched.

// Filled in by scripts/sw-manifest.mjs.
const VERSION = 'SW_VERSION';
// Names that carry a hash of their content never change: served from the cache first.
const HASHED = [/* SW_HASHED */];
// Names that stay the same from build to build (the page itself, the binaries' loaders, scripts
// and wasm, the samples): served from the network first, so they always match the page the
// network gave, and from the cache when there is no network.
const FIXED = [/* SW_FIXED */];

const SCOPE = self.registration.scope;
const INDEX = new URL('./', SCOPE).href;
const CACHE_PREFIX = `offload-explorer ${SCOPE} `;
const CACHE = CACHE_PREFIX + VERSION;
const hashed = new Set(HASHED.map((u) => new URL(u, SCOPE).href));
const fixed = new Set(FIXED.map((u) => new URL(u, SCOPE).href));

self.addEventListener('install', (event) => {
  event.waitUntil(precache());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(deleteOldCaches().then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !request.url.startsWith(SCOPE) || request.cache === 'no-store') return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirst(request, INDEX));
    return;
  }
  const url = request.url.split('#')[0];
  if (hashed.has(url)) event.respondWith(cacheFirst(request, url));
  else if (fixed.has(url)) event.respondWith(networkFirst(request, url));
});

async function precache() {
  const cache = await caches.open(CACHE);
  // 'reload': the files themselves, not what the browser's HTTP cache kept of them.
  await cache.addAll([...fixed, ...hashed].map((u) => new Request(u, { cache: 'reload' })));
}

async function deleteOldCaches() {
  const names = await caches.keys();
  await Promise.all(names.filter((n) => n.startsWith(CACHE_PREFIX) && n !== CACHE).map((n) => caches.delete(n)));
}

async function cacheFirst(request, url) {
  const cached = await caches.match(url, { cacheName: CACHE });
  return cached ?? fetch(request);
}

async function networkFirst(request, fallbackUrl) {
  try {
    return await fetch(request);
  } catch (offline) {
    const cached = await caches.match(fallbackUrl, { cacheName: CACHE });
    if (cached) return cached;
    throw offline;
  }
}
