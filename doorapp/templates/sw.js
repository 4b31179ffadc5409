// Door's service worker (secure contexts only: localhost, or HTTPS behind a proxy). It keeps the app shell
// (the page and its static files) so a door reloaded during a network drop opens again; the door's data
// comes from what the page itself kept. It caches nothing else: no API answer, no token (the token lives
// in localStorage and never passes through here).
const CACHE = "door-shell-{{ version }}";
const SHELL = {{ shell|tojson }};

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

// The network first (an upgrade shows at once); the kept copy only when the network does not answer.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  const shell =
    url.origin === location.origin && (url.pathname === "/" || url.pathname.startsWith("/static/"));
  if (event.request.method !== "GET" || !shell) return; // the API goes straight to the network
  const key = event.request.mode === "navigate" ? "/" : url.pathname;
  event.respondWith(fetch(event.request).then((reply) => {
    if (reply.ok) {
      const copy = reply.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
    }
    return reply;
  }).catch(() => caches.match(key).then((kept) => kept || Response.error())));
});
