// The chart table's pure parts (ui/charttable.js): which samples become rows, and how they read.
import { test } from "node:test";
import assert from "node:assert/strict";

import { MAX_ROWS, formatTime, formatValue, tableRows } from "../../assets/js/ui/charttable.js";
import { ordinal } from "../../assets/js/ui/dom.js";

const hist = (n, dt = 0.25, markers = []) => ({
  t: Array.from({ length: n }, (_, k) => k * dt),
  series: { P: Array.from({ length: n }, (_, k) => k / n), s: Array.from({ length: n }, (_, k) => (k % 7 ? k : null)) },
  markers,
});

test("short histories: every sample is a row, in order, with its values", () => {
  const h = hist(10);
  const { rows, stride, count } = tableRows(h, ["P", "s"]);
  assert.equal(stride, 1);
  assert.equal(count, 10);
  assert.deepEqual(rows.map((r) => r.t), h.t);
  assert.deepEqual(rows[3].values, [0.3, 3]);
  assert.deepEqual(rows[0].values, [0, null]);
});

test("long histories: at most MAX_ROWS rows, evenly spaced, ending with the latest sample", () => {
  for (const n of [151, 300, 301, 1200, 2400]) {
    const h = hist(n);
    const { rows, stride } = tableRows(h, ["P"]);
    assert.ok(rows.length <= MAX_ROWS, `${n}: ${rows.length} rows`);
    assert.equal(stride, Math.ceil(n / MAX_ROWS));
    assert.equal(rows[rows.length - 1].t, h.t[n - 1]);
    for (let j = 1; j < rows.length; j++) assert.ok(Math.abs(rows[j].t - rows[j - 1].t - stride * 0.25) < 1e-9);
    assert.ok(rows[0].t < stride * 0.25, `${n}: the first row is among the first ${stride} samples`);
  }
});

test("markers go to the first row at or after them; late ones to the last row", () => {
  const h = hist(5, 1, [{ t: 0, label: "a" }, { t: 1.5, label: "b" }, { t: 2, label: "c" }, { t: 9, label: "late" }]);
  const { rows } = tableRows(h, ["P"]);
  assert.deepEqual(rows.map((r) => r.events), [["a"], [], ["b", "c"], [], ["late"]]);
  assert.deepEqual(tableRows(hist(0), ["P"]).rows, []);
});

test("cells read plainly", () => {
  assert.equal(formatValue(0.8234), "0.82");
  assert.equal(formatValue(150), "150");
  assert.equal(formatValue(null), "–");
  assert.equal(formatValue(NaN), "–");
  assert.equal(formatTime(1, 0.25), "1.00");
  assert.equal(formatTime(12, 1), "12");
  assert.equal(formatTime(0.5, 0.5), "0.5");
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 111].map(ordinal),
    ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "111th"]);
});

test("a column of a series with a readout is written with the readout's decimals and scale", () => {
  assert.equal(formatValue(0.82345, { key: "P", decimals: 3 }), "0.823");
  assert.equal(formatValue(0.0734, { key: "close", decimals: 1, scale: 100, unit: "%" }), "7.3");
  assert.equal(formatValue(150.4, { key: "N", decimals: 0 }), "150");
  assert.equal(formatValue(null, { key: "P", decimals: 3 }), "–");
  assert.equal(formatValue(0.82345), "0.82"); // a series without a readout: 2 decimals
});
