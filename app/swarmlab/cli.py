"""Command line: ``python -m swarmlab <command> ...``.

Each command lives in ``swarmlab/commands/<name>.py`` and defines
``register(subparsers)``, which adds its parser and sets ``func``.
Bad options make argparse exit with code 2 and a clear message.  An output file
(``--csv FILE``, any command) is checked before anything is simulated, so a bad
path fails at once (exit 2) instead of after a long run that it would then lose.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from swarmlab import allocator

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


#: options that name a file a command writes at the end of its run
OUTPUT_OPTIONS = ("csv",)


def check_output_path(option: str, path: str) -> None:
    """Raise ValueError with a clear message unless ``path`` can be written.

    Probes by opening for append (never truncates an existing file); a file that
    did not exist before is removed again, so nothing is left behind.  ``-`` means
    standard output and is always fine.
    """
    if path == "-":
        return
    flag = f"--{option} {path}"
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"{flag}: that is a folder, not a file name; nothing was simulated")
    if not os.path.isdir(folder):
        raise ValueError(f"{flag}: the folder {folder} does not exist; nothing was simulated")
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise ValueError(f"{flag}: cannot write there ({exc.strerror or exc}); nothing was simulated") from None
    if not existed:
        try:
            os.remove(path)
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    allocator.keep_freed_memory()  # batch runs reuse their pages (see swarmlab.allocator)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        for option in OUTPUT_OPTIONS:
            value = getattr(args, option, None)
            if value is not None:
                check_output_path(option, value)
        return int(args.func(args) or 0)
    except ValueError as exc:  # bad --set values and the like
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
