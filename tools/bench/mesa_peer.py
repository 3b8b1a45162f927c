"""Swarm Lab's Lab 1 step against Mesa's ``boid_flockers``, side by side in one run.

    python -m tools.bench mesa_peer [--quick] [--rounds K] [--n N] [--out PATH]

CPython only (Mesa does not run in Pyodide).  Mesa is an optional bench extra
(``pip install -e '.[mesa]'``, which ``make bench`` does); without it this bench
prints one line and exits 0.

The match (N = 1,000 by default)
--------------------------------
Lab 1 runs in a fixed 160 x 100 torus with social range R = 10 and personal
space 3.2 lengths.  Mesa's ``BoidFlockers`` takes the size of its torus, the
vision radius and the separation distance as parameters (its defaults: 100 x 100,
vision 10, separation 2).  :func:`mesa_match` gives Mesa Lab 1's world
(160 x 100), vision = R = 10 and separation = 3.2, so both models have the same
density N / (W H) and the same interaction radius, hence the same expected
number of other agents within the radius, (N - 1) pi R^2 / (W H) = 19.6 at
N = 1,000 for uniform positions (:func:`expected_neighbours`).  Both start
uniform: Mesa places its boids uniformly, Lab 1 uses its "scattered" start
(its page default, "a loose patch", would be about 2.5 times denser).  The
neighbours actually present within R are counted (cell list, minimum image)
at the first and last timed state of each model and printed, so the match is
measured, not assumed.  Mesa's speed (1 length per step) is left at its default:
its cost does not depend on it, and a fresh start each round keeps the timed
states uniform.

What one step does
------------------
* **Mesa** ``BoidFlockers.step``: the boids act one at a time in a random order
  (``shuffle_do``, asynchronous: later boids see earlier boids' new positions).
  Each boid computes its minimum-image distance to all N boids (numpy over N),
  keeps those within ``vision`` (itself included), then cohesion
  0.03 sum(delta), separation -0.015 sum(delta over d < separation), alignment
  0.05 sum(direction), adds their sum / count to its direction, normalises,
  and moves ``speed`` along it.  Then the model's mean heading and each boid's
  angle.  About N^2 distance evaluations and N rounds of small numpy calls.
* **swarmlab** ``swarm.step`` (Lab 1, page defaults but the scattered start):
  one cell-list search for all pairs within max(R, 3.2), the personal-space
  pairs (r < 3.2) and the social pairs (r <= R, within +-135 deg of the
  heading), separation, alignment and cohesion reduced with ``np.bincount``,
  capped heading relaxation, keyed Gaussian heading noise, move and wrap; all
  agents at once (synchronous), trig IEEE-exact (``detmath``).
* **session** ``SwarmSession.op_step(1)``: the page's step, ``swarm.step``
  plus the lab's metrics every 15th step (timed over blocks of whole 15 steps).
* **boids** ``boids.step`` (Lab 3, for reference): separation, alignment,
  cohesion, speed limit, move, at Lab 3's default density (80 boids in
  160 x 100, the world grown to keep it: 566 x 354 at N = 1,000) and range 15.

Two more rows bound what the step could reach: **search**, Lab 1's neighbour
search alone (``cells.neighbour_pairs``, the first call of ``swarm.step``), and
**-own** rows, swarmlab and the search timed in a fresh Python that never
imports Mesa: after pandas is imported (Mesa does), the search's big temporaries
no longer cost page faults in glibc's malloc, so in Mesa's process the search
runs about twice as fast as in the CLI's (see :class:`OwnProcess`).

Timing: every round builds every model afresh from the same seed (not timed),
runs one warm-up step, then times a block of whole steps; the rounds interleave
the methods (mesa, swarmlab, session, boids, search, swarmlab-own, search-own,
mesa, ...).  The table gives, per method, the minimum and the median over the
rounds of wall-clock and of process CPU time per step, and the ratios of the
minima, measured in this run (on a shared machine the CPU time is the steadier:
it leaves out the time spent waiting for a core).  Absolute times are not
comparable between runs; the ratios are.  Writes ``dist/bench/mesa_peer.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "app") not in sys.path:
    sys.path.insert(0, str(ROOT / "app"))

import numpy as np  # noqa: E402

from swarmlab import boids, cells, swarm  # noqa: E402
from swarmlab.space import Box  # noqa: E402

N_DEFAULT = 1_000
SEED = 42
MISSING = ("mesa_peer: skipped, Mesa is not installed "
           "(an optional bench extra: pip install -e '.[mesa]', which make bench does)")
# steps timed per round and method (the session's block is whole metric intervals)
BLOCK = {"mesa": 3, "swarmlab": 30, "session": 30, "boids": 30, "search": 30, "no-rules": 30,
         "swarmlab-own": 30, "search-own": 30}
QUICK_BLOCK = {"mesa": 1, "swarmlab": 5, "session": 15, "boids": 5, "search": 5, "no-rules": 5,
               "swarmlab-own": 5, "search-own": 5}


# --- the match (pure functions; tests/unit/test_mesa_peer.py checks them) -------------------
def expected_neighbours(n: int, width: float, height: float, radius: float) -> float:
    """Mean number of OTHER agents within ``radius`` of an agent, for n uniform agents.

    On a W x H torus with radius < min(W, H)/2: (n - 1) pi radius^2 / (W H).
    """
    if not (0 < radius <= min(width, height) / 2):
        raise ValueError(f"radius must be in (0, min(W, H)/2], got {radius} for {width} x {height}")
    return (n - 1) * math.pi * radius * radius / (width * height)


def world_for_density(n: int, density: float, aspect: float) -> tuple[float, float]:
    """(W, H) with W / H = ``aspect`` holding ``n`` agents at ``density`` agents per length^2."""
    if n <= 0 or density <= 0 or aspect <= 0:
        raise ValueError("n, density and aspect must be positive")
    height = math.sqrt(n / density / aspect)
    return aspect * height, height


def mesa_match(n: int, box: Box = swarm.BOX, radius: float | None = None,
               separation: float = swarm.PERSONAL) -> dict:
    """Mesa ``BoidFlockers`` keyword arguments matching Lab 1 at population ``n``.

    Same torus (so the same density n / (W H)), vision = Lab 1's social range R,
    separation = Lab 1's personal space.  Returns {"kwargs": ..., "neighbours":
    {"lab1": ..., "mesa": ...}}: the expected other agents within the radius,
    each computed from its own model's parameters (equal when matched).
    """
    R = swarm.SwarmParams.from_values().R if radius is None else float(radius)
    kwargs = {"population_size": int(n), "width": box.width, "height": box.height,
              "vision": R, "separation": float(separation), "seed": SEED}
    return {
        "kwargs": kwargs,
        "neighbours": {
            "lab1": expected_neighbours(n, box.width, box.height, R),
            "mesa": expected_neighbours(kwargs["population_size"], kwargs["width"], kwargs["height"],
                                        kwargs["vision"]),
        },
    }


def lab3_params(n: int) -> boids.Params:
    """Lab 3 at population n and its default density (default population in the default world)."""
    d = boids.Params()
    w, h = world_for_density(n, d.population / (d.width * d.height), d.width / d.height)
    return dataclasses.replace(d, population=int(n), width=w, height=h)


def measured_neighbours(x: np.ndarray, box: Box, radius: float) -> float:
    """Mean number of other agents within ``radius`` (cell list, minimum image), x (N, 2)."""
    return len(cells.neighbour_pairs(np.asarray(x, dtype=np.float64), box, radius, sort=False)) / x.shape[0]


# --- the four steppers ------------------------------------------------------------------------
class Mesa:
    """Mesa's example model, built with :func:`mesa_match`'s arguments."""

    name = "mesa"

    def __init__(self, n: int):
        from mesa.examples.basic.boid_flockers.model import BoidFlockers
        self.match = mesa_match(n)
        self.model = BoidFlockers(**self.match["kwargs"])
        self.box = swarm.BOX
        self.radius = self.match["kwargs"]["vision"]

    def step(self) -> None:
        self.model.step()

    def positions(self) -> np.ndarray:
        return np.array(self.model.space.agent_positions, dtype=np.float64)


class SwarmLab:
    """Lab 1's pure step at the page defaults, scattered start."""

    name = "swarmlab"

    def __init__(self, n: int):
        self.p = dataclasses.replace(swarm.SwarmParams.from_values(start="scattered"), N=int(n))
        self.state = swarm.initial_state(self.p)
        self.box, self.radius = swarm.BOX, self.p.R

    def step(self) -> None:
        self.state = swarm.step(self.state, self.p)

    def positions(self) -> np.ndarray:
        return self.state.x


class Session(SwarmLab):
    """The page's Lab 1 step: the session with its metrics every 15th step."""

    name = "session"

    def __init__(self, n: int):
        from swarmlab.sessions.swarm import SwarmSession
        self.s = SwarmSession(N=int(n), start="scattered")
        self.box, self.radius = swarm.BOX, self.s.params.R

    def step(self) -> None:
        self.s.op_step(1)

    def positions(self) -> np.ndarray:
        return self.s.state.x


class Boids:
    """Lab 3's step at its default density (reference)."""

    name = "boids"

    def __init__(self, n: int):
        self.p = lab3_params(n)
        self.state = boids.initial_state(self.p)
        self.box, self.radius = self.p.box, self.p.radius

    def step(self) -> None:
        self.state = boids.step(self.state, self.p)

    def positions(self) -> np.ndarray:
        return self.state.x


class Search(SwarmLab):
    """Lab 1's neighbour search alone (``cells.neighbour_pairs``, the call ``swarm.step``
    makes first) on the scattered start: the part of the step in cells.py."""

    name = "search"

    def step(self) -> None:
        nearest = self.p.mode == "nearest"  # as swarm.find_neighbours asks (range mode: half pairs)
        cells.neighbour_pairs(self.state.x, swarm.BOX, self.p.cutoff, sort=nearest, half=not nearest)


class NoRules(SwarmLab):
    """Lab 1's step with the three rules' weights and the heading noise at 0: the search, the
    personal and social pairs (field of view), the capped turn, the move and the wrap, with no
    rule reduced and no noise drawn.  What the whole step could reach if the rules cost nothing."""

    name = "no-rules"

    def __init__(self, n: int):
        super().__init__(n)
        self.p = dataclasses.replace(self.p, w_s=0.0, w_a=0.0, w_c=0.0, sigma=0.0)


class OwnProcess:
    """A method timed in a fresh Python that never imports Mesa (``--child NAME``).

    At N = 1,000 the pair arrays (~160 kB) are above glibc malloc's mmap threshold:
    in a plain Python each search takes ~180 minor page faults; after pandas is
    imported (Mesa imports it) it takes none and runs ~2.4x faster (measured with
    ``resource.getrusage``).  The Swarm Lab CLI runs without Mesa, so its steps are
    also timed in a process of their own.
    """

    def __init__(self, inner: type):
        self.inner = inner
        self.name = f"{inner.name}-own"

    def time_block(self, n: int, steps: int) -> tuple[float, float, float, float]:
        import subprocess
        cmd = [sys.executable, "-m", "tools.bench.mesa_peer", "--child", self.inner.name,
               "--n", str(n), "--steps", str(steps)]
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return tuple(json.loads(out.strip().splitlines()[-1]))


METHODS = (Mesa, SwarmLab, Session, Boids, Search, NoRules, OwnProcess(SwarmLab), OwnProcess(Search))
CHILDREN = {m.name: m for m in (SwarmLab, Search)}


def time_block(m, steps: int) -> tuple[float, float, float, float]:
    """One warm-up step, then ``steps`` whole steps.

    Returns (wall seconds per step, process CPU seconds per step, mean neighbours
    within R before, after).  The CPU time leaves out the time this process waited
    for a core: on a shared machine it is the steadier of the two.
    """
    m.step()
    before = measured_neighbours(m.positions(), m.box, m.radius)
    c0 = time.process_time()
    t0 = time.perf_counter()
    for _ in range(steps):
        m.step()
    dt = (time.perf_counter() - t0) / steps
    cpu = (time.process_time() - c0) / steps
    return dt, cpu, before, measured_neighbours(m.positions(), m.box, m.radius)


def profile(n: int, steps: int = 500) -> None:
    """cProfile of ``steps`` Lab 1 steps (this process, Mesa not yet imported), the top
    functions by own time, then by cumulative time."""
    import cProfile
    import pstats
    m = SwarmLab(n)
    m.step()
    prof = cProfile.Profile(time.process_time)  # CPU time: waiting for a core is not charged
    prof.runcall(lambda: [m.step() for _ in range(steps)])
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(18)
    stats.sort_stats("cumulative").print_stats(25)


def _mesa_version() -> str | None:
    try:
        import mesa
    except ImportError:
        return None
    return getattr(mesa, "__version__", "?")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one short round per method (smoke run)")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    ap.add_argument("--n", type=int, default=N_DEFAULT, help="population (default 1000)")
    ap.add_argument("--out", default=str(ROOT / "dist" / "bench" / "mesa_peer.json"))
    ap.add_argument("--profile", action="store_true", help="first print a cProfile (CPU time) of 500 Lab 1 steps")
    ap.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    ap.add_argument("--steps", type=int, default=30, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:  # OwnProcess: one timed block in this fresh process, one JSON line
        print(json.dumps(time_block(CHILDREN[args.child](args.n), args.steps)))
        return 0
    if args.profile:  # before Mesa is imported (see OwnProcess)
        profile(args.n)
    version = _mesa_version()
    if version is None:
        print(MISSING)
        return 0
    if args.rounds < 1 or args.n < 2:
        ap.error("--rounds must be >= 1 and --n >= 2")
    rounds = 1 if args.quick else args.rounds
    block = QUICK_BLOCK if args.quick else BLOCK
    wall: dict[str, list[float]] = {m.name: [] for m in METHODS}
    cpu: dict[str, list[float]] = {m.name: [] for m in METHODS}
    nb: dict[str, list[float]] = {}
    t_all = time.perf_counter()
    for r in range(rounds):
        for cls in METHODS:
            if isinstance(cls, OwnProcess):
                dt, ct, before, after = cls.time_block(args.n, block[cls.name])
            else:
                m = cls(args.n)  # built afresh each round, not timed
                dt, ct, before, after = time_block(m, block[cls.name])
            wall[cls.name].append(dt)
            cpu[cls.name].append(ct)
            nb.setdefault(cls.name, [before, after])
            print(f"  round {r + 1}/{rounds} {cls.name:<8} {1e3 * dt:9.2f} ms/step ({1e3 * ct:8.2f} CPU)  "
                  f"neighbours within R {before:5.1f} -> {after:5.1f}", flush=True)
    best = {k: min(v) for k, v in wall.items()}
    med = {k: statistics.median(v) for k, v in wall.items()}
    cbest = {k: min(v) for k, v in cpu.items()}
    cmed = {k: statistics.median(v) for k, v in cpu.items()}
    ratio = {k: best["mesa"] / best[k] for k in wall}  # steps/s of k over Mesa's, wall-clock minima
    cratio = {k: cbest["mesa"] / cbest[k] for k in wall}  # the same from process CPU-time minima
    match = mesa_match(args.n)
    kw = match["kwargs"]
    lab3 = lab3_params(args.n)
    print()
    print(f"N = {args.n}, {rounds} interleaved rounds, Mesa {version}, numpy {np.__version__}, "
          f"Python {platform.python_version()}; ms per step, min and median over the rounds")
    print(f"{'method':<12} {'wall min':>9} {'median':>8} {'CPU min':>8} {'median':>8} "
          f"{'nb within R':>12} {'/Mesa wall':>10} {'CPU':>7}")
    for k in wall:
        print(f"{k:<12} {1e3 * best[k]:9.2f} {1e3 * med[k]:8.2f} {1e3 * cbest[k]:8.2f} {1e3 * cmed[k]:8.2f} "
              f"{nb[k][0]:5.1f}->{nb[k][1]:<5.1f} {ratio[k]:9.1f}x {cratio[k]:6.1f}x")
    print(f"swarmlab / Mesa steps/s (the '/Mesa' columns: Mesa's time / this one's): in one process "
          f"{cratio['swarmlab']:.1f}x CPU, {ratio['swarmlab']:.1f}x wall; swarmlab in its own process "
          f"{cratio['swarmlab-own']:.1f}x CPU, {ratio['swarmlab-own']:.1f}x wall; the page's session "
          f"{cratio['session']:.1f}x CPU; ceiling with today's search (Mesa / search alone) "
          f"{cratio['search']:.1f}x, own process {cratio['search-own']:.1f}x CPU; ceiling if the three rules "
          f"cost nothing (Mesa / the step with them and the noise off) {cratio['no-rules']:.1f}x CPU")
    print("notes:")
    print(f"  matched: Mesa BoidFlockers(width={kw['width']:g}, height={kw['height']:g}, vision={kw['vision']:g}, "
          f"separation={kw['separation']:g}) = Lab 1's {swarm.BOX.width:g} x {swarm.BOX.height:g} torus, R, "
          f"personal space; density {args.n / (kw['width'] * kw['height']):.4f} per length^2 in both; "
          f"expected others within R {match['neighbours']['lab1']:.1f} (uniform), 'nb within R' measured "
          "(first -> last timed state of round 1)")
    print("  both start uniform (Mesa's placement; Lab 1's 'scattered' start); each round starts afresh")
    print("  mesa: boids one at a time in random order, each a distance to all N, 3 rules, normalise, move (O(N^2))")
    print("  swarmlab: swarm.step, one cell-list search, personal + social (270 deg) pairs, bincount rules, "
          "capped turn, keyed noise, move (synchronous)")
    print("  session: the page's step (swarm.step + the metrics every 15th step)")
    print(f"  boids: Lab 3 for reference, its default density ({lab3.width:.0f} x {lab3.height:.0f} at N = {args.n}), "
          f"range {lab3.radius:g}")
    print("  search: Lab 1's neighbour search alone (cells.neighbour_pairs), the floor of swarm.step without "
          "changing cells.py")
    print("  no-rules: swarm.step with w_s = w_a = w_c = 0 and sigma = 0: the search, personal and social pairs, "
          "the capped turn, move and wrap, and no rule reduced and no noise drawn")
    print("  -own: the same in a fresh Python that never imports Mesa (after importing pandas, the search's big "
          "temporaries no longer cost page faults in glibc's malloc; the CLI runs without it)")
    total = time.perf_counter() - t_all
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "bench": "mesa_peer",
        "n": args.n,
        "rounds": rounds,
        "steps_per_round": block,
        "wall_seconds_per_step": wall,
        "cpu_seconds_per_step": cpu,
        "wall_min": best,
        "wall_median": med,
        "cpu_min": cbest,
        "cpu_median": cmed,
        "over_mesa_steps_per_s_wall_min": ratio,
        "over_mesa_steps_per_s_cpu_min": cratio,
        "neighbours_within_R_first_last": nb,
        "match": match,
        "lab3_world": [lab3.width, lab3.height],
        "mesa": version,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "quick": args.quick,
        "total_seconds": total,
    }, indent=2) + "\n")
    print(f"total {total:.1f} s; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
