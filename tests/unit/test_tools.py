"""Build tools: the vendor step refuses wrong bytes, py-compiles the runtime reproducibly or
falls back to the official files with one clear line; pyscript.toml lists the engine."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
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
    manifest = {"format": vendor.MANIFEST_FORMAT, "pyodide": vendor.PYODIDE_VERSION, "pyscript": vendor.PYSCRIPT_VERSION,
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


# --- the build Python and the fallback ----------------------------------------------------------
def test_python_build_that_does_not_exist_or_is_not_312_is_refused():
    import vendor
    path, why = vendor.find_build_python({"PYTHON_BUILD": "/nonexistent/python3.12"})
    assert path is None and "PYTHON_BUILD=/nonexistent/python3.12" in why
    path, why = vendor.find_build_python({"PYTHON_BUILD": sys.executable})
    if sys.version_info[:2] == (3, 12):
        assert path == sys.executable
    else:
        assert path is None and "not a working Python 3.12" in why


def test_build_python_is_searched_on_path_and_in_pyenv(tmp_path):
    import vendor
    fake = tmp_path / "versions" / "3.12.9" / "bin" / "python3.12"
    fake.parent.mkdir(parents=True)
    fake.write_text("")
    cands = vendor.build_python_candidates({"PYENV_ROOT": str(tmp_path)})
    assert str(fake) in cands
    assert "/usr/bin/python3.12" in cands
    assert vendor.build_python_candidates({"PYTHON_BUILD": "/x/py"}) == ["/x/py"]


def official_dir() -> Path:
    return ROOT / "assets" / "vendor" / "official" / "pyodide"


def require_vendored():
    if not (ROOT / "assets" / "vendor" / "VENDORED.json").exists():
        pytest.fail("assets/vendor is missing: run `make test` (it vendors the runtime first)")


def test_without_python_312_vendor_falls_back_to_the_official_runtime(tmp_path, monkeypatch, capsys):
    """No Python 3.12: the official files are used as they are, one line says so and how to get
    the faster boot, and the command succeeds (so `make run` never fails for this)."""
    import vendor
    require_vendored()
    monkeypatch.setattr(vendor, "VENDOR", tmp_path / "vendor")
    monkeypatch.setattr(vendor, "find_build_python", lambda env=None: (None, "no Python 3.12 found"))
    assert vendor.main(["--force"]) == 0
    out = capsys.readouterr().out
    notes = [ln for ln in out.splitlines() if "NOTE" in ln]
    assert len(notes) == 1, out
    assert "not py-compiled" in notes[0].lower() and "Python 3.12" in notes[0] and "make vendor" in notes[0]
    v = tmp_path / "vendor"
    data = json.loads((v / "VENDORED.json").read_text())
    assert data["runtime"] == "official" and data["fallback"]["kind"] == "no-python" and data["compiled"] is None
    for f in official_dir().iterdir():
        assert (v / "pyodide" / f.name).read_bytes() == f.read_bytes(), f.name
    assert vendor.lock_consistent(v / "pyodide") == []
    # Nothing to do next time, and the note gives today's reason, not the first run's
    # (PYTHON_BUILD=/nonexistent then, unset now) ...
    monkeypatch.setattr(vendor, "find_build_python", lambda env=None: (None, "PYTHON_BUILD=/nope is not a working Python 3.12"))
    assert vendor.main([]) == 0
    note = [ln for ln in capsys.readouterr().out.splitlines() if "NOTE" in ln]
    assert len(note) == 1 and "PYTHON_BUILD=/nope" in note[0], note
    # ... until a Python 3.12 appears: then it builds the compiled runtime.
    assert vendor.manifest_ok(check_upgrade=True)
    monkeypatch.setattr(vendor, "find_build_python", lambda env=None: ("/somewhere/python3.12", ""))
    assert not vendor.manifest_ok(check_upgrade=True)
    assert vendor.manifest_ok()  # (--check still passes: the files are intact)


# --- the compiled runtime ----------------------------------------------------------------------
def test_runtime_is_compiled_from_verified_files_and_its_lock_is_consistent():
    """Where a Python 3.12 exists (CI sets one up), the app's runtime is py-compiled: only .pyc
    in the stdlib and in numpy, a lock with the compiled files' sha256, and the official inputs'
    hashes on record, equal to the ones in Pyodide's own lock."""
    import vendor
    require_vendored()
    assert vendor.manifest_ok()
    data = json.loads((ROOT / "assets" / "vendor" / "VENDORED.json").read_text())
    runtime = ROOT / "assets" / "vendor" / "pyodide"
    official_lock = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())
    npwhl = official_lock["packages"]["numpy"]["file_name"]
    assert data["official"][npwhl] == official_lock["packages"]["numpy"]["sha256"]
    for name, digest in data["official"].items():
        assert vendor.sha256(official_dir() / name) == digest, name
    assert data["official"]["python_stdlib.zip"] == vendor.sha256(ROOT / "node_modules" / "pyodide" / "python_stdlib.zip")
    if vendor.find_build_python()[0] is None:
        assert data["runtime"] == "official" and data["fallback"]["kind"] == "no-python"
        return
    assert data["runtime"] == "compiled", data.get("fallback")
    assert vendor.lock_consistent(runtime) == []
    lock = json.loads((runtime / "pyodide-lock.json").read_text())
    assert lock["info"] == official_lock["info"] and set(lock["packages"]) == {"numpy"}
    for name, digest in data["compiled"]["files"].items():
        assert vendor.sha256(runtime / name) == digest, name
    std = zipfile.ZipFile(runtime / "python_stdlib.zip").namelist()
    assert {"json/__init__.pyc", "encodings/utf_8.pyc", "_pyodide/_base.pyc", "dataclasses.pyc"} <= set(std)
    assert not [n for n in std if n.endswith(".py")]
    assert not [n for n in std if n.startswith(("unittest/", "tkinter/", "idlelib/", "pydoc_data/"))]
    assert len(std) < len(zipfile.ZipFile(official_dir() / "python_stdlib.zip").namelist())
    wheel = zipfile.ZipFile(runtime / lock["packages"]["numpy"]["file_name"]).namelist()
    assert "numpy/__init__.pyc" in wheel and "numpy/random/__init__.pyc" in wheel
    assert not [n for n in wheel if n.endswith(".py")]
    assert not [n for n in wheel if n.startswith(("numpy/f2py/", "numpy/testing/"))]


def test_compiled_runtime_is_reproducible(tmp_path):
    """A second build from the same verified inputs gives the same bytes."""
    import vendor
    require_vendored()
    data = json.loads((ROOT / "assets" / "vendor" / "VENDORED.json").read_text())
    if data["runtime"] != "compiled":
        assert vendor.find_build_python()[0] is None, "a Python 3.12 exists but the runtime is not compiled"
        return
    vpy = vendor.venv_python()
    assert vpy.exists(), "the build venv is missing: run `python3 tools/vendor.py --force`"
    out = tmp_path / "again"
    r = subprocess.run([str(vpy), str(ROOT / "tools" / "compile_runtime.py"), "--official", str(official_dir()),
                        "--out", str(out), "--report", str(tmp_path / "report.json")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    built = sorted(p.name for p in out.iterdir())
    assert built == sorted(data["compiled"]["files"])
    for name in built:
        assert (out / name).read_bytes() == (ROOT / "assets" / "vendor" / "pyodide" / name).read_bytes(), name


def test_functions_lose_their_docstrings_and_nothing_else():
    """compile_runtime.without_docstrings: a function's docstring becomes None; module and class
    docstrings, a lambda's and a comprehension's string constants, line numbers and results stay."""
    import marshal
    import compile_runtime as cr
    src = (
        '"""module doc"""\n'
        'class C:\n'
        '    """class doc"""\n'
        '    def m(self):\n'
        '        """method doc"""\n'
        '        return "m"\n'
        'def f(x):\n'
        '    """f doc"""\n'
        '    g = lambda y: "lam" + y\n'
        '    return [s + "!" for s in ("a", x)], list(t + "?" for t in (x,)), g(x)\n'
        'def h():\n'
        '    return "first"\n'
        'def boom():\n'
        '    """doc"""\n'
        '    raise ValueError("x")\n'
    )
    code = compile(src, "mod.py", "exec")
    ns: dict = {}
    exec(cr.without_docstrings(code), ns)
    assert ns["__doc__"] == "module doc" and ns["C"].__doc__ == "class doc"
    assert ns["f"].__doc__ is None and ns["C"].m.__doc__ is None and ns["h"].__doc__ is None
    assert ns["f"]("b") == (["a!", "b!"], ["b?"], "lamb") and ns["h"]() == "first" and ns["C"]().m() == "m"
    try:
        ns["boom"]()
    except ValueError as exc:
        assert exc.__traceback__.tb_next.tb_lineno == 15  # line numbers unchanged
    # the .pyc form: header kept, the code inside stripped
    header = b"\x00" * 16
    out = cr.pyc_without_docstrings(header + marshal.dumps(code))
    assert out[:16] == header and marshal.loads(out[16:]).co_consts[0] == "module doc"


def test_zip_normalisation_is_deterministic_and_records_the_wheel(tmp_path):
    import compile_runtime as cr
    members = {"pkg/b.pyc": b"b" * 100, "pkg/a.pyc": b"a", "pkg-1.dist-info/RECORD": b"stale"}
    cr.write_zip(cr.with_record(members), tmp_path / "one.whl")
    cr.write_zip(cr.with_record(dict(reversed(list(members.items())))), tmp_path / "two.whl")
    assert (tmp_path / "one.whl").read_bytes() == (tmp_path / "two.whl").read_bytes()
    z = zipfile.ZipFile(tmp_path / "one.whl")
    assert z.namelist() == sorted(members)
    assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    record = z.read("pkg-1.dist-info/RECORD").decode().splitlines()
    assert record[-1] == "pkg-1.dist-info/RECORD,,"
    assert f"pkg/a.pyc,{cr.record_hash(b'a')},1" in record


def test_trim_rules_keep_what_the_page_needs():
    import compile_runtime as cr
    assert cr.numpy_keeps("numpy/_core/multiarray.pyc") and cr.numpy_keeps("numpy/random/_philox.so")
    assert not cr.numpy_keeps("numpy/f2py/__init__.py") and not cr.numpy_keeps("numpy/__init__.pyi")
    assert not cr.numpy_keeps("numpy/_core/include/numpy/ndarraytypes.h") and not cr.numpy_keeps("numpy/testing/utils.py")
    # what a student's rule may call stays (tests/unit/test_runtime.py calls each in the runtime)
    assert all(cr.numpy_keeps(f"numpy/{sub}/__init__.pyc") for sub in ("fft", "ma", "polynomial", "linalg", "random"))
    assert not cr.numpy_keeps("numpy/fft/tests/test_pocketfft.py")
    mods = {"json", "json.decoder", "pyodide"}
    assert cr.stdlib_keeps("json/decoder.py", mods) and not cr.stdlib_keeps("json/tool.py", mods)
    assert cr.stdlib_keeps("pyodide/py.typed", mods) and not cr.stdlib_keeps("site-packages/README.txt", mods)
    assert cr.module_name("json/__init__.py") == "json" and cr.module_name("a/b/c.py") == "a.b.c"
    assert not cr.followed("unittest.mock") and cr.followed("json")


def _serve_and_wait_for_error(tmp_path, client, mixin=None):
    """Serve ``tmp_path``, run ``client(url)``, and return once the server has handled the
    request's error (its ``handle_error`` ran), or fail after 20 s."""
    import threading

    import serve
    httpd = serve.make_server(tmp_path, "127.0.0.1", 0, quiet=True)
    if mixin is not None:
        serve.extend_handler(httpd, mixin)
    handled = threading.Event()
    report = httpd.handle_error

    def spy(request, address):
        try:
            report(request, address)
        finally:
            handled.set()
    httpd.handle_error = spy
    with serve.Background(httpd) as served:
        client(served.url)
        assert handled.wait(20), "the server never reported the request's end"


def test_serve_is_quiet_when_a_browser_drops_a_download(tmp_path, capfd):
    """A client that reads the start of a large file and hangs up (a reset, as a closed tab
    gives) leaves no traceback in the log; an error of the server's own still prints one."""
    import socket
    import struct
    (tmp_path / "big.bin").write_bytes(bytes(32 << 20))

    def drop_mid_file(url):
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.0 200")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    _serve_and_wait_for_error(tmp_path, drop_mid_file)
    assert "Traceback" not in capfd.readouterr().err

    class Broken:
        def send_head(self):
            raise ValueError("a bug in the server")

    def get(url):
        import urllib.request
        with pytest.raises(Exception):
            urllib.request.urlopen(url + "/big.bin", timeout=20)
    _serve_and_wait_for_error(tmp_path, get, Broken)
    err = capfd.readouterr().err
    assert "Traceback" in err and "a bug in the server" in err


def test_serve_gzips_what_static_hosts_compress(tmp_path):
    """tools/serve.py --gzip: text, JS, JSON and wasm compressed for clients that accept it,
    zips and wheels as they are (the benchmarks' "bytes on the wire")."""
    import gzip
    import urllib.request

    import serve
    (tmp_path / "a.js").write_text("export const a = 1;\n" * 200)
    (tmp_path / "x.wasm").write_bytes(b"\0asm" + bytes(2000))
    (tmp_path / "z.zip").write_bytes(b"PK" + bytes(2000))
    (tmp_path / "index.html").write_text("<!doctype html><p>hi</p>" * 50)
    served = serve.Background(serve.make_server(tmp_path, "127.0.0.1", 0, quiet=True, gzip=True))

    def get(path, accept="gzip, deflate"):
        req = urllib.request.Request(served.url + path, headers={"Accept-Encoding": accept} if accept else {})
        with urllib.request.urlopen(req) as r:
            return r.headers, r.read()
    try:
        for path, name in (("/a.js", "a.js"), ("/x.wasm", "x.wasm"), ("/", "index.html")):
            h, body = get(path)
            assert h["Content-Encoding"] == "gzip" and int(h["Content-Length"]) == len(body), path
            assert gzip.decompress(body) == (tmp_path / name).read_bytes()
            assert len(body) < (tmp_path / name).stat().st_size
        h, body = get("/z.zip")
        assert h["Content-Encoding"] is None and body == (tmp_path / "z.zip").read_bytes()
        h, body = get("/a.js", accept=None)
        assert h["Content-Encoding"] is None and body == (tmp_path / "a.js").read_bytes()
        assert h["Content-Type"].startswith("text/javascript")
    finally:
        served.close()
