// A small canvas plot of P against update number, with the 0.11 random-heading
// baseline marked and thin marks where the alignment knob was changed.
// Data lives in preallocated typed arrays (a ring of the last WINDOW updates);
// drawing happens only when data changes or the canvas is resized.

import { fitCanvas } from "../../ui/dom.js";

export const WINDOW = 600;     // updates shown
const MAX_MARKS = 24;
const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';
const DASH = [4, 3];
const NO_DASH = [];

export class PPlot {
  constructor(canvas, { baseline = 0.11 } = {}) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d");
    this.baseline = baseline;
    this.t = new Float64Array(WINDOW);
    this.p = new Float32Array(WINDOW);
    this.head = -1;
    this.count = 0;
    this.markT = new Float64Array(MAX_MARKS);
    this.markA = new Float32Array(MAX_MARKS);
    this.marks = 0;
    this.cssW = 0;
    this.cssH = 0;
    this.dpr = 1;
    this.resize();
  }

  clear() {
    this.head = -1;
    this.count = 0;
    this.marks = 0;
  }

  push(t, p) {
    this.head = (this.head + 1) % WINDOW;
    this.t[this.head] = t;
    this.p[this.head] = p;
    this.count = Math.min(WINDOW, this.count + 1);
  }

  /** Mark a knob change at update t to value a (kept while inside the window). */
  mark(t, a) {
    if (this.marks > 0 && this.markT[this.marks - 1] === t) { this.markA[this.marks - 1] = a; return; }
    if (this.marks === MAX_MARKS) {
      this.markT.copyWithin(0, 1);
      this.markA.copyWithin(0, 1);
      this.marks--;
    }
    this.markT[this.marks] = t;
    this.markA[this.marks] = a;
    this.marks++;
  }

  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(rect.width));
    const h = Math.max(1, Math.round(rect.height));
    const dpr = fitCanvas(this.canvas, w, h);
    this.cssW = w;
    this.cssH = h;
    this.dpr = dpr;
  }

  draw() {
    const g = this.g, W = this.cssW, H = this.cssH;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    const L = 30, R = 8, T = 8, B = 20;
    const pw = W - L - R, ph = H - T - B;
    if (pw < 20 || ph < 20) return;
    const tNow = this.count ? this.t[this.head] : 0;
    const t0 = Math.max(0, tNow - WINDOW + 1);
    const t1 = t0 + WINDOW - 1;
    const X = (t) => L + ((t - t0) / (t1 - t0)) * pw;
    const Y = (p) => T + (1 - p) * ph;

    g.font = FONT;
    g.lineWidth = 1;
    // frame and y grid
    g.strokeStyle = "#d9dee4";
    g.fillStyle = "#5b6875";
    g.textAlign = "right";
    g.textBaseline = "middle";
    g.beginPath();
    for (let k = 0; k <= 2; k++) {
      const y = Math.round(Y(k / 2)) + 0.5;
      g.moveTo(L, y); g.lineTo(L + pw, y);
    }
    g.stroke();
    g.fillText("1", L - 5, Y(1));
    g.fillText("0.5", L - 5, Y(0.5));
    g.fillText("0", L - 5, Y(0));
    // x ticks every 100 updates
    g.textAlign = "center";
    g.textBaseline = "top";
    const first = Math.ceil(t0 / 100) * 100;
    for (let t = first; t <= t1; t += 100) {
      if (t - t0 < 25 && t !== 0) continue;
      g.fillText(String(t), X(t), T + ph + 4);
    }
    // random baseline
    g.strokeStyle = "#9a5b00";
    g.setLineDash(DASH);
    g.beginPath();
    g.moveTo(L, Y(this.baseline)); g.lineTo(L + pw, Y(this.baseline));
    g.stroke();
    g.setLineDash(NO_DASH);
    g.fillStyle = "#9a5b00";
    g.textAlign = "right";
    g.textBaseline = "bottom";
    g.fillText("random ≈ 0.11", L + pw - 2, Y(this.baseline) - 2);
    // knob marks
    g.strokeStyle = "rgba(20, 32, 43, 0.35)";
    g.fillStyle = "#14202b";
    g.textAlign = "left";
    g.textBaseline = "top";
    for (let k = 0; k < this.marks; k++) {
      const t = this.markT[k];
      if (t < t0 || t > t1) continue;
      const x = Math.round(X(t)) + 0.5;
      g.beginPath();
      g.moveTo(x, T); g.lineTo(x, T + ph);
      g.stroke();
      g.fillText(`a=${this.markA[k].toFixed(2)}`, x + 2, T + 1);
    }
    // P line
    if (this.count > 0) {
      g.strokeStyle = "#0f6fb3";
      g.lineWidth = 1.5;
      g.lineJoin = "round";
      g.beginPath();
      const start = (this.head - this.count + 1 + WINDOW) % WINDOW;
      for (let j = 0; j < this.count; j++) {
        const k = (start + j) % WINDOW;
        const x = X(this.t[k]), y = Y(this.p[k]);
        if (j === 0) g.moveTo(x, y); else g.lineTo(x, y);
      }
      g.stroke();
      const x = X(this.t[this.head]), y = Y(this.p[this.head]);
      g.fillStyle = "#0f6fb3";
      g.beginPath();
      g.arc(x, y, 2.5, 0, 2 * Math.PI);
      g.fill();
    }
  }
}
