// Lab 1 page: "Swarm Lab" (local rules, no leader).
//
// Pieces (assets/js/labs/swarm/*):
//   renderer.js  the stage canvas and its one model-to-view transform, trails (trails.js)
//   panel.js     "What can I sense?" for the selected individual
//   frame.js     reading the session's float32 frame
//   explain.js   the explanatory text and formulas
// Charts are ui/chart.js; controls are built from the session's parameter specs.
//
// Time: the page never invents model time.  The one page stepper (ui/stepper.js) turns
// the real time since the previous frame into a WHOLE number of model steps and asks the
// engine (in its worker) for them in one message with the frame, the sensing panel and the
// new chart samples, so a sample's trajectory is identical at every playback speed and
// frame rate, and the page never waits for Python.  While the tab is hidden the loop does
// not tick (createLoop), and nothing else here steps the engine.

import { buildControls, groupSpecs } from "../ui/controls.js";
import { createLoop } from "../ui/loop.js";
import { Stepper } from "../ui/stepper.js";
import { openLab, PlayButton, Readouts, readoutRowHtml, frameOps, eachResult } from "../ui/run.js";
import { HistoryMirror } from "../ui/history.js";
import { onLookChange } from "../ui/look.js";
import { el, capital, ordinal, say, setText } from "../ui/dom.js";
import { popResultWords } from "../ui/keys.js";
import { NARROW } from "../ui/reflow.js";
import { FRAMED, showInFrame } from "../embed.js";
import { MinimalControls } from "../ui/minimal.js";
import { readQuery, linkOf, copyLink, copiedWords, linkCode } from "../ui/share.js";
import { LineChart, SERIES_STYLE, formatClock } from "../ui/chart.js";
import { StageRenderer, GLYPH_LENGTH } from "./swarm/renderer.js";
import { TRAILS } from "./swarm/trails.js";
import { SensePanel } from "./swarm/panel.js";
import { createFrameInfo, parseFrame } from "./swarm/frame.js";
import { explainHtml } from "./swarm/explain.js";

const LAB = "swarm";
const POP_STEP = 10;     // "Add 10" / "Remove 10": animals a press adds or removes (a page choice)
/** "every animal", "every third animal": which animals leave a trail (trails.js TRAILS). */
const EVERY = { 1: "every", 2: "every second", 3: "every third", 4: "every fourth", 5: "every fifth" };
const SPEEDS = [
  { v: 0.25, label: "¼×" }, { v: 0.5, label: "½×" }, { v: 1, label: "1×" }, { v: 2, label: "2×" }, { v: 4, label: "4×" },
];

/** A playback rate for the clock, e.g. "0.35×". */
function fmtSpeed(v) {
  return `${v >= 1 ? v.toFixed(1) : v.toFixed(2)}×`;
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


/**
 * Build the lab inside `section`.  If the engine fails while building (e.g. a Python
 * error), the error goes to app.js, which shows what failed with "Try again", as for
 * every lab.
 */
export async function mount(section, ctx) {
  // (display: groups, readouts, chart words and urges, from the session)
  const { engine, specs, fx, consts, display, minimal } = await openLab(ctx, LAB, "assets/css/swarm.css");
  const specBy = new Map(specs.map((s) => [s.name, s]));
  const phone = window.matchMedia && window.matchMedia(NARROW).matches;

  // ---------------------------------------------------------------- constants from the engine
  let state = await engine.call(LAB, "state");
  const DT = consts.dt;
  const obstacleShapes = consts.obstacles;
  const obstacleNames = [];
  for (const [name, code] of Object.entries(consts.obstacle_codes)) obstacleNames[code] = name;
  const THREAT_RADIUS = consts.threat_radius;
  const trialsRes = await engine.tryCall(LAB, "trials");
  const trials = trialsRes.ok && Array.isArray(trialsRes.value) ? trialsRes.value : [];
  if (!trialsRes.ok) console.warn("[swarm] the session has no op_trials:", trialsRes.error);
  const trialBy = new Map(trials.map((t) => [t.id, t]));

  // ---------------------------------------------------------------- DOM
  section.innerHTML = "";
  section.classList.add("swarm-lab");
  if (minimal) section.classList.add("swarm-minimal");

  const world = `the simulated world, ${consts.world[0]} by ${consts.world[1]} lengths, wrapping at the edges. Click or tap an animal to select it`;
  const stageCanvas = el("canvas", {
    class: "stage-canvas swarm-canvas", tabindex: "0", role: "img",
    "aria-label": `${capital(world)}; left and right arrow keys select the previous or next one.`,
    "data-access-label": `${ctx.name} stage: ${world}.`,
  });
  const clockEl = el("div", { class: "swarm-clock", "aria-live": "off" });
  const limitBox = el("div", { class: "swarm-limit", role: "group", "aria-labelledby": "swarm-limit-text" });
  limitBox.hidden = true;
  const limitText = el("p", { id: "swarm-limit-text", text: `${capital(say(consts.time_limit_s / 60))} model minutes have passed, so the run is paused. Continue keeps everything: positions, settings and the charts.` });
  const continueBtn = el("button", { type: "button", class: "btn primary swarm-continue", text: "Continue" });
  limitBox.append(limitText, continueBtn);
  const stage = el("div", { class: "stage swarm-stage" }, stageCanvas, clockEl, limitBox);
  stage.style.aspectRatio = `${consts.world[0]} / ${consts.world[1]}`;  // the world's own shape
  section.style.setProperty("--world-aspect", String(consts.world[0] / consts.world[1]));  // (swarm.css sizes by it)
  const caption = el("p", {
    class: "stage-caption",
    text: `In the model each animal is a point; it is drawn at least ${GLYPH_LENGTH} lengths long, enlarged so that you can see it ` +
      "(“Larger shapes” draws it bigger still). " +
      "They have no hard collisions: with strong cohesion and weak separation they can overlap. " +
      `Faint lines are the last ${TRAILS.seconds} s of ${EVERY[TRAILS.every] || `every ${ordinal(TRAILS.every)}`} animal's path; ` +
      "the one drawn larger and circled is selected. The world wraps around at every edge.",
  });

  // transport
  const playBtn = new PlayButton(el("button", { type: "button", class: "btn primary swarm-play" }), section, "the simulation");
  const restartBtn = el("button", { type: "button", class: "btn swarm-restart", text: "Restart" });
  const trialRestartBtn = el("button", { type: "button", class: "btn swarm-restart-trial", text: "Restart this trial" });
  trialRestartBtn.hidden = true;
  const speedGroup = el("div", { class: "swarm-speed", role: "group", "aria-label": "Playback speed" },
    el("span", { class: "swarm-speed-label", text: "Playback" }));
  const speedBtns = SPEEDS.map((s) => {
    const b = el("button", { type: "button", class: "btn", "data-speed": String(s.v), "aria-pressed": String(s.v === 1), text: s.label,
      "aria-label": `${s.label} playback` });
    speedGroup.append(b);
    return b;
  });
  const turnBtn = el("button", { type: "button", class: "btn swarm-turn", text: "Turn one individual", "data-deg": consts.turn_one_deg });
  const threatBtn = el("button", { type: "button", class: "btn swarm-threat", text: "Send a threat" });
  // On a phone the rule switches sit screens below the stage; the transport carries them too
  // (shown in the one-column layout only), so a rule is switched with the live charts, and
  // the flock, on screen.  A press clicks the setting's own checkbox: one path for the change, its
  // notice and its chart marker.
  const ruleChips = new Map(specs.filter((s) => s.group === "rules" && s.kind === "bool").map((s) => [s.name,
    el("button", { type: "button", class: "btn swarm-rule-switch", text: s.label,
      "aria-pressed": String(Boolean(state.params?.[s.name] ?? s.default)) })]));
  for (const [name, chip] of ruleChips) {
    chip.addEventListener("click", () => {
      const box = rowsBy.get(name)?.row.querySelector("input");
      if (!box) return;
      box.click();
      chip.setAttribute("aria-pressed", String(box.checked)); // at once; the engine's answer confirms it
    });
  }
  const rulesTitle = (display.groups.find((g) => g.id === "rules") || { title: "Rules" }).title;
  const ruleSwitches = el("div", { class: "swarm-rule-switches", role: "group", "aria-label": `${rulesTitle}, on or off` },
    el("span", { class: "swarm-rule-label", text: "Rules" }), ...ruleChips.values());
  const transport = el("div", { class: "swarm-transport" },
    el("div", { class: "btn-row" }, playBtn.button, restartBtn, trialRestartBtn, speedGroup),
    el("div", { class: "btn-row swarm-disturb", role: "group", "aria-label": "Disturbances" }, turnBtn, threatBtn,
      el("span", { class: "swarm-disturb-note", text: "Both act on the selected animal." }),
      el("a", { class: "swarm-trials-link", href: "#swarm-trials-title", text: "Trials: make a prediction first ↓" })));

  // the running trial, next to the stage: its question and what to try next
  const trialNowTitle = el("h3", { class: "swarm-trial-now-title", id: "swarm-trial-now-title" });
  const trialNowQ = el("p", { class: "swarm-trial-now-q" });
  const trialNowNext = el("p", { class: "swarm-trial-now-next" });
  // a trial's Start moves focus here; the next trial's card is one Tab and Enter away
  const trialNowGo = el("button", { type: "button", class: "btn swarm-trial-next" });
  const trialNow = el("section", { class: "swarm-trial-now", tabindex: "-1", "aria-labelledby": "swarm-trial-now-title" },
    trialNowTitle, trialNowQ, trialNowNext, trialNowGo);
  trialNow.hidden = true;
  transport.append(trialNow, ruleSwitches); // the switches after a running trial's question, which keeps its place

  // charts, readouts, markers
  const readoutBox = el("div", { class: "readouts swarm-readouts", "aria-live": "off" });
  readoutBox.innerHTML = display.readouts.map((r) => readoutRowHtml(r, "swarm")).join("");
  const readouts = new Readouts(readoutBox, display.readouts);
  const readoutAt = el("p", { class: "swarm-readout-at" });
  const agreeCanvas = el("canvas", { class: "swarm-chart swarm-chart-agree" });
  const spaceCanvas = el("canvas", { class: "swarm-chart swarm-chart-space" });
  const markerList = el("ol", { class: "swarm-markers", "aria-label": "Setting changes and disturbances" });
  const markerNote = el("p", { class: "swarm-markers-note", text: "Each marker is a setting change or a disturbance; the list below names each one (choosing an item, or pointing at a marker line, shows which)." });
  const charts = el("section", { class: "panel swarm-charts", "aria-labelledby": "swarm-charts-title" },
    el("h3", { id: "swarm-charts-title", text: "Measurements" }),
    readoutBox, readoutAt, agreeCanvas, spaceCanvas, markerNote, markerList);
  const senseBox = el("section", { class: "panel swarm-sense", "aria-labelledby": "swarm-sense-title" });

  // the status line under the stage: what the run is doing, and what a setting change keeps
  const statusEl = el("p", { class: "swarm-status", "aria-live": "off" },
    el("span", { class: "swarm-status-now" }),
    el("span", { class: "swarm-status-keep", text: " A setting change keeps the model time and Play/Pause; only Restart and the trials begin again." }));
  const statusNow = statusEl.firstChild;
  const mainCol = el("div", { class: "swarm-main" }, stage, statusEl, transport, caption,
    el("div", { class: "swarm-analysis" }, charts, senseBox));

  // side column: trials, controls, share
  const trialsBox = el("section", { class: "panel swarm-trials", "aria-labelledby": "swarm-trials-title" },
    el("h3", { id: "swarm-trials-title", text: "Trials: make a prediction first" }),
    el("p", { class: "swarm-trials-intro", text: "Each trial restarts the run from the default settings plus its own (same sample and appearance). Read the question, decide what you expect, then start it and check." }));
  const trialCards = new Map();
  for (const t of trials) {
    const startBtn = el("button", { type: "button", class: "btn swarm-trial-start", "data-trial": t.id, text: `Start “${t.title}”`,
      "aria-describedby": `swarm-q-${t.id}` });
    const card = el("article", { class: "swarm-trial", "data-trial": t.id },
      el("h4", { text: t.title }),
      el("p", { class: "swarm-question", id: `swarm-q-${t.id}`, text: t.question }),
      startBtn,
      el("details", { class: "swarm-next" }, el("summary", { text: "What to try next" }), el("p", { text: t.try_next || t.next || "" })));
    startBtn.addEventListener("click", () => stepper.track(startTrial(t.id).then((ok) => ok && showStage())));
    trialsBox.append(card);
    trialCards.set(t.id, card);
  }
  if (!trials.length) trialsBox.append(el("p", { text: "Trials are not available in this version of the engine." }));

  const controlsBox = el("div", { class: "controls swarm-controls" });
  // Esc puts a control's floating help note away until the focus leaves it (swarm.css)
  controlsBox.addEventListener("keydown", (ev) => {
    const row = ev.key === "Escape" && ev.target.closest(".ctl");
    if (row && row.querySelector(".help")) row.classList.add("help-off");
  });
  controlsBox.addEventListener("focusout", (ev) => ev.target.closest(".ctl")?.classList.remove("help-off"));
  const side = el("aside", { class: "swarm-side", "aria-label": `${ctx.name} settings` }, controlsBox, trialsBox);

  section.append(el("header", { class: "lab-head swarm-head" },
    el("p", { class: "lab-kicker", text: "Collective motion, hands on · Lab 1" }),
    el("h1", { text: "Moving together, with no leader" }),
    el("p", { class: "lab-lead", text: "A flock of birds or a school of fish can wheel, split and re-form as if it had one mind, " +
      "yet every animal only reacts to the few others near it. Here many small decisions, each made locally, add up to " +
      "one pattern. Build a flock or a school, switch its rules on and off while it moves, disturb it, and find out how " +
      "a group can move as one without anyone in charge." })));
  section.append(el("div", { class: "lab-layout swarm-layout" }, mainCol, side));
  const explain = el("div", { class: "explain swarm-explain", html: explainHtml(consts) });
  section.append(explain);

  // ---------------------------------------------------------------- engine objects on the page
  const renderer = new StageRenderer(stageCanvas, { world: consts.world, maxAgents: specBy.get("N").max });
  const panel = new SensePanel(senseBox, { world: consts.world, urges: display.urges, onPrev: () => selectRelative(-1), onNext: () => selectRelative(1) });
  // The two charts share one time axis: the same gutters, so their marker lines line up.
  const chartWords = Object.fromEntries(display.charts.map((c) => [c.id, c]));
  const seriesOf = (c) => c.series.map((x) => ({ ...SERIES_STYLE[x.key], key: x.key, label: x.label, short: x.short, axis: x.axis }));
  const AGREE = {
    title: chartWords.agree.title,
    xLabel: chartWords.agree.x_label,
    axes: { left: { label: chartWords.agree.axes.left, min: 0, max: 1 } },
    gutterRight: true,
    series: seriesOf(chartWords.agree),
  };
  const SPACE = {
    title: chartWords.space.title,
    xLabel: chartWords.space.x_label,
    axes: {
      left: { label: chartWords.space.axes.left, min: 0, auto: true, minMax: 4, pad: 0.1 },
      // the very-close share, read as its readout writes it (the session's Readout: scale 100, "%")
      right: { label: chartWords.space.axes.right, min: 0, max: 1,
               scale: readouts.spec("very_close").scale },
    },
    series: seriesOf(chartWords.space),
  };
  const chartAgree = new LineChart(agreeCanvas, { ...AGREE, onHoverMarker: (i) => highlightMarker(i) });
  const chartSpace = new LineChart(spaceCanvas, { ...SPACE, onHoverMarker: (i) => highlightMarker(i) });
  // The live strip: the same two charts, small, where they are seen with the stage (beside it on
  // a wide screen, right under it on a phone), so "watch the spacing trace" needs no scrolling.
  const liveAgree = el("canvas", { class: "swarm-live-chart swarm-live-agree" });
  const liveSpace = el("canvas", { class: "swarm-live-chart swarm-live-space" });
  const liveStrip = el("section", { class: "swarm-live", "aria-label": "Live charts: agreement and spacing (the full charts and readouts are under the stage)" },
    liveAgree, liveSpace, el("a", { class: "swarm-live-more", href: "#swarm-charts-title", text: "Readouts and full charts ↓" }));
  const compact = (c) => ({ ...c, compact: true, series: c.series.map((x) => ({ ...x, label: x.short })) });
  const miniAgree = new LineChart(liveAgree, compact(AGREE));
  const miniSpace = new LineChart(liveSpace, compact(SPACE));
  const narrow = window.matchMedia ? window.matchMedia(NARROW) : { matches: false, addEventListener() {} };
  const placeStrip = () => {
    if (narrow.matches) stage.after(liveStrip); else side.prepend(liveStrip);
    miniAgree.resize();
    miniSpace.resize();
  };
  placeStrip();
  narrow.addEventListener("change", placeStrip);
  // On a phone the running trial's box is taller than the space left under the stage, so the
  // rule switches go above it: a rule switched while the flock runs, with the stage and the
  // spacing trace still in view (SPEC, Lab 1 goals; "Take one rule away").  On a wide screen
  // they stay after it, where the box's question keeps its place beside the stage.
  const placeSwitches = () => {
    if (narrow.matches) trialNow.before(ruleSwitches); else trialNow.after(ruleSwitches);
  };
  placeSwitches();
  narrow.addEventListener("change", placeSwitches);

  // ---------------------------------------------------------------- controls from the specs
  const controlSets = [];
  const rowsBy = new Map();
  // minimal mode hides rows; a group whose rows are all hidden is hidden with them
  const syncGroups = () => {
    for (const det of controlsBox.querySelectorAll("details.swarm-group")) {
      det.hidden = [...det.querySelector(".swarm-group-body").children].every((c) => c.hidden);
    }
  };
  const mini = new MinimalControls(minimal, { onChange: syncGroups });
  let currentValues = { ...(state.params || {}) };
  for (const { group, names } of groupSpecs(specs, display.groups)) {
    const det = el("details", { class: `swarm-group swarm-group-${group.id}`, "data-group": group.id });
    det.open = !phone || group.id === "rules";
    det.append(el("summary", { text: group.title }));
    const body = el("div", { class: "swarm-group-body" });
    det.append(body);
    const set = buildControls(body, specs, {
      only: names,
      values: currentValues,
      apply: (name, value) => stepper.applying(applyLive(name, value)),
      onError: ctx.settingNotice,
    });
    for (const [name, r] of set.rows) {
      rowsBy.set(name, { set, row: r.row });
      const lab = r.row.querySelector("label");
      if (lab && r.spec.help) lab.title = r.spec.help;
      // minimal mode (?controls=minimal) hides the engine's advanced groups and settings until
      // "Show all settings" (ui/minimal.js) or a trial that uses them
      if (r.spec.advanced || group.advanced) mini.hide(r.row);
    }
    controlSets.push(set);
    if (group.id === "world") {
      // data-step: how many a press adds or removes (the access layer's answer reads it)
      const minus = el("button", { type: "button", class: "btn swarm-pop-minus", text: `Remove ${POP_STEP}`, "data-step": POP_STEP,
        "aria-label": `Remove ${POP_STEP}, the most recently added animals` });
      const plus = el("button", { type: "button", class: "btn swarm-pop-plus", text: `Add ${POP_STEP}`, "data-step": POP_STEP,
        "aria-label": `Add ${POP_STEP} animals` });
      // What a press did, in words, when it did less than asked (at the population's bounds:
      // "Already at the most animals, 2000."); the access layer speaks it, so it is only shown here.
      const popNote = el("span", { class: "swarm-pop-note", "aria-hidden": "true" });
      // A press is a setting on its way: a Restart waits for it (stepper.applying).  Its answer, the
      // engine's {N, added, removed}, is kept on the button for the spoken reply (ui/keys.js).
      const press = (button, by) => {
        button.pressed = stepper.applying(changePopulation({ by }).then((res) => {
          if (!res.ok) ctx.settingNotice(res.error, "N");
          const done = res.ok ? (by > 0 ? res.value.added : res.value.removed) : Math.abs(by);
          const bound = done > 0 ? ` ${res.value.N} is the ${by > 0 ? "most" : "fewest"}.` : "";  // (a part of the ten)
          popNote.textContent = done < Math.abs(by) ? popResultWords(res, Math.sign(by)) + bound : "";
          return res;
        }));
      };
      minus.addEventListener("click", () => press(minus, -POP_STEP));
      plus.addEventListener("click", () => press(plus, POP_STEP));
      const popRow = el("div", { class: "btn-row swarm-pop" }, minus, plus, popNote);
      mini.hide(popRow);
      const nRow = rowsBy.get("N")?.row;
      if (nRow) nRow.after(popRow); else body.append(popRow);
    }
    controlsBox.append(det);
  }
  const runGroup = controlsBox.querySelector(".swarm-group-run .swarm-group-body");
  const shareRow = el("div", { class: "btn-row swarm-share", role: "group", "aria-label": "Share and save" });
  const copyBtn = el("button", { type: "button", class: "btn swarm-copy", text: "Copy link" });
  const csvBtn = el("button", { type: "button", class: "btn swarm-csv", text: "Download CSV" });
  const pngBtn = el("button", { type: "button", class: "btn swarm-png", text: "Save image" });
  shareRow.append(copyBtn, csvBtn, pngBtn);
  (runGroup || controlsBox).append(shareRow); // the sample (a number box, from its spec) and sharing are not advanced
  const miniToggle = mini.toggle();
  if (miniToggle) controlsBox.append(miniToggle);
  syncGroups();

  // ---------------------------------------------------------------- page state
  let playing = !ctx.reducedMotion;
  let speed = 1;
  let frameBuf = new Float32Array(fx.offset);
  let frameLen = 0;
  const frame = createFrameInfo(fx);
  frame.threatRadius = THREAT_RADIUS;
  let frameCount = 0;
  // the settings this run started with that apply only at a restart (the session's run_values:
  // sample, start): the clock's sample and what a link that replays this run carries
  let runValues = state.run_values;
  let currentTrial = null;
  let atLimit = false;
  let lastClockText = "";
  const hist = new HistoryMirror();
  let markersShown = null;
  let highlighted = null;

  function allValues() {
    const v = { ...currentValues };
    for (const set of controlSets) for (const name of set.rows.keys()) v[name] = set.get(name);
    return v;
  }

  function syncControls(params) {
    if (!params) return;
    currentValues = { ...params };
    for (const set of controlSets) for (const name of set.rows.keys()) if (name in params) set.set(name, params[name]);
    applyDrawing(params);
  }

  function applyDrawing(params) {
    for (const [name, chip] of ruleChips) if (name in params) chip.setAttribute("aria-pressed", String(Boolean(params[name])));
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

  async function refreshState() {
    state = await engine.call(LAB, "state");
    runValues = state.run_values;
    return state;
  }

  // ---------------------------------------------------------------- actions
  async function applyLive(name, value) {
    if (name === "N") return changePopulation({ n: value });
    const res = await engine.tryCall(LAB, "set", { name, value });
    if (!res.ok) return res; // buildControls' onError says so, once
    value = res.value.value; // the engine's reading (a typed "1e3" is the sample 1000)
    currentValues[name] = value;
    applyDrawing({ [name]: value });
    if (res.value.notice) ctx.settingNotice(res.value.notice, name, "info"); // e.g. a sample used at the next Restart
    touch();
    return { ok: true, note: res.value.notice }; // (also at the control, until the next Restart)
  }

  /** The population to `{n}` (the N box) or changed `{by}` that many (Add / Remove: the
   *  engine adds each press to the population it has then, so quick presses all count). */
  async function changePopulation(change) {
    const res = await engine.tryCall(LAB, "population", change);
    if (!res.ok) return res;
    const n = res.value.N;
    currentValues.N = n;
    const r = rowsBy.get("N");
    if (r) r.set.set("N", n);
    touch();
    return res;
  }

  /** Something changed in the session: fetch a fresh frame, panel and chart samples. */
  function touch() {
    stepper.refresh();
  }

  async function afterRestart() {
    for (const set of controlSets) set.clearNotes(); // "… when you press Restart" has happened
    stepper.restart();
    newRun = true;
    atLimit = false;
    hideLimit();
    hist.clear();
    await refreshState();
    if (state.selected_index === null && state.N > 0) await engine.tryCall(LAB, "select", { index: 0 });
    syncControls(state.params);
    markTrial(state.trial); // the banner shows the session's trial, never the page's guess
    touch();
  }

  /** Restart: begin again with the settings on screen (Play/Pause kept).  Inside a trial
   *  the new run is still the trial's while the trial's own settings hold (the session
   *  decides, op_reset); otherwise it leaves the trial, and the banner says so. */
  async function restart() {
    // a setting still on its way to the engine (a sample typed, then Restart tapped at once)
    // is part of this restart: its answer fills the controls that allValues() reads
    await stepper.settingsSent();
    const values = allValues();
    delete values.N; // N is the population control: restart uses the slider value
    values.N = currentValues.N;
    const before = currentTrial;
    const engineRun = engine.restarts;
    const res = await engine.tryCall(LAB, "reset", values);
    // the engine's worker was replaced meanwhile (a rule stopped in another lab): this lab is
    // being built again from its link, which says so; this restart has nothing to report
    if (engine.restarts !== engineRun) return;
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return;
    }
    await afterRestart();
    if (before && !currentTrial && trialBy.has(before)) {
      const t = trialBy.get(before);
      const own = t.settings_text; // the trial's own settings in words (the session's)
      ctx.notify(`Restarted with the settings on screen. ` + (own
        ? `The trial “${t.title}” starts with ${own}, so this run is no longer that trial; its card starts it again.`
        : `This run is no longer the trial “${t.title}”; its card starts it again.`), "info");
    }
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
      // minimal mode: what the trial's next step asks for is on screen while it runs
      mini.reveal((t.uses || []).map((name) => rowsBy.get(name)?.row));
      trialNowTitle.textContent = `Trial: ${t.title}`;
      trialNowQ.textContent = t.question;
      trialNowNext.textContent = `Then: ${t.try_next || t.next || ""}`;
      const after = trials[trials.findIndex((x) => x.id === id) + 1];
      trialNowGo.hidden = !after;
      if (after) {
        trialNowGo.dataset.trial = after.id;
        trialNowGo.textContent = `Next trial: ${after.title} ↓`;
      }
    }
  }

  /** To the next trial's card: its question in view, focus on its Start button (which the
   *  question describes), so the student reads and predicts before starting it. */
  function goToTrial(id) {
    const card = trialCards.get(id);
    if (!card) return;
    card.scrollIntoView({ block: "center", behavior: ctx.reducedMotion ? "auto" : "smooth" });
    card.querySelector(".swarm-trial-start").focus({ preventScroll: true });
  }
  trialNowGo.addEventListener("click", () => goToTrial(trialNowGo.dataset.trial));

  /** How far to scroll so that the stage and the running trial's box below it are in view:
   *  the stage's top at the window's top; if the box is then cut off by no more than a
   *  quarter of the stage's height (stage, controls and box are 835 px on a desktop), the
   *  box's bottom just above the window's bottom instead.  On a phone, where the box is far
   *  below, the stage wins.  0: already in view (or within a pixel). */
  function stageScroll() {
    const h = window.innerHeight, s = stage.getBoundingClientRect();
    const b = trialNow.hidden ? null : trialNow.getBoundingClientRect();
    const fine = (!b || (b.top >= 0 && b.bottom <= h)) && s.top >= -0.25 * s.height && s.top <= h * 0.4;
    let d = s.top;
    if (b) {
      const need = b.bottom - (h - 8);
      if (need > d && need <= s.top + 0.25 * s.height) d = need;
    }
    return fine || Math.abs(d) <= 1 ? 0 : d;
  }

  /** After a trial is started from its card (often far down the page, on a phone far below
   *  the stage), bring the stage and the trial's question into view. */
  function showStage() {
    if (!trialNow.hidden) trialNow.focus({ preventScroll: true });
    if (ctx.embed && FRAMED) { // the window is the frame, maybe as tall as the page: the course page scrolls
      showInFrame(stage);
      return;
    }
    const d = stageScroll();
    if (!d) return;
    // Absolute positions (scrollTo), not scrollBy: Firefox adds a scrollBy made during a smooth
    // scroll to that scroll's destination, so the correction below took the page to its top.
    const most = document.documentElement.scrollHeight - window.innerHeight;
    const goal = Math.min(Math.max(0, window.scrollY + d), Math.max(0, most));
    if (ctx.reducedMotion) {
      window.scrollTo({ top: goal, behavior: "auto" });
      return;
    }
    window.scrollTo({ top: goal, behavior: "smooth" });
    // The target was measured before the scroll; the layout may still change while it runs
    // (the trial's readouts fill in): once it ends, correct what is left without animation.
    // (Firefox may fire a scrollend early, at a jump of the layout: only the end counts.)
    let done = false;
    const finish = (ev) => {
      if (done || (ev && Math.abs(window.scrollY - goal) > 2)) return;
      done = true;
      window.removeEventListener("scrollend", finish);
      const rest = stageScroll();
      if (rest) window.scrollTo({ top: window.scrollY + rest, behavior: "auto" });
    };
    window.addEventListener("scrollend", finish);
    setTimeout(finish, 1500); // (browsers without scrollend, or a scroll that never ends)
  }

  async function startTrial(id) {
    const res = await engine.tryCall(LAB, "restart_trial", { trial: id });
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return false;
    }
    await afterRestart();
    return true;
  }

  function setPlaying(on) {
    playing = on;
    playBtn.show(on);
    stepper.setPlaying(on);
    updateClock(); // the clock line changes (pace note)
  }

  function setSpeed(v) {
    speed = v;
    stepper.setSpeed(v);
    for (const b of speedBtns) b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === v));
  }

  function showLimit() {
    atLimit = true;
    setPlaying(false);
    limitBox.hidden = false; // announced by ui/access.js; focus stays where the student is
  }

  async function continueRun() {
    const res = await engine.tryCall(LAB, "continue");
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return;
    }
    atLimit = false;
    hideLimit();
    setPlaying(true);
  }

  /** Hide the five-minute note; focus on its Continue button moves to Play/Pause, next to it
   *  in the tab order, instead of being lost with the hidden button. */
  function hideLimit() {
    const had = limitBox.contains(document.activeElement);
    limitBox.hidden = true;
    if (had) playBtn.button.focus();
  }

  async function selectAt(x, y) {
    const before = frame.selected;
    // pick the nearest animal within the session's select radius, or 14 CSS px where the stage
    // is small (a fingertip on a phone covers several lengths there)
    const radius = Math.min(consts.select_radius_max, Math.max(consts.select_radius, 14 / renderer.scale));
    const res = await engine.tryCall(LAB, "select", { x, y, radius });
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return null;
    }
    // a tap on empty water keeps the current individual (the session would clear it)
    if (res.value.index === null && before >= 0 && before < frame.n) await engine.tryCall(LAB, "select", { index: before });
    touch();
    return res.value;
  }

  async function selectRelative(delta) {
    // (the engine moves from its own selection: presses quicker than the frames all count)
    const res = await engine.tryCall(LAB, "select", { by: delta });
    if (!res.ok) ctx.notify(res.error, "warn");
    touch();
  }

  async function turnOne() {
    const res = await engine.tryCall(LAB, "turn_one");
    if (!res.ok) ctx.notify(res.error, "warn");
    touch();
  }

  async function sendThreat() {
    const res = await engine.tryCall(LAB, "threat");
    if (!res.ok) ctx.notify(res.error, "warn");
    touch();
  }

  // ---------------------------------------------------------------- drawing
  function updateClock() {
    let text = `${formatClock(frame.t)} model time · sample ${runValues.sample}`;
    if (stepper.slowed) text += ` · slowed to ${fmtSpeed(speed * stepper.pace.ratio)}`;
    if (text !== lastClockText) {
      clockEl.textContent = text;
      lastClockText = text;
      section.dataset.step = String(frame.step);
    }
    setText(statusNow, statusText());
  }

  /** The status line: running (and at what speed), slowed, paused, or paused at five minutes. */
  function statusText() {
    if (atLimit) return `Paused at ${say(consts.time_limit_s / 60)} model minutes: Continue keeps everything.`;
    if (!playing) return ctx.reducedMotion && frame.step === 0 ? "Paused, because your system asks for reduced motion." : "Paused.";
    if (stepper.slowed) {
      return `Running, slowed to ${fmtSpeed(speed * stepper.pace.ratio)}: the device cannot keep up with ${fmtSpeed(speed)}; results are the same.`;
    }
    return `Running at ${fmtSpeed(speed)}.`;
  }

  function applyHistory(h) {
    if (!hist.apply(h)) return;
    chartAgree.setData(hist);
    chartSpace.setData(hist);
    miniAgree.setData(hist);
    miniSpace.setData(hist);
    updateMarkerList();
  }

  /** Readouts show the CURRENT state under the current settings (op_metrics): after a
   *  setting change they change at once, even while paused, before anything moves. */
  function updateReadouts(m) {
    readouts.show(m);
    setText(readoutAt, `Now, at ${formatClock(m.t)} model time. The charts sample every ${consts.sample_seconds} s.`);
    section.dataset.sampleT = String(m.t);
  }

  function updateMarkerList() {
    const key = hist.markers.map((m) => `${m.t}:${m.label}`).join("|");
    if (key === markersShown) return;
    markersShown = key;
    markerList.textContent = "";
    hist.markers.forEach((m, i) => {
      const b = el("button", { type: "button", class: "swarm-marker", "data-index": String(i), text: `${formatClock(m.t)} · ${m.label}` });
      b.addEventListener("focus", () => highlightMarker(i));
      b.addEventListener("click", () => highlightMarker(i)); // a tap (Safari does not focus a tapped button)
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

  // ---------------------------------------------------------------- the loop
  // One request a frame: the steps real time asks for, then what the page reads.
  // the readouts: at once after a change (n = 0: a refresh), else about four times a second
  const compose = (n) => frameOps(n, [["selected", {}], hist.op()], { metrics: stepper.readsDue(n) });

  // one reply's parts, by op (the handlers are made once, not at every reply)
  let replySelected = null, replyHistory = null; // (not `history`: the window's)
  const handlers = {
    selected: (v) => { replySelected = v; },
    history: (h) => { replyHistory = h; },
    metrics: updateReadouts,
  };
  const replyError = (error) => ctx.notify(error, "warn");
  function apply(reply) {
    replySelected = null;
    replyHistory = null;
    eachResult(reply, handlers, replyError);
    frameBuf = reply.frame;
    frameLen = reply.length;
    parseFrame(fx, frameBuf, frameLen, frame, DT, obstacleNames);
    if (newRun) { renderer.trails.clear(); newRun = false; }
    frameCount++;
    if (frame.atLimit && !atLimit) showLimit(); // reached by any route (e.g. a test stepping the engine)
    drawStage();
    panel.setInfo(replySelected && replySelected.index !== undefined ? replySelected : null);
    panel.draw(frameBuf, frame);
    if (replyHistory) applyHistory(replyHistory);
  }

  function drawStage() {
    renderer.trails.record(frameBuf, frame);
    renderer.draw(frameBuf, frame);
    updateClock();
  }

  function redraw() {
    if (!frameLen) return;
    renderer.draw(frameBuf, frame);
    panel.draw(frameBuf, frame);
  }

  const stepper = new Stepper({
    engine, lab: LAB, dt: DT, compose, apply, name: "The simulation", notify: ctx.notify,
    onCrash: () => setPlaying(false),
  });
  let newRun = true;
  function tick(dt) { stepper.tick(dt); }
  const loop = createLoop(tick);

  // ---------------------------------------------------------------- wiring
  playBtn.button.addEventListener("click", () => {
    if (atLimit) { showLimit(); return; }
    setPlaying(!playing);
  });
  restartBtn.addEventListener("click", () => stepper.track(restart()));
  trialRestartBtn.addEventListener("click", () => currentTrial && stepper.track(startTrial(currentTrial)));
  for (const b of speedBtns) b.addEventListener("click", () => setSpeed(Number(b.dataset.speed)));
  turnBtn.addEventListener("click", () => stepper.track(turnOne()));
  threatBtn.addEventListener("click", () => stepper.track(sendThreat()));
  continueBtn.addEventListener("click", () => stepper.track(continueRun()));
  stageCanvas.addEventListener("click", (ev) => {
    const rect = stageCanvas.getBoundingClientRect();
    const p = renderer.viewToModel(ev.clientX - rect.left, ev.clientY - rect.top);
    stepper.track(selectAt(p.x, p.y));
  });
  stageCanvas.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowRight") { ev.preventDefault(); stepper.track(selectRelative(1)); }
    if (ev.key === "ArrowLeft") { ev.preventDefault(); stepper.track(selectRelative(-1)); }
  });
  // (a link, or a promise of one while a setting is on its way: copyLink asks for the clipboard
  // within the click either way)
  copyBtn.addEventListener("click", () => copyLink(stepper.whenSettled(linkUrl), copyBtn, () => copiedWords(hist.changedDuringRun, "setting changes, a threat, a turned individual")));
  csvBtn.addEventListener("click", downloadCsv);
  pngBtn.addEventListener("click", saveImage);
  if (typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => { renderer.resize(); redraw(); }).observe(stage);
  }
  const offLook = onLookChange(redraw);

  /** The share link: what the session says a link carries (its op_link: the live settings
   *  with the run's own sample and start, and the trial only while those hold it). */
  const linkUrl = () => linkOf(engine, LAB, specs);

  function fileStem() {
    const t = Math.floor(frame.t);
    return `swarm-lab-sample${runValues.sample}-${Math.floor(t / 60)}m${String(t % 60).padStart(2, "0")}s`;
  }

  async function downloadCsv() {
    const res = await engine.tryCall(LAB, "csv");
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      return;
    }
    const text = typeof res.value === "string" ? res.value : res.value.csv;
    download(new Blob([text], { type: "text/csv;charset=utf-8" }), `${fileStem()}.csv`);
  }

  function saveImage() {
    redraw();
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
    const title = `${ctx.name} · ${formatClock(frame.t)} model time · sample ${runValues.sample}` +
      (currentTrial && trialBy.has(currentTrial) ? ` · trial: ${trialBy.get(currentTrial).title}` : "");
    g.fillText(title, pad, pad + head / 2 - 2);
    g.drawImage(stageCanvas, pad, pad + head);
    const y2 = pad + head + sh + pad;
    g.drawImage(agreeCanvas, pad, y2, cw, ch1);
    g.drawImage(spaceCanvas, pad + cw + pad, y2, cw, ch2);
    out.toBlob((blob) => blob && download(blob, `${fileStem()}.png`), "image/png");
  }

  // ---------------------------------------------------------------- start
  const query = await readQuery(engine, LAB, ctx.params);
  ctx.notifyMany(`${ctx.name}: settings in this link`, query.notices || []);
  // Rules in Python travel in links to the labs with an editor (ui/rules.js), not to this one
  // (also a link pasted into the open tab, which changes only the fragment).
  const noRulesHere = () => {
    if (!transport.isConnected) return void window.removeEventListener("hashchange", noRulesHere); // rebuilt
    if (linkCode() !== null && !section.hidden) {
      ctx.notify(`This link carries rules in Python, but the ${ctx.name} has no rules editor, so they are ignored.`, "info",
        { id: "swarm-link-code" });
    }
  };
  noRulesHere();
  window.addEventListener("hashchange", noRulesHere);
  const trialId = ctx.params.get("trial");
  let started = false;
  if (trialId) {
    if (trialBy.has(trialId)) {
      // the session starts it: the defaults, the trial's settings, then the link's other
      // settings, leaving out any that contradict the trial (the trial the link names wins)
      const res = await engine.tryCall(LAB, "start_trial", { ...query.values, trial: trialId });
      if (res.ok) {
        started = true;
        if (res.value.left_out) ctx.notify(`This link starts a trial. ${res.value.left_out}`, "info");
      } else ctx.notify(res.error, "warn");
    } else {
      ctx.notify(`There is no trial called “${trialId}”. Choose one of: ${trials.map((t) => t.id).join(", ")}.`, "warn");
    }
  }
  if (!started) {
    const res = await engine.tryCall(LAB, "reset", query.values || {});
    if (!res.ok) {
      ctx.notify(res.error, "warn");
      await engine.call(LAB, "reset", {});
    }
  }
  setPlaying(playing);
  if (ctx.reducedMotion) ctx.saidStartsPaused();
  await afterRestart(); // its refresh asks for the first frame (and the readouts) ...
  await stepper.idle(); // ... which is on screen before the lab is shown as ready

  return {
    /** Let go of the page's listeners (app.js, when this lab is built afresh). */
    dispose() { offLook(); },
    activate() {
      renderer.resize();
      chartAgree.resize();
      chartSpace.resize();
      miniAgree.resize();
      miniSpace.resize();
      panel.resize();
      redraw();
      loop.start();
    },
    deactivate() {
      loop.stop();
    },
    // used by the browser tests (tests/browser/test_swarm*.py)
    test: {
      /** Run the page's own frame step with a given real dt; resolves when its reply is drawn. */
      tick: async (dt) => { stepper.tick(dt); await stepper.idle(); },
      stepper,
      settle: () => stepper.settle(),
      stopLoop: () => loop.stop(),
      startLoop: () => loop.start(),
      get playing() { return playing; },
      setPlaying,
      setSpeed,
      get speed() { return speed; },
      setFrameBudget: (ms) => { stepper.budget.overrideMs = ms; },
      get msPerStep() { return stepper.budget.msPerStep; },
      get frame() { return { ...frame }; },
      transform: (x, y) => {
        const p = renderer.modelToView(x, y);
        const r = stageCanvas.getBoundingClientRect();
        return { x: p.x + r.left, y: p.y + r.top };
      },
      restart,
      startTrial,
      linkUrl,
      render: () => stepper.settle(),
      get history() { return hist; },
      charts: [chartAgree, chartSpace],
    },
  };
}
