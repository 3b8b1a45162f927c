#!/usr/bin/env python3
"""Py-compile the verified Pyodide runtime with pyodide-build, trimmed and reproducible.

``tools/vendor.py`` runs this under the build interpreter (CPython 3.12, the Python of
Pyodide 0.27.7, in ``.venv-build`` with a pinned pyodide-build) after it has verified the
official files.  Standard library only, apart from the ``pyodide py-compile`` command.

Input: a folder with the *official* ``python_stdlib.zip``, the numpy wheel and
``pyodide-lock.json`` (hashes already checked).  Output: the same three files, where

1. **the stdlib holds only what can be imported**: the static import closure
   (``modulefinder``) of everything that runs in the page: ``app/*.py`` and the browser
   engine modules, PyScript's own Python modules (embedded in its JS chunks), the module
   names in Python snippets inside PyScript's JS, Pyodide's ``pyodide``/``_pyodide``
   packages, the numpy modules we ship, and a few modules that compiled extensions import
   (``ALWAYS``).  Developer and OS-only packages that cannot run in a browser page are not
   followed (``NOT_FOLLOWED``).
2. **numpy drops what no page can reach**: headers, static libraries, type stubs, f2py
   and numpy.testing (``NUMPY_DROPPED``).  numpy.fft, numpy.ma and numpy.polynomial stay
   (about 0.3 MB on the wire): the engine does not use them, but a student's rule may, and a
   rule that runs in Python on a computer should run in the page too.  ``import numpy``,
   everything the engine calls and those submodules work: tests/unit/test_runtime.py runs
   every lab and a call of each on this runtime.
3. **``pyodide py-compile``** (pyodide-build) turns every ``.py`` into ``.pyc`` inside both
   archives and rewrites the lock (names, sha256), with ``SOURCE_DATE_EPOCH`` set so that
   the ``.pyc`` headers carry a source hash, not the build time.
4. **Functions lose their docstrings** (``without_docstrings``): the ``.pyc`` of the stdlib and
   numpy keep everything else, but a function's docstring (the first constant of its code,
   which no instruction reads) becomes None, as ``python -OO`` would leave it (asserts, module
   and class docstrings stay).  About 0.5 MB less on the wire.  Kept where code reads
   docstrings at run time: Pyodide's own packages (``_pyodide.docstring`` builds the JS
   proxies' help from them at start-up) and numpy's ``_core/multiarray`` (its dispatchers
   hand their docstrings to ``add_docstring``, which refuses None).  ``help(np.mean)`` in the
   browser has no text; nothing the page runs reads one (the browser tests run every lab).
5. **Both archives are rewritten reproducibly**: members sorted by name, fixed time stamps
   (1980-01-01) and permissions, one compression level; the wheel's RECORD lists the real
   files.  The lock keeps ``info`` and the packages shipped, with their new sha256.  Two
   builds from the same inputs give identical bytes (a unit test checks it).

Tracebacks: stdlib and numpy frames show module and line (no source line: only .pyc is
shipped); the engine stays ``.py`` (see tools/pyfiles.py), so its frames show the source.

Run by hand::

    .venv-build/bin/python tools/compile_runtime.py --official DIR --out DIR
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import dis
import io
import json
import marshal
import modulefinder
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import zipfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
STDLIB = "python_stdlib.zip"
LOCK = "pyodide-lock.json"
PACKAGES = ("numpy",)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01, the earliest zip time stamp
LEVEL = 9

# Never followed: they cannot run in a browser page or are developer tools.  A kept
# module that imports one of them at top level would fail loudly in the browser tests.
NOT_FOLLOWED = (
    "unittest", "doctest", "pdb", "bdb", "pydoc", "pydoc_data", "multiprocessing", "xmlrpc",
    "http.server", "socketserver", "webbrowser", "tty", "pty", "idlelib", "tkinter", "turtle",
    "turtledemo", "ensurepip", "venv", "lib2to3", "distutils", "test", "curses", "dbm",
    "sqlite3", "wsgiref", "cgi", "cgitb", "smtplib", "imaplib", "poplib", "ftplib", "nntplib",
    "telnetlib", "mailbox", "mailcap", "msilib", "winreg", "_winapi", "asyncio.windows_events",
    "asyncio.windows_utils", "concurrent.futures.process", "_pydecimal", "pyodide.console",
    "rlcompleter", "code", "codeop",
    # never in the browser (third-party, optional imports of numpy and friends)
    "pytest", "hypothesis", "setuptools", "pip", "IPython", "psutil", "scipy", "cffi", "numba",
    "threadpoolctl", "pickle5", "matplotlib", "pandas",
)
# Imported by compiled extensions (invisible to modulefinder) or by Python's start-up.
ALWAYS = (
    "site", "encodings", "encodings.aliases", "encodings.utf_8", "encodings.utf_8_sig",
    "encodings.ascii", "encodings.latin_1", "encodings.cp437", "encodings.charmap",
    "encodings.unicode_escape", "encodings.raw_unicode_escape", "encodings.utf_16",
    "encodings.utf_32", "encodings.idna", "encodings.punycode",
    "secrets", "hmac", "pkgutil", "linecache", "tokenize", "traceback", "zipimport",
    "_sysconfigdata__emscripten_wasm32-emscripten",
)
NUMPY_DROPPED_PACKAGES = ("numpy/f2py/", "numpy/testing/", "numpy/_pyinstaller/", "numpy/doc/", "numpy/_core/include/", "numpy/_core/lib/",
                          "numpy/random/lib/", "numpy/random/_examples/")
NUMPY_DROPPED_SUFFIXES = (".pyi", ".pxd", ".h", ".c", ".a", ".pc", "py.typed")
NUMPY_DROPPED = NUMPY_DROPPED_PACKAGES + NUMPY_DROPPED_SUFFIXES


class CompileError(SystemExit):
    def __init__(self, message: str):
        super().__init__(f"compile_runtime: ERROR: {message}")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256(path: Path) -> str:
    return sha256_bytes(path.read_bytes())


# --- which stdlib modules the page can import --------------------------------------------------
PY_IN_JS = re.compile(r'"([\w/]+\.py)":"((?:[^"\\]|\\.)*)"')
IMPORT_IN_JS = re.compile(r"(?:\bfrom\s+([A-Za-z_][\w.]*)\s+import\b|\bimport\s+([A-Za-z_][\w.]*))")


def pyscript_python(pyscript_dir: Path) -> tuple[dict[str, str], set[str]]:
    """PyScript's Python modules ({file name: source}, embedded as JS strings in its chunks),
    and module names that Python snippets elsewhere in its JS import."""
    files: dict[str, str] = {}
    names: set[str] = set()
    for p in sorted(pyscript_dir.glob("*.js")):
        text = p.read_text(encoding="utf-8")
        for m in PY_IN_JS.finditer(text):
            try:
                files[m.group(1)] = json.loads(f'"{m.group(2)}"')
            except json.JSONDecodeError:
                continue
        for m in IMPORT_IN_JS.finditer(text):
            names.add(m.group(1) or m.group(2))
    return files, names


def module_name(rel: str) -> str:
    """'json/decoder.py' -> 'json.decoder'; 'json/__init__.py' -> 'json'."""
    stem = rel.rsplit(".", 1)[0].replace("/", ".")
    return stem[: -len(".__init__")] if stem.endswith(".__init__") else stem


def followed(name: str) -> bool:
    return not any(name == x or name.startswith(x + ".") for x in NOT_FOLLOWED)


def numpy_keeps(name: str) -> bool:
    if name.endswith("/"):
        return False
    if name.startswith("numpy/") and (name.startswith(NUMPY_DROPPED_PACKAGES) or name.endswith(NUMPY_DROPPED_SUFFIXES)):
        return False
    return "/tests/" not in name


def stdlib_closure(stdlib_dir: Path, numpy_dir: Path, app_dir: Path, pyscript_dir: Path) -> set[str]:
    """Names of the stdlib modules that the page can import (see the module docstring)."""
    roots_dir = Path(tempfile.mkdtemp(prefix="swarmlab-roots-"))
    try:
        files, js_names = pyscript_python(pyscript_dir)
        (roots_dir / "pyscript").mkdir()
        for name, src in files.items():
            (roots_dir / "pyscript" / name).write_text(src, encoding="utf-8")
        sys.path.insert(0, str(ROOT / "tools"))
        import pyfiles  # the browser's engine modules, as pyscript.toml lists them

        excludes = list(NOT_FOLLOWED)
        mf = modulefinder.ModuleFinder(path=[str(roots_dir), str(app_dir), str(stdlib_dir), str(numpy_dir)],
                                       excludes=excludes)
        roots = ["pyscript" if n == "__init__.py" else "pyscript." + n[:-3] for n in sorted(files)]
        roots += ["swarmlab." + module_name(r) if r != "__init__.py" else "swarmlab" for r in pyfiles.browser_modules()]
        roots = [r.replace(".__init__", "") for r in roots]
        roots += [p.stem for p in sorted(app_dir.glob("*.py"))]
        roots += [module_name(p.relative_to(stdlib_dir).as_posix()) for pkg in ("pyodide", "_pyodide")
                  for p in sorted((stdlib_dir / pkg).rglob("*.py"))]
        roots += [module_name(p.relative_to(numpy_dir).as_posix()) for p in sorted((numpy_dir / "numpy").rglob("*.py"))
                  if numpy_keeps(p.relative_to(numpy_dir).as_posix())]
        roots += sorted(n for n in js_names if (stdlib_dir / n.split(".")[0]).exists()
                        or (stdlib_dir / (n.split(".")[0] + ".py")).exists())
        roots += list(ALWAYS)
        for name in roots:
            if not followed(name):
                continue
            try:
                mf.import_hook(name)
            except Exception:  # noqa: BLE001 - an optional module absent here is not an error
                pass
        base = str(stdlib_dir.resolve()) + os.sep
        keep = {name for name, mod in mf.modules.items()
                if mod.__file__ and str(Path(mod.__file__).resolve()).startswith(base)}
        # A kept submodule needs its parent packages.
        for name in list(keep):
            parts = name.split(".")
            keep.update(".".join(parts[:k]) for k in range(1, len(parts)))
        return keep
    finally:
        shutil.rmtree(roots_dir, ignore_errors=True)
        if str(ROOT / "tools") in sys.path:
            sys.path.remove(str(ROOT / "tools"))


def stdlib_keeps(name: str, modules: set[str]) -> bool:
    if name.endswith("/"):
        return False
    if name.endswith(".py"):
        return module_name(name) in modules
    # data files travel with their package (py.typed); others (README.txt, .bat) stay out
    parent = module_name(str(PurePosixPath(name).parent) + "/__init__.py")
    return name.endswith("py.typed") and parent in modules


# --- docstrings ----------------------------------------------------------------------------------
# Where code reads docstrings at run time (see the module's docstring, point 4): kept.
KEEP_DOCSTRINGS = ("pyodide/", "_pyodide/", "numpy/_core/multiarray.pyc")
_CO_OPTIMIZED = 0x1  # a function's code (not a module's or a class body's)
_HASCONST = frozenset(dis.hasconst)


def without_docstrings(code: types.CodeType) -> types.CodeType:
    """``code`` with every function's docstring replaced by None, recursively.

    CPython 3.11 and 3.12 put a function's docstring, or None, first in its constants; no
    instruction reads that slot (a lambda's is None; a comprehension's first constant may be a
    string it uses, which some instruction then loads, so it is kept).  Everything else,
    line numbers included, is untouched."""
    consts = list(code.co_consts)
    if code.co_flags & _CO_OPTIMIZED and consts and isinstance(consts[0], str) and not any(
            ins.opcode in _HASCONST and ins.arg == 0 for ins in dis.get_instructions(code)):
        consts[0] = None
    for k, c in enumerate(consts):
        if isinstance(c, types.CodeType):
            consts[k] = without_docstrings(c)
    return code.replace(co_consts=tuple(consts))


def pyc_without_docstrings(data: bytes) -> bytes:
    """A ``.pyc`` (16-byte header, then the marshalled module code) without function docstrings."""
    return data[:16] + marshal.dumps(without_docstrings(marshal.loads(data[16:])))


def without_member_docstrings(members: dict[str, bytes]) -> dict[str, bytes]:
    """An archive's members with its ``.pyc`` stripped of function docstrings (KEEP_DOCSTRINGS kept)."""
    return {name: pyc_without_docstrings(data) if name.endswith(".pyc") and not name.startswith(KEEP_DOCSTRINGS)
            else data for name, data in members.items()}


# --- reproducible archives -----------------------------------------------------------------------
def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def write_zip(members: dict[str, bytes], dst: Path, level: int = LEVEL) -> None:
    """A zip with members sorted by name, fixed time stamps, permissions and compression."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in sorted(members):
            zi = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3
            zi.external_attr = 0o644 << 16
            z.writestr(zi, members[name], compresslevel=level)
    dst.write_bytes(buf.getvalue())


def read_zip(path: Path, keep=lambda name: True) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist() if not i.is_dir() and keep(i.filename)}


def with_record(members: dict[str, bytes]) -> dict[str, bytes]:
    """Rewrite the wheel's ``*.dist-info/RECORD`` for the files it now holds."""
    records = [n for n in members if n.endswith(".dist-info/RECORD")]
    if len(records) != 1:
        raise CompileError(f"expected one .dist-info/RECORD in the wheel, found {records}")
    rec = records[0]
    lines = [f"{n},{record_hash(d)},{len(d)}" for n, d in sorted(members.items()) if n != rec]
    out = dict(members)
    out[rec] = ("\n".join(lines + [f"{rec},,"]) + "\n").encode("utf-8")
    return out


def normalise(path: Path, wheel: bool, strip_docs: bool = False) -> None:
    """Rewrite the archive reproducibly (and, with ``strip_docs``, its .pyc without docstrings)."""
    members = read_zip(path)
    if strip_docs:
        members = without_member_docstrings(members)
    write_zip(with_record(members) if wheel else members, path)


# --- the build ------------------------------------------------------------------------------------
def pyodide_cli() -> str:
    here = Path(sys.executable).parent / "pyodide"
    if here.exists():
        return str(here)
    found = shutil.which("pyodide")
    if not found:
        raise CompileError("the `pyodide` command (pyodide-build) is not installed for this Python")
    return found


def py_compile(work: Path, cli: str) -> None:
    env = dict(os.environ, SOURCE_DATE_EPOCH=SOURCE_DATE_EPOCH, PYTHONHASHSEED="0")
    cmd = [cli, "py-compile", "--silent", "--compression-level", str(LEVEL), str(work)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise CompileError(f"`pyodide py-compile` failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")


def build(official: Path, out: Path, app_dir: Path = ROOT / "app",
          pyscript_dir: Path = ROOT / "node_modules" / "@pyscript" / "core" / "dist", cli: str | None = None) -> dict:
    if sys.version_info[:2] != (3, 12):
        raise CompileError(f"needs CPython 3.12 (the Python of Pyodide 0.27.7), this is {sys.version.split()[0]}")
    lock = json.loads((official / LOCK).read_text())
    wheels = {p: lock["packages"][p]["file_name"] for p in PACKAGES}
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="swarmlab-compile-") as t:
        tmp = Path(t)
        std_dir, np_dir, work = tmp / "stdlib", tmp / "numpy", tmp / "work"
        for d in (std_dir, np_dir, work):
            d.mkdir()
        with zipfile.ZipFile(official / STDLIB) as z:
            z.extractall(std_dir)
        with zipfile.ZipFile(official / wheels["numpy"]) as z:
            z.extractall(np_dir)
        modules = stdlib_closure(std_dir, np_dir, app_dir, pyscript_dir)
        std_members = read_zip(official / STDLIB, lambda n: stdlib_keeps(n, modules))
        np_members = read_zip(official / wheels["numpy"], numpy_keeps)
        write_zip(std_members, work / STDLIB)
        write_zip(with_record(np_members), work / wheels["numpy"])
        small = {"info": lock["info"], "packages": {p: lock["packages"][p] for p in PACKAGES}}
        (work / LOCK).write_text(json.dumps(small))
        py_compile(work, cli or pyodide_cli())
        new_lock = json.loads((work / LOCK).read_text())
        for f in out.iterdir():
            if f.is_file():
                f.unlink()
        names = [STDLIB] + [new_lock["packages"][p]["file_name"] for p in PACKAGES]
        for name in names:
            if not (work / name).exists():
                raise CompileError(f"py-compile did not produce {name}")
            normalise(work / name, wheel=name.endswith(".whl"), strip_docs=True)
            shutil.copyfile(work / name, out / name)
        for p in PACKAGES:
            new_lock["packages"][p]["sha256"] = sha256(out / new_lock["packages"][p]["file_name"])
        (out / LOCK).write_text(json.dumps(new_lock))
    pyc = sum(1 for n in read_zip(out / STDLIB) if n.endswith(".pyc"))
    official_std = zipfile.ZipFile(official / STDLIB).namelist()
    return {
        "python": sys.version.split()[0],
        "stdlib_modules": pyc,
        "stdlib_modules_official": sum(1 for n in official_std if n.endswith(".py")),
        "bytes": {n: (out / n).stat().st_size for n in names + [LOCK]},
        "bytes_official": {n: (official / o).stat().st_size for n, o in zip(names + [LOCK], [STDLIB] + list(wheels.values()) + [LOCK])},
        "files": {n: sha256(out / n) for n in names + [LOCK]},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="py-compile, trim and normalise the verified Pyodide runtime")
    ap.add_argument("--official", required=True, help="folder with the verified official files")
    ap.add_argument("--out", required=True, help="output folder (its files are replaced)")
    ap.add_argument("--app", default=str(ROOT / "app"))
    ap.add_argument("--pyscript", default=str(ROOT / "node_modules" / "@pyscript" / "core" / "dist"))
    ap.add_argument("--report", help="write the build report as JSON here")
    args = ap.parse_args(argv)
    info = build(Path(args.official), Path(args.out), Path(args.app), Path(args.pyscript))
    text = json.dumps(info, indent=1, sort_keys=True)
    if args.report:
        Path(args.report).write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
