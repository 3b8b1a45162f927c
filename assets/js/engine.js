// The JavaScript side of the Python/JS boundary.
//
// The boundary is deliberately small (see app/main.py):
//   call(lab, method, args)  JSON in, JSON out -> session.op_<method>(**args)
//   frameInto(lab, buffer)   copy the lab's float32 frame buffer into a reusable array
//   spec(lab)                parameter specs (name, default, min, max, step, unit, label, help)
//
// Errors from Python (bad input) come back as {error: "..."}; call() throws an
// EngineError with that message so the UI can show it and keep the old state.

export class EngineError extends Error {
  constructor(message) {
    super(message);
    this.name = "EngineError";
  }
}

export class Engine {
  /** @param {object} bridge  the PyProxy published by app/main.py as window.swarmlabBridge */
  constructor(bridge) {
    this.bridge = bridge;
    this._specs = new Map();
  }

  /** Run session.op_<method>(**args) for a lab; returns the parsed JSON result. */
  call(lab, method, args = {}) {
    const text = this.bridge.call(lab, method, JSON.stringify(args));
    const out = JSON.parse(text);
    if (out && typeof out === "object" && !Array.isArray(out) && typeof out.error === "string") {
      throw new EngineError(out.error);
    }
    return out;
  }

  /** Like call(), but returns {ok, value} or {ok: false, error} instead of throwing. */
  tryCall(lab, method, args = {}) {
    try {
      return { ok: true, value: this.call(lab, method, args) };
    } catch (err) {
      if (err instanceof EngineError) return { ok: false, error: err.message };
      throw err;
    }
  }

  /** Parameter specs for a lab (cached). */
  spec(lab) {
    if (!this._specs.has(lab)) this._specs.set(lab, JSON.parse(this.bridge.spec(lab)));
    return this._specs.get(lab);
  }

  /**
   * Copy the lab's frame buffer into `target` (a Float32Array), growing it only when
   * the frame is larger.  Returns {data, length}: `data` may be a new, larger array
   * that the caller should keep for the next frame; `length` is the valid prefix.
   */
  frameInto(lab, target) {
    const proxy = this.bridge.frame(lab);
    try {
      const buf = proxy.getBuffer("f32");
      try {
        const src = buf.data;
        let data = target;
        if (!data || data.length < src.length) {
          data = new Float32Array(Math.max(src.length, Math.ceil((target ? target.length : 0) * 1.5), 64));
        }
        data.set(src);
        return { data, length: src.length };
      } finally {
        buf.release();
      }
    } finally {
      proxy.destroy();
    }
  }

  /** Versions of the engine, Python and numpy (for the footer and bug reports). */
  info() {
    return JSON.parse(this.bridge.info());
  }
}
