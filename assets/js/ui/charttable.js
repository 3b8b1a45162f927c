// A table view of a chart's samples (issue 15: "charts get a text alternative … plus a
// table view of the samples").
//
// Under a chart, a disclosure "Values as a table" opens an HTML table of the samples the
// chart draws: one row per sample (time as the row header, one column per series, and the
// setting changes and disturbances that happened since the row before).  The numbers come
// from the session's own history (the "history" op, metrics.History.to_dict: the same
// samples, labels, units and markers the chart mirrors), so the table and the chart cannot
// disagree; the page holds no copy of the words.
//
// A long run keeps up to 2,400 samples; the table shows at most MAX_ROWS of them, evenly
// spaced (every k-th, always with the latest), and its caption says so.  While the
// disclosure is open the table follows the run every REFRESH_MS, re-drawn only when the
// history changed, so a screen-reader user who paused the lab reads a table that holds still.
// It asks for the whole history each time (no incremental copy as ui/history.js keeps for the
// charts: a Restart starts the session's history again, which only the lab itself sees).

import { readoutNumber } from "./controls.js";
import { el, ordinal } from "./dom.js";

export const MAX_ROWS = 150;
export const REFRESH_MS = 2000;

/** A number as the table shows it: as the lab's readout of that series writes it (`readout`:
 *  the session's Readout spec, {scale, decimals}), else 2 decimals (0 for large values); "–"
 *  for a missing one. */
export function formatValue(v, readout = null) {
  if (readout) return readoutNumber(readout, v);
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2);
}

/** A time cell with as many decimals as the sampling interval has (0, 1 or 2): 1.00, 1.25. */
export function formatTime(t, interval = 0.01) {
  const d = Number.isInteger(interval) ? 0 : Number.isInteger(interval * 10) ? 1 : 2;
  return t.toFixed(d);
}

/** "from 0.25 to 105.25 s" for a label "time (s)", "from update 1 to 40" for "update";
 *  with no `b`, one instant: "at 0.00 s", "at update 0". */
function spanText(label, a, b) {
  const unit = /\(([^)]+)\)\s*$/.exec(label);
  if (b === undefined) return unit ? `at ${a} ${unit[1]}` : `at ${label} ${a}`;
  return unit ? `from ${a} to ${b} ${unit[1]}` : `from ${label} ${a} to ${b}`;
}

/**
 * The rows to show for history `h` (metrics.History.to_dict) and series `keys`.
 * Returns {rows: [{t, values, events}], stride, count}: every `stride`-th sample and the
 * latest one; each row's `events` are the marker labels after the previous row, up to and
 * including its own time (markers after the last sample go to the last row).
 */
export function tableRows(h, keys, maxRows = MAX_ROWS) {
  const t = h.t || [];
  const count = t.length;
  const stride = Math.max(1, Math.ceil(count / maxRows));
  const picks = [];
  for (let k = (count - 1) % stride; k < count; k += stride) picks.push(k);
  const markers = [...(h.markers || [])].sort((a, b) => a.t - b.t);
  let m = 0;
  const rows = picks.map((k, j) => {
    const last = j === picks.length - 1;
    const events = [];
    while (m < markers.length && (last || markers[m].t <= t[k] + 1e-9)) events.push(markers[m++].label);
    return { t: t[k], values: keys.map((key) => (h.series[key] || [])[k]), events };
  });
  return { rows, stride, count };
}

/** Series names joined for reading: "a", "a and b", "a, b and c". */
function joinNames(names) {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

export class ChartTable {
  /**
   * @param {object} o
   *   fetch()    resolves to the session's history (metrics.History.to_dict) or null
   *   keys       the chart's series keys, in its legend's order (or a promise of them: the
   *              session's display.charts, asked for once)
   *   id         an id stem for the elements (e.g. "swarm-agree")
   *   active()   true while the table should follow the run (its lab on screen)
   *   shown      {key: Readout spec} (or a promise of it): a column written as the lab's
   *              readout writes it (its decimals and scale: the very-close share in %, not
   *              as a fraction), its unit in the header when the readout scales it
   */
  constructor({ fetch, keys, id, active = () => true, shown = {} }) {
    this.fetch = fetch;
    this.shown = {};
    this.stamp = null; // what the table shows: "version:count:markers:last time"
    this.meta = null;  // the last answer's labels (for the summary's name)
    this.keys = [];
    this.active = active;
    this.queue = Promise.all([keys, shown]).then(([k, v]) => { this.keys = k || []; this.shown = v || {}; }); // everything waits for them
    this.waiting = 0;
    this.timer = null;
    this.element = el("details", { class: "chart-table", id: `chart-table-${id}` });
    this.summary = el("summary", { text: "Values as a table" });
    this.names = el("span", { class: "sr-only" });
    this.summary.append(this.names);
    // a wide or long table scrolls inside its box, which is then a Tab stop a keyboard can scroll
    this.box = el("div", { class: "chart-table-box", role: "region", tabindex: "0", "aria-labelledby": `chart-table-${id}-caption` });
    this.table = el("table", { class: "chart-table-grid" });
    this.caption = el("caption", { id: `chart-table-${id}-caption` });
    this.head = el("thead");
    this.body = el("tbody");
    this.table.append(this.caption, this.head, this.body);
    this.box.append(this.table);
    this.element.append(this.summary, this.box);
    this.element.addEventListener("toggle", () => {
      if (this.element.open) {
        this.refresh(true);
        this.timer = setInterval(() => { if (this.active() && !document.hidden) this.refresh(); }, REFRESH_MS);
      } else {
        clearInterval(this.timer);
        this.timer = null;
      }
    });
    this.label(); // the series' names in the summary's accessible name, from the start
  }

  async label() {
    await this.refresh(false, false);
    const h = this.meta;
    if (h && !this.names.textContent) this.names.textContent = ` (${joinNames(this.keys.map((k) => h.labels[k] || k))})`;
  }

  /** Ask for the history; re-draw the table if it changed (or if `force`).  Requests run one
   *  after another; a timer's refresh is skipped while one is still waiting. */
  refresh(force = false, draw = true) {
    if (!force && this.waiting) return this.queue;
    this.waiting++;
    this.queue = this.queue.then(async () => {
      this.waiting--;
      const h = await this.fetch();
      if (!h) return;
      this.meta = h;
      const stamp = `${h.version}:${h.count}:${(h.markers || []).length}:${h.t.length ? h.t[h.t.length - 1] : ""}`;
      if (draw && this.element.open && (force || stamp !== this.stamp)) {
        this.stamp = stamp;
        this.render(h);
      }
    }).catch(() => {});
    return this.queue;
  }

  render(h) {
    const keys = this.keys;
    const names = keys.map((k) => h.labels[k] || k);
    const { rows, stride, count } = tableRows(h, keys);
    const timeLabel = h.time_label || "time";
    const dt = h.interval || 1;
    const time = (t) => formatTime(t, dt);
    const perSample = timeLabel === "update" ? (dt === 1 ? "every update" : `every ${dt} updates`) : `every ${dt} s of model time`;
    let text = `${joinNames(names)}, sampled ${perSample}: `;
    if (!count) text += "no samples yet.";
    else {
      const span = spanText(timeLabel, time(rows[0].t), time(rows[rows.length - 1].t));
      if (count === 1) text += `1 sample, ${spanText(timeLabel, time(rows[0].t))}.`;
      else text += stride === 1 ? `all ${count} samples, ${span}.` : `${rows.length} of ${count} samples (every ${ordinal(stride)}), ${span}.`;
    }
    this.caption.textContent = text;

    const tr = el("tr");
    tr.append(el("th", { scope: "col", text: timeLabel }));
    keys.forEach((k, i) => {
      const r = this.shown[k];
      const unit = (r && r.scale && r.scale !== 1 && r.unit) || (h.units && h.units[k]);
      tr.append(el("th", { scope: "col", text: unit ? `${names[i]} (${unit})` : names[i] }));
    });
    const readouts = keys.map((k) => this.shown[k] || null);
    tr.append(el("th", { scope: "col", text: "changes" }));
    this.head.replaceChildren(tr);

    const frag = document.createDocumentFragment();
    for (const r of rows) {
      const row = el("tr");
      row.append(el("th", { scope: "row", text: time(r.t) }));
      r.values.forEach((v, i) => row.append(el("td", { class: "num", text: formatValue(v, readouts[i]) })));
      row.append(el("td", { text: r.events.join("; ") }));
      frag.append(row);
    }
    this.body.replaceChildren(frag);
  }
}
