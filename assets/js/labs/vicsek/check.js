// The eight-seed check, run in the engine worker in chunks that ride on the stage's requests.
//
// The Python session does the work (op_check_start / op_check_advance / op_check_result,
// the same CheckRun as `python -m swarmlab vicsek-check`).  This module only decides
// how many units each request carries: it measures the engine cost of one unit (an update
// of all 16 replicas in "batched" mode) and sizes each chunk to a time budget, so the
// stage keeps its frame rate while the check runs.

import { num, say } from "../../ui/dom.js";

const SVG = "http://www.w3.org/2000/svg";

export class CheckRunner {
  /**
   * The check's share of each engine request.  The page's stepper asks ops(budgetMs) for
   * the ops to add to this frame's request and hands each reply back to ingest(), so the
   * check rides on the same scheduler as the stage: its chunk is sized from the measured
   * cost of one unit and a budget that follows the measured frame interval.
   * @param {object} hooks    { onProgress(p), onDone(result, info), onError(message) }
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.state = "idle"; // idle | starting | running | finishing | done | error
    this.costMs = null;  // measured engine cost of one unit (EMA)
    this.calls = 0;
    this.units = 0;
    this.maxCallMs = 0;
    this.workMs = 0;
    this.startedAt = 0;
    this.progress = 0;
    this.result = null;
  }

  /** Start (or start again: a new engine worker has no check) from the first update. */
  start(mode = "batched") {
    this.mode = mode;
    this.state = "starting";
    this.startedAt = performance.now();
    this.calls = this.units = this.maxCallMs = this.workMs = this.progress = 0;
    this.sent = new WeakSet(); // the ops of this start: a reply to an earlier start's is dropped
  }

  /** Whether the check is under way (started and not yet done or failed). */
  get busy() {
    return this.state === "starting" || this.state === "running" || this.state === "finishing";
  }

  /** The ops this request should carry (at most about `budgetMs` of engine work). */
  ops(budgetMs) {
    let op = null;
    if (this.state === "starting") op = ["check_start", { mode: this.mode }];
    else if (this.state === "finishing") op = ["check_result", {}];
    else if (this.state === "running") {
      let n = 1;
      if (this.costMs !== null) n = Math.max(1, Math.min(2000, Math.floor(budgetMs / this.costMs)));
      op = ["check_advance", { updates: n }];
    }
    if (!op) return [];
    this.sent.add(op);
    return [op];
  }

  /** One reply's result for one of our ops. */
  ingest(op, r) {
    if (!this.sent || !this.sent.has(op)) return; // sent before the check started again
    if (r.error !== undefined) { this._fail(r.error); return; }
    const v = r.value;
    if (op[0] === "check_start") {
      this.total = v.total;
      this.state = "running";
      this.hooks.onProgress && this.hooks.onProgress(0);
    } else if (op[0] === "check_advance") {
      const n = op[1].updates;
      this.calls++;
      this.units += Math.max(0, Math.min(n, this.total - this.units)); // the session stops at the end
      this.workMs += r.ms;
      this.maxCallMs = Math.max(this.maxCallMs, r.ms);
      const per = r.ms / n;
      this.costMs = this.costMs === null ? per : 0.7 * this.costMs + 0.3 * per;
      this.progress = v.progress;
      this.hooks.onProgress && this.hooks.onProgress(v.progress);
      if (v.done) this.state = "finishing";
    } else if (op[0] === "check_result") {
      this.result = v;
      this.state = "done";
      this.hooks.onDone && this.hooks.onDone(this.result, this.info());
    }
  }

  info() {
    return {
      mode: this.mode,
      calls: this.calls,
      units: this.units,
      maxCallMs: this.maxCallMs,
      meanCallMs: this.calls ? this.workMs / this.calls : 0,
      unitMs: this.costMs,
      elapsedMs: performance.now() - this.startedAt,
    };
  }

  _fail(message) {
    this.state = "error";
    console.error("[vicsek] eight-seed check failed:", message);
    this.hooks.onError && this.hooks.onError(String(message));
  }
}

/** Fill `table` (a <table>) with the check result (its numbers as the session writes them:
 *  result.shown); `c` is the session's constants (the updates measured: after `warmup`, the
 *  next `measure`). */
export function renderTable(table, result, c) {
  table.replaceChildren();
  const cap = document.createElement("caption");
  cap.textContent = `Average P over updates ${num(c.warmup + 1)}–${num(c.warmup + c.measure)}, for each seed`;
  const thead = document.createElement("thead");
  thead.innerHTML = `<tr><th scope="col">Seed</th><th scope="col">P with a = 0</th><th scope="col">P with a = 1</th></tr>`;
  const tbody = document.createElement("tbody");
  const shown = result.shown;
  for (const row of shown.seeds) {
    const tr = document.createElement("tr");
    tr.dataset.seed = String(row.seed);
    tr.innerHTML = `<th scope="row">${row.seed}</th><td data-col="a0">${row.a0}</td><td data-col="a1">${row.a1}</td>`;
    tbody.append(tr);
  }
  const tfoot = document.createElement("tfoot");
  const mean = document.createElement("tr");
  mean.dataset.row = "mean";
  mean.innerHTML = `<th scope="row">Mean</th><td data-col="a0">${shown.mean.a0}</td><td data-col="a1">${shown.mean.a1}</td>`;
  const range = document.createElement("tr");
  range.dataset.row = "range";
  const r0 = shown.range.a0, r1 = shown.range.a1;
  range.innerHTML = `<th scope="row">Range</th><td data-col="a0">${r0[0]}–${r0[1]}</td><td data-col="a1">${r1[0]}–${r1[1]}</td>`;
  tfoot.append(mean, range);
  table.append(cap, thead, tbody, tfoot);
}

function el(name, attrs = {}, text = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  return e;
}

/** Tick step for an axis span: about 4-6 ticks. */
function tickStep(span, maxTicks = 6) {
  for (const st of [0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2]) if (span / st <= maxTicks) return st;
  return 0.25;
}

/**
 * Each seed's dot, the range bar and the mean tick of one column (`key`) on a line at
 * height y, with x = X(value).  Dots closer than a diameter are stacked up and down
 * (a small beeswarm), so all eight stay visible.
 */
function drawRow(g, result, key, X, y, r) {
  const [lo, hi] = result.range[key];
  g.append(el("line", { x1: X(lo), x2: X(hi), y1: y, y2: y, class: `range ${key}` }));
  const order = result.seeds.map((row, k) => k).sort((a, b) => result.seeds[a][key] - result.seeds[b][key]);
  const placed = []; // [x, level]
  for (const k of order) {
    const row = result.seeds[k];
    const x = X(row[key]);
    let level = 0;
    for (let tries = 0; tries < 16; tries++) {
      const cand = tries === 0 ? 0 : (tries % 2 ? 1 : -1) * Math.ceil(tries / 2);
      if (!placed.some(([px, pl]) => pl === cand && Math.abs(px - x) < 2 * r + 1)) { level = cand; break; }
    }
    placed.push([x, level]);
    const c = el("circle", { cx: x, cy: y + level * (1.6 * r), r, class: `dot ${key}` });
    c.dataset.seed = String(row.seed);
    c.dataset.value = String(row[key]);
    c.append(el("title", {}, `seed ${row.seed}: P = ${result.shown.seeds[k][key]}`));
    g.append(c);
  }
  const mx = X(result.mean[key]);
  g.append(el("line", { x1: mx, x2: mx, y1: y - 2.6 * r, y2: y + 2.6 * r, class: `mean ${key}` }));
}

function drawAxis(g, X, y, from, to, step, digits) {
  g.append(el("line", { x1: X(from), x2: X(to), y1: y, y2: y, class: "axis" }));
  const first = Math.ceil(from / step - 1e-9);
  for (let k = first; k * step <= to + 1e-9; k++) {
    const v = k * step;
    const x = X(v);
    g.append(el("line", { x1: x, x2: x, y1: y, y2: y + 4, class: "axis" }));
    g.append(el("text", { x, y: y + 15, "text-anchor": "middle", class: "tick" }, v.toFixed(digits)));
  }
}

/**
 * The dot plot: first all 16 runs on the full 0..1 scale (a = 0 next to the
 * random-heading baseline, about 0.11, a = 1 far to the right), then a close-up of each column on its own
 * axis, where each seed's dot, the range bar and the mean tick can be told apart.
 * Drawn at 1:1 scale for the container's width, so the text stays readable on a phone.
 */
export function renderDotPlot(container, result, baseline) {
  const BASELINE = baseline; // E|P| of random headings, from the session's constants
  const shownBaseline = baseline.toFixed(2);
  const W = Math.round(Math.max(300, Math.min(640, container.clientWidth || 560)));
  const L = 56, R = 18;
  const pw = W - L - R;
  const r = 4.5;
  const m = result.mean;
  const shown = result.shown; // the numbers as the session writes them
  const parts = [];
  let y = 0;

  // -- overview, 0..1
  const ov = el("g", { class: "overview" });
  const X = (p) => L + p * pw;
  ov.append(el("text", { x: 0, y: y + 13, class: "part-title" }, `All ${2 * result.seeds.length} runs, full scale`));
  const rowsY = { a0: y + 42, a1: y + 80 };
  const axisY = y + 112;
  ov.append(el("line", { x1: X(BASELINE), x2: X(BASELINE), y1: y + 22, y2: axisY, class: "baseline" }));
  ov.append(el("text", { x: X(BASELINE) + 5, y: axisY - 6, class: "baseline-label" }, `random headings ≈ ${shownBaseline}`));
  for (const key of ["a0", "a1"]) {
    ov.append(el("text", { x: L - 10, y: rowsY[key] + 4, "text-anchor": "end", class: "row-label" }, key === "a0" ? "a = 0" : "a = 1"));
    drawRow(ov, result, key, X, rowsY[key], r * 0.8);
    const right = m[key] < 0.7;
    const [lo, hi] = result.range[key];
    ov.append(el("text", {
      x: right ? X(hi) + 12 : X(lo) - 12, y: rowsY[key] + 4, "text-anchor": right ? "start" : "end", class: "mean-label",
    }, `mean ${shown.mean[key]}`));
  }
  drawAxis(ov, X, axisY, 0, 1, 0.2, 1);
  ov.append(el("text", { x: L + pw / 2, y: axisY + 30, "text-anchor": "middle", class: "tick" }, "average P over the measured updates"));
  parts.push(ov);
  y = axisY + 44;

  // -- close-ups, one per column, each on its own axis
  for (const key of ["a0", "a1"]) {
    const [lo, hi] = result.range[key];
    // the a = 0 close-up also shows the random-heading baseline when it is nearby
    const near = key === "a0" && BASELINE > lo - 0.05 && BASELINE < hi + 0.05;
    const lo2 = near ? Math.min(lo, BASELINE) : lo, hi2 = near ? Math.max(hi, BASELINE) : hi;
    const pad = Math.max(0.004, 0.12 * (hi2 - lo2));
    const step = tickStep(hi2 - lo2 + 2 * pad, pw < 320 ? 4 : 6);
    const from = Math.max(0, Math.floor((lo2 - pad) / step) * step);
    const to = Math.min(1, Math.ceil((hi2 + pad) / step) * step);
    const Xz = (p) => L + ((p - from) / (to - from)) * pw;
    const digits = step < 0.01 ? 3 : 2;
    const g = el("g", { class: `zoom ${key}` });
    const title = `Close-up, a = ${key === "a0" ? 0 : 1}`;
    g.append(el("text", { x: 0, y: y + 13, class: "part-title" },
      W >= 480 ? `${title}: seeds from ${shown.range[key][0]} to ${shown.range[key][1]}, mean ${shown.mean[key]}` : title));
    const rowY = y + 40;
    const zAxis = y + 66;
    if (BASELINE >= from && BASELINE <= to) {
      g.append(el("line", { x1: Xz(BASELINE), x2: Xz(BASELINE), y1: y + 22, y2: zAxis, class: "baseline" }));
      g.append(el("text", { x: Xz(BASELINE) + 4, y: y + 26, class: "baseline-label" }, shownBaseline));
    }
    g.append(el("text", { x: L - 10, y: rowY + 4, "text-anchor": "end", class: "row-label" }, key === "a0" ? "a = 0" : "a = 1"));
    drawRow(g, result, key, Xz, rowY, r);
    drawAxis(g, Xz, zAxis, from, to, step, digits);
    parts.push(g);
    y = zAxis + 30;
  }

  const H = Math.round(y);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "vk-dotplot", role: "img" });
  svg.setAttribute("aria-label",
    `Dot plot of each seed's average P. With a = 0 the ${say(result.seeds.length)} seeds lie between ${shown.range.a0[0]} and ` +
    `${shown.range.a0[1]}, mean ${shown.mean.a0}, around the ${shownBaseline} of random headings. With a = 1 they lie ` +
    `between ${shown.range.a1[0]} and ${shown.range.a1[1]}, mean ${shown.mean.a1}.`);
  svg.append(...parts);
  container.replaceChildren(svg);
}
