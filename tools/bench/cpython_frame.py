"""Python side of the browser benchmark: the same per-frame work, timed under CPython.

This file is plain Python (numpy + standard library + swarmlab only) so that the
*same* code runs in two places:

* under CPython, imported by ``tools/bench/browser.py`` (timings with
  ``time.perf_counter``), and
* inside Pyodide, on the bench-only page ``tools/bench/pages/lab.html``, which
  fetches this file as ``bench_harness.py`` (sessions with populations above the
  page's limit, cProfile of a step).

"One frame's engine work" mirrors what a lab page does per displayed frame:

    session.call("step", {"n": steps})     # the model steps for one 60 Hz frame at 1x
    session.call("metrics", {})            # the numbers the page shows
    buf[:] = session.frame()               # the float32 frame buffer, copied once

Run it on its own for a quick CPython-only table::

    .venv/bin/python -m tools.bench.cpython_frame
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
import sys
import time
from typing import Any

import numpy as np

DISPLAY_HZ = 60.0
# Names a lab may give its population parameter (first match in the lab's SPECS wins).
POPULATION_NAMES = ("N", "population", "n")


def _sessions():
    from swarmlab import sessions

    return sessions


def population_param(session) -> str | None:
    names = [s.name for s in session.SPECS]
    for cand in POPULATION_NAMES:
        if cand in names:
            return cand
    return None


def _raise_spec_max(name: str, n: int) -> int:
    """Bench only: raise the ``max`` of every loaded ParamSpec called ``name`` to ``n``.

    The page caps populations (e.g. 2,000); the benchmark also wants a larger N.
    Specs are frozen dataclasses held in module tuples / dicts and session classes,
    so they are replaced wherever they are referenced.  Returns how many were replaced.
    """
    from swarmlab.params import ParamSpec

    def fix(spec):
        if isinstance(spec, ParamSpec) and spec.name == name and spec.max is not None and spec.max < n:
            return dataclasses.replace(spec, max=n), True
        return spec, False

    count = 0
    for modname, mod in list(sys.modules.items()):
        if not modname.startswith("swarmlab") or mod is None:
            continue
        holders = [mod] + [v for v in vars(mod).values() if isinstance(v, type)]
        for holder in holders:
            for attr, val in list(vars(holder).items()):
                if isinstance(val, tuple) and val and all(isinstance(s, ParamSpec) for s in val):
                    new, changed = zip(*(fix(s) for s in val))
                    if any(changed):
                        setattr(holder, attr, tuple(new))
                        count += sum(changed)
                elif isinstance(val, dict) and val and all(isinstance(s, ParamSpec) for s in val.values()):
                    changed_any = False
                    new_d = {}
                    for k, s in val.items():
                        s2, ch = fix(s)
                        new_d[k] = s2
                        changed_any |= ch
                    if changed_any:
                        val.clear()
                        val.update(new_d)
                        count += 1
    return count


def set_population(session, n: int, allow_above_max: bool = False) -> str:
    """Set the population through the session's own ``set`` op.

    Returns a short note ("" when done the ordinary way).  Raises ValueError when the
    session refuses and ``allow_above_max`` is false.
    """
    name = population_param(session)
    if name is None:
        raise ValueError(f"{session.lab}: no population parameter among {POPULATION_NAMES}")
    out = json.loads(session.call("set", json.dumps({"name": name, "value": int(n)})))
    if isinstance(out, dict) and "error" in out:
        if not allow_above_max:
            raise ValueError(out["error"])
        replaced = _raise_spec_max(name, int(n))
        out = json.loads(session.call("set", json.dumps({"name": name, "value": int(n)})))
        if isinstance(out, dict) and "error" in out:
            raise ValueError(out["error"])
        return f"spec max of {name!r} raised for the bench ({replaced} spec(s))"
    return ""


def make_session(lab: str, n: int | None = None, allow_above_max: bool = False):
    """A fresh session of ``lab`` (through ``swarmlab.sessions.create``), population ``n``."""
    session = _sessions().create(lab)
    note = ""
    if n is not None:
        note = set_population(session, n, allow_above_max)
    return session, note


def steps_per_frame(session) -> float:
    """Model steps per displayed 60 Hz frame at 1x playback (may be fractional), paced as the
    lab's page paces them, from the session's own layout: a lab whose display has a playback
    ``rate`` spec (Lab 2: updates per second) plays that rate's default; the others play model
    time at one second per second, one step per ``dt`` of their constants."""
    layout = session.op_layout()
    rate = layout["display"].get("rate")
    per_second = rate["default"] if rate else 1.0 / layout["constants"]["dt"]
    return per_second / DISPLAY_HZ


def frame_steps(spf: float) -> int:
    """Steps timed per frame: whole steps, at least one (the busiest frame)."""
    return max(1, math.ceil(spf - 1e-9))


def population_of(session) -> int | None:
    name = population_param(session)
    try:
        st = json.loads(session.call("state", "{}"))
    except Exception:  # noqa: BLE001
        return None
    if not isinstance(st, dict):
        return None
    for key in (name, "N", "n", "population"):
        if key and isinstance(st.get(key), int):
            return st[key]
    params = st.get("params")
    if isinstance(params, dict) and name and isinstance(params.get(name), int):
        return params[name]
    return None


def time_frames(session, steps: int, frames: int, warmup: int = 3) -> dict:
    """Time ``frames`` frames of engine work under this interpreter (ms per frame)."""
    args = json.dumps({"n": int(steps)})
    buf = np.empty(0, dtype=np.float32)
    tot, t_step, t_met, t_frame = [], [], [], []
    for k in range(warmup + frames):
        t0 = time.perf_counter()
        out = session.call("step", args)
        t1 = time.perf_counter()
        session.call("metrics", "{}")
        t2 = time.perf_counter()
        f = session.frame()
        if buf.shape != f.shape:
            buf = np.empty_like(f)
        np.copyto(buf, f)
        t3 = time.perf_counter()
        if k == 0 and '"error"' in out[:20]:
            raise ValueError(json.loads(out)["error"])
        if k >= warmup:
            tot.append((t3 - t0) * 1e3)
            t_step.append((t1 - t0) * 1e3)
            t_met.append((t2 - t1) * 1e3)
            t_frame.append((t3 - t2) * 1e3)
    return {"total": tot, "step": t_step, "metrics": t_met, "frame": t_frame}


def time_check(mode: str, chunk: int) -> dict:
    """Eight-seed check (vicsek session) under this interpreter: seconds and calls."""
    session = _sessions().create("vicsek")
    start = json.loads(session.call("check_start", json.dumps({"mode": mode})))
    if "error" in start:
        raise ValueError(start["error"])
    t0 = time.perf_counter()
    calls = 0
    arg = json.dumps({"updates": int(chunk)})
    while True:
        out = json.loads(session.call("check_advance", arg))
        calls += 1
        if "error" in out:
            raise ValueError(out["error"])
        if out.get("done"):
            break
    seconds = time.perf_counter() - t0
    result = json.loads(session.call("check_result", "{}"))
    return {"seconds": seconds, "calls": calls, "total": start.get("total"), "result": result}


def profile_steps(session, steps: int, frames: int, top: int = 10) -> list[dict]:
    """cProfile ``frames`` frames of step+metrics+frame; the ``top`` functions by own time."""
    import cProfile
    import pstats

    args = json.dumps({"n": int(steps)})
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(frames):
        session.call("step", args)
        session.call("metrics", "{}")
        session.frame()
    prof.disable()
    st = pstats.Stats(prof)
    rows = []
    total = sum(v[2] for v in st.stats.values()) or 1.0
    for (fn, line, name), (cc, nc, tt, ct, _callers) in st.stats.items():
        short = fn.replace("\\", "/")
        for marker in ("/swarmlab/", "/numpy/", "/bench_harness", "/tools/bench/"):
            if marker in short:
                short = short[short.index(marker) + 1:]
                break
        else:
            short = short.rsplit("/", 1)[-1]
        rows.append({
            "function": f"{short}:{line}({name})",
            "calls_per_frame": nc / frames,
            "own_ms_per_frame": tt * 1e3 / frames,
            "cum_ms_per_frame": ct * 1e3 / frames,
            "own_share": tt / total,
        })
    rows.sort(key=lambda r: -r["own_ms_per_frame"])
    return rows[:top]


def idiom_bench(m: int = 120_000, n: int = 2000, reps: int = 9) -> dict:
    """numpy idioms on flat pair arrays (m pairs among n agents), microseconds per operation.

    m = 120,000 is about the pair count of the Swarm Lab at N = 2,000 (range R = 10).
    Each row is [name, us, note]; alternatives of one job sit next to each other.
    On wasm32 (Pyodide) ``np.intp`` is int32: int64 index arrays are converted at every
    gather, and ``np.bincount`` / ``np.take`` / ``np.repeat`` refuse them.
    """
    rng = np.random.default_rng(0)
    u = rng.random((n, 2))
    ux, uy = np.ascontiguousarray(u[:, 0]), np.ascontiguousarray(u[:, 1])
    i = np.sort(rng.integers(0, n, m)).astype(np.intp)
    j = rng.integers(0, n, m).astype(np.intp)
    j64 = j.astype(np.int64)
    d = rng.random((m, 2))
    dx, dy = np.ascontiguousarray(d[:, 0]), np.ascontiguousarray(d[:, 1])
    w = rng.random(m)
    key = (i * n + j).astype(np.intp)

    cases = [
        ("gather rows", "u[j]  (2-D fancy index, (n,2) -> (m,2))", lambda: u[j]),
        ("gather rows", "np.take(u, j, axis=0)", lambda: np.take(u, j, axis=0)),
        ("gather rows", "ux[j], uy[j]  (two contiguous 1-D columns)", lambda: (ux[j], uy[j])),
        ("gather 1-D", "np.take(ux, j)", lambda: np.take(ux, j)),
        ("gather 1-D", "ux[j]", lambda: ux[j]),
        ("gather 1-D", "ux[j64]  (int64 index)", lambda: ux[j64]),
        ("pair dot", "einsum('pk,pk->p', u[i], d)", lambda: np.einsum("pk,pk->p", u[i], d)),
        ("pair dot", "ux[i]*dx + uy[i]*dy", lambda: ux[i] * dx + uy[i] * dy),
        ("reduce by i", "np.bincount(i, w, minlength=n)", lambda: np.bincount(i, w, minlength=n)),
        ("reduce by i", "np.add.reduceat(w, starts)  (i sorted)", lambda: np.add.reduceat(w, np.flatnonzero(np.r_[True, i[1:] != i[:-1]]))),
        ("sort pairs", "np.argsort(key, kind='stable')", lambda: np.argsort(key, kind="stable")),
        ("sort pairs", "np.lexsort((j, i))", lambda: np.lexsort((j, i))),
        ("int64 index", "np.bincount(i.astype(np.int64), w)", lambda: np.bincount(i.astype(np.int64), w, minlength=n)),
        ("int64 index", "np.take(ux, j64)", lambda: np.take(ux, j64)),
    ]
    times = {}
    for _, name, fn in cases:
        try:
            fn()
            times[name] = []
        except (TypeError, ValueError) as exc:
            times[name] = f"fails ({type(exc).__name__})"
    for _ in range(reps):  # round robin: machine noise hits every case alike
        for _, name, fn in cases:
            if isinstance(times[name], list):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    rows = [[job, name, statistics.median(times[name]) * 1e6 if isinstance(times[name], list) else times[name]]
            for job, name, _ in cases]
    return {"m": m, "n": n, "intp": np.dtype(np.intp).name, "rows": rows}


def summary(values: list[float]) -> dict:
    if not values:
        return {"median": None, "p95": None, "n": 0}
    s = sorted(values)
    p95 = s[min(len(s) - 1, int(math.ceil(0.95 * len(s))) - 1)]
    return {"median": statistics.median(s), "p95": p95, "max": s[-1], "n": len(s)}


def main(argv=None) -> int:
    labs = (argv or sys.argv[1:]) or ["swarm", "vicsek", "boids", "demo"]
    for lab in labs:
        try:
            session, _ = make_session(lab)
        except Exception as exc:  # noqa: BLE001
            print(f"{lab:8s} n/a ({type(exc).__name__}: {exc})")
            continue
        steps = frame_steps(steps_per_frame(session))
        t = time_frames(session, steps, 50)
        s = summary(t["total"])
        print(f"{lab:8s} N={population_of(session)}  {steps} step(s)/frame  median {s['median']:.3f} ms  p95 {s['p95']:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
