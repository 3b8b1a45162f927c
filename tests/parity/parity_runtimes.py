"""Run one Python script in CPython and in the vendored Pyodide (under Node), for the parity tests.

The script prints ``@@RESULT@@`` followed by JSON; each runner returns that JSON.  Both runtimes
import the engine from ``app/``; a missing Node or runtime fails the test with what to do.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _result(stdout: str) -> dict:
    return json.loads(stdout.split("@@RESULT@@", 1)[1])


def run_cpython(script: str, timeout: float = 600) -> dict:
    code = f"import sys; sys.path.insert(0, {str(ROOT / 'app')!r})\n" + script
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, res.stderr
    return _result(res.stdout)


def run_pyodide(script: str, timeout: float = 900) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required (it is a build requirement); install Node.js")
    if not (ROOT / "assets" / "vendor" / "pyodide" / "pyodide.mjs").exists():
        pytest.fail("assets/vendor is missing: run `make test` (it vendors the runtime first)")
    res = subprocess.run([node, str(ROOT / "tools" / "pyodide_node.mjs")], input=script,
                         capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, res.stderr[-4000:]
    return _result(res.stdout)


def run_both(script: str) -> tuple[dict, dict]:
    """(CPython's result, Pyodide's result) of the same script."""
    return run_cpython(script), run_pyodide(script)
