"""The ``python -m swarmlab`` commands (one module each; see ``swarmlab.cli``)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from .. import rules

MAX_SECONDS = 3600.0  # --seconds: the longest headless run


def run_steps(seconds: float, dt: float) -> int:
    """``--seconds`` as the nearest whole number of steps of ``dt`` (0.26 s at dt = 0.025 s:
    10 steps, 0.25 s, which the run's summary and CSV then show).  ValueError unless
    0 < seconds <= MAX_SECONDS and the run holds at least one whole step (0.009 s at
    dt = 1/60 s would otherwise round up to a step of 0.0167 s, nearly twice what was asked)."""
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise ValueError(f"--seconds must be in (0, {MAX_SECONDS:g}], got {seconds!r}")
    if seconds < dt * (1 - 1e-9):
        raise ValueError(f"--seconds {seconds:g} is shorter than one step ({dt:.4g} s)")
    return int(round(seconds / dt))


def one_sample(option: Any, from_set: Any) -> Any:
    """The sample number from ``--sample`` or ``--set sample=...`` (validated values, None =
    not given).  Both may be given only if they agree: a silent winner would run another
    sample than the one the user wrote down."""
    if option is not None and from_set is not None and option != from_set:
        raise ValueError(f"--sample {option} and --set sample={from_set} disagree; give the sample once")
    return option if option is not None else from_set


def param_table(specs, notes: list[str]) -> str:
    """The ``--help`` epilog listing every ``--set NAME=VALUE`` parameter from its spec
    (default; range or choices; unit), then ``notes`` (one line each)."""
    lines = ["parameters for --set NAME=VALUE (default; range or choices; unit):"]
    for s in specs:
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
    return "\n".join(lines + [""] + notes)


def parse_sets(items: list[str]) -> dict:
    """``--set`` items ``["name=value", ...]`` -> ``{name: value}`` as text (each lab's specs
    validate them); ValueError for an item that is not NAME=VALUE, or for a name given twice
    with different values (a silent winner would run other settings than the ones written)."""
    values = {}
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise ValueError(f"--set expects NAME=VALUE, got {item!r}")
        if name in values and values[name] != value:
            raise ValueError(f"--set {name}={values[name]} and --set {name}={value} disagree; give {name} once")
        values[name] = value
    return values


def add_rules_options(p, kind, signature: str, command: str) -> None:
    """``--rules FILE`` (run the student's rule in place of the built-in one) and
    ``--rules-template`` (print the built-in rule as a file to start from)."""
    p.add_argument("--rules", default=None, metavar="FILE",
                   help=f"a Python file defining {signature}, run in place of the built-in rule")
    p.add_argument("--rules-template", action="store_true",
                   help=f"print the built-in {kind.name}() as a rules file to edit, then stop: "
                        f"python -m swarmlab {command} --rules-template > {template_file(command)}")
    p.add_argument("--time-limit", type=_seconds_or_off, default=rules.TIME_LIMIT_S, metavar="S",
                   help=f"seconds one call of the --rules function may run before it is stopped as an endless "
                        f"loop (default {rules.TIME_LIMIT_S:g}, as on the page; 0 = no limit, and the rule "
                        f"runs untraced, faster if it loops in Python)")


def _seconds_or_off(text: str) -> float | None:
    """--time-limit: seconds above 0, or 0 for no limit (None)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects seconds (0 = no limit), got {text!r}") from None
    if value == 0:
        return None
    if not (0 < value < float("inf")):
        raise argparse.ArgumentTypeError(f"expects seconds above 0 (0 = no limit), got {text!r}")
    return value


def template_file(command: str) -> str:
    """The file name the help and the template suggest: one per lab, so following both
    labs' help does not overwrite one rules file with the other's."""
    return {"vicsek": "my_turn.py"}.get(command, "my_rules.py")


def load_rules(args, kind):
    """The --rules file as a Rule (None without --rules), under --time-limit."""
    if not args.rules:
        return None
    return rules.load_file(args.rules, kind, time_limit=args.time_limit)


def rules_template(args, kind, command: str) -> bool:
    """Print the template if ``--rules-template`` was given (then the command stops)."""
    if not args.rules_template:
        return False
    print(rules.template(kind, f"python -m swarmlab {command} --rules {template_file(command)}"), end="")
    return True
