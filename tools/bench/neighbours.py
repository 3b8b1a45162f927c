"""Neighbour search benchmark: our cell list vs scipy's periodic KD-tree vs brute force.

    python -m tools.bench neighbours [--quick] [--json PATH]

At fixed density (about 2.5 and about 10 neighbours within range R = 10, box
aspect 160:100, uniform random agents) and N = 500, 2,000, 10,000, 50,000:

* ``cells``      swarmlab.cells.neighbour_pairs: ordered pairs both ways, with
                 displacement and distance, sorted by (i, r, j).  Exact.
* ``unsorted``   the same with ``sort=False``: ordered pairs both ways with
                 displacement and distance, deterministic order.
* ``half``       the same with ``half=True``: each unordered pair once, with
                 displacement and distance (what a symmetric rule needs).
* ``kd_pairs``   scipy cKDTree(boxsize=...) build + query_pairs(R,
                 output_type="ndarray"), its fastest form: unordered pairs only
                 (no vectors, no distances, unsorted).  Compare with ``half``.
* ``kd_sdm``     cKDTree build + sparse_distance_matrix(self, R,
                 output_type="ndarray"): ordered pairs + distances (self pairs
                 included), unsorted.  Compare with ``unsorted``.
* ``brute``      full N x N numpy (minimum image, mask, lexsort), same output
                 as ``cells``; skipped ("—") above ~1 GB or ~10 s.

Methods are timed side by side in interleaved rounds (minimum wall time of a
round), so ratios are fair even on a busy machine; absolute times are noisy.
Also prints the log-log slope of time vs N per method (1.0 = linear) and a few
lab-shaped workloads.  Results go to dist/bench/neighbours.json.  scipy is only
needed here, never by the engine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

DENSITIES = (2.5, 10.0)  # mean neighbours within R (excluding self)
SIZES = (500, 2_000, 10_000, 50_000)
R = 10.0
ASPECT = 1.6
BRUTE_BYTES_PER_PAIR = 80  # peak memory of the N x N numpy approach, measured order of magnitude
BRUTE_MAX_BYTES = 1e9
BRUTE_MAX_SECONDS = 10.0


def _engine():
    try:
        from swarmlab import cells, space
    except ImportError:  # run from a checkout without installing
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        sys.path.insert(0, os.path.join(root, "app"))
        from swarmlab import cells, space
    return cells, space


def make_agents(n: int, neighbours: float, seed: int = 1):
    """Uniform agents in a 1.6:1 periodic box sized for ``neighbours`` within R."""
    _, space = _engine()
    area = n * np.pi * R * R / neighbours
    h = np.sqrt(area / ASPECT)
    box = space.Box(ASPECT * h, h)
    x = np.random.default_rng(seed).random((n, 2)) * box.size
    return x, box


def brute_pairs(x, box, cutoff):
    """The naive O(N^2) numpy search with the same output as cells.neighbour_pairs."""
    _, space = _engine()
    n = x.shape[0]
    d = space.displacement(x[:, None, :], x[None, :, :], box)
    r = np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1])  # same formula as cells (IEEE-exact)
    mask = r <= cutoff
    mask[np.arange(n), np.arange(n)] = False
    ii, jj = np.nonzero(mask)
    rr = r[ii, jj]
    o = np.lexsort((jj, rr, ii))
    return ii[o], jj[o], d[ii[o], jj[o]], rr[o]


def _interleaved(fns: dict, budget: float, min_rounds: int = 3, max_rounds: int = 25) -> dict:
    """Minimum wall time (s) per callable over interleaved rounds."""
    best = {k: np.inf for k in fns}
    for f in fns.values():  # warm up (caches, imports, page faults)
        f()
    t_round = 0.0
    rounds = 0
    while rounds < min_rounds or (rounds < max_rounds and t_round * (rounds + 1) < budget):
        t0 = time.perf_counter()
        names = list(fns) if rounds % 2 == 0 else list(fns)[::-1]
        for k in names:
            t = time.perf_counter()
            fns[k]()
            best[k] = min(best[k], time.perf_counter() - t)
        t_round = (time.perf_counter() - t0 + t_round * rounds) / (rounds + 1)
        rounds += 1
    return best


def _slope(ns, ts):
    ok = [(n, t) for n, t in zip(ns, ts) if t is not None and np.isfinite(t)]
    if len(ok) < 2:
        return None
    a = np.log([n for n, _ in ok])
    b = np.log([t for _, t in ok])
    return float(np.polyfit(a, b, 1)[0])


def _fmt_ms(t):
    return f"{'—':>9}" if t is None else f"{t * 1e3:9.3f}"


def _fmt_ratio(a, b):
    return "—" if a is None or b is None else f"{a / b:6.2f}x"


def run_scaling(sizes, budget, log=print):
    cells, _ = _engine()
    from scipy.spatial import cKDTree  # bench-only dependency

    results = []
    for nb in DENSITIES:
        log(f"\nDensity: {nb:g} neighbours within R={R:g} on average (uniform random, box aspect 1.6)."
            "\nms per call; ratios are cKDTree time / ours (> 1: ours is faster), like for like:"
            "\nkd_pairs (unordered pairs) / half (unordered pairs + d + r); kd_sdm (ordered + r) / unsorted (ordered + d + r).")
        log(f"{'N':>7} {'pairs':>9} | {'sorted':>8} {'unsorted':>8} {'half':>8} {'kd_pairs':>8} {'kd_sdm':>8} {'brute':>8} |"
            f" {'kd_pairs/half':>13} {'kd_sdm/unsorted':>15} {'kd_sdm/sorted':>13} | agree")
        brute_est = None  # seconds per N^2, from the last brute-force run
        for n in sizes:
            x, box = make_agents(n, nb)
            size = box.size
            fns = {
                "cells": lambda: cells.neighbour_pairs(x, box, R),
                "unsorted": lambda: cells.neighbour_pairs(x, box, R, sort=False),
                "half": lambda: cells.neighbour_pairs(x, box, R, half=True),
                "kd_pairs": lambda: cKDTree(x, boxsize=size).query_pairs(R, output_type="ndarray"),
                "kd_sdm": lambda: (lambda t: t.sparse_distance_matrix(t, R, output_type="ndarray"))(cKDTree(x, boxsize=size)),
            }
            mem = BRUTE_BYTES_PER_PAIR * float(n) * n
            est = None if brute_est is None else brute_est * float(n) * n
            run_brute = mem <= BRUTE_MAX_BYTES and (est is None or est <= BRUTE_MAX_SECONDS)
            if run_brute:
                fns["brute"] = lambda: brute_pairs(x, box, R)
            best = _interleaved(fns, budget)
            if run_brute:
                brute_est = best["brute"] / (float(n) * n)
            # agreement: same pair counts (and, for brute force, identical arrays)
            p = cells.neighbour_pairs(x, box, R)
            kp = cKDTree(x, boxsize=size).query_pairs(R, output_type="ndarray")
            agree = len(p) == 2 * len(kp) == 2 * len(cells.neighbour_pairs(x, box, R, half=True))
            if run_brute:
                bi, bj, bd, br = brute_pairs(x, box, R)
                agree = agree and np.array_equal(bi, p.i) and np.array_equal(bj, p.j) and np.array_equal(bd, p.d) and np.array_equal(br, p.r)
            t = {k: (float(best[k]) if k in best else None) for k in ("cells", "unsorted", "half", "kd_pairs", "kd_sdm", "brute")}
            results.append({"neighbours": nb, "N": n, "box": [float(box.width), float(box.height)], "R": R,
                            "pairs": len(p), "seconds": t, "agree": bool(agree)})
            log(f"{n:>7} {len(p):>9} | " + " ".join(_fmt_ms(t[k])[1:] for k in ("cells", "unsorted", "half", "kd_pairs", "kd_sdm", "brute"))
                + f" | {_fmt_ratio(t['kd_pairs'], t['half']):>13} {_fmt_ratio(t['kd_sdm'], t['unsorted']):>15}"
                f" {_fmt_ratio(t['kd_sdm'], t['cells']):>13} | {'yes' if agree else 'NO'}")
    slopes = {}
    log("\nLog-log slope of time vs N (1 = linear, 2 = quadratic):")
    keys = ("cells", "unsorted", "half", "kd_pairs", "kd_sdm", "brute")
    log(f"{'neighbours':>10} | " + " ".join(f"{k:>8}" for k in keys))
    for nb in DENSITIES:
        rows = [r for r in results if r["neighbours"] == nb]
        ns = [r["N"] for r in rows]
        s = {k: _slope(ns, [r["seconds"][k] for r in rows]) for k in keys}
        slopes[str(nb)] = s
        log(f"{nb:>10g} | " + " ".join(f"{'—' if s[k] is None else format(s[k], '.2f'):>8}" for k in keys))
    return results, slopes


def run_labs(budget, log=print):
    """Lab-shaped workloads (engine only)."""
    cells, space = _engine()
    rows = []
    log("\nLab-shaped workloads (cells only):")
    log(f"{'workload':<44} {'pairs':>9} {'ms':>9}")
    box1 = space.Box(160.0, 100.0)
    for n in (150, 2000, 10000):
        x = np.random.default_rng(7).random((n, 2)) * box1.size
        for name, fn in (
            (f"Lab 1 N={n}: pairs R=10", lambda: cells.neighbour_pairs(x, box1, 10.0)),
            (f"Lab 1 N={n}: pairs personal space 3.2", lambda: cells.neighbour_pairs(x, box1, 3.2)),
            (f"Lab 1 N={n}: nearest_any", lambda: cells.nearest_any(x, box1)),
        ):
            t = _interleaved({"f": fn}, budget / 3)["f"]
            out = fn()
            m = len(out) if isinstance(out, cells.Pairs) else n
            rows.append({"workload": name, "pairs": m, "seconds": float(t)})
            log(f"{name:<44} {m:>9} {_fmt_ms(t)}")
    box2 = space.Box(1.0, 1.0)
    x = np.random.default_rng(8).random((16 * 64, 2))
    g = np.repeat(np.arange(16), 64)
    fn = lambda: cells.neighbour_pairs(x, box2, 0.12, group=g)  # noqa: E731
    t = _interleaved({"f": fn}, budget / 3)["f"]
    name = "Lab 2: 16 replicas x 64, L=1, R=0.12, group="
    rows.append({"workload": name, "pairs": len(fn()), "seconds": float(t)})
    log(f"{name:<44} {len(fn()):>9} {_fmt_ms(t)}")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench neighbours", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes only (a smoke run of a few seconds)")
    ap.add_argument("--json", default=os.path.join("dist", "bench", "neighbours.json"), help="output file")
    args = ap.parse_args(argv)
    cells, _ = _engine()
    import scipy

    sizes = SIZES[:2] if args.quick else SIZES
    budget = 0.2 if args.quick else 3.0
    t0 = time.perf_counter()
    print(f"numpy {np.__version__}, scipy {scipy.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs")
    results, slopes = run_scaling(sizes, budget)
    labs = run_labs(0.3 if args.quick else 1.0)
    total = time.perf_counter() - t0
    print(f"\n(bench took {total:.0f} s; times are minimum wall time per call)")
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({
            "bench": "neighbours",
            "numpy": np.__version__, "scipy": scipy.__version__, "python": platform.python_version(),
            "machine": platform.machine(), "cpus": os.cpu_count(),
            "R": R, "densities": list(DENSITIES), "sizes": list(sizes),
            "methods": {
                "cells": "swarmlab.cells.neighbour_pairs (ordered, d and r, sorted (i, r, j), exact)",
                "unsorted": "the same, sort=False (ordered, d and r, deterministic order)",
                "half": "the same, half=True (each unordered pair once, d and r)",
                "kd_pairs": "scipy cKDTree(boxsize) build + query_pairs(output_type='ndarray') (unordered i<j only)",
                "kd_sdm": "scipy cKDTree(boxsize) build + sparse_distance_matrix ndarray (ordered + r, unsorted)",
                "brute": "N x N numpy, same output as cells (null = skipped)",
            },
            "results": results, "slopes": slopes, "labs": labs, "seconds_total": total,
        }, f, indent=1)
    print(f"wrote {args.json}")
    bad = [r for r in results if not r["agree"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
