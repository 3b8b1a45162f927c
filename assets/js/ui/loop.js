// A requestAnimationFrame loop that knows about model time.
//
// tick(dtSeconds, nowMs) is called once per displayed frame with the real time
// since the previous frame, clamped to `maxDt` so that a stalled tab never makes
// the model jump.  While the page is hidden the loop does not call tick at all:
// the simulation freezes and no model time passes.

export function createLoop(tick, { maxDt = 0.1 } = {}) {
  let running = false;
  let handle = 0;
  let last = null;

  function frame(now) {
    if (!running) return;
    handle = requestAnimationFrame(frame);
    if (document.hidden) { last = null; return; }
    const dt = last === null ? 0 : Math.min((now - last) / 1000, maxDt);
    last = now;
    tick(dt, now);
  }

  document.addEventListener("visibilitychange", () => { last = null; });

  return {
    start() {
      if (running) return;
      running = true;
      last = null;
      handle = requestAnimationFrame(frame);
    },
    stop() {
      running = false;
      cancelAnimationFrame(handle);
    },
    get running() { return running; },
  };
}

/**
 * Converts real seconds into whole model steps at a playback speed, carrying the
 * remainder, so a run is identical at any frame rate or playback speed: the model
 * only ever advances by whole steps of `dt` model seconds.
 */
export class StepClock {
  constructor(dt) {
    this.dt = dt;
    this.carry = 0;
  }
  /** Number of whole model steps for `realSeconds` of wall time at `speed`×. */
  steps(realSeconds, speed) {
    this.carry += realSeconds * speed;
    const n = Math.floor(this.carry / this.dt + 1e-9);
    this.carry -= n * this.dt;
    if (this.carry < 0) this.carry = 0;
    return n;
  }
  reset() { this.carry = 0; }
}
