// The eight-seed check, run in the page in small chunks between animation frames.
//
// The Python session does the work (op_check_start / op_check_advance / op_check_result,
// the same CheckRun as `python -m swarmlab vicsek-check`).  This module only decides
// how many units to do per frame: it measures the cost of one unit (an update of all
// 16 replicas in "batched" mode) and sizes each chunk to stay within a time budget,
// so the page keeps drawing while the check runs.

const SVG = "http://www.w3.org/2000/svg";
export const BASELINE = 0.11;

/**
 * Format like Python's f"{x:.3f}".  JS toFixed rounds exact ties up, Python to even;
 * a double is an exact tie at 3 decimals only when 16*x is an odd integer.
 */
export function fmt3(x) {
  const y = 16 * x;
  if (Number.isInteger(y) && Math.abs(y) % 2 === 1) {
    const k = Math.floor(x * 1000); // x*1000 = k + 0.5 exactly (positive x)
    const even = k % 2 === 0 ? k : k + 1;
    return (even / 1000).toFixed(3);
  }
  return x.toFixed(3);
}

export class CheckRunner {
  /**
   * @param {object} engine   ctx.engine
   * @param {string} lab
   * @param {object} hooks    { onProgress(p), onDone(result, info), onError(message) }
   */
  constructor(engine, lab, hooks) {
    this.engine = engine;
    this.lab = lab;
    this.hooks = hooks;
    this.state = "idle"; // idle | running | done | error
    this.costMs = null;  // measured cost of one unit (EMA)
    this.chunk = 1;
    this.calls = 0;
    this.units = 0;
    this.maxCallMs = 0;
    this.workMs = 0;
    this.startedAt = 0;
    this.progress = 0;
    this.result = null;
    this.callLog = []; // (ms, units) per call, for measuring
  }

  start(mode = "batched") {
    try {
      const r = this.engine.call(this.lab, "check_start", { mode });
      this.total = r.total;
      this.mode = mode;
    } catch (err) {
      this._fail(err);
      return;
    }
    this.state = "running";
    this.startedAt = performance.now();
    this.hooks.onProgress && this.hooks.onProgress(0);
  }

  /** Do at most about `budgetMs` of work (at least one unit). */
  work(budgetMs) {
    if (this.state !== "running") return;
    let n = 1;
    if (this.costMs !== null) n = Math.max(1, Math.min(500, Math.floor(budgetMs / this.costMs)));
    const t0 = performance.now();
    let r;
    try {
      r = this.engine.call(this.lab, "check_advance", { updates: n });
    } catch (err) {
      this._fail(err);
      return;
    }
    const ms = performance.now() - t0;
    this.calls++;
    this.units += n;
    this.workMs += ms;
    this.maxCallMs = Math.max(this.maxCallMs, ms);
    if (this.callLog.length < 4000) this.callLog.push(Math.round(ms * 10) / 10, n);
    this.chunk = n;
    const per = ms / n;
    this.costMs = this.costMs === null ? per : 0.7 * this.costMs + 0.3 * per;
    this.progress = r.progress;
    this.hooks.onProgress && this.hooks.onProgress(r.progress);
    if (r.done) {
      try {
        this.result = this.engine.call(this.lab, "check_result", {});
      } catch (err) {
        this._fail(err);
        return;
      }
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

  _fail(err) {
    this.state = "error";
    const message = err && err.message ? err.message : String(err);
    console.error("[vicsek] eight-seed check failed:", err);
    this.hooks.onError && this.hooks.onError(message);
  }
}

/** Fill `table` (a <table>) with the check result. */
export function renderTable(table, result) {
  table.replaceChildren();
  const cap = document.createElement("caption");
  cap.textContent = "Average P over updates 1,001–1,500, for each seed";
  const thead = document.createElement("thead");
  thead.innerHTML = `<tr><th scope="col">Seed</th><th scope="col">P with a = 0</th><th scope="col">P with a = 1</th></tr>`;
  const tbody = document.createElement("tbody");
  for (const row of result.seeds) {
    const tr = document.createElement("tr");
    tr.dataset.seed = String(row.seed);
    tr.innerHTML = `<th scope="row">${row.seed}</th><td data-col="a0">${fmt3(row.a0)}</td><td data-col="a1">${fmt3(row.a1)}</td>`;
    tbody.append(tr);
  }
  const tfoot = document.createElement("tfoot");
  const mean = document.createElement("tr");
  mean.dataset.row = "mean";
  mean.innerHTML = `<th scope="row">Mean</th><td data-col="a0">${fmt3(result.mean.a0)}</td><td data-col="a1">${fmt3(result.mean.a1)}</td>`;
  const range = document.createElement("tr");
  range.dataset.row = "range";
  const r0 = result.range.a0, r1 = result.range.a1;
  range.innerHTML = `<th scope="row">Range</th><td data-col="a0">${fmt3(r0[0])}–${fmt3(r0[1])}</td><td data-col="a1">${fmt3(r1[0])}–${fmt3(r1[1])}</td>`;
  tfoot.append(mean, range);
  table.append(cap, thead, tbody, tfoot);
}

function el(name, attrs = {}, text = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  return e;
}

/**
 * A dot plot on a 0..1 axis: one row for a = 0 and one for a = 1, a dot per seed,
 * a bar for the range and a tick for the mean; the 0.11 baseline dashed.
 */
export function renderDotPlot(container, result) {
  const W = 520, H = 150, L = 64, R = 16, T = 10, B = 34;
  const pw = W - L - R;
  const X = (p) => L + p * pw;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "vk-dotplot", role: "img" });
  const m = result.mean;
  svg.setAttribute("aria-label",
    `Dot plot of each seed's average P: with a = 0 the mean is ${fmt3(m.a0)}, with a = 1 it is ${fmt3(m.a1)}.`);
  // axis
  const axisY = H - B;
  svg.append(el("line", { x1: L, x2: L + pw, y1: axisY, y2: axisY, class: "axis" }));
  for (let k = 0; k <= 10; k += 2) {
    const x = X(k / 10);
    svg.append(el("line", { x1: x, x2: x, y1: axisY, y2: axisY + 4, class: "axis" }));
    svg.append(el("text", { x, y: axisY + 16, "text-anchor": "middle", class: "tick" }, (k / 10).toFixed(1)));
  }
  svg.append(el("text", { x: L + pw / 2, y: H - 2, "text-anchor": "middle", class: "tick" }, "average P over the measured updates"));
  // baseline
  svg.append(el("line", { x1: X(BASELINE), x2: X(BASELINE), y1: T, y2: axisY, class: "baseline" }));
  svg.append(el("text", { x: X(BASELINE) + 5, y: axisY - 5, class: "baseline-label" }, "random headings ≈ 0.11"));
  const rows = [["a0", "a = 0", T + 28], ["a1", "a = 1", T + 72]];
  for (const [key, label, y] of rows) {
    svg.append(el("text", { x: L - 10, y: y + 4, "text-anchor": "end", class: "row-label" }, label));
    const [lo, hi] = result.range[key];
    svg.append(el("line", { x1: X(lo), x2: X(hi), y1: y, y2: y, class: `range ${key}` }));
    result.seeds.forEach((row, k) => {
      // a small vertical offset per seed so dots that nearly coincide stay visible
      const dy = (k - (result.seeds.length - 1) / 2) * 2.4;
      const c = el("circle", { cx: X(row[key]), cy: y + dy, r: 4, class: `dot ${key}` });
      c.append(el("title", {}, `seed ${row.seed}: ${fmt3(row[key])}`));
      svg.append(c);
    });
    const mx = X(result.mean[key]);
    svg.append(el("line", { x1: mx, x2: mx, y1: y - 12, y2: y + 12, class: `mean ${key}` }));
    // label beside the cluster, on whichever side has room
    const right = result.mean[key] < 0.7;
    svg.append(el("text", {
      x: right ? X(hi) + 12 : X(lo) - 12, y: y + 4, "text-anchor": right ? "start" : "end", class: "mean-label",
    }, `mean ${fmt3(result.mean[key])}`));
  }
  container.replaceChildren(svg);
}
