// Lab 1 page: "Swarm Lab" (local rules, no leader).
//
// Pieces (assets/js/labs/swarm/*):
//   renderer.js  the stage canvas and its one model-to-view transform, trails (trails.js)
//   panel.js     "What can I sense?" for the selected individual
//   frame.js     reading the session's float32 frame
//   explain.js   the explanatory text and formulas
// Charts are ui/chart.js; controls are built from the session's parameter specs.
//
// Time: the page never invents model time.  Each displayed frame converts the real
// time since the previous frame into a WHOLE number of model steps (StepClock, the
// remainder is carried), so a sample's trajectory is identical at every playback
// speed and frame rate.  While the tab is hidden the loop does not tick (createLoop),
// and nothing else here steps the engine.

import { buildControls } from "../ui/controls.js";
import { createLoop, StepClock } from "../ui/loop.js";
import { readQuery, shareUrl, copyLink } from "../ui/share.js";
import { LineChart, formatClock } from "../ui/chart.js";
import { StageRenderer, GLYPH_LENGTH } from "./swarm/renderer.js";
import { SensePanel } from "./swarm/panel.js";
import { createFrameInfo, parseFrame } from "./swarm/frame.js";
import { EXPLAIN_HTML } from "./swarm/explain.js";

const LAB = "swarm";
// Used only if the session's op_state() carries no "constants" (SPEC.md Lab 1 values).
const FALLBACK = {
  dt: 1 / 60,
  threat_radius: 22,
  obstacles: { none: [], circle: [[80, 50, 11]], passage: [[80, 14, 28], [80, 86, 28]] },
};
const SPEEDS = [
  { v: 0.25, label: "¼×" }, { v: 0.5, label: "½×" }, { v: 1, label: "1×" }, { v: 2, label: "2×" }, { v: 4, label: "4×" },
];
const GROUPS = [
  { id: "rules", title: "Social rules", names: ["separation", "w_s", "alignment", "w_a", "cohesion", "w_c"] },
  { id: "perception", title: "Neighbours", names: ["mode", "R", "k"], advanced: true },
  { id: "motion", title: "Motion", names: ["v", "sigma"], advanced: true },
  { id: "world", title: "Population and world", names: ["N", "obstacle"] },
  { id: "display", title: "Appearance", names: ["appearance"] },
  { id: "run", title: "Run", names: ["start"], advanced: true },
];
const MINIMAL_HIDE = new Set(["w_s", "w_a", "w_c", "N"]);
// Engine time allowed per displayed frame for stepping.  With many agents one model step can
// cost tens of milliseconds; asking for every step that real time calls for (up to 0.1 s x 4
// playback = 24 steps) would freeze the page for a second per frame.  Above the budget the
// model simply runs slower than real time (whole steps only, so results do not change) and
// the clock says so.
const FRAME_BUDGET_MS = 30;
const CHOICE_LABELS = {
  mode: { range: "everyone in range", nearest: "nearest few (k)" },
  obstacle: { none: "none", circle: "a circle", passage: "a narrow passage" },
  appearance: { birds: "birds", fish: "fish" },
  start: { cluster: "a loose patch", scattered: "scattered over the world" },
};
const READOUTS = [
  { key: "P", label: "whole-group agreement P", fmt: (v) => v.toFixed(3) },
  { key: "local", label: "local agreement", fmt: (v) => v.toFixed(3) },
  { key: "spacing", label: "mean nearest spacing", fmt: (v) => `${v.toFixed(2)} lengths` },
  { key: "very_close", label: "share under 1.2 lengths", fmt: (v) => `${(100 * v).toFixed(1)} %` },
  { key: "milling", label: "rotation (milling)", fmt: (v) => v.toFixed(3) },
  { key: "N", label: "population", fmt: (v) => String(Math.round(v)) },
];

/** A playback rate for the clock, e.g. "0.35×". */
function fmtSpeed(v) {
  return `${v >= 1 ? v.toFixed(1) : v.toFixed(2)}×`;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "html") e.innerHTML = v;
    else if (v === true) e.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name });
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 5000);
}

function addStylesheet(href) {
  if (document.querySelector(`link[href="${href}"]`)) return;
  document.head.append(el("link", { rel: "stylesheet", href }));
}

/**
 * Build the lab inside `section`.  If the engine fails while building (e.g. a Python
 * error), the section shows what failed instead of staying blank.
 */
export function mount(section, ctx) {
  try {
    return mountLab(section, ctx);
  } catch (err) {
    console.error("[swarm] the Swarm Lab could not be built", err);
    section.innerHTML = "";
    const box = el("div", { class: "panel swarm-error", role: "alert" },
      el("h2", { text: "The Swarm Lab could not start" }),
      el("p", { text: "The simulation engine reported an error while the page was being built. Reloading may help; if it does not, please report the details below." }),
      el("pre", { text: String((err && (err.message || err)) || "unknown error").slice(0, 4000) }));
    section.append(box);
    return { activate() {}, deactivate() {}, error: err };
  }
}

function mountLab(section, ctx) {
  addStylesheet("assets/css/swarm.css");
  const engine = ctx.engine;
  const specs = engine.spec(LAB);
  const specBy = new Map(specs.map((s) => [s.name, s]));
  const minimal = ctx.params.get("controls") === "minimal";
  const phone = window.matchMedia && window.matchMedia("(max-width: 900px)").matches;

  // ---------------------------------------------------------------- constants from the engine
  let state = engine.call(LAB, "state");
  const consts = state.constants || {};
  const DT = consts.dt || FALLBACK.dt;
  const obstacleShapes = consts.obstacles || FALLBACK.obstacles;
  const THREAT_RADIUS = consts.threat_radius || FALLBACK.threat_radius;
  const trialsRes = engine.tryCall(LAB, "trials");
  const trials = trialsRes.ok && Array.isArray(trialsRes.value) ? trialsRes.value : [];
  if (!trialsRes.ok) console.warn("[swarm] the session has no op_trials:", trialsRes.error);
  const trialBy = new Map(trials.map((t) => [t.id, t]));

  // ---------------------------------------------------------------- DOM
  section.innerHTML = "";
  section.classList.add("swarm-lab");
  if (minimal) section.classList.add("swarm-minimal");

  const stageCanvas = el("canvas", {
    class: "stage-canvas swarm-canvas", tabindex: "0", role: "img",
    "aria-label": "The simulated world, 160 by 100 lengths, wrapping at the edges. Click or tap an animal to select it; left and right arrow keys select the previous or next one.",
  });
  const clockEl = el("div", { class: "swarm-clock", "aria-live": "off" });
  const limitBox = el("div", { class: "swarm-limit", role: "alertdialog", "aria-labelledby": "swarm-limit-text" });
  limitBox.hidden = true;
  const limitText = el("p", { id: "swarm-limit-text", text: "Five model minutes have passed, so the run is paused. Continue keeps everything: positions, settings and the charts." });
  const continueBtn = el("button", { type: "button", class: "btn primary swarm-continue", text: "Continue" });
  limitBox.append(limitText, continueBtn);
  const stage = el("div", { class: "stage swarm-stage" }, stageCanvas, clockEl, limitBox);
  const caption = el("p", {
    class: "stage-caption",
    text: `In the model each animal is a point; it is drawn at least ${GLYPH_LENGTH} lengths long, enlarged so that you can see it. ` +
      "They have no hard collisions: with strong cohesion and weak separation they can overlap. " +
      "Faint lines are the last 2.4 s of every third animal's path; the yellow one is selected. The world wraps around at every edge.",
  });

  // transport
  const playBtn = el("button", { type: "button", class: "btn primary swarm-play" });
  const restartBtn = el("button", { type: "button", class: "btn swarm-restart", text: "Restart" });
  const trialRestartBtn = el("button", { type: "button", class: "btn swarm-restart-trial", text: "Restart this trial" });
  trialRestartBtn.hidden = true;
  const speedGroup = el("div", { class: "swarm-speed", role: "group", "aria-label": "Playback speed" },
    el("span", { class: "swarm-speed-label", text: "Speed" }));
  const speedBtns = SPEEDS.map((s) => {
    const b = el("button", { type: "button", class: "btn", "data-speed": String(s.v), "aria-pressed": String(s.v === 1), text: s.label,
      "aria-label": `${s.label} playback` });
    speedGroup.append(b);
    return b;
  });
  const turnBtn = el("button", { type: "button", class: "btn swarm-turn", text: "Turn one individual" });
  const threatBtn = el("button", { type: "button", class: "btn swarm-threat", text: "Send a threat" });
  const transport = el("div", { class: "swarm-transport" },
    el("div", { class: "btn-row" }, playBtn, restartBtn, trialRestartBtn, speedGroup),
    el("div", { class: "btn-row swarm-disturb", role: "group", "aria-label": "Disturbances" }, turnBtn, threatBtn,
      el("span", { class: "swarm-disturb-note", text: "Both act on the selected animal." }),
      el("a", { class: "swarm-trials-link", href: "#swarm-trials-title", text: "Trials: make a prediction first ↓" })));

  // the running trial, next to the stage: its question and what to try next
  const trialNowTitle = el("h3", { class: "swarm-trial-now-title", id: "swarm-trial-now-title" });
  const trialNowQ = el("p", { class: "swarm-trial-now-q" });
  const trialNowNext = el("p", { class: "swarm-trial-now-next" });
  const trialNow = el("section", { class: "swarm-trial-now", tabindex: "-1", "aria-labelledby": "swarm-trial-now-title" },
    trialNowTitle, trialNowQ, trialNowNext);
  trialNow.hidden = true;
  transport.append(trialNow);

  // charts, readouts, markers
  const readoutBox = el("div", { class: "readouts swarm-readouts", "aria-live": "off" });
  const readoutEls = new Map();
  for (const r of READOUTS) {
    const v = el("span", { class: "v", text: "–" });
    readoutBox.append(el("div", { class: "readout", "data-key": r.key }, el("span", { class: "k", text: r.label }), v));
    readoutEls.set(r.key, v);
  }
  const readoutAt = el("p", { class: "swarm-readout-at" });
  const agreeCanvas = el("canvas", { class: "swarm-chart swarm-chart-agree" });
  const spaceCanvas = el("canvas", { class: "swarm-chart swarm-chart-space" });
  const markerList = el("ol", { class: "swarm-markers", "aria-label": "Setting changes and disturbances" });
  const markerNote = el("p", { class: "swarm-markers-note", text: "Each marker is a setting change or a disturbance. Hover a marker line, or focus an item below, to see which." });
  const charts = el("section", { class: "panel swarm-charts", "aria-labelledby": "swarm-charts-title" },
    el("h3", { id: "swarm-charts-title", text: "Measurements" }),
    readoutBox, readoutAt, agreeCanvas, spaceCanvas, markerNote, markerList);
  const senseBox = el("section", { class: "panel swarm-sense", "aria-labelledby": "swarm-sense-title" });

  const mainCol = el("div", { class: "swarm-main" }, stage, transport, caption,
    el("div", { class: "swarm-analysis" }, charts, senseBox));

  // side column: trials, controls, share
  const trialsBox = el("section", { class: "panel swarm-trials", "aria-labelledby": "swarm-trials-title" },
    el("h3", { id: "swarm-trials-title", text: "Trials: make a prediction first" }),
    el("p", { class: "swarm-trials-intro", text: "Each trial restarts the run with its own settings (same sample). Read the question, decide what you expect, then start it and check." }));
  const trialCards = new Map();
  for (const t of trials) {
    const startBtn = el("button", { type: "button", class: "btn swarm-trial-start", "data-trial": t.id, text: `Start “${t.title}”` });
    const card = el("article", { class: "swarm-trial", "data-trial": t.id },
      el("h4", { text: t.title }),
      el("p", { class: "swarm-question", text: t.question }),
      startBtn,
      el("details", { class: "swarm-next" }, el("summary", { text: "What to try next" }), el("p", { text: t.try_next || t.next || "" })));
    startBtn.addEventListener("click", () => { if (startTrial(t.id)) showStage(); });
    trialsBox.append(card);
    trialCards.set(t.id, card);
  }
  if (!trials.length) trialsBox.append(el("p", { text: "Trials are not available in this version of the engine." }));

  const controlsBox = el("div", { class: "controls swarm-controls" });
  const side = el("aside", { class: "swarm-side", "aria-label": "Swarm Lab settings" }, controlsBox, trialsBox);

  section.append(el("div", { class: "lab-layout swarm-layout" }, mainCol, side));
  const explain = el("div", { class: "explain swarm-explain", html: EXPLAIN_HTML });
  section.append(explain);

  // ---------------------------------------------------------------- engine objects on the page
  const renderer = new StageRenderer(stageCanvas, { maxAgents: specBy.get("N")?.max || 2000 });
  const panel = new SensePanel(senseBox, { onPrev: () => selectRelative(-1), onNext: () => selectRelative(1) });
  const chartAgree = new LineChart(agreeCanvas, {
    title: "Agreement",
    xLabel: "model time (s)",
    axes: { left: { label: "agreement (0–1)", min: 0, max: 1 } },
    series: [
      { key: "P", label: "whole group (solid)", color: "#0f6fb3" },
      { key: "local", label: "local (dashed)", color: "#0f6fb3", dash: [6, 4] },
    ],
    onHoverMarker: (i) => highlightMarker(i),
  });
  const chartSpace = new LineChart(spaceCanvas, {
    title: "Spacing",
    xLabel: "model time (s)",
    axes: {
      left: { label: "lengths", min: 0, auto: true, minMax: 4, pad: 0.1 },
      right: { label: "share of animals", min: 0, max: 1 },
    },
    series: [
      { key: "spacing", label: "mean nearest spacing (lengths)", color: "#c2570c", axis: "left" },
      { key: "very_close", label: "share under 1.2 lengths", color: "#7b3fb8", dash: [6, 4], axis: "right" },
    ],
    onHoverMarker: (i) => highlightMarker(i),
  });

  // ---------------------------------------------------------------- controls from the specs
  const controlSets = [];
  const rowsBy = new Map();
  let currentValues = { ...(state.params || {}) };
  for (const group of GROUPS) {
    const names = group.names.filter((n) => specBy.has(n));
    if (!names.length) continue;
    const det = el("details", { class: `swarm-group swarm-group-${group.id}`, "data-group": group.id });
    det.open = !phone || group.id === "rules";
    det.append(el("summary", { text: group.title }));
    const body = el("div", { class: "swarm-group-body" });
    det.append(body);
    const set = buildControls(body, specs, {
      only: names,
      values: currentValues,
      choiceLabels: CHOICE_LABELS,
      apply: (name, value) => applyLive(name, value),
      onError: (msg) => ctx.notify(msg, "warn"),
    });
    for (const [name, r] of set.rows) {
      rowsBy.set(name, { set, row: r.row });
      const lab = r.row.querySelector("label");
      if (lab && r.spec.help) lab.title = r.spec.help;
      if (minimal && (r.spec.advanced || MINIMAL_HIDE.has(name))) r.row.hidden = true;
    }
    controlSets.push(set);
    if (group.id === "world") {
      const minus = el("button", { type: "button", class: "btn swarm-pop-minus", text: "Remove 10", "aria-label": "Remove the 10 most recently added animals" });
      const plus = el("button", { type: "button", class: "btn swarm-pop-plus", text: "Add 10", "aria-label": "Add 10 animals" });
      minus.addEventListener("click", () => changePopulation(-10));
      plus.addEventListener("click", () => changePopulation(10));
      const popRow = el("div", { class: "btn-row swarm-pop" }, minus, plus);
      if (minimal) popRow.hidden = true;
      const nRow = rowsBy.get("N")?.row;
      if (nRow) nRow.after(popRow); else body.append(popRow);
    }
    if (minimal && group.advanced) det.hidden = true;
    if (minimal && [...set.rows.values()].every((r) => r.row.hidden)) det.hidden = true;
    controlsBox.append(det);
  }
  // sample: a number box (a slider over a billion values would be useless), built from its spec
  const sampleSpec = specBy.get("sample");
  const sampleInput = el("input", {
    type: "number", id: "swarm-sample", class: "swarm-sample-input", inputmode: "numeric",
    min: String(sampleSpec?.min ?? 0), max: String(sampleSpec?.max ?? 999999999), step: "1",
    "aria-describedby": "swarm-sample-help",
  });
  const sampleRow = el("div", { class: "ctl ctl-sample", "data-param": "sample" },
    el("label", { for: "swarm-sample", text: sampleSpec?.label || "Sample" }), sampleInput,
    el("p", { class: "help", id: "swarm-sample-help", text: `${sampleSpec?.help || ""} Press Restart to use it.` }));
  const runGroup = controlsBox.querySelector(".swarm-group-run .swarm-group-body");
  const shareRow = el("div", { class: "btn-row swarm-share", role: "group", "aria-label": "Share and save" });
  const copyBtn = el("button", { type: "button", class: "btn swarm-copy", text: "Copy link" });
  const csvBtn = el("button", { type: "button", class: "btn swarm-csv", text: "Download CSV" });
  const pngBtn = el("button", { type: "button", class: "btn swarm-png", text: "Save image" });
  shareRow.append(copyBtn, csvBtn, pngBtn);
  const runDet = controlsBox.querySelector(".swarm-group-run");
  if (runGroup) {
    runGroup.prepend(sampleRow);
    runDet.hidden = false; // the sample and sharing are not advanced
    for (const r of runGroup.querySelectorAll(".ctl")) if (r !== sampleRow && minimal) r.hidden = true;
    runGroup.append(shareRow);
  } else {
    controlsBox.append(sampleRow, shareRow);
  }
  if (runDet) runDet.querySelector("summary").textContent = "Run, sample and sharing";

  // ---------------------------------------------------------------- page state
  let playing = !ctx.reducedMotion;
  let speed = 1;
  const clock = new StepClock(DT);
  let frameBuf = new Float32Array(8 + 3 * 256);
  let frameLen = 0;
  const frame = createFrameInfo();
  frame.threatRadius = THREAT_RADIUS;
  let dirty = true; // redraw needed
  let panelDirty = true;
  let historyDirty = true;
  let historyFull = true;
  let frameCount = 0;
  let runSample = state.sample;
  let currentTrial = null;
  let atLimit = false;
  let lastClockText = "";
  let frameBudgetMs = FRAME_BUDGET_MS;
  let msPerStep = 0; // running estimate of the engine's cost of one step (ms)
  // achieved playback over about one real second: model steps done / steps asked for
  const pace = { real: 0, asked: 0, done: 0, ratio: 1 };
  const hist = { t: [], series: {}, markers: [], version: -1, interval: 0.25 };
  let markersShown = null;
  let highlighted = null;

  function allValues() {
    const v = { ...currentValues };
    for (const set of controlSets) for (const name of set.rows.keys()) v[name] = set.get(name);
    const s = parseInt(sampleInput.value, 10);
    if (Number.isFinite(s)) v.sample = s;
    return v;
  }

  function syncControls(params) {
    if (!params) return;
    currentValues = { ...params };
    for (const set of controlSets) for (const name of set.rows.keys()) if (name in params) set.set(name, params[name]);
    if ("sample" in params) sampleInput.value = String(params.sample);
    applyDrawing(params);
  }

  function applyDrawing(params) {
    if ("appearance" in params) renderer.appearance = params.appearance;
    if ("obstacle" in params) {
      const list = (obstacleShapes[params.obstacle] || []).map((d) => ({ x: d[0], y: d[1], r: d[2] }));
      renderer.setObstacles(list);
      panel.setObstacles(list);
    }
    if ("mode" in params) {
      const k = rowsBy.get("k");
      if (k) k.row.classList.toggle("swarm-inactive", params.mode !== "nearest");
    }
  }

  function refreshState() {
    state = engine.call(LAB, "state");
    runSample = state.sample;
    return state;
  }

  // ---------------------------------------------------------------- actions
  function applyLive(name, value) {
    if (name === "N") return changePopulation(0, value);
    const res = engine.tryCall(LAB, "set", { name, value });
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return res;
    }
    currentValues[name] = value;
    applyDrawing({ [name]: value });
    if (res.value && res.value.notice) ctx.notify(res.value.notice, "info");
    if (res.value && res.value.applies === "restart") {
      ctx.notify(`${specBy.get(name)?.label || name}: takes effect when you press Restart.`, "info");
    }
    touch();
    render(true);
    return { ok: true };
  }

  function changePopulation(delta, absolute) {
    const cur = engine.call(LAB, "state").N;
    const spec = specBy.get("N");
    let n = absolute !== undefined ? absolute : cur + delta;
    if (spec) n = Math.max(spec.min, Math.min(spec.max, n));
    const res = engine.tryCall(LAB, "population", { n });
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return res;
    }
    currentValues.N = n;
    const r = rowsBy.get("N");
    if (r) r.set.set("N", n);
    touch();
    render(true);
    return { ok: true };
  }

  function touch() {
    dirty = true;
    panelDirty = true;
    historyDirty = true;
  }

  function afterRestart() {
    failed = false;
    clock.reset();
    renderer.trails.clear();
    atLimit = false;
    limitBox.hidden = true;
    historyFull = true;
    refreshState();
    if (state.selected_index === null && state.N > 0) engine.tryCall(LAB, "select", { index: 0 });
    syncControls(state.params);
    touch();
    render(true);
  }

  function restart() {
    const values = allValues();
    delete values.N; // N is the population control: restart uses the slider value
    values.N = currentValues.N;
    const res = engine.tryCall(LAB, "reset", values);
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return;
    }
    afterRestart();
  }

  function markTrial(id) {
    currentTrial = id;
    for (const [tid, card] of trialCards) {
      const on = tid === id;
      card.classList.toggle("active", on);
      if (on) card.setAttribute("aria-current", "true"); else card.removeAttribute("aria-current");
      if (on) card.querySelector("details").open = true;
    }
    trialRestartBtn.hidden = !id;
    if (id && trialBy.has(id)) trialRestartBtn.textContent = `Restart this trial (${trialBy.get(id).title})`;
    const t = id ? trialBy.get(id) : null;
    trialNow.hidden = !t;
    if (t) {
      trialNowTitle.textContent = `Trial: ${t.title}`;
      trialNowQ.textContent = t.question;
      trialNowNext.textContent = `Then: ${t.try_next || t.next || ""}`;
    }
  }

  /** After a trial is started from its card (often far down the page, on a phone far below
   *  the stage), bring the stage and the trial's question into view. */
  function showStage() {
    const r = stage.getBoundingClientRect();
    if (r.top < 0 || r.top > window.innerHeight * 0.4) {
      stage.scrollIntoView({ block: "start", behavior: ctx.reducedMotion ? "auto" : "smooth" });
    }
    if (!trialNow.hidden) trialNow.focus({ preventScroll: true });
  }

  function startTrial(id) {
    const res = engine.tryCall(LAB, "restart_trial", { trial: id });
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return false;
    }
    markTrial(id);
    afterRestart();
    return true;
  }

  function setPlaying(on) {
    playing = on;
    playBtn.textContent = on ? "Pause" : "Play";
    playBtn.setAttribute("aria-label", on ? "Pause the simulation" : "Play the simulation");
    section.dataset.playing = on ? "1" : "0";
    dirty = true; // the clock line changes (pace note)
    clock.reset();
    pace.real = pace.asked = pace.done = 0;
    pace.ratio = 1;
  }

  function setSpeed(v) {
    speed = v;
    pace.real = pace.asked = pace.done = 0;
    pace.ratio = 1;
    for (const b of speedBtns) b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === v));
  }

  function showLimit() {
    atLimit = true;
    setPlaying(false);
    limitBox.hidden = false;
    continueBtn.focus({ preventScroll: true });
  }

  function continueRun() {
    const res = engine.tryCall(LAB, "continue");
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return;
    }
    atLimit = false;
    limitBox.hidden = true;
    setPlaying(true);
  }

  /** Advance the model by n whole steps (the only place the page steps the engine). */
  function advance(n) {
    if (n <= 0) return;
    const t0 = performance.now();
    const res = engine.call(LAB, "step", { n });
    const per = (performance.now() - t0) / n;
    msPerStep = msPerStep > 0 ? 0.75 * msPerStep + 0.25 * per : per;
    dirty = true;
    if (res && res.paused_at_limit) showLimit();
  }

  /** Whole steps for this frame: what real time asks for, but no more than the frame budget
   *  allows.  Steps over the budget are dropped, not owed: the model runs slower than real
   *  time instead of the page freezing (the trajectory is the same either way). */
  function stepsForFrame(dt) {
    const asked = clock.steps(dt, speed);
    let n = asked;
    if (msPerStep > 0) {
      const cap = Math.max(1, Math.floor(frameBudgetMs / msPerStep));
      if (n > cap) {
        n = cap;
        clock.reset();
      }
    }
    pace.real += dt;
    pace.asked += asked;
    pace.done += n;
    if (pace.real >= 1) {
      pace.ratio = pace.asked > 0 ? pace.done / pace.asked : 1;
      pace.real = pace.asked = pace.done = 0;
    }
    return n;
  }

  function selectAt(x, y) {
    const before = frame.selected;
    // pick the nearest animal within 4 lengths, or 14 CSS px where the stage is small (a
    // fingertip on a phone covers several lengths there)
    const radius = Math.min(50, Math.max(4, 14 / renderer.scale));
    const res = engine.tryCall(LAB, "select", { x, y, radius });
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return null;
    }
    // a tap on empty water keeps the current individual (the session would clear it)
    if (res.value.index === null && before >= 0 && before < frame.n) engine.tryCall(LAB, "select", { index: before });
    touch();
    render(true);
    return res.value;
  }

  function selectRelative(delta) {
    if (!frame.n) return;
    const cur = frame.selected >= 0 ? frame.selected : 0;
    const res = engine.tryCall(LAB, "select", { index: (cur + delta + frame.n) % frame.n });
    if (!res.ok) ctx.notify(res.error, "warn");
    touch();
    render(true);
  }

  function turnOne() {
    const res = engine.tryCall(LAB, "turn_one");
    if (!res.ok) ctx.notify(res.error, "warn");
    touch();
    render(true);
  }

  function sendThreat() {
    const res = engine.tryCall(LAB, "threat");
    if (!res.ok) ctx.notify(res.error, "warn");
    touch();
    render(true);
  }

  // ---------------------------------------------------------------- drawing
  function readFrame() {
    const out = engine.frameInto(LAB, frameBuf);
    frameBuf = out.data;
    frameLen = out.length;
    parseFrame(frameBuf, frameLen, frame, DT);
  }

  function updateClock() {
    let text = `${formatClock(frame.t)} model time · sample ${runSample}`;
    if (playing && pace.ratio < 0.9) text += ` · slowed to ${fmtSpeed(speed * pace.ratio)}`;
    if (text !== lastClockText) {
      clockEl.textContent = text;
      lastClockText = text;
      section.dataset.step = String(frame.step);
    }
  }

  function refreshHistory() {
    // incremental when our copy is current (same thinning version); the session
    // answers in full when the version moved on (h.full)
    const since = !historyFull && hist.t.length ? hist.t[hist.t.length - 1] : null;
    const h = engine.call(LAB, "history", since === null ? {} : { since, version: hist.version });
    if (h.full !== false) {
      hist.t = h.t.slice();
      hist.series = {};
      for (const [k, v] of Object.entries(h.series)) hist.series[k] = v.slice();
    } else {
      for (const v of h.t) hist.t.push(v);
      for (const [k, v] of Object.entries(h.series)) {
        const arr = hist.series[k] || (hist.series[k] = []);
        for (const x of v) arr.push(x);
      }
    }
    hist.version = h.version;
    hist.interval = h.interval || hist.interval;
    hist.markers = h.markers || [];
    historyFull = false;
    historyDirty = false;
    chartAgree.setData(hist);
    chartSpace.setData(hist);
    updateReadouts();
    updateMarkerList();
  }

  function updateReadouts() {
    const k = hist.t.length - 1;
    if (k < 0) {
      for (const v of readoutEls.values()) v.textContent = "–";
      readoutAt.textContent = "No sample yet.";
      return;
    }
    for (const r of READOUTS) {
      const arr = hist.series[r.key];
      const v = arr ? arr[k] : null;
      readoutEls.get(r.key).textContent = v === null || v === undefined || !Number.isFinite(v) ? "–" : r.fmt(v);
    }
    readoutAt.textContent = `Latest sample at ${formatClock(hist.t[k])} (${hist.t[k].toFixed(2)} s model time); samples every ${hist.interval} s.`;
    section.dataset.sampleT = String(hist.t[k]);
  }

  function updateMarkerList() {
    const key = hist.markers.map((m) => `${m.t}:${m.label}`).join("|");
    if (key === markersShown) return;
    markersShown = key;
    markerList.textContent = "";
    hist.markers.forEach((m, i) => {
      const b = el("button", { type: "button", class: "swarm-marker", "data-index": String(i), text: `${formatClock(m.t)} · ${m.label}` });
      b.addEventListener("focus", () => highlightMarker(i));
      b.addEventListener("mouseenter", () => highlightMarker(i));
      b.addEventListener("blur", () => highlightMarker(null));
      b.addEventListener("mouseleave", () => highlightMarker(null));
      markerList.append(el("li", {}, b));
    });
    markerNote.hidden = hist.markers.length === 0;
  }

  function highlightMarker(i) {
    highlighted = i;
    chartAgree.highlight(i);
    chartSpace.highlight(i);
    for (const b of markerList.querySelectorAll(".swarm-marker")) b.classList.toggle("hl", Number(b.dataset.index) === i);
  }

  function refreshPanel() {
    const res = engine.tryCall(LAB, "selected");
    const info = res.ok ? res.value : null;
    panel.setInfo(info && info.index !== undefined ? info : null);
    panelDirty = false;
  }

  function render(force = false) {
    if (!dirty && !force && !historyDirty && !panelDirty) return;
    frameCount++;
    readFrame();
    if (frame.atLimit && !atLimit) showLimit(); // reached by any route (e.g. a test stepping the engine)
    if (dirty || force) {
      renderer.trails.record(frameBuf, frame);
      renderer.draw(frameBuf, frame);
      updateClock();
    }
    if (panelDirty || (playing && frameCount % 3 === 0)) refreshPanel();
    panel.draw(frameBuf, frame);
    const due = hist.t.length ? hist.t[hist.t.length - 1] + hist.interval - 1e-9 : 0;
    if (historyDirty || historyFull || frame.t >= due) refreshHistory();
    dirty = false;
  }

  // ---------------------------------------------------------------- the loop
  let failed = false;
  function tick(dt) {
    if (failed) return;
    try {
      if (playing) advance(stepsForFrame(dt));
      render();
    } catch (err) {
      // a bug, not bad input: stop cleanly and say so once (no error every frame)
      failed = true;
      setPlaying(false);
      console.error("[swarm] the simulation stopped", err);
      ctx.notify(`The simulation stopped because of an error: ${err && err.message ? err.message.split("\n").slice(-2).join(" ") : err}. Restart or reload the page.`, "error");
    }
  }
  const loop = createLoop(tick);

  // ---------------------------------------------------------------- wiring
  playBtn.addEventListener("click", () => {
    if (atLimit) { showLimit(); return; }
    setPlaying(!playing);
  });
  restartBtn.addEventListener("click", restart);
  trialRestartBtn.addEventListener("click", () => currentTrial && startTrial(currentTrial));
  for (const b of speedBtns) b.addEventListener("click", () => setSpeed(Number(b.dataset.speed)));
  turnBtn.addEventListener("click", turnOne);
  threatBtn.addEventListener("click", sendThreat);
  continueBtn.addEventListener("click", continueRun);
  sampleInput.addEventListener("change", () => {
    const res = engine.tryCall(LAB, "set", { name: "sample", value: sampleInput.value });
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      sampleInput.value = String(currentValues.sample ?? runSample);
      return;
    }
    currentValues.sample = parseInt(sampleInput.value, 10);
    ctx.notify(`Sample ${currentValues.sample} will be used when you press Restart.`, "info");
  });
  stageCanvas.addEventListener("click", (ev) => {
    const rect = stageCanvas.getBoundingClientRect();
    const p = renderer.viewToModel(ev.clientX - rect.left, ev.clientY - rect.top);
    selectAt(p.x, p.y);
  });
  stageCanvas.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowRight") { ev.preventDefault(); selectRelative(1); }
    if (ev.key === "ArrowLeft") { ev.preventDefault(); selectRelative(-1); }
  });
  copyBtn.addEventListener("click", () => copyLink(linkUrl(), ctx.notify));
  csvBtn.addEventListener("click", downloadCsv);
  pngBtn.addEventListener("click", saveImage);
  if (typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => { renderer.resize(); dirty = true; render(true); }).observe(stage);
  }

  function linkUrl() {
    const values = allValues();
    values.sample = runSample; // the link replays the run that is on screen, from its start
    let url = shareUrl(LAB, values, specs, { trial: currentTrial });
    if (currentTrial && trialBy.has(currentTrial)) {
      // the trial's own settings are written explicitly, so live changes back to a default survive
      const u = new URL(url, location.href);
      for (const name of Object.keys(trialBy.get(currentTrial).settings || {})) {
        const spec = specBy.get(name);
        if (!spec || !(name in values)) continue;
        const v = values[name];
        u.searchParams.set(name, spec.kind === "bool" ? (v ? "1" : "0") : String(v));
      }
      url = u.toString();
    }
    return url;
  }

  function fileStem() {
    const t = Math.floor(frame.t);
    return `swarm-lab-sample${runSample}-${Math.floor(t / 60)}m${String(t % 60).padStart(2, "0")}s`;
  }

  function downloadCsv() {
    const res = engine.tryCall(LAB, "csv");
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return;
    }
    const text = typeof res.value === "string" ? res.value : res.value.csv;
    download(new Blob([text], { type: "text/csv;charset=utf-8" }), `${fileStem()}.csv`);
  }

  function saveImage() {
    render(true);
    const dpr = renderer.dpr;
    const sw = stageCanvas.width;
    const sh = stageCanvas.height;
    const pad = Math.round(12 * dpr);
    const head = Math.round(30 * dpr);
    const cw = Math.floor((sw - pad) / 2);
    const ch1 = Math.round((agreeCanvas.height * cw) / Math.max(1, agreeCanvas.width));
    const ch2 = Math.round((spaceCanvas.height * cw) / Math.max(1, spaceCanvas.width));
    const out = document.createElement("canvas");
    out.width = sw + 2 * pad;
    out.height = head + sh + pad + Math.max(ch1, ch2) + 2 * pad;
    const g = out.getContext("2d");
    g.fillStyle = "#ffffff";
    g.fillRect(0, 0, out.width, out.height);
    g.fillStyle = "#14202b";
    g.font = `600 ${Math.round(15 * dpr)}px system-ui, sans-serif`;
    g.textBaseline = "middle";
    const title = `Swarm Lab · ${formatClock(frame.t)} model time · sample ${runSample}` +
      (currentTrial && trialBy.has(currentTrial) ? ` · trial: ${trialBy.get(currentTrial).title}` : "");
    g.fillText(title, pad, pad + head / 2 - 2);
    g.drawImage(stageCanvas, pad, pad + head);
    const y2 = pad + head + sh + pad;
    g.drawImage(agreeCanvas, pad, y2, cw, ch1);
    g.drawImage(spaceCanvas, pad + cw + pad, y2, cw, ch2);
    out.toBlob((blob) => blob && download(blob, `${fileStem()}.png`), "image/png");
  }

  // ---------------------------------------------------------------- start
  const query = readQuery(engine, LAB, ctx.params);
  for (const n of query.notices || []) ctx.notify(`Link settings: ${n}`, "warn");
  const trialId = ctx.params.get("trial");
  let started = false;
  if (trialId) {
    if (trialBy.has(trialId)) {
      // the defaults, the trial's settings, then any settings in the link on top
      const defaults = Object.fromEntries(specs.map((s) => [s.name, s.default]));
      const res = engine.tryCall(LAB, "reset", { ...defaults, ...(trialBy.get(trialId).settings || {}), ...query.values });
      if (res.ok) { markTrial(trialId); started = true; } else ctx.notify(res.error, "warn");
    } else {
      ctx.notify(`There is no trial called “${trialId}”. Choose one of: ${trials.map((t) => t.id).join(", ")}.`, "warn");
    }
  }
  if (!started) {
    const res = engine.tryCall(LAB, "reset", query.values || {});
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      engine.call(LAB, "reset", {});
    }
  }
  setPlaying(playing);
  if (ctx.reducedMotion) {
    ctx.notify("Your system asks for reduced motion, so the Swarm Lab starts paused. Press Play to start it.", "info");
  }
  afterRestart();

  return {
    activate() {
      renderer.resize();
      chartAgree.resize();
      chartSpace.resize();
      panel.resize();
      dirty = true;
      loop.start();
    },
    deactivate() {
      loop.stop();
    },
    // used by the browser tests (tests/browser/test_swarm*.py)
    test: {
      tick, // run the page's own frame step with a given real dt
      stopLoop: () => loop.stop(),
      startLoop: () => loop.start(),
      get playing() { return playing; },
      setPlaying,
      setSpeed,
      get speed() { return speed; },
      setFrameBudget: (ms) => { frameBudgetMs = ms; },
      get msPerStep() { return msPerStep; },
      get frame() { return { ...frame }; },
      transform: (x, y) => {
        const p = renderer.modelToView(x, y);
        const r = stageCanvas.getBoundingClientRect();
        return { x: p.x + r.left, y: p.y + r.top };
      },
      restart,
      startTrial,
      linkUrl,
      render: () => render(true),
      get history() { return hist; },
      charts: [chartAgree, chartSpace],
    },
  };
}
