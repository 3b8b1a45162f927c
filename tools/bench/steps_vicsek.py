"""Benchmark of the Vicsek engine (Lab 2) under CPython.

1. The eight-seed check (16 runs of 1,500 updates, 64 agents): batched (all 16
   replicas in one set of array operations, one cell list with ``group=``)
   versus one run at a time.  Prints both times and the ratio, and checks that
   the two modes give the same numbers bit for bit.
2. The built-in rule as the engine runs it (``vicsek.builtin_turn``: the headings' trig
   kept from the update before, pairs ordered by j only) against the function the page
   shows (``rules_vicsek.turn`` on ``neighbourhoods()``), on the check's 16 replicas,
   alternating rounds in one process, under CPython and under Pyodide in Node (the
   browser's runtime), with the bits compared.
3. Updates per second of the general form at N = 500, 2,000 and 10,000 at the
   teaching density (64 agents per unit area: box side sqrt(N / 64)), R = 0.12,
   step 0.01, eta = 0.7, a = 1, timed after a warm-up so the neighbour counts are
   those of a flocking state rather than of the uniform start.

Writes ``dist/bench/steps_vicsek.json``.  Takes well under a minute on the
2-core reference machine.  Usage::

    .venv/bin/python tools/bench/steps_vicsek.py [--quick] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for _path in (ROOT / "app", ROOT):  # the engine, and tools.bench when run as a script
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import numpy as np  # noqa: E402

from swarmlab import vicsek  # noqa: E402
from tools.bench.peers import run_code  # noqa: E402

SIZES = (500, 2000, 10000)
DENSITY = 64.0  # agents per unit area, as in the teaching box
WARMUP = {500: 1000, 2000: 600, 10000: 300}
MEASURE_SECONDS = 2.0


def time_check(mode: str) -> tuple[float, dict]:
    t0 = time.perf_counter()
    result = vicsek.run_check(mode)
    return time.perf_counter() - t0, result


# Run by CPython and, through tools/pyodide_node.mjs, by Pyodide: prints @@RESULT@@ and JSON.
RULE_PATHS = """
import json, time
import numpy as np
from swarmlab import rules_vicsek, vicsek

def rule_paths(updates, rounds):
    reps = [(s, a) for s in vicsek.CHECK_SEEDS for a in (0.0, 1.0)]
    ens = {"engine": vicsek.Ensemble(reps), "shown": vicsek.Ensemble(reps)}
    ens["shown"].turn = rules_vicsek.turn  # as written, on neighbourhoods()
    for e in ens.values():  # warm-up: the flocking state, and V8's tier-up of Pyodide's wasm
        for _ in range(updates):
            e.step()
    best = {"engine": 1e9, "shown": 1e9}
    for _ in range(rounds):  # alternating: both see the same machine
        for name, e in ens.items():
            t0 = time.perf_counter()
            for _ in range(updates):
                e.step()
            best[name] = min(best[name], (time.perf_counter() - t0) / updates)
    a, b = ens["engine"].state, ens["shown"].state
    same = a.theta.tobytes() == b.theta.tobytes() and a.x.tobytes() == b.x.tobytes()
    return {"engine_ms": best["engine"] * 1e3, "shown_ms": best["shown"] * 1e3, "identical": same,
            "updates": updates * rounds, "warmup_updates": updates}
"""


def time_rule_paths(updates: int, rounds: int) -> dict:
    """The built-in rule's two paths side by side, under CPython and Pyodide (if vendored)."""
    call = RULE_PATHS + f"print('@@RESULT@@' + json.dumps(rule_paths({updates}, {rounds})))\n"
    out = {"cpython": run_code(call, "cpython")}
    if shutil.which("node") and (ROOT / "assets" / "vendor" / "pyodide" / "pyodide.mjs").exists():
        out["pyodide"] = run_code(call, "pyodide")
    return out


def time_general(n: int, warmup: int, seconds: float) -> dict:
    box = math.sqrt(n / DENSITY)
    params = vicsek.VicsekParams(n=n, box=box)
    ens = vicsek.Ensemble([(3, 1.0)], params)
    t0 = time.perf_counter()
    for _ in range(warmup):
        ens.step()
    warm_s = time.perf_counter() - t0
    order = float(ens.order[0])  # before the timed updates, whose number depends on the machine
    steps = 0
    t0 = time.perf_counter()
    while True:
        ens.step()
        steps += 1
        dt = time.perf_counter() - t0
        if dt >= seconds and steps >= 5:
            break
    return {
        "n": n,
        "box": box,
        "warmup_updates": warmup,
        "warmup_seconds": warm_s,
        "measured_updates": steps,
        "seconds": dt,
        "updates_per_second": steps / dt,
        "agent_updates_per_second": n * steps / dt,
        "order_after_warmup": order,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="shorter warm-ups and timings (smoke test)")
    ap.add_argument("--out", default=str(ROOT / "dist" / "bench" / "steps_vicsek.json"),
                    help="where to write the JSON report")
    args = ap.parse_args(argv)

    report: dict = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
    }
    if args.quick:
        check_kw = dict(warmup=100, measure=50)
        t0 = time.perf_counter()
        rb = vicsek.run_check("batched", **check_kw)
        tb = time.perf_counter() - t0
        t0 = time.perf_counter()
        rs = vicsek.run_check("serial", **check_kw)
        ts = time.perf_counter() - t0
    else:
        tb, rb = time_check("batched")
        ts, rs = time_check("serial")
    same = rb == rs
    report["check"] = {
        "updates_per_run": (150 if args.quick else vicsek.CHECK_WARMUP + vicsek.CHECK_MEASURE),
        "runs": 2 * len(vicsek.CHECK_SEEDS),
        "batched_seconds": tb,
        "one_at_a_time_seconds": ts,
        "speedup": ts / tb,
        "identical_results": same,
        "result": rb,
    }
    print(f"eight-seed check: batched {tb:.2f} s, one at a time {ts:.2f} s, "
          f"ratio {ts / tb:.2f}x, identical results: {same}")

    paths = time_rule_paths(50 if args.quick else 300, 2 if args.quick else 3)
    report["rule_paths"] = paths
    for runtime, r in paths.items():
        print(f"Lab 2's built-in rule, one update of the check's 16 replicas ({runtime}): "
              f"as the engine runs it {r['engine_ms']:.2f} ms, as the page shows it {r['shown_ms']:.2f} ms, "
              f"ratio {r['shown_ms'] / r['engine_ms']:.2f}x, identical: {r['identical']}")
    same = same and all(r["identical"] for r in paths.values())

    rows = []
    for n in SIZES:
        warm = max(20, WARMUP[n] // 10) if args.quick else WARMUP[n]
        row = time_general(n, warm, 0.3 if args.quick else MEASURE_SECONDS)
        rows.append(row)
        print(f"N={n:>6} (L={row['box']:.2f}): {row['updates_per_second']:8.1f} updates/s, "
              f"{row['agent_updates_per_second'] / 1e6:6.2f} M agent-updates/s "
              f"(after {warm} warm-up updates, P={row['order_after_warmup']:.2f})")
    report["general"] = rows

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
