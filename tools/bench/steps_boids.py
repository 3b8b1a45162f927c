"""Benchmark Lab 3 (boids): model steps per second at N = 80, 500 and 2,000.

    .venv/bin/python tools/bench/steps_boids.py [--quick] [--warmup S] [--min-time S] [--out FILE]

Each population starts from the seeded default state (balanced rules, 160 x 100
world) and first runs ``--warmup`` model seconds so the flock has formed (the
neighbour count, hence the cost, grows as boids gather).  Then it times whole
steps (neighbour search + rules + update) for at least ``--min-time`` wall
seconds.  Writes dist/bench/steps_boids.json and prints a table.  One step is
``DT`` = 0.025 model s, so ``steps/s * DT`` is the speed relative to real time.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "app") not in sys.path:
    sys.path.insert(0, str(ROOT / "app"))

import numpy as np  # noqa: E402

from swarmlab import boids, cells  # noqa: E402

POPULATIONS = (80, 500, 2000)


def bench_one(n: int, warmup_s: float, min_time: float) -> dict:
    params = boids.Params(population=n)
    state = boids.initial_state(params)
    state = boids.run(state, params, int(round(warmup_s / boids.DT)))
    pairs = len(cells.neighbour_pairs(state.x, params.box, params.radius))
    steps = 0
    t0 = time.perf_counter()
    while True:
        state = boids.step(state, params)
        steps += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time and steps >= 10:
            break
    rate = steps / elapsed
    return {
        "N": n,
        "steps": steps,
        "seconds": round(elapsed, 4),
        "steps_per_s": round(rate, 1),
        "ms_per_step": round(1000.0 / rate, 3),
        "realtime_factor": round(rate * boids.DT, 2),
        "neighbours_per_boid": round(pairs / n, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warmup", type=float, default=10.0, help="model seconds before timing (default 10)")
    ap.add_argument("--min-time", type=float, default=1.5, help="wall seconds timed per population (default 1.5)")
    ap.add_argument("--quick", action="store_true", help="short warm-up and timing (a smoke run)")
    ap.add_argument("--populations", type=int, nargs="+", default=list(POPULATIONS))
    ap.add_argument("--out", default=str(ROOT / "dist" / "bench" / "steps_boids.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.warmup, args.min_time = min(args.warmup, 1.0), min(args.min_time, 0.2)
    if args.warmup < 0 or args.min_time <= 0:
        ap.error("--warmup must be >= 0 and --min-time > 0")
    results = [bench_one(n, args.warmup, args.min_time) for n in args.populations]
    report = {
        "lab": "boids",
        "what": "model steps per second, steady state after warm-up (default balanced rules)",
        "dt_s": boids.DT,
        "warmup_model_s": args.warmup,
        "world_lengths": [boids.WORLD_WIDTH, boids.WORLD_HEIGHT],
        "radius_lengths": boids.RADIUS,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "results": results,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"{'N':>6} {'steps/s':>9} {'ms/step':>9} {'x real time':>11} {'neighbours':>10}")
    for r in results:
        print(f"{r['N']:>6} {r['steps_per_s']:>9} {r['ms_per_step']:>9} {r['realtime_factor']:>11} {r['neighbours_per_boid']:>10}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
