// The line chart (assets/js/ui/chart.js) without a browser: the legend is laid out once a width,
// not on every redraw (a redraw refills the chart's kept layout; see the module's header).
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.window = globalThis;
globalThis.devicePixelRatio = 2;
const { LineChart, X_TICK_GAP, timeStep } = await import("../../assets/js/ui/chart.js");

/** A canvas whose 2-D context draws nothing and counts measureText calls. */
function fakeCanvas(width, height) {
  const noop = () => {};
  const g = { measured: 0, measureText(s) { this.measured++; return { width: 6.5 * s.length }; } };
  for (const k of ["setTransform", "clearRect", "fillRect", "fillText", "beginPath", "moveTo", "lineTo", "stroke",
    "setLineDash", "strokeRect", "save", "restore", "translate", "rotate", "rect", "clip", "arc"]) g[k] = noop;
  const canvas = { width: 0, height: 0, style: {}, getContext: () => g, hasAttribute: () => false,
    setAttribute() {}, addEventListener() {}, getBoundingClientRect: () => ({ width, height }) };
  return { canvas, g, resizeTo(w, h) { width = w; height = h; } };
}

/** fakeCanvas, also drawing dots, that keeps every text drawn in `texts`. */
function textCanvas(width, height) {
  const f = fakeCanvas(width, height);
  f.texts = [];
  f.g.fillText = (s) => f.texts.push(s);
  f.g.arc = () => {};
  f.g.fill = () => {};
  return f;
}

const OPTS = {
  title: "Agreement", xLabel: "model time", minSpan: 10,
  axes: { left: { label: "agreement", min: 0, max: 1 }, right: { label: "lengths", min: 0, auto: true, minMax: 4 } },
  series: [{ key: "P", label: "whole group", color: "#0f6fb3" }, { key: "local", label: "local", color: "#0f6fb3", dash: [6, 4] },
    { key: "spacing", label: "spacing", color: "#c2570c", axis: "right" }],
};

function data(n) {
  const t = [], P = [], local = [], spacing = [];
  for (let i = 0; i < n; i++) { t.push(i / 4); P.push((i % 7) / 7); local.push((i % 5) / 5); spacing.push(2 + (i % 3)); }
  return { t, series: { P, local, spacing }, markers: [{ t: 10, label: "threat" }] };
}

test("the legend is measured once per width, not on every redraw", () => {
  const f = fakeCanvas(600, 220);
  const chart = new LineChart(f.canvas, OPTS);
  const once = f.g.measured;
  assert.equal(once, 3, "one measure per legend entry");
  for (let i = 0; i < 10; i++) chart.setData(data(40));
  assert.equal(f.g.measured, once);
  f.resizeTo(200, 220);
  chart.resize();
  assert.equal(f.g.measured, 2 * once, "a new width lays the legend out again");
});

test("a window chart scrolls with the data, labels its markers and draws its reference level", () => {
  const f = textCanvas(600, 120);
  const texts = f.texts;
  const chart = new LineChart(f.canvas, {
    compact: true, legend: false, window: 600, xFormat: String, axes: { left: { min: 0, max: 1, ticks: 2 } },
    series: [{ key: "P", label: "P", color: "#0f6fb3" }], levels: [{ value: 0.11, label: "random ≈ 0.11" }],
    markerLabels: true, lastPoint: true,
  });
  const run = (n, markers) => {
    const t = Array.from({ length: n }, (_, k) => k);
    texts.length = 0;
    chart.setData({ t, series: { P: t.map((k) => (k % 10) / 10) }, markers });
  };
  run(40, [{ t: 20, label: "alignment a 0.30" }]);  // early on: the axis starts at 0
  assert.equal(chart.xMin, 0);
  assert.ok(texts.includes("0") && texts.includes("500") && texts.includes("alignment a 0.30"));
  assert.ok(texts.includes("random ≈ 0.11"));
  run(750, [{ t: 20, label: "alignment a 0.30" }, { t: 300, label: "alignment a 1.00" }]);
  assert.deepEqual([chart.xMin, chart.xMax], [150, 749]);  // the last 600 updates
  assert.equal(chart.xOf(150), chart.plot.x);
  assert.equal(chart.xOf(749), chart.plot.x + chart.plot.w);
  assert.deepEqual(texts.filter((s) => /^\d+$/.test(s)).slice(-6), ["200", "300", "400", "500", "600", "700"]);
  assert.ok(texts.includes("alignment a 1.00") && !texts.includes("alignment a 0.30"), "only markers in the window");
  // a marker scrolled out of the window cannot be hovered either (t = 148, the window from 150)
  chart.setData({ t: Array.from({ length: 750 }, (_, k) => k), series: { P: [] }, markers: [{ t: 148, label: "gone" }] });
  assert.equal(chart.markerNear(chart.plot.x + 1), null);
  assert.equal(chart.markerNear(chart.xOf(300)), null);
});

test("levelOf: a session's chart level (label, constant, decimals) becomes the dashed line's value and words", async () => {
  const { levelOf } = await import("../../assets/js/ui/chart.js");
  const chart = { level: { label: "random", constant: "baseline", decimals: 2 } };
  assert.deepEqual(levelOf(chart, { baseline: 0.1127, n: 64 }), { value: 0.1127, label: "random ≈ 0.11" });
  assert.equal(levelOf({ level: { ...chart.level, decimals: 3 } }, { baseline: 0.1127 }).label, "random ≈ 0.113");
});

test("a compact chart names its axes only when asked (axisTitles), and keeps its plot's size for them", () => {
  const draw = (extra) => {
    const f = textCanvas(600, 136);
    const chart = new LineChart(f.canvas, {
      compact: true, legend: false, window: 600, xFormat: String, xLabel: "update",
      axes: { left: { label: "P", min: 0, max: 1, ticks: 2 } }, series: [{ key: "P", label: "shared heading P" }], ...extra,
    });
    chart.setData({ t: [0, 1, 2], series: { P: [0.1, 0.2, 0.3] }, markers: [] });
    return { texts: f.texts, plot: { ...chart.plot } };
  };
  const plain = draw({}), titled = draw({ axisTitles: true });
  assert.ok(!plain.texts.includes("update") && !plain.texts.includes("P"), "a live strip beside its own titles stays bare");
  assert.ok(titled.texts.includes("update") && titled.texts.includes("P"), titled.texts);
  assert.ok(titled.plot.x > plain.plot.x && titled.plot.h < plain.plot.h, "room for the titles is kept");
});


test("a narrow chart's time labels never run together, and a lone first sample shows as a dot", () => {
  // a phone's small chart after five model minutes: "0:001:002:003:004:005:00" was drawn as one string
  const f = fakeCanvas(170, 120);
  const labels = [];
  f.g.fillText = (text, x, y) => { if (/^\d+:\d\d$/.test(text)) labels.push(x); };
  const arcs = [];
  f.g.arc = (x, y) => arcs.push([x, y]);
  const chart = new LineChart(f.canvas, { ...OPTS, compact: true, legend: false });
  chart.setData(data(1201));  // 0 to 300 s
  assert.ok(labels.length >= 2, `${labels.length} time labels`);
  for (let k = 1; k < labels.length; k++) assert.ok(labels[k] - labels[k - 1] >= X_TICK_GAP, `labels at ${labels}`);
  assert.equal(arcs.length, 0, "no dots in a run of lines");
  // a run that starts paused has one sample: each series shows it as a dot, not an empty frame
  labels.length = 0;
  chart.setData({ t: [0], series: { P: [0.4], local: [null], spacing: [3] }, markers: [] });
  assert.equal(arcs.length, 2, "P and spacing, not the missing local");
  // the step rule itself: at most `most` intervals, m:ss steps for a clock
  assert.equal(timeStep(300, 5, 2, true), 300);
  assert.equal(timeStep(300, 5, 10, true), 60);
  assert.equal(timeStep(100, 5, 3, false), 50);
  assert.equal(timeStep(100, 5, 10, false), 20);
});
