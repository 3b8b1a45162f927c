// Lab 3 page: "Three rules" (classic Reynolds boids).
//
// The Python session (app/swarmlab/sessions/boids.py) owns the model; this module
// builds the page, runs the display loop and drives the session:
//   * the world is sized to the stage canvas (constant area 16,000 lengths², so the
//     density, hence the behaviour, does not depend on the screen) and follows
//     canvas resizes live (op_resize stretches positions, nothing restarts);
//   * the one page stepper (ui/stepper.js) turns the real time since the last frame into
//     WHOLE model steps and asks the engine (in its worker) for them with the frame and
//     the chart's new samples; if the engine cannot keep up (thousands of boids) the page
//     drops the backlog and runs in slow motion, and says so, rather than freezing.  The
//     main thread never waits for Python, so input stays immediate at any setting;
//   * the treat: a held pointer (mouse, touch or pen; pointer capture, touch-action
//     none so the page does not scroll) or Enter/Space on the focused stage at a
//     keyboard cursor moved with the arrow keys.  op_treat on press/move, off on release;
//   * hidden page: createLoop stops ticking, so the model freezes;
//     prefers-reduced-motion: the page starts paused.
//
// Files: this controller wires the page; boids/text.js holds the markup and words,
// boids/stage.js draws (and owns the one model-to-view transform), boids/story.js the story.
// Frame layout: published by the session (op_layout), read through ui/frame.js.
// The controller returned by mount() also offers play/pause/restart/world, used by the tests.

import { buildControls, formatValue } from "../ui/controls.js";
import { createLoop } from "../ui/loop.js";
import { Stepper } from "../ui/stepper.js";
import { openLab, PlayButton, Readouts, frameOps, eachResult } from "../ui/run.js";
import { frameCount } from "../ui/frame.js";
import { HistoryMirror } from "../ui/history.js";
import { onLookChange } from "../ui/look.js";
import { readQuery, linkOf, copyLink, copiedWords } from "../ui/share.js";
import { LineChart, SERIES_STYLE } from "../ui/chart.js";
import { pixelRatio, el, num } from "../ui/dom.js";
import { wrap } from "../ui/periodic.js";
import { STORY_HTML } from "./boids/story.js";
import { MinimalControls } from "../ui/minimal.js";
import { viewHeight } from "../embed.js";
import { layoutHtml, HEADER_HTML, explainHtml, sourcesHtml, worldCaption, randomLevel, SAYS } from "./boids/text.js";
import { BoidsStage } from "./boids/stage.js";
import { ScalingPanel } from "./boids/scaling.js";
import { mountRules, preloadEditor } from "../ui/rules.js";

const LAB = "boids";
const CURSOR_STEP = 3;              // lengths per arrow key press (Shift: x4)
const STAGE_ROOM_WIDE_PX = 290;     // a wide window's height not given to the stage: the title, lead and Play row
const STAGE_ROOM_PX = 190;          // ... a narrow or short one's (a phone's stage scrolls with the page)
const LAPTOP_STAGE_MIN_PX = 400;    // a wide window that leaves the stage this much height is a laptop's
const TAP_KEEPS_MS = 350;           // Enter or Space let go sooner than this: a tap, the treat stays

export async function mount(section, ctx) {
  preloadEditor(); // the rules panel's editor loads while the lab asks for its specs and first state
  // (display: presets, readouts and chart words, from the session)
  const { engine, specs, layout, fx, display, minimal } = await openLab(ctx, LAB, "assets/css/boids.css");
  const HEADER = fx.offset;
  const presetSettings = Object.fromEntries(display.presets.map((p) => [p.name, p.values])); // {name: values}
  section.innerHTML = layoutHtml(layout.constants, display);
  section.insertAdjacentHTML("afterbegin", HEADER_HTML);
  section.classList.add("bd");
  const $ = (sel) => section.querySelector(sel);
  const canvas = $(".bd-canvas");
  const stageEl = $(".bd-stage");
  /** The width the stage's column offers it (measure may narrow the stage itself). */
  function columnWidth() {
    const cap = stageEl.style.maxWidth;
    stageEl.style.maxWidth = "";
    const w = stageEl.clientWidth;
    stageEl.style.maxWidth = cap;
    return w;
  }
  const stage = new BoidsStage(canvas, fx);
  // minimal mode: "More settings" waits behind "Show all settings", which also opens it
  const advanced = $(".bd-advanced");
  const mini = new MinimalControls(minimal, { onChange: () => { advanced.open = !advanced.hidden; } });
  mini.hide(advanced);
  const miniToggle = mini.toggle();
  if (miniToggle) advanced.after(miniToggle);

  // ---- size the stage, then start the model in a world of the same shape ----
  let cssW = 0, cssH = 0, dpr = 1, measuredVH = 0;
  function measure(column = columnWidth()) {
    const columnW = Math.max(200, Math.round(column || 640));
    // a wide screen shows the engine's default sky (its height / width); a phone a taller one
    const [w0, h0] = layout.constants.world_default;
    const wide = columnW >= 560;
    const ratio = wide ? h0 / w0 : 1.1;
    measuredVH = viewHeight(); // the window's height bounds the stage's (embed.js: in a growing frame, the screen's)
    // In a laptop's window the stage and its Play row fit under the lab's title and lead (with
    // the row, about 290 px of the height; the row was below a 1280 x 800 window), and the stage
    // keeps the default sky's shape, narrowed in its column (as Lab 1's is), never below 480 px
    // wide.  A shorter wide window (a phone on its side) keeps the whole width and a wider sky;
    // a phone's taller stage scrolls with its page.
    const laptop = wide && measuredVH - STAGE_ROOM_WIDE_PX >= LAPTOP_STAGE_MIN_PX;
    const maxH = Math.max(260, measuredVH - (laptop ? STAGE_ROOM_WIDE_PX : STAGE_ROOM_PX));
    cssW = laptop ? Math.min(columnW, Math.max(480, Math.floor(maxH / ratio))) : columnW;
    cssH = Math.round(Math.min(cssW * ratio, maxH));
    stageEl.style.maxWidth = cssW < columnW ? `${cssW}px` : "";
    dpr = pixelRatio();
    stage.resize(cssW, cssH, dpr);
  }
  async function parseWorld(text) {
    if (text === null) return null;
    const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*x\s*([0-9]+(?:\.[0-9]+)?)\s*$/i.exec(text);
    const size = m && { width: Number(m[1]), height: Number(m[2]) };
    if (!size || !(await engine.tryCall(LAB, "parse_world", size)).ok) {
      const [lo, hi] = layout.constants.world_range, [w0, h0] = layout.constants.world_default;
      ctx.notify(`${ctx.name}: ignored world=${text} (expected two sizes in lengths, e.g. ${w0}x${h0}, each ${lo} to ${hi})`, "warn");
      return null;
    }
    return size;
  }
  // a world of the canvas's shape; its area is the default sky's, or the current world's
  // (the scaling experiment grows it: a resize keeps the density).  Not scaling.world_for: that
  // one clamps the aspect for its chart's worlds, where this world must have the canvas's own
  // shape so that nothing is drawn stretched (a shape outside the world specs is refused by
  // the session, and the world stays as it was)
  function worldFor(w, h, area = layout.constants.world_area) {
    const width = Math.sqrt(area * (w / h));
    return { width: round3(width), height: round3(area / width) };
  }
  measure();

  const { values: urlValues, notices } = await readQuery(engine, LAB, ctx.params);
  ctx.notifyMany(`${ctx.name}: settings in this link`, notices);
  // A shared link carries its world size (?world=WxH) so the same run replays on any screen;
  // the stage then draws that world stretched to the canvas instead of reshaping it.
  const linkedWorld = await parseWorld(ctx.params.get("world"));
  const startWorld = linkedWorld || worldFor(cssW, cssH);
  // each setting of a link is checked on its own (readQuery); a pair that cannot hold together
  // (a lowest speed above the highest) is said, and the lab starts from its defaults.  A
  // population only the scaling experiment reaches needs its grown sky (world=): without it,
  // only the population is left out, and the link's other settings hold
  let first = await engine.tryCall(LAB, "reset", { ...urlValues, ...startWorld });
  if (!first.ok && "population" in urlValues) {
    const { population, ...rest } = urlValues;
    const without = await engine.tryCall(LAB, "reset", { ...rest, ...startWorld });
    if (without.ok) {
      ctx.notify(`${ctx.name}: settings in this link: ignored population=${population} (${first.error})`, "warn");
      first = without;
    }
  }
  if (!first.ok) {
    ctx.notify(`${ctx.name}: the settings in this link do not fit together (${first.error}), ` +
      "so the lab starts from its default settings.", "warn");
  }
  let st = first.ok ? first.value : await engine.call(LAB, "reset", startWorld);
  let world = { ...st.world };
  stage.setWorld(world);
  const C = layout.constants;
  $(".bd-explain").innerHTML = explainHtml({ ...C, radius: st.params.radius }, { minimal, scalingTitle: display.scaling.title });
  $(".bd-explain").insertAdjacentHTML("afterend", STORY_HTML + sourcesHtml({ minimal }));  // the sources end the lab
  // "Try this" first in the side column: its presets sit next to the stage they change.
  $(".bd-side").prepend($(".bd-try"));

  // ---- state mirrored in the page ----
  let playing = !ctx.reducedMotion;
  if (ctx.reducedMotion) ctx.saidStartsPaused();
  let t = st.t;
  let frameBuf = new Float32Array(HEADER);
  let frameLen = 0;
  let dirty = true;
  const treat = { on: false, x: 0, y: 0, source: null };
  let treatUsed = false;     // a treat held since the restart: a link can no longer replay this run
  const cursor = { x: world.width / 2, y: world.height / 2, visible: false };
  let pointerId = null;
  let keyHeld = null;        // the key (Enter or Space) that set the treat, until its keyup
  let keyDownAt = 0;
  let treatKept = false;     // a tap set the treat: it stays until the next tap or Esc

  // ---- history chart: the session's history (metrics.History), mirrored ----
  const hist = new HistoryMirror();
  const words = display.charts[0];
  const chart = new LineChart($(".bd-chart"), {
    title: words.title,
    xLabel: words.x_label,
    minSpan: 30,
    axes: {
      left: { label: words.axes.left, min: 0, max: 1 },
      right: { label: words.axes.right, min: 0, auto: true, pad: 0.1 },
    },
    series: words.series.map((x) => ({ ...SERIES_STYLE[x.key], key: x.key, label: x.label, axis: x.axis })),
  });

  // ---- controls built from the specs ----
  const apply = (name, v) => stepper.applying(applySetting(name, v));
  const applySetting = async (name, v) => {
    const res = await engine.tryCall(LAB, "set", { name, value: v });
    if (res.ok) {
      st = res.value;
      afterSettingsChange();
      if (st.notice) ctx.settingNotice(st.notice, name, "info"); // the sample: at the next restart
      if (name === "population") scaling.showSize(st.N); // "Ten or ten thousand" shows the flock's size
      return { ok: true, note: st.notice }; // (also at the control, until the next restart)
    }
    return res; // an error: buildControls' onError says so
  };
  const named = (test) => specs.filter(test).map((s) => s.name);  // the engine's groups and flags
  const weightCtl = buildControls($(".bd-weights"), specs, {
    only: named((s) => s.group === "rules"), values: st.params, apply, onError: ctx.settingNotice,
  });
  const popCtl = buildControls($(".bd-pop"), specs, { only: ["population"], values: st.params, apply, onError: ctx.settingNotice });
  const advCtl = buildControls($(".bd-adv-rows"), specs, {
    only: named((s) => s.advanced), values: st.params, apply, onError: ctx.settingNotice,
  });
  const allCtls = [weightCtl, popCtl, advCtl];
  // A flock that "Ten or ten thousand" grew beyond the population slider's range: the slider
  // cannot show it, and one key press would drop it to the slider's maximum in a sky sized for
  // the bigger flock (a fifth of the density at 10,000).  The slider waits and says why.
  const popSpec = specs.find((s) => s.name === "population");
  const popRow = popCtl.rows.get("population");
  // (aria-disabled, not disabled: the slider stays a Tab stop, and its description says why)
  const popHeld = el("p", { class: "help bd-pop-held", id: "bd-pop-held" });
  popHeld.hidden = true;
  popRow.row.append(popHeld);
  popRow.input.setAttribute("aria-describedby", `${popRow.input.getAttribute("aria-describedby") || ""} bd-pop-held`.trim());
  for (const type of ["input", "change"]) {
    popRow.input.addEventListener(type, (ev) => {  // (capture: before the control applies it)
      if (!(st.N > popSpec.max)) return;
      ev.stopImmediatePropagation();
      popCtl.set("population", st.params.population);  // the slider shows the flock's size again
    }, { capture: true });
  }
  function holdPopulation() {
    const held = st.N > popSpec.max;
    popRow.input.setAttribute("aria-disabled", String(held));
    popRow.row.classList.toggle("ctl-held", held);
    popHeld.hidden = !held;
    popHeld.textContent = held ? `${num(st.N)} boids is more than this slider reaches (${num(popSpec.max)}): ` +
      `“${display.scaling.title}” below sets the flock's size now. Bring the flock back to ${num(popSpec.max)} or ` +
      "fewer there to use this slider again." : "";
  }

  function syncControls() {
    for (const ctl of allCtls) for (const name of ctl.rows.keys()) ctl.set(name, st.params[name]);
    holdPopulation();
    const w = st.params;
    for (const btn of section.querySelectorAll(".bd-preset")) {
      const values = presetSettings[btn.dataset.preset];
      btn.setAttribute("aria-pressed", String(Object.keys(values).every((k) => values[k] === w[k])));
    }
    section.dataset.kSep = String(w.k_sep);
    section.dataset.kAli = String(w.k_ali);
    section.dataset.kCoh = String(w.k_coh);
  }

  function afterSettingsChange() {
    syncControls();
    showWorld();
    stepper.refresh(); // the readouts and the chart's marker follow at once
  }

  // ---- presets ----
  const presetBox = $(".bd-presets");
  // The presets, their words and values come from the session (boids.PRESETS, PRESET_WORDS).
  // The button shows the weights; what else a preset sets, its words say (PRESET_WORDS).
  const presetValues = (v) => `${v.k_sep} / ${v.k_ali} / ${v.k_coh}`;
  for (const p of display.presets) {
    const item = document.createElement("div");
    item.className = "bd-preset-item";
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = "btn bd-preset";
    btn.dataset.preset = p.name;
    btn.innerHTML = `${p.title} <span class="bd-preset-w">${presetValues(p.values)}</span>`;
    const look = document.createElement("p");
    look.className = "bd-look";
    look.id = `bd-look-${p.name}`;
    look.textContent = p.look;
    btn.setAttribute("aria-describedby", look.id);
    btn.addEventListener("click", () => stepper.track((async () => {
      const res = await engine.tryCall(LAB, "preset", { name: p.name });
      if (!res.ok) { ctx.notify(res.error, "error"); return; }
      st = res.value;
      afterSettingsChange();
    })()));
    item.append(btn, look);
    presetBox.append(item);
  }

  // ---- transport ----
  const playBtn = new PlayButton($(".bd-play"), section, "the boids");
  playBtn.button.addEventListener("click", () => { setPlaying(!playing); });
  function setPlaying(on) { playing = on; stepper.setPlaying(on); playBtn.show(playing); }
  // (pace is only accumulated while playing, so a pause does not read as slow motion)
  $(".bd-restart").addEventListener("click", () => stepper.track(restart()));
  /** A link to this run: what the session says a link carries (its op_link: the settings
   *  with the run's own sample, and the world's size, so the run replays on any screen). */
  const linkUrl = () => linkOf(engine, LAB, specs);
  $(".bd-copy").addEventListener("click", () =>
    copyLink(stepper.whenSettled(linkUrl), $(".bd-copy"), () => copiedWords(hist.changedDuringRun || treatUsed, "setting changes or the treat")));

  async function restart() {
    releaseTreat();
    afterRestart(await engine.call(LAB, "reset", {}));
  }
  function afterRestart(state) {
    st = state;
    t = st.t;
    world = { ...st.world };
    stage.setWorld(world);
    if (cursor.x >= world.width || cursor.y >= world.height) { cursor.x = world.width / 2; cursor.y = world.height / 2; }
    hist.clear();
    treatUsed = false;
    for (const ctl of allCtls) ctl.clearNotes(); // "… at the next restart" has happened
    syncControls();
    showWorld();
    stepper.restart();
    stepper.refresh(); // readouts and chart of the new run at once
  }

  // ---- ten or ten thousand: the population at the default density, timed here ----
  const scaling = new ScalingPanel({
    engine, lab: LAB, sizes: C.scale_sizes, words: display.scaling, track: (p) => stepper.track(p), notify: ctx.notify,
    onScaled: (state) => { releaseTreat(); afterRestart(state); },
  });
  scaling.showSize(st.N);
  $(".bd-chart-fig").after(scaling.root);

  // ---- the treat: pointer (mouse, touch, pen) ----
  const srEl = $(".bd-sr");
  function where(x, y) {
    return `${Math.round((100 * x) / world.width)}% across, ${Math.round((100 * y) / world.height)}% down`;
  }
  // Treat moves are sent in order; the shown treat follows the pointer at once.
  function setTreat(x, y, source) { return stepper.track(sendTreat(x, y, source)); }
  async function sendTreat(x, y, source) {
    if (source === "keyboard" && !(treat.on && treat.source === "keyboard")) srEl.textContent = `Treat held at ${where(x, y)}.`;
    Object.assign(treat, { on: true, x, y, source });
    treatUsed = true;
    section.dataset.treat = "on";
    dirty = true;
    const res = await engine.tryCall(LAB, "treat", { x, y, on: true });
    if (!res.ok || !treat.on) return;
    Object.assign(treat, res.value.treat, { source });
    section.dataset.treat = "on";
    dirty = true;
  }
  function releaseTreat() {
    if (!treat.on) return;
    if (treat.source === "keyboard") srEl.textContent = "Treat released.";
    stepper.track(engine.tryCall(LAB, "treat", { x: treat.x, y: treat.y, on: false }).then(() => stepper.invalidate()));
    treat.on = false;
    treat.source = null;
    pointerId = null;
    keyHeld = null;
    treatKept = false;
    section.dataset.treat = "off";
    dirty = true;
  }
  section.dataset.treat = "off";

  canvas.addEventListener("pointerdown", (ev) => {
    if (ev.pointerType === "mouse" && ev.button !== 0) return;
    if (pointerId !== null) return;                  // one treat at a time
    ev.preventDefault();
    pointerId = ev.pointerId;
    try { canvas.setPointerCapture(ev.pointerId); } catch (_) { /* synthetic pointer */ }
    cursor.visible = false;                          // the keyboard cursor is for the keyboard
    // (focus moved by a press: no keyboard cursor nor focus ring until a key is pressed there;
    // browsers may match :focus-visible on a focus() called from script.  A touch moves no focus.)
    if (ev.pointerType !== "touch") {
      canvas.classList.add("pointer-focus");
      canvas.focus({ preventScroll: true });
    }
    const w = stage.toModel(ev.clientX, ev.clientY);
    cursor.x = w.x; cursor.y = w.y;
    setTreat(w.x, w.y, ev.pointerType || "mouse");
  });
  canvas.addEventListener("pointermove", (ev) => {
    if (ev.pointerId !== pointerId) return;
    ev.preventDefault();
    const w = stage.toModel(ev.clientX, ev.clientY);
    cursor.x = w.x; cursor.y = w.y;
    setTreat(w.x, w.y, treat.source);
  });
  const endPointer = (ev) => {
    if (ev.pointerId !== pointerId) return;
    releaseTreat();
  };
  canvas.addEventListener("pointerup", endPointer);
  canvas.addEventListener("pointercancel", endPointer);
  canvas.addEventListener("lostpointercapture", endPointer);
  canvas.addEventListener("contextmenu", (ev) => ev.preventDefault());

  // ---- the treat: keyboard ----
  canvas.addEventListener("focus", () => {
    cursor.visible = canvas.matches(":focus-visible") && !canvas.classList.contains("pointer-focus");
    dirty = true;
  });
  // leaving the stage lets go of a held key's treat (its keyup would go elsewhere), not of a
  // tapped one: that stays while the student tries Describe or a slider, until a tap or Esc
  canvas.addEventListener("blur", () => {
    cursor.visible = false;
    canvas.classList.remove("pointer-focus");
    if (treat.source === "keyboard" && !treatKept) releaseTreat();
    dirty = true;
  });
  canvas.addEventListener("keydown", (ev) => {
    if (canvas.classList.contains("pointer-focus")) {  // the keyboard is in use here: its ring and cursor show again
      canvas.classList.remove("pointer-focus");
      cursor.visible = true;
      dirty = true;
    }
    const step = CURSOR_STEP * (ev.shiftKey ? 4 : 1);
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (moves[ev.key]) {
      ev.preventDefault();
      cursor.x = wrap(cursor.x + moves[ev.key][0], world.width);
      cursor.y = wrap(cursor.y + moves[ev.key][1], world.height);
      cursor.visible = true;
      if (treat.on && treat.source === "keyboard") setTreat(cursor.x, cursor.y, "keyboard");
      dirty = true;
    } else if (ev.key === "Enter" || ev.key === " ") {
      // Hold the key for as long as the treat should stay, or tap it: a tap keeps the treat
      // until the next tap (or Esc), for an on-screen keyboard, sticky keys, a switch or voice
      ev.preventDefault();
      if (ev.repeat || pointerId !== null) return;
      if (treatKept) { releaseTreat(); return; }
      keyHeld = ev.key;
      keyDownAt = performance.now();
      setTreat(cursor.x, cursor.y, "keyboard");
    } else if (ev.key === "Escape") {
      releaseTreat();
    }
  });
  canvas.addEventListener("keyup", (ev) => {
    if (ev.key !== keyHeld) return;
    ev.preventDefault();
    keyHeld = null;
    if (performance.now() - keyDownAt < TAP_KEEPS_MS && treat.on) {
      treatKept = true;
      srEl.textContent = `Treat kept at ${where(treat.x, treat.y)}. Press ${ev.key === " " ? "Space" : "Enter"} again or Escape to let go.`;
    } else {
      releaseTreat();
    }
  });

  // ---- drawing (labs/boids/stage.js owns the transform) ----
  const shownCursor = { x: 0, y: 0, visible: false };
  function draw() {
    // the keyboard cursor hides while a pointer holds the treat
    shownCursor.x = cursor.x; shownCursor.y = cursor.y;
    shownCursor.visible = cursor.visible && !(treat.on && treat.source !== "keyboard");
    stage.draw(frameBuf, frameLen, treat, shownCursor);
    dirty = false;
  }

  // ---- readouts ----
  // as the session's Readouts say; the flocks readout also counts the boids alone
  const readouts = new Readouts($(".bd-readouts"), display.readouts);
  const slowEl = $(".bd-slow");
  function showMetrics(m) {
    readouts.show(m, { flocks: m.where }); // where the others are: the session's words
    section.dataset.P = String(m.P);
    section.dataset.flocks = String(m.flocks);
    const slow = stepper.slowed;
    slowEl.hidden = !slow;
    if (slow) slowEl.textContent = `Slow motion: about ${stepper.pace.ratio.toFixed(1)}× real time with ${m.N} boids on this device.`;
  }
  const saysShown = new Map(); // each .bd-says element -> the sentence it shows
  function showWorld() {
    const p = st.params;
    for (const el of section.querySelectorAll(".bd-radius")) el.textContent = String(p.radius);
    const derived = { blind: Math.max(0, 360 - p.view) };
    for (const el of section.querySelectorAll(".bd-says")) {  // (first: they hold .bd-param spans)
      const html = SAYS[el.dataset.says](p);
      if (saysShown.get(el) !== html) { el.innerHTML = html; saysShown.set(el, html); }
    }
    for (const el of section.querySelectorAll(".bd-param")) {
      const name = el.dataset.param;
      const v = name in derived ? derived[name] : p[name];
      const spec = "unit" in el.dataset && specs.find((s) => s.name === name);
      el.textContent = spec ? formatValue(spec, v) : String(v);
    }
    // drawn stretched when the sky could not take the stage's shape (a refused resize)
    const stretched = cssH > 0 && Math.abs((world.width / world.height) / (cssW / cssH) - 1) > 0.02;
    $(".bd-world").textContent = worldCaption(world, p, C, Boolean(linkedWorld), stretched);
    $(".bd-baseline").textContent = randomLevel(st.baseline, st.N);
  }
  showWorld();

  // ---- the loop: one request a frame (steps, frame, new chart samples, readouts) ----
  // the readouts: at once after a change (a refresh), else about four times a second
  const compose = (n) => frameOps(n, [hist.op()], { metrics: stepper.readsDue(n) });
  const handlers = { // (made once, not at every reply)
    history: (h) => { if (hist.apply(h)) chart.setData(hist); },
    metrics: showMetrics,
  };
  const replyError = (error) => ctx.notify(error, "error");
  function applyReply(reply) {
    eachResult(reply, handlers, replyError);
    frameBuf = reply.frame;
    frameLen = reply.length;
    t = frameBuf[fx.clock];
    if (treat.source === null) treat.on = frameBuf[fx.h.treat_on] > 0.5;
    section.dataset.t = String(t);
    section.dataset.n = String(frameCount(fx, frameBuf, frameLen));
    draw();
  }
  const stepper = new Stepper({
    engine, lab: LAB, dt: C.dt, compose, apply: applyReply, name: ctx.name, notify: ctx.notify,
    onCrash: () => { playing = false; playBtn.show(playing); },
  });
  stepper.setPlaying(playing);
  function tick(dt) {
    stepper.tick(dt);
    if (dirty && frameLen) draw();
  }
  const loop = createLoop(tick);

  // ---- resizing: the world follows the canvas shape ----
  let lastW = Math.round(columnWidth());
  function onResize() {
    const w = Math.round(columnWidth());
    if (!w || (Math.abs(w - lastW) < 2 && Math.abs(viewHeight() - measuredVH) < 2)) return;
    lastW = w;
    measure(w);
    showWorld(); // (whether the sky is drawn stretched follows the stage's shape)
    if (linkedWorld) { dirty = true; return; }  // a linked world keeps its size
    const want = worldFor(cssW, cssH, world.width * world.height);
    const aspectNow = world.width / world.height, aspectWant = want.width / want.height;
    if (Math.abs(aspectWant / aspectNow - 1) > 0.02) {
      stepper.track(engine.tryCall(LAB, "resize", want).then((res) => {
        if (!res.ok) return void showWorld(); // too big a sky for this shape: drawn stretched, and said
        const ux = cursor.x / world.width, uy = cursor.y / world.height;
        st = res.value;
        world = { ...st.world };
        stage.setWorld(world);
        cursor.x = ux * world.width; cursor.y = uy * world.height;
        Object.assign(treat, st.treat);
        showWorld();
        stepper.invalidate();
      }));
    }
    dirty = true;
  }
  const ro = typeof ResizeObserver !== "undefined" ? new ResizeObserver(onResize) : null;
  if (ro) ro.observe(stageEl);
  window.addEventListener("resize", onResize); // the window's height too (a frame that grows)
  const offLook = onLookChange(() => { dirty = true; });

  // ---- the rules in Python (ui/rules.js): the steering function the model runs, editable ----
  const rulesPanel = await mountRules($(".bd-below"), {
    engine, lab: LAB, stepper, notify: ctx.notify, embed: ctx.embed,
    shareLink: linkUrl,
    clock: readouts.spec("t"),  // the model time, as the readout shows it
    agents: "boids",
  }).catch((err) => { ctx.notify(`Rules in Python could not start: ${err.message || err}`, "error"); return null; });

  playBtn.show(playing);
  syncControls();
  await stepper.send(0); // the first frame and readouts before the lab is shown as ready

  return {
    /** Let go of the page's listeners (app.js, when this lab is built afresh). */
    dispose() {
      offLook();
      window.removeEventListener("resize", onResize);
      if (ro) ro.disconnect();
    },
    activate() { loop.start(); },
    deactivate() { releaseTreat(); loop.stop(); },
    play() { setPlaying(true); },
    pause() { setPlaying(false); },
    restart,
    stepper,
    rules: rulesPanel,
    settle: () => stepper.settle(),
    test: { stage, scaling, chart, settle: () => stepper.settle() },
    world: () => ({ ...world }),
    get playing() { return playing; },
  };
}

function round3(v) { return Math.round(v * 1000) / 1000; }
