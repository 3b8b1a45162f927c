#!/usr/bin/env python3
"""The engine as one archive for the built site and the single file.

``pyscript.toml`` (development, ``make run``) lists each engine module under ``[files]``, so
an edited ``.py`` shows up on reload.  The builds (``make dist``, ``make offline``) replace that
table with one zip, unpacked by PyScript into the same place (``"<zip>" = "./*"``):

* one request instead of one per module;
* the ``.py`` sources, so tracebacks in the error panel show the engine's source lines;
* next to each, ``__pycache__/<module>.cpython-312.pyc`` compiled by CPython 3.12 (the
  Python of Pyodide 0.27.7) in *checked-hash* mode: Python uses it only while its source
  hash matches the ``.py`` beside it, so it can never run stale code, and the browser
  skips compiling the engine at start.  Its functions carry no docstrings (the runtime's
  rule, ``compile_runtime.without_docstrings``; the ``.py`` beside it keeps them, for the
  rules panel's source and for tracebacks).  Without a Python 3.12 (see tools/vendor.py) the
  archive holds the sources only.

The archive is reproducible (sorted members, fixed time stamps: tools/compile_runtime.py).

    python3 tools/engine_archive.py OUT.zip      # the engine modules of pyscript.toml
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from compile_runtime import without_docstrings, write_zip  # noqa: E402

PYC_PYTHON = (3, 12)
CACHE_TAG = "cpython-312"


def members(files: dict[str, str], root: Path, with_pyc: bool) -> dict[str, bytes]:
    """{archive path: bytes} for a [files] table {"./app/x/y.py": "./x/y.py"}."""
    out: dict[str, bytes] = {}
    for src, dst in files.items():
        rel = PurePosixPath(dst.removeprefix("./")).as_posix()
        data = (root / src.removeprefix("./")).read_bytes()
        out[rel] = data
        if with_pyc and rel.endswith(".py"):
            p = PurePosixPath(rel)
            code = without_docstrings(compile(data, rel, "exec", dont_inherit=True, optimize=0))
            pyc = importlib._bootstrap_external._code_to_hash_pyc(  # noqa: SLF001 (what py_compile uses)
                code, importlib.util.source_hash(data), checked=True)
            out[str(p.parent / "__pycache__" / f"{p.stem}.{CACHE_TAG}.pyc")] = bytes(pyc)
    return out


def build(files: dict[str, str], out: Path, root: Path = ROOT, python: str | None = None) -> dict:
    """Write the archive.  The .pyc need CPython 3.12: this one, or ``python`` (the build venv's)."""
    if sys.version_info[:2] == PYC_PYTHON:
        write_zip(members(files, root, with_pyc=True), out)
        return {"pyc": True, "python": sys.version.split()[0]}
    if python:
        cmd = [python, str(Path(__file__).resolve()), str(out), "--root", str(root), "--files-json", json.dumps(files)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            return json.loads(r.stdout.strip().splitlines()[-1])
        print(f"engine_archive: {python} could not compile the engine ({r.stderr.strip()[-300:]}); sources only",
              file=sys.stderr)
    write_zip(members(files, root, with_pyc=False), out)
    return {"pyc": False, "python": None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write the engine archive (sources + Python 3.12 .pyc)")
    ap.add_argument("out")
    ap.add_argument("--root", default=str(ROOT))
    ap.add_argument("--files-json", help="the [files] table as JSON (default: pyscript.toml's)")
    args = ap.parse_args(argv)
    if args.files_json:
        files = json.loads(args.files_json)
    else:
        from build_dist import toml_loads

        files = toml_loads((Path(args.root) / "pyscript.toml").read_text())["files"]
    info = build(files, Path(args.out), Path(args.root))
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
