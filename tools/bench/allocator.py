"""CPython's page faults at large populations, with and without ``swarmlab.allocator``.

    .venv/bin/python -m tools.bench allocator [--rounds 3] [--steps 20]

Each case runs in a fresh child process (the allocator's thresholds are per process):
Lab 1 (``swarm.step``, default settings) at N = 2,000 and Lab 3 (``boids.step``) at
N = 1,000 and 10,000 at the default density, each once as ``import swarmlab`` leaves
glibc and once after ``allocator.keep_freed_memory()`` (what ``python -m swarmlab``
does).  The child warms up for 3 steps, then reports CPU time and minor page faults per
step (``getrusage``).  Rounds alternate the two settings; the table gives the minimum CPU
time and the ratio of the two, measured side by side in one run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.bench.browser import fx, table  # noqa: E402

CASES = (("swarm", 2000), ("boids", 1000), ("boids", 10000))

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {app!r})
from swarmlab import allocator, boids, scaling, swarm
kept = allocator.keep_freed_memory() if {keep!r} else False
model, n, steps = {model!r}, {n!r}, {steps!r}
if model == "swarm":
    p = swarm.SwarmParams.from_values(N=n)
    s, step = swarm.initial_state(p), swarm.step
else:
    w, h = scaling.world_for(n, boids.WORLD_WIDTH / boids.WORLD_HEIGHT)
    p = boids.Params(population=n, width=w, height=h)
    s, step = boids.initial_state(p), boids.step
for _ in range(3):
    s = step(s, p)
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.process_time()
for _ in range(steps):
    s = step(s, p)
t, r1 = time.process_time() - t0, resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"kept": kept, "cpu_ms": 1e3 * t / steps, "faults": (r1.ru_minflt - r0.ru_minflt) / steps}}))
"""


def child(model: str, n: int, keep: bool, steps: int) -> dict:
    code = CHILD.format(app=str(ROOT / "app"), keep=keep, model=model, n=n, steps=steps)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench allocator", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--json", default=str(ROOT / "dist" / "bench" / "allocator.json"))
    args, _ = ap.parse_known_args(argv)
    res: dict = {}
    for model, n in CASES:
        runs = {False: [], True: []}
        for r in range(args.rounds):
            for keep in ((False, True) if r % 2 == 0 else (True, False)):
                runs[keep].append(child(model, n, keep, args.steps))
        res[f"{model}-{n}"] = {"default": runs[False], "kept": runs[True]}
    rows = []
    for key, r in res.items():
        d = min(x["cpu_ms"] for x in r["default"])
        k = min(x["cpu_ms"] for x in r["kept"])
        rows.append([key, f"{d:.2f}", f"{r['default'][0]['faults']:.0f}", f"{k:.2f}", f"{r['kept'][0]['faults']:.0f}",
                     fx(d / k) if k else "n/a", "yes" if r["kept"][0]["kept"] else "no (not glibc)"])
    table(f"CPython step with glibc's default thresholds vs swarmlab.allocator.keep_freed_memory() "
                f"({args.rounds} alternating rounds, {args.steps} steps each, min CPU time)",
                ["case", "default ms", "faults/step", "kept ms", "faults/step", "speed-up", "thresholds set"], rows,
                ["a fresh child process per case (the thresholds are per process); python -m swarmlab sets them"])
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
