// Offline after the first visit: registers the service worker (sw.js at the site root)
// on the deployed site, and offers "a new version is ready, reload" when a newer build
// has been installed in the background.
//
// BUILD is written by tools/build_dist.py into dist/site's copy; the repository's copy
// (BUILD = null, `make run`) registers nothing, so development always sees fresh files.
// Nothing happens from file:// (the single file strips this script), in browsers without
// service workers, or where storage is blocked (some embedding iframes): the page then
// simply loads from the network as before.
//
// The worker is registered only once the lab is on screen, so that its downloads never
// compete with the first visit's boot; it then takes the files from the HTTP cache.

import { notify } from "./ui/notices.js";

const BUILD = null;

// A page left open learns of a new deploy too: it asks for sw.js again every UPDATE_EVERY_MS
// while it is in view, and when it comes back into view after a minute or more.
const UPDATE_EVERY_MS = 15 * 60 * 1000;
const UPDATE_POLL_MS = 5000; // how often the page looks whether a check is due (a comparison)

const SW_URL = new URL("../../sw.js", import.meta.url);
const SCOPE = new URL("../../", import.meta.url);
const status = (window.swarmlabOffline = { build: BUILD, state: "off", error: null, updateEveryMs: UPDATE_EVERY_MS });

/** The one "new version" notice (ui/notices.js; the same id replaces an earlier one). */
function notice(text, button) {
  notify(text, "info", { id: "sw-update", action: button && { ...button, id: "sw-update-reload" } });
}

let reloading = false;
let waiting = null; // a newer build's installed worker, waiting for the page to ask for it

/** Reload, with the newer build when one is waiting (the notice's button, and the boot error
 *  card's Reload: a waiting worker does not take over on a plain reload, so a page that failed
 *  to start would otherwise come back from the same cached build however often it is reloaded). */
function reloadFresh() {
  const worker = waiting;
  if (!worker || worker.state === "activated" || worker.state === "redundant") return void location.reload();
  reloading = true;
  worker.postMessage({ type: "swarmlab:activate" });
}
status.reload = reloadFresh;

function offer(worker) {
  status.state = "update-ready";
  waiting = worker;
  notice("A new version of Swarm Lab is ready.", { label: "Reload", onClick: reloadFresh });
  // A page whose start failed shows its error card over everything, notices included: the card
  // says it, and its Reload (boot.js: swarmlabOffline.reload) starts the new version.
  const hint = document.getElementById("boot-error-hint");
  if (hint && document.documentElement.classList.contains("boot-failed") && !hint.dataset.update) {
    hint.dataset.update = "1";
    hint.prepend("A newer version of Swarm Lab has just arrived: Reload starts it. ");
  }
}

async function register() {
  status.state = "registering";
  const reg = await navigator.serviceWorker.register(SW_URL.href, { scope: SCOPE.href });
  const controlled = () => navigator.serviceWorker.controller !== null;
  const watch = (worker) => {
    if (!worker) return;
    const done = () => {
      if (worker.state === "installed" && controlled()) offer(worker);
      if (worker.state === "activated" && status.state !== "update-ready") status.state = "ready";
      if (worker.state === "redundant" && status.state === "installing") status.state = "failed";
    };
    worker.addEventListener("statechange", done);
    done();
  };
  if (reg.waiting && controlled()) offer(reg.waiting);
  else if (reg.active) status.state = "ready";
  if (reg.installing) {
    if (status.state !== "update-ready") status.state = "installing";
    watch(reg.installing);
  }
  reg.addEventListener("updatefound", () => {
    if (status.state !== "update-ready") status.state = "installing";
    watch(reg.installing);
  });
  keepChecking(reg);
}

/** Ask the server for a newer sw.js now and then (an update found is offered as above). */
function keepChecking(reg) {
  let last = performance.now();
  const check = () => {
    last = performance.now();
    reg.update().catch(() => { /* offline or the server is away: the next check tries again */ });
  };
  const visible = () => document.visibilityState === "visible";
  document.addEventListener("visibilitychange", () => {
    if (visible() && performance.now() - last >= 60000) check();
  });
  setInterval(() => {
    if (visible() && status.state !== "update-ready" && performance.now() - last >= status.updateEveryMs) check();
  }, UPDATE_POLL_MS);
}

// Listened for from the start, not only once this page has registered: another tab may
// switch to a new build while this one is still booting, and that must not go unnoticed.
function listenForTakeover() {
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (reloading) location.reload();
    else notice("Swarm Lab was updated in another tab. Reload this page to use the new version.",
      { label: "Reload", onClick: () => location.reload() });
  });
}

function whenLabShown(fn) {
  const root = document.documentElement;
  if (root.classList.contains("lab-ready")) return void setTimeout(fn, 0);
  let started = false;
  const go = () => { if (!started) { started = true; setTimeout(fn, 0); } };
  addEventListener("swarmlab:lab-ready", go, { once: true });
  // A page that started but shows no lab (its lab failed to build) still gets the offline copy, a
  // while after it loaded; one still starting gets it once it has started, and one that failed
  // to start never does: a broken deploy is not kept for the next visit.
  addEventListener("load", () => setTimeout(() => {
    if (window.SwarmBoot && typeof window.SwarmBoot.whenReady === "function") window.SwarmBoot.whenReady().then(go, () => {});
    else if (!root.classList.contains("boot-failed")) go();
  }, 30000), { once: true });
}

/** A page served from an earlier visit's copy that fails to start asks the server for a newer
 *  build at once (the fix of a broken deploy, or a build whose files the copy lacks); found, it
 *  is offered on the error card. */
function checkForUpdateOnFailure() {
  const check = async () => {
    if (!navigator.serviceWorker.controller) return;
    try {
      const reg = await navigator.serviceWorker.getRegistration(SCOPE.href);
      if (!reg) return;
      const watch = (worker) => {
        if (!worker) return;
        const done = () => { if (worker.state === "installed") offer(worker); };
        worker.addEventListener("statechange", done);
        done();
      };
      if (reg.waiting) offer(reg.waiting);
      reg.addEventListener("updatefound", () => watch(reg.installing));
      await reg.update();
    } catch (err) { /* offline: the card's Reload tries again */ }
  };
  if (document.documentElement.classList.contains("boot-failed")) check();
  else addEventListener("swarmlab:boot-failed", check, { once: true });
}

async function forgetDeployedWorker() {
  // Development: a worker left by a deployed build on this origin would serve old files.
  const regs = await navigator.serviceWorker.getRegistrations();
  for (const r of regs) {
    const w = r.active || r.waiting || r.installing;
    if (w && new URL(w.scriptURL).href === SW_URL.href) await r.unregister();
  }
}

if ("serviceWorker" in navigator && window.isSecureContext && !window.SWARMLAB_SINGLE_FILE
    && /^https?:$/.test(location.protocol)) {
  if (BUILD) {
    listenForTakeover();
    checkForUpdateOnFailure();
    whenLabShown(() => register().catch((err) => {
      status.state = "unavailable";
      status.error = String((err && err.message) || err);
    }));
  } else {
    forgetDeployedWorker().catch(() => {});
  }
}
