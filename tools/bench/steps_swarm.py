"""Benchmark of the Lab 1 engine ("Swarm Lab") under CPython: model steps per second.

For N = 500, 2,000 and 10,000 agents in the lab's own 160 x 100 world, at the default
rules (range mode, R = 10, v = 10, sigma = 15 deg/sqrt(s)), two situations:

* **flock** (steady state): start as in the "no shared direction" trial, warm up
  first (``WARMUP`` steps, cut short by a wall-clock budget), then time steps.  The
  table shows the whole-group agreement P after the warm-up, so one can see whether
  the flock had formed.  At N = 10,000 the fixed world is saturated (0.6 agents per
  square length, about 200 agents within R of each agent), a flock there forms in
  many seconds of model time, and a warm-up that long would take tens of minutes,
  so that row is warmed briefly and says so.
* **uniform**: uniform random positions and headings (the first steps of a
  scattered start).

One step = one neighbour search (cell list), the rules, the heading and position
update and the obstacle check: ``swarm.step`` with nothing cached.  Wall-clock
and process CPU time per step are both reported (on a shared machine the CPU
time is the steadier figure).  Writes
``dist/bench/steps_swarm.json``; takes under two minutes on the 2-core reference
machine.  Usage::

    .venv/bin/python tools/bench/steps_swarm.py [--quick] [--out PATH]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "app") not in sys.path:
    sys.path.insert(0, str(ROOT / "app"))

import numpy as np  # noqa: E402

from swarmlab import metrics, swarm  # noqa: E402

SIZES = (500, 2000, 10000)
WARMUP = {500: 900, 2000: 300, 10000: 15}  # steps (15 s, 5 s, 0.25 s of model time)
WARMUP_BUDGET = 30.0  # wall seconds at most per warm-up
MEASURE_SECONDS = 2.0
MIN_STEPS = 3


def _params(n: int) -> swarm.SwarmParams:
    # bypasses the page's population limit on purpose (bench only)
    return dataclasses.replace(swarm.SwarmParams.from_values(start="scattered"), N=n)


def _time_steps(state: swarm.SwarmState, p: swarm.SwarmParams, seconds: float, min_steps: int):
    steps = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while True:
        state = swarm.step(state, p)
        steps += 1
        dt = time.perf_counter() - t0
        if dt >= seconds and steps >= min_steps:
            break
    return state, steps, dt, time.process_time() - c0


def bench(n: int, layout: str, warmup: int, seconds: float) -> dict:
    p = _params(n)
    state = swarm.initial_state(p)
    warm_done = 0
    warm_s = 0.0
    if layout == "flock":
        t0 = time.perf_counter()
        while warm_done < warmup and time.perf_counter() - t0 < WARMUP_BUDGET:
            state = swarm.step(state, p)
            warm_done += 1
        warm_s = time.perf_counter() - t0
    order = metrics.polarization(state.u)
    # pair count of the state being timed (counted outside the timed loop)
    found = swarm.find_neighbours(state, p).pairs  # ordered pairs (half pairs: each unordered pair once)
    pairs = 2 * len(found) if found.half else len(found)
    state, steps, dt, cpu = _time_steps(state, p, seconds, MIN_STEPS)
    return {
        "n": n,
        "layout": layout,
        "warmup_steps": warm_done,
        "warmup_model_seconds": warm_done * swarm.DT,
        "warmup_wall_seconds": warm_s,
        "P_at_start_of_timing": order,
        "pairs_within_cutoff": pairs,
        "measured_steps": steps,
        "seconds": dt,
        "ms_per_step": 1e3 * dt / steps,
        "cpu_ms_per_step": 1e3 * cpu / steps,  # process CPU time: less sensitive to a shared machine
        "steps_per_second": steps / dt,
        "realtime_factor": steps / dt * swarm.DT,  # model seconds per wall second
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short warm-ups and timings (smoke test)")
    ap.add_argument("--out", default=str(ROOT / "dist" / "bench" / "steps_swarm.json"), help="JSON output path")
    args = ap.parse_args(argv)
    seconds = 0.3 if args.quick else MEASURE_SECONDS
    t_all = time.perf_counter()
    rows = []
    for n in SIZES:
        for layout in ("flock", "uniform"):
            warm = max(WARMUP[n] // 10, 1) if args.quick else WARMUP[n]
            if args.quick and n == 10000:
                warm = 1
            rows.append(bench(n, layout, warm if layout == "flock" else 0, seconds))
            r = rows[-1]
            print(f"  N={n:>6} {layout:<8} warm-up {r['warmup_steps']:>4} steps ({r['warmup_model_seconds']:5.2f} s "
                  f"model)  P={r['P_at_start_of_timing']:.2f}  pairs={r['pairs_within_cutoff']:>8}  "
                  f"{r['ms_per_step']:9.2f} ms/step  {r['steps_per_second']:8.1f} steps/s  "
                  f"x{r['realtime_factor']:.2f} real time", flush=True)
    total = time.perf_counter() - t_all
    print()
    print(f"{'N':>6}  {'layout':<8} {'steps/s':>9} {'ms/step':>9} {'CPU ms':>9} {'pairs':>9} {'x real time':>11}")
    for r in rows:
        print(f"{r['n']:>6}  {r['layout']:<8} {r['steps_per_second']:9.1f} {r['ms_per_step']:9.2f} "
              f"{r['cpu_ms_per_step']:9.2f} {r['pairs_within_cutoff']:>9} {r['realtime_factor']:11.2f}")
    print(f"total {total:.1f} s")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "bench": "steps_swarm",
        "world": [swarm.BOX.width, swarm.BOX.height],
        "dt": swarm.DT,
        "params": {k: v for k, v in dataclasses.asdict(_params(0)).items() if k != "N"},
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "machine": platform.machine(),
        "platform": platform.platform(),
        "quick": args.quick,
        "total_seconds": total,
        "rows": rows,
    }, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
