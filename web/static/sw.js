// Offline once loaded: the page's files are cached on install; each request goes to the network
// when there is one (and refreshes the cache), else to the cache.
const CACHE = 'tilekit-v2';
const FILES = ['./', 'index.html', 'page.css', 'app.js', 'editor.js', 'pkg/tilekit_web.js', 'pkg/tilekit_web_bg.wasm'];
self.addEventListener('install', (e) => e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES))));
self.addEventListener('activate', (e) =>
  e.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))));
self.addEventListener('fetch', (e) => {
  e.respondWith(
    fetch(e.request)
      .then((r) => {
        const copy = r.clone();
        caches.open(CACHE).then((c) => c.put(e.request, copy));
        return r;
      })
      .catch(() => caches.match(e.request)));
});
