#!/usr/bin/env python3
"""Keep the ``[files]`` table of pyscript.toml in step with ``app/swarmlab``.

The browser needs every engine module, and nothing else: the CLI (``cli.py``,
``__main__.py``, ``commands/``) is for CPython only.  Run without arguments to
rewrite the table; ``--check`` exits 1 when it is out of date (a unit test runs that).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOML = ROOT / "pyscript.toml"
PKG = ROOT / "app" / "swarmlab"
BROWSER_EXCLUDE = ("cli.py", "__main__.py", "commands/")


def browser_modules() -> list[str]:
    out = []
    for p in sorted(PKG.rglob("*.py")):
        rel = p.relative_to(PKG).as_posix()
        if any(rel == e or rel.startswith(e) for e in BROWSER_EXCLUDE):
            continue
        out.append(rel)
    return out


def files_table() -> str:
    lines = ["[files]"]
    for rel in browser_modules():
        lines.append(f'"./app/swarmlab/{rel}" = "./swarmlab/{rel}"')
    return "\n".join(lines) + "\n"


def render(current: str) -> str:
    head = re.split(r"^\[files\]\s*$", current, maxsplit=1, flags=re.M)[0].rstrip() + "\n\n"
    return head + files_table()


def main(argv: list[str]) -> int:
    current = TOML.read_text()
    wanted = render(current)
    if "--check" in argv:
        if current != wanted:
            print("pyscript.toml [files] is out of date: run `python3 tools/pyfiles.py`", file=sys.stderr)
            return 1
        return 0
    if current != wanted:
        TOML.write_text(wanted)
        print(f"pyfiles: pyscript.toml lists {len(browser_modules())} engine modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
