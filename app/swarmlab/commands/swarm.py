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
from ..cli import stopped_early, write_output
from . import MAX_SECONDS, one_sample, param_table, parse_sets, run_steps
from ..params import defaults, validate, validate_many
from ..sessions.swarm import SwarmSession



def _param_table() -> str:
    return param_table(swarm.SPECS, [
        "--sample or --set sample=... (both only if they agree); --set may not contradict the --trial settings.",
        "trials for --trial: " + ", ".join(t.id for t in swarm.TRIALS),
        "",
        "example: python -m swarmlab swarm --sample 7 --seconds 120 --set alignment=off --csv run.csv"])


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "swarm",
        help="run Lab 1 (Swarm Lab) headless and write its metric history",
        description="Run Lab 1 (local rules, no leader) without a browser. The run is a pure function of the "
                    "sample number and the settings, exactly as in the page.",
        epilog=_param_table(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--sample", default=None, metavar="S",
                   help=f"sample number: seeds the start and all noise (default {swarm.SPEC_BY_NAME['sample'].default})")
    p.add_argument("--seconds", type=float, default=60.0, metavar="T",
                   help=f"model seconds to run, 0 < T <= {MAX_SECONDS:g} (default %(default)s)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="settings",
                   help="set a parameter before the run (repeatable); see the list below")
    p.add_argument("--trial", default=None, metavar="ID",
                   help="start from a trial's settings (--set adds others): " + ", ".join(t.id for t in swarm.TRIALS))
    p.add_argument("--csv", default=None, metavar="FILE",
                   help="write the metric history CSV to FILE ('-' for standard output)")
    p.set_defaults(func=run)


def parse_settings(items: list[str]) -> dict:
    """["name=value", ...] -> validated dict (ValueError naming the bad item)."""
    return validate_many(swarm.SPECS, parse_sets(items))


def _as_set(name: str, value) -> str:
    """A setting as ``--set`` writes it: a choice's value, on/off, or the number."""
    return swarm.SPEC_BY_NAME[name].plain(value)


def run(args: argparse.Namespace) -> int:
    target = run_steps(args.seconds, swarm.DT)
    settings = parse_settings(args.settings)
    if args.trial is None:
        values = defaults(swarm.SPECS)
        values.update(settings)
    else:  # as the page starts a trial (swarm.Trial.start_values), but a contradiction is an error
        tr = swarm.trial(args.trial)
        values, left_out = tr.start_values(settings)
        if left_out:
            clash = ", ".join(f"{k}={_as_set(k, v)}" for k, v in left_out.items())
            raise ValueError(f"the trial {tr.id!r} begins with {tr.settings_text}; --set {clash} contradicts it "
                             "(leave out --trial to run these settings)")
    sample = one_sample(None if args.sample is None else validate(swarm.SPECS, "sample", args.sample),
                        settings.get("sample"))
    if sample is not None:
        values["sample"] = sample

    session = SwarmSession(**values)
    session.op_continue()  # headless: no five-minute pause
    history = session.history
    history.reserve(target // history.base_interval + 2)  # every 0.25 s sample, never thinned
    try:
        while session.state.step < target:
            session.op_step(min(session.MAX_STEPS_PER_CALL, target - session.state.step))
    except KeyboardInterrupt as exc:
        return stopped_early(args.csv, session.op_csv(), history.times()[-1], exc, getattr(args, "rules", None))
    session.record_end()  # a run that ends between two samples: its last row is its end

    m = session.op_metrics()
    csv_text = session.op_csv()
    where = ""
    if args.csv:
        if not write_output("csv", args.csv, csv_text):
            return 1
        where = "" if args.csv == "-" else f" -> {args.csv}"

    def f(v):
        return "n/a" if v is None or not math.isfinite(v) else f"{v:.3f}"

    # the run's settings, as --set writes them (those that differ from the defaults), so a CSV's
    # summary line says what made it
    changed = [f"{s.name}={_as_set(s.name, values[s.name])}" for s in swarm.SPECS
               if s.name not in ("sample", "N") and values[s.name] != s.default]
    default_n = swarm.SPEC_BY_NAME["N"].default
    said = f" with {', '.join(changed)}" if changed else (" with the defaults" if values["N"] == default_n else "")
    if args.trial:
        said += f" (trial {args.trial})"
    if "k" in settings and values["mode"] != "nearest":
        print("python -m swarmlab: note: k (nearest few) applies only with --set mode=nearest; "
              "this run used the range R", file=sys.stderr)
    print(f"swarm sample {values['sample']}{said}: {session.state.t:g} s ({session.state.step} steps), N={session.state.n}: "
          f"P={f(m['P'])} local={f(m['local'])} spacing={f(m['spacing'])} very-close={f(m['very_close'])} "
          f"rotation={f(m['milling'])}; {len(session.history)} sample{'s' if len(session.history) != 1 else ''}{where}",
          file=sys.stderr if args.csv == "-" else sys.stdout)
    return 0
