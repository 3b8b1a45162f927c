// Trails: a preallocated ring buffer of recent positions.
//
// Tracked: every `every`-th agent (index 0, 3, 6, ...) plus the selected agent in
// its own slot.  A sample is taken at most every `minInterval` model seconds, so
// the buffer covers `seconds` of model time at any playback speed with a fixed
// capacity of ceil(seconds / minInterval) + 2 samples.  Layout: xs/ys[slot * cap + k].
//
// Drawing adds sub-paths to the caller's current path (the renderer strokes it):
// a few path calls in total, however many agents.  The line is broken (moveTo)
// where consecutive samples are far apart: a wrap across the torus edge, or a
// discrete displacement (obstacle placed on top of an agent).  Samples older than
// an agent's `born` time (added agents, a new selection, a restart) are skipped.

const JUMP = 12; // model lengths; larger than any real move between two samples

/** Which animals leave a trail and how long it is (the stage caption quotes these). */
export const TRAILS = { seconds: 2.4, every: 3 };

export class TrailBuffer {
  constructor({ maxAgents, every = TRAILS.every, seconds = TRAILS.seconds, minInterval = 1 / 30 } = {}) {
    if (!(maxAgents > 0)) throw new Error(`TrailBuffer needs the largest population (got ${maxAgents})`);
    this.every = every;
    this.seconds = seconds;
    this.minInterval = minInterval;
    this.cap = Math.ceil(seconds / minInterval) + 2;
    this.slots = Math.ceil(maxAgents / every) + 1; // last slot: the selected agent
    this.selSlot = this.slots - 1;
    this.xs = new Float32Array(this.slots * this.cap);
    this.ys = new Float32Array(this.slots * this.cap);
    this.times = new Float64Array(this.cap);
    this.born = new Float64Array(this.slots);
    this.bands = new Int32Array(9); // scratch: band boundaries (<= 8 bands)
    this.clear();
  }

  /** Forget everything (restart). */
  clear() {
    this.head = 0; // next write position
    this.count = 0;
    this.lastT = -Infinity;
    this.n = 0;
    this.sel = -1;
    this.born.fill(-Infinity);
  }

  /** Record the frame if enough model time passed since the last sample. */
  record(data, f) {
    const t = f.t;
    if (t < this.lastT - 1e-9) this.clear(); // time went backwards: a restart
    if (this.count > 0 && t - this.lastT < this.minInterval - 1e-9) {
      // no new sample, but keep selection / population bookkeeping current
      this._book(f, t);
      return;
    }
    this._book(f, t);
    const cap = this.cap;
    const k = this.head;
    this.times[k] = t;
    const n = Math.min(f.n, (this.slots - 1) * this.every);
    for (let i = 0, slot = 0; i < n; i += this.every, slot++) {
      const o = f.offset + f.stride * i;
      this.xs[slot * cap + k] = data[o + f.X];
      this.ys[slot * cap + k] = data[o + f.Y];
    }
    if (f.selected >= 0 && f.selected < f.n) {
      const o = f.offset + f.stride * f.selected;
      this.xs[this.selSlot * cap + k] = data[o + f.X];
      this.ys[this.selSlot * cap + k] = data[o + f.Y];
    }
    this.head = (k + 1) % cap;
    if (this.count < cap) this.count++;
    this.lastT = t;
  }

  _book(f, t) {
    if (f.n > this.n) {
      // newly added agents start their trail now
      const first = Math.ceil(this.n / this.every);
      const last = Math.min(Math.ceil(f.n / this.every), this.slots - 1);
      for (let slot = first; slot < last; slot++) this.born[slot] = t;
    }
    this.n = f.n;
    if (f.selected !== this.sel) {
      this.sel = f.selected;
      this.born[this.selSlot] = t;
    }
  }

  /** Ring position of the k-th oldest stored sample. */
  _at(k) {
    return (this.head - this.count + k + this.cap) % this.cap;
  }

  /** First k (oldest = 0) whose time is >= t. */
  _firstAfter(t) {
    let k = 0;
    while (k < this.count && this.times[this._at(k)] < t - 1e-9) k++;
    return k;
  }

  _subpath(g, r, slot, k0, k1) {
    const cap = this.cap;
    const born = this.born[slot];
    const base = slot * cap;
    let pen = false;
    let px = 0;
    let py = 0;
    for (let k = k0; k < k1; k++) {
      const p = this._at(k);
      if (this.times[p] < born) { pen = false; continue; }
      const x = this.xs[base + p];
      const y = this.ys[base + p];
      if (pen && Math.abs(x - px) < JUMP && Math.abs(y - py) < JUMP) {
        g.lineTo(r.viewX(x), r.viewY(y));
      } else {
        g.moveTo(r.viewX(x), r.viewY(y));
      }
      pen = true;
      px = x;
      py = y;
    }
  }

  /**
   * Add to the current path the trail segments of age band `b` of `nb`
   * (0 = oldest) for every tracked agent.  Bands overlap by one sample so
   * that the line is continuous.
   */
  pathBand(g, r, b, nb) {
    if (this.count < 2) return;
    const tNow = this.lastT;
    const t0 = tNow - this.seconds;
    const k0 = this._firstAfter(t0 + (b * this.seconds) / nb);
    const k1 = b === nb - 1 ? this.count : this._firstAfter(t0 + ((b + 1) * this.seconds) / nb) + 1;
    const start = Math.max(this._firstAfter(t0), k0 - 1);
    const end = Math.min(this.count, k1);
    if (end - start < 2) return;
    const n = Math.min(this.n, (this.slots - 1) * this.every);
    for (let i = 0, slot = 0; i < n; i += this.every, slot++) this._subpath(g, r, slot, start, end);
  }

  /** Add the selected agent's trail (the whole window) to the current path. */
  pathSelected(g, r) {
    if (this.count < 2 || this.sel < 0) return;
    const k0 = this._firstAfter(this.lastT - this.seconds);
    this._subpath(g, r, this.selSlot, k0, this.count);
  }
}
