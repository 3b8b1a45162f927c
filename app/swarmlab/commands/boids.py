"""``python -m swarmlab boids``: run Lab 3 (Reynolds boids) headless.

    python -m swarmlab boids --sample 42 --seconds 60 [--preset NAME]
                             [--set name=value ...] [--csv FILE]

Samples the whole-group agreement P, the mean nearest spacing and the
number of flocks (5+ boids linked by chains of neighbours, flying one way) every
0.25 model s (10 steps), writes them as CSV (units in the header; "-" for
stdout), and prints a one-line summary.  ``--set`` accepts every Lab 3
parameter (k_sep, k_ali, k_coh, population, radius, sample) plus the world
``width``/``height`` in lengths.  Bad values exit with status 2 and a message
naming the parameter and its range.
"""

from __future__ import annotations

import argparse
import math
import sys

from .. import boids
from ..metrics import History, Series

SAMPLE_STEPS = 10  # 0.25 model s at DT = 0.025 s
MAX_SECONDS = 3600.0
SERIES = (
    Series("P", "whole-group agreement P", ""),
    Series("spacing", "mean nearest spacing", "lengths"),
    Series("flocks", f"flocks ({boids.FLOCK_MIN}+ linked boids flying one way)", "count"),
)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "boids",
        help="run Lab 3 (three rules: separation, alignment, cohesion) and record P, spacing and flocks",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--sample", default=None, help="sample number (seeds the start); default 42")
    p.add_argument("--seconds", type=float, default=60.0, help="model seconds to run (default 60)")
    p.add_argument("--preset", choices=tuple(boids.PRESETS), default=None,
                   help="rule weights: separation (1.5/0/0), cohesion (0/0/1) or balanced (1.5/1/1)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME=VALUE",
                   help="set a parameter (repeatable); applied after --preset")
    p.add_argument("--csv", default=None, metavar="FILE", help="write the sampled history as CSV ('-' = stdout)")
    p.set_defaults(func=run)


def parse_sets(items: list[str]) -> dict:
    values = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--set expects NAME=VALUE, got {item!r}")
        values[name.strip()] = value
    return values


def build_params(args) -> boids.Params:
    """Validated parameters from the command line (ValueError names the bad one)."""
    params = boids.Params()
    if args.sample is not None:
        params = params.with_values(sample=args.sample)
    if args.preset:
        params = params.with_values(**boids.PRESETS[args.preset])
    return params.with_values(**parse_sets(args.sets))


def simulate(params: boids.Params, seconds: float) -> History:
    """Run for ``seconds`` of model time and return the sampled history (t = 0 included)."""
    history = History(SERIES, tick_seconds=boids.DT, interval=SAMPLE_STEPS)
    state = boids.initial_state(params)
    total = int(round(seconds / boids.DT))
    history.record(0, boids.measure(state, params))
    while state.steps < total:
        state = boids.run(state, params, min(SAMPLE_STEPS, total - state.steps))
        history.record(state.steps, boids.measure(state, params))
    return history


def run(args) -> int:
    if not (math.isfinite(args.seconds) and 0 < args.seconds <= MAX_SECONDS):
        raise ValueError(f"--seconds must be in (0, {MAX_SECONDS:g}], got {args.seconds!r}")
    params = build_params(args)
    history = simulate(params, args.seconds)
    if args.csv == "-":
        sys.stdout.write(history.to_csv())
    elif args.csv:
        with open(args.csv, "w", encoding="utf-8", newline="") as fh:
            fh.write(history.to_csv())
    P = history.values["P"]
    sp = history.values["spacing"]
    tail = max(1, len(P) // 4)
    line = (
        f"boids sample {params.sample}: N={params.population}, k_sep={params.k_sep:g}, k_ali={params.k_ali:g}, "
        f"k_coh={params.k_coh:g}, radius={params.radius:g} lengths, world {params.width:g}x{params.height:g} lengths, "
        f"{history.times()[-1]:g} s: final P={P[-1]:.3f}, spacing={sp[-1]:.2f} lengths, "
        f"flocks={history.values['flocks'][-1]:g}; "
        f"last-quarter mean P={sum(P[-tail:]) / tail:.3f}, spacing={sum(sp[-tail:]) / tail:.2f} lengths"
    )
    print(line, file=sys.stderr if args.csv == "-" else sys.stdout)
    return 0
