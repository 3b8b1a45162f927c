"""Benchmark Lab 3 (boids): model steps per second at N = 80, 500 and 2,000.

    .venv/bin/python tools/bench/steps_boids.py [--quick] [--warmup S] [--min-time S] [--out FILE]

Each population starts from the seeded default state (balanced rules, 160 x 100
world) and first runs ``--warmup`` model seconds so the flock has formed (the
neighbour count, hence the cost, grows as boids gather).  Then it times whole
steps (neighbour search + rules + update) for at least ``--min-time`` wall
seconds.  Writes dist/bench/steps_boids.json and prints a table.  One step is
``DT`` = 0.025 model s, so ``steps/s * DT`` is the speed relative to real time.

Then, side by side in alternating rounds, ``--flocks`` flocks of 80 (samples 1, 2, ...)
stepped together by ``boids.run_many`` against the same flocks run one by one
(``boids.run``), after checking that both give the same states bit for bit: the ratio
is what the goal table, the CLI's ``--samples`` and the tests gain from it.
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


def bench_many(flocks: int, steps: int, rounds: int) -> dict:
    """Time ``flocks`` flocks of 80 for ``steps`` steps: run_many against one by one."""
    params = boids.Params()
    starts = boids.initial_states(params, range(1, flocks + 1))
    together = boids.run_many(starts, params, steps)
    alone = [boids.run(s, params, steps) for s in starts]
    same = all(np.array_equal(a.x, b.x) and np.array_equal(a.v, b.v) for a, b in zip(together, alone))
    t_many, t_one = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        boids.run_many(starts, params, steps)
        t1 = time.perf_counter()
        for s in starts:
            boids.run(s, params, steps)
        t2 = time.perf_counter()
        t_many.append(t1 - t0)
        t_one.append(t2 - t1)
    ratios = sorted(a / b for a, b in zip(t_many, t_one))
    return {"flocks": flocks, "N": 80, "steps": steps, "rounds": rounds, "same_bits": same,
            "ms_per_step_together": round(1000.0 * min(t_many) / steps, 3),
            "ms_per_step_one_by_one": round(1000.0 * min(t_one) / steps, 3),
            "ratio_median": round(ratios[len(ratios) // 2], 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warmup", type=float, default=10.0, help="model seconds before timing (default 10)")
    ap.add_argument("--min-time", type=float, default=1.5, help="wall seconds timed per population (default 1.5)")
    ap.add_argument("--quick", action="store_true", help="short warm-up and timing (a smoke run)")
    ap.add_argument("--populations", type=int, nargs="+", default=list(POPULATIONS))
    ap.add_argument("--flocks", type=int, default=8, help="flocks of 80 for the run_many comparison (default 8; 0 skips)")
    ap.add_argument("--flock-steps", type=int, default=400, help="steps per round of that comparison (default 400)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of that comparison (default 3)")
    ap.add_argument("--out", default=str(ROOT / "dist" / "bench" / "steps_boids.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.warmup, args.min_time = min(args.warmup, 1.0), min(args.min_time, 0.2)
        args.flock_steps, args.rounds = min(args.flock_steps, 40), min(args.rounds, 1)
    if args.flocks < 0 or args.flock_steps < 1 or args.rounds < 1:
        ap.error("--flocks must be >= 0, --flock-steps and --rounds >= 1")
    if args.warmup < 0 or args.min_time <= 0:
        ap.error("--warmup must be >= 0 and --min-time > 0")
    results = [bench_one(n, args.warmup, args.min_time) for n in args.populations]
    many = bench_many(args.flocks, args.flock_steps, args.rounds) if args.flocks else None
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
        "flocks_together": many,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"{'N':>6} {'steps/s':>9} {'ms/step':>9} {'x real time':>11} {'neighbours':>10}")
    for r in results:
        print(f"{r['N']:>6} {r['steps_per_s']:>9} {r['ms_per_step']:>9} {r['realtime_factor']:>11} {r['neighbours_per_boid']:>10}")
    if many:
        print(f"{many['flocks']} flocks of 80 stepped together (boids.run_many) / one by one: {many['ratio_median']:.2f}x "
              f"(median of {many['rounds']} alternating rounds; best {many['ms_per_step_together']} against "
              f"{many['ms_per_step_one_by_one']} ms a step of all flocks; same bits: {'yes' if many['same_bits'] else 'NO'})")
    print(f"wrote {out}")
    if many and not many["same_bits"]:
        print("steps_boids: ERROR: run_many's states differ from the runs made one by one", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
