// The JavaScript side of the engine: one asynchronous interface for every lab.
//
// The Python engine (app/swarmlab/sessions/host.py) runs in a Web Worker started with
// PyScript's PyWorker, so Python never blocks the page: boot, steps and the eight-seed
// check all run off the main thread.  Where a worker cannot load the runtime (the single
// file opened from file://, whose import map and fetch shim do not reach workers), the
// same engine runs on the main thread behind the same interface (MainThreadTransport).
//
// The boundary is one kind of message (see host.py):
//   request  {lab, ops: [[name, args], ...], frame: bool}
//   reply    {results: [{value} | {error}], ms}      + the frame, a Float32Array
//
//   engine.call(lab, op, args)        -> Promise of the value; rejects with EngineError on bad input
//   engine.tryCall(lab, op, args, o)  -> Promise of {ok: true, value} | {ok: false, error}
//                                     (o.patienceMs: how long the watchdog waits for a known-long op)
//   engine.batch(lab, ops, {frame})   -> Promise of {results, ms, frame, length}: one message a frame
//   engine.spec(lab), engine.layout(lab)  cached: parameter specs; frame layout + constants
//   engine.watch(ms, onStall)         while a student's rule runs (ui/rules.js): a request that
//                                     takes longer than ms stops the worker; a new one is started
//                                     and onStall(engine) restores the run (EngineStalled meanwhile)
//
// Frames: each lab hands its previous frame array back with the next request (`buffer`),
// and the worker fills and transfers it back, so steady-state frames allocate nothing.

export class EngineError extends Error {
  constructor(message) {
    super(message);
    this.name = "EngineError";
  }
}

/** The engine stopped (a crash in Python, or the worker died): not the user's input. */
export class EngineCrash extends Error {
  /** `why`: {what, hint} for the boot's error card, when the crash has a known cause. */
  constructor(message, why = null) {
    super(message);
    this.name = "EngineCrash";
    if (why) Object.assign(this, why);
  }
}

/** The engine's Python script (app/main.py) ran but never answered: it failed to compile or
 *  import, and PyScript only printed the traceback in the worker's console (its PyWorker resolves
 *  once the script has run, listening or not). */
const SCRIPT_STOPPED = {
  what: "the engine's Python code stopped while starting",
  hint: "A file of the app (app/main.py or the engine archive) may be cut short or altered. Reload with " +
    "Ctrl+Shift+R; if you host Swarm Lab, copy the whole built folder again (`make dist`). The browser's " +
    "console (its developer tools) shows Python's own error.",
};

/** The worker was stopped by the watchdog (a rule ran too long); a new one is starting. */
export class EngineStalled extends Error {
  constructor(message) {
    super(message);
    this.name = "EngineStalled";
  }
}

/** How long a replacement worker may take to start and answer (it boots Python afresh: a few
 *  seconds, more on a slow machine) before the engine gives up on it. */
export const RESPAWN_MS = 60000;

export class Engine {
  /** @param transport  WorkerTransport or MainThreadTransport: send(requestText, buffer) -> Promise */
  constructor(transport) {
    this.transport = transport;
    this.mode = transport.mode;
    this._specs = new Map();
    this._layouts = new Map();
    this._buffers = new Map(); // lab -> the frame array to reuse for that lab's next frame
    this.listeners = new Set(); // called with (lab, reply, source) after every request (see batch)
    this._watch = null; // {ms, onStall} while a student's rule runs (see watch)
    this._patient = 0; // requests in flight that asked the watchdog for patience
    this._lastAnswer = 0; // performance.now() of the worker's latest reply
    this.restarting = null; // a Promise while a stopped worker is being replaced
    this.restartListeners = new Set(); // called with the restored lab once a stopped worker is replaced (new, empty sessions)
    this.restartFailListeners = new Set(); // called with a message when no replacement answers
    this.respawnMs = RESPAWN_MS;
    this.restarts = 0;
  }

  /**
   * Guard the worker while a student's rule runs: a request that takes longer than `ms`
   * terminates the worker (the only way to stop a loop inside one numpy call), starts a new
   * one and then calls `onStall(engine)`, which restores the run (with `{urgent: true}`
   * requests); `onStop(why)` is told at once, when the worker is terminated.  Requests made
   * meanwhile wait for it; the one that stalled rejects with EngineStalled.  `lab` is the lab
   * that restores its run: the restart listeners are told it (every other lab's session is
   * gone with the old worker).  `watch(null)` ends the guard.  Only a worker can be stopped: on
   * the main thread (the single file) the Python time limit of rules.py is the only guard.
   */
  watch(ms, onStall, onStop = null, lab = null) {
    this._watch = ms > 0 && onStall && this.transport.respawn ? { ms, onStall, onStop, lab } : null;
    return this._watch !== null;
  }

  /** Run ops on a lab's session in order; with {frame: true} also return its frame buffer.
   *  `reads: true` says the ops only read the session (a description, the history), so the
   *  listeners are told that no view needs a fresh frame (`reply.reads`). */
  async batch(lab, ops, { frame = false, source = null, urgent = false, patienceMs = 0, reads = false } = {}) {
    if (this.restarting && !urgent) await this.restarting;
    const request = JSON.stringify({ lab, ops, frame });
    const buffer = frame ? this._buffers.get(lab) || null : null;
    if (buffer) this._buffers.delete(lab); // transferred away: never touch it again
    const sent = this.transport.send(request, buffer, lab);
    const out = await (this._watch && !urgent ? this._watched(sent, patienceMs) : sent);
    this._lastAnswer = performance.now(); // the worker is alive (see _watched)
    const reply = JSON.parse(out.reply);
    if (reply.error) throw new EngineError(reply.error);
    reply.frame = out.frame || null;
    reply.length = out.length || 0;
    reply.ops = ops;
    reply.reads = reads;
    for (const fn of this.listeners) fn(lab, reply, source);
    return reply;
  }

  /** `sent`, unless the watchdog fires first: then the worker is replaced (see watch).  A
   *  request known to be long (the scaling experiment's timing at 10,000 boids takes
   *  seconds) passes `patienceMs`, and the watchdog waits that long for it instead.  A request
   *  queued behind others in the worker is not stalled while the worker keeps answering: the
   *  watchdog fires only when nothing has come back for `ms` (and no patient request runs). */
  _watched(sent, patienceMs = 0) {
    const { onStall, onStop, lab } = this._watch;
    const ms = Math.max(this._watch.ms, patienceMs);
    if (patienceMs > 0) this._patient++;
    let timer;
    const late = new Promise((resolve, reject) => {
      const check = () => {
        const quiet = performance.now() - this._lastAnswer;
        if (patienceMs === 0 && (this._patient > 0 || quiet < ms)) timer = setTimeout(check, ms - Math.min(quiet, ms - 50));
        else reject(new EngineStalled(`the engine did not answer within ${ms / 1000} s`));
      };
      timer = setTimeout(check, ms);
    });
    return Promise.race([sent, late]).finally(() => {
      clearTimeout(timer);
      if (patienceMs > 0) this._patient--;
    }).catch((err) => {
      if (err instanceof EngineStalled && !this.restarting) {
        this._restart(onStall, err.message, lab);
        if (onStop) onStop(err.message);
      }
      throw err;
    });
  }

  _restart(onStall, why, lab) {
    this._watch = null;
    const old = this.transport;
    this.restarts++;
    this.restarting = (async () => {
      old.stop(why);
      this._buffers.clear();
      try {
        this.transport = await timeLimit(old.respawn(), this.respawnMs);
        await timeLimit(this.batch(null, [["info", {}]], { urgent: true }), this.respawnMs);
      } catch (err) {
        // offline, say: the new worker cannot fetch the runtime.  Rather than "starting again"
        // for ever, the engine stays stopped, says why on every request, and the page is told
        const msg = "the engine could not be started again (is the connection down?); reload the page once you are online";
        if (this.transport !== old) this.transport.stop(msg);
        old.dead = msg;
        this.transport = old;
        for (const fn of this.restartFailListeners) fn(msg);
        throw err;
      }
      try {
        await onStall(this);
      } finally {
        for (const fn of this.restartListeners) fn(lab);
      }
    })().finally(() => { this.restarting = null; });
    this.restarting.catch((err) => console.error("[swarmlab] the engine could not be restarted", err));
  }

  /** Give a frame array back for reuse by the lab's next batch (it must not be used after). */
  recycle(lab, data) {
    if (data) this._buffers.set(lab, data);
  }

  async call(lab, op, args = {}, options = {}) {
    const reply = await this.batch(lab, [[op, args]], options);
    const r = reply.results[0];
    if (!r || typeof r.error === "string") throw new EngineError(r ? r.error : "no reply");
    return r.value;
  }

  async tryCall(lab, op, args = {}, options = {}) {
    try {
      return { ok: true, value: await this.call(lab, op, args, options) };
    } catch (err) {
      if (err instanceof EngineError) return { ok: false, error: err.message };
      throw err;
    }
  }

  async spec(lab) {
    if (!this._specs.has(lab)) this._specs.set(lab, this.call(lab, "spec", {}, { reads: true }));
    return this._specs.get(lab);
  }

  async layout(lab) {
    if (!this._layouts.has(lab)) this._layouts.set(lab, this.call(lab, "layout", {}, { reads: true }));
    return this._layouts.get(lab);
  }

  /** A copy of a lab's current frame (for tests and the console; the page uses batch). */
  async frame(lab) {
    const reply = await this.batch(lab, [], { frame: true });
    return Array.from(reply.frame.subarray(0, reply.length));
  }

  /** Versions of the engine, Python and numpy (for bug reports and tests). */
  info() {
    return this.call(null, "info");
  }
}

/** `promise`, or a rejection once `ms` have passed without it settling. */
function timeLimit(promise, ms) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The engine in a PyScript worker: messages {id, request, buffer} <-> {id, reply, frame, length}. */
export class WorkerTransport {
  /** @param spawn  () => Promise of a new engine worker (for respawn after a stall) */
  constructor(worker, spawn = null) {
    this.mode = "worker";
    this.worker = worker;
    this.spawn = spawn;
    this.pending = new Map();
    this.next = 1;
    this.dead = null;
    worker.addEventListener("message", (ev) => {
      const d = ev.data;
      if (!d || typeof d !== "object" || !this.pending.has(d.id)) return;
      const { resolve, reject } = this.pending.get(d.id);
      this.pending.delete(d.id);
      if (d.crash) reject(new EngineCrash(d.crash));
      else resolve(d);
    });
    worker.addEventListener("error", (ev) => this.die(`the engine worker failed: ${ev.message || ev.error || "unknown error"}`));
  }

  die(message) {
    if (this.dead) return;
    this.dead = message;
    for (const { reject } of this.pending.values()) reject(new EngineCrash(message));
    this.pending.clear();
  }

  /** Terminate the worker (a rule ran too long); pending requests reject with EngineStalled. */
  stop(why) {
    this.dead = why;
    this.worker.terminate();
    for (const { reject } of this.pending.values()) reject(new EngineStalled(why));
    this.pending.clear();
  }

  /** A new transport over a freshly started worker (the engine's Python boots again). */
  get respawn() {
    return this.spawn ? async () => new WorkerTransport(await this.spawn(), this.spawn) : null;
  }

  send(request, buffer) {
    if (this.dead) return Promise.reject(new EngineCrash(this.dead));
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, request, buffer }, buffer ? [buffer.buffer] : []);
    });
  }
}

/** The same protocol on the main thread (window.swarmlabBridge from app/main.py). */
export class MainThreadTransport {
  constructor(bridge) {
    this.mode = "main-thread";
    this.bridge = bridge;
  }

  async send(request, buffer, lab) {
    let reply;
    try {
      reply = this.bridge.handle(request);
    } catch (err) {
      throw new EngineCrash(String((err && err.message) || err));
    }
    const out = { reply };
    if (JSON.parse(request).frame) {
      let data = buffer || new Float32Array(1024);
      let n = this.bridge.frame_into(lab, data);
      if (n < 0) {
        data = new Float32Array(Math.ceil(-n * 1.5));
        n = this.bridge.frame_into(lab, data);
      }
      out.frame = data;
      out.length = n;
    }
    return out;
  }
}

// ------------------------------------------------------------------------------ starting it

/**
 * What the engine needs from the page's Content-Security-Policy, checked at once (a worker
 * inherits the page's policy, and a violation inside it would not reach the page):
 * Function() for PyScript ('unsafe-eval') and WebAssembly compilation ('wasm-unsafe-eval').
 * A refusal also fires the page's securitypolicyviolation event, which the boot supervisor
 * turns into its "this site's Content-Security-Policy blocks the Python runtime" panel.
 */
export class PolicyError extends Error {
  constructor(detail) {
    super(`this site's Content-Security-Policy blocks ${detail}`);
    this.name = "PolicyError";
    this.what = "this site's Content-Security-Policy blocks the Python runtime";
    this.hint = "The site hosting Swarm Lab must allow 'wasm-unsafe-eval' and 'unsafe-eval' in script-src " +
      "(see the README, Content-Security-Policy). Tell its administrator, or use the single-file version.";
  }
}

function preflight() {
  try {
    new Function("return 1"); // eslint-disable-line no-new-func
  } catch (err) {
    throw new PolicyError("Function()/eval, which PyScript needs ('unsafe-eval')");
  }
  try {
    new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  } catch (err) {
    throw new PolicyError("WebAssembly compilation ('wasm-unsafe-eval')");
  }
}

// PyScript's optional page plugins.  PyScript imports every plugin the page's own config does
// not exclude *before* it starts any worker (its PyWorker awaits them), and the engine uses
// none of these: without this, the worker started about 0.35 s later on a cold load (a
// trace of dist/site: worker created at 0.79 s, after the five chunks arrived).  "error"
// (Python errors shown in the page) and the `codemirror` export of the rules editor stay.
const UNUSED_PYSCRIPT_PLUGINS = ["deprecations-manager", "donkey", "py-editor", "py-game", "py-terminal"];

/** Page-level <py-config> and <mpy-config> (PyScript imports the plugins once per interpreter
 *  type) that turn them off; only for the worker route: PyScript reads them once, when core.js
 *  is first evaluated, and the main-thread route keeps its script's own config. */
export function skipPyScriptPlugins() {
  for (const tag of ["py-config", "mpy-config"]) {
    if (document.querySelector(tag)) continue;
    const config = document.createElement(tag);
    config.textContent = JSON.stringify({ plugins: UNUSED_PYSCRIPT_PLUGINS.map((name) => `!${name}`) });
    config.hidden = true;
    document.head.append(config);
  }
}

/** The engine's script element: <template id="engine-script"><script type="py" src config></template>. */
function engineScript() {
  const tpl = document.getElementById("engine-script");
  const script = tpl && tpl.content.querySelector("script");
  if (!script) throw new Error("index.html has no #engine-script template");
  return script;
}

/**
 * Start the engine: in a worker where that can work, else on the main thread.
 * Resolves to an Engine once Python has imported the engine and answered.
 */
export async function startEngine({ forceMainThread = false } = {}) {
  const script = engineScript();
  preflight();
  const useWorker = !forceMainThread && !window.SWARMLAB_SINGLE_FILE && typeof Worker === "function" &&
    new URLSearchParams(location.search).get("engine") !== "main";
  let engine;
  if (useWorker) {
    skipPyScriptPlugins();
    const { PyWorker } = await import("../vendor/pyscript/core.js");
    const config = new URL(script.getAttribute("config"), document.baseURI).href;
    const src = new URL(script.getAttribute("src"), document.baseURI).href;
    const interpreter = new URL(script.dataset.interpreter, document.baseURI).href;
    window.SwarmBoot.prefetch(interpreter);
    // A site policy that forbids workers (worker-src without blob:) gets the main-thread engine.
    let onViolation;
    const blocked = new Promise((resolve) => {
      onViolation = (ev) => { if (/^worker-src|^script-src|^default-src/.test(ev.effectiveDirective || "") && /^blob/.test(ev.blockedURI || "")) resolve(null); };
      document.addEventListener("securitypolicyviolation", onViolation);
    });
    // The config goes by URL (`configURL`: the worker fetches and parses it) and `config` is an
    // empty object: PyScript's own start-up code, which runs in a worker started once PyScript
    // has set itself up (a respawn), writes `config["type"]`, and failed with a traceback when
    // `config` was the URL.
    // The configuration is the worker's first request: it names the page's build, so that a
    // worker started again after a newer build took over in another tab is still served this
    // page's build by the offline copy (sw.js: pinByBuild).  The URL must still end in ".toml":
    // PyScript reads the configuration's type from its ending.
    const build = window.swarmlabOffline && window.swarmlabOffline.build;
    const configURL = build ? `${config}?swarmlab-build=${build}&as=.toml` : config;
    const spawn = () => PyWorker(src, { config: {}, configURL, version: interpreter });
    const worker = await Promise.race([spawn(), blocked]);
    document.removeEventListener("securitypolicyviolation", onViolation);
    if (!worker) {
      // PyScript has now configured itself for the worker; start afresh with the engine on
      // the main thread (the URL says so, so this happens once).
      console.warn("[swarmlab] this site's Content-Security-Policy blocks workers; the engine runs on the page's main thread");
      const url = new URL(location.href);
      url.searchParams.set("engine", "main");
      location.replace(url.href);
      return new Promise(() => {}); // the page is being replaced
    }
    engine = new Engine(new WorkerTransport(worker, spawn));
  }
  if (!useWorker) {
    // Served with ?engine=main (or after a CSP that forbids workers): the same preloads and
    // checks.  The single file carries its runtime inside and fetches nothing.
    if (!window.SWARMLAB_SINGLE_FILE) {
      window.SwarmBoot.prefetch(new URL(script.dataset.interpreter, document.baseURI).href);
    }
    await new Promise((resolve) => {
      window.swarmlabBridgeReady = resolve;
      document.body.append(script.cloneNode(true)); // PyScript runs a py script added to the page
    });
    engine = new Engine(new MainThreadTransport(window.swarmlabBridge));
  }
  // In a worker, app/main.py has run by now (PyWorker resolves after it): a working script
  // answers this at once, even on the slowest device, so a long silence means it never listens.
  // (boot.js's timing.firstAnswer: 30 s)
  engine.versions = await (useWorker ? answerWithin(engine.info(), window.SwarmBoot.timing.firstAnswer) : engine.info());
  return engine;
}

function answerWithin(promise, ms) {
  return timeLimit(promise, ms).catch((err) => {
    if (/^no answer within/.test(err.message)) {
      throw new EngineCrash(`the engine's Python script (app/main.py) ran but did not answer within ${ms / 1000} s`,
        SCRIPT_STOPPED);
    }
    throw err;
  });
}
