// Lab 2, "Few turns, one direction": the Vicsek alignment model in the page.
//
// The Python session (app/swarmlab/sessions/vicsek.py) owns the model; this module
// builds the page, runs the display loop and drives the session:
//   * the stage advances at a steady, readable rate (updates per second, default 6)
//     through the one page stepper (ui/stepper.js): at most one update per request, with
//     its frame; between updates arrows are drawn along their straight step
//     (interpolation, see vicsek/stage.js);
//   * the eight-seed check starts by itself once the first frames are on screen and
//     rides on the same requests, in chunks sized to the frame budget (vicsek/check.js);
//   * hidden page: createLoop stops calling tick, so everything freezes;
//     prefers-reduced-motion: the stage starts paused (the check still runs).
//
// The controller returned by mount() also offers play/pause/step/restart/select/settle,
// which the browser tests use (window.swarmlab.labs.get("vicsek")).

import { createLoop } from "../ui/loop.js";
import { Stepper } from "../ui/stepper.js";
import { openLab, PlayButton, Readouts, readoutRowHtml, frameOps, eachResult } from "../ui/run.js";
import { frameStep } from "../ui/frame.js";
import { HistoryMirror } from "../ui/history.js";
import { onLookChange, projectorColours } from "../ui/look.js";
import { LineChart, SERIES_STYLE, levelOf } from "../ui/chart.js";
import { buildControls } from "../ui/controls.js";
import { readQuery, linkOf, copyLink, copiedWords } from "../ui/share.js";
import { Stage } from "./vicsek/stage.js";
import { headingWheel } from "../ui/heading.js";
import { CheckRunner, renderTable, renderDotPlot } from "./vicsek/check.js";
import { steps, ruleHtml, checkIntroHtml, NOTES_HTML, headerHtml, checkName } from "./vicsek/text.js";
import { plural, capital, say, setText, tabListMove } from "../ui/dom.js";
import { mountRules, preloadEditor } from "../ui/rules.js";
import { MinimalControls } from "../ui/minimal.js";

const LAB = "vicsek";
const MIN_CHECK_MS = 3;
const CHECK_MAX_MS = 60;
const CHECK_AFTER_TICKS = 6;  // start the check once the first frames are drawn
const PICK_TOLERANCE_PX = 26;
const TAP_SLOP_PX = 10; // a pointer that moved further between down and up dragged, not tapped

/** The page's HTML; its numbers (R, the kick, the random level) and readout labels come from
 *  the session: `c` its constants, `display` its readouts and the P plot's words; `name` is the
 *  lab's short name (its tab's).  The controls are built from the session's specs below. */
const layoutHtml = (c, { readouts, charts: [plot] }, name) => `${headerHtml(c)}
  <div class="vk-layout">
    <div class="vk-main">
      <div class="stage vk-stage">
        <canvas class="vk-canvas" tabindex="0" role="img"
          data-access-label="${name} stage: ${c.n} arrows moving in a square with wrapping edges. Tap an arrow to follow it."
          aria-label="${c.n} arrows moving in a square with wrapping edges. Tap an arrow to follow it; arrow keys pick the next arrow, Escape stops following, Space plays or pauses."></canvas>
      </div>
      <ul class="legend vk-legend" aria-label="What the stage shows">
        <li><span class="swatch vk-sw-wheel"></span>arrow colour = its heading</li>
        <li><span class="swatch vk-sw-followed"></span>followed arrow</li>
        <li><span class="swatch vk-sw-circle"></span>its neighbourhood (R = ${c.radius} of the box side) and the arrows in it</li>
        <li><span class="swatch vk-sw-wedge"></span>where its next random nudge can point it (±${c.kick} rad)</li>
      </ul>
      <p class="stage-caption vk-caption"></p>
    </div>
    <div class="vk-side">
      <div class="controls vk-controls">
        <h3>Controls</h3>
        <div class="vk-knob"></div>
        <div class="btn-row vk-transport">
          <button type="button" class="btn primary vk-play"></button>
          <button type="button" class="btn vk-step">Step</button>
          <button type="button" class="btn vk-restart" data-seed="${c.seed}" title="Replay seed ${c.seed} from its start, with the same random nudges">Restart</button>
        </div>
        <div class="vk-rate"></div>
        <div class="readouts vk-readouts">
          ${readouts.map((r) => readoutRowHtml(r, "vk")).join("\n          ")}
        </div>
        <figure class="vk-plot-fig">
          <canvas class="vk-pplot" role="img" aria-label="${plot.title}, with the ${c.baseline.toFixed(2)} level of random headings dashed"></canvas>
          <figcaption>${plot.title}. Dashed: ${plot.baseline}.</figcaption>
        </figure>
        <p class="vk-follow"><span class="vk-follow-who" aria-live="polite">Tap an arrow to follow it.</span> <span class="vk-follow-count"></span></p>
        <div class="btn-row">
          <button type="button" class="btn vk-copy">Copy link</button>
        </div>
      </div>
      <div class="panel vk-steps">
        <div class="vk-steptabs" role="tablist" aria-label="Three steps"></div>
        <div class="vk-steppanels"></div>
      </div>
    </div>
    <div class="panel explain vk-rule"></div>
  </div>
  <div class="vk-below">
    <section class="panel vk-check" aria-labelledby="vk-check-h">
      <h2 id="vk-check-h">${capital(checkName(c))}: <var>a</var> = 0 against <var>a</var> = 1</h2>
      <div class="vk-check-intro"></div>
      <div class="vk-check-status">
        <progress class="vk-progress" max="1" value="0" aria-label="${capital(checkName(c))} progress"></progress>
        <span class="vk-progress-text">Waiting for the stage to start…</span>
      </div>
      <p class="vk-sr vk-check-announce" role="status"></p>
      <div class="vk-check-body" hidden>
        <div class="vk-check-grid">
          <div class="vk-table-wrap"><table class="vk-table"></table></div>
          <div class="vk-dots"></div>
        </div>
        <p class="vk-check-summary"></p>
      </div>
      <p class="vk-check-error" hidden></p>
    </section>
    <div class="panel explain vk-notes"></div>
  </div>`;

export async function mount(section, ctx) {
  preloadEditor(); // the rules panel's editor loads while the lab asks for its specs and first state
  // (display: readouts, the P plot's words and the rate's spec, from the session)
  const { engine, specs, fx, consts, display, minimal } = await openLab(ctx, LAB, "assets/css/vicsek.css");

  // settings from the page URL (share links), read leniently by the session
  const { values: urlValues, notices } = await readQuery(engine, LAB, ctx.params);
  ctx.notifyMany(`${ctx.name}: settings in this link`, notices);
  let st = await engine.call(LAB, "reset", urlValues);
  const N = st.n;

  section.innerHTML = layoutHtml(consts, display, ctx.name);
  section.classList.add("vk");
  const $ = (sel) => section.querySelector(sel);
  const showWheel = () => { $(".vk-sw-wheel").style.background = headingWheel(projectorColours()); };
  showWheel(); // the stage's colours, direction by direction (in the palette the stage draws with)
  // (the stage and its legend follow the page's look: see onLookChange below)
  $(".vk-check-intro").innerHTML = checkIntroHtml(consts);
  $(".vk-rule").innerHTML = ruleHtml(consts);
  $(".vk-notes").innerHTML = NOTES_HTML;
  const mini = new MinimalControls(minimal);
  mini.hide($(".vk-rate"));
  const miniToggle = mini.toggle();
  if (miniToggle) $(".vk-rate").after(miniToggle);

  const canvas = $(".vk-canvas");
  const stage = new Stage(canvas, N, { box: consts.box, radius: consts.radius, speed: consts.speed, kick: consts.kick });
  const hist = new HistoryMirror(); // the session's P history (op_history), drawn by the plot
  // the P plot: the charts' one LineChart, as a strip of the last `window` updates with the level
  // of random headings (its words: the session's display.charts[0] and the figure's caption)
  const pplot = $(".vk-pplot");
  const words = display.charts[0];
  const plot = new LineChart(pplot, {
    compact: true, axisTitles: true, legend: false, window: words.window, xFormat: String, xLabel: words.x_label,
    ariaLabel: pplot.getAttribute("aria-label"), markerColor: "rgba(20, 32, 43, 0.45)",
    axes: { left: { label: words.axes.left, min: 0, max: 1, ticks: 2 } },
    series: words.series.map((x) => ({ ...SERIES_STYLE[x.key], key: x.key, label: x.label, axis: x.axis, width: 1.5 })),
    levels: [levelOf(words, consts)],
    markerLabels: true, lastPoint: true,
  });

  // ---- model state mirrored in the page ----
  let t = st.t;
  let lastIngestT = -1;
  let P = st.P;
  // one arrow is followed from the start, so its circle and wedge are on screen: the one the
  // session names, nearest the middle (arrow 1 started in a corner, its circle cut in four)
  let selected = consts.follow;
  let neighbourCount = 0;

  /** Put a frame on the stage. `fresh` = a new run (restart): the trail starts over. */
  function ingestFrame(data, fresh = false) {
    t = frameStep(fx, data, consts.dt);
    if (!fresh && t === lastIngestT) return; // the same update again (a reply with no step)
    stage.ingest(data, fx, !fresh && t === lastIngestT + 1);
    lastIngestT = t;
  }

  const elFollowWho = $(".vk-follow-who"), elFollowCount = $(".vk-follow-count");

  /** Show the followed arrow's neighbourhood (`nb`, the reply of op_neighbours, or null). */
  function showSelection(nb) {
    if (selected < 0 || !nb) {
      stage.setSelection(-1);
      neighbourCount = 0;
    } else {
      stage.setSelection(selected, nb.neighbours, nb.turn_to ?? NaN); // (none while a student's rule runs)
      neighbourCount = nb.neighbours.length;
    }
    section.dataset.selected = String(selected);
    section.dataset.neighbours = String(neighbourCount);
    // only the "who" part is a live region, and text is written only when it changes,
    // so a screen reader hears a new selection, not every update's neighbour count
    setText(elFollowWho, selected < 0 ? "Tap an arrow to follow it." : `Following arrow ${selected + 1} of ${N}.`);
    setText(elFollowCount, selected < 0 ? ""
      : `${plural(neighbourCount, "other arrow", "other arrows")} in its circle.` +
        (nb && nb.turn_to === null ? " (No nudge wedge while your rules run: it shows the original rule's turn.)" : ""));
  }

  const readouts = new Readouts($(".vk-readouts"), display.readouts);
  function showReadouts() {
    readouts.show({ P, t });
    section.dataset.t = String(t);
  }



  // ---- controls ----
  const knob = buildControls($(".vk-knob"), specs, {
    only: ["a"],
    values: { a: st.params.a },
    apply: (name, v) => stepper.applying(applyKnob(name, v)), // a Restart waits for it
    onError: ctx.settingNotice,
  });
  async function applyKnob(name, v) {
    const res = await engine.tryCall(LAB, "set", { name, value: v });
    if (res.ok) stepper.invalidate(); // the followed arrow's turn and the chart's marker, at once
    return res;
  }

  // the playback rate: a viewing speed only, built from the session's spec (display.rate) like
  // every control, but applied here: the model and its history are the same at any rate
  let rate = display.rate.default;
  buildControls($(".vk-rate"), [display.rate], {
    apply: (name, v) => { rate = v; stepper.setSpeed(rate); return { ok: true }; },
  });

  // ---- playback ----
  let playing = !ctx.reducedMotion;
  let s = 1;          // interpolation fraction of the move on screen
  let anim = false;   // finishing a move while paused (Step, or Pause mid-move)
  let dirty = true;
  let plotDirty = true;
  let ticks = 0;
  const playBtn = new PlayButton($(".vk-play"), section, "the stage");
  const showPlaying = () => playBtn.show(playing);

  function play() {
    if (playing) return;
    playing = true;
    anim = false;
    stepper.setPlaying(true);
    // continue from where the arrows are on screen: a finished move starts the next update at once
    stepper.clock.carry = s >= 1 ? 0.999999 : s;
    showPlaying();
  }
  function pause() {
    if (!playing) return;
    playing = false;
    stepper.setPlaying(false);
    anim = !ctx.reducedMotion && s < 1;
    if (!anim) s = 1;
    dirty = true;
    showPlaying();
  }
  async function stepButton() {
    if (playing) pause();
    await updates(1);
    if (ctx.reducedMotion) { s = 1; anim = false; } else { s = 0; anim = true; }
  }
  /** n updates now, one request each (so the trail gets every update); resolves to the P after each. */
  async function updates(n) {
    await stepper.idle();
    const ps = [];
    for (let j = 0; j < n; j++) {
      const reply = await stepper.send(0, [["step", { n: 1 }]]);
      if (!reply) break;
      ps.push(reply.results[0].value.P);
    }
    return ps;
  }
  async function restart() {
    await stepper.idle();
    await stepper.settingsSent(); // (a change's settle, registered first, sets knob.get)
    st = await engine.call(LAB, "reset", { a: knob.get("a") });
    P = st.P;
    hist.clear();
    plotDirty = true;
    fresh = true; // never join the new start to the old run's trail
    stepper.restart();
    s = 1;
    anim = false;
    await stepper.send(0);
  }

  playBtn.button.addEventListener("click", () => (playing ? pause() : play()));
  $(".vk-step").addEventListener("click", () => stepper.track(stepButton()));
  $(".vk-restart").addEventListener("click", () => stepper.track(restart()));
  /** A link to this run: its knob's value (the rate is a viewing speed, not the run's). */
  const linkUrl = () => linkOf(engine, LAB, specs); // what the session says a link carries (op_link)
  $(".vk-copy").addEventListener("click", () => {
    copyLink(stepper.whenSettled(linkUrl), $(".vk-copy"), () => copiedWords(hist.changedDuringRun));
  });

  // ---- selection: tap / click / keyboard ----
  function select(i) {
    selected = Number.isInteger(i) && i >= 0 && i < N ? i : -1;
    showSelection(null);
    dirty = true;
    stepper.invalidate();
    // (a followed arrow reaches the engine with its neighbourhood's read each frame; none
    // followed is said once, so the spoken summary stops naming the last one)
    const none = selected < 0 ? [["select", {}]] : null;
    return stepper.track(stepper.idle().then(() => stepper.send(0, none)));
  }
  // A tap or click picks (not a finger put down: on a phone a swipe that starts on the stage
  // scrolls the page, and must not follow another arrow or stop following).  The arrow is the
  // one under the pointer when it went down (the press may scroll a half-hidden stage into
  // view as it takes the focus), and a pointer that moved on the way is no tap.
  let pressed = null; // {i, x, y}: the arrow picked at pointerdown, and where (screen px)
  canvas.addEventListener("pointerdown", (ev) => {
    const tol = ev.pointerType === "touch" ? PICK_TOLERANCE_PX * 1.4 : PICK_TOLERANCE_PX;
    pressed = { i: stage.pick(ev.clientX, ev.clientY, tol), x: ev.screenX, y: ev.screenY };
  });
  canvas.addEventListener("pointercancel", () => { pressed = null; }); // the browser scrolled instead
  canvas.addEventListener("click", (ev) => {
    const p = pressed;
    pressed = null;
    if (!p || ev.detail === 0 || Math.hypot(ev.screenX - p.x, ev.screenY - p.y) > TAP_SLOP_PX) return;
    select(p.i);
  });
  /** Follow the next (delta 1) or previous (-1) arrow of the N, wrapping round; from none
   *  followed, the first or the last.  The stage's arrow keys and the access bar's buttons. */
  function followBy(delta) {
    return select(selected < 0 ? (delta > 0 ? 0 : N - 1) : (selected + delta + N) % N);
  }
  canvas.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowRight" || ev.key === "ArrowDown") followBy(1);
    else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") followBy(-1);
    else if (ev.key === "Escape") select(-1);
    else if (ev.key === " ") (playing ? pause() : play());
    else return;
    ev.preventDefault();
  });

  // ---- the three steps ----
  const STEPS = steps(consts);
  const tabs = $(".vk-steptabs"), panels = $(".vk-steppanels");
  const tabButtons = [];
  const stepPanels = [];
  STEPS.forEach((step, k) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "vk-steptab";
    b.id = `vk-tab-${step.key}`;
    b.setAttribute("role", "tab");
    b.setAttribute("aria-controls", `vk-panel-${step.key}`);
    b.innerHTML = `<span class="vk-stepnum">${k + 1}</span> ${step.title}`;
    b.addEventListener("click", () => showStep(k));
    b.addEventListener("keydown", (ev) => {
      const j = tabListMove(ev.key, k, STEPS.length);
      if (j !== null) { ev.preventDefault(); showStep(j); tabButtons[j].focus(); }
    });
    tabs.append(b);
    tabButtons.push(b);
    const p = document.createElement("div");
    p.className = "vk-steppanel explain";
    p.id = `vk-panel-${step.key}`;
    p.setAttribute("role", "tabpanel");
    p.setAttribute("aria-labelledby", b.id);
    p.innerHTML = `<h3>Step ${k + 1}: ${step.title}</h3>${step.html}`;
    if (k < STEPS.length - 1) {
      const next = document.createElement("button");
      next.type = "button";
      next.className = "btn vk-next";
      next.textContent = `Next: ${STEPS[k + 1].title} →`;
      next.addEventListener("click", () => { showStep(k + 1); tabButtons[k + 1].focus(); });
      p.append(next);
    }
    panels.append(p);
    stepPanels.push(p);
  });
  function showStep(k) {
    tabButtons.forEach((b, j) => {
      b.setAttribute("aria-selected", String(j === k));
      b.tabIndex = j === k ? 0 : -1;
    });
    stepPanels.forEach((p, j) => { p.hidden = j !== k; });
  }
  showStep(0);

  // ---- the eight-seed check ----
  const progress = $(".vk-progress"), progressText = $(".vk-progress-text"), announce = $(".vk-check-announce");
  let checkResult = null;
  let dotsWidth = 0;
  function drawDots() {
    const w = $(".vk-dots").clientWidth;
    if (!checkResult || w === 0 || Math.abs(w - dotsWidth) < 24) return;
    dotsWidth = w;
    renderDotPlot($(".vk-dots"), checkResult, consts.baseline);
  }
  const check = new CheckRunner({
    onProgress(p) {
      progress.value = p;
      setText(progressText, `Running the ${2 * consts.seeds.length} runs in the background: ${Math.floor(100 * p)}%`);
      if (section.dataset.check !== "running") {
        section.dataset.check = "running";
        setText(announce, `The ${checkName(consts)} is running in the background.`);
      }
    },
    onDone(result, info) {
      progress.value = 1;
      $(".vk-check-status").hidden = true;
      renderTable($(".vk-table"), result, consts);
      checkResult = result;
      $(".vk-check-body").hidden = false;
      dotsWidth = 0;
      drawDots();
      const m = result.shown.mean; // the means as the session writes them
      $(".vk-check-summary").innerHTML =
        `With <var>a</var> = 0 the ${say(consts.seeds.length)} seeds average P = ${m.a0}, close to the ${consts.baseline.toFixed(2)} of random headings. ` +
        `With <var>a</var> = 1 they average P = ${m.a1}: the same start and the same nudges, ` +
        `and only the alignment turned on. ` +
        `<span class="vk-muted">(Done in ${(info.elapsedMs / 1000).toFixed(1)} s, in ${info.calls} short turns between ` +
        "the stage's pictures, so the stage never had to wait for it.)</span>";
      setText(announce, `The ${checkName(consts)} is done: mean P ${m.a0} with a = 0 and ${m.a1} with a = 1. The table follows.`);
      section.dataset.check = "done";
      section.dataset.checkMaxMs = info.maxCallMs.toFixed(1);
      section.dataset.checkUnitMs = (info.unitMs || 0).toFixed(2);
      section.dataset.checkMs = info.elapsedMs.toFixed(0);
    },
    onError(message) {
      const e = $(".vk-check-error");
      e.textContent = `The ${checkName(consts)} stopped: ${message}`;
      e.hidden = false;
      $(".vk-check-status").hidden = true;
      setText(announce, `The ${checkName(consts)} stopped with an error.`);
      section.dataset.check = "error";
    },
  });
  section.dataset.check = "idle";

  // ---- the loop: one request a frame (the update real time asks for, the followed
  // arrow's neighbourhood, and a chunk of the eight-seed check) ----
  let fresh = true;
  let checkOps = [];
  function compose(n, extra = null) {
    const reads = [hist.op()];
    if (selected >= 0) reads.push(["neighbours", { i: selected }]);
    // The check works in the engine worker, so it can take more than a frame's time: the
    // page keeps drawing meanwhile, and the stage needs an update only every 1/rate s.
    // Its chunk follows the measured frame interval (a slow display gets larger chunks, so
    // work per second does not collapse), capped so a click is answered within ~60 ms.
    checkOps = check.ops(Math.max(MIN_CHECK_MS, Math.min(CHECK_MAX_MS, 3 * stepper.budget.frameMs)));
    return [...(extra || []), ...frameOps(n, reads), ...checkOps];
  }
  const ingestCheck = (_, op, r) => check.ingest(op, r);
  const handlers = { // (made once, not at every reply)
    step: (v) => { P = v.P; },
    history: (h) => { if (hist.apply(h)) plotDirty = true; },
    neighbours: (nb) => showSelection(nb || null),
    check_start: ingestCheck, check_advance: ingestCheck, check_result: ingestCheck,
  };
  const replyError = (error, op, r) => {
    if (op[0].startsWith("check_")) check.ingest(op, r);
    else if (op[0] === "neighbours") showSelection(null);
    else ctx.notify(error, "warn");
  };
  function apply(reply) {
    eachResult(reply, handlers, replyError);
    if (selected < 0) showSelection(null);
    ingestFrame(reply.frame, fresh);
    fresh = false;
    showReadouts();
    dirty = true;
  }
  const stepper = new Stepper({
    engine, lab: LAB, dt: consts.dt, maxSteps: 1, compose, apply, // dt: one update (the session's clock)
    name: "The stage", notify: ctx.notify, onCrash: pause,
    onRestart: () => { if (check.busy) check.start(check.mode); }, // the check went with the old worker
  });
  // one "model second" = one update, so the playback speed is the update rate
  stepper.speed = rate;
  stepper.playing = playing;

  function tick(dt) {
    ticks++;
    if (check.state === "idle" && ticks >= CHECK_AFTER_TICKS) check.start("batched");
    if (check.busy) stepper.invalidate();
    stepper.tick(dt);
    if (playing) {
      s = Math.min(1, stepper.clock.carry);
      dirty = true;
    } else if (anim) {
      s += dt * Math.max(rate, 4);
      if (s >= 1) { s = 1; anim = false; }
      dirty = true;
    }
    if (dirty) { stage.draw(s); dirty = false; }
    if (plotDirty) { plot.setData(hist); plotDirty = false; }
  }
  const loop = createLoop(tick);

  const ro = typeof ResizeObserver !== "undefined" ? new ResizeObserver(() => {
    stage.resize();
    dirty = true;
  }) : null;  // (the plot, a LineChart, follows its own canvas's size)
  if (ro) ro.observe(canvas);
  const offLook = onLookChange(() => { showWheel(); dirty = true; });
  // the dot plot is drawn at 1:1 scale for its width (legible text on a phone): redraw on resize
  const roDots = typeof ResizeObserver !== "undefined" ? new ResizeObserver(drawDots) : null;
  if (roDots) roDots.observe($(".vk-dots"));

  // ---- the rules in Python (ui/rules.js): the turn the model runs, editable ----
  const rulesPanel = await mountRules($(".vk-below"), {
    engine, lab: LAB, stepper, notify: ctx.notify, embed: ctx.embed,
    shareLink: linkUrl,
    clock: readouts.spec("t"),  // the update count, as the readout shows it
    agents: "arrows",
  }).catch((err) => { ctx.notify(`The turn in Python could not start: ${err.message || err}`, "error"); return null; });

  // first picture
  await stepper.send(0);
  showPlaying();
  // how the stage is drawn is said with or without reduced motion: Play still slides the arrows
  const about = `Seed ${consts.seed}, ${N} arrows. The dashed border is where the edges wrap. Between two updates each arrow is drawn sliding along the straight step the model moved it.`;
  $(".vk-caption").textContent = ctx.reducedMotion
    ? `Paused at the start because your device asks for reduced motion. Press Play to run, or Step to take one update at a time. ${about}`
    : about;

  return {
    /** Let go of the page's listeners (app.js, when this lab is built afresh). */
    dispose() { offLook(); },
    activate() {
      stage.resize();
      plot.resize();
      dirty = true;
      plotDirty = true;
      loop.start();
    },
    deactivate() {
      loop.stop();
    },
    stepper, // app.js disposes it when the engine's worker is replaced and this lab is rebuilt
    // --- used by the browser tests (and handy in the console) ---
    rules: rulesPanel,
    play,
    pause,
    restart,
    select,
    follow: followBy,
    get playing() { return playing; },
    get selected() { return selected; },
    get t() { return t; },
    /** Run n updates now (paused), each through op_step(1); resolves to the P after each. */
    async run(n) {
      pause();
      const ps = await updates(n);
      s = 1;
      anim = false;
      stage.draw(s);
      plot.setData(hist);
      dirty = plotDirty = false;
      return ps;
    },
    /** Wait for pending engine work to be on screen, finish the move (s = 1) and draw. */
    async settle() {
      await stepper.settle();
      s = 1;
      anim = false;
      stage.draw(s);
      dirty = false;
    },
    /** Set the alignment knob as the slider does. */
    async setA(v) {
      const res = await engine.tryCall(LAB, "set", { name: "a", value: v });
      if (res.ok) { knob.set("a", v); await select(selected); }
      return res;
    },
    clientPoint: (i) => stage.clientPoint(i),
    get history() { return hist; },
    stage,
    check,
  };
}
