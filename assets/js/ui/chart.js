// A small canvas line chart for time series (no chart library).
//
//   import { LineChart } from "../ui/chart.js";
//   const chart = new LineChart(canvas, {
//     title: "Agreement",                         // drawn top-left and used in the aria-label
//     xLabel: "model time",                       // x is always "time-like": starts at 0; with the
//                                                 // default ticks the unit is added: "(s)" or "(min:s)"
//     minSpan: 10,                                // x axis spans at least this much
//     xFormat: (t) => `${t}`,                     // tick labels (default: seconds, or m:ss above 120)
//     axes: {                                     // "left" (required) and optionally "right"
//       left:  { label: "agreement", min: 0, max: 1 },              // fixed range
//       right: { label: "lengths", min: 0, auto: true, pad: 0.1,    // max follows the data (+10 %),
//                minMax: 4, ticks: 4 },                             // never below 4; ~4 tick intervals
//     },                                          // an axis may also carry scale: 100 (its tick
//                                                 // labels are v * scale, e.g. a share read in %)
//     series: [                                   // one line each; legend text = legend || label
//       { key: "P", label: "whole group", color: "#0f6fb3", axis: "left" },
//       { key: "local", label: "local", color: "#0f6fb3", dash: [6, 4], axis: "left", width: 2 },
//     ],
//     background: "#ffffff", markerColor: "#b07a00",
//     gutterRight: true,                          // keep the right axis's gutter even without one, so
//                                                 // charts stacked above each other share one time axis
//     compact: true,                              // a small live strip: no title or axis titles
//     axisTitles: true,                           // ... except these: a compact chart that stands
//                                                 // alone still names its axes (xLabel, axes' labels)
//     window: 600,                                // show only the last 600 x units (a scrolling
//                                                 // strip; without it the axis starts at 0)
//     levels: [{ value: 0.11, label: "random ≈ 0.11", color: "#9a5b00", axis: "left" }],
//                                                 // dashed reference lines, labelled at the right
//     markerLabels: true,                         // every marker's label drawn at its line (not
//                                                 // only the highlighted one's)
//     lastPoint: true,                            // a dot on each series' newest value
//     legend: false,                              // no legend (a figure caption names the line)
//     ariaLabel: "P over the last 600 updates",   // the canvas's name (default: built from the words)
//     onHoverMarker: (index | null) => {},        // hover over a marker line (e.g. sync another chart);
//   });                                           // without it the chart highlights the marker itself
//   chart.setData({ t: [...], series: { P: [...], local: [...] }, markers: [{ t, label }] });
//   chart.highlight(i | null);   // emphasise marker i and show its label (keyboard focus, hover)
//   chart.resize();              // after a layout change (a ResizeObserver calls it by itself)
//
// Values that are null or NaN break the line (a gap, not a drop to zero).  The
// canvas is sized from its CSS box and devicePixelRatio so lines stay crisp.
// Drawing happens only in setData/highlight/resize (never in a timer), so a chart
// costs nothing while its data does not change.  A redraw creates no arrays, objects or
// closures: the layout, axis ranges and legend are kept and refilled, and only the tick
// labels' strings are new (a chart is redrawn with every sample: 16 times a second at 4x).
// Everything is drawn on the canvas itself (title, legend, axes, marker label) so the canvas
// can be copied into an exported image as it is.

import { fitCanvas } from "./dom.js";

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';
const TITLE_FONT = `600 13px ${FONT}`;
const LEGEND_FONT = `12px ${FONT}`;
const TICK_FONT = `11px ${FONT}`;
const MARKER_FONT = `600 12px ${FONT}`;
const SOLID = Object.freeze([]);   // setLineDash's "no dash" and a series with no data: one array
const MARKER_DASH = Object.freeze([3, 3]);

/** "Nice" tick step for a span divided into about `count` intervals. */
export function niceStep(span, count = 5) {
  if (!(span > 0)) return 1;
  const raw = span / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / mag;
  const nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  return nice * mag;
}

/** A time axis longer than this (seconds) ticks as a clock, m:ss (defaultXFormat), with
 *  clockStep's steps, and says "(min:s)" (defaultXTitle). */
export const CLOCK_ABOVE_S = 120;

/** Tick steps of a clock axis (m:ss), seconds: whole minutes and their usual fractions. */
const CLOCK_STEPS = [15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/** A tick step for a span of seconds shown as m:ss (above CLOCK_ABOVE_S): 1:00, 2:00 …
 *  where niceStep's tens would read 0:50, 1:40, 2:30. */
export function clockStep(span, count = 5) {
  const raw = span / count;
  return CLOCK_STEPS.find((c) => c >= raw) || Math.ceil(raw / 3600) * 3600;
}

/** The next "nice" step above `step` (1, 2, 5, 10 times a power of ten). */
function nextNiceStep(step) {
  const mag = Math.pow(10, Math.floor(Math.log10(step) + 1e-9));
  const f = step / mag;
  return (f < 1.5 ? 2 : f < 3 ? 5 : 10) * mag;
}

/** How the charts draw each measure, the same in every lab (the words are the sessions':
 *  display.charts).  A line's colour and dash are drawing, so they live here, once. */
export const SERIES_STYLE = {
  P: { color: "#0f6fb3" },
  local: { color: "#0f6fb3", dash: [6, 4] },
  spacing: { color: "#c2570c" },
  very_close: { color: "#7b3fb8", dash: [6, 4] },
};

/** Vertical room per tick label, CSS px (11 px text and a little air): a short plot, such as a
 *  phone's live strip, gets fewer ticks instead of labels drawn over each other. */
export const TICK_LABEL_GAP = 14;

/** Horizontal room per time label, CSS px ("10:00" in the 11 px tick font and some air): a
 *  narrow chart, such as a phone's small charts, gets fewer time ticks, never labels run together. */
export const X_TICK_GAP = 44;

/** The time axis's tick step: about `count` intervals over `span` (m:ss steps when `clock`),
 *  widened until at most `most` intervals cover it. */
export function timeStep(span, count, most, clock) {
  let step = clock ? clockStep(span, Math.min(count, most)) : niceStep(span, Math.min(count, most));
  while (Math.ceil(span / step - 1e-9) > most) {
    step = clock ? CLOCK_STEPS.find((c) => c > step) || 2 * step : nextNiceStep(step);
  }
  return step;
}

/** m:ss for a time in seconds (m may exceed 59). */
export function formatClock(t) {
  const s = Math.max(0, Math.floor(t + 1e-9));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

function defaultXFormat(t, span) {
  if (span > CLOCK_ABOVE_S) return formatClock(t);
  return Number.isInteger(t) ? String(t) : t.toFixed(1);
}

/** The unit of defaultXFormat's ticks, named after the axis label: "model time (s)", then
 *  "model time (min:s)" once the ticks turn into a clock. */
export function defaultXTitle(label, span) {
  return `${label} (${span > CLOCK_ABOVE_S ? "min:s" : "s"})`;
}

function formatTick(v, step) {
  const decimals = Math.max(0, Math.min(4, Math.ceil(-Math.log10(step) - 1e-9)));
  return v.toFixed(decimals);
}

/** A dashed reference level from a session's chart spec (display.charts[k].level: {label,
 *  constant, decimals}) and its layout constants: {value, label: "random ≈ 0.11"}. */
export function levelOf(chart, consts) {
  const value = consts[chart.level.constant];
  return { value, label: `${chart.level.label} ≈ ${value.toFixed(chart.level.decimals)}` };
}

export class LineChart {
  constructor(canvas, opts = {}) {
    this.canvas = canvas;
    this.opts = opts;
    this.g = canvas.getContext("2d");
    this.data = { t: [], series: {}, markers: [] };
    this.highlighted = null;
    this.hoverMarker = null;
    this.plot = { x: 0, y: 0, w: 1, h: 1 };
    this.xMin = 0;
    this.xMax = opts.window ? opts.window - 1 : opts.minSpan || 10;
    // what a redraw refills instead of allocating: each axis's series keys and range, and the
    // legend's entries (laid out again only when the width changes)
    this.axes = opts.axes || { left: { min: 0, max: 1 } };
    this.sides = Object.keys(this.axes);
    const series = opts.series || [];
    this.axisKeys = {};
    this.ranges = {};
    for (const side of this.sides) {
      this.axisKeys[side] = series.filter((s) => (s.axis || "left") === side).map((s) => s.key);
      this.ranges[side] = { min: 0, max: 1, step: 1 };
    }
    this.legend = opts.legend === false ? [] : series.map((s) => ({ s, text: s.legend || s.label, x: 0, y: 0 }));
    this.legendLines = 0;
    this.legendWidth = -1;
    this.cssW = 0;
    this.cssH = 0;
    if (!canvas.hasAttribute("role")) canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", opts.ariaLabel || this._ariaLabel());
    canvas.addEventListener("mousemove", (ev) => this._hover(ev));
    canvas.addEventListener("mouseleave", () => this._setHover(null));
    if (typeof ResizeObserver !== "undefined") {
      this._ro = new ResizeObserver(() => this.resize());
      this._ro.observe(canvas);
    }
    this.resize();
  }

  _ariaLabel() {
    const o = this.opts;
    const names = (o.series || []).map((s) => s.label).join(", ");
    return `${o.title || "Chart"} over ${o.xLabel || "time"}: ${names}. Markers show setting changes and disturbances.`;
  }

  /** Read the CSS size and devicePixelRatio; redraw. */
  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const w = Math.max(120, Math.round(rect.width || this.canvas.clientWidth || 320));
    const h = Math.max(90, Math.round(rect.height || this.canvas.clientHeight || 160));
    const dpr = fitCanvas(this.canvas, w, h);
    this.cssW = w;
    this.cssH = h;
    this.dpr = dpr;
    this.draw();
  }

  /** Replace the data: {t: number[], series: {key: number[]}, markers: [{t, label}]}. */
  setData(data) {
    this.data.t = data.t || [];
    this.data.series = data.series || {};
    this.data.markers = data.markers || [];
    if (this.highlighted !== null && this.highlighted >= this.data.markers.length) this.highlighted = null;
    this.draw();
  }

  /** Emphasise marker `index` (or none) and show its label. */
  highlight(index) {
    this.highlighted = index === null || index === undefined ? null : index;
    this.draw();
  }

  /** Screen x (CSS px inside the canvas) of time t. */
  xOf(t) {
    return this.plot.x + ((t - this.xMin) / (this.xMax - this.xMin)) * this.plot.w;
  }

  /** Index of the marker nearest to CSS x within `tol` px, or null. */
  markerNear(px, tol = 6) {
    let best = null;
    let bestD = tol;
    this.data.markers.forEach((m, i) => {
      if (m.t < this.xMin || m.t > this.xMax) return; // scrolled out of a window chart
      const d = Math.abs(this.xOf(m.t) - px);
      if (d <= bestD) { best = i; bestD = d; }
    });
    return best;
  }

  _hover(ev) {
    const rect = this.canvas.getBoundingClientRect();
    this._setHover(this.markerNear(ev.clientX - rect.left));
  }

  _setHover(i) {
    if (i === this.hoverMarker) return;
    this.hoverMarker = i;
    this.canvas.style.cursor = i === null ? "" : "help";
    if (this.opts.onHoverMarker) this.opts.onHoverMarker(i);
    else this.highlight(i);
  }

  /** The range of axis `axis` into `out` ({min, max, step}): fixed, or following the data of
   *  its series `keys`, with at most `maxIntervals` tick intervals. */
  _range(axis, keys, maxIntervals, out) {
    const a = this.axes[axis];
    let min = a.min ?? 0;
    let max = a.max ?? 1;
    if (a.auto) {
      let hi = -Infinity;
      let lo = Infinity;
      for (const k of keys) {
        const arr = this.data.series[k] || SOLID;
        for (const v of arr) {
          if (v === null || !Number.isFinite(v)) continue;
          if (v > hi) hi = v;
          if (v < lo) lo = v;
        }
      }
      if (hi > -Infinity) {
        const pad = a.pad ?? 0.1;
        max = Math.max(a.minMax ?? 0, hi + (hi - Math.min(lo, min)) * pad);
        if (a.min === undefined || a.min === null) min = lo - (hi - lo) * pad;
        if (!(max > min)) max = min + 1;
      } else {
        max = a.minMax ?? max;
      }
    }
    let step = niceStep(max - min, a.ticks || 4);
    let top = a.auto ? Math.ceil(max / step - 1e-9) * step : max;  // an auto axis ends on a tick
    while ((top - min) / step > maxIntervals + 1e-9) {
      step = nextNiceStep(step);
      top = a.auto ? Math.ceil(max / step - 1e-9) * step : max;
    }
    out.min = min;
    out.max = top;
    out.step = step;
    return out;
  }

  /** Screen y (CSS px) of value v on axis `side`. */
  _yOf(side, v) {
    const r = this.ranges[side];
    return this.plot.y + this.plot.h - ((v - r.min) / (r.max - r.min)) * this.plot.h;
  }

  /** Lay the legend's entries out for width `w` (they flow onto as many lines as it needs). */
  _layoutLegend(w, compact) {
    if (w === this.legendWidth) return;
    const g = this.g;
    g.font = LEGEND_FONT;
    let lx = 8;
    let line = 0;
    for (const e of this.legend) {
      const wEntry = 27 + g.measureText(e.text).width;
      if (lx > 8 && lx + wEntry > w - 8) { lx = 8; line++; }
      e.x = lx;
      e.y = (compact ? 9 : 28) + 16 * line;
      lx += wEntry + 14;
    }
    this.legendLines = line;
    this.legendWidth = w;
  }

  draw() {
    const g = this.g;
    const o = this.opts;
    const w = this.cssW;
    const h = this.cssH;
    if (!w || !h) return;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    g.fillStyle = o.background || "#ffffff";
    g.fillRect(0, 0, w, h);

    const axes = this.axes;
    const series = o.series || SOLID;
    const hasRight = Boolean(axes.right);
    const compact = Boolean(o.compact);
    const titled = !compact || Boolean(o.axisTitles);  // axis titles drawn (and their room kept)
    const left = titled ? 46 : 34;
    const right = hasRight || o.gutterRight ? (titled ? 50 : 34) : 14;
    this._layoutLegend(w, compact);
    const top = this.legend.length ? (compact ? 20 : 40) + 16 * this.legendLines : compact ? 8 : 28;
    const bottom = titled ? 34 : 18;
    const plot = this.plot;
    plot.x = left;
    plot.y = top;
    plot.w = Math.max(10, w - left - right);
    plot.h = Math.max(10, h - top - bottom);

    const t = this.data.t;
    const tLast = t.length ? t[t.length - 1] : 0;
    let xStep;
    const xMost = Math.max(1, Math.floor(plot.w / X_TICK_GAP));  // time labels that fit side by side
    if (o.window) {  // the last `window` units: [tLast - window + 1, tLast], or from 0 at first
      xStep = timeStep(o.window, 5, xMost, false);
      this.xMin = Math.max(0, tLast - o.window + 1);
      this.xMax = this.xMin + o.window - 1;
    } else {
      const minSpan = o.minSpan || 10;
      const span = Math.max(minSpan, tLast);
      xStep = timeStep(span, 5, xMost, !o.xFormat && span > CLOCK_ABOVE_S);  // (m:ss ticks)
      this.xMax = Math.max(minSpan, Math.ceil(Math.max(tLast, 1e-9) / xStep) * xStep);
    }
    const xMin = this.xMin;
    const xMax = this.xMax;

    const ranges = this.ranges;
    const maxIntervals = Math.max(1, Math.floor(plot.h / TICK_LABEL_GAP));
    for (const side of this.sides) this._range(side, this.axisKeys[side], maxIntervals, ranges[side]);

    // title and legend
    g.textBaseline = "middle";
    g.font = TITLE_FONT;
    g.fillStyle = "#14202b";
    g.textAlign = "left";
    if (!compact) g.fillText(o.title || "", 8, 12);
    g.font = LEGEND_FONT;
    for (const { s, text, x, y } of this.legend) {
      g.strokeStyle = s.color;
      g.lineWidth = s.width || 2;
      g.setLineDash(s.dash || SOLID);
      g.beginPath();
      g.moveTo(x, y);
      g.lineTo(x + 22, y);
      g.stroke();
      g.setLineDash(SOLID);
      g.fillStyle = "#33414e";
      g.fillText(text, x + 27, y);
    }

    // grid and axes
    g.lineWidth = 1;
    g.strokeStyle = "#e3e8ed";
    g.fillStyle = "#5b6875";
    g.font = TICK_FONT;
    for (const side of this.sides) {
      const r = ranges[side];
      g.textAlign = side === "left" ? "right" : "left";
      for (let v = r.min; v <= r.max + r.step * 1e-6; v += r.step) {
        const y = Math.round(this._yOf(side, v)) + 0.5;
        if (side === "left" || !ranges.left) {
          g.beginPath();
          g.moveTo(plot.x, y);
          g.lineTo(plot.x + plot.w, y);
          g.stroke();
        }
        const tx = side === "left" ? plot.x - 5 : plot.x + plot.w + 5;
        const scale = axes[side].scale || 1;
        g.fillText(formatTick(v * scale, r.step * scale), tx, y);
      }
    }
    g.textAlign = "center";
    g.textBaseline = "top";
    for (let v = Math.ceil(xMin / xStep - 1e-9) * xStep; v <= xMax + xStep * 1e-6; v += xStep) {
      const x = Math.round(this.xOf(v)) + 0.5;
      g.strokeStyle = "#eef1f4";
      g.beginPath();
      g.moveTo(x, plot.y);
      g.lineTo(x, plot.y + plot.h);
      g.stroke();
      g.fillText(o.xFormat ? o.xFormat(v) : defaultXFormat(v, xMax), x, plot.y + plot.h + 4);
    }
    g.strokeStyle = "#9aa5b1";
    g.strokeRect(plot.x + 0.5, plot.y + 0.5, plot.w - 1, plot.h - 1);
    g.fillStyle = "#5b6875";
    if (titled) {
      const xTitle = o.xFormat ? o.xLabel || "" : defaultXTitle(o.xLabel || "time", xMax);
      g.fillText(xTitle, plot.x + plot.w / 2, plot.y + plot.h + 18);
    }
    // axis titles (rotated)
    for (const side of this.sides) {
      const label = axes[side].label;
      if (!titled || !label) continue;
      g.save();
      const x = side === "left" ? 10 : w - 8;
      g.translate(x, plot.y + plot.h / 2);
      g.rotate(side === "left" ? -Math.PI / 2 : Math.PI / 2);
      g.textAlign = "center";
      g.textBaseline = "middle";
      g.fillText(label, 0, 0);
      g.restore();
    }

    // reference levels: dashed, labelled at the right end
    for (const lv of o.levels || SOLID) {
      const y = Math.round(this._yOf(lv.axis || "left", lv.value)) + 0.5;
      g.strokeStyle = lv.color || "#9a5b00";
      g.setLineDash(lv.dash || MARKER_DASH);
      g.beginPath();
      g.moveTo(plot.x, y);
      g.lineTo(plot.x + plot.w, y);
      g.stroke();
      g.setLineDash(SOLID);
      if (lv.label) {
        g.fillStyle = lv.color || "#9a5b00";
        g.textAlign = "right";
        g.textBaseline = "bottom";
        g.fillText(lv.label, plot.x + plot.w - 3, y - 2);
      }
    }

    // markers (under the lines)
    const markers = this.data.markers;
    const hi = this.highlighted;
    for (let i = 0; i < markers.length; i++) {
      if (i === hi || markers[i].t < xMin || markers[i].t > xMax) continue;
      const x = Math.round(this.xOf(markers[i].t)) + 0.5;
      g.strokeStyle = o.markerColor || "#b07a00";
      g.lineWidth = 1;
      g.setLineDash(MARKER_DASH);
      g.beginPath();
      g.moveTo(x, plot.y);
      g.lineTo(x, plot.y + plot.h);
      g.stroke();
    }
    g.setLineDash(SOLID);

    // series: one path per series, gaps at null/NaN
    g.save();
    g.beginPath();
    g.rect(plot.x, plot.y, plot.w, plot.h);
    g.clip();
    for (const s of series) {
      const vals = this.data.series[s.key] || SOLID;
      const side = s.axis || "left";
      g.strokeStyle = s.color;
      g.lineWidth = s.width || 2;
      g.setLineDash(s.dash || SOLID);
      g.lineJoin = "round";
      g.beginPath();
      let pen = false;
      const n = Math.min(vals.length, t.length);
      for (let k = 0; k < n; k++) {
        const v = vals[k];
        if (v === null || !Number.isFinite(v)) { pen = false; continue; }
        const x = this.xOf(t[k]);
        const y = this._yOf(side, v);
        if (pen) g.lineTo(x, y); else g.moveTo(x, y);
        const next = k + 1 < n ? vals[k + 1] : null;
        if (!pen && (next === null || !Number.isFinite(next))) {  // a lone sample (a run's first): a dot
          g.moveTo(x + 1, y);
          g.arc(x, y, 1, 0, 2 * Math.PI);
        }
        pen = true;
      }
      g.stroke();
      if (o.lastPoint) {  // a dot on the newest value
        let k = n - 1;
        while (k >= 0 && (vals[k] === null || !Number.isFinite(vals[k]))) k--;
        if (k >= 0) {
          g.fillStyle = s.color;
          g.beginPath();
          g.arc(this.xOf(t[k]), this._yOf(side, vals[k]), 2.5, 0, 2 * Math.PI);
          g.fill();
        }
      }
    }
    g.restore();
    g.setLineDash(SOLID);

    // every marker's words at its line, on a light backdrop so the lines never hide them
    if (o.markerLabels) {
      g.font = TICK_FONT;
      g.textAlign = "left";
      g.textBaseline = "top";
      for (let i = 0; i < markers.length; i++) {
        const m = markers[i];
        if (i === hi || m.t < xMin || m.t > xMax) continue;
        const x = Math.round(this.xOf(m.t)) + 0.5;
        g.fillStyle = "rgba(255, 255, 255, 0.85)";
        g.fillRect(x + 1, plot.y + 1, g.measureText(m.label).width + 4, 13);
        g.fillStyle = "#14202b";
        g.fillText(m.label, x + 3, plot.y + 2);
      }
    }

    // highlighted marker and its label
    if (hi !== null && markers[hi] && markers[hi].t >= xMin && markers[hi].t <= xMax) {
      const m = markers[hi];
      const x = Math.round(this.xOf(m.t)) + 0.5;
      g.strokeStyle = "#d62f00";
      g.lineWidth = 2;
      g.beginPath();
      g.moveTo(x, plot.y);
      g.lineTo(x, plot.y + plot.h);
      g.stroke();
      const text = `${o.xFormat ? o.xFormat(m.t) : formatClock(m.t)} ${m.label}`;
      g.font = MARKER_FONT;
      const tw = g.measureText(text).width + 10;
      const bx = Math.max(plot.x, Math.min(x - tw / 2, plot.x + plot.w - tw));
      g.fillStyle = "rgba(20, 32, 43, 0.9)";
      g.fillRect(bx, plot.y + 4, tw, 18);
      g.fillStyle = "#ffffff";
      g.textAlign = "left";
      g.textBaseline = "middle";
      g.fillText(text, bx + 5, plot.y + 13);
    }
  }

  destroy() {
    if (this._ro) this._ro.disconnect();
  }
}
