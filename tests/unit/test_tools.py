"""Build tools: the vendor step refuses wrong bytes; pyscript.toml lists the engine."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_pyscript_toml_lists_exactly_the_browser_modules():
    import pyfiles
    assert pyfiles.main(["--check"]) == 0, "run: python3 tools/pyfiles.py"
    toml = (ROOT / "pyscript.toml").read_text()
    for rel in pyfiles.browser_modules():
        assert f'"./app/swarmlab/{rel}"' in toml
    assert "commands/" not in toml and "cli.py" not in toml
    assert 'interpreter = "./assets/vendor/pyodide/pyodide.mjs"' in toml
    assert 'packages_cache = "passthrough"' in toml


def test_hash_mismatch_stops_with_both_hashes(tmp_path):
    import vendor
    f = tmp_path / "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
    f.write_bytes(b"not the real wheel")
    expected = "0" * 64
    with pytest.raises(SystemExit) as exc:
        vendor.check_hash(f, expected, "numpy wheel")
    msg = str(exc.value)
    assert expected in msg
    assert hashlib.sha256(b"not the real wheel").hexdigest() in msg
    assert f.name in msg


def test_matching_hash_passes(tmp_path):
    import vendor
    f = tmp_path / "x.whl"
    f.write_bytes(b"abc")
    vendor.check_hash(f, hashlib.sha256(b"abc").hexdigest(), "x")


def test_manifest_detects_a_tampered_vendored_file(tmp_path, monkeypatch):
    import vendor
    (tmp_path / "pyodide").mkdir()
    good = tmp_path / "pyodide" / "pyodide.mjs"
    good.write_bytes(b"export const x = 1;")
    manifest = {"pyodide": vendor.PYODIDE_VERSION, "pyscript": vendor.PYSCRIPT_VERSION,
                "files": {"pyodide/pyodide.mjs": vendor.sha256(good)}}
    (tmp_path / "VENDORED.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(vendor, "VENDOR", tmp_path)
    assert vendor.manifest_ok()
    good.write_bytes(b"export const x = 2;")
    assert not vendor.manifest_ok()
    good.unlink()
    assert not vendor.manifest_ok()


def test_lock_names_the_official_numpy_wheel():
    lock = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text()) \
        if (ROOT / "node_modules" / "pyodide").exists() else None
    if lock is None:
        pytest.fail("node_modules/pyodide missing: run `make test` (vendors first)")
    entry = lock["packages"]["numpy"]
    assert entry["file_name"] == "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
    assert entry["sha256"] == "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08"


def test_package_lock_pins_the_runtime():
    lock = json.loads((ROOT / "package-lock.json").read_text())
    pkgs = lock["packages"]
    assert pkgs["node_modules/pyodide"]["version"] == "0.27.7"
    assert pkgs["node_modules/@pyscript/core"]["version"] == "0.6.66"
    pj = json.loads((ROOT / "package.json").read_text())
    assert pj["dependencies"] == {"@pyscript/core": "0.6.66", "pyodide": "0.27.7"}
