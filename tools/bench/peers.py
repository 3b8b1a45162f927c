"""Our boids step against its peers, side by side in one run.

    python -m tools.bench peers [--quick] [--json PATH]

At a fixed density (uniform agents, about 10 neighbours within the alignment range
R = 15 on average, about 11.4 within the search reach of 16, box aspect 1.6, the box
growing with N) and N = 80 ... 100,000, the same step of Lab 3 with its built-in rules
(field of view, separation, alignment, cohesion as prioritised steering, speed limits,
move; see swarmlab.boids and rules_boids.steering) timed in:

* ``js grid``    plain JavaScript in Node, a uniform grid of cells >= the reach
                 (tools/bench/boids_peer.mjs) - what a careful JS author writes;
* ``js naive``   the same step over all N^2 pairs (up to N = 10,000);
* ``pyodide``    swarmlab.boids.step under the vendored Pyodide in Node
                 (tools/pyodide_node.mjs: the browser's runtime, one core);
* ``cpython``    swarmlab.boids.step in this Python;
* ``floor``      the pair-work floor: the rules' pair work given the half pairs
                 (``boids.rule_vectors``: both directions' view tests, the three
                 masked sums and counts; no search, no per-boid steering), numpy
                 under Pyodide.  ``boids.step`` runs on it since 2 December; the
                 equivalence check's ``floor`` entry compares that step with the
                 page's function on the ordered pairs (0: the same bits).

``--baseline DIR`` times an older copy of ``app/``.

Then (or alone, with ``--swarm``) the Swarm Lab's step at N = 2,000 under Pyodide
against CPython in the same rounds, and numpy's own kernels (multiply, divide,
gathers, comparisons, bincount...) on arrays of that step's size in both runtimes:
Pyodide's numpy is built without SIMD (its baseline and dispatch lists are empty;
CPython's x86-64 wheels dispatch AVX2), so the step's ratio is bounded by theirs.

Before timing, one step of the JS peers (grid and naive) is checked
against swarmlab.boids.step from the same state, at the defaults and at the
settings of ``VARIANTS`` (max relative difference; exact equality is not expected:
summation order differs; tests/unit/test_peers_bench.py runs the same check).  Each runtime runs in its own
process, in two alternating rounds; the minimum per method and N is kept, so the
ratios (printed, measured in this run) are fair on a busy machine; absolute times
are not.  Also prints the log-log slope of step time vs N (1 = linear).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIZES = (80, 1_000, 2_000, 10_000, 30_000, 100_000)
NEIGHBOURS = 10.0
NAIVE_MAX = 10_000
# Settings whose branches the defaults do not take, also checked for equivalence: all-round view
# with a rule weighted 0; a narrow view with a long separation range and a tight force budget.
VARIANTS = ({"view": 360.0, "k_ali": 0.0}, {"view": 90.0, "sep_radius": 12.0, "max_force": 2.0, "k_coh": 2.5})

# Runs unchanged in CPython and in Pyodide (prints one JSON line after @@RESULT@@).
PY = r'''
import json, time
if globals().get("KEEP_FREED"):  # CPython as `python -m swarmlab` runs it (swarmlab.allocator)
    from swarmlab.allocator import keep_freed_memory
    keep_freed_memory()
import numpy as np
from swarmlab import boids, cells
from swarmlab.rules_boids import steering

def world(n, nb, radius):
    area = n * np.pi * radius * radius / nb
    h = float(np.sqrt(area / 1.6))
    return 1.6 * h, h

WARM_STEPS, WARM_SECONDS = 2000, 0.3  # as boids_peer.mjs: warm up this many calls or this long

def warm(f):
    """Call f until WARM_STEPS calls or WARM_SECONDS, whichever comes first (at least twice):
    the wasm engine tiers hot functions up as the JS engine does (the same rule both sides)."""
    t0, k = time.perf_counter(), 0
    while k < 2 or (k < WARM_STEPS and time.perf_counter() - t0 < WARM_SECONDS):
        f(); k += 1

def best(f, budget, least=3, warmed=False):
    """Minimum time of one call of f (after a warm-up unless ``warmed``)."""
    f() if warmed else warm(f)
    t_best, spent, k = float("inf"), 0.0, 0
    while k < least or (spent < budget and k < 200):
        t0 = time.perf_counter(); f(); dt = time.perf_counter() - t0
        t_best = min(t_best, dt); spent += dt; k += 1
    return t_best

def run(sizes, budget, nb):
    out = {"step": {}, "floor": {}, "search_half": {}, "pairs": {}}
    import inspect
    has_half = "half" in inspect.signature(cells.neighbour_pairs).parameters  # a --baseline engine may not
    for n in sizes:
        w, h = world(n, nb, boids.RADIUS)
        p = boids.Params(population=n, width=w, height=h)
        st = boids.initial_state(p)
        scratch = [st]
        warm(lambda: scratch.__setitem__(0, boids.step(scratch[0], p)))  # on a copy: the timed run starts uniform
        holder = [st]
        def f_step():
            holder[0] = boids.step(holder[0], p)
        out["step"][n] = best(f_step, budget, warmed=True)
        if not has_half:
            continue
        pr = cells.neighbour_pairs(st.x, p.box, p.reach, sort=False, half=True)
        out["pairs"][n] = 2 * len(pr)
        if hasattr(boids, "rule_vectors"):  # a --baseline engine may not have it
            out["floor"][n] = best(lambda: boids.rule_vectors(pr, st.v, p), budget)
        out["search_half"][n] = best(lambda: cells.neighbour_pairs(st.x, p.box, p.reach, sort=False, half=True), budget)
    return out

def run_swarm(sizes, budget):
    """Lab 1 (Swarm Lab) model steps at its default settings, seconds per step."""
    from swarmlab import swarm
    out = {}
    for n in sizes:
        p = swarm.SwarmParams.from_values({"N": n})
        holder = [swarm.run(swarm.initial_state(p), p, 120) if hasattr(swarm, "run") else swarm.initial_state(p)]
        for _ in range(0 if hasattr(swarm, "run") else 120):
            holder[0] = swarm.step(holder[0], p)
        def f():
            holder[0] = swarm.step(holder[0], p)
        out[n] = best(f, budget)
    return out

def numpy_kernels(budget):
    """numpy's own kernels, one call each, on arrays of the Lab 1 step's size at N = 2,000
    (its ordered pairs in view, M ~ 100,000, the rules' input; gathers from an (N,) table):
    what every line of the step is made of.  Also numpy's SIMD baseline and dispatch lists
    (empty in Pyodide)."""
    from swarmlab import swarm
    try:
        from numpy._core._multiarray_umath import __cpu_baseline__ as base, __cpu_dispatch__ as disp
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_baseline__ as base, __cpu_dispatch__ as disp
    p = swarm.SwarmParams.from_values({"N": 2000})
    st = swarm.initial_state(p)
    for _ in range(120):
        st = swarm.step(st, p)
    pairs = swarm.find_neighbours(st, p).social  # ordered pairs in view: the rules' input
    m, n = len(pairs), st.n
    a = pairs.r.copy()
    b = pairs.dx.copy()
    out = np.empty(m)
    i = pairs.i
    table = np.ascontiguousarray(st.u[:, 0])
    mask = a <= 0.5 * float(a.max())
    c = a + 1.0
    kernels = {
        "multiply": lambda: np.multiply(a, b, out=out),
        "divide": lambda: np.divide(b, c, out=out),
        "sqrt": lambda: np.sqrt(a, out=out),
        "floor": lambda: np.floor(b, out=out),
        "gather (1-D)": lambda: table[i],
        "compare": lambda: a <= 3.2,
        "minimum": lambda: np.minimum(a, 3.2, out=out),
        "nonzero": lambda: mask.nonzero(),
        "bincount": lambda: np.bincount(i, weights=b, minlength=n),
    }
    return {"M": m, "simd": [len(base), len(disp)], "t": {k: best(f, budget) for k, f in kernels.items()}}

def check(n, overrides):
    p = boids.Params(population=n).with_values(**overrides)
    st = boids.initial_state(p)
    st = boids.run(st, p, 40)  # a second of flight: neighbours everywhere
    a = boids.step(st, p)
    b = boids.step(st, p, rule=steering)  # the page's function on the ordered pairs
    rel = max(float(np.max(np.abs(a.x - b.x))) / p.width, float(np.max(np.abs(a.v - b.v))) / p.v_max)
    return {"x0": st.x.tolist(), "v0": st.v.tolist(), "x1": a.x.tolist(), "v1": a.v.tolist(),
            "floor_rel": rel, "W": p.width, "H": p.height, "V_MAX": p.v_max}

MODE = globals().get("MODE", "run")
if MODE == "check":
    print("@@RESULT@@" + json.dumps(check(CHECK_N, CHECK_SET)))
elif MODE == "swarm":
    kern = None if globals().get("NO_KERNELS") else numpy_kernels(BUDGET)
    print("@@RESULT@@" + json.dumps({"swarm": run_swarm(SIZES, BUDGET), "kernels": kern}))
else:
    print("@@RESULT@@" + json.dumps(run(SIZES, BUDGET, NB)))
'''


def _py_script(header: str) -> str:
    return header + "\n" + PY


def run_code(code: str, runtime: str, app: str | None = None) -> dict:
    """Run ``code``, which prints ``@@RESULT@@`` then JSON, at low priority under ``runtime``:
    "cpython" (this Python) or "pyodide" (tools/pyodide_node.mjs: the browser's runtime in Node),
    with the engine from ``app`` (default: this checkout's app/).  Returns the JSON."""
    if runtime == "cpython":
        cmd, stdin, env = ["nice", sys.executable, "-c",
                           f"import sys; sys.path.insert(0, {app or os.path.join(ROOT, 'app')!r})\n" + code], None, None
    else:
        cmd = ["nice", shutil.which("node") or "node", os.path.join(ROOT, "tools", "pyodide_node.mjs")]
        stdin, env = code, (dict(os.environ, SWARMLAB_APP=app) if app else None)
    res = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=3600, env=env)
    if res.returncode:
        raise RuntimeError(res.stderr[-3000:])
    return json.loads(res.stdout.split("@@RESULT@@", 1)[1])


def run_cpython(header: str, app: str | None = None) -> dict:
    return run_code(_py_script(header), "cpython", app)


def run_pyodide(header: str, app: str | None = None) -> dict:
    return run_code(_py_script(header), "pyodide", app)


def run_js(request: dict) -> dict:
    res = subprocess.run(["nice", shutil.which("node") or "node", os.path.join(ROOT, "tools", "bench", "boids_peer.mjs")],
                         input=json.dumps(request), capture_output=True, text=True, timeout=3600)
    if res.returncode:
        raise RuntimeError(res.stderr[-3000:])
    return json.loads(res.stdout)


def run_js_each(sizes, pj: dict, budget: float) -> dict:
    """The JS peers, one Node process per size and method: V8 specialises the step to the
    first size a process runs (a later size ran up to 1.45x slower in the same process), so
    each is timed at its best, as the Python sides are."""
    out: dict = {"grid": {}, "naive": {}}
    for n in sizes:
        for method in ("grid", "naive") if n <= NAIVE_MAX else ("grid",):
            res = run_js({"cmd": "bench", "sizes": [n], "neighbours": NEIGHBOURS, "p": pj, "budget": budget,
                          "naive_max": NAIVE_MAX, "methods": [method]})
            out[method].update(res[method])
    return out


def _params_json(overrides: dict | None = None) -> dict:
    """The step's parameters and constants for the JS peer, read from swarmlab.boids."""
    sys.path.insert(0, os.path.join(ROOT, "app"))
    from swarmlab import boids

    p = boids.Params().with_values(**(overrides or {}))
    names = ("radius", "sep_radius", "coh_radius", "view", "k_sep", "k_ali", "k_coh", "max_force", "v_min", "v_max")
    return {**{k: getattr(p, k) for k in names}, "cos_half": boids.cos_half_view(p.view),
            "spawn_speed": p.spawn_speed, "EPS": boids.EPS, "DT": boids.DT}


def equivalence(log=print, overrides: dict | None = None) -> dict:
    """One step from the same state: JS grid, JS naive and the page's function (ordered pairs) against boids.step
    (``overrides``: parameter values other than the defaults, e.g. {"view": 360})."""
    import numpy as np

    overrides = dict(overrides or {})
    ref = run_cpython(f"MODE = 'check'; CHECK_N = 500; CHECK_SET = {overrides!r}")
    out = {"floor_rel": ref["floor_rel"]}
    x1, v1 = np.array(ref["x1"]), np.array(ref["v1"])
    for method in ("grid", "naive"):
        js = run_js({"cmd": "step", "x": ref["x0"], "v": ref["v0"], "W": ref["W"], "H": ref["H"],
                     "p": _params_json(overrides), "method": method})
        dx = np.abs(np.array(js["x"]) - x1)
        dx = np.minimum(dx, np.array([ref["W"], ref["H"]]) - dx)  # across the wrap
        rel = max(float(dx.max()) / ref["W"], float(np.abs(np.array(js["v"]) - v1).max()) / ref["V_MAX"])
        out[f"js_{method}_rel"] = rel
    ok = all(v < 1e-9 for v in out.values())
    log("Equivalence of one step from the same 500-boid state (max difference relative to the world / V_MAX)"
        + (f", with {overrides}" if overrides else "") + ":")
    log("  " + ", ".join(f"{k[:-4]} {v:.1e}" for k, v in out.items()) + ("  -> same step" if ok else "  -> NOT THE SAME STEP"))
    out["ok"] = ok
    return out


def _slope(ns, ts):
    import numpy as np

    ok = [(n, t) for n, t in zip(ns, ts) if t is not None and n >= 1000]
    if len(ok) < 2:
        return None
    return float(np.polyfit(np.log([n for n, _ in ok]), np.log([t for _, t in ok]), 1)[0])


def swarm_main(sizes, budget, rounds, baseline) -> int:
    header = f"MODE = 'swarm'; SIZES = {list(sizes)!r}; BUDGET = {budget!r}"
    runs = [("cpython", None, ""), ("cpython keep_freed", None, "KEEP_FREED = True; "), ("pyodide", None, "")]
    if baseline:
        runs += [("cpython before", os.path.abspath(baseline), "NO_KERNELS = True; "),
                 ("pyodide before", os.path.abspath(baseline), "NO_KERNELS = True; ")]
    best: dict[str, dict[int, float]] = {}
    kernels: dict[str, dict] = {}
    for rnd in range(rounds):
        for name, app, extra in (runs if rnd % 2 == 0 else runs[::-1]):
            got = (run_cpython if name.startswith("cpython") else run_pyodide)(extra + header, app)
            d = best.setdefault(name, {})
            for n, t in got["swarm"].items():
                d[int(n)] = min(d.get(int(n), float("inf")), t)
            if got["kernels"] is not None:  # (not timed again for --baseline's engine)
                k = kernels.setdefault(name, {"M": got["kernels"]["M"], "simd": got["kernels"]["simd"], "t": {}})
                for op, t in got["kernels"]["t"].items():
                    k["t"][op] = min(k["t"].get(op, float("inf")), t)
    print("Swarm Lab (Lab 1) model step at its defaults, ms (minimum over rounds; 'keep_freed': CPython with")
    print("swarmlab.allocator.keep_freed_memory(), as `python -m swarmlab` runs):")
    print(f"{'N':>7} " + " ".join(f"{k:>18}" for k in best))
    for n in sizes:
        print(f"{n:>7} " + " ".join(f"{best[k][n] * 1e3:>18.3f}" for k in best))
        line = (f"  Pyodide / CPython {best['pyodide'][n] / best['cpython'][n]:.2f}x, / CPython keep_freed "
                f"{best['pyodide'][n] / best['cpython keep_freed'][n]:.2f}x")
        if baseline:
            line += (f"; before: {best['pyodide before'][n] / best['cpython before'][n]:.2f}x;"
                     f" after / before: Pyodide {best['pyodide'][n] / best['pyodide before'][n]:.2f}x,"
                     f" CPython {best['cpython'][n] / best['cpython before'][n]:.2f}x")
        print(line)
    pyo, cpy = kernels["pyodide"], kernels["cpython keep_freed"]
    print(f"numpy's own kernels on the step's arrays (M = {pyo['M']:,} pairs in view at N = 2,000), microseconds a call;"
          f" SIMD baseline/dispatch targets: CPython {cpy['simd'][0]}/{cpy['simd'][1]}, Pyodide {pyo['simd'][0]}/{pyo['simd'][1]}:")
    for op, t in pyo["t"].items():
        print(f"  {op:<14} CPython keep_freed {cpy['t'][op] * 1e6:9.1f}   Pyodide {t * 1e6:9.1f}   {t / cpy['t'][op]:5.2f}x")
    ratios = sorted(pyo["t"][op] / cpy["t"][op] for op in pyo["t"])
    print(f"  median Pyodide / CPython over these kernels: {ratios[len(ratios) // 2]:.2f}x (the step's ratio is a mix of them)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench peers", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 80, 1,000, 2,000 only, short budgets")
    ap.add_argument("--sizes", type=int, nargs="+", help="populations (default 80 ... 100,000)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--swarm", action="store_true",
                    help="Lab 1 (Swarm Lab) model step at its defaults instead, N = --sizes (default 2,000): "
                         "Pyodide against CPython (and --baseline)")
    ap.add_argument("--baseline", metavar="APP_DIR",
                    help="also time boids.step of another copy of app/ (e.g. `git archive <commit> app`), "
                         "in the same rounds: columns '... before'")
    ap.add_argument("--json", default=os.path.join(ROOT, "dist", "bench", "peers.json"))
    args = ap.parse_args(argv)
    sizes = args.sizes or (SIZES[:3] if args.quick else SIZES)
    budget = 0.2 if args.quick else 1.0
    if args.swarm:
        return swarm_main(args.sizes or [2000], budget, args.rounds, args.baseline)
    t0 = time.perf_counter()
    print(f"Python {platform.python_version()}, node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs; ~{NEIGHBOURS:g} neighbours within R per boid (uniform)")
    eq = equivalence()
    for variant in VARIANTS:  # the branches the defaults do not take
        eq["ok"] = equivalence(overrides=variant)["ok"] and eq["ok"]
    header = f"SIZES = {list(sizes)!r}; BUDGET = {budget!r}; NB = {NEIGHBOURS!r}"
    best: dict[str, dict[int, float]] = {}

    def keep(name, table):
        d = best.setdefault(name, {})
        for n, t in table.items():
            d[int(n)] = min(d.get(int(n), float("inf")), float(t))

    pj = _params_json()
    for rnd in range(args.rounds):
        runs = [("cpython", lambda: run_cpython(header)), ("pyodide", lambda: run_pyodide(header)),
                ("js", lambda: run_js_each(sizes, pj, budget))]
        if args.baseline:
            base = os.path.abspath(args.baseline)
            runs += [("cpython before", lambda: run_cpython(header, base)), ("pyodide before", lambda: run_pyodide(header, base))]
        if rnd % 2:
            runs.reverse()
        for name, fn in runs:
            res = fn()
            if name == "js":
                keep("js grid", res["grid"])
                keep("js naive", res["naive"])
            else:
                keep(f"{name} step", res["step"])
                keep(f"{name} floor", res["floor"])
                keep(f"{name} search", res["search_half"])
                if res["pairs"]:
                    best["pairs"] = {int(k): v for k, v in res["pairs"].items()}
    g = lambda k, n: best.get(k, {}).get(n)  # noqa: E731
    cols = ["js grid", "js naive", "pyodide step", "pyodide floor", "pyodide search", "cpython step"]
    if args.baseline:
        cols += ["pyodide before step", "cpython before step"]
    print("\nms per step (minimum over rounds):")
    w = max(len(c) for c in cols)
    print(f"{'N':>7} {'pairs/N':>7} | " + " ".join(f"{c:>{w}}" for c in cols))
    for n in sizes:
        print(f"{n:>7} {best['pairs'][n] / n:>7.1f} | " + " ".join(
            f"{'—':>{w}}" if g(c, n) is None else f"{g(c, n) * 1e3:>{w}.3f}" for c in cols))

    def ratio(a, b, n):
        return None if g(a, n) is None or g(b, n) is None else g(a, n) / g(b, n)

    # (the floor is timed with this tree's rule_vectors only: "before / today's floor" compares
    # the old step with the new floor, not with its own)
    rat = [("pyodide before / js grid", "pyodide before step", "js grid"),
           ("pyodide before / today's floor", "pyodide before step", "pyodide floor"),
           ("pyodide before / cpython before", "pyodide before step", "cpython before step"),
           ("pyodide step / js grid", "pyodide step", "js grid"),
           ("pyodide step / floor", "pyodide step", "pyodide floor"),
           ("pyodide search / floor", "pyodide search", "pyodide floor"),
           ("pyodide step / cpython step", "pyodide step", "cpython step"),
           ("js naive / pyodide step", "js naive", "pyodide step")]
    print("\nRatios measured in this run (time / time):")
    print(f"{'':>32} " + " ".join(f"{n:>8}" for n in sizes))
    ratios = {}
    for label, a, b in rat:
        vals = [ratio(a, b, n) for n in sizes]
        ratios[label] = dict(zip(sizes, vals))
        if all(v is None for v in vals):
            continue
        print(f"{label:>32} " + " ".join(f"{'—':>8}" if v is None else f"{v:>7.2f}x" for v in vals))
    print("\nLog-log slope of step time vs N at fixed density (N >= 1,000; 1 = linear):")
    slopes = {c: _slope(sizes, [g(c, n) for n in sizes]) for c in cols}
    print("  " + ", ".join(f"{c} {'—' if s is None else format(s, '.2f')}" for c, s in slopes.items()))
    total = time.perf_counter() - t0
    print(f"(the Lab 3 part took {total:.0f} s)")
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"bench": "peers", "neighbours": NEIGHBOURS, "sizes": list(sizes), "equivalence": eq,
                   "seconds_per_step": {k: v for k, v in best.items() if k != "pairs"}, "pairs": best["pairs"],
                   "ratios": {k: {str(n): v for n, v in d.items()} for k, d in ratios.items()},
                   "slopes": slopes, "seconds_total": total}, f, indent=1)
    print(f"wrote {args.json}")
    print("\nThe Swarm Lab (Lab 1) step, Pyodide against CPython (also `peers --swarm`):")
    swarm_main([2000], budget, args.rounds, args.baseline)
    return 0 if eq["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
