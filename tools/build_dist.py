#!/usr/bin/env python3
"""Build ``dist/site/``: the static site, ready to copy to any static host.

``make dist`` runs this after ``tools/vendor.py`` (the vendored runtime) and
``tools/pyfiles.py`` (the [files] table of pyscript.toml).

What goes in (and nothing else)
-------------------------------
* ``index.html``, ``pyscript.toml``
* the Python the browser loads: ``app/main.py`` plus exactly the files that
  pyscript.toml's ``[files]`` table lists (the CLI and tests stay out)
* ``assets/css``, ``assets/js``, ``assets/img`` and ``assets/vendor`` (the vendored
  Pyodide + numpy wheel + PyScript dist)
* ``.nojekyll`` so that GitHub Pages' "deploy from a branch" route does not drop
  files whose names start with ``_`` (``__init__.py``)

Never: source maps, ``node_modules``, ``tests``, ``tools``, ``__pycache__``,
dotfiles.  The output folder is rebuilt from scratch each time; copying is
byte-for-byte, so the build is deterministic.

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path, PurePosixPath

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: see toml_loads
    tomllib = None

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "dist" / "site"

TOP_FILES = ("index.html", "pyscript.toml")
ASSET_DIRS = ("assets/css", "assets/js", "assets/img", "assets/vendor")
# Files needed by the vendored runtime at run time; a dist without them cannot boot.
REQUIRED_VENDOR = (
    "assets/vendor/pyscript/core.js",
    "assets/vendor/pyodide/pyodide.mjs",
    "assets/vendor/pyodide/pyodide.asm.js",
    "assets/vendor/pyodide/pyodide.asm.wasm",
    "assets/vendor/pyodide/python_stdlib.zip",
    "assets/vendor/pyodide/pyodide-lock.json",
)
EXCLUDED_PARTS = {"node_modules", "tests", "tools", "__pycache__"}
EXCLUDED_SUFFIXES = (".map", ".pyc", ".orig", ".rej", ".swp")


class BuildError(SystemExit):
    def __init__(self, message: str):
        super().__init__(f"build_dist: ERROR: {message}")


def _split_key_value(line: str) -> tuple[str, str]:
    """Split ``key = value`` at the first '=' outside double quotes."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "=" and not quoted:
            return line[:i].strip(), line[i + 1:].strip()
    raise ValueError(f"not a key = value line: {line!r}")


def toml_loads(text: str, *, force_fallback: bool = False) -> dict:
    """Parse pyscript.toml: tomllib (Python 3.11+), else a small reader for the subset
    pyscript.toml uses (comments, [table] headers, quoted or bare keys, values that are
    JSON literals: strings, arrays of strings, numbers, true/false)."""
    if tomllib is not None and not force_fallback:
        return tomllib.loads(text)
    out: dict = {}
    table = out
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]") and not line.startswith("[["):
            table = out.setdefault(line[1:-1].strip(), {})
            continue
        try:
            key, value = _split_key_value(line)
            key = json.loads(key) if key.startswith('"') else key
            table[key] = json.loads(value)
        except ValueError as exc:
            raise BuildError(f"pyscript.toml line {n} is beyond this Python's TOML reader "
                             f"(use Python 3.11+): {raw!r} ({exc})") from None
    return out


def excluded(rel: str) -> bool:
    """True for paths that never belong on the public site (maps, tests, tools, dotfiles...)."""
    parts = PurePosixPath(rel).parts
    if any(p in EXCLUDED_PARTS for p in parts):
        return True
    if any(p.startswith(".") for p in parts):
        return True
    return rel.endswith(EXCLUDED_SUFFIXES) or rel.endswith("~")


def python_files(toml_text: str) -> list[str]:
    """app/main.py plus the [files] sources of pyscript.toml, as repo-relative paths."""
    config = toml_loads(toml_text)
    out = ["app/main.py"]
    for src in config.get("files", {}):
        rel = PurePosixPath(src.removeprefix("./")).as_posix()
        if rel.startswith("../") or "://" in src:
            raise BuildError(f"pyscript.toml [files] entry {src!r} points outside the site")
        out.append(rel)
    return sorted(set(out))


def site_files(root: Path = ROOT) -> list[str]:
    """Every repo-relative path that goes into the site, sorted."""
    files = set(TOP_FILES)
    files.update(python_files((root / "pyscript.toml").read_text()))
    for d in ASSET_DIRS:
        base = root / d
        if not base.is_dir():
            continue
        for p in base.rglob("*"):
            if p.is_file():
                files.add(p.relative_to(root).as_posix())
    return sorted(f for f in files if not excluded(f))


def local_refs(html: str) -> list[str]:
    """Local files that index.html refers to by src= or href= (query links and URLs skipped)."""
    refs = []
    for m in re.finditer(r'\b(?:src|href|config)\s*=\s*"([^"]+)"', html):
        v = m.group(1)
        if v.startswith(("?", "#", "http:", "https:", "data:", "mailto:", "//")):
            continue
        refs.append(PurePosixPath(v.removeprefix("./")).as_posix())
    return refs


def check(root: Path, files: list[str]) -> None:
    missing = [f for f in REQUIRED_VENDOR if not (root / f).is_file()]
    if missing:
        raise BuildError(f"the vendored runtime is missing ({', '.join(missing)}): run `make vendor` first")
    absent = [f for f in files if not (root / f).is_file()]
    if absent:
        raise BuildError(f"files listed for the site do not exist: {', '.join(absent)} (run tools/pyfiles.py?)")
    listed = set(files)
    dangling = [r for r in local_refs((root / "index.html").read_text()) if r not in listed]
    if dangling:
        raise BuildError(f"index.html refers to files that are not in the site: {', '.join(dangling)}")


def build(root: Path = ROOT, out: Path = OUT) -> tuple[int, int]:
    files = site_files(root)
    check(root, files)
    if out.exists():
        shutil.rmtree(out)
    total = 0
    for rel in files:
        dst = out / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, dst)
        total += dst.stat().st_size
    (out / ".nojekyll").write_bytes(b"")
    return len(files), total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build dist/site, the static site for any host.")
    ap.add_argument("--out", default=str(OUT), help="output folder (default: dist/site)")
    ap.add_argument("--list", action="store_true", help="only print the files that would be copied")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(site_files(ROOT)))
        return 0
    out = Path(args.out)
    n, size = build(ROOT, out)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"build_dist: wrote {n} files, {size / 1e6:.1f} MB, to {shown}/ "
          f"(copy that folder to any static host; GitHub Pages: .github/workflows/pages.yml)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
