"""``python -m swarmlab boids``: run Lab 3 (Reynolds boids) headless.

    python -m swarmlab boids --sample 42 --seconds 60 [--preset NAME]
                             [--set name=value ...] [--csv FILE] [--rules FILE]

Samples the shared heading P (0 to 1), the mean nearest spacing and the
number of flocks (5+ boids linked by chains of neighbours, flying one way) every
0.25 model s (10 steps) and at the end, writes them all as CSV (units in the
header; "-" for stdout), and prints a one-line summary.  A run longer than 60 model s also
prints the liveliness measures from 60 s to the end (``boids.FlockWatch``,
once per model second): splits and sudden turns of groups of 6+, the hexatic
order |psi6| (a lattice reads near 1), the mean P, the share of boids in groups
of 6+, and the groups of 6+ at the end (``--preset cohesion --seconds 90``: one
clump reads 1).  ``--set`` accepts every Lab 3 parameter (k_sep, k_ali, k_coh,
population, radius, sep_radius, coh_radius, view, max_force, v_min, v_max,
sample) plus the world ``width``/``height`` in lengths.  Bad values exit with
status 2 and a message naming the parameter and its range.  ``--rules FILE`` runs
the steering function ``steering(i, j, d, r, v, p)`` defined in FILE in place of the
built-in one (the page's "Rules in Python" panel; ``--rules-template > my_rules.py``
writes the built-in one as a file to start from); a rule that fails stops the run
with its line number.
"""

from __future__ import annotations

import argparse
import math
import sys

from .. import boids, rules, rules_boids, scaling
from ..cli import stopped_early, write_output
from . import (MAX_SECONDS, add_rules_options, load_rules, one_sample, param_table, parse_sets, rules_template,
               run_steps)
from ..metrics import History
from ..params import validate
# The page's history: the same series, words and sampling, so a CSV from here and one
# downloaded from the page have the same columns.
from ..sessions.boids import SAMPLE_INTERVAL_STEPS as SAMPLE_STEPS, new_history

TABLE_BATCH = 8  # --samples: flocks stepped together (boids.run_many; samples 1-8 x 300 s: 43 s against 100 s)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "boids",
        help="run Lab 3 (three rules: separation, alignment, cohesion) and record P, spacing and flocks",
        # the explanation (after the usage), without the docstring's ``code`` marks
        description=__doc__.split("\n\n")[2].replace("``", "") if __doc__ else None,
        epilog=param_table(boids.SPECS + boids.WORLD_SPECS, [
            "--sample or --set sample=... (both only if they agree); --set values are applied after --preset.",
            "",
            "example: python -m swarmlab boids --sample 3 --seconds 180 --set view=360 --csv flock.csv"]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--sample", default=None,
                   help=f"sample number (seeds the start); default {boids.Params().sample}")
    p.add_argument("--seconds", type=float, default=60.0, metavar="T",
                   help=f"model seconds to run, 0 < T <= {MAX_SECONDS:g} (default %(default)s)")
    p.add_argument("--preset", choices=tuple(boids.PRESETS), default=None,
                   help="the page's presets, which set (units: below): "
                        + "; ".join(f"{name} ({preset_words(values)})" for name, values in boids.PRESETS.items()))
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME=VALUE",
                   help="set a parameter (repeatable); applied after --preset")
    p.add_argument("--csv", default=None, metavar="FILE", help="write the sampled history as CSV ('-' = stdout)")
    p.add_argument("--samples", default=None, metavar="LIST",
                   help="instead of one run: the liveliness table over these samples (e.g. 1-8 or 1,5,9), "
                        "each --seconds long, plus cohesion only at 60 s, checked against the liveliness goals (the README's table)")
    p.add_argument("--check", action="store_true",
                   help="with --samples: exit with status 1 when a goal reads NO (for scripts and CI)")
    add_rules_options(p, rules_boids.KIND, "steering(i, j, d, r, v, p)", "boids")
    p.set_defaults(func=run)


def preset_words(values: dict) -> str:
    """What a preset sets, as --set would write it: "k_sep=1.5, k_ali=0, ..., view=200"."""
    return ", ".join(f"{k}={v:g}" for k, v in values.items())


def build_params(args) -> boids.Params:
    """Validated parameters from the command line (ValueError names the bad one)."""
    params = boids.Params()
    if args.preset:
        params = params.with_values(**boids.PRESETS[args.preset])
    sets = parse_sets(args.sets)
    population = sets.pop("population", None)
    params = params.with_values(**sets)
    if population is not None:  # (after the world: a link's 10,000 boids come with their grown sky)
        params = scaling.with_population(params, population)
    sample = one_sample(None if args.sample is None else validate(boids.SPECS, "sample", args.sample),
                        params.sample if "sample" in sets else None)
    return params if sample is None else params.with_values(sample=sample)


def simulate(params: boids.Params, seconds: float, watch: boids.FlockWatch | None = None,
             rule=None, history: History | None = None) -> History:
    """Run for ``seconds`` of model time and return the sampled history (t = 0 included).

    ``watch`` (optional) is fed the state at every whole model second; ``rule`` (optional)
    replaces the built-in steering (``rules.load_file(path, rules_boids.KIND)``).
    ``history`` (optional, empty) is filled in place, so a run that stops early has
    recorded its samples up to then there.
    """
    if history is None:
        history = new_history()
    state = boids.initial_state(params)
    total = int(round(seconds / boids.DT))
    history.record(0, boids.measure(state, params))
    if watch is not None:
        watch.observe(state)
    history.reserve(total // SAMPLE_STEPS + 2)  # every 0.25 s sample, never thinned
    while state.steps < total:
        state = boids.run(state, params, min(SAMPLE_STEPS, total - state.steps), rule=rule)
        history.record(state.steps, boids.measure(state, params), last=state.steps == total)
        if watch is not None and state.steps % boids.STEPS_PER_SECOND == 0:
            watch.observe(state)
    return history


def liveliness_line(summary: dict, start: float, end: float) -> str:
    """One line of the liveliness measures (see the module docstring)."""
    return (
        f"liveliness {start:g}-{end:g} s (groups of {boids.GROUP_MIN}+ boids, linked within the alignment range): "
        f"splits={summary['splits']}, turns faster than {boids.TURN_MIN_DEG:g} deg/s={summary['turns']}, "
        f"hexatic |psi6|={summary['psi6']:.2f}, mean P={summary['P']:.2f}, "
        f"share in groups={100 * summary['share']:.0f} %, groups at the end={summary['final_groups']}"
    )


def parse_samples(text: str) -> list[int]:
    """"1-8" or "1,5,9" (or a mix) -> sample numbers, validated; ValueError names the bad part."""
    out: list[int] = []
    for part in str(text).split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            a = int(lo)
            b = int(hi) if dash else a
        except ValueError:
            raise ValueError(f"--samples expects numbers like 1-8 or 1,5,9, got {part.strip()!r}") from None
        if b < a or b - a >= 1000:
            raise ValueError(f"--samples range {part.strip()!r} must run upwards and hold at most 1000 samples")
        out.extend(boids.validate(boids.SPECS, "sample", k) for k in range(a, b + 1))
    twice = sorted({k for k in out if out.count(k) > 1})
    if twice:  # one run counted as two replicates would overstate the goal table
        raise ValueError(f"--samples names sample {', '.join(map(str, twice))} more than once; each sample is one replicate")
    return out


def table(params: boids.Params, samples: list[int], seconds: float, out=None) -> dict[str, bool]:
    """Print the goal table (one row per sample, :func:`boids.goal_rows`, ``TABLE_BATCH`` samples
    stepped together: the rows of :func:`boids.goal_row` one at a time) and which goals hold."""
    out = out or sys.stdout
    print(f"liveliness {boids.WATCH_START:g}-{seconds:g} s, groups of {boids.GROUP_MIN}+ boids linked within "
          f"the alignment range; clumps = groups of {boids.GROUP_MIN}+ after {boids.CLUMP_SECONDS:g} s of "
          f"cohesion only, compact = how gathered they are (1 = one spot)", file=out)
    print(f"{'sample':>6} {'splits':>6} {'turns':>5} {'psi6':>5} {'P':>5} {'share':>5} {'groups':>6} {'clumps':>6} {'compact':>7}",
          file=out)
    rows = []
    for first in range(0, len(samples), TABLE_BATCH):  # a batch of samples at a time, stepped together
        batch = samples[first:first + TABLE_BATCH]
        print(f"stepping sample{'s' if len(batch) > 1 else ''} {', '.join(map(str, batch))} together ...",
              file=sys.stderr, flush=True)
        for r in boids.goal_rows(params, batch, seconds):
            rows.append(r)
            print(f"{r['sample']:>6} {r['splits']:>6} {r['turns']:>5} {r['psi6']:>5.2f} {r['P']:>5.2f} "
                  f"{r['share']:>5.2f} {r['groups']:>6.2f} {r['clumps']:>6} {r['compact']:>7.2f}", file=out, flush=True)
    met = boids.goals_met(rows)
    g = boids.GOALS
    wants = {"splits": f">= {g['splits']}", "turns": f">= {g['turns']}", "psi6": f"<= {g['psi6']:g}",
             "P": f">= {g['P']:g}", "share": f">= {g['share']:g}",
             "one_clump": f"clumps == 1 and compact >= {boids.CLUMP_COMPACT:g} in >= {math.ceil(g['one_clump'] * len(rows))} of {len(rows)}"}
    print("goals: " + ", ".join(f"{k} {wants[k]}: {'yes' if ok else 'NO'}" for k, ok in met.items()), file=out)
    return met


def run(args) -> int:
    if rules_template(args, rules_boids.KIND, "boids"):
        return 0
    run_steps(args.seconds, boids.DT)
    params = build_params(args)
    rule = load_rules(args, rules_boids.KIND)
    if args.samples is not None:
        if args.csv:
            raise ValueError("--csv records one run; leave it out with --samples")
        if rule is not None:
            raise ValueError("--rules runs one sample; leave out --samples")
        if args.sample is not None or "sample" in parse_sets(args.sets):
            raise ValueError("--samples lists the samples to run; leave out --sample and --set sample=... "
                             "(or put that sample in the list)")
        if not (args.seconds == int(args.seconds) and args.seconds > boids.WATCH_START):
            raise ValueError(f"--samples measures from {boids.WATCH_START:g} s on, once a model second: "
                             f"--seconds must be a whole number above {boids.WATCH_START:g}, got {args.seconds:g}")
        met = table(params, parse_samples(args.samples), args.seconds)
        return 1 if args.check and not all(met.values()) else 0
    if args.check:
        raise ValueError("--check checks the goal table; give --samples too (e.g. --samples 1-8 --seconds 300)")
    watch = boids.FlockWatch(params)
    history = new_history()
    try:
        simulate(params, args.seconds, watch, rule, history)
    except (rules.RuleError, KeyboardInterrupt) as exc:
        if isinstance(exc, rules.RuleError) and len(history) <= 1:
            raise  # broken from its first step: nothing to keep, a plain error (exit 2)
        return stopped_early(args.csv, history.to_csv(), history.times()[-1], exc, args.rules)
    if args.csv and not write_output("csv", args.csv, history.to_csv()):
        return 1
    P = history.values["P"]
    sp = history.values["spacing"]
    tail = max(1, len(P) // 4)
    line = (
        f"boids sample {params.sample}{' with the rules of ' + args.rules if rule else ''}: N={params.population}, k_sep={params.k_sep:g}, k_ali={params.k_ali:g}, "
        f"k_coh={params.k_coh:g}, ranges {params.sep_radius:g}/{params.radius:g}/{params.coh_radius:g} lengths, "
        f"view {params.view:g} deg, max force {params.max_force:g}, speeds {params.v_min:g}-{params.v_max:g}, "
        f"world {params.width:g}x{params.height:g} lengths, "
        f"{history.times()[-1]:g} s: final P={P[-1]:.3f}, spacing={sp[-1]:.2f} lengths, "
        f"flocks={history.values['flocks'][-1]:g}; "
        f"last-quarter mean P={sum(P[-tail:]) / tail:.3f}, spacing={sum(sp[-tail:]) / tail:.2f} lengths"
    )
    out = sys.stderr if args.csv == "-" else sys.stdout
    print(line, file=out)
    # the watch observes whole model seconds: liveliness needs one after its start (60.5 s has
    # none), and it ends at the last one
    last = math.floor(history.times()[-1] + 1e-9)
    if last > watch.start:
        print(liveliness_line(watch.summary(), watch.start, last), file=out)
    return 0
