"""Command line: ``python -m swarmlab <command> ...``.

Each command lives in ``swarmlab/commands/<name>.py`` and defines
``register(subparsers)``, which adds its parser and sets ``func``.
Bad options make argparse exit with code 2 and a clear message.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = ("vicsek-check", "vicsek", "swarm", "boids")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m swarmlab",
        description="Swarm Lab engine: run the teaching models headless, in batch.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"swarmlab.commands.{name.replace('-', '_')}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:  # bad --set values and the like
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
