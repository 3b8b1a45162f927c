#!/usr/bin/env python3
"""Build ``dist/site/``: the static site, ready to copy to any static host.

``make dist`` runs this after ``tools/vendor.py`` (the vendored runtime) and
``tools/pyfiles.py`` (the [files] table of pyscript.toml).

What goes in (and nothing else)
-------------------------------
* ``index.html``, ``pyscript.toml``, ``sw.js`` (the service worker, see below)
* the Python the browser loads: ``app/main.py`` plus exactly the files that
  pyscript.toml's ``[files]`` table lists (the CLI and tests stay out), packed into one
  archive ``app/engine.zip`` with their ``.pyc`` (tools/engine_archive.py); the site's
  pyscript.toml names that archive instead of the single files
* ``assets/css``, ``assets/js``, ``assets/img`` and ``assets/vendor`` (the vendored
  Pyodide + numpy wheel + PyScript dist; not ``assets/vendor/official``, the untouched
  official runtime that the benchmarks compare with)
* ``.nojekyll`` so that GitHub Pages' "deploy from a branch" route does not drop
  files whose names start with ``_`` (``__init__.py``)

Never: source maps, ``node_modules``, ``tests``, ``tools``, ``__pycache__``,
dotfiles.  The output folder is rebuilt from scratch each time; copying is
byte-for-byte, so the build is deterministic.

Offline after the first visit
-----------------------------
The site's copy of ``sw.js`` gets ``FILES`` (every file the page and its workers fetch,
with its sha256; PyScript's xterm and MicroPython chunks are left out)
and ``BUILD`` (a hash of all of that), and ``assets/js/sw-register.js`` gets the same
``BUILD``, which switches registration on.  Any change to any file gives a new BUILD, so
the browser installs a new worker with its own cache and the page offers a reload.

Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
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

TOP_FILES = ("index.html", "pyscript.toml", "sw.js")
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
EXCLUDED_PREFIXES = ("assets/vendor/official/",)
ENGINE_ARCHIVE = "app/engine.zip"  # the engine modules in one archive (tools/engine_archive.py)
# The service worker: its template, the register script, and what it does not cache
# (PyScript chunks the app never loads; files no page fetches).
SW = "sw.js"
SW_REGISTER = "assets/js/sw-register.js"
# PyScript's xterm (py-terminal) and MicroPython chunks load only when a page uses those
# features; everything else of PyScript may load, CodeMirror included: the rules editor of
# Labs 2 and 3 (assets/js/ui/rules.js) loads it, so an offline visit needs it too.  The
# runtime's manifest (assets/vendor/VENDORED.json, which boot.js checks the runtime files
# against) is in the copy: read from the network after a deploy, a new build's manifest met
# the old build's cached runtime, and every returning student was told the copy was damaged.
SW_SKIP = re.compile(r"^(?:\.nojekyll|sw\.js|"
                     r"assets/vendor/pyscript/(?:xterm|mpy|service-worker)[^/]*)$")
BUILD_CONST = re.compile(r'^const BUILD = (?:null|"[0-9a-f]*");$', re.M)
FILES_CONST = re.compile(r"^const FILES = \{.*?\};$", re.M | re.S)
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
    if rel.startswith(EXCLUDED_PREFIXES):
        return True
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


def _set_const(text: str, pattern: re.Pattern, line: str, where: str) -> str:
    new, n = pattern.subn(lambda m: line, text, count=1)
    if n != 1:
        raise BuildError(f"{where}: could not find the line {pattern.pattern!r} to fill in")
    return new


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def service_worker_files(out: Path) -> dict[str, str]:
    """Files of a built site that the service worker caches: {path: sha256}."""
    return {p.relative_to(out).as_posix(): _sha256(p) for p in sorted(out.rglob("*"))
            if p.is_file() and not SW_SKIP.match(p.relative_to(out).as_posix())}


def write_service_worker(out: Path, root: Path = ROOT) -> str:
    """Fill in ``out/sw.js`` and the BUILD of ``out/assets/js/sw-register.js`` from the files
    in ``out`` (run again after changing the folder: a new BUILD).  Returns BUILD."""
    reg = out / SW_REGISTER
    if not reg.is_file():
        raise BuildError(f"{SW_REGISTER} is missing from the site")
    reg.write_text(_set_const(reg.read_text(encoding="utf-8"), BUILD_CONST, "const BUILD = null;", SW_REGISTER),
                   encoding="utf-8")
    template = (root / SW).read_text(encoding="utf-8")
    files = service_worker_files(out)
    h = hashlib.sha256(template.encode("utf-8"))
    for rel, digest in files.items():
        h.update(f"{rel} {digest}\n".encode("utf-8"))
    build_id = h.hexdigest()[:20]
    reg.write_text(_set_const(reg.read_text(encoding="utf-8"), BUILD_CONST, f'const BUILD = "{build_id}";', SW_REGISTER),
                   encoding="utf-8")
    files[SW_REGISTER] = _sha256(reg)
    sw = _set_const(template, BUILD_CONST, f'const BUILD = "{build_id}";', SW)
    sw = _set_const(sw, FILES_CONST, "const FILES = " + json.dumps(files, indent=1, sort_keys=True) + ";", SW)
    (out / SW).write_text(sw, encoding="utf-8")
    return build_id


def build_python(root: Path = ROOT) -> str | None:
    """The build venv's CPython 3.12 (tools/vendor.py makes it), for the engine's .pyc."""
    for rel in (".venv-build/bin/python", ".venv-build/Scripts/python.exe"):
        if (root / rel).exists():
            return str(root / rel)
    return None


def packed_toml(toml_text: str) -> str:
    """pyscript.toml with its [files] table replaced by the engine archive."""
    head = re.split(r"^\[files\]\s*$", toml_text, maxsplit=1, flags=re.M)[0]
    head = re.sub(r"^# Generated by tools/pyfiles.py.*\n", "", head, flags=re.M).rstrip() + "\n\n"
    return (head + "# The built site loads the engine as one archive (tools/engine_archive.py):\n"
            "# its .py sources plus .pyc compiled by CPython 3.12.\n"
            f'[files]\n"./{ENGINE_ARCHIVE}" = "./*"\n')


PRELOAD = re.compile(r'^([ \t]*)<link rel="preload" href="[^"]+" as="fetch" crossorigin="anonymous">\n', re.M)


def preload_engine(page: str) -> str:
    """index.html with one more preload tag, for the engine archive, after the runtime's.

    The worker asks for the archive only once Python is up; preloaded, it downloads from
    t = 0 beside the runtime, and the worker's request finds it in the HTTP cache."""
    tags = list(PRELOAD.finditer(page))
    if not tags:
        raise BuildError('index.html has no <link rel="preload" ... as="fetch" crossorigin="anonymous"> tags '
                         "to add the engine archive to")
    last = tags[-1]
    tag = f'{last.group(1)}<link rel="preload" href="{ENGINE_ARCHIVE}" as="fetch" crossorigin="anonymous">\n'
    return page[:last.end()] + tag + page[last.end():]


def write_engine(root: Path, dest: Path) -> dict:
    """The engine archive of pyscript.toml's [files] table, written to ``dest``."""
    import engine_archive  # noqa: PLC0415 (tools/ is this script's folder)

    table = toml_loads((root / "pyscript.toml").read_text()).get("files", {})
    dest.parent.mkdir(parents=True, exist_ok=True)
    return engine_archive.build(table, dest, root, python=build_python(root))


def build(root: Path = ROOT, out: Path = OUT) -> tuple[int, int]:
    """Build the site in ``out``; returns (number of files, bytes) of what was written."""
    files = site_files(root)
    check(root, files)
    engine = set(python_files((root / "pyscript.toml").read_text())) - {"app/main.py"}
    if out.exists():
        shutil.rmtree(out)
    for rel in files:
        if rel in engine:
            continue  # in the archive
        dst = out / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, dst)
    info = write_engine(root, out / ENGINE_ARCHIVE)
    if not info["pyc"]:
        print("build_dist: note: no Python 3.12 build venv (tools/vendor.py), so the engine archive holds "
              "sources only and the browser compiles them at start", file=sys.stderr)
    (out / "pyscript.toml").write_text(packed_toml((root / "pyscript.toml").read_text()))
    (out / "index.html").write_text(preload_engine((root / "index.html").read_text(encoding="utf-8")), encoding="utf-8")
    write_service_worker(out, root)
    written = [p for p in out.rglob("*") if p.is_file()]
    (out / ".nojekyll").write_bytes(b"")
    return len(written), sum(p.stat().st_size for p in written)


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
