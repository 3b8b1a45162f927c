// A small canvas plot of P against update number: the last `updates` updates of the
// session's own history (metrics.History, mirrored by ui/history.js), with the level of
// random headings dashed and a thin line at each marker (a change of the knob, labelled
// by the session).  Drawing happens only when data changes or the canvas is resized.

import { fitCanvas } from "../../ui/dom.js";

const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';
const DASH = [4, 3];
const NO_DASH = [];
const LABEL_BG = "rgba(255, 255, 255, 0.85)";
const EMPTY = [];
const L = 30, R = 8, T = 8, B = 20; // the plot area's margins (CSS px)

export class PPlot {
  /** @param {object} opts {baseline}: E|P| of independent random headings (session constants);
   *  {updates}: how many updates it shows (the session's display.charts[0].window) */
  constructor(canvas, { baseline, updates }) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d");
    this.baseline = baseline;
    this.updates = updates;
    this.baselineLabel = `random ≈ ${baseline.toFixed(2)}`;
    this.hist = null;
    this.t0 = 0;   // the window's first update, and the plot area in CSS px (set by draw)
    this.pw = 1;
    this.ph = 1;
    this.cssW = 0;
    this.cssH = 0;
    this.dpr = 1;
    this.resize();
  }

  /** The history to draw (a HistoryMirror: t = update numbers, series.P, markers). */
  setData(hist) { this.hist = hist; }

  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(rect.width));
    const h = Math.max(1, Math.round(rect.height));
    const dpr = fitCanvas(this.canvas, w, h);
    this.cssW = w;
    this.cssH = h;
    this.dpr = dpr;
  }

  // ---- the transform: update t, P  ->  CSS px in the canvas (the window set by draw) ----
  X(t) { return L + ((t - this.t0) / (this.updates - 1)) * this.pw; }
  Y(p) { return T + (1 - p) * this.ph; }

  draw() {
    const g = this.g, W = this.cssW, H = this.cssH;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    const pw = W - L - R, ph = H - T - B;
    if (pw < 20 || ph < 20) return;
    const ts = this.hist ? this.hist.t : EMPTY;
    const ps = this.hist ? this.hist.series.P || EMPTY : EMPTY;
    const markers = this.hist ? this.hist.markers : EMPTY;
    const count = Math.min(ts.length, ps.length);
    const tNow = count ? ts[count - 1] : 0;
    const t0 = Math.max(0, tNow - this.updates + 1);
    const t1 = t0 + this.updates - 1;
    this.t0 = t0;
    this.pw = pw;
    this.ph = ph;

    g.font = FONT;
    g.lineWidth = 1;
    // frame and y grid
    g.strokeStyle = "#d9dee4";
    g.fillStyle = "#5b6875";
    g.textAlign = "right";
    g.textBaseline = "middle";
    g.beginPath();
    for (let k = 0; k <= 2; k++) {
      const y = Math.round(this.Y(k / 2)) + 0.5;
      g.moveTo(L, y); g.lineTo(L + pw, y);
    }
    g.stroke();
    g.fillText("1", L - 5, this.Y(1));
    g.fillText("0.5", L - 5, this.Y(0.5));
    g.fillText("0", L - 5, this.Y(0));
    // x ticks every 100 updates
    g.textAlign = "center";
    g.textBaseline = "top";
    const first = Math.ceil(t0 / 100) * 100;
    for (let t = first; t <= t1; t += 100) {
      if (t - t0 < 25 && t !== 0) continue;
      g.fillText(String(t), this.X(t), T + ph + 4);
    }
    // random baseline
    g.strokeStyle = "#9a5b00";
    g.setLineDash(DASH);
    g.beginPath();
    g.moveTo(L, this.Y(this.baseline)); g.lineTo(L + pw, this.Y(this.baseline));
    g.stroke();
    g.setLineDash(NO_DASH);
    g.fillStyle = "#9a5b00";
    g.textAlign = "right";
    g.textBaseline = "bottom";
    g.fillText(this.baselineLabel, L + pw - 2, this.Y(this.baseline) - 2);
    // marker lines (their labels, the session's words, are drawn last)
    g.strokeStyle = "rgba(20, 32, 43, 0.35)";
    g.fillStyle = "#14202b";
    g.textAlign = "left";
    g.textBaseline = "top";
    for (const m of markers) {
      if (m.t < t0 || m.t > t1) continue;
      const x = Math.round(this.X(m.t)) + 0.5;
      g.beginPath();
      g.moveTo(x, T); g.lineTo(x, T + ph);
      g.stroke();
    }
    // P line: the samples inside the window
    if (count > 0) {
      let j0 = count - 1;
      while (j0 > 0 && ts[j0 - 1] >= t0) j0--;
      g.strokeStyle = "#0f6fb3";
      g.lineWidth = 1.5;
      g.lineJoin = "round";
      g.beginPath();
      for (let j = j0; j < count; j++) {
        const x = this.X(ts[j]), y = this.Y(ps[j]);
        if (j === j0) g.moveTo(x, y); else g.lineTo(x, y);
      }
      g.stroke();
      g.fillStyle = "#0f6fb3";
      g.beginPath();
      g.arc(this.X(ts[count - 1]), this.Y(ps[count - 1]), 2.5, 0, 2 * Math.PI);
      g.fill();
    }
    // marker labels last, on a light backdrop, so the P line never hides them
    g.textAlign = "left";
    g.textBaseline = "top";
    for (const m of markers) {
      if (m.t < t0 || m.t > t1) continue;
      const x = Math.round(this.X(m.t)) + 0.5;
      g.fillStyle = LABEL_BG;
      g.fillRect(x + 1, T, g.measureText(m.label).width + 4, 13);
      g.fillStyle = "#14202b";
      g.fillText(m.label, x + 3, T + 1);
    }
  }
}
