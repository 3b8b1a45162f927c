"""``python -m swarmlab vicsek``: one run of the general Vicsek form.

Every option is validated through ``vicsek.GENERAL_SPECS`` (swarmlab.params):
a bad value stops with a message naming the option and its range (exit code 2).
Prints the mean and the population standard deviation of the order parameter
P over the measured updates; ``--json`` prints {"order_mean": ..., "order_std": ...}.
``--rules FILE`` runs the turn function ``turn(i, j, d, r, theta, a, kick)`` defined in
FILE in place of the built-in one (``--rules-template > my_turn.py`` writes the built-in
one as a file to start from).
"""

from __future__ import annotations

import argparse
import json
import sys

from .. import rules, rules_vicsek, vicsek
from ..params import _fmt
from ..cli import error_text
from . import add_rules_options, load_rules, rules_template

# The options, each named after its spec in vicsek.GENERAL_SPECS.
_OPTIONS = ("n", "box", "radius", "speed", "eta", "align", "warmup", "measure", "seed")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "vicsek",
        help="run the general Vicsek model and report the order parameter",
        description=(
            "Run the general Vicsek form: N agents in a periodic square, neighbourhood of radius R "
            "including self, heading = old + a*wrap(circular mean - old) + kick with kick uniform in "
            "[-eta/2, eta/2), then a step of length V along the new heading. Prints mean and std of "
            "P = |mean of e^(i theta)| over the measured updates."
        ),
    )
    specs = {s.name: s for s in vicsek.GENERAL_SPECS}
    for name in _OPTIONS:
        s = specs[name]
        unit = f" {s.unit}" if s.unit else ""
        p.add_argument(
            f"--{name}", dest=name, default=None, metavar=name.upper(),
            help=f"{s.help} (range {_fmt(s.min)}..{_fmt(s.max)}{unit}; default {_fmt(s.default)})",
        )
    add_rules_options(p, rules_vicsek.KIND, "turn(i, j, d, r, theta, a, kick)", "vicsek")
    p.add_argument("--json", action="store_true", help='print {"order_mean": ..., "order_std": ...} as JSON')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if rules_template(args, rules_vicsek.KIND, "vicsek"):
        return 0
    values = {name: getattr(args, name) for name in _OPTIONS}
    params, opts = vicsek.general_params(**values)  # ValueError -> exit code 2 in swarmlab.cli
    rule = load_rules(args, rules_vicsek.KIND)
    total = opts["warmup"] + opts["measure"]
    try:
        result = vicsek.run_general(params, opts["seed"], opts["warmup"], opts["measure"], turn=rule)
    except rules.RuleError as exc:
        if exc.update <= 1:
            raise  # broken from its first update: a plain error (exit 2)
        print(f"python -m swarmlab: error: the run stopped at update {exc.update} of {total} "
              f"(nothing was measured): {error_text(exc)}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"Vicsek: N={params.n}, L={params.box:g}, R={params.radius:g}, V={params.speed:g}, "
            f"eta={params.eta:g}, a={params.align:g}, seed={opts['seed']}; "
            f"{opts['warmup']} warm-up updates, {opts['measure']} measured"
        )
        print(f"order parameter P: mean {result['order_mean']:.4f}, std {result['order_std']:.4f}")
    return 0
