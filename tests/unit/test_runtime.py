"""The runtime the browser loads (assets/vendor/pyodide), run in Node.js (tools/pyodide_node.mjs).

One Pyodide boot checks that the trimmed, py-compiled runtime still has everything the page
needs, and that the built site's engine archive is used as compiled code with readable
tracebacks:

* every module that the app's Python (app/*.py and the engine) and PyScript's own Python
  modules import is importable (the stdlib was trimmed to what they can reach);
* every lab's session runs: reset, steps, metrics, frame, a bad argument;
* the stdlib and numpy come from ``.pyc`` when the runtime is compiled (tools/vendor.py);
* the engine archive of the built site (tools/engine_archive.py) imports with compiling
  from source switched off, i.e. from its .pyc, and a traceback from inside the engine shows
  the engine's source line.
"""

from __future__ import annotations

import ast
import base64
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "assets" / "vendor"

import build_dist  # noqa: E402  (tools/ is on sys.path: tests/conftest.py)
import compile_runtime  # noqa: E402
import engine_archive  # noqa: E402
import pyfiles  # noqa: E402
from swarmlab.sessions import LABS  # noqa: E402

NOT_PYTHON_MODULES = {"js", "pyscript", "polyscript", "_pyscript", "jsffi", "ujson", "uio", "ubinascii",
                      "micropython", "__future__"}


def imported_names(source: str) -> set[str]:
    names = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:  # PyScript's modules use Python 3.12 syntax; this may be 3.10/3.11
        return {m.group(1) or m.group(2) for m in compile_runtime.IMPORT_IN_JS.finditer(source)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def page_imports() -> list[str]:
    """What the page's Python imports: app/*.py, the browser engine modules, PyScript's modules."""
    sources = [p.read_text() for p in sorted((ROOT / "app").glob("*.py"))]
    sources += [(ROOT / "app" / "swarmlab" / rel).read_text() for rel in pyfiles.browser_modules()]
    pyscript, _ = compile_runtime.pyscript_python(ROOT / "node_modules" / "@pyscript" / "core" / "dist")
    sources += list(pyscript.values())
    names = set()
    for src in sources:
        names |= imported_names(src)
    official = zipfile.ZipFile(VENDOR / "official" / "pyodide" / "python_stdlib.zip").namelist()
    stdlib_top = {n.split("/")[0].removesuffix(".py") for n in official}
    keep = set()
    for n in names:
        top = n.split(".")[0]
        if top in NOT_PYTHON_MODULES or top == "swarmlab":
            continue
        if top in stdlib_top or top in sys.stdlib_module_names or top in ("numpy", "pyodide", "_pyodide"):
            keep.add(n)
    return sorted(keep)


SCRIPT = r'''
import base64, importlib, io, json, sys, traceback, zipfile
out = {"missing": {}, "labs": {}}
for name in NAMES:
    try:
        importlib.import_module(name)
    except Exception as exc:
        out["missing"][name] = f"{type(exc).__name__}: {exc}"
import json as _json, numpy
out["json_origin"] = _json.__spec__.origin
out["numpy_file"] = numpy.__file__
import pyodide.ffi
# compile_runtime.without_docstrings: functions in the stdlib and numpy have none; Pyodide's keep theirs
out["docs"] = {"json.dumps": _json.dumps.__doc__ is not None, "numpy.mean": numpy.mean.__doc__ is not None,
               "pyodide.ffi.to_js": pyodide.ffi.to_js.__doc__ is not None}
from swarmlab.sessions import create
for lab in LABS:
    try:
        s = create(lab)
        s.call("reset", "{}")
        r = json.loads(s.call("step", json.dumps({"n": 30})))
        m = json.loads(s.call("metrics", "{}"))
        f = s.frame()
        bad = json.loads(s.call("step", "not json"))
        out["labs"][lab] = {"step": r, "metrics_keys": sorted(m)[:5], "frame": int(f.size), "bad": bad}
    except Exception as exc:
        out["labs"][lab] = {"error": "".join(traceback.format_exception(exc))[-1500:]}

# What a student's rule may reach: numpy's public submodules, and a clear word for a module
# the page's Python does not carry (rules.explain under emscripten).
sub = {}
for expr in ("float(numpy.fft.rfft(numpy.ones(8))[0].real)", "float(numpy.ma.masked_less(numpy.arange(4.0), 2).sum())",
             "float(numpy.polynomial.Polynomial([1.0, 2.0])(3.0))", "float(numpy.linalg.norm([3.0, 4.0]))"):
    try:
        sub[expr] = eval(expr)
    except Exception as exc:
        sub[expr] = f"{type(exc).__name__}: {exc}"
out["numpy_submodules"] = sub
from swarmlab import rules, rules_boids
try:
    rules.load("import tkinter\n" + rules_boids.KIND.source(), rules_boids.KIND)
    out["missing_module_message"] = None
except rules.RuleError as exc:
    out["missing_module_message"] = str(exc)

# The built site's engine archive, unpacked as PyScript does, imported with compiling disabled.
for m in [m for m in sys.modules if m == "swarmlab" or m.startswith("swarmlab.")]:
    del sys.modules[m]
sys.path[:] = [p for p in sys.path if p != "/app"]
zipfile.ZipFile(io.BytesIO(base64.b64decode(ARCHIVE))).extractall("/tmp/site")
sys.path.insert(0, "/tmp/site")
sys.dont_write_bytecode = True
from importlib import _bootstrap_external as be
compiled = []
real = be.SourceLoader.source_to_code
def refuse(self, data, path, *, _optimize=-1):
    compiled.append(path)
    return real(self, data, path, _optimize=_optimize)
be.SourceLoader.source_to_code = refuse
import swarmlab.sessions, swarmlab.swarm, swarmlab.vicsek, swarmlab.boids, swarmlab.params
out["archive_compiled_from_source"] = compiled
out["archive_file"] = swarmlab.__file__
try:
    swarmlab.params.validate(swarmlab.swarm.SPECS, "no_such_parameter", 1)
except Exception as exc:
    out["traceback"] = "".join(traceback.format_exception(exc))
print("@@RESULT@@" + json.dumps(out))
'''


@pytest.fixture(scope="module")
def pyodide_run(tmp_path_factory):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required (it is a build requirement); install Node.js")
    if not (VENDOR / "VENDORED.json").exists():
        pytest.fail("assets/vendor is missing: run `make test` (it vendors the runtime first)")
    table = build_dist.toml_loads((ROOT / "pyscript.toml").read_text())["files"]
    zpath = tmp_path_factory.mktemp("engine") / "engine.zip"
    info = engine_archive.build(table, zpath, ROOT, python=build_dist.build_python(ROOT))
    labs = list(LABS)  # the one lab list (index.html's tabs; tests/unit/test_host.py)
    code = (f"NAMES = {page_imports()!r}\nLABS = {labs!r}\n"
            f"ARCHIVE = {base64.b64encode(zpath.read_bytes()).decode()!r}\n" + SCRIPT)
    res = subprocess.run([node, str(ROOT / "tools" / "pyodide_node.mjs")], input=code,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-4000:]
    out = json.loads(res.stdout.split("@@RESULT@@", 1)[1])
    return out, info, json.loads((VENDOR / "VENDORED.json").read_text())


def test_everything_the_page_imports_is_in_the_runtime(pyodide_run):
    out, _, _ = pyodide_run
    names = page_imports()
    assert {"json", "dataclasses", "numpy", "traceback", "asyncio"} <= set(names)  # the scan sees the imports
    assert out["missing"] == {}


def test_every_lab_runs_on_the_runtime(pyodide_run):
    out, _, _ = pyodide_run
    assert set(out["labs"]) >= {"swarm", "vicsek", "boids"}
    for lab, r in out["labs"].items():
        assert "error" not in r, (lab, r)
        assert r["frame"] > 0 and r["metrics_keys"], (lab, r)
        assert "error" in r["bad"], (lab, r["bad"])  # bad input: a clear message, not a crash


def test_a_students_rule_can_use_numpys_submodules_and_a_missing_module_is_explained(pyodide_run):
    """A rule that runs in Python on a computer runs in the page too: numpy.fft, numpy.ma and
    numpy.polynomial are shipped (the engine does not need them); a module the page's Python
    does not carry is said to be left out, with where the rule runs whole."""
    out, _, _ = pyodide_run
    assert list(out["numpy_submodules"].values()) == [8.0, 5.0, 7.0, 5.0], out["numpy_submodules"]
    msg = out["missing_module_message"]
    assert msg.startswith("ModuleNotFoundError on line 1: No module named 'tkinter' (the browser's Python"), msg
    assert "python -m swarmlab and --rules" in msg


def test_stdlib_and_numpy_load_compiled_code_when_the_runtime_is_compiled(pyodide_run):
    out, _, manifest = pyodide_run
    suffix = ".pyc" if manifest["runtime"] == "compiled" else ".py"
    assert out["json_origin"].endswith("json/__init__" + suffix), out["json_origin"]
    assert out["numpy_file"].endswith("numpy/__init__" + suffix), out["numpy_file"]


def test_compiled_runtime_ships_functions_without_docstrings_except_pyodides(pyodide_run):
    out, _, manifest = pyodide_run
    compiled = manifest["runtime"] == "compiled"
    assert out["docs"] == {"json.dumps": not compiled, "numpy.mean": not compiled, "pyodide.ffi.to_js": True}


def test_engine_archive_is_used_compiled_with_readable_tracebacks(pyodide_run):
    out, info, manifest = pyodide_run
    assert out["archive_file"] == "/tmp/site/swarmlab/__init__.py"
    if info["pyc"]:
        assert out["archive_compiled_from_source"] == []  # every engine module came from its .pyc
    else:  # no Python 3.12 for the build: the archive has sources only, compiled in the browser
        assert manifest["runtime"] != "compiled"
        assert out["archive_compiled_from_source"]
    tb = out["traceback"]
    assert 'File "/tmp/site/swarmlab/params.py", line' in tb, tb
    # the source line of the engine frame is shown (the .py travels with the .pyc)
    src = (ROOT / "app" / "swarmlab" / "params.py").read_text().splitlines()
    frame_lines = [ln for ln in tb.splitlines() if ln.startswith('  File "/tmp/site/swarmlab/params.py"')]
    lineno = int(frame_lines[-1].split("line ")[1].split(",")[0])
    assert src[lineno - 1].strip() in tb
