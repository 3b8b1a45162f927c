// The page's copy of a session's metric history (metrics.History in Python).
//
// Sessions own the history: samples on the model's step clock, thinning when full,
// markers with one merging rule.  The page only mirrors it for drawing, with one
// incremental "history" op per request: the samples after the last one it has, as long
// as its copy has the session's thinning `version`; otherwise the session answers in full.

export class HistoryMirror {
  constructor() { this.clear(); }

  clear() {
    this.t = [];
    this.series = {};
    this.markers = [];
    this.version = -1;
    this.interval = 0;
    this.full = true; // the next request asks for everything
  }

  /** The op to put in a request: ["history", {since, version}] or ["history", {}]. */
  op() {
    const since = !this.full && this.t.length ? this.t[this.t.length - 1] : null;
    return ["history", since === null ? {} : { since, version: this.version }];
  }

  /** Merge the session's answer `h` (metrics.History.to_dict); returns true if anything changed,
   *  a marker's label included (the session merges a slider's quick changes into its last
   *  marker, relabelled with the final value, also while the run is paused). */
  apply(h) {
    const before = this.t.length, markers = markerKey(this.markers);
    if (h.full !== false) {
      this.t = h.t.slice();
      this.series = {};
      for (const [k, v] of Object.entries(h.series)) this.series[k] = v.slice();
    } else {
      // samples after the last one held: two requests that asked with the same `since`
      // (one from the lab's loop, one from an action) must not add the same samples twice
      const last = this.t.length ? this.t[this.t.length - 1] : -Infinity;
      let k0 = 0;
      while (k0 < h.t.length && h.t[k0] <= last) k0++;
      for (let k = k0; k < h.t.length; k++) this.t.push(h.t[k]);
      for (const [key, v] of Object.entries(h.series)) {
        const arr = this.series[key] || (this.series[key] = []);
        for (let k = k0; k < v.length; k++) arr.push(v[k]);
      }
    }
    this.version = h.version;
    this.interval = h.interval || this.interval;
    this.markers = h.markers || [];
    this.full = false;
    return h.full !== false || this.t.length !== before || markerKey(this.markers) !== markers;
  }

  /** Whether something was changed during the run (a marker: a setting, a threat, a rule), so a
   *  link to its start would not replay it exactly. */
  get changedDuringRun() { return this.markers.length > 0; }

  /** The latest sample of a series (or null). */
  latest(key) {
    const arr = this.series[key];
    return arr && arr.length ? arr[arr.length - 1] : null;
  }
}

/** What can change in a marker list between two answers: its length, the oldest marker's time
 *  (the oldest are dropped past the session's maximum) and the newest marker (merged). */
function markerKey(m) {
  return m.length ? `${m.length} ${m[0].t} ${m[m.length - 1].t} ${m[m.length - 1].label}` : "";
}
