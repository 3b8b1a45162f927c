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
// Frame layout: published by the session (op_layout), read through ui/frame.js.
// The controller returned by mount() also offers play/pause/restart/world, used by the tests.

import { buildControls } from "../ui/controls.js";
import { createLoop } from "../ui/loop.js";
import { Stepper } from "../ui/stepper.js";
import { frameIndex, frameCount } from "../ui/frame.js";
import { HistoryMirror } from "../ui/history.js";
import { readQuery, shareUrl, copyLink } from "../ui/share.js";
import { LineChart } from "../ui/chart.js";
import { ensureStylesheet, plural } from "../ui/dom.js";
import { STORY_HTML } from "./boids/story.js";
import { mountRules } from "../ui/rules.js";

const LAB = "boids";
const WORLD_AREA = 160 * 100;       // lengths², the default 160 x 100 world
const GLYPH_LENGTH = 1.6;           // lengths: glyphs are drawn a little larger than a body
const GLYPH_MIN_PX = 7;             // CSS px, so glyphs stay visible on small screens
const HUES = 24;                    // heading colour buckets (one path per bucket)
const CURSOR_STEP = 3;              // lengths per arrow key press (Shift: x4)

const PRESETS = [
  {
    name: "separation",
    title: "Separation only",
    weights: "1.5 / 0 / 0",
    look: "Every boid only steers away from anyone too close in front or beside it, so the birds fan out over the whole sky and each guards its own space, but nobody flies with anybody.",
  },
  {
    name: "cohesion",
    title: "Cohesion only",
    weights: "0 / 0 / 1",
    look: "Every boid only heads for the middle of the boids it sees, so within a minute the sky empties into a few tight, nervous clumps (one to four) of boids buzzing round each other.",
  },
  {
    name: "balanced",
    title: "All three balanced",
    weights: "1.5 / 1 / 1 (default weights)",
    look: "Keeping space, matching and staying close together turn the scattered boids into streams that meet and merge, split and rejoin, while whole groups suddenly swing round; it keeps flowing for as long as you watch.",
  },
];

const LAYOUT = `
  <div class="lab-layout bd-layout">
    <div class="bd-main">
      <div class="stage bd-stage">
        <canvas class="bd-canvas" tabindex="0" role="application" aria-roledescription="flock stage"
          aria-label="Flock of boids over a sky whose edges wrap around"
          aria-describedby="bd-stage-help"></canvas>
        <p class="bd-slow" hidden></p>
        <p class="bd-sr" role="status" aria-live="polite"></p>
      </div>
      <div class="bd-stage-captions">
      <p class="stage-caption" id="bd-stage-help">
        <strong>The treat:</strong> press and hold on the sky (mouse or finger) and the flock steers towards that
        spot; keep holding for ten seconds or so and most of it swarms round the spot; drag to move it; let go and
        they spread out again. Keyboard: focus the stage, move the cursor with the arrow keys, hold <kbd>Enter</kbd>
        or <kbd>Space</kbd>.
      </p>
      <p class="stage-caption bd-world"></p>
      </div>
      <figure class="panel bd-chart-fig">
        <canvas class="bd-chart" role="img" aria-label="Shared heading P and mean nearest spacing over model time, with a marker at every change of rules"></canvas>
        <figcaption>Shared heading P (left axis): 1 when every boid heads the same way, about 0.1 for 80 boids heading anywhere. Mean nearest spacing in body lengths (right axis). Sampled four times a model second; vertical lines mark rule changes.</figcaption>
      </figure>
    </div>
    <div class="bd-side">
      <div class="controls bd-controls">
        <h3>Rules</h3>
        <div class="bd-weights"></div>
        <div class="bd-pop"></div>
        <details class="bd-advanced">
          <summary>More settings</summary>
          <div class="bd-adv-rows"></div>
        </details>
        <div class="btn-row bd-transport">
          <button type="button" class="btn primary bd-play"></button>
          <button type="button" class="btn bd-restart" title="Start again from the same scattered start, keeping the settings">Restart</button>
          <button type="button" class="btn bd-copy">Copy link</button>
        </div>
        <div class="readouts bd-readouts">
          <div class="readout"><span class="k">boids</span><span class="v bd-N">–</span></div>
          <div class="readout"><span class="k">model time</span><span class="v bd-t">–</span></div>
          <div class="readout"><span class="k">shared heading P</span><span class="v bd-P">–</span></div>
          <div class="readout"><span class="k">mean nearest spacing</span><span class="v bd-spacing">–</span></div>
          <div class="readout" title="A flock here is 5 or more boids linked by a chain of neighbours (each within the alignment range of the next) that fly roughly one way. A boid alone has nobody within that range."><span class="k">flocks</span><span class="v bd-flocks">–</span></div>
        </div>
      </div>
      <section class="panel bd-try" aria-labelledby="bd-try-h">
        <h3 id="bd-try-h">Try this</h3>
        <p class="bd-try-intro">Each button changes the three weights at once while the flock keeps flying.</p>
        <div class="bd-presets"></div>
      </section>
    </div>
  </div>
  <div class="bd-below">
    <div class="panel explain bd-explain"></div>
  </div>`;

function explainHtml(c) {
  // MathML Core has no bold mathvariant: use the mathematical bold letters themselves.
  const BOLD = { a: "\u{1D41A}", p: "\u{1D429}", v: "\u{1D42F}", s: "\u{1D42C}", r: "\u{1D42B}" };
  const b = (s) => `<mi>${BOLD[s]}</mi>`;
  const sub = (base, s) => `<msub>${base}<mi>${s}</mi></msub>`;
  const ksub = (s) => `<msub><mi>k</mi><mtext>${s}</mtext></msub>`;
  const sum = (set) => `<munder><mo largeop="true" class="bd-sum">∑</mo><mrow><mi>j</mi><mo>∈</mo><msub><mi>${set}</mi><mi>i</mi></msub></mrow></munder>`;
  const mean = (set) => `<mfrac><mn>1</mn><mrow><mo>|</mo><msub><mi>${set}</mi><mi>i</mi></msub><mo>|</mo></mrow></mfrac>`;
  const pi = sub(b("p"), "i"), pj = sub(b("p"), "j"), vi = sub(b("v"), "i"), vj = sub(b("v"), "j");
  const P = (name) => `<span class="bd-param" data-param="${name}"></span>`;
  const steerOf = (rule) => `<msub>${b("s")}<mtext>${rule}</mtext></msub>`;
  return `
  <div class="bd-col">
  <h2>Three rules, and nothing else</h2>
  <p>Every boid follows the same three habits, and it applies them only to the boids it can see. Like a bird, a boid
  looks ahead and to the sides but not straight back: its field of view is ${P("view")}° wide, centred on where it is
  heading, so a cone of ${P("blind")}° behind it is blind. Each habit also has its own reach:</p>
  <ol>
    <li><strong>Separation — keep your space.</strong> Steer away from the boids in view closer than
      ${P("sep_radius")} body lengths; the closer one is, the harder the push.</li>
    <li><strong>Alignment — fly like those around you.</strong> Steer towards the average velocity of the boids in
      view within <span class="bd-radius bd-param" data-param="radius">${c.radius}</span> lengths.</li>
    <li><strong>Cohesion — stay with the others.</strong> Steer towards the middle of the boids in view within
      ${P("coh_radius")} lengths.</li>
  </ol>
  <p>None of the three rules says where to go, who to follow or what the whole flock is doing. Whatever the flock does, it is each boid
  reacting to a handful of others.</p>

  <h2>The formulas</h2>
  <p>For boid <var>i</var> at position <b>p</b><sub>i</sub> with velocity <b>v</b><sub>i</sub>, the boids
  <var>j</var> in its view within each rule's reach form the sets <var>S</var><sub>i</sub> (separation),
  <var>A</var><sub>i</sub> (alignment) and <var>C</var><sub>i</sub> (cohesion). Each rule first points a direction:</p>
  <div class="formula"><math display="block" aria-label="separation">
    <msub>${b("r")}<mtext>sep</mtext></msub><mo>=</mo>${sum("S")}
    <mfrac><mrow>${pi}<mo>−</mo>${pj}</mrow><mrow><msup><mrow><mo>|</mo>${pi}<mo>−</mo>${pj}<mo>|</mo></mrow><mn>2</mn></msup><mo>+</mo><mi>ε</mi></mrow></mfrac>
  </math></div>
  <p>Each close neighbour pushes along the line from it to you, harder the closer it is (an inverse-square weight;
  <var>ε</var> = ${c.eps} length² keeps the push finite when two boids touch).</p>
  <div class="formula"><math display="block" aria-label="alignment">
    <msub>${b("r")}<mtext>ali</mtext></msub><mo>=</mo>${mean("A")}${sum("A")}${vj}
  </math></div>
  <div class="formula"><math display="block" aria-label="cohesion">
    <msub>${b("r")}<mtext>coh</mtext></msub><mo>=</mo>${mean("C")}${sum("C")}<mo>(</mo>${pj}<mo>−</mo>${pi}<mo>)</mo>
  </math></div>
  <p>The neighbours' average velocity, and the arrow from you to their middle. A rule with nobody in its reach
  asks for nothing.</p>
  <p>Then each rule <em>steers</em>, as Reynolds' boids do: the boid would like to fly at full speed
  (<var>v</var><sub>max</sub> = ${P("v_max")} lengths/s) the way the rule points, and the steering is that wish minus
  its present velocity, never more than the maximum force <var>F</var> = ${P("max_force")} lengths/s²:</p>
  <div class="formula"><math display="block" aria-label="steering">
    ${steerOf("rule")}<mo>=</mo>${ksub("rule")}<mspace width="0.2em"/><mtext>cap</mtext><mrow><mo>(</mo><msub><mi>v</mi><mtext>max</mtext></msub>
    <mfrac><msub>${b("r")}<mtext>rule</mtext></msub><mrow><mo>|</mo><msub>${b("r")}<mtext>rule</mtext></msub><mo>|</mo></mrow></mfrac><mo>−</mo>${vi}<mo>,</mo><mi>F</mi><mo>)</mo></mrow>
  </math></div>
  <p>The sliders are the weights <var>k</var>. A boid cannot do everything at once: in one moment it can change its
  velocity by at most <var>F</var> per second in all, and the rules are served in order, separation first, then
  alignment, then cohesion. Each takes what it asks for while the allowance lasts, the one that does not fit gets what
  is left, and the rest wait (Reynolds' "prioritised allocation"):</p>
  <div class="formula"><math display="block" aria-label="allocation">
    <msub>${b("a")}<mi>i</mi></msub><mo>=</mo><mtext>allocate</mtext><mrow><mo>(</mo>${steerOf("sep")}<mo>,</mo>${steerOf("ali")}<mo>,</mo>${steerOf("coh")}<mo>;</mo><mi>F</mi><mo>)</mo></mrow>
  </math></div>
  <div class="formula"><math display="block" aria-label="velocity update">
    ${vi}<mo>←</mo><mtext>limit</mtext><mrow><mo>(</mo>${vi}<mo>+</mo><msub>${b("a")}<mi>i</mi></msub><mi>Δt</mi><mo>)</mo></mrow>
  </math></div>
  <div class="formula"><math display="block" aria-label="position update">
    ${pi}<mo>←</mo>${pi}<mo>+</mo>${vi}<mi>Δt</mi>
  </math></div>
  <p>“limit” keeps every speed between ${P("v_min")} and ${P("v_max")} body lengths per second: boids never hover
  and never race. All boids update together from where everyone was a moment before; Δ<var>t</var> = ${c.dt} s.
  Distances are measured the short way round the wrapping edges. The treat adds one more pull, towards the held point at
  full speed with a response rate of ${c.treat_rate} per second. All these settings are under “More settings”.</p>

  </div>
  <div class="bd-col">
  <h2>Why the flock keeps flowing</h2>
  <p>At the start every boid is in a random place with a random heading. Close neighbours soon agree, and the sky fills
  with small groups and streams. They meet and join, yet the flock does not freeze into one block flying straight
  on, although nothing random is added after the start: the liveliness comes from the rules themselves. (In all
  eight sample numbers we tested, groups were still splitting and swinging round after five minutes.)</p>
  <p>The blind spot is the key. The boids at the front of a group see nobody ahead, only the few beside them, so they
  are pulled sideways and swing off; the boids behind see them turn and follow, and the whole group wheels round. A
  stream that turns away from the rest may tear off as a group of its own; cohesion, which reaches further than the
  other two rules, pulls it back later, so streams split and rejoin. The force limit and the order of service add to
  it: a boid that is crowded spends its whole allowance on keeping its space, and for that moment it does not match or
  gather, which keeps the boids from settling into a rigid grid. Open “More settings” and widen the field of view to
  360°: with no blind spot the groups soon calm down into one flock cruising straight on.</p>
  <h2>Why purely local rules scale</h2>
  <p>Each boid's work is a short sum over the few boids near it. When a flock grows by spreading over more sky, that sum
  stays the same size: birds far away add no neighbours nearby. So 25 times as many boids cost about 25 times as much
  work, where “everyone looks at everyone” would cost 625 times as much. This needs a quick way to find neighbours; here
  a grid of cells files boids by place, and each boid checks only the cells next to its own. (Squeezing more boids into
  the <em>same</em> sky does add neighbours, which is why 2,000 boids run slower here.) Nobody keeps a list of the whole
  flock and no message has to reach everyone.</p>

  <h2>Why robot swarms care</h2>
  <p>Swarms of small drones, ground robots and underwater vehicles can be run the same way: every machine senses and talks
  only to those near it. There is then no leader whose failure grounds everyone, no single point of failure: lose a few
  machines and the others simply close the gaps. (Many drone light shows
  work differently: a central computer plans every path in advance, so those are choreography, not flocking.) Engineers
  still have to check what local rules produce, which is exactly what you can do with the sliders here.</p>

  <h2>Sources</h2>
  <ul class="sources">
    <li>Craig W. Reynolds (1987). Flocks, herds and schools: a distributed behavioral model.
      <cite>Computer Graphics</cite> 21(4), 25–34 (SIGGRAPH ’87).
      <a href="https://doi.org/10.1145/37401.37406" rel="noopener" target="_blank">doi:10.1145/37401.37406</a></li>
  </ul>
  <p class="bd-note">What this page simplifies: it is 2-D, the units are illustrative, and boids sense the others in
  view perfectly (no noise). Try a few sample numbers (More settings): one run can be lucky.</p>
  </div>`;
}

export async function mount(section, ctx) {
  ensureStylesheet("assets/css/boids.css");
  const engine = ctx.engine;
  const specs = await engine.spec(LAB);
  const layout = await engine.layout(LAB);
  const fx = frameIndex(layout.frame);
  const HEADER = fx.offset, STRIDE = fx.stride;
  const minimal = ctx.params.get("controls") === "minimal";

  section.innerHTML = LAYOUT;
  section.insertAdjacentHTML("afterbegin", `
    <header class="lab-head bd-head">
      <p class="lab-kicker">Collective motion, hands on · Lab 3</p>
      <h1>Three rules: who steers the flock?</h1>
      <p class="lab-lead">A murmuration of thousands of starlings twists across the evening sky with no leader
      and no plan, and each bird keeps track of only a handful of neighbours. So who steers? Nobody. Three
      simple rules, applied by every bird to what is right around it, are enough.</p>
    </header>`);
  section.classList.add("bd");
  const $ = (sel) => section.querySelector(sel);
  const canvas = $(".bd-canvas");
  const stageEl = $(".bd-stage");
  const g = canvas.getContext("2d");
  if (minimal) $(".bd-advanced").hidden = true;

  // ---- size the stage, then start the model in a world of the same shape ----
  let cssW = 0, cssH = 0, dpr = 1;
  function measure() {
    cssW = Math.max(200, Math.round(stageEl.clientWidth || 640));
    const ratio = cssW >= 560 ? 0.625 : 1.1;
    const maxH = Math.max(260, (window.innerHeight || 800) - 190);
    cssH = Math.round(Math.min(cssW * ratio, maxH));
    dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    canvas.style.height = `${cssH}px`;
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
  }
  async function parseWorld(text) {
    if (text === null) return null;
    const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*x\s*([0-9]+(?:\.[0-9]+)?)\s*$/i.exec(text);
    const size = m && { width: Number(m[1]), height: Number(m[2]) };
    if (!size || !(await engine.tryCall(LAB, "parse_world", size)).ok) {
      ctx.notify(`Three rules: ignored world=${text} (expected two sizes in lengths, e.g. 160x100, each 10 to 2000)`, "warn");
      return null;
    }
    return size;
  }
  function worldFor(w, h) {
    const width = Math.sqrt(WORLD_AREA * (w / h));
    return { width: round3(width), height: round3(WORLD_AREA / width) };
  }
  measure();

  const { values: urlValues, notices } = await readQuery(engine, LAB, ctx.params);
  ctx.notifyMany("Three rules: settings in this link", notices);
  // A shared link carries its world size (?world=WxH) so the same run replays on any screen;
  // the stage then draws that world stretched to the canvas instead of reshaping it.
  const linkedWorld = await parseWorld(ctx.params.get("world"));
  let st = await engine.call(LAB, "reset", { ...urlValues, ...(linkedWorld || worldFor(cssW, cssH)) });
  let world = { ...st.world };
  const C = st.constants;
  $(".bd-explain").innerHTML = explainHtml({ ...C, radius: st.params.radius });
  $(".bd-explain").insertAdjacentHTML("afterend", STORY_HTML);
  // "Try this" first in the side column: its presets sit next to the stage they change.
  $(".bd-side").prepend($(".bd-try"));

  // ---- state mirrored in the page ----
  let playing = !ctx.reducedMotion;
  let t = st.t;
  let frameBuf = new Float32Array(HEADER);
  let frameLen = 0;
  let dirty = true;
  const treat = { on: false, x: 0, y: 0, source: null };
  const cursor = { x: world.width / 2, y: world.height / 2, visible: false };
  let pointerId = null;
  let keyHeld = null;

  // ---- history chart: the session's history (metrics.History), mirrored ----
  const hist = new HistoryMirror();
  const chart = new LineChart($(".bd-chart"), {
    title: "Flock measures",
    xLabel: "model time (s)",
    minSpan: 30,
    axes: {
      left: { label: "P", min: 0, max: 1 },
      right: { label: "lengths", min: 0, auto: true, pad: 0.1 },
    },
    series: [
      { key: "P", label: "shared heading P", color: "#0f6fb3", axis: "left" },
      { key: "spacing", label: "mean nearest spacing", color: "#c9582b", axis: "right" },
    ],
  });

  // ---- controls built from the specs ----
  const labels = {
    k_sep: "Separation k_sep",
    k_ali: "Alignment k_ali",
    k_coh: "Cohesion k_coh",
    population: "Boids",
  };
  const apply = (name, v) => stepper.track(applySetting(name, v));
  const applySetting = async (name, v) => {
    const res = await engine.tryCall(LAB, "set", { name, value: v });
    if (res.ok) {
      st = res.value;
      afterSettingsChange();
    } else {
      ctx.notify(res.error, "error");
    }
    return res;
  };
  const weightCtl = buildControls($(".bd-weights"), specs, {
    only: ["k_sep", "k_ali", "k_coh"], values: st.params, labels, apply,
  });
  const popCtl = buildControls($(".bd-pop"), specs, { only: ["population"], values: st.params, labels, apply });
  const advNames = specs.filter((s) => s.advanced).map((s) => s.name);
  const advCtl = buildControls($(".bd-adv-rows"), specs, { only: advNames, values: st.params, labels, apply });
  const allCtls = [weightCtl, popCtl, advCtl];

  function syncControls() {
    for (const ctl of allCtls) for (const name of ctl.rows.keys()) ctl.set(name, st.params[name]);
    const w = st.params;
    for (const btn of section.querySelectorAll(".bd-preset")) {
      const p = st.presets[btn.dataset.preset];
      btn.setAttribute("aria-pressed", String(p.k_sep === w.k_sep && p.k_ali === w.k_ali && p.k_coh === w.k_coh));
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
  for (const p of PRESETS) {
    const item = document.createElement("div");
    item.className = "bd-preset-item";
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = "btn bd-preset";
    btn.dataset.preset = p.name;
    btn.innerHTML = `${p.title} <span class="bd-preset-w">${p.weights}</span>`;
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
  const playBtn = $(".bd-play");
  function showPlay() {
    playBtn.textContent = playing ? "Pause" : "Play";
    section.dataset.playing = String(playing);
  }
  playBtn.addEventListener("click", () => { setPlaying(!playing); });
  function setPlaying(on) { playing = on; stepper.setPlaying(on); showPlay(); }
  // (pace is only accumulated while playing, so a pause does not read as slow motion)
  $(".bd-restart").addEventListener("click", () => stepper.track(restart()));
  $(".bd-copy").addEventListener("click", () => {
    const values = {};
    for (const s of specs) values[s.name] = st.params[s.name];
    copyLink(shareUrl(LAB, values, specs, { world: `${round3(world.width)}x${round3(world.height)}` }), ctx.notify);
  });

  async function restart() {
    releaseTreat();
    st = await engine.call(LAB, "reset", {});
    t = st.t;
    hist.clear();
    syncControls();
    stepper.restart();
  }

  // ---- the treat: pointer (mouse, touch, pen) ----
  function toWorld(clientX, clientY) {
    const r = canvas.getBoundingClientRect();
    const fx = (clientX - r.left) / Math.max(1, r.width);
    const fy = (clientY - r.top) / Math.max(1, r.height);
    return { x: clamp(fx, 0, 0.99999) * world.width, y: clamp(fy, 0, 0.99999) * world.height };
  }
  const srEl = $(".bd-sr");
  function where(x, y) {
    return `${Math.round((100 * x) / world.width)}% across, ${Math.round((100 * y) / world.height)}% down`;
  }
  // Treat moves are sent in order; the shown treat follows the pointer at once.
  function setTreat(x, y, source) { return stepper.track(sendTreat(x, y, source)); }
  async function sendTreat(x, y, source) {
    if (source === "keyboard" && !(treat.on && treat.source === "keyboard")) srEl.textContent = `Treat held at ${where(x, y)}.`;
    Object.assign(treat, { on: true, x, y, source });
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
    if (ev.pointerType !== "touch") canvas.focus({ preventScroll: true });
    const w = toWorld(ev.clientX, ev.clientY);
    cursor.x = w.x; cursor.y = w.y;
    setTreat(w.x, w.y, ev.pointerType || "mouse");
  });
  canvas.addEventListener("pointermove", (ev) => {
    if (ev.pointerId !== pointerId) return;
    ev.preventDefault();
    const w = toWorld(ev.clientX, ev.clientY);
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
  canvas.addEventListener("focus", () => { cursor.visible = canvas.matches(":focus-visible"); dirty = true; });
  canvas.addEventListener("blur", () => { cursor.visible = false; if (treat.source === "keyboard") releaseTreat(); dirty = true; });
  canvas.addEventListener("keydown", (ev) => {
    const step = CURSOR_STEP * (ev.shiftKey ? 4 : 1);
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (moves[ev.key]) {
      ev.preventDefault();
      cursor.x = mod(cursor.x + moves[ev.key][0], world.width);
      cursor.y = mod(cursor.y + moves[ev.key][1], world.height);
      cursor.visible = true;
      if (treat.on && treat.source === "keyboard") setTreat(cursor.x, cursor.y, "keyboard");
      dirty = true;
    } else if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      if (ev.repeat || pointerId !== null) return;
      keyHeld = ev.key;
      setTreat(cursor.x, cursor.y, "keyboard");
    } else if (ev.key === "Escape") {
      releaseTreat();
    }
  });
  canvas.addEventListener("keyup", (ev) => {
    if (ev.key === keyHeld) { ev.preventDefault(); releaseTreat(); }
  });

  // ---- drawing ----
  const hueStyles = Array.from({ length: HUES }, (_, k) => `hsl(${Math.round((k * 360) / HUES)} 85% 66%)`);
  const buckets = Array.from({ length: HUES }, () => []);


  function draw() {
    const W = canvas.width, H = canvas.height;
    const sx = W / world.width, sy = H / world.height;
    g.fillStyle = "#0b1d2a";
    g.fillRect(0, 0, W, H);
    const n = frameCount(fx, frameBuf, frameLen);
    const L = Math.max(GLYPH_LENGTH * sx, GLYPH_MIN_PX * dpr);
    for (const b of buckets) b.length = 0;
    for (let k = 0; k < n; k++) {
      const o = HEADER + STRIDE * k;
      const vx = frameBuf[o + 2], vy = frameBuf[o + 3];
      const a = Math.atan2(vy, vx);
      const h = Math.floor(((a + Math.PI) / (2 * Math.PI)) * HUES) % HUES;
      buckets[h].push(k);
    }
    for (let h = 0; h < HUES; h++) {
      const list = buckets[h];
      if (!list.length) continue;
      g.beginPath();
      for (const k of list) {
        const o = HEADER + STRIDE * k;
        const px = frameBuf[o] * sx, py = frameBuf[o + 1] * sy;
        let ux = frameBuf[o + 2], uy = frameBuf[o + 3];
        const s = Math.hypot(ux, uy) || 1;
        ux /= s; uy /= s;
        g.moveTo(px + ux * 0.6 * L, py + uy * 0.6 * L);
        g.lineTo(px - ux * 0.4 * L - uy * 0.3 * L, py - uy * 0.4 * L + ux * 0.3 * L);
        g.lineTo(px - ux * 0.2 * L, py - uy * 0.2 * L);
        g.lineTo(px - ux * 0.4 * L + uy * 0.3 * L, py - uy * 0.4 * L - ux * 0.3 * L);
        g.closePath();
      }
      g.fillStyle = hueStyles[h];
      g.fill();
    }
    if (treat.on) {
      const tx = treat.x * sx, ty = treat.y * sy;
      const r = Math.max(1.2 * sx, 7 * dpr);
      const glow = g.createRadialGradient(tx, ty, 0, tx, ty, r * 4);
      glow.addColorStop(0, "rgba(255, 214, 102, .55)");
      glow.addColorStop(1, "rgba(255, 214, 102, 0)");
      g.fillStyle = glow;
      g.beginPath(); g.arc(tx, ty, r * 4, 0, 2 * Math.PI); g.fill();
      g.fillStyle = "#ffd666";
      g.strokeStyle = "#8a5a00";
      g.lineWidth = 2 * dpr;
      g.beginPath(); g.arc(tx, ty, r, 0, 2 * Math.PI); g.fill(); g.stroke();
    }
    if (cursor.visible && !(treat.on && treat.source !== "keyboard")) {
      const cx = cursor.x * sx, cy = cursor.y * sy, r = 10 * dpr;
      g.strokeStyle = "#ffffff";
      g.lineWidth = 1.5 * dpr;
      g.setLineDash([4 * dpr, 3 * dpr]);
      g.beginPath(); g.arc(cx, cy, r, 0, 2 * Math.PI); g.stroke();
      g.setLineDash([]);
      g.beginPath();
      g.moveTo(cx - 1.6 * r, cy); g.lineTo(cx - 0.5 * r, cy);
      g.moveTo(cx + 0.5 * r, cy); g.lineTo(cx + 1.6 * r, cy);
      g.moveTo(cx, cy - 1.6 * r); g.lineTo(cx, cy - 0.5 * r);
      g.moveTo(cx, cy + 0.5 * r); g.lineTo(cx, cy + 1.6 * r);
      g.stroke();
    }
    dirty = false;
  }

  // ---- readouts ----
  const elN = $(".bd-N"), elT = $(".bd-t"), elP = $(".bd-P"), elS = $(".bd-spacing"), elF = $(".bd-flocks");
  const slowEl = $(".bd-slow");
  function showMetrics(m) {
    elN.textContent = String(m.N);
    elT.textContent = `${m.t.toFixed(1)} s`;
    elP.textContent = m.P === null ? "–" : m.P.toFixed(2);
    elS.textContent = m.spacing === null ? "–" : `${m.spacing.toFixed(1)} lengths`;
    elF.textContent = `${m.flocks} (${plural(m.loners, "boid", "boids")} alone)`;
    section.dataset.P = String(m.P);
    section.dataset.flocks = String(m.flocks);
    const slow = playing && stepper.pace.ratio < 0.8;
    slowEl.hidden = !slow;
    if (slow) slowEl.textContent = `Slow motion: about ${stepper.pace.ratio.toFixed(1)}× real time with ${m.N} boids on this device.`;
  }
  function showWorld() {
    const p = st.params;
    for (const el of section.querySelectorAll(".bd-radius")) el.textContent = String(p.radius);
    const derived = { blind: Math.max(0, 360 - p.view) };
    for (const el of section.querySelectorAll(".bd-param")) {
      const name = el.dataset.param;
      el.textContent = String(name in derived ? derived[name] : p[name]);
    }
    $(".bd-world").textContent =
      `The sky is ${Math.round(world.width)} × ${Math.round(world.height)} body lengths and its edges wrap around. ` +
      `Each boid sees the others within a ${p.view}° field of view: closer than ${p.sep_radius} lengths it keeps away, ` +
      `within ${p.radius} lengths it matches them, within ${p.coh_radius} lengths it is drawn to them. ` +
      `Boids are drawn a little larger than life; colour shows heading. ` +
      `In the readouts a flock is 5 or more boids, linked by a chain of neighbours within ${p.radius} lengths, flying roughly one way.`;
  }
  showWorld();

  // ---- the loop: one request a frame (steps, frame, new chart samples, readouts) ----
  function compose(n) {
    const ops = [];
    if (n > 0) ops.push(["step", { n }]);
    ops.push(hist.op());
    // the readouts: at once after a change (a refresh), else about four times a second
    if (n === 0 || stepper.requests % 15 === 0) ops.push(["metrics", {}]);
    return ops;
  }
  function applyReply(reply) {
    reply.ops.forEach((op, k) => {
      const r = reply.results[k];
      if (r.error) { ctx.notify(r.error, "error"); return; }
      if (op[0] === "history" && hist.apply(r.value)) chart.setData(hist);
      if (op[0] === "metrics") showMetrics(r.value);
    });
    frameBuf = reply.frame;
    frameLen = reply.length;
    t = frameBuf[fx.h.t];
    if (treat.source === null) Object.assign(treat, { on: frameBuf[fx.h.treat_on] > 0.5 });
    section.dataset.t = String(t);
    section.dataset.n = String(frameCount(fx, frameBuf, frameLen));
    draw();
  }
  const stepper = new Stepper({
    engine, lab: LAB, dt: C.dt, compose, apply: applyReply,
    onCrash: (err) => {       // a bug, not bad input: stop and say so once
      playing = false;
      showPlay();
      ctx.notify(`Three rules stopped: ${(err && err.message) || err}`, "error");
    },
  });
  stepper.setPlaying(playing);
  function tick(dt) {
    stepper.tick(dt);
    if (dirty && frameLen) draw();
  }
  const loop = createLoop(tick);

  // ---- resizing: the world follows the canvas shape ----
  let lastW = cssW;
  function onResize() {
    const w = Math.round(stageEl.clientWidth);
    if (!w || Math.abs(w - lastW) < 2) return;
    lastW = w;
    measure();
    if (linkedWorld) { dirty = true; return; }  // a linked world keeps its size
    const want = worldFor(cssW, cssH);
    const aspectNow = world.width / world.height, aspectWant = want.width / want.height;
    if (Math.abs(aspectWant / aspectNow - 1) > 0.02) {
      stepper.track(engine.tryCall(LAB, "resize", want).then((res) => {
        if (!res.ok) return;
        const ux = cursor.x / world.width, uy = cursor.y / world.height;
        st = res.value;
        world = { ...st.world };
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
  else window.addEventListener("resize", onResize);

  // ---- the rules in Python (ui/rules.js): the steering function the model runs, editable ----
  const rulesPanel = await mountRules($(".bd-below"), {
    engine, lab: LAB, stepper, notify: ctx.notify, embed: ctx.embed,
    shareLink: () => {
      const values = {};
      for (const s of specs) values[s.name] = st.params[s.name];
      return shareUrl(LAB, values, specs, { world: `${round3(world.width)}x${round3(world.height)}` });
    },
    intro: "This is the function the model runs at every step to steer every boid: the three rules in " +
      "numpy, over all pairs of nearby boids at once. Change it and press “Run my rules”: the flock carries " +
      "on from where it is, with your rules. The sliders still feed it their weights and ranges (p.k_sep, p.radius, …).",
    help: "i, j: the pairs of boids near each other (j is near i); d: the vector from i to j and r its length, " +
      "in body lengths; v: every boid's velocity; p: the settings (p.k_sep, p.k_ali, p.k_coh, p.sep_radius, " +
      "p.radius, p.coh_radius, p.view, p.max_force, p.v_max). Return one acceleration (ax, ay) per boid. " +
      "Helpers: sum_by(i, values, n) and mean_by(i, values, n) add up or average per boid; steer(rule, v, p) " +
      "turns a direction into a capped steering request; allocate([...], budget) serves requests in order.",
  }).catch((err) => { ctx.notify(`Rules in Python could not start: ${err.message || err}`, "error"); return null; });

  showPlay();
  syncControls();
  await stepper.send(0); // the first frame and readouts before the lab is shown as ready

  return {
    activate() { loop.start(); },
    deactivate() { releaseTreat(); loop.stop(); },
    play() { setPlaying(true); },
    pause() { setPlaying(false); },
    restart,
    stepper,
    rules: rulesPanel,
    settle: () => stepper.settle(),
    world: () => ({ ...world }),
    get playing() { return playing; },
  };
}

function clamp(v, lo, hi) { return Math.min(hi, Math.max(lo, v)); }
function mod(a, m) { return ((a % m) + m) % m; }
function round3(v) { return Math.round(v * 1000) / 1000; }
