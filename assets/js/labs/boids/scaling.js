// Lab 3's "Ten or ten thousand" panel (issue 17): grow the flock from 10 to 10,000 boids at
// the default density and measure, in this browser, the time per boid per step of
//   * the model's real step (cell-list neighbour search + the three rules), and
//   * the naive "everyone checks everyone" search of the same positions,
// both timed by the engine in its worker (session ops scale and cost, app/swarmlab/scaling.py).
// The chart is a small log-log SVG drawn from the measurements (redrawn per measurement, not
// per frame); a table under it holds the same numbers for screen readers and for copying.

import { capital, el, num as fmtN } from "../../ui/dom.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 340, H = 200, PAD = { l: 56, r: 24, t: 12, b: 34 }; // left: the "10,000" ticks and the axis title
// How each series is drawn (its words are the session's: display.scaling)
const SERIES_STYLE = {
  step_us: { cls: "bd-scale-local", mark: "circle" },
  naive_us: { cls: "bd-scale-naive", mark: "square" },
};
// Timing 10,000 boids takes about a second (several on a slow laptop, longer with a student's
// slow rule): the watchdog that guards a student's rule (engine.watch) waits this long for these
// two requests.
const PATIENCE_MS = 120_000;
const fmtUs = (us) => (us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2));

export class ScalingPanel {
  /**
   * @param {object} o
   *   engine, lab      the engine and the lab's name
   *   sizes            the experiment's populations (scaling.SIZES, from the session's constants)
   *   words            the panel's title, axes, series and slider label (display.scaling)
   *   track(promise)   the lab's stepper.track (tests settle on it)
   *   onScaled(state)  the session's state after a scale (the lab redraws world and controls)
   *   notify(msg, kind)
   */
  constructor(o) {
    Object.assign(this, o);
    this.series = o.words.series.map((s) => ({ ...SERIES_STYLE[s.key], ...s }));
    this.points = new Map(); // n -> {n, and a time per series key}
    this.busy = false;
    this.root = el("section", { class: "panel bd-scale", "aria-labelledby": "bd-scale-h" });
    const id = "bd-scale-n";
    this.slider = el("input", { type: "range", id, min: "0", max: String(this.sizes.length - 1), step: "1" });
    // (the slider says its value itself: aria-valuetext; the output is for the eye only)
    this.out = el("output", { for: id, class: "bd-scale-out", "aria-hidden": "true" });
    // a flock sized between the slider's steps (by the Population slider or a link): the thumb
    // stands on the nearest step, and this line says why (aria-valuetext says it too)
    this.between = el("p", { class: "help bd-scale-between", "aria-hidden": "true" });
    this.between.hidden = true;
    this.measureBtn = el("button", { type: "button", class: "btn bd-scale-all", text: "Measure every size" });
    // what is timed now, on screen; a live region says only a size's result or a sweep's start
    // and end (a sweep rewrites the progress line 17 times in a few seconds)
    this.status = el("p", { class: "bd-scale-status" });
    this.said = el("p", { class: "bd-scale-said sr-only", role: "status" });
    this.svg = document.createElementNS(SVG, "svg");
    this.svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    this.svg.setAttribute("class", "bd-scale-chart");
    this.svg.setAttribute("role", "img");
    this.table = el("table", { class: "bd-scale-table" });
    this.root.append(
      el("h3", { id: "bd-scale-h", text: o.words.title }),
      el("p", { class: "bd-scale-intro", text: "Grow the flock and the sky grows with it, so every boid keeps " +
        "the same few neighbours (each size starts the flock again). Each size is timed here, in your browser. The time per boid per step of this " +
        "model does not grow with the flock: it even falls at first, while a step's fixed cost is shared by more " +
        "boids, then levels off. Making every boid check every other boid costs more per boid the bigger the flock: " +
        "for a handful of boids it is the cheaper way, but once the flock has a few hundred boids the local way wins, " +
        "and by more the bigger the flock. The lines cross where your device says: the local line times the whole " +
        "step, rules included, and the other only the checking, which flatters it." }),
      el("div", { class: "ctl bd-scale-ctl" }, el("label", { for: id, text: o.words.slider }), this.out, this.slider,
        this.between),
      el("div", { class: "bd-scale-actions" }, this.measureBtn),
      this.status, this.said,
      el("figure", { class: "bd-scale-fig" }, this.svg,
        el("figcaption", { class: "bd-scale-legend" }, ...this.series.map((s) =>
          el("span", { class: `bd-scale-key ${s.cls}` }, el("span", { class: `bd-scale-swatch ${s.mark}`, "aria-hidden": "true" }), s.label)))),
      el("details", { class: "bd-scale-details" }, el("summary", { text: "The measurements as a table" }), this.table),
    );
    this.slider.addEventListener("input", () => this.label(this.sizes[Number(this.slider.value)]));
    this.slider.addEventListener("change", () => this.track(this.scaleTo(this.sizes[Number(this.slider.value)])));
    this.measureBtn.addEventListener("click", () => this.track(this.measureAll()));
    this.render();
  }

  /** Show a population on the slider (the nearest size) without changing the run. */
  showSize(n) {
    let k = 0;
    this.sizes.forEach((s, i) => { if (Math.abs(Math.log(s / n)) < Math.abs(Math.log(this.sizes[k] / n))) k = i; });
    this.slider.value = String(k);
    this.current = n;
    this.label(n);
  }

  /** The slider's visible and spoken value.  A flock the Population slider (or a link) sized
   *  between two of this slider's sizes says so, since the thumb then stands on the nearest. */
  label(n) {
    const between = !this.sizes.includes(n);
    this.out.textContent = `${fmtN(n)} boids`;
    this.between.hidden = !between;
    // (the page opens with 80 boids, between 30 and 100: said plainly, not as a puzzle)
    if (between) this.between.textContent = `The flock has ${fmtN(n)} boids, between this slider's sizes: ` +
      `the thumb stands at the nearest, ${fmtN(this.sizes[Number(this.slider.value)])}.`;
    this.slider.setAttribute("aria-valuetext", `${fmtN(n)} boids` + (between ? " (between this slider's sizes)" : ""));
  }

  /** Restart with n boids at the default density, then time it.  A size asked for while
   *  another is being timed (quick key presses on the slider) is kept and done next: the
   *  last one asked for is where the flock ends up, as the slider says. */
  async scaleTo(n) {
    if (this.busy) { this.pending = n; return; }
    this.setBusy(true);
    try {
      await this.scaleAndMeasure(n);
      while (this.pending !== undefined) {
        const next = this.pending;
        this.pending = undefined;
        if (next !== this.current) await this.scaleAndMeasure(next);
      }
    } finally {
      this.setBusy(false);
    }
    this.said.textContent = this.status.textContent; // the last size's result
  }

  /** While a size is timed the button says it is unavailable without being `disabled`, which
   *  would drop the keyboard focus on it to the page's body; a click then does nothing. */
  setBusy(on) {
    this.busy = on;
    this.measureBtn.setAttribute("aria-disabled", String(on));
  }

  async scaleAndMeasure(n) {
    const res = await this.engine.tryCall(this.lab, "scale", { n }, { patienceMs: PATIENCE_MS });
    if (!res.ok) { this.notify(res.error, "error"); return false; }
    this.showSize(n);
    this.onScaled(res.value);
    this.status.textContent = `Timing ${fmtN(n)} boids…`;
    // the engine times enough steps for a browser's coarse clock (scaling.timed_steps)
    const cost = await this.engine.tryCall(this.lab, "cost", {}, { patienceMs: PATIENCE_MS });
    if (!cost.ok) { this.notify(cost.error, "error"); return false; }
    const restarted = this.add(cost.value);
    const c = cost.value;
    this.status.textContent = (restarted ? "The settings changed since the last measurement, so the chart " +
      "starts again: times under other settings do not compare. " : "") +
      `${fmtN(c.n)} boids: ${fmtUs(c.step_us)} µs per boid per step for this model; ` +
      `${fmtUs(c.naive_us)} µs per boid for everyone checking everyone (the search alone).`;
    return true;
  }

  /** Every size from the smallest to the largest, then back to the size it started at. */
  async measureAll() {
    if (this.busy) return;
    this.setBusy(true);
    const back = this.current;
    this.said.textContent = `Measuring ${this.sizes.length} sizes, from ${fmtN(this.sizes[0])} to ` +
      `${fmtN(this.sizes[this.sizes.length - 1])} boids…`;
    try {
      for (const n of this.sizes) if (!(await this.scaleAndMeasure(n))) return;
      await this.scaleAndMeasure(back);
      // (the count the start announced; the way back times the flock's own size too)
      this.status.textContent = `Done: ${this.sizes.length} sizes measured, ` + (this.sizes.includes(back)
        ? `back to ${fmtN(back)} boids. ` : `then the flock's own ${fmtN(back)} boids, where it is now. `) + this.trend();
      this.said.textContent = this.status.textContent;
    } finally {
      this.pending = undefined; // a slider move during the sweep: the sweep's end wins
      this.setBusy(false);
    }
  }

  /** Keep a measurement; true when it started the chart again. */
  add(p) {
    // Measurements under other settings (a weight, a range, a student's rule) do not compare:
    // the chart starts again, and says why.
    const restart = this.settings !== undefined && p.settings !== this.settings && this.points.size > 0;
    if (restart) this.points.clear();
    this.settings = p.settings;
    const old = this.points.get(p.n);
    // a size measured again: keep the faster time (the least disturbed by other work)
    const best = { n: p.n };
    for (const { key } of this.series) best[key] = old ? Math.min(old[key], p[key]) : p[key];
    this.points.set(p.n, best);
    this.render();
    return restart;
  }

  /** One sentence on the two curves over the largest sizes measured (the last tenfold, where a
   *  step's fixed cost no longer dominates), from the measurements. */
  trend() {
    const pts = [...this.points.values()].sort((a, b) => a.n - b.n);
    if (pts.length < 2) return "";
    const b = pts[pts.length - 1];
    const a = pts.find((p) => p.n * 10 >= b.n) === b ? pts[pts.length - 2] : pts.find((p) => p.n * 10 >= b.n);
    const times = (k) => { const r = b[k] / a[k]; return r >= 9.95 ? r.toFixed(0) : r.toFixed(1); };
    return `From ${fmtN(a.n)} to ${fmtN(b.n)} boids (${fmtN(Math.round(b.n / a.n))} times as many) the time per boid ` +
      `became ${times("step_us")} times as long for this model and ${times("naive_us")} times as long for everyone checking everyone.`;
  }

  render() {
    const pts = [...this.points.values()].sort((a, b) => a.n - b.n);
    const lx = (n) => Math.log10(n);
    const x0 = lx(this.sizes[0]), x1 = lx(this.sizes[this.sizes.length - 1]);
    const ys = pts.flatMap((p) => this.series.map((s) => p[s.key])).filter((v) => v > 0);
    const y0 = Math.floor(Math.log10(ys.length ? Math.min(...ys) : 1));
    const y1 = Math.max(y0 + 1, Math.ceil(Math.log10(ys.length ? Math.max(...ys) : 100)));
    const px = (n) => PAD.l + ((lx(n) - x0) / (x1 - x0)) * (W - PAD.l - PAD.r);
    const py = (v) => H - PAD.b - ((Math.log10(v) - y0) / (y1 - y0)) * (H - PAD.t - PAD.b);
    const parts = [];
    for (const n of this.sizes.filter((s) => Number.isInteger(Math.log10(s)))) {
      parts.push(`<line class="grid" x1="${px(n)}" x2="${px(n)}" y1="${PAD.t}" y2="${H - PAD.b}"/>`,
        `<text class="tick" x="${px(n)}" y="${H - PAD.b + 14}" text-anchor="middle">${fmtN(n)}</text>`);
    }
    for (let e = y0; e <= y1; e++) {
      const v = 10 ** e;
      parts.push(`<line class="grid" x1="${PAD.l}" x2="${W - PAD.r}" y1="${py(v)}" y2="${py(v)}"/>`,
        `<text class="tick" x="${PAD.l - 4}" y="${py(v) + 4}" text-anchor="end">${v >= 1 ? fmtN(v) : v}</text>`);
    }
    const { x_label: xLabel, y_label: yLabel } = this.words;
    parts.push(`<text class="axis" x="${(PAD.l + W - PAD.r) / 2}" y="${H - 4}" text-anchor="middle">${xLabel}</text>`,
      `<text class="axis" transform="translate(8 ${(PAD.t + H - PAD.b) / 2}) rotate(-90)" text-anchor="middle">${yLabel}</text>`);
    for (const s of this.series) {
      const xy = pts.filter((p) => p[s.key] > 0).map((p) => [px(p.n), py(p[s.key])]);
      if (xy.length > 1) parts.push(`<polyline class="${s.cls}" points="${xy.map((q) => q.join(",")).join(" ")}"/>`);
      for (const [x, y] of xy) {
        parts.push(s.mark === "circle" ? `<circle class="${s.cls}" cx="${x}" cy="${y}" r="3.5"/>`
          : `<rect class="${s.cls}" x="${x - 3.5}" y="${y - 3.5}" width="7" height="7"/>`);
      }
    }
    this.svg.innerHTML = parts.join("");
    this.svg.setAttribute("aria-label", pts.length
      ? `${capital(yLabel)} against ${xLabel}. ${this.trend() || `${fmtN(pts[0].n)} boids measured.`}`
      : `${capital(yLabel)} against ${xLabel}: nothing measured yet. Move the slider or press Measure every size.`);
    this.table.innerHTML = `<caption>${capital(yLabel)}, measured in this browser</caption>
      <thead><tr><th scope="col">boids</th>${this.series.map((s) => `<th scope="col">${s.label}</th>`).join("")}</tr></thead>
      <tbody>${pts.map((p) => `<tr><th scope="row">${fmtN(p.n)}</th>${this.series.map((s) => `<td>${fmtUs(p[s.key])}</td>`).join("")}</tr>`).join("")}</tbody>`;
    this.root.dataset.points = String(pts.length);
  }
}
