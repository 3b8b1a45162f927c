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
#: options that name a file a command reads (an output must never overwrite one)
INPUT_OPTIONS = ("rules",)


def check_not_an_input(args: argparse.Namespace, option: str, path: str) -> None:
    """Raise ValueError if the output ``path`` is a file the same command reads
    (``--csv my_rules.py --rules my_rules.py`` would replace the student's code)."""
    if path == "-" or not os.path.exists(path):
        return
    for name in INPUT_OPTIONS:
        src = getattr(args, name, None)
        if src and os.path.exists(src) and os.path.samefile(src, path):
            raise ValueError(f"--{option} {path} is the file given to --{name}; writing there would replace it. "
                             "Choose another file name; nothing was simulated")


def write_output(option: str, path: str, text: str) -> bool:
    """Write a finished run's output ``text`` to ``path`` (``-`` = standard output).

    The path was checked before the run (:func:`check_output_path`); if writing fails now
    (a full disk, a removed folder), the text goes to standard output instead, with a
    message on standard error, so the run is not lost.  Returns False in that case.
    """
    if path == "-":
        sys.stdout.write(text)
        return True
    try:
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        return True
    except OSError as exc:
        sys.stdout.write(text)
        print(f"python -m swarmlab: error: could not write {path} ({exc.strerror or exc}); "
              f"the {option.upper()} went to standard output instead", file=sys.stderr)
        return False


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


def error_text(exc: BaseException, rules_file: str | None = None) -> str:
    """What a command prints for an error: the message, named after the --rules file when a
    student's rule raised it (its line is the file's line), and for a rule stopped at its time
    limit, how to allow it more (a slow rule in a big batch run is not an endless loop)."""
    text = str(exc)
    if rules_file and hasattr(exc, "line") and rules_file not in text:
        text = f"{rules_file}: {text}"  # (a rule's error from the run; loading names the file itself)
    if getattr(exc, "kind", None) == "timeout":
        text += "; --time-limit S lets each call run longer (0: no limit)"
    return text


def stopped_early(path: str | None, text: str, t: float, exc: BaseException, rules_file: str | None = None) -> int:
    """A run that stopped before its end (a student's rule failed, or Ctrl-C): keep what it
    recorded.  Writes ``text`` (the samples so far) where ``--csv`` asked, says at what model
    time and why it stopped, and returns the exit status (130 for Ctrl-C, else 1)."""
    why = "interrupted (Ctrl-C)" if isinstance(exc, KeyboardInterrupt) else error_text(exc, rules_file)
    kept = ""
    if path:
        written = write_output("csv", path, text)
        kept = f"; they are in {path}" if written and path != "-" else "; they went to standard output"
    print(f"python -m swarmlab: error: the run stopped (its samples end at model time {t:g} s): {why}{kept}",
          file=sys.stderr)
    return 130 if isinstance(exc, KeyboardInterrupt) else 1


def main(argv: list[str] | None = None) -> int:
    allocator.keep_freed_memory()  # batch runs reuse their pages (see swarmlab.allocator)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        for option in OUTPUT_OPTIONS:
            value = getattr(args, option, None)
            if value is not None:
                check_output_path(option, value)
                check_not_an_input(args, option, value)
        return int(args.func(args) or 0)
    except ValueError as exc:  # bad --set values and the like
        parser.exit(2, f"{parser.prog}: error: {error_text(exc, getattr(args, 'rules', None))}\n")
    except KeyboardInterrupt:  # a command with nothing to keep (swarm and boids keep their samples)
        print(f"{parser.prog}: interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped (`| head`): end quietly, without a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (Python's docs on SIGPIPE)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
