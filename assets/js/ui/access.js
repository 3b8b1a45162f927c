// Interactive description (PhET's term): what a screen-reader user hears about the labs.
//
// Installed once by app.js.  Per lab it adds, next to the stage, an "access bar": a
// Describe button, the keyboard-help button and the visible key hints (ui/keys.js), and
// it keeps three things true:
//   - the stage canvas's accessible name follows the state ("… Now: 150 animals, mostly in
//     one group heading north-east; …");
//   - every chart canvas has a text alternative (current values and the trend over the
//     last 10 s), linked with aria-describedby, and a "Values as a table" disclosure with
//     its samples (ui/charttable.js);
//   - one polite live region (#access-live) speaks: the answer to Describe (button or D),
//     a response to each action (threat sent, trial started, preset applied, restart, the
//     five-minute pause), and while a lab plays, a fresh summary when something meaningful
//     changed, at most once every SUMMARY_EVERY_MS.
//
// Three display choices sit in the same bar: "Sound" (ui/sound.js, off by default: agreement
// as pitch, a click when a threat is sent), "Projector colours" (a light, high-contrast
// stage for a projected classroom screen; also ?theme=projector in the address) and "Larger
// shapes" (ui/look.js: the animals drawn bigger; also ?shapes=large).
//
// The words are the engine's (op_describe, app/swarmlab/describe.py), computed from the
// same numbers as the readouts; this module only decides when to ask and where to put them.
// The labs' own files need no change: the table LAB_ACCESS (ui/keys.js) names the elements
// by their classes, and a controller's settle() says when an action's effect is on screen.

import { LAB_ACCESS, installKeys, keyHints, rememberedSwitch, showLetterKeys, typing } from "./keys.js";
import { Sonifier } from "./sound.js";
import { reflow } from "./reflow.js";
import { ChartTable } from "./charttable.js";
import { largeShapes, projectorColours, setLargeShapes, setProjectorColours } from "./look.js";
import { sentence } from "./dom.js";

export const SUMMARY_EVERY_MS = 10000; // at most one automatic summary per 10 s
export const SUMMARY_MAX_GAP_MS = 60000; // summaries with no action between them back off to this
export const POLL_MS = 2500;           // how often a playing lab's description is refreshed
// The three timings as data.  A page (a test, a kiosk) may set window.SWARMLAB_ACCESS_TIMING =
// {summaryEvery, summaryMaxGap, poll} in ms before the app starts; only positive numbers are
// taken, as boot.js does with SWARMLAB_BOOT_TIMING.  The browser tests run them five times
// faster, so that a back-off from 10 s to 20 s is seen in seconds.
const TIMING = { summaryEvery: SUMMARY_EVERY_MS, summaryMaxGap: SUMMARY_MAX_GAP_MS, poll: POLL_MS };
const givenTiming = globalThis.SWARMLAB_ACCESS_TIMING;
if (givenTiming && typeof givenTiming === "object") {
  for (const k of Object.keys(TIMING)) if (Number(givenTiming[k]) > 0) TIMING[k] = Number(givenTiming[k]);
}
/** Whether description `d` says something new against `seen` (an earlier description): its
 *  coarse key changed, or its heading turned by the engine's `news_turn_deg` (one compass
 *  word's width, describe.NEWS_TURN_DEG) or more.  The heading is not in the key, so one that
 *  wavers across the line between two compass words ("west", "north-west") is not repeated
 *  every 10 s with the same numbers. */
export function isNews(d, seen) {
  if (!seen || d.key !== seen.key) return true;
  if (d.heading == null || seen.heading == null || !(d.news_turn_deg > 0)) return false;
  const turn = Math.abs((((d.heading - seen.heading) % 360) + 540) % 360 - 180);
  return turn >= d.news_turn_deg;
}

let live = null;

/** The page's one polite live region for descriptions (created on first use). */
export function liveRegion() {
  if (!live) {
    live = document.getElementById("access-live");
    if (!live) {
      live = document.createElement("div");
      live.id = "access-live";
      live.className = "sr-only";
      live.setAttribute("role", "status");
      live.setAttribute("aria-live", "polite");
      live.setAttribute("aria-atomic", "true");
      document.body.append(live);
    }
  }
  return live;
}

/** How long an action's answer waits for another action, which would answer for both. */
export const QUIET_MS = 350;
/** A paused lab that keeps changing (Lab 2's eight-seed check talks to the engine every
 *  frame) is still described this long after its first change at the latest. */
export const CHANGES_MAX_WAIT_MS = 1000;

/** `fn(key)` once the changes of `key` pause for `quietMs`, or, when they go on, `maxMs`
 *  (plus at most `quietMs`) after the first change not yet answered: a debounce that
 *  continuous changes cannot put off for ever.  Returns `changed(key)`; `timers` are
 *  {setTimeout, clearTimeout, now} (a test's fake clock). */
export function settledCalls(fn, quietMs, maxMs, timers = globalThis) {
  const due = new Map(); // key -> {timer, since}
  const now = () => (timers.now ? timers.now() : performance.now());
  return (key) => {
    const t = now();
    const d = due.get(key);
    if (d && t - d.since >= maxMs) return; // waited long enough: its timer fires as set
    if (d) timers.clearTimeout(d.timer);
    due.set(key, {
      since: d ? d.since : t,
      timer: timers.setTimeout(() => { due.delete(key); fn(key); }, quietMs),
    });
  };
}

/** The words of actions answered together: a run of the same words once, after its count
 *  ("3 times: Restarted."; the count first, as words may end with a number: "Already at the
 *  most animals, 2000."), different words in order; empty words left out. */
export function mergeWords(list) {
  const out = [];
  for (const w of list) {
    if (!w) continue;
    const last = out[out.length - 1];
    if (last && last.text === w) last.n += 1; else out.push({ text: w, n: 1 });
  }
  return out.map(({ text, n }) => (n === 1 ? text : `${n} times: ${text}`)).join(" ");
}

/** Speak `text` politely.  The same text twice in a row is re-spoken (cleared first). */
export function say(text, kind = "response") {
  const region = liveRegion();
  const stamp = performance.now();
  region.dataset.kind = kind;
  if (region.textContent === text) {
    region.textContent = "";
    setTimeout(() => { region.textContent = text; }, 60);
  } else {
    region.textContent = text;
  }
  // a log for the browser tests (and for anyone curious in the console)
  (window.__accessLog ||= []).push({ t: stamp, kind, text });
}

/** The gap before the next automatic summary, after `spoken` of them with no action of the
 *  student's between: 10 s, then 20, 40 and at most 60 s, so a flock that keeps changing its
 *  groups is not narrated every 10 s for as long as it plays.  An action or Describe starts
 *  again at 10 s. */
export function summaryGap(spoken) {
  return Math.min(TIMING.summaryMaxGap, TIMING.summaryEvery * 2 ** Math.max(0, spoken));
}

// The automatic summaries can be switched off in the key list (a student who only wants the
// answers to Describe and to actions), remembered as the single-letter keys are.
const summaries = rememberedSwitch("swarmlab.summaries");

/**
 * @param {object} opts
 *   engine       the engine (call/tryCall)
 *   activeLab()  the lab on screen
 *   controller(lab)  its controller (or null while it mounts)
 */
export function installAccess({ engine, activeLab, controller }) {
  const perLab = new Map();
  liveRegion();
  const sound = new Sonifier();
  const toggles = { sound: [], projector: [], shapes: [] }; // every lab's toggle buttons, kept in step
  // projector colours from the link (theme=projector, or theme=standard for the usual ones), else
  // from the system's "more contrast" setting; the button switches them either way, and a
  // choice against that setting is kept in the address as theme=standard
  const theme = new URLSearchParams(location.search).get("theme");
  const moreContrast = typeof matchMedia === "function" && matchMedia("(prefers-contrast: more)").matches;
  setProjector(theme === "projector" || (theme !== "standard" && moreContrast), false);
  setShapes(new URLSearchParams(location.search).get("shapes") === "large", false);

  /** The address keeps a display choice (a reload and a copied link keep it): `key` set to
   *  `value`, or removed for null. */
  function remember(key, value) {
    const q = new URLSearchParams(location.search);
    if (value === null) q.delete(key); else q.set(key, value);
    history.replaceState(history.state, "", `${location.pathname}?${q.toString()}${location.hash}`);
  }

  function setProjector(on, keep = true) {
    setProjectorColours(on);
    for (const b of toggles.projector) b.setAttribute("aria-pressed", String(on));
    if (keep) remember("theme", on ? "projector" : moreContrast ? "standard" : null);  // (the labs redraw: onLookChange)
  }

  function setShapes(on, keep = true) {
    setLargeShapes(on);
    for (const b of toggles.shapes) b.setAttribute("aria-pressed", String(on));
    if (keep) remember("shapes", on ? "large" : null);  // (the labs redraw: ui/look.js onLookChange)
  }

  function setSound(on) {
    const now = sound.setOn(on);
    for (const b of toggles.sound) b.setAttribute("aria-pressed", String(now));
    if (now) poll(true);
  }

  const paused = new WeakSet(); // lab sections whose pauses are watched (see decorate)

  function stateOf(lab) {
    if (!perLab.has(lab)) {
      perLab.set(lab, { lastSeen: null, labelSeen: null, labelAt: -Infinity, lastSummaryAt: performance.now(), spoken: 0,
        baseLabel: null, busy: false, playingSince: null });
    }
    return perLab.get(lab);
  }

  async function describe(lab, force = false) {
    // (an engine stopped or failed: no description; the lab's own stepper says so, once)
    const res = await engine.tryCall(lab, "describe", {}, { reads: true }).catch(() => null);
    if (!res || !res.ok) return null;
    apply(lab, res.value, force);
    return res.value;
  }

  /** Put a description where it belongs: stage name, chart texts, the visible line.
   *  While the stage has focus its name changes only with the coarse key, and at most once
   *  per SUMMARY_EVERY_MS (or on Describe): some screen readers speak a focused element's new
   *  name, and the numbers, and in Labs 2 and 3 the count of groups, change often. */
  function apply(lab, d, force = false) {
    const cfg = LAB_ACCESS[lab];
    const section = document.getElementById(`lab-${lab}`);
    if (!cfg || !section) return;
    const st = stateOf(lab);
    const stage = section.querySelector(cfg.stage);
    if (stage) {
      if (st.baseLabel === null) {
        const base = (stage.dataset.accessLabel || stage.getAttribute("aria-label") || "").trim();
        st.baseLabel = base && sentence(base);
      }
      const label = `${st.baseLabel} Now: ${d.text}`;
      const now = performance.now();
      const quiet = document.activeElement === stage && !force &&
        (!isNews(d, st.labelSeen) || now - st.labelAt < TIMING.summaryEvery);
      if (!quiet && stage.getAttribute("aria-label") !== label) {
        stage.setAttribute("aria-label", label);
        st.labelSeen = d;
        if (document.activeElement === stage) st.labelAt = now;
      }
    }
    for (const [id, text] of Object.entries(d.charts || {})) {
      const node = section.querySelector(`#access-chart-${lab}-${id}`);
      if (node && node.textContent !== text) node.textContent = text;
    }
    // the words shown under the stage (after Describe or an action) follow the run, so they
    // never contradict the picture; only the spoken summaries keep their 10 s spacing
    const shown = section.querySelector(".access-said");
    if (shown && shown.textContent && shown.textContent !== d.text) shown.textContent = d.text;
  }

  async function describeNow(lab, prefix = "", current = () => true) {
    const d = await describe(lab, true);
    if (!d || !current()) return;
    const st = stateOf(lab);
    st.lastSeen = d;
    st.spoken = 0; // the student asked: the automatic summaries start again from 10 s
    const shown = document.querySelector(`#lab-${lab} .access-said`);
    if (shown) shown.textContent = d.text;
    say(prefix ? `${prefix} ${d.text}` : d.text, prefix ? "response" : "describe");
  }

  /** After an action: wait until its effect is on screen, then answer with the new state.
   *  Quick repeated actions (Restart pressed again and again, five presses of "Add 10") get
   *  one answer, the last one's, which describes where they ended: each action supersedes the
   *  answer of the one before that has not been spoken yet, and an answer waits QUIET_MS for
   *  another action first. */
  async function respond(lab, prefix) {
    // the words of the actions not answered yet, then this one's (words may wait for the
    // engine's answer: ui/keys.js popWords; a failure is the lab's to report)
    const before = answering.get(lab);
    const mine = { words: [...(before ? before.words : []), Promise.resolve(prefix).catch(() => "")] };
    answering.set(lab, mine);
    const current = () => answering.get(lab) === mine;
    const c = controller(lab);
    const settle = c && (c.settle || (c.test && c.test.settle));
    try {
      if (settle) await settle.call(c);
    } catch (_) { /* the lab reports its own errors */ }
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    if (!current()) return;
    const words = mergeWords(await Promise.all(mine.words));
    await describeNow(lab, words, current);
    if (!current()) return;
    answering.delete(lab);
    stateOf(lab).lastSummaryAt = performance.now(); // an answer counts as the latest summary
  }
  const answering = new Map(); // lab -> {words} of the actions waiting for their answer

  // Space plays or pauses from a stage or the page (the global key, or a stage's own): the
  // Play button's new name is not heard there, so say which, as R says "Restarted."
  let spaceAt = -Infinity;
  document.addEventListener("keydown", (ev) => {
    if (ev.key === " " && !(ev.target && ev.target.closest && ev.target.closest("button"))) spaceAt = performance.now();
  }, true);
  function played(lab) {
    if (performance.now() - spaceAt < 500) say(playing(lab) ? "Playing." : "Paused.");
    spaceAt = -Infinity;
  }

  function playing(lab) {
    const section = document.getElementById(`lab-${lab}`);
    const p = section && section.dataset.playing;
    return p === "1";
  }

  // ---- the automatic summaries while a lab plays ----
  async function poll(soundOnly = false) {
    const lab = activeLab();
    if (!lab || document.hidden || !LAB_ACCESS[lab]) { sound.update(false, NaN); return; }
    const st = stateOf(lab);
    if (st.busy) return;
    const on = playing(lab);
    if (!on) { st.playingSince = null; st.spoken = 0; sound.update(false, NaN); return; }
    if (soundOnly) return;
    if (st.playingSince === null) {
      st.playingSince = performance.now();
      // wait a full interval after Play before the first automatic summary
      st.lastSummaryAt = Math.max(st.lastSummaryAt, st.playingSince);
    }
    st.busy = true;
    try {
      const d = await describe(lab);
      if (!d) return;
      sound.update(playing(lab), d.values ? d.values.P : NaN);
      if (st.lastSeen === null) st.lastSeen = d;
      const now = performance.now();
      // never over a student typing (a rules editor, a number box); not when switched off
      const busyTyping = typing(document.activeElement);
      if (summaries.on && !busyTyping && isNews(d, st.lastSeen) && now - st.lastSummaryAt >= summaryGap(st.spoken)) {
        st.lastSeen = d;
        st.lastSummaryAt = now;
        st.spoken += 1;
        say(d.text, "summary");
      }
    } finally {
      st.busy = false;
    }
  }
  setInterval(poll, TIMING.poll);

  // ---- a paused lab that changes (Step, Restart, a setting, a selection) ----
  // The poll refreshes the stage's name, the chart texts and the words under the stage only while
  // a lab plays, so after a change made while paused they kept the numbers of before it.  Any
  // request that changed a paused lab's session is followed, once the requests of that moment are
  // done, by a description (which only reads, so it triggers nothing itself); a lab whose
  // requests do not stop (Lab 2 during its check) within CHANGES_MAX_WAIT_MS.
  const changedWhilePaused = settledCalls((lab) => { if (!playing(lab)) describe(lab); },
    QUIET_MS, CHANGES_MAX_WAIT_MS);
  engine.listeners.add((lab, reply) => {
    if (reply.reads || !LAB_ACCESS[lab] || playing(lab)) return;
    changedWhilePaused(lab);
  });

  // ---- per lab, once it is mounted: the access bar, chart texts, action responses ----
  function decorate(lab) {
    const cfg = LAB_ACCESS[lab];
    const section = document.getElementById(`lab-${lab}`);
    if (!cfg || !section || section.dataset.access === "1") return;
    const stage = section.querySelector(cfg.stage);
    const after = section.querySelector(cfg.barAfter);
    if (!stage || !after) return; // the lab failed to build: nothing to describe
    section.dataset.access = "1";
    // a pause: the stage's name and the charts' texts say the paused state at once (the summaries
    // refresh them only while playing, so they kept the numbers of up to 2.5 s before)
    if (!paused.has(section)) {
      paused.add(section);
      new MutationObserver(() => { played(lab); if (!playing(lab)) describe(lab); })
        .observe(section, { attributes: true, attributeFilter: ["data-playing"] });
    }

    // the stage: keys of its own make it an application (browse mode would swallow them)
    const hintsId = `access-keys-${lab}`;
    stage.setAttribute("role", "application");
    if (cfg.roledescription) stage.setAttribute("aria-roledescription", cfg.roledescription);
    const described = (stage.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
    if (!described.includes(hintsId)) stage.setAttribute("aria-describedby", [...described, hintsId].join(" "));
    // the lab's words for its stage here (data-access-label), written from the session's constants
    if (stage.dataset.accessLabel) stage.setAttribute("aria-label", stage.dataset.accessLabel);

    const bar = document.createElement("div");
    bar.className = "access-bar";
    const describeBtn = document.createElement("button");
    describeBtn.type = "button";
    describeBtn.className = "btn access-describe";
    describeBtn.textContent = "Describe";
    describeBtn.dataset.letterKey = "D";
    describeBtn.addEventListener("click", () => describeNow(lab));
    const helpBtn = document.createElement("button");
    helpBtn.type = "button";
    helpBtn.className = "btn access-help-open";
    helpBtn.textContent = "Keys (?)";
    helpBtn.dataset.letterKey = "Shift+?";
    helpBtn.setAttribute("aria-haspopup", "dialog");
    helpBtn.addEventListener("click", () => keys.openHelp(lab, helpBtn));
    const soundBtn = document.createElement("button");
    soundBtn.type = "button";
    soundBtn.className = "btn access-sound";
    soundBtn.textContent = "Sound";
    soundBtn.setAttribute("aria-pressed", String(sound.on));
    // (the click only where the lab has one: cfg.clickOn, Swarm Lab's threat)
    // (in words every lab shares: its readout names P "whole-group agreement" in Lab 1, "shared
    // heading" in Labs 2 and 3)
    soundBtn.title = "A soft tone whose pitch rises with P, as more of them head the same way" +
      (cfg.clickOn ? ", and a click when a threat is sent" : "");
    soundBtn.addEventListener("click", () => setSound(!sound.on));
    toggles.sound.push(soundBtn);
    const projBtn = document.createElement("button");
    projBtn.type = "button";
    projBtn.className = "btn access-projector";
    projBtn.textContent = "Projector colours";
    projBtn.setAttribute("aria-pressed", String(projectorColours()));
    projBtn.title = "A light, high-contrast stage for a projector";
    projBtn.addEventListener("click", () => setProjector(!projectorColours()));
    toggles.projector.push(projBtn);
    const shapesBtn = document.createElement("button");
    shapesBtn.type = "button";
    shapesBtn.className = "btn access-shapes";
    shapesBtn.textContent = "Larger shapes";
    shapesBtn.setAttribute("aria-pressed", String(largeShapes()));
    shapesBtn.title = "Draw the animals bigger, for a projector or for easier seeing (the drawing only: " +
      "the model and its measurements do not change)";
    shapesBtn.addEventListener("click", () => setShapes(!largeShapes()));
    toggles.shapes.push(shapesBtn);
    bar.append(describeBtn, helpBtn, soundBtn, projBtn, shapesBtn);
    for (const extra of cfg.extraButtons || []) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = `btn ${extra.className}`;
      b.textContent = extra.text;
      b.addEventListener("click", () => extra.run(controller(lab), section));
      bar.append(b);
    }
    const hints = document.createElement("p");
    hints.className = "access-hints";
    hints.id = hintsId;
    hints.dataset.lab = lab;
    hints.innerHTML = keyHints(lab);
    const said = document.createElement("p");
    said.className = "access-said";
    said.setAttribute("aria-live", "off");
    const wrap = document.createElement("div");
    wrap.className = "access-wrap";
    wrap.append(bar, hints, said);
    after.after(wrap);
    showLetterKeys(bar);

    // headings: the lab's panels (h3) sit under an h2 for the simulation part, so the
    // outline reads h1 (the lab), h2, h3 without a skipped level
    if (cfg.heading) {
      const layout = section.querySelector(cfg.heading[0]);
      if (layout && !layout.querySelector(":scope > h2.access-heading")) {
        const h = document.createElement("h2");
        h.className = "sr-only access-heading";
        h.textContent = cfg.heading[1];
        layout.prepend(h);
      }
    }

    // formulas wider than a phone scroll sideways: such a box becomes a Tab stop, so a
    // keyboard can scroll it too (re-checked when the page's width changes)
    const formulas = [...section.querySelectorAll(".formula")];
    const focusWide = () => {
      for (const f of formulas) {
        const wide = f.scrollWidth > f.clientWidth + 1;
        if (wide && f.getAttribute("tabindex") !== "0") f.setAttribute("tabindex", "0");
        if (!wide && f.hasAttribute("tabindex")) f.removeAttribute("tabindex");
      }
    };
    if (formulas.length && typeof ResizeObserver !== "undefined") {
      const ro = new ResizeObserver(focusWide);
      for (const f of formulas) ro.observe(f);
    }
    focusWide();

    // charts: a text alternative under each (read with the chart, spoken on Describe)
    for (const [id, selectors] of Object.entries(cfg.charts || {})) {
      const canvases = selectors.map((s) => section.querySelector(s)).filter(Boolean);
      if (!canvases.length) continue;
      const p = document.createElement("p");
      p.className = "sr-only access-chart-text";
      p.id = `access-chart-${lab}-${id}`;
      canvases[0].after(p);
      for (const c of canvases) {
        const ids = (c.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
        if (!ids.includes(p.id)) c.setAttribute("aria-describedby", [...ids, p.id].join(" "));
      }
      // and a table view of its samples, from the session's history (ui/charttable.js); the
      // columns are the chart's series as the session publishes them (display.charts, this id)
      const layout = engine.layout(lab);
      const keys = layout.then((l) =>
        ((l.display.charts || []).find((c) => c.id === id)?.series || []).map((s) => s.key));
      // a column of a series the lab also reads out is written as its readout (decimals, and a
      // scale such as the very-close share's 100 with "%", as the chart's axis writes it)
      const shown = layout.then((l) => Object.fromEntries((l.display.readouts || []).map((r) => [r.key, r])));
      const table = new ChartTable({
        id: `${lab}-${id}`,
        keys,
        shown,
        fetch: async () => { // (a stopped engine: no table update; the lab says why)
          const r = await engine.tryCall(lab, "history", {}, { reads: true }).catch(() => null);
          return r && r.ok ? r.value : null;
        },
        active: () => activeLab() === lab,
      });
      p.after(table.element);
    }

    // actions answer with what they did and the new state
    section.addEventListener("click", (ev) => {
      for (const [selector, words] of cfg.actions || []) {
        const btn = ev.target.closest(selector);
        if (btn && section.contains(btn)) {
          const prefix = typeof words === "function" ? words(btn) : words;
          if (selector === cfg.clickOn) sound.click();
          respond(lab, prefix);
          return;
        }
      }
    });

    // automatic events announce themselves and leave focus where it was
    for (const watch of cfg.watch || []) {
      const node = section.querySelector(watch.selector);
      if (!node) continue;
      let was = !node.hidden;
      new MutationObserver(() => {
        const shown = !node.hidden;
        if (shown && !was) say(watch.text(node), "event");
        was = shown;
      }).observe(node, { attributes: true, attributeFilter: ["hidden"] });
    }
    // one column on a narrow screen: parts shown in another order move in the DOM too, so
    // Tab and a screen reader follow what is seen (ui/reflow.js)
    reflow(section, cfg.narrow);
    describe(lab); // the stage's name and the chart texts from the start
  }

  const keys = installKeys({
    activeLab,
    controller,
    describe: (lab) => describeNow(lab),
    summaries, // (its switch in the key list)
  });

  return { decorate, describeNow, say, sound, setSound, setProjector, setShapes };
}
