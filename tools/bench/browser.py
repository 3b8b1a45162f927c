"""Browser benchmarks of Swarm Lab (issue 8): ratios measured side by side in one run.

Run::

    .venv/bin/python -m tools.bench.browser            # ~4-5 minutes on a 2-core machine
    .venv/bin/python -m tools.bench.browser --quick    # ~2-3 minutes: shorter runs (boot keeps 5 loads)
    .venv/bin/python -m tools.bench.browser --parts engine,bridge   # some parts only

Headless Chromium through Playwright ($CHROMIUM, else /usr/bin/chromium, else Playwright's
own); the repo root served by ``tools/serve.py``'s ``make_server`` on loopback port 0.  Cold
loads use the server as deployed; the pages that time code add COOP/COEP headers (cross-origin
isolation), which gives ``performance.now()`` 5 us steps instead of 100 us (nothing else
differs: every file is same-origin).  Every number is a median unless it says otherwise.

1. **Boot**: navigation -> first simulated frame of the Swarm Lab (a ``first-frame``
   performance mark or ``swarmlab:first-frame`` event if the page emits one, else
   ``html.lab-ready`` + one rAF), cold (new context per load, HTTP cache disabled), interleaved
   with two floors from the same vendored files: bare ``loadPyodide({packages:["numpy"]})`` +
   ``import numpy`` (pages/pyodide.html) and bare PyScript + numpy with passthrough
   (pages/pyscript.html).  Also ``dist/swarm-lab.html`` from file:// ("not built" if absent),
   reloads with the HTTP cache on, and the app's boot milestones next to the PyScript floor's.
   The floors load the app's runtime (py-compiled when the build had Python 3.12).
7. **Deploy** (tools/bench/deploy.py): the built site and single file on a gzip server against
   bare Pyodide + numpy from the *official* files; the second visit with the network off
   through the service worker; 10 Mbps / 40 ms; bytes on the wire.
2. **Engine work per frame**: the steps of one 60 Hz frame at 1x + metrics + frame-buffer read,
   through ``window.swarmlab.engine`` in the app page, against the same ops on a fresh session
   under CPython (``tools/bench/cpython_frame.py``), timed in interleaved rounds.  Each lab at
   its default population, and the Swarm Lab at N = 500, 2,000, 10,000 (above the page's
   maximum the bench-only page pages/lab.html raises the spec limit).
3. **Frame pacing**: the Swarm Lab running at 1x and 4x (rAF intervals, share over 20 ms, JS
   work, engine time, drawing, steps and canvas segments per frame), plus bench-only
   simulations: steps capped per frame, N = 2,000, and N = 2,000 without trails.
4. **Eight-seed check** (Vicsek session ``check_start``/``check_advance``): batched against
   one run at a time, in the browser (serial mode timed on its first runs and scaled, unless
   ``--full-check``).
5. **Bridge overhead** at N = 2,000: one JS -> Python call and the frame read against the step
   (app page), and ways to move the frame buffer (getBuffer as ``Engine.frameInto``,
   ``toJs()``, Python ``assign`` into a JS Float32Array, ``to_js``, a persistent view) on
   pages/lab.html, which loads Pyodide directly with the app's Python files.
6. **Where the time goes**: cProfile of Swarm Lab frames under Pyodide and CPython, and numpy
   idioms on flat pair arrays in both runtimes.

Prints a table per part and writes everything to ``dist/bench/browser.json``.  A lab whose
session or page is missing prints "n/a" with the reason instead of failing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = "tools/bench/pages"
for p in (ROOT / "app", ROOT):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from tools import serve  # noqa: E402
from tools.bench import cpython_frame as harness  # noqa: E402

CHROME_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
LABS = ("swarm", "vicsek", "boids")
SWARM_POPULATIONS = (500, 2000, 10000)
BRIDGE_N = 2000
LOAD_TIMEOUT_MS = 120_000
OFFLINE = ROOT / "dist" / "swarm-lab.html"


# ----------------------------------------------------------------------------- small helpers
def chromium_path() -> str | None:
    for cand in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if cand and Path(cand).exists():
            return cand
    return None


def stats(values) -> dict:
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return {"median": None, "p95": None, "max": None, "min": None, "n": 0}
    p95 = vals[min(len(vals) - 1, math.ceil(0.95 * len(vals)) - 1)]
    return {"median": statistics.median(vals), "p95": p95, "max": vals[-1], "min": vals[0], "n": len(vals)}


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(v, digits=2, unit=""):
    if v is None:
        return "n/a"
    if isinstance(v, str):
        return v
    if abs(v) >= 1000:
        return f"{v:,.0f}{unit}"
    if abs(v) >= 100:
        return f"{v:.0f}{unit}"
    return f"{v:.{digits}f}{unit}"


def fx(v, digits=2):
    return "n/a" if v is None else f"{v:.{digits}f}x"


def table(title: str, headers: list[str], rows: list[list], notes: list[str] = ()) -> str:
    cells = [[str(c) for c in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in cells:
        for k, c in enumerate(r):
            widths[k] = max(widths[k], len(c))
    out = [f"\n{title}", "-" * len(title)]
    out.append("  ".join(h.ljust(widths[k]) if k == 0 else h.rjust(widths[k]) for k, h in enumerate(headers)))
    for r in cells:
        out.append("  ".join(c.ljust(widths[k]) if k == 0 else c.rjust(widths[k]) for k, c in enumerate(r)))
    for n in notes:
        out.append(f"  * {n}")
    text = "\n".join(out)
    print(text, flush=True)
    return text


def _last_line(text: str) -> str:
    """The informative line of a Python traceback / JS error text."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip() and not ln.strip().startswith("at ")]
    for ln in reversed(lines):
        if "Error" in ln or "error" in ln:
            return ln[:300]
    return (lines[-1] if lines else str(text))[:300]


def app_files() -> list[str]:
    """Python files of the engine, relative to app/ (what the bench page mounts)."""
    base = ROOT / "app"
    return sorted(str(p.relative_to(base)).replace(os.sep, "/") for p in (base / "swarmlab").rglob("*.py")
                  if "__pycache__" not in p.parts)


class Served(serve.Background):
    """tools/serve.py's server on a loopback port 0, in a thread.

    ``isolated=True`` adds Cross-Origin-Opener/Embedder-Policy headers, which make the page
    cross-origin isolated: Chromium's ``performance.now()`` then has 5 us resolution instead
    of 100 us.  Only the headers differ (every file of the app is same-origin).
    """

    def __init__(self, isolated: bool = False):
        httpd = serve.make_server(ROOT, "127.0.0.1", 0, quiet=True)
        if isolated:
            class Isolated:
                def end_headers(self):
                    self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                    self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
                    super().end_headers()

            serve.extend_handler(httpd, Isolated)
        super().__init__(httpd)


# ----------------------------------------------------------------------------- page scripts
# Installed before any page script runs: boot milestones for part 1.
BOOT_INIT = r"""
(() => {
  const b = (window.__bench = window.__bench || {});
  b.progress = [];
  addEventListener('py:progress', (e) => b.progress.push([performance.now(), String(e.detail)]));
  addEventListener('swarmlab:first-frame', () => { if (b.firstFrameEvent == null) b.firstFrameEvent = performance.now(); });
  addEventListener('swarmlab:lab-ready', () => {
    b.labReady = performance.now();
    requestAnimationFrame(() => { b.labReadyRaf = performance.now(); });
  });
  addEventListener('swarmlab:boot-failed', (e) => { b.error = 'boot failed: ' + JSON.stringify(e.detail); });
  // boot.js reports failures after boot (e.g. a lab that cannot be shown) through console.error
  const realError = console.error.bind(console);
  console.error = function (...args) {
    const text = args.map((a) => (a && a.stack) || String(a)).join(' ');
    if (/^\[swarmlab\]/.test(text) && b.error == null) b.error = text.slice(0, 1500);
    return realError(...args);
  };
})();
"""

# Reads the result of one cold load once it is done.
BOOT_DONE = r"""
(kind) => {
  const b = window.__bench || {};
  if (b.error) return true;
  if (kind === 'pyodide' || kind === 'pyscript') return b.done != null;
  if (document.documentElement.classList.contains('boot-failed')) { b.error = 'boot-failed'; return true; }
  const marks = performance.getEntriesByType('mark').filter((m) => /first[-_ ]?frame/i.test(m.name));
  return marks.length > 0 || b.firstFrameEvent != null || b.labReadyRaf != null;
}
"""

BOOT_READ = r"""
(kind) => {
  const b = window.__bench || {};
  const out = { error: b.error || null, progress: b.progress || [] };
  const res = performance.getEntriesByType('resource');
  const find = (re) => res.find((e) => re.test(e.name));
  const wasm = find(/pyodide\.asm\.wasm/), whl = find(/numpy-.*\.whl/);
  out.wasmDownloaded = wasm ? wasm.responseEnd : null;
  out.numpyRequested = whl ? whl.startTime : null;
  out.numpyDownloaded = whl ? whl.responseEnd : null;
  out.bytes = res.reduce((s, e) => s + (e.transferSize || e.encodedBodySize || 0), 0);
  out.requests = res.length;
  if (kind === 'pyodide' || kind === 'pyscript') {
    out.ms = b.done; out.how = "'import numpy' done"; out.loaded = b.loaded ?? null;
    return out;
  }
  const marks = performance.getEntriesByType('mark').filter((m) => /first[-_ ]?frame/i.test(m.name));
  if (marks.length) { out.ms = marks[0].startTime; out.how = `performance mark '${marks[0].name}'`; }
  else if (b.firstFrameEvent != null) { out.ms = b.firstFrameEvent; out.how = "event 'swarmlab:first-frame'"; }
  else { out.ms = b.labReadyRaf; out.how = 'html.lab-ready + one rAF'; }
  out.labReady = b.labReady ?? null;
  out.labReadyRaf = b.labReadyRaf ?? null;
  const sb = window.SwarmBoot;
  out.pythonReady = sb && sb.bootMs != null ? sb.bootMs + (sb.state ? sb.state.started : 0) : null;
  return out;
}
"""


def booted(page, kind: str) -> dict:
    """Wait until a loaded page of ``kind`` ("app", "pyodide" or "pyscript": BOOT_DONE) has
    booted, then read its result (BOOT_READ)."""
    page.wait_for_function(BOOT_DONE, arg=kind, timeout=LOAD_TIMEOUT_MS, polling=20)
    return page.evaluate(BOOT_READ, kind)

# Smallest non-zero step of performance.now() and whether the page is cross-origin isolated.
TIMER_RES = r"""
() => {
  let best = Infinity, last = performance.now();
  for (let k = 0; k < 200000 && best > 0.001; k++) { const t = performance.now(); if (t > last) { best = Math.min(best, t - last); last = t; } }
  return { crossOriginIsolated: !!window.crossOriginIsolated, resolution_ms: best };
}
"""

# Frame pacing: wraps requestAnimationFrame (before the app runs) to time every callback,
# and records every frame's timestamp with a dedicated loop.
PACE_INIT = r"""
(() => {
  const raf = window.requestAnimationFrame.bind(window);
  const P = (window.__pace = { on: false, frames: [], cur: null });
  window.requestAnimationFrame = function (cb) {
    return raf(function (ts) {
      if (P.on && (!P.cur || P.cur.ts !== ts)) { P.cur = { ts, js: 0, eng: 0, calls: 0, steps: 0 }; P.frames.push(P.cur); }
      const t0 = performance.now();
      try { cb(ts); } finally { if (P.on && P.cur) P.cur.js += performance.now() - t0; }
    });
  };
  // canvas path segments per frame (lineTo calls), to size the drawing work
  try {
    const proto = CanvasRenderingContext2D.prototype, lineTo = proto.lineTo;
    proto.lineTo = function (x, y) { if (P.on && P.cur) P.cur.segs = (P.cur.segs || 0) + 1; return lineTo.call(this, x, y); };
  } catch (e) { /* no canvas */ }
  P.start = () => {
    P.frames = []; P.cur = null; P.on = true;
    const rec = () => { if (P.on) window.requestAnimationFrame(rec); };
    window.requestAnimationFrame(rec);
  };
  P.stop = () => { P.on = false; return P.frames.map((f) => [f.ts, f.js, f.eng, f.calls, f.steps, f.segs || 0]); };
  // bench-only: switch the Swarm Lab's trail drawing off (simulates "fewer or no trails")
  P.trails = async (on) => {
    const mod = await import(new URL('assets/js/labs/swarm/trails.js', document.baseURI).href);
    const proto = mod.TrailBuffer.prototype;
    if (!proto.__pathBand) { proto.__pathBand = proto.pathBand; }
    proto.pathBand = on ? proto.__pathBand : function () {};
    return typeof proto.__pathBand === 'function';
  };
  P.wrapEngine = (engine) => {
    if (engine.__paced) return;
    engine.__paced = true;
    const call = engine.call.bind(engine), frameInto = engine.frameInto.bind(engine);
    engine.call = (lab, method, args) => {
      // P.capSteps (bench only) simulates a page that never runs more than that many steps in one frame
      if (method === 'step' && P.capSteps && args && args.n > P.capSteps) args = { ...args, n: P.capSteps };
      const t0 = performance.now();
      try { return call(lab, method, args); }
      finally {
        if (P.on && P.cur) {
          P.cur.eng += performance.now() - t0; P.cur.calls += 1;
          if (method === 'step') P.cur.steps += Number((args && args.n) ?? 1);
        }
      }
    };
    engine.frameInto = (lab, buf) => {
      const t0 = performance.now();
      try { return frameInto(lab, buf); }
      finally { if (P.on && P.cur) { P.cur.eng += performance.now() - t0; P.cur.calls += 1; } }
    };
  };
})();
"""

# Playback speed of the active lab.  Tries, in order: a controller method, a control in the
# lab's section (select / range / number input whose name, id, aria-label or data attribute
# mentions speed or playback), a button labelled "4x"/"4×".  Returns how, or null.
SET_SPEED = r"""
async (speed) => {
  const lab = window.swarmlab.active;
  let c = window.swarmlab.labs.get(lab);
  c = c && typeof c.then === 'function' ? await c : c;
  const section = document.getElementById(`lab-${lab}`);
  const btn = section.querySelector(`[data-speed="${speed}"]`);
  if (btn) { btn.click(); return `button [data-speed="${speed}"]`; }
  for (const holder of [c, c && c.test]) {
    for (const m of ['setSpeed', 'setPlayback', 'setPlaybackSpeed']) {
      if (holder && typeof holder[m] === 'function') { holder[m](speed); return `controller${holder === c ? '' : '.test'}.${m}(${speed})`; }
    }
  }
  const isSpeed = (el) => /speed|playback|rate/i.test([el.name, el.id, el.getAttribute('aria-label'),
    el.dataset && (el.dataset.param || el.dataset.name || el.dataset.control), el.title].filter(Boolean).join(' '))
    && !/^v$|swim|flying/i.test(el.name || '');
  for (const el of section.querySelectorAll('select')) {
    if (!isSpeed(el)) continue;
    const opt = [...el.options].find((o) => parseFloat(o.value) === speed);
    if (opt) { el.value = opt.value; el.dispatchEvent(new Event('input', { bubbles: true })); el.dispatchEvent(new Event('change', { bubbles: true })); return `select#${el.id || el.name}=${opt.value}`; }
  }
  for (const el of section.querySelectorAll('input[type=range], input[type=number]')) {
    if (!isSpeed(el)) continue;
    el.value = String(speed); el.dispatchEvent(new Event('input', { bubbles: true })); el.dispatchEvent(new Event('change', { bubbles: true }));
    return `input#${el.id || el.name}=${el.value}`;
  }
  for (const el of section.querySelectorAll('button, [role=radio], input[type=radio]')) {
    const text = (el.textContent || el.value || el.getAttribute('aria-label') || '').replace(/\s+/g, '');
    if (new RegExp(`^${speed}(x|×)$`, 'i').test(text) || (el.type === 'radio' && parseFloat(el.value) === speed && isSpeed(el))) {
      el.click(); return `button '${text}'`;
    }
  }
  return null;
}
"""

# Make sure the active lab is playing (headless is not reduced-motion, but a lab might start paused).
ENSURE_PLAYING = r"""
async () => {
  const P = window.__pace;
  const before = P.frames.reduce((s, f) => s + f.steps, 0);
  await new Promise((r) => setTimeout(r, 600));
  const after = P.frames.reduce((s, f) => s + f.steps, 0);
  if (after > before) return 'playing';
  const lab = window.swarmlab.active;
  const section = document.getElementById(`lab-${lab}`);
  const btn = [...section.querySelectorAll('button')].find((b) => /^\s*(play|run|start)\b/i.test(b.textContent || b.getAttribute('aria-label') || ''));
  if (btn) { btn.click(); return 'pressed ' + btn.textContent.trim(); }
  return 'no step calls seen';
}
"""

# Stop the active lab's own loop so that timings are not interleaved with it.
DEACTIVATE = r"""
async () => {
  for (const [lab, c0] of window.swarmlab.labs) {
    const c = c0 && typeof c0.then === 'function' ? await c0 : c0;
    if (c && c.deactivate) c.deactivate();
  }
  return true;
}
"""

# One lab's engine work per frame.  SETUP resets the session, sets the population and runs
# the warm-up frames; RUN times k more frames (called in rounds, interleaved with CPython);
# END reads the payload sizes.  APP_SETUP goes through the app's engine (window.swarmlab.engine);
# BENCH_SETUP makes a session on the bench page (population above the page's limit).
APP_SETUP = r"""
async ([lab, popName, n, steps, warmup]) => {
  const e = window.swarmlab.engine;
  e.call(lab, 'reset', {});
  if (popName && n != null) {
    const r = e.tryCall(lab, 'set', { name: popName, value: n });
    if (!r.ok) return { refused: r.error };
  }
  const E = (window.__eng = { lab, buf: new Float32Array(64), frameLen: 0 });
  const args = { n: steps };
  E.one = () => {
    const t0 = performance.now();
    e.call(lab, 'step', args);
    const t1 = performance.now();
    e.call(lab, 'metrics', {});
    const t2 = performance.now();
    const r = e.frameInto(lab, E.buf); E.buf = r.data; E.frameLen = r.length;
    const t3 = performance.now();
    return [t3 - t0, t1 - t0, t2 - t1, t3 - t2];
  };
  E.end = () => ({
    metricsBytes: window.swarmlabBridge.call(lab, 'metrics', '{}').length,
    frameLen: E.frameLen, state: e.call(lab, 'state', {}), note: '',
  });
  const w0 = performance.now();
  for (let k = 0; k < warmup; k++) E.one();
  return { perFrame: (performance.now() - w0) / Math.max(warmup, 1) };
}
"""

BENCH_SETUP = r"""
async ([lab, n, steps, warmup]) => {
  const py = window.benchPy;
  py.globals.set('_lab', lab); py.globals.set('_n', n);
  const sess = py.runPython(`
import bench_harness
_s, _note = bench_harness.make_session(_lab, _n, allow_above_max=True)
_s`);
  const note = py.globals.get('_note');
  const E = (window.__eng = { lab, buf: new Float32Array(64), frameLen: 0 });
  const args = JSON.stringify({ n: steps });
  E.one = () => {
    const t0 = performance.now();
    sess.call('step', args);
    const t1 = performance.now();
    E.m = sess.call('metrics', '{}');
    const t2 = performance.now();
    const p = sess.frame();
    try {
      const b = p.getBuffer('f32');
      try { if (E.buf.length < b.data.length) E.buf = new Float32Array(b.data.length); E.buf.set(b.data); E.frameLen = b.data.length; }
      finally { b.release(); }
    } finally { p.destroy(); }
    const t3 = performance.now();
    return [t3 - t0, t1 - t0, t2 - t1, t3 - t2];
  };
  E.end = () => {
    const out = { metricsBytes: (E.m || '').length, frameLen: E.frameLen, state: JSON.parse(sess.call('state', '{}')), note };
    sess.destroy();
    py.runPython('del _s');
    return out;
  };
  const w0 = performance.now();
  for (let k = 0; k < warmup; k++) E.one();
  return { perFrame: (performance.now() - w0) / Math.max(warmup, 1) };
}
"""

ENGINE_RUN = "(k) => { const rows = []; for (let i = 0; i < k; i++) rows.push(window.__eng.one()); return rows; }"
ENGINE_END = "() => window.__eng.end()"

CHECK_RUN = r"""
async ([mode, chunk, fraction]) => {
  const e = window.swarmlab.engine;
  const start = e.call('vicsek', 'check_start', { mode });
  const t0 = performance.now();
  let calls = 0, out;
  do { out = e.call('vicsek', 'check_advance', { updates: chunk }); calls++; } while (!out.done && out.progress < fraction);
  const ms = performance.now() - t0;
  const result = out.done ? e.call('vicsek', 'check_result', {}) : null;
  return { ms, calls, total: start.total, progress: out.progress, done: out.done, result };
}
"""

# Per-call costs on the app page (batches of calls: performance.now() is coarse).
APP_BRIDGE = r"""
async ([lab, popName, n, reps, batch]) => {
  const e = window.swarmlab.engine;
  const bridge = window.swarmlabBridge;
  if (lab === 'demo') e.call('demo', 'reset', { n });
  else { e.call(lab, 'reset', {}); if (popName) e.call(lab, 'set', { name: popName, value: n }); }
  let buf = new Float32Array(64);
  const ops = {
    'call: state (JSON op)': () => e.call(lab, 'state', {}),
    'bridge.call raw (no JSON.parse)': () => bridge.call(lab, 'state', '{}'),
    'frameInto (proxy+getBuffer+copy+destroy)': () => { buf = e.frameInto(lab, buf).data; },
    'call: metrics (same state again: no search)': () => e.call(lab, 'metrics', {}),
    'call: step n=1': () => e.call(lab, 'step', { n: 1 }),
  };
  const out = {};
  for (const [name, fn] of Object.entries(ops)) {
    for (let k = 0; k < 3; k++) fn();
    const b = name.startsWith('call: step') || name.startsWith('call: metrics') ? 1 : batch;
    const r = name.startsWith('call: step') || name.startsWith('call: metrics') ? Math.max(10, Math.round(reps / 3)) : reps;
    const samples = [];
    for (let s = 0; s < r; s++) {
      const t0 = performance.now();
      for (let k = 0; k < b; k++) fn();
      samples.push((performance.now() - t0) / b);
    }
    out[name] = samples;
  }
  const fp = bridge.frame(lab); const fb = fp.getBuffer('f32'); const len = fb.data.length; fb.release(); fp.destroy();
  return { samples: out, frameLen: len };
}
"""

# Ways to move the frame buffer from Python to JS (bench page, pyodide loaded directly).
BENCH_BRIDGE = r"""
async ([lab, n, reps, batch]) => {
  const py = window.benchPy;
  py.globals.set('_lab', lab); py.globals.set('_n', n);
  py.runPython(`
import json
import numpy as np
from pyodide.ffi import to_js
import bench_harness
if _lab == 'demo':
    _s = bench_harness.make_session('demo')[0]
    _s.op_reset(n=_n)
else:
    _s = bench_harness.make_session(_lab, _n, allow_above_max=True)[0]
_persist = np.empty(_s.frame().shape, dtype=np.float32)

def _frame():
    return _s.frame()

def _write_into(dst):
    dst.assign(_s.frame())

def _write_into_persistent():
    np.copyto(_persist, _s.frame())

def _to_js():
    return to_js(_s.frame())

def _state_json():
    return _s.call('state', '{}')

def _noop():
    return None
`);
  const frame = py.globals.get('_frame');
  const writeInto = py.globals.get('_write_into');
  const writePersist = py.globals.get('_write_into_persistent');
  const toJsPy = py.globals.get('_to_js');
  const stateJson = py.globals.get('_state_json');
  const noop = py.globals.get('_noop');
  const persist = py.globals.get('_persist');
  let view = persist.getBuffer('f32');  // held open: re-acquired only if wasm memory grows
  const len = view.data.length;
  const dst = new Float32Array(len);
  let kind = null;
  const ops = {
    'A getBuffer zero-copy view + set (as Engine.frameInto)': () => {
      const p = frame();
      try { const b = p.getBuffer('f32'); try { dst.set(b.data); } finally { b.release(); } } finally { p.destroy(); }
    },
    'B proxy.toJs() copy': () => {
      const p = frame();
      try { const a = p.toJs(); kind = kind || Object.prototype.toString.call(a); dst.set(a); } finally { p.destroy(); }
    },
    'C Python writes into JS Float32Array (dst.assign)': () => { writeInto(dst); },
    'D pyodide.ffi.to_js(frame) returned to JS': () => { const a = toJsPy(); dst.set(a); },
    'E persistent view: Python copies into a kept array, JS reads the open view': () => {
      writePersist();
      if (view.data.byteLength === 0) { view.release(); view = persist.getBuffer('f32'); }
      dst.set(view.data);
    },
    'F frame() proxy create + destroy only': () => { frame().destroy(); },
    'G JS -> Python no-op call': () => { noop(); },
    'H JS -> Python call returning state JSON': () => { stateJson(); },
  };
  const out = {};
  for (const [name, fn] of Object.entries(ops)) {
    for (let k = 0; k < 5; k++) fn();
    const samples = [];
    for (let s = 0; s < reps; s++) {
      const t0 = performance.now();
      for (let k = 0; k < batch; k++) fn();
      samples.push((performance.now() - t0) / batch);
    }
    out[name] = samples;
  }
  // all methods must give the same numbers
  const ref = new Float32Array(len);
  { const p = frame(); const b = p.getBuffer('f32'); ref.set(b.data); b.release(); p.destroy(); }
  writeInto(dst);
  const same = dst.every((v, i) => Object.is(v, ref[i]) || (Number.isNaN(v) && Number.isNaN(ref[i])));
  view.release();
  for (const p of [frame, writeInto, writePersist, toJsPy, stateJson, noop, persist]) p.destroy();
  py.runPython('del _s, _persist');
  return { samples: out, frameLen: len, toJsKind: kind, same };
}
"""

PROFILE = r"""
async ([lab, n, steps, frames]) => {
  const py = window.benchPy;
  py.globals.set('_lab', lab); py.globals.set('_n', n); py.globals.set('_steps', steps); py.globals.set('_frames', frames);
  const out = py.runPython(`
import json, bench_harness
_s, _ = bench_harness.make_session(_lab, _n, allow_above_max=True)
for _k in range(3):
    _s.call('step', json.dumps({'n': _steps}))
json.dumps(bench_harness.profile_steps(_s, _steps, _frames, top=8))`);
  py.runPython('del _s');
  return JSON.parse(out);
}
"""


# ----------------------------------------------------------------------------- the benchmark
class Bench:
    def __init__(self, args):
        self.args = args
        self.results: dict = {"meta": {}, "boot": None, "deploy": None, "engine": None, "pacing": None,
                              "check": None, "bridge": None, "profile": None}
        self.printed: list[str] = []
        self.t_start = time.perf_counter()

    def say(self, text: str):
        print(text, flush=True)
        self.printed.append(text)

    def tab(self, *a, **k):
        self.printed.append(table(*a, **k))

    # --- browser plumbing ---------------------------------------------------------------
    def new_context(self, cold: bool = False, init: str | None = None):
        ctx = self.browser.new_context(viewport={"width": 1280, "height": 800})
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
        if cold:
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        if init:
            page.add_init_script(init)
        return ctx, page

    def open_app(self, init: str | None = None, query: str = "lab=swarm"):
        ctx, page = self.new_context(init=BOOT_INIT + (init or ""))
        page.goto(f"{self.warm.url}/?{query}")
        page.wait_for_function(
            "document.documentElement.classList.contains('lab-ready') || document.documentElement.classList.contains('boot-failed')"
            " || (window.__bench && window.__bench.error != null)",
            timeout=LOAD_TIMEOUT_MS)
        err = page.evaluate("(window.__bench && window.__bench.error) || null")
        if page.evaluate("document.documentElement.classList.contains('boot-failed')"):
            raise RuntimeError("app boot failed: " + page.inner_text("#boot-error")[:500])
        if err:
            raise RuntimeError("app page error: " + _last_line(err))
        return ctx, page

    def bench_page(self):
        if getattr(self, "_bench_page", None) is None:
            ctx, page = self.new_context()
            page.goto(f"{self.warm.url}/{PAGES}/lab.html")
            page.wait_for_function("typeof window.benchBoot === 'function'", timeout=LOAD_TIMEOUT_MS)
            page.evaluate("([f, h]) => window.benchBoot(f, h)", [app_files(), "../cpython_frame.py"])
            self._bench_ctx, self._bench_page = ctx, page
        return self._bench_page

    # --- 1. boot ------------------------------------------------------------------------
    def cold_load(self, kind: str) -> dict:
        urls = {
            "app": f"{self.server.url}/?lab=swarm",
            "pyodide": f"{self.server.url}/{PAGES}/pyodide.html",
            "pyscript": f"{self.server.url}/{PAGES}/pyscript.html",
            "offline": OFFLINE.as_uri() + "?lab=swarm",
        }
        ctx, page = self.new_context(cold=True, init=BOOT_INIT)
        try:
            page.goto(urls[kind])
            out = booted(page, kind)
            if out.get("error"):
                out["error"] = _last_line(out["error"])
            return out
        except Exception as exc:  # noqa: BLE001 - a failed load is reported, not fatal
            return {"error": f"{type(exc).__name__}: {_last_line(exc)[:200]}", "ms": None,
                    "console": page.errors[:3]}
        finally:
            ctx.close()

    def warm_loads(self, count: int) -> list[dict]:
        """A returning visitor: one context with the HTTP cache on, one load to fill it, then reloads."""
        ctx, page = self.new_context(init=BOOT_INIT)
        out = []
        try:
            page.goto(f"{self.server.url}/?lab=swarm")
            booted(page, "app")
            for k in range(count):
                page.reload()
                r = booted(page, "app")
                out.append(r)
                print(f"  boot reload {k + 1}/{count} warm      {fmt(r.get('ms'), 0)} ms", flush=True)
        except Exception as exc:  # noqa: BLE001
            out.append({"error": _last_line(exc), "ms": None})
        finally:
            ctx.close()
        return out

    def part_boot(self):
        loads = self.args.loads
        kinds = ["app", "pyodide", "pyscript"] + (["offline"] if OFFLINE.exists() else [])
        runs = {k: [] for k in kinds}
        for i in range(loads):
            for k in kinds:
                r = self.cold_load(k)
                runs[k].append(r)
                ms = r.get("ms")
                print(f"  boot load {i + 1}/{loads} {k:9s} {fmt(ms, 0)} ms" + (f"  ({r['error']})" if r.get("error") else ""),
                      flush=True)
        if self.args.warm_loads:
            kinds.append("warm")
            runs["warm"] = self.warm_loads(self.args.warm_loads)
        med = {k: stats([r.get("ms") for r in runs[k] if not r.get("error")]) for k in kinds}
        how = {k: next((r.get("how") for r in runs[k] if r.get("how")), None) for k in kinds}
        labels = {
            "app": "Swarm Lab (served), first frame",
            "pyodide": "bare Pyodide + numpy (floor, the app's runtime)",
            "pyscript": "bare PyScript + numpy (floor, the app's runtime)",
            "offline": "single file dist/swarm-lab.html (file://)",
            "warm": "Swarm Lab (served), reload with HTTP cache",
        }
        rows = []
        for k in ["app", "pyodide", "pyscript", "offline", "warm"]:
            if k == "warm" and k not in kinds:
                continue
            if k == "offline" and k not in kinds:
                rows.append([labels[k], "not built", "", "", "", "run `make offline`"])
                continue
            m = med[k]
            bad = sum(1 for r in runs[k] if r.get("error"))
            rows.append([labels[k], fmt(m["median"], 0), fmt(m["min"], 0), fmt(m["max"], 0),
                         f"{m['n']}" + (f" ({bad} failed)" if bad else ""), how[k] or "n/a"])
        app = med["app"]["median"]
        ratios = {
            "app/bare_pyodide": ratio(app, med["pyodide"]["median"]),
            "app/bare_pyscript": ratio(app, med["pyscript"]["median"]),
            "pyscript/pyodide": ratio(med["pyscript"]["median"], med["pyodide"]["median"]),
            "offline/app": ratio(med["offline"]["median"], app) if "offline" in kinds else None,
            "warm/cold": ratio(med["warm"]["median"], app) if "warm" in kinds else None,
        }
        self.tab(f"1. Boot: navigation -> ready, cold loads (new context, cache disabled), ms, {loads} loads each interleaved",
                 ["page", "median", "min", "max", "loads", "end point"], rows,
                 [f"app / bare Pyodide = {fx(ratios['app/bare_pyodide'])};  app / bare PyScript = {fx(ratios['app/bare_pyscript'])};"
                  f"  bare PyScript / bare Pyodide = {fx(ratios['pyscript/pyodide'])}"
                  + (f";  offline / served app = {fx(ratios['offline/app'])}" if ratios["offline/app"] else "")
                  + (f";  reload / cold = {fx(ratios['warm/cold'])}" if ratios["warm/cold"] else ""),
                  "The floors end when `import numpy` returns; the app ends at its first simulated frame "
                  f"({how['app'] or 'n/a'})."]
                 + ([f"dist/swarm-lab.html: {OFFLINE.stat().st_size / 1e6:.1f} MB, built "
                     f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(OFFLINE.stat().st_mtime))} (rebuild with `make offline` "
                     "to measure the current code)"] if OFFLINE.exists() else []))
        # phases of the app boot (medians over the good loads)
        good = [r for r in runs["app"] if not r.get("error")]

        def prog(r, text):
            return next((t for t, d in r.get("progress", []) if d == text), None)

        ps = [r for r in runs["pyscript"] if not r.get("error")]
        phases = [  # (milestone, app values, bare PyScript values)
            ("pyodide.asm.wasm downloaded", [r.get("wasmDownloaded") for r in good], [r.get("wasmDownloaded") for r in ps]),
            ("numpy wheel requested", [r.get("numpyRequested") for r in good], [r.get("numpyRequested") for r in ps]),
            ("numpy wheel downloaded", [r.get("numpyDownloaded") for r in good], [r.get("numpyDownloaded") for r in ps]),
            ("interpreter + numpy loaded (py:progress 'Loading files')", [prog(r, "Loading files") for r in good],
             [prog(r, "Loading files") for r in ps]),
            ("PyScript ready (py:progress 'Loaded Pyodide')", [prog(r, "Loaded Pyodide") for r in good],
             [prog(r, "Loaded Pyodide") for r in ps]),
            ("main.py done (app: engine imported, bridge up; floor: numpy imported)", [r.get("pythonReady") for r in good],
             [r.get("ms") for r in ps]),
            ("lab module mounted (html.lab-ready)", [r.get("labReady") for r in good], []),
            ("first frame", [r.get("ms") for r in good], []),
        ]
        prow, prev = [], 0.0
        for name, vals, floor in phases:
            m = stats(vals)["median"]
            f = stats(floor)["median"]
            prow.append([name, fmt(m, 0), fmt(None if m is None else m - prev, 0), fmt(f, 0) if floor else ""])
            if m is not None:
                prev = m
        pyo = [r.get("loaded") for r in runs["pyodide"] if not r.get("error")]
        self.tab("1b. Where the app's boot goes (median time since navigation, ms)",
                 ["milestone", "app at", "app +since previous", "bare PyScript at"], prow,
                 [f"bare page: loadPyodide({{packages:['numpy']}}) returned at {fmt(stats(pyo)['median'], 0)} ms, "
                  f"`import numpy` done at {fmt(med['pyodide']['median'], 0)} ms",
                  f"app transfer per cold load: {fmt(stats([r.get('bytes') for r in good])['median'] and stats([r.get('bytes') for r in good])['median'] / 1e6, 1)} MB in "
                  f"{fmt(stats([r.get('requests') for r in good])['median'], 0)} requests"])
        self.results["boot"] = {"loads": loads, "median": med, "how": how, "ratios": ratios, "runs": runs,
                                "offline_built": "offline" in kinds,
                                "phases": {n: {"app": stats(v)["median"], "bare_pyscript": stats(f)["median"]} for n, v, f in phases}}

    def _swarm_default_n(self) -> int:
        try:
            from swarmlab import swarm as swarm_model

            return int(next(sp.default for sp in swarm_model.SPECS if sp.name == "N"))
        except Exception:  # noqa: BLE001
            return 150

    # --- 3. pacing (run first on the warm page, before the engine part changes populations) ---
    def part_pacing(self, page):
        secs = self.args.pacing_seconds
        page.evaluate("window.__pace.wrapEngine(window.swarmlab.engine)")
        page.evaluate("window.__pace.start()")
        playing = page.evaluate(ENSURE_PLAYING)
        page.evaluate("window.__pace.stop()")
        active = page.evaluate("window.swarmlab.active")
        placeholder = page.evaluate("!!document.querySelector('#lab-swarm canvas[aria-label=\"Placeholder simulation\"]')")
        out, rows = {"active": active, "playing": playing, "placeholder": placeholder, "runs": {}}, []
        short = max(secs * 0.3, 3.0)
        runs = [("1x", 1, None, secs, None), ("4x", 4, None, secs, None)]
        if self.args.pacing_capped:
            runs.append(("4x capped", 4, 4, short, None))
        if self.args.pacing_big:
            runs.append(("1x N=2,000", 1, None, short, 2000))
            if self.args.pacing_capped:
                runs.append(("1x N=2,000 capped", 1, 1, short, 2000))
            runs.append(("1x N=2,000 no trails", 1, None, short, 2000))
        current_n = None
        for name, speed, cap, run_secs, pop in runs:
            if "no trails" in name:
                try:
                    page.evaluate("window.__pace.trails(false)")
                except Exception as exc:  # noqa: BLE001 - module layout changed
                    rows.append([name, f"n/a ({_last_line(exc)[:60]})"] + [""] * 10)
                    continue
            if pop != current_n:
                page.evaluate("(n) => window.swarmlab.engine.call('swarm', 'set', { name: 'N', value: n })",
                              pop if pop is not None else self._swarm_default_n())
                current_n = pop
            how = "default (1x)"
            if speed != 1:
                how = page.evaluate(SET_SPEED, speed)
                if how is None:
                    rows.append([name, "n/a (no playback-speed control found)"] + [""] * 10)
                    out["runs"][name] = {"error": "no playback-speed control found"}
                    continue
            page.evaluate("(c) => { window.__pace.capSteps = c; }", cap)
            page.wait_for_timeout(500)
            page.evaluate("window.__pace.start()")
            page.wait_for_timeout(int(run_secs * 1000))
            frames = page.evaluate("window.__pace.stop()")
            page.evaluate("() => { window.__pace.capSteps = null; }")
            if "no trails" in name:
                page.evaluate("window.__pace.trails(true)")
            ts = [f[0] for f in frames]
            iv = [b - a for a, b in zip(ts, ts[1:])]
            s = stats(iv)
            over = sum(1 for v in iv if v > 20.0) / len(iv) if iv else None
            js = stats([f[1] for f in frames])
            eng = stats([f[2] for f in frames])
            draw = stats([f[1] - f[2] for f in frames])
            segs = stats([f[5] for f in frames])
            steps = sum(f[4] for f in frames)
            fps = (len(iv) / ((ts[-1] - ts[0]) / 1000)) if len(ts) > 1 else None
            r = {"how": how, "intervals": s, "over20": over, "fps": fps, "js_per_frame": js, "engine_per_frame": eng,
                 "other_js_per_frame": draw, "path_segments_per_frame": segs,
                 "frames": len(frames), "steps_per_frame": steps / max(len(frames), 1), "seconds": run_secs, "cap": cap}
            out["runs"][name] = r
            rows.append([name, f"{len(frames)}", fmt(fps, 1), fmt(s["median"], 1), fmt(s["p95"], 1), fmt(s["max"], 1),
                         fmt(None if over is None else 100 * over, 1) + "%", fmt(js["median"], 2) + " / " + fmt(js["p95"], 2),
                         fmt(eng["median"], 2) + " / " + fmt(eng["p95"], 2), fmt(draw["median"], 2) + " / " + fmt(draw["p95"], 2),
                         fmt(steps / max(len(frames), 1), 2), fmt(segs["median"], 0)])
        page.evaluate(SET_SPEED, 1)
        if current_n is not None:
            page.evaluate("(n) => window.swarmlab.engine.call('swarm', 'set', { name: 'N', value: n })", self._swarm_default_n())
        notes = [
            f"active lab: {active}" + (" (PLACEHOLDER walkers: the Swarm Lab page module is not available)" if placeholder else "")
            + f"; playback: {playing}; speed set with {out['runs'].get('4x', {}).get('how', 'n/a')}",
            "JS work = time inside all rAF callbacks of a frame (lab tick: engine + drawing); engine = time in engine.call/frameInto; "
            "drawing etc. = the rest of the JS work. steps/frame above the speed (1 step = 1/60 s) means the page is catching up "
            "after slow frames (the loop clamps dt to 0.1 s, i.e. up to 6 x speed steps in one frame).",
            "'capped' rows (bench-only simulation of a proposed page change): engine.call('step') is limited to `speed` steps "
            "per frame, so after a slow frame the page drops model time instead of catching up; results per step are unchanged. "
            "N=2,000 rows: population set live through the session (the page's maximum); 'no trails' switches the trail "
            "drawing off (bench-only patch of TrailBuffer.pathBand). lineTo/frame = canvas path segments per frame. fps far "
            "below 1000 / (JS work) means the rest of the frame is spent outside JS (canvas rasterisation, here in software).",
            "Headless caveats: rAF is driven by a 60 Hz begin-frame timer, not a display's vsync; --disable-gpu means software "
            "canvas/compositing; the 2-core machine is shared, so max/p95 include other processes' scheduling. Intervals are "
            "quantised to ~16.7 ms: a frame that misses its slot shows as ~33 ms.",
        ]
        self.tab(f"3. Frame pacing: Swarm Lab running {secs:g} s per speed (rAF timestamps), ms",
                 ["speed", "frames", "fps", "median", "p95", "max", ">20 ms", "JS work med/p95", "engine med/p95",
                  "drawing etc. med/p95", "steps/frame", "lineTo/frame"],
                 rows, notes)
        self.results["pacing"] = out

    # --- 2. engine cost per frame --------------------------------------------------------
    def part_engine(self, page):
        page.evaluate(DEACTIVATE)
        cases = []
        for lab in LABS:
            cases.append((lab, None))
        for n in SWARM_POPULATIONS:
            cases.append(("swarm", n))
        rows, res, notes_rows = [], [], []
        budget = self.args.frame_budget_ms
        for lab, n in cases:
            label = f"{lab}" + ("" if n is None else f" N={n:,}")
            try:
                session, _ = harness.make_session(lab)
            except Exception as exc:  # noqa: BLE001 - missing lab
                rows.append([label, "n/a", "", "", "", "", "", "", f"{type(exc).__name__}: {_last_line(exc)}"[:90]])
                res.append({"lab": lab, "n": n, "error": f"{type(exc).__name__}: {exc}"})
                continue
            pop_name = harness.population_param(session)
            spf = harness.steps_per_frame(session)
            steps = harness.frame_steps(spf)
            default_n = next((s.default for s in session.SPECS if s.name == pop_name), None) if pop_name else None
            target_n = n if n is not None else default_n
            source, note = "app", ""
            big = (target_n or 0) >= 5000
            warmup = 1 if big else self.args.warmup
            target = page
            try:
                setup = page.evaluate(APP_SETUP, [lab, pop_name, target_n, steps, warmup])
                if setup.get("refused"):  # population above the page's maximum: the bench page lifts it
                    target = self.bench_page()
                    refused = setup["refused"]
                    setup = target.evaluate(BENCH_SETUP, [lab, target_n, steps, warmup])
                    source, note = "bench page", f"app refused ({refused[:70]})"
            except Exception as exc:  # noqa: BLE001 - a broken lab is reported, not fatal
                msg = _last_line(exc)
                rows.append([label, "n/a", "", "", "", "", "", "", msg[:90]])
                res.append({"lab": lab, "n": n, "error": msg})
                continue
            per = max(setup["perFrame"], 0.01)
            frames = int(max(4 if big else 15, min(self.args.max_frames, round(budget / per))))
            rounds = max(1, min(6, frames // 5))
            chunks = [frames // rounds + (1 if k < frames % rounds else 0) for k in range(rounds)]
            # CPython: the same sequence on a fresh session (same population change, same warm-up, same
            # frames), timed in rounds interleaved with the page's so that machine noise hits both alike.
            cs, js_rows, ct = None, [], {"total": [], "step": [], "metrics": [], "frame": []}
            try:
                cs, _ = harness.make_session(lab, target_n if n is not None or (pop_name and target_n != default_n) else None,
                                             allow_above_max=(source != "app"))
                harness.time_frames(cs, steps, 0, warmup=warmup)
            except Exception as exc:  # noqa: BLE001
                cs = None
                note += f" CPython failed: {_last_line(exc)}"
            for k in chunks:
                js_rows += target.evaluate(ENGINE_RUN, k)
                if cs is not None:
                    part = harness.time_frames(cs, steps, k, warmup=0)
                    for key in ct:
                        ct[key] += part[key]
            js = target.evaluate(ENGINE_END)
            if js.get("note"):
                note += "; " + js["note"]
            pyo = {k: stats([r[i] for r in js_rows]) for i, k in enumerate(("total", "step", "metrics", "frame"))}
            cpy = {k: stats(v) for k, v in ct.items()}
            actual_n = harness.population_of(cs) if cs is not None else None
            r = {
                "lab": lab, "n": target_n, "n_actual": actual_n, "steps_per_frame": spf, "steps_timed": steps,
                "frames": frames, "source": source, "note": note.strip(), "pyodide": pyo, "cpython": cpy,
                "ratio_median": ratio(pyo["total"]["median"], cpy["total"]["median"]),
                "metrics_json_bytes": js.get("metricsBytes"), "frame_floats": js.get("frameLen"),
            }
            res.append(r)
            rows.append([label, f"{steps}" + ("" if abs(spf - steps) < 1e-9 else f" ({spf:.2f})"),
                         fmt(pyo["total"]["median"], 2), fmt(pyo["total"]["p95"], 2),
                         fmt(cpy["total"]["median"], 3), fmt(cpy["total"]["p95"], 3), fx(r["ratio_median"], 1),
                         f"{fmt(pyo['step']['median'], 2)}/{fmt(pyo['metrics']['median'], 2)}/{fmt(pyo['frame']['median'], 3)}",
                         source])
            if note:
                notes_rows.append(f"{label}: {note}")
        self.tab("2. Engine work per displayed frame (step(s) + metrics + frame read), ms",
                 ["lab", "steps/frame", "Pyodide med", "Pyodide p95", "CPython med", "CPython p95", "Pyo/CPy",
                  "Pyodide step/metrics/frame", "timed in"], rows,
                 ["steps/frame = whole model steps timed per frame (60 Hz display at 1x); in brackets the average when fractional "
                  "(boids: dt = 25 ms -> 2/3 step per frame; vicsek: the page plays 6 updates/s by default -> 0.1 per frame): the "
                  "busiest frame is timed.",
                  "Pyodide timed in the app page through window.swarmlab.engine (performance.now()); CPython = same session ops "
                  "on a fresh session in the same run. Budget per frame at 60 Hz: 16.7 ms for engine + drawing.",
                  "Metrics are called every frame here; the Swarm Lab page itself records them every 15 steps (0.25 s). "
                  "The swarm session caches the new state's neighbour search in metrics and reuses it in the next step, so the "
                  "search shows under 'metrics', not 'step'."] + notes_rows)
        extra = [[r["lab"] + ("" if r.get("n") is None else f" N={r['n']:,}"), fmt(r.get("metrics_json_bytes"), 0),
                  fmt(r.get("frame_floats"), 0)] for r in res if "pyodide" in r]
        if extra:
            self.tab("2b. Per-frame payloads", ["lab", "metrics JSON chars", "frame floats"], extra)
        self.results["engine"] = res

    # --- 4. eight-seed check -------------------------------------------------------------
    def part_check(self, page):
        try:
            harness.make_session("vicsek")
        except Exception as exc:  # noqa: BLE001
            self.tab("4. Eight-seed check", ["mode", "result"], [["both", f"n/a ({_last_line(exc)})"]])
            self.results["check"] = {"error": str(exc)}
            return
        res, rows = {}, []
        chunk = {"batched": self.args.check_chunk, "serial": self.args.check_chunk * 16}
        fraction = {"batched": 1.0, "serial": 1.0 if self.args.full_check else self.args.serial_fraction}
        for mode in ("batched", "serial"):
            try:
                r = page.evaluate(CHECK_RUN, [mode, chunk[mode], fraction[mode]])
                r["seconds_total"] = r["ms"] / 1000 / r["progress"] if r["progress"] else None
                res[mode] = r
                measured = "all" if r["done"] else f"{100 * r['progress']:.0f}% (extrapolated)"
                mean = (fmt(r["result"]["mean"]["a0"], 4) + " / " + fmt(r["result"]["mean"]["a1"], 4)) if r.get("result") else "-"
                rows.append([mode, fmt(r["seconds_total"], 1), fmt(r["ms"] / 1000, 1), measured, f"{r['total']}",
                             f"{r['calls']}", fmt(r["ms"] / r["calls"], 1), mean])
            except Exception as exc:  # noqa: BLE001
                res[mode] = {"error": _last_line(exc)}
                rows.append([mode, "n/a", "", "", "", "", "", _last_line(exc)[:80]])
        b, s = res.get("batched", {}), res.get("serial", {})
        rat = ratio(s.get("seconds_total"), b.get("seconds_total"))
        same = (b.get("result") == s.get("result")) if (b.get("result") and s.get("result")) else None
        res["serial/batched"] = rat
        res["same_result"] = same
        self.tab("4. Eight-seed check in the browser (16 runs x 1,500 updates of 64 agents), Vicsek session",
                 ["mode", "seconds (whole check)", "measured s", "measured part", "units", "calls", "ms/call", "mean P a=0 / a=1"], rows,
                 [f"one run at a time / batched = {fx(rat, 2)}"
                  + ("" if same is None else f";  identical results: {same}"),
                  f"chunks: batched {chunk['batched']} updates of all 16 replicas per call, serial {chunk['serial']} single-replica "
                  "updates per call (about the same replica-updates per call); pure compute in one task (the page spreads the "
                  "calls over frames)."
                  + ("" if self.args.full_check else " Serial mode runs its first runs only (each run is the same 1,500 updates of "
                     "64 agents) and scales by progress; --full-check runs it all.")])
        self.results["check"] = res

    # --- 5. bridge overhead ---------------------------------------------------------------
    def part_bridge(self, page):
        reps, batch = self.args.bridge_reps, 20
        res, rows = {"app": {}, "bench": {}}, []
        for lab in ("demo", "swarm"):
            try:
                session, _ = harness.make_session(lab)
            except Exception as exc:  # noqa: BLE001
                rows.append([f"{lab} N={BRIDGE_N:,}", "n/a", "", f"{exc}"[:60]])
                continue
            pop = harness.population_param(session)
            try:
                r = page.evaluate(APP_BRIDGE, [lab, pop, BRIDGE_N, reps, batch])
            except Exception as exc:  # noqa: BLE001
                rows.append([f"{lab} N={BRIDGE_N:,}", "n/a", "", _last_line(exc)[:80]])
                continue
            st = {k: stats(v) for k, v in r["samples"].items()}
            res["app"][lab] = {"stats": st, "frame_floats": r["frameLen"]}
            step = st["call: step n=1"]["median"]
            for name, s in st.items():
                rows.append([f"{lab} N={BRIDGE_N:,}", name, fmt(s["median"] * 1000, 0), fmt(s["p95"] * 1000, 0),
                             fx(ratio(s["median"], step), 3) if not name.startswith("call: step") else "1x"])
        self.tab("5a. Bridge costs on the app page, microseconds per call (median of batches)",
                 ["case", "operation", "median us", "p95 us", "vs step"], rows,
                 ["demo = random walkers (the 'demo' session); frame = 2N floats (demo) or the lab's own layout.",
                  "step n=1 called back to back: for the swarm that includes the neighbour search of every step."])
        # alternatives on the bench page
        rows2 = []
        try:
            bp = self.bench_page()
            for lab in ("demo", "swarm"):
                try:
                    harness.make_session(lab)
                except Exception as exc:  # noqa: BLE001
                    rows2.append([f"{lab} N={BRIDGE_N:,}", "n/a", "", f"{exc}"[:60]])
                    continue
                r = bp.evaluate(BENCH_BRIDGE, [lab, BRIDGE_N, reps, batch])
                st = {k: stats(v) for k, v in r["samples"].items()}
                res["bench"][lab] = {"stats": st, "frame_floats": r["frameLen"], "toJs_kind": r["toJsKind"], "same": r["same"]}
                base = st[next(iter(st))]["median"]
                for name, s in st.items():
                    rows2.append([f"{lab} ({r['frameLen']:,} floats)", name, fmt(s["median"] * 1000, 1), fmt(s["p95"] * 1000, 1),
                                  fx(ratio(s["median"], base), 2)])
                res["bench"][lab]["fastest"] = min((k for k in st if k[0] in "ABCDE"), key=lambda k: st[k]["median"])
        except Exception as exc:  # noqa: BLE001
            rows2.append(["bench page", "n/a", "", _last_line(exc)[:100]])
        notes = ["A = what Engine.frameInto does today (PyProxy of a new ndarray per frame, getBuffer, copy, release, destroy)."]
        for lab, v in res["bench"].items():
            notes.append(f"{lab}: fastest frame transfer = {v['fastest']}; toJs() gave {v['toJs_kind']}; all methods equal: {v['same']}")
        self.tab("5b. Moving the frame buffer Python -> JS (bench page: Pyodide loaded directly, same engine files), us per frame",
                 ["case", "method", "median us", "p95 us", "vs A"], rows2, notes)
        self.results["bridge"] = res

    # --- 6. profile ------------------------------------------------------------------------
    def part_profile(self):
        lab = None
        for cand in ("swarm", "boids", "vicsek"):
            try:
                session, _ = harness.make_session(cand)
                lab = cand
                break
            except Exception as exc:  # noqa: BLE001
                err = exc
        if lab is None:
            self.say(f"\n6. Profile: n/a ({_last_line(err)})")
            return
        steps = harness.frame_steps(harness.steps_per_frame(session))
        frames = self.args.profile_frames
        cases = [None, 2000] if lab == "swarm" else [None]
        out = {"lab": lab, "cases": {}}
        for n in cases:
            label = f"{lab} " + ("default N" if n is None else f"N={n:,}")
            one = {}
            try:
                cs, _ = harness.make_session(lab, n, allow_above_max=True)
                for _ in range(3):
                    cs.call("step", json.dumps({"n": steps}))
                one["cpython"] = harness.profile_steps(cs, steps, frames, top=8)
            except Exception as exc:  # noqa: BLE001
                one["cpython"] = {"error": _last_line(exc)}
            try:
                one["pyodide"] = self.bench_page().evaluate(PROFILE, [lab, n, steps, frames])
            except Exception as exc:  # noqa: BLE001
                one["pyodide"] = {"error": _last_line(exc)}
            out["cases"][label] = one
            for rt in ("pyodide", "cpython"):
                rows = one[rt]
                if isinstance(rows, dict):
                    self.say(f"\n6. Profile {label} ({rt}): n/a ({rows['error']})")
                    continue
                self.tab(f"6. Where a {label} frame's time goes under {rt} (cProfile, top 8 by own time, {frames} frames)",
                         ["function", "calls/frame", "own ms/frame", "cum ms/frame", "own share"],
                         [[r["function"][:72], fmt(r["calls_per_frame"], 1), fmt(r["own_ms_per_frame"], 3),
                           fmt(r["cum_ms_per_frame"], 3), f"{100 * r['own_share']:.1f}%"] for r in rows],
                         ["cProfile adds overhead to every Python-level call: read shares, not absolute times."]
                         if rt == "cpython" else [])
        # numpy idioms on pair arrays, both runtimes
        try:
            pyo = self.bench_page().evaluate(
                "() => JSON.parse(window.benchPy.runPython('import json, bench_harness; json.dumps(bench_harness.idiom_bench())'))")
            cpy = harness.idiom_bench()
            rows = []
            for (job, name, p_us), (_, _, c_us) in zip(pyo["rows"], cpy["rows"]):
                num = not isinstance(p_us, str) and not isinstance(c_us, str)
                rows.append([job, name, fmt(p_us, 0), fmt(c_us, 0), fx(ratio(p_us, c_us) if num else None, 1)])
            self.tab(f"6c. numpy idioms on flat pair arrays ({pyo['m']:,} pairs among {pyo['n']:,} agents, ~swarm N=2,000), us per op",
                     ["job", "idiom", "Pyodide", "CPython", "Pyo/CPy"], rows,
                     [f"np.intp is {pyo['intp']} in Pyodide (wasm32) and {cpy['intp']} in CPython: int64 index arrays are converted "
                      "at every gather in the browser, and bincount/take/repeat refuse them there."])
            out["idioms"] = {"pyodide": pyo, "cpython": cpy}
        except Exception as exc:  # noqa: BLE001
            self.say(f"\n6c. numpy idioms: n/a ({_last_line(exc)})")
        self.results["profile"] = out

    # --- driver ------------------------------------------------------------------------------
    def run(self) -> int:
        from playwright.sync_api import sync_playwright

        parts = set(self.args.parts.split(","))
        self.server = Served()  # cold loads: the headers the app is deployed with
        self.warm = Served(isolated=not self.args.no_isolation)  # timing pages: fine-grained performance.now()
        exe = chromium_path()
        self.results["meta"] = {
            "when": time.strftime("%Y-%m-%d %H:%M:%S"), "python": platform.python_version(),
            "numpy": __import__("numpy").__version__, "machine": platform.machine(), "cpus": os.cpu_count(),
            "chromium": exe or "playwright bundled", "args": vars(self.args),
        }
        self.say(f"Swarm Lab browser benchmark: Chromium {exe or '(playwright)'}, CPython {platform.python_version()}, "
                 f"{os.cpu_count()} CPUs, served at {self.server.url}")
        try:
            with sync_playwright() as pw:
                kwargs = {"args": CHROME_ARGS, "headless": True}
                if exe:
                    kwargs["executable_path"] = exe
                self.browser = pw.chromium.launch(**kwargs)
                self.results["meta"]["chromium_version"] = self.browser.version
                steps = [
                    ("boot", lambda: self.part_boot()),
                    ("deploy", lambda: __import__("tools.bench.deploy", fromlist=["part_deploy"]).part_deploy(self)),
                ]
                for name, fn in steps:
                    if name in parts:
                        self._guard(name, fn)
                if parts & {"pacing", "engine", "check", "bridge"}:
                    ctx = page = None
                    for lab in ("swarm", "boids", "vicsek"):
                        try:
                            ctx, page = self.open_app(init=PACE_INIT, query=f"lab={lab}")
                            self.results["meta"]["app_page_lab"] = lab
                            self.results["meta"]["timer"] = page.evaluate(TIMER_RES)
                            break
                        except Exception as exc:  # noqa: BLE001
                            self.say(f"\nApp page with ?lab={lab} did not start: {exc}")
                            self.results["meta"].setdefault("app_page_errors_by_lab", {})[lab] = str(exc)
                            if ctx is not None:
                                ctx.close()
                            ctx = page = None
                    if page is not None:
                        if "pacing" in parts:
                            if self.results["meta"]["app_page_lab"] == "swarm":
                                self._guard("pacing", lambda: self.part_pacing(page))
                            else:
                                self.say("\n3. Frame pacing: n/a (the Swarm Lab page did not start; see above)")
                                self.results["pacing"] = {"error": "swarm lab page did not start"}
                        if "engine" in parts:
                            self._guard("engine", lambda: self.part_engine(page))
                        if "check" in parts:
                            self._guard("check", lambda: self.part_check(page))
                        if "bridge" in parts:
                            self._guard("bridge", lambda: self.part_bridge(page))
                        self.results["meta"]["app_page_errors"] = page.errors[:10]
                        ctx.close()
                if "profile" in parts:
                    self._guard("profile", self.part_profile)
                self.browser.close()
        finally:
            self.server.close()
            self.warm.close()
        total = time.perf_counter() - self.t_start
        self.results["meta"]["seconds"] = total
        out = Path(self.args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(self.results, indent=1, default=str))
        self.say(f"\nbrowser bench finished in {total:.0f} s; JSON: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
        return 0

    def _guard(self, name, fn):
        t0 = time.perf_counter()
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - one broken part must not hide the others
            self.say(f"\n[{name}] failed: {type(exc).__name__}: {exc}")
            traceback.print_exc()
            self.results[name] = {"error": f"{type(exc).__name__}: {exc}"}
        print(f"  ({name}: {time.perf_counter() - t0:.0f} s)", flush=True)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.bench.browser", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer frames and shorter pacing runs (boot keeps 5 loads)")
    ap.add_argument("--loads", type=int, default=5, help="cold loads per page for the boot part (default 5; fewer only for smoke tests)")
    ap.add_argument("--warm-loads", type=int, default=2, help="reloads with the HTTP cache on (0 = skip)")
    ap.add_argument("--pacing-seconds", type=float, default=20.0, help="seconds per playback speed (default 20)")
    ap.add_argument("--no-pacing-big", dest="pacing_big", action="store_false",
                    help="skip the N = 2,000 pacing runs")
    ap.add_argument("--no-pacing-capped", dest="pacing_capped", action="store_false",
                    help="skip the simulated 'steps capped per frame' pacing run")
    # pacing, engine, check and bridge drove the old synchronous main-thread bridge; the engine now
    # runs in a worker, measured by tools/bench/worker.py (make bench runs both)
    ap.add_argument("--parts", default="boot,deploy,profile",
                    help="comma list of parts: boot,deploy,pacing,engine,check,bridge,profile")
    ap.add_argument("--deploy-loads", type=int, default=5, help="cold loads per page in the deploy part (default 5)")
    ap.add_argument("--offline-loads", type=int, default=3, help="offline second visits in the deploy part (default 3)")
    ap.add_argument("--throttled-loads", type=int, default=2, help="10 Mbps loads in the deploy part (default 2)")
    ap.add_argument("--throttle-via", choices=("server", "cdp"), default="server",
                    help="how the deploy part emulates 10 Mbps: the server's shared link (default; slows workers "
                         "too) or DevTools on the page's target (does not reach the engine worker)")
    ap.add_argument("--json", default=str(ROOT / "dist" / "bench" / "browser.json"))
    ap.add_argument("--frame-budget-ms", type=float, default=1200.0, help="Pyodide time budget per engine row")
    ap.add_argument("--max-frames", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--check-chunk", type=int, default=50, help="batched updates per check_advance call")
    ap.add_argument("--full-check", action="store_true", help="run the serial eight-seed check to the end (~4x longer)")
    ap.add_argument("--serial-fraction", type=float, default=0.25, help="share of the serial check that is timed")
    ap.add_argument("--bridge-reps", type=int, default=40)
    ap.add_argument("--profile-frames", type=int, default=20)
    ap.add_argument("--no-isolation", action="store_true",
                    help="serve the timing pages without COOP/COEP (performance.now() then has 100 us steps)")
    # tools/bench/__main__.py passes the same options to every benchmark: ignore others' options.
    args, unknown = ap.parse_known_args(argv)
    if unknown:
        print(f"browser bench: ignoring options {' '.join(unknown)}", file=sys.stderr)
    if args.quick:
        args.pacing_seconds = min(args.pacing_seconds, 6.0)
        args.frame_budget_ms = min(args.frame_budget_ms, 600.0)
        args.bridge_reps = min(args.bridge_reps, 15)
        args.profile_frames = min(args.profile_frames, 8)
        args.serial_fraction = min(args.serial_fraction, 0.125)
    args.loads = max(args.loads, 1)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    return Bench(args).run()


if __name__ == "__main__":
    sys.exit(main())
