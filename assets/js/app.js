// The app shell: tabs, URL parameters, notices, and mounting the labs.
//
// A lab is an ES module assets/js/labs/<lab>.js exporting
//     mount(section, ctx) -> { activate(), deactivate(), ...anything else }
// It builds its own DOM inside `section`.  Only the visible lab runs.
// ctx = { engine, lab, params, notify, reducedMotion, embed, setQuery }

import { Engine } from "./engine.js";
import "./embed.js";

const LABS = ["swarm", "vicsek", "boids"];
const params = new URLSearchParams(location.search);
const embed = params.get("embed") === "1";
const reducedMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

if (embed) document.documentElement.classList.add("embed");

let requested = params.get("lab") || "swarm";
if (!LABS.includes(requested)) {
  notify(`There is no lab called “${requested}”; showing the Swarm Lab. Choose one of: ${LABS.join(", ")}.`, "warn");
  requested = "swarm";
}

const mounted = new Map(); // lab -> controller (or a Promise of one)
let active = null;
let engine = null;

/** Show a small, dismissible notice under the header. */
export function notify(message, kind = "info") {
  const box = document.getElementById("notices");
  if (!box) return;
  const div = document.createElement("div");
  div.className = `notice notice-${kind}`;
  const text = document.createElement("span");
  text.textContent = message;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "notice-close";
  close.setAttribute("aria-label", "Dismiss this notice");
  close.textContent = "×";
  close.addEventListener("click", () => div.remove());
  div.append(text, close);
  box.append(div);
}

/** Replace query parameters in the address bar without reloading. */
function setQuery(updates, { replace = true } = {}) {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(updates)) {
    if (v === null || v === undefined) q.delete(k); else q.set(k, String(v));
  }
  const url = `${location.pathname}?${q.toString()}${location.hash}`;
  if (replace) history.replaceState(null, "", url); else history.pushState(null, "", url);
}

function selectTab(lab) {
  for (const tab of document.querySelectorAll(".lab-tabs [role=tab]")) {
    const on = tab.dataset.lab === lab;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
  }
  for (const section of document.querySelectorAll("section.lab")) {
    section.hidden = section.dataset.lab !== lab;
  }
  document.documentElement.dataset.lab = lab;
}

async function loadLab(lab) {
  if (mounted.has(lab)) return mounted.get(lab);
  const section = document.getElementById(`lab-${lab}`);
  const ctx = { engine, lab, params, notify, reducedMotion, embed, setQuery };
  const promise = (async () => {
    let mod;
    try {
      mod = await import(`./labs/${lab}.js`);
    } catch (err) {
      console.warn(`[swarmlab] lab module ${lab} unavailable, using the placeholder`, err);
      mod = await import("./labs/placeholder.js");
    }
    try {
      return await mod.mount(section, ctx);
    } catch (err) {
      showLabError(section, lab, err);
      return null;
    }
  })();
  mounted.set(lab, promise);
  const controller = await promise;
  mounted.set(lab, controller);
  return controller;
}

/** A lab that fails to build shows what failed in its own section; the other labs still work. */
function showLabError(section, lab, err) {
  console.error(`[swarmlab] the ${lab} lab failed to start`, err);
  document.documentElement.classList.add("lab-failed");
  const box = document.createElement("div");
  box.className = "notice notice-error lab-error";
  box.setAttribute("role", "alert");
  const title = document.createElement("strong");
  title.textContent = "This lab could not start. ";
  const text = document.createElement("span");
  text.textContent = "Reload the page; if it happens again, try another lab tab or another browser, and tell your teacher. Detail: " +
    String((err && err.message) || err);
  box.append(title, text);
  section.replaceChildren(box);
}

async function show(lab, { push = false } = {}) {
  if (active === lab) return;
  const previous = active;
  active = lab;
  selectTab(lab);
  setQuery({ lab }, { replace: !push });
  if (previous && mounted.has(previous)) {
    const c = await mounted.get(previous);
    c && c.deactivate && c.deactivate();
  }
  if (!engine) return; // mounted once the engine is ready
  const controller = await loadLab(lab);
  if (active === lab && controller && controller.activate) controller.activate();
}

function wireTabs() {
  const tabs = [...document.querySelectorAll(".lab-tabs [role=tab]")];
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", (ev) => {
      ev.preventDefault();
      show(tab.dataset.lab, { push: true });
    });
    tab.addEventListener("keydown", (ev) => {
      let j = null;
      if (ev.key === "ArrowRight") j = (i + 1) % tabs.length;
      if (ev.key === "ArrowLeft") j = (i - 1 + tabs.length) % tabs.length;
      if (ev.key === "Home") j = 0;
      if (ev.key === "End") j = tabs.length - 1;
      if (j !== null) {
        ev.preventDefault();
        tabs[j].focus();
        show(tabs[j].dataset.lab, { push: true });
      }
    });
  });
  window.addEventListener("popstate", () => {
    const lab = new URLSearchParams(location.search).get("lab");
    if (LABS.includes(lab)) show(lab);
  });
}

wireTabs();
selectTab(requested);
active = requested;
// Fetch and parse the requested lab's module while Python boots (measured: ~0.3 s of boot).
import(`./labs/${requested}.js`).catch(() => null);

window.SwarmBoot.whenReady().then(async () => {
  engine = new Engine(window.swarmlabBridge);
  window.swarmlab = { engine, notify, labs: mounted, get active() { return active; } };
  const controller = await loadLab(active);
  if (controller && controller.activate) controller.activate();
  document.documentElement.classList.add("lab-ready");
  requestAnimationFrame(() => performance.mark("swarmlab:first-frame"));
  window.dispatchEvent(new CustomEvent("swarmlab:lab-ready", { detail: { lab: active } }));
}).catch((err) => {
  if (err && err.message !== "boot failed") {
    window.SwarmBoot.fail("the lab could not be shown", String(err && err.stack || err));
  }
});
