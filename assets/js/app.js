// The app shell: tabs, URL parameters, notices, starting the engine and mounting the labs.
//
// A lab is an ES module assets/js/labs/<lab>.js exporting
//     async mount(section, ctx) -> { activate(), deactivate(), ...anything else }
// It builds its own DOM inside `section`.  Only the visible lab runs.
// ctx = { engine, lab, name, params, notify, notifyMany, reducedMotion, embed }  (name: the
// lab's short name, its tab's text, for the lab's own messages)
//
// The lab list lives in one place: the tabs of index.html (a unit test checks that the
// engine's sessions are the same list).  Every lab's code is fetched while Python boots,
// so a connection that drops after boot cannot leave a lab blank.

import "./ui/address.js"; // (first: the page reads one spelling of its address)
import { startEngine } from "./engine.js";
import { clip, notify, notifyMany } from "./ui/notices.js";
import { ensureStylesheet, tabListMove } from "./ui/dom.js";
import { installAccess } from "./ui/access.js";
import { PAGE_VALUES, SHELL_KEYS, givenTwice, pageParams } from "./ui/share.js";
import { EMBED } from "./embed.js";

const LABS = [...document.querySelectorAll(".lab-tabs [role=tab][data-lab]")].map((t) => t.dataset.lab);
const params = new URLSearchParams(location.search);
const embed = EMBED; // (embed.js reads embed=1 and marks the page)
const reducedMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// The page's own keys take one documented value each; anything else is said, not silently dropped.
for (const [key, allowed] of Object.entries(PAGE_VALUES)) {
  const v = params.get(key);
  if (v !== null && !allowed.includes(v)) {
    notify(`${key}=${clip(v, 40)} is not understood, so it is ignored; use ${allowed.map((a) => `${key}=${a}`).join(" or ")}.`, "warn");
  }
}

// ... and each is read once: a key given twice keeps its first value, as a lab's settings do
// (ui/share.js readQuery), and says so.
for (const key of SHELL_KEYS) {
  const all = params.getAll(key);
  if (all.length > 1) notify(`${givenTwice(key, all.length, all[0])}.`, "warn");
}

let requested = params.get("lab") || "swarm";
if (!LABS.includes(requested)) {
  notify(`There is no lab called “${requested}”; showing the Swarm Lab. Choose one of: ${LABS.join(", ")}.`, "warn");
  requested = "swarm";
}

const mounted = new Map(); // lab -> controller (or a Promise of one)
const rebuilt = new Set(); // labs unmounted after an engine restart, to mount afresh and say why
let active = null;
let engine = null;
let access = null; // ui/access.js: descriptions, shortcuts, keyboard help

const SITE_TITLE = document.title; // the Swarm Lab's own; another lab's title names it first

/** A lab's names, from its tab (index.html, the one lab list): `name` the tab's short text
 *  ("Few turns"), `title` its full title ("Few turns, one direction"; the name if it has none). */
function labNames(lab) {
  const tab = document.getElementById(`tab-${lab}`);
  const name = (tab && tab.textContent.trim()) || lab;
  return { name, title: (tab && tab.dataset.title) || name };
}

function selectTab(lab) {
  for (const tab of document.querySelectorAll(".lab-tabs [role=tab]")) {
    const on = tab.dataset.lab === lab;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
    // the window's title (a browser tab, a screen reader's "title", history) names the lab shown
    if (on) document.title = tab.dataset.title ? `${tab.dataset.title} · Swarm Lab` : SITE_TITLE;
  }
  for (const section of document.querySelectorAll("section.lab")) {
    section.hidden = section.dataset.lab !== lab;
  }
  document.documentElement.dataset.lab = lab;
}

// Each lab's module, fetched once; a failed fetch is forgotten so that "Try again" refetches.
const modules = new Map();
function labModule(lab) {
  if (!modules.has(lab)) {
    const p = import(`./labs/${lab}.js`);
    p.catch(() => modules.delete(lab));
    modules.set(lab, p);
  }
  return modules.get(lab);
}

/** Take away the notices of a lab's earlier build (before a rebuild or a retry builds it again). */
function dropNotices(lab) {
  for (const div of document.querySelectorAll(`#notices .notice[data-lab="${lab}"]`)) div.remove();
}

async function loadLab(lab) {
  if (mounted.has(lab)) return mounted.get(lab);
  dropNotices(lab);
  const section = document.getElementById(`lab-${lab}`);
  // the link's settings are for the lab it names; another lab starts from its own defaults
  // a lab's notices are its own: shown while it is (see showNotices)
  const mine = (div) => { if (div) { div.dataset.lab = lab; div.hidden = lab !== active; } return div; };
  const ctx = { engine, lab, name: labNames(lab).name,
    params: lab === requested ? params : pageParams(params),
    notify: (...a) => mine(notify(...a)), notifyMany: (...a) => mine(notifyMany(...a)), reducedMotion, embed,
    // one notice per setting: a second word on the same control replaces the first (a refused
    // value's box goes back to the value in use, so its warning stays as the reason)
    settingNotice: (message, name, kind = "warn") => mine(notify(message, kind, { id: `${lab}-setting-${name}` })),
    // a lab that starts paused for reduced motion says so where it can be seen (Lab 2's caption
    // says it in its own words, with its Step)
    saidStartsPaused: () => mine(notify(`Your system asks for reduced motion, so ${labNames(lab).name} starts paused. ` +
      "Press Play to start it.", "info")) };
  const promise = (async () => {
    let mod;
    try {
      mod = await labModule(lab);
    } catch (err) {
      // a network failure, or a broken copy of the code (a syntax error): say which
      const network = err instanceof TypeError && /fetch|load|import/i.test(String(err.message));
      showLabError(section, lab, err, { load: network });
      return null;
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
  if (controller) foldLead(section);
  if (controller && rebuilt.delete(lab)) {
    mine(notify("The engine was restarted to stop a rule that gave no answer in time in another lab, so this lab started again from the beginning.", "info"));
  }
  if (controller && access) access.decorate(lab);
  if (controller) mounted.set(lab, controller); else mounted.delete(lab); // a failed lab can be retried
  return controller;
}

/** On a phone, in a window 500 px tall or less (a phone turned sideways, a page zoomed in) and
 *  when embedded (`embed=1`) the lab's lead shows its first lines, with "Read more", so that the
 *  stage and Play are on the first screen (app.css); the whole text is always in the page for
 *  readers. */
function foldLead(section) {
  const lead = section.querySelector(".lab-lead");
  if (!lead || lead.nextElementSibling?.classList.contains("lab-lead-more")) return;
  const more = document.createElement("button");
  more.type = "button";
  more.className = "btn-link lab-lead-more";
  more.textContent = "Read more";
  more.setAttribute("aria-expanded", "false");
  more.addEventListener("click", () => {
    const open = lead.classList.toggle("open");
    more.setAttribute("aria-expanded", String(open));
    more.textContent = open ? "Show less" : "Read more";
  });
  lead.after(more);
}

/** A lab that fails to load or build shows what failed in its own section, with a retry;
 *  the other labs keep working. */
function showLabError(section, lab, err, { load = false } = {}) {
  console.error(`[swarmlab] the ${lab} lab failed to ${load ? "load" : "start"}`, err);
  document.documentElement.classList.add("lab-failed");
  const box = document.createElement("div");
  box.className = "notice notice-error lab-error";
  box.setAttribute("role", "alert");
  const title = document.createElement("strong");
  title.textContent = load ? "This lab's code could not be downloaded. " : "This lab could not start. ";
  const text = document.createElement("span");
  // (said only when another lab is running: a file every lab imports fails them all)
  const others = [...mounted].some(([l, c]) => l !== lab && c && typeof c.then !== "function")
    ? " Your other labs keep running." : "";
  text.textContent = (load
    ? `The connection may have dropped.${others} Check the connection and try again. `
    : "Try again; if it happens again, reload the page or try another browser, and tell your teacher. ") +
    "Detail: " + String((err && err.message) || err);
  const retry = document.createElement("button");
  retry.type = "button";
  retry.className = "btn lab-retry";
  retry.textContent = "Try again";
  retry.addEventListener("click", async () => {
    box.remove();
    const c = await loadLab(lab);
    if (c && active === lab && c.activate) c.activate();
  });
  box.append(title, text, " ", retry);
  section.replaceChildren(box);
  // A module that failed to load fails alike whether the connection dropped or a file is not on
  // the site; the server's answers tell which (a missing file: retrying cannot help).
  if (load) {
    missingModule(new URL(`./labs/${lab}.js`, import.meta.url)).then((miss) => {
      if (!miss) return;
      const name = miss.url.pathname.split("/assets/js/").pop();
      title.textContent = "This lab's code is missing on this site. ";
      text.textContent = `The site answered ${miss.status} for ${name}.${others} ` +
        "If you host Swarm Lab, copy the whole built folder again (`make dist`); otherwise tell your teacher. " +
        "Detail: " + String((err && err.message) || err);
    }).catch(() => { /* no answer: the connection, as said */ });
  }
}

const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)"(\.{1,2}\/[^"]+)"/g;

/** The first module of `url`'s static import graph (relative imports: the app's own modules)
 *  that the site answers 404 or 410 for, as {url, status}; null if every one is there.  A
 *  browser names only the lab's module when any module below it fails, so each is asked. */
async function missingModule(url, seen = new Set()) {
  seen.add(url.href);
  const r = await fetch(url, { cache: "no-store" });
  if (r.status === 404 || r.status === 410) return { url, status: r.status };
  if (!r.ok) return null;
  for (const [, spec] of (await r.text()).matchAll(RELATIVE_IMPORT)) {
    const next = new URL(spec, url);
    if (seen.has(next.href)) continue;
    const miss = await missingModule(next, seen);
    if (miss) return miss;
  }
  return null;
}

/** Notices a lab wrote (its link's settings, say) show with that lab only: after a switch the
 *  address names another lab, and "settings in this link: ignored …" would be about nothing
 *  on screen.  They come back with their lab; the page's own notices always show. */
function showNotices(lab) {
  for (const div of document.querySelectorAll("#notices .notice[data-lab]")) div.hidden = div.dataset.lab !== lab;
}

async function show(lab, { push = false, address = true } = {}) {
  if (active === lab) return;
  const previous = active;
  active = lab;
  selectTab(lab);
  showNotices(lab);
  // the address names the lab shown and keeps only the page's own keys: a reload opens it as
  // it started, not with the settings or rules code of the lab the link was for.  Back and
  // Forward (address: false) keep the entry they return to as it is: the link that opened a
  // lab still names its settings, and a reload opens that lab with them again.
  if (address) {
    const q = pageParams(new URLSearchParams(location.search));
    q.set("lab", lab);
    const url = `${location.pathname}?${q.toString()}`;
    if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
  }
  if (previous && mounted.has(previous)) {
    const c = await mounted.get(previous);
    if (c && c.deactivate) c.deactivate();
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
      const j = tabListMove(ev.key, i, tabs.length);
      if (j !== null) {
        // the arrows move along the tabs; Enter (the link's own) or Space opens one, so passing
        // a lab does not build it (Few turns starts its eight-seed check)
        ev.preventDefault();
        tabs[j].focus();
      } else if (ev.key === " ") {
        ev.preventDefault();
        show(tab.dataset.lab, { push: true });
      }
    });
  });
  window.addEventListener("popstate", () => {
    const lab = new URLSearchParams(location.search).get("lab");
    if (LABS.includes(lab)) show(lab, { address: false });
  });
}

wireTabs();
ensureStylesheet("assets/css/access.css");
selectTab(requested);
active = requested;
// The engine first (its worker's downloads are the long pole), then every lab's code and
// stylesheet while Python boots (the requested one first), so the app keeps working if the
// connection drops later.
const starting = startEngine();
for (const lab of [requested, ...LABS.filter((l) => l !== requested)]) {
  labModule(lab).catch(() => null);
  ensureStylesheet(`assets/css/${lab}.css`);
}
ensureStylesheet("assets/css/rules.css"); // the rules panel of Labs 2 and 3

starting.then(async (started) => {
  engine = started;
  access = installAccess({
    engine,
    activeLab: () => active,
    controller: (lab) => {
      const c = mounted.get(lab);
      return c && typeof c.then !== "function" ? c : null;
    },
  });
  // No new worker could be started after the watchdog stopped one (offline, say): said once, at
  // the top; every lab's next request fails with the same words and stops its run.
  engine.restartFailListeners.add((msg) => notify(`The simulation has stopped: ${msg}.`, "error"));
  // The watchdog replaced the engine's worker (a student's rule ran away in lab `kept`, which
  // restores its own run, even if another lab was opened meanwhile): every other lab's session
  // went with the old worker, so it is built afresh when next shown instead of showing settings
  // the new engine does not have.
  engine.restartListeners.add((kept) => {
    for (const [lab, c] of [...mounted]) {
      if (lab === (kept ?? active) || !c || typeof c.then === "function") continue;
      if (c.deactivate) c.deactivate();
      if (c.stepper) c.stepper.dispose(); // (their engine listeners: the new build adds its own)
      if (c.rules && c.rules.dispose) c.rules.dispose();
      if (c.dispose) c.dispose(); // (the page's listeners: look changes, the window's size)
      mounted.delete(lab);
      const section = document.getElementById(`lab-${lab}`);
      section.replaceChildren();
      delete section.dataset.access; // access.decorate adds its bar to the new build
      rebuilt.add(lab);
    }
    // a student who opened another lab while the new worker started sees it built again now
    if (rebuilt.has(active)) {
      const lab = active;
      loadLab(lab).then((c) => { if (active === lab && c && c.activate) c.activate(); });
    }
  });
  window.SwarmBoot.ready();
  window.swarmlab = { engine, notify, access, labs: mounted, get active() { return active; } };
  document.documentElement.dataset.engine = engine.mode;
  const controller = await loadLab(active);
  if (controller && controller.activate) controller.activate();
  document.documentElement.classList.add("lab-ready");
  if (controller && access) {
    // a screen reader hears that the wait is over, and where the words about the stage are
    const name = labNames(active).title;
    const state = document.getElementById(`lab-${active}`)?.dataset.playing === "1" ? "playing" : "paused";
    access.say(`${name} is ready and ${state}. Describe says what the stage shows; Keys lists the keyboard keys.`, "ready");
  }

  requestAnimationFrame(() => performance.mark("swarmlab:first-frame"));
  window.dispatchEvent(new CustomEvent("swarmlab:lab-ready", { detail: { lab: active } }));
}).catch((err) => {
  const text = String((err && (err.stack || err.message)) || err);
  if (err && err.what) {
    window.SwarmBoot.fail(err.what, err.message, err.hint);
  } else if (/No module named '?swarmlab\b/.test(text)) {
    // Python started but found no engine: pyscript.toml (which lists the engine's files) or the
    // files themselves are not on the site
    window.SwarmBoot.fail("this copy of Swarm Lab is incomplete: the engine's files are missing", text,
      "Python started but found no Swarm Lab engine: pyscript.toml and the app folder must sit next to index.html. " +
      "If you host Swarm Lab, copy the whole built folder again (`make dist`); otherwise tell your teacher.");
  } else if (/in JSON at position|is not valid JSON|Unexpected end of JSON/.test(text)) {
    // before Python runs, the only JSON read is the runtime's package list
    window.SwarmBoot.fail("this copy of Swarm Lab is damaged: the runtime's package list (pyodide-lock.json) cannot be read", text,
      "A file of the app arrived cut short or altered, so Python cannot start. Download the app again (reload with " +
      "Ctrl+Shift+R); if you host Swarm Lab, copy the whole built folder again (`make dist`). Your connection is not the problem.");
  } else if (/Traceback|PythonError/.test(text)) {
    window.SwarmBoot.fail("Python raised an error while starting the engine", text);
  } else if (/Failed to fetch|NetworkError|Load failed|network error|body loading was aborted|ERR_CONNECTION/i.test(text)) {
    // the engine's worker fetches its own files (the engine, PyScript's parts): a dropped
    // connection there is the reader's network, not a broken browser or copy
    window.SwarmBoot.fail("a file of the engine could not be downloaded", text,
      "Check your connection, then reload the page.");
  } else {
    window.SwarmBoot.fail("the engine could not be started", text);
  }
});
