// Pure page logic, tested without a browser: `node --test tests/js` (make test runs it).
import { test } from "node:test";
import assert from "node:assert/strict";

import { StepClock } from "../../assets/js/ui/loop.js";
import { FrameBudget, Stepper, crashReason } from "../../assets/js/ui/stepper.js";
import { frameIndex, frameCount, frameStep } from "../../assets/js/ui/frame.js";
import { minImage, periodicCopies, wrap } from "../../assets/js/ui/periodic.js";
import { drawArrow } from "../../assets/js/ui/marks.js";
import { HistoryMirror } from "../../assets/js/ui/history.js";
import { tabListMove } from "../../assets/js/ui/dom.js";
import { CheckRunner } from "../../assets/js/labs/vicsek/check.js";
import { choiceLabel, groupSpecs, formatReadout, formatValue, grouped, labelParts, spokenValue } from "../../assets/js/ui/controls.js";
import { pitchFor } from "../../assets/js/ui/sound.js";
import { ANIMAL_PX, SensePanel, arrowUnit } from "../../assets/js/labs/swarm/panel.js";

test("StepClock gives whole steps and carries the rest, whatever the frame rate", () => {
  const dt = 1 / 60;
  for (const fps of [15, 30, 60, 144]) {
    const c = new StepClock(dt);
    let n = 0;
    for (let k = 0; k < fps * 10; k++) n += c.steps(1 / fps, 1);
    assert.ok(Math.abs(n - 600) <= 1, `${fps} fps gave ${n} steps in 10 s`);
  }
  const c = new StepClock(dt);
  assert.equal(c.steps(1.0, 4), 240);
});

test("FrameBudget follows the measured frame interval", () => {
  const b = new FrameBudget({ share: 0.5, minMs: 8, maxMs: 250 });
  for (let k = 0; k < 200; k++) b.frame(1 / 60);
  const fast = b.ms;
  for (let k = 0; k < 200; k++) b.frame(1 / 15);
  assert.ok(Math.abs(fast - 8.33) < 0.3, `60 fps budget ${fast}`);
  assert.ok(b.ms > 3.5 * fast, `15 fps budget ${b.ms} should be ~4x ${fast}`);
  b.cost(10, 50);
  assert.equal(b.cap(), Math.floor(b.ms / 5));
  assert.equal(b.cap(200), Math.floor(0.5 * 200 / 5), "a long wait for the engine is not slowness");
  b.overrideMs = 1;
  assert.equal(b.cap(), 1, "at least one step");
});

test("FrameBudget probes with one step while the cost is unknown, and again after a restart", () => {
  const b = new FrameBudget({ share: 0.5 });
  assert.equal(b.cap(100), 1, "unknown cost: one step");
  b.cost(10, 10);
  assert.ok(b.cap(100) > 1);
  const s = new Stepper({ engine: fakeEngine(1), lab: "x", dt: 1 / 60, compose: () => [], apply: () => {} });
  s.budget.cost(10, 10);
  s.restart();
  assert.equal(s.budget.cap(100), 1, "a restart may change the cost per step a thousandfold");
});

function fakeEngine(msPerStep) {
  const calls = [];
  return {
    calls,
    listeners: new Set(),
    recycle() {},
    async batch(lab, ops) {
      calls.push(ops);
      const results = ops.map((op) => ({ value: {}, ms: op[0] === "step" ? op[1].n * msPerStep : 0 }));
      return { results, ops, ms: 0, frame: new Float32Array(4), length: 4 };
    },
  };
}

test("Stepper: one request in flight, backlog dropped, slowed pace reported", async () => {
  const engine = fakeEngine(10); // 10 ms a step: a 60 fps frame affords about one step
  const applied = [];
  const s = new Stepper({ engine, lab: "x", dt: 1 / 60, compose: (n) => (n ? [["step", { n }]] : [["state", {}]]),
    apply: (r, n) => applied.push(n), share: 0.5 });
  s.setPlaying(true);
  s.setSpeed(4);            // 4x: real time asks for 4 steps a frame, the budget affords 1
  s.tick(1 / 60);           // first request in flight
  s.tick(1 / 60);           // still in flight: nothing sent
  assert.equal(engine.calls.length, 1);
  await new Promise((r) => setTimeout(r, 0));
  for (let k = 0; k < 120; k++) { s.tick(1 / 60); await new Promise((r) => setTimeout(r, 0)); }
  const steps = applied.reduce((a, b) => a + b, 0);
  assert.ok(steps < 200, `over budget it must not owe steps (${steps} of 480 asked)`);
  assert.ok(s.pace.ratio < 0.9, `pace ${s.pace.ratio}`);
  assert.equal(s.slowed, true);    // every lab says so from this one getter
  s.setPlaying(false);
  assert.equal(s.slowed, false);   // paused is not slowed
  // the readouts ride on a refresh, else on a request every 0.25 s of real time
  assert.equal(s.readsDue(0), true);
  assert.equal(s.readsDue(3), false);  // just read
  s.tick(0.2); assert.equal(s.readsDue(3), false);
  s.tick(0.1); assert.equal(s.readsDue(3), true);   // 0.3 s later
  assert.equal(s.readsDue(3), false);
});

test("Stepper: a pause asks once more, with the readouts, then nothing", async () => {
  const engine = fakeEngine(0.1);
  const reads = [];
  const s = new Stepper({ engine, lab: "x", dt: 1 / 60, apply: () => {},
    compose: (n) => { reads.push([n, s.readsDue(n)]); return n ? [["step", { n }]] : [["state", {}]]; } });
  s.setPlaying(true);
  for (let k = 0; k < 5; k++) { s.tick(1 / 30); await new Promise((r) => setTimeout(r, 0)); }
  assert.ok(reads.length >= 4 && reads.slice(1).every(([n, read]) => n > 0 && !read), JSON.stringify(reads));
  const before = reads.length;
  s.setPlaying(false);
  s.tick(1 / 30); await new Promise((r) => setTimeout(r, 0));
  s.tick(1 / 30); await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(reads.slice(before), [[0, true]]);  // one refresh of the paused state, with readouts
});

test("Stepper: paused asks only when stale; a crash stops it once", async () => {
  const engine = fakeEngine(0.1);
  let crashes = 0;
  const notices = [];
  const s = new Stepper({ engine, lab: "x", dt: 1 / 60, compose: () => [["state", {}]], apply: () => {},
    name: "Three rules", notify: (text, level) => notices.push([text, level]), onCrash: () => crashes++ });
  s.tick(0.016); await new Promise((r) => setTimeout(r, 0));
  s.tick(0.016); await new Promise((r) => setTimeout(r, 0));
  assert.equal(engine.calls.length, 1, "paused and fresh: no request");
  s.invalidate(); s.tick(0.016); await new Promise((r) => setTimeout(r, 0));
  assert.equal(engine.calls.length, 2);
  engine.batch = async () => { throw new Error("boom"); };
  s.invalidate(); s.tick(0.016); await new Promise((r) => setTimeout(r, 0));
  s.invalidate(); s.tick(0.016); await new Promise((r) => setTimeout(r, 0));
  assert.equal(crashes, 1);
  assert.equal(s.playing, false);
  // the one notice, in the same words for every lab (the Stepper writes it, not each lab)
  assert.deepEqual(notices, [["Three rules stopped because of an error: boom. Reload the page to start again.", "error"]]);
});

test("Stepper: onRestart is called when the watchdog restored this lab, and dispose forgets it", () => {
  const engine = { ...fakeEngine(0.1), restartListeners: new Set() };
  const restarted = [];
  const s = new Stepper({ engine, lab: "vicsek", dt: 1 / 60, compose: () => [], apply: () => {},
    onRestart: () => restarted.push("vicsek") });
  for (const fn of engine.restartListeners) fn("boids"); // another lab's run was restored: not ours
  for (const fn of engine.restartListeners) fn("vicsek");
  assert.deepEqual(restarted, ["vicsek"]);
  s.dispose();
  assert.equal(engine.restartListeners.size, 0);
  // a lab without work to start again registers nothing (and a fake engine needs no such set)
  new Stepper({ engine: fakeEngine(0.1), lab: "x", dt: 1 / 60, compose: () => [], apply: () => {} }).dispose();
});

test("CheckRunner started again drops the replies to the earlier start's ops", () => {
  const errors = [];
  const c = new CheckRunner({ onError: (m) => errors.push(m) });
  c.start("batched");
  const [first] = c.ops(10);
  c.ingest(first, { value: { total: 100 }, ms: 1 });
  const [advance] = c.ops(10);
  c.ingest(advance, { value: { progress: 0.3, done: false }, ms: 2 });
  assert.equal(c.calls, 1);
  const [late] = c.ops(10); // in flight when the engine's worker was replaced
  c.start("batched");       // the new worker has no check: from the start
  assert.equal(c.calls, 0);
  c.ingest(late, { error: "no check running: call check_start first" });
  assert.deepEqual(errors, []);
  assert.equal(c.state, "starting");
  assert.deepEqual(c.ops(10), [["check_start", { mode: "batched" }]]);
});

test("frames are read through the published layout", () => {
  const layout = { header: ["n", "t", "flag"], fields: ["x", "y"], blocks: 1, stride: 2, offset: 3, count: 0, clock: 1 };
  const ix = frameIndex(layout);
  const data = new Float32Array([2, 0.5, 1, 10, 11, 20, 21, 99]);
  assert.equal(frameCount(ix, data, 7), 2);
  assert.equal(frameCount(ix, data, 6), 1, "a short frame never reads past its end");
  assert.equal(frameStep(ix, data, 0.025), 20);
  assert.equal(ix.h.flag, 2);
  // N and t are where the layout says, whatever the header calls them
  const named = frameIndex({ ...layout, header: ["flag", "agents", "time"], count: 1, clock: 2 });
  const other = new Float32Array([1, 2, 0.5, 10, 11, 20, 21]);
  assert.equal(frameCount(named, other, 7), 2);
  assert.equal(frameStep(named, other, 0.025), 20);
});

test("the drawing's minimum image follows the engine's rule, d - L floor(d/L + 1/2), halves included", () => {
  const L = 160;
  for (const d of [0, 1.5, 79.9, 80, -80, 80.1, -80.1, 159, -159, 240, -240, 0.5 * L + 1e-9]) {
    const want = d - L * Math.floor(d / L + 0.5);
    assert.equal(minImage(d, L), want, `d = ${d}`);
  }
  assert.equal(minImage(0.5), -0.5);   // exactly half the box: -L/2, as space.displacement gives
  assert.equal(minImage(-0.5), -0.5);
  assert.equal(minImage(0.7), 0.7 - 1);
});

test("the drawing's wrap maps into [0, L) as the engine's space.wrap, never to L itself", () => {
  const L = 160;
  for (const v of [0, 1.5, 159.99, 160, 161, -0.5, -160, -161, 480.25]) {
    const w = wrap(v, L);
    assert.ok(w >= 0 && w < L, `v = ${v}: ${w}`);
    assert.ok(Math.abs(minImage(w - v, L)) < 1e-9, `v = ${v}: ${w} is not a periodic copy`);
  }
  assert.equal(wrap(-1e-17, 1), 0);   // (-1e-17) mod 1 rounds to 1: the engine, and this, give 0
  assert.equal(wrap(0.25), 0.25);
  assert.equal(wrap(-0.25), 0.75);
});

test("HistoryMirror: full, then incremental, then full again after thinning", () => {
  const h = new HistoryMirror();
  assert.deepEqual(h.op(), ["history", {}]);
  h.apply({ t: [0, 0.25], series: { P: [0.1, 0.2] }, markers: [], version: 0, interval: 0.25, full: true });
  assert.deepEqual(h.op(), ["history", { since: 0.25, version: 0 }]);
  assert.equal(h.apply({ t: [0.5], series: { P: [0.3] }, markers: [{ t: 0.4, label: "x" }], version: 0, full: false }), true);
  assert.deepEqual(h.series.P, [0.1, 0.2, 0.3]);
  assert.equal(h.apply({ t: [], series: { P: [] }, markers: [{ t: 0.4, label: "x" }], version: 0, full: false }), false);
  // a second answer to the same `since` (two requests in flight) adds only what is new
  assert.equal(h.apply({ t: [0.5], series: { P: [0.3] }, markers: [{ t: 0.4, label: "x" }], version: 0, full: false }), false);
  assert.deepEqual(h.t, [0, 0.25, 0.5]);
  assert.deepEqual(h.series.P, [0.1, 0.2, 0.3]);
  // paused: no new sample, but the session merged a slider change into its last marker
  assert.equal(h.apply({ t: [], series: { P: [] }, markers: [{ t: 0.4, label: "x = 2" }], version: 0, full: false }), true);
  assert.equal(h.markers[0].label, "x = 2");
  // at the session's maximum the oldest marker goes as a new one comes: same length, new list
  assert.equal(h.apply({ t: [], series: { P: [] }, markers: [{ t: 0.45, label: "y" }], version: 0, full: false }), true);
  assert.equal(h.changedDuringRun, true); // a link to the run's start would not replay it exactly
  h.apply({ t: [0, 0.5], series: { P: [0.1, 0.3] }, markers: [], version: 1, interval: 0.5, full: true });
  assert.deepEqual(h.t, [0, 0.5]);
  assert.equal(h.latest("P"), 0.3);
  assert.equal(h.changedDuringRun, false);
});

test("tabListMove: Left and Right wrap round, Home and End, other keys stay", () => {
  assert.equal(tabListMove("ArrowRight", 2, 3), 0);
  assert.equal(tabListMove("ArrowRight", 0, 3), 1);
  assert.equal(tabListMove("ArrowLeft", 0, 3), 2);
  assert.equal(tabListMove("Home", 2, 3), 0);
  assert.equal(tabListMove("End", 0, 3), 2);
  assert.equal(tabListMove("Enter", 1, 3), null);
  assert.equal(tabListMove("ArrowDown", 1, 3), null); // a horizontal tab list leaves Up and Down alone
});

test("crashReason keeps a Python traceback's exception, not its frames", () => {
  const frames = Array.from({ length: 12 }, (_, k) => `  File "/app/swarmlab/x.py", line ${k}, in f\n    y = g(${k})`).join("\n");
  const tb = `Traceback (most recent call last):\n${frames}\nValueError: v_min (10) must not exceed v_max (6) lengths/s\n`;
  assert.equal(crashReason(new Error(tb)), "ValueError: v_min (10) must not exceed v_max (6) lengths/s");
  assert.equal(crashReason(new Error("the engine worker stopped\nit ran out of memory")), "the engine worker stopped it ran out of memory");
  assert.equal(crashReason("plain"), "plain");
  assert.equal(crashReason(null), "an unknown error");
  assert.ok(crashReason(new Error("x".repeat(1000))).length <= 300);
});


test("the words of controls and readouts come from the engine's specs", () => {
  const obstacle = { name: "obstacle", kind: "choice", choices: ["none", "passage"], group: "world",
    choice_labels: { none: "none", passage: "a narrow passage" } };
  assert.equal(choiceLabel(obstacle, "passage"), "a narrow passage");
  assert.equal(formatValue(obstacle, "passage"), "a narrow passage");
  assert.equal(choiceLabel({ kind: "choice", choices: ["x"] }, "x"), "x"); // no labels: the value
  assert.equal(formatValue({ kind: "float", step: 0.5, decimals: 1, unit: "lengths" }, 10), "10.0 lengths"); // the spec's decimals (ParamSpec.decimals)
  assert.equal(formatValue({ kind: "float", step: 0.05, decimals: 2 }, 1.5), "1.50");
  assert.equal(formatValue({ kind: "float", step: 0.5, decimals: 1, unit: "lengths" }, 10.25), "10.25 lengths"); // off the step: in full
  assert.equal(formatValue({ kind: "float", step: 1, decimals: 0 }, 12.5), "12.5");
  const specs = [
    { name: "a", group: "rules" }, { name: "N", group: "world" }, obstacle, { name: "b", group: "rules" },
    { name: "lonely", group: "nowhere" },
  ];
  const groups = [{ id: "rules", title: "Social rules" }, { id: "empty", title: "E" }, { id: "world", title: "W" }];
  assert.deepEqual(groupSpecs(specs, groups).map((g) => [g.group.id, g.names]),
    [["rules", ["a", "b"]], ["world", ["N", "obstacle"]]]);
  assert.equal(formatReadout({ unit: "%", decimals: 1, scale: 100 }, 0.1874), "18.7 %");
  assert.equal(formatReadout({ decimals: 0 }, 150), "150");
  assert.equal(formatReadout({}, 0.12345), "0.123");
  assert.equal(formatReadout({}, NaN), "–");
  // digits grouped as the prose writes them, on readouts and controls alike (Lab 3's 10,000 boids)
  assert.equal(formatReadout({ decimals: 0 }, 10000), "10,000");
  assert.equal(formatReadout({ unit: "s", decimals: 1 }, 1234.5), "1,234.5 s");
  assert.equal(formatValue({ kind: "int", unit: "boids" }, 10000), "10,000 boids");
  assert.equal(spokenValue({ kind: "int", unit: "boids" }, 2000), "2,000 boids");
  assert.equal(formatValue({ kind: "float", step: 1, decimals: 0 }, 12345.5), "12,345.5"); // off the step: in full, grouped
  assert.equal(formatValue({ kind: "int", identifier: true }, 123456), "123456"); // a sample number names a run
  assert.equal(formatReadout({}, null), "–");
});

test("a chart's time axis names the unit its ticks are in: seconds, then a clock", async () => {
  const { defaultXTitle } = await import("../../assets/js/ui/chart.js");
  assert.equal(defaultXTitle("model time", 60), "model time (s)");
  assert.equal(defaultXTitle("model time", 120), "model time (s)");
  assert.equal(defaultXTitle("model time", 180), "model time (min:s)"); // ticks 0:00, 1:00, ...
});

test("a chart axis with scale: 100 labels its ticks in per cent (Lab 1's very-close share, as its readout)", async () => {
  const { LineChart } = await import("../../assets/js/ui/chart.js");
  globalThis.window ??= { devicePixelRatio: 1 };
  const texts = [];
  const g = new Proxy({}, {
    get: (t, k) => (k in t ? t[k] : k === "fillText" ? (s) => texts.push(String(s))
      : k === "measureText" ? (s) => ({ width: 6 * String(s).length }) : () => {}),
    set: (t, k, v) => { t[k] = v; return true; },
  });
  const canvas = {
    width: 0, height: 0, getContext: () => g, hasAttribute: () => false, setAttribute() {},
    addEventListener() {}, getBoundingClientRect: () => ({ width: 400, height: 200 }),
  };
  const chart = (right) => new LineChart(canvas, {
    title: "Spacing", xLabel: "model time",
    axes: { left: { label: "lengths", min: 0, max: 4 }, right },
    series: [{ key: "very_close", label: "share", axis: "right" }],
  });
  texts.length = 0;
  chart({ label: "share of animals (%)", min: 0, max: 1, scale: 100 });
  for (const tick of ["0", "20", "40", "60", "80", "100"]) assert.ok(texts.includes(tick), `${tick} in ${texts}`);
  assert.ok(!texts.includes("0.2"), texts.join(" "));
  texts.length = 0;
  chart({ label: "share", min: 0, max: 1 });  // without scale, as before
  assert.ok(texts.includes("0.2") && !texts.includes("20"), texts.join(" "));
});

test("a short chart draws fewer ticks, never labels over each other (Lab 1's live strip on a phone)", async () => {
  const { LineChart, TICK_LABEL_GAP } = await import("../../assets/js/ui/chart.js");
  globalThis.window ??= { devicePixelRatio: 1 };
  const ys = { left: [], right: [] };
  let align = "left";
  const g = new Proxy({}, {
    get: (t, k) => (k in t ? t[k] : k === "fillText" ? (s, x, y) => { if (t.textBaseline === "middle" && x !== 8) ys[align].push([String(s), y]); }
      : k === "measureText" ? (s) => ({ width: 6 * String(s).length }) : () => {}),
    set: (t, k, v) => { t[k] = v; if (k === "textAlign") align = v === "right" ? "left" : "right"; return true; },
  });
  for (const height of [300, 160, 90]) {
    const canvas = {
      width: 0, height: 0, getContext: () => g, hasAttribute: () => false, setAttribute() {},
      addEventListener() {}, getBoundingClientRect: () => ({ width: 180, height }),
    };
    ys.left.length = 0; ys.right.length = 0;
    const chart = new LineChart(canvas, {
      compact: true, axes: { left: { min: 0, auto: true, minMax: 4, pad: 0.1 }, right: { min: 0, max: 1, scale: 100 } },
      series: [{ key: "spacing", label: "spacing" }, { key: "close", label: "< 1.2 (%)", axis: "right" }],
    });
    ys.left.length = 0; ys.right.length = 0;  // (the constructor drew the empty chart)
    chart.setData({ t: [0, 1, 2], series: { spacing: [2, 2.5, 3], close: [0.1, 0.2, 0.1] } });
    for (const side of ["left", "right"]) {
      const ticks = ys[side].filter(([s]) => /^[0-9.]+$/.test(s));
      assert.ok(ticks.length >= 2, `${height} px, ${side}: ${ticks}`);
      const gaps = ticks.slice(1).map(([, y], i) => Math.abs(y - ticks[i][1]));
      assert.ok(Math.min(...gaps) >= TICK_LABEL_GAP - 1, `${height} px, ${side}: ${ticks.join(" ")}`);
      assert.equal(ticks[0][0], "0", `${height} px, ${side}: starts at 0`);
    }
    if (height === 300) assert.equal(ys.right.filter(([s]) => /^[0-9]+$/.test(s)).length, 6); // 0, 20 ... 100 where it fits
  }
});

test("drawArrow scales a style's dash by the line width once, not at every call", () => {
  const dashes = [];
  const g = new Proxy({}, {
    get: (t, k) => (k in t ? t[k] : k === "setLineDash" ? (d) => dashes.push(d) : () => {}),
    set: (t, k, v) => { t[k] = v; return true; },
  });
  const style = { color: "#5b9bff", dash: [3, 1.6], head: "triangle" };
  drawArrow(g, 0, 0, 40, 0, style, 2);
  drawArrow(g, 0, 0, 30, 10, style, 2);
  assert.deepEqual(dashes[0], [6, 3.2]);      // the line's dash, in px
  assert.deepEqual(dashes[1], []);            // then solid for the head
  assert.equal(dashes[2], dashes[0]);         // the same array on the next call
  assert.equal(dashes[3], dashes[1]);
  drawArrow(g, 0, 0, 40, 0, style, 3);        // another width: scaled again
  assert.deepEqual(dashes[4], [3 * 3, 1.6 * 3]);
});

test("Sound's pitch rises with agreement: 220 Hz at P = 0 to 660 Hz at P = 1, clamped, NaN low", () => {
  assert.deepEqual([0, 0.25, 0.5, 1, 2, -1, NaN, Infinity].map(pitchFor), [220, 330, 440, 660, 660, 220, 220, 220]);
});

test("Lab 1's see-through shades are made from its palette's colours", async () => {
  const { alpha, SHADES, THREAT, NEIGHBOURS } = await import("../../assets/js/labs/swarm/palette.js");
  assert.equal(alpha("#ff4d6d", 0.08), "rgba(255, 77, 109, 0.08)");
  assert.equal(SHADES.threatZone, alpha(THREAT, 0.08));
  assert.equal(SHADES.viewEdge, alpha(NEIGHBOURS.social, 0.45));
});

test("labelParts: a code name in a label is shown as written and read as words", () => {
  assert.deepEqual(labelParts("Separation k_sep"), ["Separation ", { shown: "k_sep", spoken: "k sep" }]);
  assert.deepEqual(labelParts("Alignment range"), ["Alignment range"]);
  assert.deepEqual(labelParts("a_b and c_d_e."), [{ shown: "a_b", spoken: "a b" }, " and ", { shown: "c_d_e", spoken: "c d e" }, "."]);
  assert.deepEqual(labelParts("Boids"), ["Boids"]);
});

test("spokenValue: a slider's value is read with its unit in the spec's words", () => {
  const force = { kind: "float", decimals: 1, unit: "lengths/s²", unit_spoken: "lengths per second squared" };
  assert.equal(formatValue(force, 12), "12.0 lengths/s²");
  assert.equal(spokenValue(force, 12), "12.0 lengths per second squared");
  const rate = { kind: "int", unit: "/ s", unit_spoken: "per second" };
  assert.equal(spokenValue(rate, 6), "6 per second");
  // off the step: the full number, as shown
  assert.equal(spokenValue({ ...force, decimals: 0 }, 12.25), "12.25 lengths per second squared");
  // no unit, or a spec without spoken words: what is shown
  assert.equal(spokenValue({ kind: "float", decimals: 2, unit: "" }, 0.5), "0.50");
  assert.equal(spokenValue({ kind: "float", decimals: 0, unit: "L" }, 1), "1 L");
  assert.equal(spokenValue({ kind: "bool" }, true), "on");
  // one of a whole number: the singular (ParamSpec.unit_one), shown and said
  const pop = { kind: "int", unit: "animals", unit_spoken: "animals", unit_one: "animal", unit_one_spoken: "animal" };
  assert.deepEqual([formatValue(pop, 1), formatValue(pop, 2), formatValue(pop, 0)], ["1 animal", "2 animals", "0 animals"]);
  assert.deepEqual([spokenValue(pop, 1), spokenValue(pop, 150)], ["1 animal", "150 animals"]);
  assert.equal(formatValue({ ...force, unit_one: "length/s²" }, 1), "1.0 lengths/s²"); // a float keeps its unit
});

test("periodicCopies: a shape is drawn again across each edge it crosses, and only there", () => {
  const out = new Float64Array(18);
  const shifts = (x, y, m, W = 100, H = 50) => {
    const k = periodicCopies(x, y, m, W, H, out);
    return Array.from({ length: k }, (_, c) => [out[2 * c], out[2 * c + 1]]);
  };
  assert.deepEqual(shifts(50, 25, 2), [[0, 0]]);                       // inside: itself only
  assert.deepEqual(shifts(1, 25, 2), [[0, 0], [100, 0]]);              // across the left edge
  assert.deepEqual(shifts(99, 49, 2), [[0, 0], [-100, -50], [-100, 0], [0, -50]]);  // a corner: 4
  assert.deepEqual(shifts(50, 1, 2), [[0, 0], [0, 50]]);
  // wider than half the box: copies on both sides (the old per-axis rule drew only one)
  assert.equal(shifts(50, 25, 60).length, 9);
  // the same set as "x < m: +W, x > W - m: -W" for any small shape inside the box
  for (let x = 0.5; x < 100; x += 7.3) {
    for (let y = 0.25; y < 50; y += 4.1) {
      const ox = x < 3 ? 100 : x > 97 ? -100 : 0, oy = y < 3 ? 50 : y > 47 ? -50 : 0;
      const want = [[0, 0]];
      if (ox) want.push([ox, 0]);
      if (oy) want.push([0, oy]);
      if (ox && oy) want.push([ox, oy]);
      const key = (a) => a.map(String).sort().join(";");
      assert.equal(key(shifts(x, y, 3)), key(want), `${x}, ${y}`);
    }
  }
});

test("Lab 1's sensing panel draws its urges long enough to see beside the animal, and inside the panel", () => {
  const limit = 0.92 * 240 / 2;  // the panel at its smallest (240 CSS px square)
  // the urges a default run shows (space 0.97, alignment 0.19, cohesion 0.28): each longer than the animal
  const unit = arrowUnit(0.97, limit);
  for (const m of [0.97, 0.19, 0.28]) assert.ok(m * unit > 1.5 * ANIMAL_PX, `${m}: ${m * unit} px`);
  // a long urge (a threat's push of 4 units) reaches the panel's edge and no further; the unit stays fixed below 1
  assert.equal(4 * arrowUnit(4, limit), limit);
  assert.equal(arrowUnit(0.3, limit), arrowUnit(0.9, limit));
});

test("Lab 1's sensing sentences keep their tallest height at one width, so the page never jumps back", () => {
  // (an outside review: at a phone's width the changing counts wrapped the sentences to one line
  // more, then one less, a few times a second; a course page's self-sizing frame followed)
  const line = (el, lines) => { el.lines = lines; };
  const fakeEl = () => ({ lines: 2, style: { minHeight: "" }, clientWidth: 300,
    getBoundingClientRect() { return { height: Math.max(this.lines * 20, parseFloat(this.style.minHeight) || 0) }; } });
  const panel = { textEl: fakeEl(), countsEl: fakeEl(), heldWidth: undefined };
  const hold = () => SensePanel.prototype._holdHeights.call(panel);
  const seen = [];
  for (const lines of [2, 3, 2, 3, 2, 2]) {  // the text wraps to 2, 3, 2, 3 ... lines
    line(panel.textEl, lines);
    hold();
    seen.push(panel.textEl.getBoundingClientRect().height);
  }
  assert.deepEqual(seen, [40, 60, 60, 60, 60, 60]);  // grows once, never shrinks back
  panel.textEl.clientWidth = 200;  // another width (a turned phone): measured afresh
  line(panel.textEl, 4);
  hold();
  assert.equal(panel.textEl.style.minHeight, "80px");
  line(panel.textEl, 2);
  hold();
  assert.equal(panel.textEl.getBoundingClientRect().height, 80);
});

test("a chart's clock axis ticks whole minutes (1:00, 2:00), not 0:50, 1:40, 2:30", async () => {
  const { clockStep, formatClock } = await import("../../assets/js/ui/chart.js");
  for (const span of [121, 250, 300, 599, 900, 4000]) {
    const step = clockStep(span, 5);
    const ticks = Array.from({ length: Math.floor(span / step) }, (_, k) => formatClock((k + 1) * step));
    assert.ok(ticks.length >= 2 && ticks.length <= 10, `${span}: ${ticks}`);
    assert.ok(ticks.every((t) => /:(00|15|30|45)$/.test(t)), `${span}: ${ticks}`);
  }
  assert.equal(clockStep(250, 5), 60);
});

test("the projector palette: through the filter the sky is white and every hue a colour about 4.5:1 from it", async () => {
  const { projected, projectorLightness, contrastOnWhite, headingStyles, hslRgb } = await import("../../assets/js/ui/heading.js");
  assert.deepEqual(projected([0x0b / 255, 0x1d / 255, 0x2a / 255]), [1, 1, 1]);  // the dark sky turns white
  assert.deepEqual(hslRgb(120, 1, 0.5), [0, 1, 0]);
  for (let k = 0; k < 24; k++) {
    const h = (k + 0.5) * 15, c = contrastOnWhite(projected(hslRgb(h, 0.85, projectorLightness(h) / 100)));
    assert.ok(c >= 4.5 && c < 5.5, `hue ${h}: ${c.toFixed(2)}:1`);
  }
  assert.equal(headingStyles(24, true).length, 24);
  assert.notDeepEqual(headingStyles(24, true), headingStyles(24));
});


test("grouped: the same digit groups as params.grouped, case for case (tests/shared/grouped.json)", async () => {
  const { readFile } = await import("node:fs/promises");
  const { cases } = JSON.parse(await readFile(new URL("../shared/grouped.json", import.meta.url), "utf8"));
  assert.ok(cases.length > 10);
  for (const [text, want] of cases) assert.equal(grouped(text), want, text);
});

test("the key hint under a stage says what N and P step through in that lab", async () => {
  const { keyHints } = await import("../../assets/js/ui/keys.js");
  assert.match(keyHints("swarm"), /<kbd>P<\/kbd> next\/previous animal ·/);
  assert.match(keyHints("vicsek"), /<kbd>P<\/kbd> next\/previous arrow ·/);
  assert.doesNotMatch(keyHints("boids"), /next\/previous/);  // Lab 3 has no N/P
});

test("a copied link from a page opened as a file says where it opens", async () => {
  const { copiedHere, copiedWords } = await import("../../assets/js/ui/share.js");
  const words = copiedWords();
  assert.equal(copiedHere(words, "https:"), words);
  const file = copiedHere(words, "file:");
  assert.ok(file.startsWith(words) && file.includes("opens only where the same file sits in the same folder"), file);
});
