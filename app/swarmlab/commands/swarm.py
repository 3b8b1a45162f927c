"""``python -m swarmlab swarm``: run Lab 1 ("Swarm Lab") headless.

Runs the same session the browser drives (same steps, same metric sampling
every 0.25 model s), writes the metric history as CSV (units in the header,
setting changes as event rows) and prints a one-line summary.  The browser's
five-minute pause is an interactive feature; headless runs go on to
``--seconds``.
"""

from __future__ import annotations

import argparse
import math
import sys

from .. import swarm
from ..params import defaults, validate, validate_many
from ..sessions.swarm import MAX_STEPS_PER_CALL, SwarmSession

MAX_SECONDS = 3600.0


def _param_table() -> str:
    lines = ["parameters for --set NAME=VALUE (default; range or choices; unit):"]
    for s in swarm.SPECS:
        if s.kind == "choice":
            rng = "|".join(s.choices)
        elif s.kind == "bool":
            rng = "on|off"
        elif s.kind == "int":
            rng = f"{int(s.min)}..{int(s.max)}"
        else:
            rng = f"{s.min:g}..{s.max:g}"
        default = ("on" if s.default else "off") if s.kind == "bool" else s.default
        unit = f" {s.unit}" if s.unit else ""
        lines.append(f"  {s.name:<11} {s.label}: default {default}; {rng}{unit}")
    lines.append("")
    lines.append("--sample overrides --set sample=...; --set values override the --trial settings.")
    lines.append("trials for --trial: " + ", ".join(t.id for t in swarm.TRIALS))
    lines.append("")
    lines.append("example: python -m swarmlab swarm --sample 7 --seconds 120 --set alignment=off --csv run.csv")
    return "\n".join(lines)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "swarm",
        help="run Lab 1 (Swarm Lab) headless and write its metric history",
        description="Run Lab 1 (local rules, no leader) without a browser. The run is a pure function of the "
                    "sample number and the settings, exactly as in the page.",
        epilog=_param_table(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--sample", type=int, default=swarm.SPEC_BY_NAME["sample"].default, metavar="S",
                   help="sample number: seeds the start and all noise (default %(default)s)")
    p.add_argument("--seconds", type=float, default=60.0, metavar="T",
                   help=f"model seconds to run, 0 < T <= {MAX_SECONDS:g} (default %(default)s)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="settings",
                   help="set a parameter before the run (repeatable); see the list below")
    p.add_argument("--trial", default=None, metavar="ID",
                   help="start from a trial's settings (before --set): " + ", ".join(t.id for t in swarm.TRIALS))
    p.add_argument("--csv", default=None, metavar="FILE",
                   help="write the metric history CSV to FILE ('-' for standard output)")
    p.set_defaults(func=run)


def parse_settings(items: list[str]) -> dict:
    """["name=value", ...] -> validated dict (ValueError naming the bad item)."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--set expects NAME=VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return validate_many(swarm.SPECS, out)


def run(args: argparse.Namespace) -> int:
    seconds = args.seconds
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"--seconds must be in (0, {MAX_SECONDS:g}], got {seconds!r}")
    values = defaults(swarm.SPECS)
    if args.trial is not None:
        values.update(swarm.trial(args.trial).settings)
    values.update(parse_settings(args.settings))
    values["sample"] = validate(swarm.SPECS, "sample", args.sample)

    session = SwarmSession(**values)
    session.op_continue()  # headless: no five-minute pause
    target = int(round(seconds / swarm.DT))
    while session.state.step < target:
        session.op_step(min(MAX_STEPS_PER_CALL, target - session.state.step))

    m = session.op_metrics()
    csv_text = session.op_csv()
    where = ""
    if args.csv == "-":
        sys.stdout.write(csv_text)
    elif args.csv:
        try:  # the path was checked before the run (swarmlab.cli); if it fails now, keep the results
            with open(args.csv, "w", encoding="utf-8", newline="") as fh:
                fh.write(csv_text)
            where = f" -> {args.csv}"
        except OSError as exc:
            sys.stdout.write(csv_text)
            print(f"python -m swarmlab: error: could not write {args.csv} ({exc.strerror or exc}); "
                  f"the CSV went to standard output instead", file=sys.stderr)
            return 1

    def f(v):
        return "n/a" if v is None or not math.isfinite(v) else f"{v:.3f}"

    print(f"swarm sample {values['sample']}: {session.state.t:g} s ({session.state.step} steps), N={session.state.n}: "
          f"P={f(m['P'])} local={f(m['local'])} spacing={f(m['spacing'])} very-close={f(m['very_close'])} "
          f"rotation={f(m['milling'])}; {len(session.history)} samples{where}",
          file=sys.stderr if args.csv == "-" else sys.stdout)
    return 0
