// The line chart (assets/js/ui/chart.js) without a browser: the legend is laid out once a width,
// not on every redraw (a redraw refills the chart's kept layout; see the module's header).
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.window = globalThis;
globalThis.devicePixelRatio = 2;
const { LineChart } = await import("../../assets/js/ui/chart.js");

/** A canvas whose 2-D context draws nothing and counts measureText calls. */
function fakeCanvas(width, height) {
  const noop = () => {};
  const g = { measured: 0, measureText(s) { this.measured++; return { width: 6.5 * s.length }; } };
  for (const k of ["setTransform", "clearRect", "fillRect", "fillText", "beginPath", "moveTo", "lineTo", "stroke",
    "setLineDash", "strokeRect", "save", "restore", "translate", "rotate", "rect", "clip"]) g[k] = noop;
  const canvas = { width: 0, height: 0, style: {}, getContext: () => g, hasAttribute: () => false,
    setAttribute() {}, addEventListener() {}, getBoundingClientRect: () => ({ width, height }) };
  return { canvas, g, resizeTo(w, h) { width = w; height = h; } };
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
