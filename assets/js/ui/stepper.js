// The one page stepper: every lab plays its model through this.
//
// Each displayed frame it turns real time into whole model steps (StepClock), asks the
// engine for them in ONE message together with whatever the lab reads every frame (its
// frame buffer, panel data, history...), and hands the reply to the lab to draw.
//
// * Whole steps only, carried remainder: a run is identical at any frame rate or speed.
// * At most one request in flight: while the engine works, frames keep drawing the last
//   reply and real time accumulates; it is asked for at the next frame.
// * Frame budget: the engine time a frame may ask for is a share of the MEASURED frame
//   interval (at 15 fps a frame may ask for four times the work of a 60 fps frame), so
//   work per second does not collapse on a slow display.  Steps over the budget are
//   dropped, not owed: the model runs slower than real time (the clock says "slowed to")
//   instead of the page freezing, and the trajectory is unchanged.
// * Stop on error: an engine crash stops playing and is reported once.
//
// The arithmetic is in pure functions (StepClock, FrameBudget) tested with `node --test`.

import { StepClock } from "./loop.js";

const SLOWED_BELOW = 0.9; // the pace (steps done / asked) under which a lab says it runs slowed
const READ_SECONDS = 0.25; // slow-changing reads (readouts) ride on a request every 0.25 s of real time

/** Running estimate of the frame interval and of the engine's cost per step. */
export class FrameBudget {
  constructor({ share = 0.5, minMs = 8, maxMs = 250 } = {}) {
    this.share = share;
    this.minMs = minMs;
    this.maxMs = maxMs;
    this.frameMs = 1000 / 60;
    this.msPerStep = 0;
    this.overrideMs = null; // tests may fix the budget
  }
  /** Record a displayed frame that came `dtSeconds` after the previous one. */
  frame(dtSeconds) {
    if (dtSeconds > 0 && dtSeconds < 1) this.frameMs = 0.9 * this.frameMs + 0.1 * dtSeconds * 1000;
  }
  /** Record that `steps` steps cost `ms` of engine time. */
  cost(steps, ms) {
    if (steps <= 0 || !(ms >= 0)) return;
    const per = ms / steps;
    this.msPerStep = this.msPerStep > 0 ? 0.75 * this.msPerStep + 0.25 * per : per;
  }
  get ms() {
    if (this.overrideMs !== null) return this.overrideMs;
    return Math.min(this.maxMs, Math.max(this.minMs, this.share * this.frameMs));
  }
  /** The most steps a request may ask for (at least one), `realMs` after the previous one:
   *  a share of the time that really passed, so waiting for a busy engine is not counted as
   *  slowness (the engine is never asked for more than that share of real time).  While the
   *  cost of a step is unknown, one step: a restart may have made the model 1,000 times
   *  bigger (Lab 3's scaling experiment), and a request must never run for seconds. */
  cap(realMs = 0) {
    if (!(this.msPerStep > 0)) return 1; // cost unknown (a start, a restart): probe with one step
    const ms = this.overrideMs !== null ? this.overrideMs : Math.min(this.maxMs, Math.max(this.ms, this.share * realMs));
    return Math.max(1, Math.floor(ms / this.msPerStep));
  }
}

/** What a student is told when the run stops on an engine error: the error itself, without
 *  the traceback's frames (the console keeps those for developers).  A Python traceback ends
 *  with its exception ("ValueError: ..."); any other message keeps its last two lines. */
export function crashReason(err) {
  const lines = String((err && err.message) || err || "an unknown error").split("\n")
    .map((l) => l.trim()).filter(Boolean);
  const keep = lines[0] && lines[0].startsWith("Traceback") ? lines.slice(-1) : lines.slice(-2);
  const text = keep.join(" ");
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

export class Stepper {
  /**
   * @param {object} o
   *   engine, lab, dt     the engine, the lab's name, model seconds per step
   *   compose(n, extra)   -> the ops of this frame's request, given n steps to take (n may be 0)
   *                          and any extra ops a caller of send() adds; the lab puts
   *                          ["step", {n}] where its session wants it
   *   apply(reply, n)     draw the reply ({results, ms, frame, length}); n steps were taken
   *   name, notify        what stopped, for the one notice of a crash ("Three rules stopped
   *                          because of an error: ..."), and the page's notice function
   *   onCrash(error)      the engine stopped (after the notice): the lab shows itself paused
   *   onRestart()         the watchdog replaced the engine's worker and this lab's run was
   *                          restored there (ui/rules.js): work kept only in the old worker's
   *                          session (Lab 2's eight-seed check) starts again
   *   maxSteps            an upper bound per request (e.g. Vicsek: one update per frame)
   */
  constructor({ engine, lab, dt, compose, apply, name, notify, onCrash, onRestart = null, maxSteps = Infinity, share = null }) {
    Object.assign(this, { engine, lab, compose, apply, name, notify, onCrash, maxSteps });
    this._restarted = onRestart && ((kept) => { if (kept === lab) onRestart(); });
    if (this._restarted) engine.restartListeners.add(this._restarted);
    this.clock = new StepClock(dt);
    // In a worker the engine's time does not block the page, so it may use most of real time;
    // on the main thread (the single file) it gets half, the page the rest.
    this.budget = new FrameBudget({ share: share ?? (engine.mode === "main-thread" ? 0.5 : 0.8) });
    this.playing = false;
    this.speed = 1;
    this.inflight = false;
    this.stale = true; // the lab needs a fresh reply even with no steps (a setting changed)
    this.failed = false;
    this.waitedDt = 0;
    this.frame = null; // the latest frame array (owned until the next reply)
    this.pace = { real: 0, asked: 0, done: 0, ratio: 1 };
    this.sinceRead = 0; // real seconds since the readouts were last asked for
    this.actions = new Set(); // user actions still talking to the engine (see track)
    this.settings = new Set(); // of those, settings on their way (see applying)
    // A request for this lab from anywhere else (an action, a test) makes the view stale,
    // unless it only read the session (the spoken description, a chart's table).
    this._listener = (l, reply, source) => { if (l === lab && source !== this && !reply.reads) this.stale = true; };
    engine.listeners.add(this._listener);
  }

  /** Ask for a fresh reply at the next frame (after a setting change, a selection, ...). */
  invalidate() { this.stale = true; }

  /** Playing, but the device does fewer steps than the speed asks (the pace under SLOWED_BELOW). */
  get slowed() { return this.playing && this.pace.ratio < SLOWED_BELOW; }

  /** Whether a request of `n` steps should carry the lab's slow-changing reads (readouts): at
   *  once after a change (n = 0, a refresh), else once READ_SECONDS of real time have passed
   *  (in time, not in requests: at 5 frames a second they would lag by seconds).  A lab asks
   *  once per request it composes; a yes starts the next wait. */
  readsDue(n) {
    if (n !== 0 && this.sinceRead < READ_SECONDS) return false;
    this.sinceRead = 0;
    return true;
  }

  /** Ask for a fresh reply now (or right after the request in flight), even if the loop is
   *  stopped (a hidden tab still shows the result of a click when it comes back). */
  refresh() {
    this.stale = true;
    if (!this.inflight && !this.failed) this.track(this.send(0));
  }

  setPlaying(on) {
    // a pause asks once more, with the readouts: they show the paused state, not the one
    // read up to 0.25 s earlier, so a setting changed while paused moves only what it changes
    if (this.playing && !on) this.stale = true;
    this.playing = on;
    this.clock.reset();
    this.waitedDt = 0;
    this.pace = { real: 0, asked: 0, done: 0, ratio: 1 };
  }

  setSpeed(v) {
    this.speed = v;
    this.pace = { real: 0, asked: 0, done: 0, ratio: 1 };
  }

  /** After a restart: no carried time, a fresh view. */
  restart() {
    this.budget.msPerStep = 0; // the new run may cost anything per step: measure it again
    this.clock.reset();
    this.waitedDt = 0;
    this.failed = false;
    this.stale = true;
  }

  /** Whole steps for `dt` real seconds, within the budget; over-budget steps are dropped. */
  stepsFor(dt) {
    const asked = this.clock.steps(dt, this.speed);
    let n = Math.min(asked, this.maxSteps);
    const cap = this.budget.cap(dt * 1000);
    if (n > cap) n = cap;
    if (n < asked) this.clock.reset();
    this.pace.real += dt;
    this.pace.asked += asked;
    this.pace.done += n;
    if (this.pace.real >= 1) {
      this.pace.ratio = this.pace.asked > 0 ? this.pace.done / this.pace.asked : 1;
      this.pace.real = this.pace.asked = this.pace.done = 0;
    }
    return n;
  }

  /** Called once per displayed frame with the real seconds since the previous one. */
  tick(dt) {
    this.budget.frame(dt);
    this.sinceRead += dt;
    if (this.failed) return;
    if (this.inflight) { this.waitedDt += dt; return; }
    const realDt = Math.min(0.25, dt + this.waitedDt);
    this.waitedDt = 0;
    const n = this.playing ? this.stepsFor(realDt) : 0;
    if (n === 0 && !this.stale) return;
    this.send(n);
  }

  /** Send one request now (n steps, `extra` ops, the lab's reads); resolves once applied. */
  async send(n = 0, extra = null) {
    this.inflight = true;
    this.stale = false;
    let reply;
    try {
      reply = await this.engine.batch(this.lab, this.compose(n, extra), { frame: true, source: this });
    } catch (err) {
      this.inflight = false;
      // the watchdog stopped a student's rule (engine.watch): a new worker is on its way and
      // the rules panel restores the run; the next frame asks again
      if (err && err.name === "EngineStalled") { this.stale = true; return null; }
      this.fail(err);
      return null;
    }
    this.inflight = false;
    if (this.frame) this.engine.recycle(this.lab, this.frame);
    this.frame = reply.frame;
    const k = reply.ops.findIndex((op) => op[0] === "step");
    const stepMs = k >= 0 && reply.results[k] ? reply.results[k].ms : reply.ms;
    this.budget.cost(n, stepMs);
    try {
      this.apply(reply, n);
    } catch (err) {
      this.fail(err);
    }
    return reply;
  }

  fail(err) {
    if (this.failed) return;
    this.failed = true;
    this.playing = false;
    console.error(`[${this.lab}] the simulation stopped`, err);
    // a bug, not bad input: said once (not an error every frame), with what to do
    if (this.notify) this.notify(`${this.name} stopped because of an error: ${crashReason(err)}. Reload the page to start again.`, "error");
    if (this.onCrash) this.onCrash(err);
  }

  /** Resolves when no request is in flight (its reply is on screen). */
  async idle() {
    while (this.inflight) await new Promise((r) => setTimeout(r, 1));
  }

  /** Remember an action's promise (a click that talks to the engine) until it settles. */
  track(promise) {
    this.actions.add(promise);
    const done = () => this.actions.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** A setting on its way to the engine (a control's change, an Add press): tracked like any
   *  action, and remembered until answered, so that a restart can take it (settingsSent). */
  applying(promise) {
    this.settings.add(promise);
    const done = () => this.settings.delete(promise);
    promise.then(done, done);
    return this.track(promise);
  }

  /** Resolves once every setting on its way (applying) has been answered, whatever the answer:
   *  a restart begun meanwhile (a sample typed, then Restart tapped at once) includes them. */
  settingsSent() {
    return Promise.allSettled([...this.settings]);
  }

  /** `make()` now when no setting is on its way to the engine; else a promise of it, made once
   *  every one has been answered and the session's state is on screen.  A link copied in the
   *  moment a slider moved then names the slider's value, the trial the session then says it
   *  belongs to and, through the history's new marker, what the copy says about this run
   *  (copyLink takes the promise and still asks for the clipboard within the click). */
  whenSettled(make) {
    return this.settings.size ? this.settle().then(make) : make();
  }

  /** Resolves once every pending action and the session's current state are on screen. */
  async settle() {
    while (this.actions.size) await Promise.allSettled([...this.actions]);
    await this.idle();
    await this.send(0);
  }

  dispose() {
    this.engine.listeners.delete(this._listener);
    if (this._restarted) this.engine.restartListeners.delete(this._restarted);
  }
}
