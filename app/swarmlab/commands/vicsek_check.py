"""``python -m swarmlab vicsek-check``: the eight-seed check of Lab 2.

For each seed (3, 17, 41, 73, 101, 211, 307, 499) the teaching model runs with
a = 0 and with a = 1 from the same start and with the same kicks; after 1,000
warm-up updates P is averaged over the next 500.  Prints the table with three
decimals, or with ``--json`` the exact numbers (repr precision, so runs can be
compared bit for bit with the browser):

    {"seeds": [{"seed": 3, "a0": ..., "a1": ...}, ...8 rows],
     "mean": {"a0": ..., "a1": ...}, "range": {"a0": [min, max], "a1": [min, max]}}
"""

from __future__ import annotations

import argparse
import json

from .. import vicsek


_P = vicsek.TEACHING  # the check's model, as the page runs it
_COUNT = len(vicsek.CHECK_SEEDS)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "vicsek-check",
        help=f"{_COUNT}-seed check of the Vicsek lab (a = 0 vs a = 1)",
        description=(
            f"Run the {_COUNT}-seed check of Lab 2: {_P.n} agents, L = {_P.box:g}, R = {_P.radius:g} "
            f"(self included), step {_P.speed:g}, kicks {_P.kick:g}*U[-1,1]; for each seed "
            f"({', '.join(map(str, vicsek.CHECK_SEEDS))}) a = 0 and a = 1 share start and kicks; "
            f"{vicsek.CHECK_WARMUP} warm-up updates, then the mean shared heading P over the next "
            f"{vicsek.CHECK_MEASURE}."
        ),
    )
    p.add_argument("--json", action="store_true",
                   help="print the results as JSON with full (repr) float precision")
    p.add_argument("--one-at-a-time", action="store_true",
                   help=f"run the {2 * len(vicsek.CHECK_SEEDS)} runs one after another instead of batched "
                        "(same numbers; for benchmarks)")
    p.set_defaults(func=run)


def format_table(result: dict) -> str:
    shown = vicsek.check_shown(result)
    lines = [
        f"{_COUNT}-seed check (Vicsek lab): {_P.n} agents, L={_P.box:g}, R={_P.radius:g}, step {_P.speed:g}, "
        f"kick {_P.kick:g}*U[-1,1]",
        f"P averaged over updates {vicsek.CHECK_WARMUP + 1}-{vicsek.CHECK_WARMUP + vicsek.CHECK_MEASURE}",
        "",
        f"{'seed':>6}  {'P (a=0)':>9}  {'P (a=1)':>9}",
    ]
    for row in shown["seeds"]:
        lines.append(f"{row['seed']:>6}  {row['a0']:>9}  {row['a1']:>9}")
    m, r = shown["mean"], shown["range"]
    lines.append(f"{'mean':>6}  {m['a0']:>9}  {m['a1']:>9}")
    lines.append(f"{'range':>6}  {'-'.join(r['a0']):>9}  {'-'.join(r['a1']):>9}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    mode = "serial" if args.one_at_a_time else "batched"
    result = vicsek.run_check(mode)
    if args.json:
        print(json.dumps(result))  # json writes floats with repr: shortest round-trip digits
    else:
        print(format_table(result))
    return 0
