/* Swarm Lab service worker: a second visit starts from this cache, with or without a network.
 *
 * tools/build_dist.py writes BUILD and FILES into the copy in dist/site/ (the deployed site).
 * This copy (BUILD = null) is the one the repository serves in development: it never caches,
 * and if a browser still has a deployed build's worker for this origin, it removes it.
 *
 * Versioned, so that a page never mixes two builds:
 *   - one cache per build ("swarmlab-<BUILD>"), filled during install with every file the
 *     page and its workers fetch (FILES), each checked against its sha256;
 *   - install takes a file from an older build's cache or the HTTP cache when the bytes
 *     match (the first visit has just downloaded them), else from the network;
 *   - a new build waits until the page asks for it ("a new version is ready, reload":
 *     assets/js/sw-register.js); pages that started on the older build (other tabs and
 *     their workers) keep being served from the older cache until they close.
 * Requests outside FILES (other origins, other paths) go to the network untouched.
 */
"use strict";

const BUILD = null;
const FILES = {};
const PREFIX = "swarmlab-";
const CACHE = PREFIX + BUILD;
const META = PREFIX + "meta"; // {current: cache name, pins: {clientId: cache name}}
const META_URL = "/__swarmlab_meta__";

const SCOPE = new URL(self.registration.scope);
const urlOf = (path) => new URL(path, SCOPE).href;

async function sha256Hex(response) {
  const digest = await crypto.subtle.digest("SHA-256", await response.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function readMeta() {
  const hit = await (await caches.open(META)).match(META_URL);
  const meta = hit ? await hit.json() : {};
  return { current: meta.current || null, pins: meta.pins || {} };
}

async function writeMeta(meta) {
  await (await caches.open(META)).put(META_URL, new Response(JSON.stringify(meta), {
    headers: { "Content-Type": "application/json" },
  }));
  metaCache = meta;
}

let metaCache = null;

async function precache() {
  const cache = await caches.open(CACHE);
  const older = (await caches.keys()).filter((k) => k.startsWith(PREFIX) && k !== CACHE && k !== META);
  const queue = Object.keys(FILES);
  async function one(path) {
    const url = urlOf(path);
    if (await cache.match(url)) return; // an interrupted install resumes
    for (const name of older) {
      const hit = await (await caches.open(name)).match(url);
      if (hit && (await sha256Hex(hit.clone())) === FILES[path]) {
        await cache.put(url, hit);
        return;
      }
    }
    for (const mode of ["force-cache", "reload"]) {
      const r = await fetch(new Request(url, { cache: mode, credentials: "same-origin" }));
      if (r.ok && !r.redirected && (await sha256Hex(r.clone())) === FILES[path]) {
        await cache.put(url, r);
        return;
      }
    }
    throw new Error(`Swarm Lab offline copy: ${path} does not match build ${BUILD} (a newer deploy?)`);
  }
  const lanes = Array.from({ length: 4 }, async () => {
    while (queue.length) await one(queue.shift());
  });
  await Promise.all(lanes);
}

self.addEventListener("install", (event) => {
  if (!BUILD) {
    self.skipWaiting();
    return;
  }
  event.waitUntil(precache());
});

async function forgetStalePins(meta) {
  const live = new Set((await self.clients.matchAll({ type: "all", includeUncontrolled: true })).map((c) => c.id));
  for (const id of Object.keys(meta.pins)) if (!live.has(id)) delete meta.pins[id];
  const keep = new Set([CACHE, META, ...Object.values(meta.pins)]);
  for (const name of await caches.keys()) {
    if (name.startsWith(PREFIX) && !keep.has(name)) await caches.delete(name);
  }
}

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    if (!BUILD) { // the development copy: remove every trace of a deployed build
      for (const name of await caches.keys()) if (name.startsWith(PREFIX)) await caches.delete(name);
      await self.registration.unregister();
      for (const c of await self.clients.matchAll({ type: "window" })) c.navigate(c.url).catch(() => {});
      return;
    }
    const meta = await readMeta();
    if (meta.current && meta.current !== CACHE) {
      // Pages (and their workers) that run the older build keep it until they close.
      for (const c of await self.clients.matchAll({ type: "all" })) {
        if (!meta.pins[c.id]) meta.pins[c.id] = meta.current;
      }
    }
    meta.current = CACHE;
    await forgetStalePins(meta);
    await writeMeta(meta);
  })());
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "swarmlab:activate") self.skipWaiting();
  if (event.data && event.data.type === "swarmlab:build" && event.ports[0]) event.ports[0].postMessage(BUILD);
});

function keyOf(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  let path = decodeURIComponent(url.pathname.slice(SCOPE.pathname.length));
  if (request.mode === "navigate") {
    if (path === "") path = "index.html";
    return path === "index.html" ? path : null;
  }
  return Object.prototype.hasOwnProperty.call(FILES, path) ? path : null;
}

/** A worker that a page of an older build starts after that build was replaced (the engine's
 *  worker, started again when a student's rule ran away) is a client this worker has never
 *  seen; its first request names its page's build (assets/js/engine.js: ?swarmlab-build=), and
 *  it is pinned to that build's cache, so that old page code never runs new engine code. */
function pinByBuild(event, meta) {
  const asked = new URL(event.request.url).searchParams.get("swarmlab-build");
  const name = asked && /^[0-9a-f]+$/.test(asked) ? PREFIX + asked : null;
  if (!name || name === CACHE || !Object.values(meta.pins).includes(name)) return null;
  meta.pins[event.clientId] = name;
  event.waitUntil(writeMeta(meta));
  return name;
}

async function respond(event, path) {
  let name = CACHE;
  if (event.request.mode === "navigate") {
    const meta = metaCache || (await readMeta());
    if (Object.keys(meta.pins).length) event.waitUntil(forgetStalePins(meta).then(() => writeMeta(meta)));
  } else if (event.clientId) {
    const meta = metaCache || (metaCache = await readMeta());
    name = meta.pins[event.clientId] || pinByBuild(event, meta) || CACHE;
  }
  const hit = await (await caches.open(name)).match(urlOf(path));
  return hit || fetch(event.request);
}

self.addEventListener("fetch", (event) => {
  if (!BUILD) return;
  const path = keyOf(event.request);
  if (path !== null) event.respondWith(respond(event, path));
});
