#!/usr/bin/env python3
"""Build ``dist/pyodide-test/``: the Pyodide dist folder that pytest-pyodide tests run on.

What it holds
-------------
* the vendored runtime of ``assets/vendor/pyodide`` (Pyodide 0.27.7 from npm and the
  verified numpy 2.0.2 wheel; run ``make vendor`` / ``tools/vendor.py`` first), plus
  ``pyodide.js`` from the same npm package (pytest-pyodide's Node driver ``require``\\ s it;
  the app itself only needs ``pyodide.mjs``);
* pure-Python wheels from PyPI that ``@run_in_pyodide`` loads inside Pyodide: pytest and
  its dependencies (pluggy, iniconfig, packaging, pygments), tblib (tracebacks back to
  the host) and micropip 0.9.0, each pinned by version and sha256 (:data:`WHEELS`);
* ``pyodide-lock.json`` cut down to exactly these packages, with the PyPI wheels'
  file names and hashes, so that nothing is ever fetched from a CDN: a package that is
  not in the folder is not in the lock either.

The wheels are cached in ``$SWARMLAB_CACHE/pyodide-test`` (default
``~/.cache/swarmlab``); a second build needs no network.  The output is rebuilt only
when its manifest (``BUILT.json``) no longer matches the inputs.

Standard library only; pip runs as a subprocess (``pip download --require-hashes``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vendor  # noqa: E402  (the runtime cache and sha256, shared with make vendor)
from vendor import sha256  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# The official runtime as Pyodide ships it (tools/vendor.py keeps it in assets/vendor/official):
# pytest needs stdlib modules that the app's trimmed, py-compiled runtime leaves out.  That
# runtime itself is tested by tests/unit/test_runtime.py (every lab runs on it).
VENDOR = ROOT / "assets" / "vendor" / "official" / "pyodide"
if not VENDOR.exists():
    VENDOR = ROOT / "assets" / "vendor" / "pyodide"
NPM_PYODIDE = ROOT / "node_modules" / "pyodide"
OUT = ROOT / "dist" / "pyodide-test"

CORE_FILES = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
NUMPY_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"

#: lock name -> (PyPI requirement, wheel file, sha256, import names, lock dependencies)
WHEELS: dict[str, tuple[str, str, str, list[str], list[str]]] = {
    "pytest": ("pytest==8.4.2", "pytest-8.4.2-py3-none-any.whl",
               "872f880de3fc3a5bdc88a11b39c9710c3497a547cfa9320bc3c5e62fbf272e79",
               ["_pytest", "pytest", "py"], ["pluggy", "iniconfig", "packaging", "pygments"]),
    "pluggy": ("pluggy==1.6.0", "pluggy-1.6.0-py3-none-any.whl",
               "e920276dd6813095e9377c0bc5566d94c932c33b27a3e3945d8389c374dd4746", ["pluggy"], []),
    "iniconfig": ("iniconfig==2.1.0", "iniconfig-2.1.0-py3-none-any.whl",
                  "9deba5723312380e77435581c6bf4935c94cbfab9b1ed33ef8d238ea168eb760", ["iniconfig"], []),
    "packaging": ("packaging==24.2", "packaging-24.2-py3-none-any.whl",
                  "09abb1bccd265c01f4a3aa3f7a7db064b36514d2cba19a2f694fe6150451a759", ["packaging"], []),
    "pygments": ("pygments==2.19.2", "pygments-2.19.2-py3-none-any.whl",
                 "86540386c03d588bb81d44bc3928634ff26449851e99741617ecb9037ee5ec0b", ["pygments"], []),
    "tblib": ("tblib==3.1.0", "tblib-3.1.0-py3-none-any.whl",
              "670bb4582578134b3d81a84afa1b016128b429f3d48e6cbbaecc9d15675e984e", ["tblib"], []),
    "micropip": ("micropip==0.9.0", "micropip-0.9.0-py3-none-any.whl",
                 "babcf68c1849e229aa887564bc5f2de50273c3212e73c9aff8e3e6e80f2b6a23", ["micropip"], ["packaging"]),
}


#: unit-test files of tests/unit that tests/pyodide also runs, unchanged, inside Pyodide
#: (they need only numpy, swarmlab and tests/unit/oracles.py)
INSIDE_TESTS = ("test_cells.py", "test_metrics.py", "test_space.py", "test_noise.py", "test_detmath.py",
                "test_boids_half.py", "test_boids_many.py")


class DistError(SystemExit):
    def __init__(self, message: str):
        super().__init__(f"pyodide-test-dist: ERROR: {message}")


def log(msg: str) -> None:
    print(f"pyodide-test-dist: {msg}", flush=True)


def cache_dir() -> Path:
    return vendor.cache_dir() / "pyodide-test"


def ensure_wheels() -> dict[str, Path]:
    """The pinned PyPI wheels, verified, from the cache (downloaded once)."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    want = {name: cache / spec[1] for name, spec in WHEELS.items()}
    missing = [n for n, p in want.items() if not (p.exists() and sha256(p) == WHEELS[n][2])]
    if missing:
        log(f"downloading {', '.join(WHEELS[n][0] for n in missing)} from PyPI (once)…")
        with tempfile.TemporaryDirectory(prefix="swarmlab-pyodide-test-") as t:
            req = Path(t) / "req.txt"
            req.write_text("".join(f"{WHEELS[n][0]} --hash=sha256:{WHEELS[n][2]}\n" for n in missing))
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes", "--only-binary", ":all:",
                   "--python-version", "3.12", "--implementation", "py", "--abi", "none", "--platform", "any",
                   "--disable-pip-version-check", "-q", "-r", str(req), "-d", t]
            if subprocess.run(cmd).returncode != 0:
                raise DistError("`pip download` of the test wheels failed (network? PyPI reachable?)")
            for n in missing:
                staged = Path(t) / WHEELS[n][1]
                if not staged.exists() or sha256(staged) != WHEELS[n][2]:
                    raise DistError(f"{WHEELS[n][1]}: missing or wrong sha256 after download")
                shutil.move(str(staged), want[n])
    return want


def cut_lock(full: dict, wheels: dict[str, Path]) -> dict:
    """Pyodide's lock with only numpy (as vendored) and the PyPI wheels."""
    packages = {"numpy": dict(full["packages"]["numpy"])}
    numpy = packages["numpy"]
    if numpy["file_name"] != NUMPY_WHEEL or numpy["depends"]:
        raise DistError(f"unexpected numpy entry in the lock: {numpy['file_name']} depends on {numpy['depends']}")
    numpy["unvendored_tests"] = False  # numpy-tests is not in the folder
    for name, (req, fname, digest, imports, depends) in WHEELS.items():
        packages[name] = {
            "name": name, "version": req.split("==")[1], "file_name": fname, "install_dir": "site",
            "sha256": digest, "package_type": "package", "imports": imports, "depends": depends,
            "unvendored_tests": False, "shared_library": False,
        }
    for name, entry in packages.items():
        for dep in entry["depends"]:
            if dep not in packages:
                raise DistError(f"lock entry {name} depends on {dep}, which is not in the folder")
    return {"info": full["info"], "packages": packages}


def plan() -> tuple[dict[str, Path], dict]:
    if not (VENDOR / "pyodide-lock.json").exists() or not (VENDOR / NUMPY_WHEEL).exists():
        raise DistError("assets/vendor/pyodide is missing: run `make vendor` (tools/vendor.py) first")
    if not (NPM_PYODIDE / "pyodide.js").exists():
        raise DistError("node_modules/pyodide/pyodide.js is missing: run `make vendor` (it runs npm ci)")
    files = {f: VENDOR / f for f in CORE_FILES}
    files[NUMPY_WHEEL] = VENDOR / NUMPY_WHEEL
    files["pyodide.js"] = NPM_PYODIDE / "pyodide.js"
    wheels = ensure_wheels()
    for path in wheels.values():
        files[path.name] = path
    lock = cut_lock(json.loads((VENDOR / "pyodide-lock.json").read_text()), wheels)
    return files, lock


def build(out: Path = OUT, force: bool = False) -> Path:
    files, lock = plan()
    lock_text = json.dumps(lock, indent=1, sort_keys=True) + "\n"
    inputs = {name: sha256(src) for name, src in sorted(files.items())}
    inputs["pyodide-lock.json"] = hashlib.sha256(lock_text.encode()).hexdigest()
    manifest = out / "BUILT.json"
    if not force and manifest.exists():
        try:
            built = json.loads(manifest.read_text())
        except json.JSONDecodeError:
            built = None
        if built == inputs and all((out / n).exists() and sha256(out / n) == d for n, d in inputs.items()):
            log(f"{out.relative_to(ROOT)} is up to date ({len(inputs)} files)")
            return out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name, src in files.items():
        shutil.copyfile(src, out / name)
    (out / "pyodide-lock.json").write_text(lock_text)
    manifest.write_text(json.dumps(inputs, indent=1, sort_keys=True) + "\n")
    size = sum((out / n).stat().st_size for n in inputs)
    log(f"built {out.relative_to(ROOT)}: {len(inputs)} files, {size / 1e6:.1f} MB, lock of {len(lock['packages'])} packages")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--force", action="store_true", help="rebuild even if it is up to date")
    args = ap.parse_args(argv)
    build(force=args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
