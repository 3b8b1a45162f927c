"""The deploy builders: dist/site (tools/build_dist.py) and the single file (tools/build_offline.py).

Pure parts are tested on small synthetic trees (fast, no vendored runtime needed); one
test builds the real single file at gzip level 1 and inspects it.  The browser tests
(tests/browser/test_deploy.py) prove the results actually run.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


import build_dist  # noqa: E402  (tools/ is on sys.path: tests/conftest.py)
import build_offline  # noqa: E402


def write(root: Path, rel: str, data: str | bytes = "x") -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data)
    return p


TOML = """name = "t"
interpreter = "./assets/vendor/pyodide/pyodide.mjs"
packages = ["numpy"]
packages_cache = "passthrough"

[files]
"./app/swarmlab/__init__.py" = "./swarmlab/__init__.py"
"./app/swarmlab/sessions/__init__.py" = "./swarmlab/sessions/__init__.py"
"""


@pytest.fixture
def fake_repo(tmp_path):
    """A tiny repo with the real index.html and boot.js, and a fake vendored runtime."""
    r = tmp_path / "repo"
    shutil.copy(ROOT / "index.html", write(r, "index.html"))
    shutil.copy(ROOT / "assets/js/boot.js", write(r, "assets/js/boot.js"))
    shutil.copy(ROOT / "assets/js/sw-register.js", write(r, "assets/js/sw-register.js"))
    shutil.copy(ROOT / "sw.js", write(r, "sw.js"))
    write(r, "pyscript.toml", TOML)
    write(r, "app/main.py", "print('main')\n")
    write(r, "app/swarmlab/__init__.py", "A = 1\n")
    write(r, "app/swarmlab/sessions/__init__.py", "B = 2\n")
    write(r, "app/swarmlab/cli.py", "# CPython only\n")
    write(r, "app/swarmlab/commands/run.py", "# CPython only\n")
    write(r, "assets/css/app.css", "body { background: url(../img/dot.svg); }\n")
    write(r, "assets/css/lab.css", ".lab { color: red; }\n")
    write(r, "assets/img/favicon.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>")
    write(r, "assets/img/dot.svg", "<svg xmlns='http://www.w3.org/2000/svg'><circle r='1'/></svg>")
    write(r, "assets/js/app.js",
          'import { Engine } from "./engine.js";\nimport "./embed.js";\n'
          "const lab = 'a';\nexport const load = () => import(`./labs/${lab}.js`);\n")
    write(r, "assets/js/engine.js", "export class Engine {}\n")
    write(r, "assets/js/embed.js", "export const E = 1;\n")
    write(r, "assets/js/app.js.map", "{}")
    write(r, "assets/js/labs/a.js",
          'import { Engine } from "../engine.js";\nexport const here = new URL("x.css", import.meta.url);\n')
    write(r, "assets/js/labs/a/part.js", 'export * from "../../ui/w.js";\n')
    write(r, "assets/js/ui/w.js", "export const w = 1;\n")
    write(r, "assets/js/tests/t.js", "throw 1;\n")
    v = "assets/vendor"
    write(r, f"{v}/pyscript/core.js", 'export{a as x}from"./core-AB.js";\n//# sourceMappingURL=core.js.map\n')
    write(r, f"{v}/pyscript/core.js.map", "{}")
    write(r, f"{v}/pyscript/core-AB.js",
          'import{q}from"./dep-Q.js";var Is={one:()=>import("./one-1.js"),"two-x":()=>import("./two-2.js")};'
          'const lazy=()=>import("./lazy-9.js");export const a=1;\n')
    write(r, f"{v}/pyscript/dep-Q.js", 'import{a}from"./core-AB.js";export const q=2;\n')  # a cycle
    write(r, f"{v}/pyscript/one-1.js", 'import{a}from"./core-AB.js";export const one=1;\n')
    write(r, f"{v}/pyscript/two-2.js", "export const two=2;\n")
    write(r, f"{v}/pyscript/lazy-9.js", "export const lazy=9;\n")
    write(r, f"{v}/pyodide/pyodide.mjs", "export const loadPyodide = 1;\n")
    write(r, f"{v}/pyodide/pyodide.asm.js", "var _createPyodideModule = 1;\n")
    write(r, f"{v}/pyodide/pyodide.asm.wasm", b"\0asm\1\0\0\0" + bytes(range(256)) * 4)
    write(r, f"{v}/pyodide/python_stdlib.zip", b"PK\3\4 stdlib")
    write(r, f"{v}/pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", b"PK\3\4 numpy")
    write(r, f"{v}/pyodide/pyodide-lock.json", json.dumps({"packages": {"numpy": {"file_name": "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"}}}))
    write(r, "node_modules/x/index.js", "x")
    write(r, "tests/unit/test_x.py", "x")
    write(r, "tools/t.py", "x")
    return r


# --- dist/site ---------------------------------------------------------------------------
def test_dist_file_list_has_the_site_and_nothing_else(fake_repo):
    files = build_dist.site_files(fake_repo)
    assert "index.html" in files and "pyscript.toml" in files
    assert {"app/main.py", "app/swarmlab/__init__.py", "app/swarmlab/sessions/__init__.py"} <= set(files)
    assert "app/swarmlab/cli.py" not in files and not any("commands" in f for f in files)
    assert "assets/vendor/pyodide/pyodide.asm.wasm" in files
    assert "assets/css/lab.css" in files and "assets/js/labs/a/part.js" in files
    for f in files:
        assert not f.endswith(".map"), f
        assert not f.startswith(("tests/", "tools/", "node_modules/")), f
        assert "/tests/" not in f and "node_modules" not in f, f


def test_excluded_rules():
    ex = build_dist.excluded
    assert ex("assets/js/app.js.map") and ex("assets/.DS_Store") and ex("app/swarmlab/__pycache__/x.pyc")
    assert ex("assets/js/tests/t.js") and ex("assets/vendor/node_modules/a.js") and ex("tools/serve.py")
    assert not ex("assets/js/app.js") and not ex("app/swarmlab/__init__.py")


ENGINE = {"app/swarmlab/__init__.py", "app/swarmlab/sessions/__init__.py"}
GENERATED = {"pyscript.toml", "sw.js", "assets/js/sw-register.js", "app/engine.zip", "index.html"}  # index: + a preload


def test_dist_build_copies_bytes_and_adds_nojekyll(fake_repo, tmp_path):
    out = tmp_path / "site"
    write(out, "stale.txt", "left over from an older build")
    n, size = build_dist.build(fake_repo, out)
    assert (out / ".nojekyll").exists()
    assert not (out / "stale.txt").exists()
    copied = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != ".nojekyll")
    want = sorted((set(build_dist.site_files(fake_repo)) - ENGINE) | {"app/engine.zip"})
    assert copied == want and n == len(copied)
    assert size == sum((out / f).stat().st_size for f in copied)
    for f in copied:
        if f not in GENERATED:
            assert (out / f).read_bytes() == (fake_repo / f).read_bytes(), f


def test_dist_packs_the_engine_into_one_archive(fake_repo, tmp_path):
    """The site loads the engine as one archive (its .py, plus .pyc where Python 3.12 is at
    hand), unpacked where the [files] table put the single modules; same bytes each build."""
    out = tmp_path / "site"
    build_dist.build(fake_repo, out)
    cfg = build_dist.toml_loads((out / "pyscript.toml").read_text())
    assert cfg["files"] == {"./app/engine.zip": "./*"}
    assert cfg["interpreter"] == "./assets/vendor/pyodide/pyodide.mjs" and cfg["packages_cache"] == "passthrough"
    z = zipfile.ZipFile(out / "app/engine.zip")
    sources = {n for n in z.namelist() if n.endswith(".py")}
    assert sources == {"swarmlab/__init__.py", "swarmlab/sessions/__init__.py"}
    for n in sources:
        assert z.read(n) == (fake_repo / "app" / n).read_bytes()
    assert not (out / "app/swarmlab").exists()
    first = (out / "app/engine.zip").read_bytes()
    build_dist.build(fake_repo, out)
    assert (out / "app/engine.zip").read_bytes() == first


def sw_parts(out: Path) -> tuple[str, dict, str]:
    sw = (out / "sw.js").read_text()
    build = re.search(r'^const BUILD = "([0-9a-f]+)";$', sw, re.M).group(1)
    files = json.loads(re.search(r"^const FILES = (\{.*?\});$", sw, re.M | re.S).group(1))
    reg = re.search(r'^const BUILD = "([0-9a-f]+)";$', (out / "assets/js/sw-register.js").read_text(), re.M).group(1)
    return build, files, reg


def test_dist_service_worker_caches_every_file_of_one_build(fake_repo, tmp_path):
    """sw.js lists every file the page fetches with its sha256, under one BUILD that the
    register script carries too; a changed file gives a new BUILD, an unchanged tree the same."""
    out = tmp_path / "site"
    build_dist.build(fake_repo, out)
    build, files, reg = sw_parts(out)
    assert reg == build
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert set(files) == on_disk - {"sw.js", ".nojekyll"}  # the runtime's manifest too (boot.js checks against it)
    import hashlib
    for rel, digest in files.items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == digest, rel
    assert {"index.html", "app/engine.zip", "assets/vendor/pyodide/pyodide.asm.wasm", "pyscript.toml"} <= set(files)
    # The repository's copies stay inert (development never registers a worker).
    assert re.search(r"^const BUILD = null;$", (fake_repo / "assets/js/sw-register.js").read_text(), re.M)
    assert re.search(r"^const BUILD = null;$", (fake_repo / "sw.js").read_text(), re.M)
    # Same tree, same build; one changed byte, a new build.
    assert build_dist.write_service_worker(out, fake_repo) == build
    (out / "assets/js/app.js").write_text((out / "assets/js/app.js").read_text() + "// v2\n")
    new = build_dist.write_service_worker(out, fake_repo)
    assert new != build and sw_parts(out)[0] == sw_parts(out)[2] == new


def test_service_worker_leaves_out_pyscript_features_the_app_never_loads(tmp_path):
    """xterm and MicroPython are never loaded; CodeMirror is (the rules editor of Labs 2 and 3),
    so the offline copy has it: left out, an offline visit got a plain text box."""
    for rel in ("assets/vendor/pyscript/xterm.css", "assets/vendor/pyscript/mpy-1.js"):
        write(tmp_path, rel)
    keep = {"assets/vendor/pyscript/toml-1.js", "assets/vendor/pyscript/py-editor-1.js", "index.html",
            "assets/vendor/VENDORED.json",  # read with the runtime it describes, from the same build
            "assets/vendor/pyscript/codemirror-x.js", "assets/vendor/pyscript/codemirror_view-x.js"}
    for rel in keep:
        write(tmp_path, rel)
    assert set(build_dist.service_worker_files(tmp_path)) == keep


def test_dist_refuses_without_the_vendored_runtime(fake_repo, tmp_path):
    (fake_repo / "assets/vendor/pyodide/pyodide.asm.wasm").unlink()
    with pytest.raises(SystemExit, match="make vendor"):
        build_dist.build(fake_repo, tmp_path / "site")


def test_dist_refuses_a_files_entry_outside_the_site():
    with pytest.raises(SystemExit, match="outside"):
        build_dist.python_files('[files]\n"../secret.py" = "./x.py"\n')


def test_real_dist_list_matches_pyscript_toml():
    import tomllib

    files = build_dist.site_files(ROOT)
    listed = tomllib.loads((ROOT / "pyscript.toml").read_text())["files"]
    assert listed, "pyscript.toml has an empty [files] table"
    for src in listed:
        assert src.removeprefix("./") in files
    assert "app/main.py" in files
    assert not any(f.startswith("app/swarmlab/commands/") or f.endswith("cli.py") for f in files)
    assert not any(f.endswith(".map") for f in files)


# --- the single file: pure helpers -------------------------------------------------------------
def test_gz_b64_round_trip_and_deterministic():
    data = bytes(range(256)) * 50
    a = build_offline.gz_b64(data)
    assert a == build_offline.gz_b64(data)
    assert gzip.decompress(base64.b64decode(a)) == data


def test_pyscript_closure_follows_static_imports_and_the_plugin_table(fake_repo):
    d = fake_repo / "assets/vendor/pyscript"
    chunks = {p.name: p.read_text() for p in d.glob("*.js")}
    used = build_offline.pyscript_closure(chunks)
    assert used == ["core-AB.js", "core.js", "dep-Q.js", "one-1.js", "two-2.js"]
    assert "lazy-9.js" not in used  # a plain dynamic import is not a plugin: left out


def test_rewrite_chunk_makes_relative_specifiers_bare():
    names = {"core-AB.js", "one-1.js"}
    src = 'import{a}from"./core-AB.js";const f=()=>import("./one-1.js");const s="./config.txt";'
    out = build_offline.rewrite_chunk(src, names)
    assert 'from"pyscript/core-AB.js"' in out and 'import("pyscript/one-1.js")' in out
    assert '"./config.txt"' in out  # not a chunk: untouched


def test_rewrite_own_module_resolves_relative_and_template_specifiers():
    own = {"assets/js/app.js", "assets/js/engine.js", "assets/js/labs/a.js", "assets/js/ui/w.js"}
    src = ('import { Engine } from "./engine.js";\nimport "./ui/w.js";\n'
           "const m = await import(`./labs/${lab}.js`);\nconst u = new URL('k', import.meta.url);\n")
    out = build_offline.rewrite_own_module("assets/js/app.js", src, own, set())
    assert 'from "swarmlab/assets/js/engine.js"' in out
    assert 'import "swarmlab/assets/js/ui/w.js"' in out
    assert "import(`swarmlab/assets/js/labs/${lab}.js`)" in out
    assert "import.meta" not in out and 'new URL("assets/js/app.js", document.baseURI).href' in out
    up = build_offline.rewrite_own_module("assets/js/labs/a.js", 'import {w} from "../ui/w.js";', own, set())
    assert up == 'import {w} from "swarmlab/assets/js/ui/w.js";'
    with pytest.raises(SystemExit, match="not a module of the app"):
        build_offline.rewrite_own_module("assets/js/app.js", 'import "./missing.js";', own, set())


def test_script_safe_cannot_close_the_script_element():
    s = build_offline.script_safe('const a = "</script><script>alert(1)</script>"; // <!-- x')
    assert "</script" not in s.lower() and "<!--" not in s


def test_offline_config_is_json_with_the_mapped_interpreter():
    cfg = build_offline.offline_config(TOML)
    assert cfg["interpreter"] == "pyodide/pyodide.mjs"
    assert cfg["packages_cache"] == "passthrough" and cfg["packages"] == ["numpy"]
    assert cfg["files"]["./app/swarmlab/__init__.py"] == "./swarmlab/__init__.py"
    assert build_offline.python_sources(cfg) == [
        "app/main.py", "app/swarmlab/__init__.py", "app/swarmlab/sessions/__init__.py"]


# --- the single file: the whole page ----------------------------------------------------------
def parse_page(text: str) -> dict:
    """Pull the parts of a built page apart: import map, config, shim tables, blobs."""
    imap = json.loads(re.search(r'<script type="importmap">(.*?)</script>', text, re.S).group(1).replace("<\\/", "</"))
    cfg_attr = re.search(r'<script type="py" src="([^"]*)" config="([^"]*)"', text)
    blobs = {m.group(2): m.group(3) for m in re.finditer(
        r'<script type="application/x-swarmlab-gzip" id="([^"]+)" data-name="([^"]+)">([^<]*)</script>', text)}
    files = json.loads(re.search(r"var FILES = (\{.*?\});", text).group(1))
    css = json.loads(re.search(r"var CSS = (\{.*?\});", text).group(1))
    # The page without the embedded payloads (what a person would read as markup).
    markup = re.sub(r'(<script type="application/x-swarmlab-gzip"[^>]*>)[^<]*', r"\1", text)
    markup = re.sub(r'<script type="importmap">.*?</script>', "", markup, flags=re.S)
    return {"imports": imap["imports"], "src": cfg_attr.group(1), "config": json.loads(html.unescape(cfg_attr.group(2))),
            "blobs": blobs, "files": files, "css": css, "markup": markup}


def decode_data_url(url: str) -> str:
    head, _, body = url.partition(",")
    assert head.endswith(";base64"), head
    return base64.b64decode(body).decode("utf-8")


def test_fake_single_file_is_self_contained_and_deterministic(fake_repo, tmp_path):
    out = tmp_path / "one.html"
    info = build_offline.build(fake_repo, out, level=1)
    text = out.read_text()
    assert info["bytes"] == out.stat().st_size
    page = parse_page(text)
    # Every module is a data: URL; the lazily imported chunk is a loud stub.
    assert all(v.startswith("data:text/javascript;base64,") for v in page["imports"].values())
    assert set(page["imports"]) >= {"pyscript/core.js", "pyscript/core-AB.js", "pyscript/lazy-9.js",
                                    "pyodide/pyodide.mjs", "./pyodide/pyodide.mjs",
                                    "swarmlab/assets/js/app.js", "swarmlab/assets/js/labs/a.js",
                                    "swarmlab/assets/js/labs/a/part.js"}
    assert "swarmlab/assets/js/boot.js" not in page["imports"]  # boot.js is a classic inline script
    assert "left out of this build" in decode_data_url(page["imports"]["pyscript/lazy-9.js"])
    core = decode_data_url(page["imports"]["pyscript/core-AB.js"])
    assert 'from"pyscript/dep-Q.js"' in core and 'import("pyscript/one-1.js")' in core
    app = decode_data_url(page["imports"]["swarmlab/assets/js/app.js"])
    assert "import(`swarmlab/assets/js/labs/${lab}.js`)" in app
    # The config and the files the fetch shim serves, byte for byte.
    assert page["config"]["interpreter"] == "pyodide/pyodide.mjs"
    assert page["config"]["packages_cache"] == "passthrough"
    served = {"app/main.py", "app/engine.zip",
              "pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json",
              "pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", "pyodide/pyodide.asm.js"}
    assert set(page["files"]) == served == set(page["blobs"])
    sources = {"app/main.py": "app/main.py"}
    sources.update({f"pyodide/{n}": f"assets/vendor/pyodide/{n}" for n in
                    ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", "pyodide.asm.js")})
    for name, rel in sources.items():
        raw = (fake_repo / rel).read_bytes()
        assert gzip.decompress(base64.b64decode(page["blobs"][name])) == raw, name
        assert page["files"][name]["size"] == len(raw)
    assert page["files"]["pyodide/pyodide.asm.wasm"]["type"] == "application/wasm"
    engine = zipfile.ZipFile(__import__("io").BytesIO(gzip.decompress(base64.b64decode(page["blobs"]["app/engine.zip"]))))
    for n in ("swarmlab/__init__.py", "swarmlab/sessions/__init__.py"):
        assert engine.read(n) == (fake_repo / "app" / n).read_bytes()
    assert page["config"]["files"] == {"./app/engine.zip": "./*"}
    assert page["src"] == "./app/main.py"
    # Lab stylesheets are available as data: URLs for the <link> hook; app.css is inline.
    assert set(page["css"]) == {"assets/css/app.css", "assets/css/lab.css"}
    assert "background: url(\"data:image/svg+xml;base64," in text
    # The flag is set before boot.js runs, and boot.js comes before any module script.
    assert text.index("window.SWARMLAB_SINGLE_FILE = true") < text.index("Swarm Lab boot supervisor")
    assert text.index('<script type="importmap">') < text.index('<script type="module">')
    # No local file reference is left in the markup.
    for m in re.finditer(r'\b(?:src|href)="([^"]*)"', page["markup"]):
        v = m.group(1)
        assert v.startswith(("data:", "?", "#")) or v == "./app/main.py", v
    # Deterministic.
    again = tmp_path / "again.html"
    build_offline.build(fake_repo, again, level=1)
    assert again.read_bytes() == out.read_bytes()


def test_offline_build_refuses_a_missing_runtime_file(fake_repo, tmp_path):
    (fake_repo / "assets/vendor/pyodide/python_stdlib.zip").unlink()
    with pytest.raises(SystemExit, match="python_stdlib.zip is missing"):
        build_offline.build(fake_repo, tmp_path / "x.html", level=1)


REMOTE_IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["'`](?:https?:)?//""")


def test_real_single_file_has_no_outside_urls(tmp_path):
    if not (ROOT / "assets/vendor/VENDORED.json").exists():
        pytest.fail("assets/vendor is missing: run `make vendor` (or `make test`)")
    out = tmp_path / "swarm-lab.html"
    build_offline.build(ROOT, out, level=1)
    text = out.read_text()
    page = parse_page(text)
    # Nothing in the markup, the inline CSS or inline scripts loads from http(s).
    # (A plain <a href="https://..."> is a link a person may follow, not a request.)
    loads = re.findall(r'<(?!a\b)\w+\b[^>]*?\b(?:src|href)\s*=\s*"((?:https?:)?//[^"]*)"', page["markup"])
    assert loads == []
    assert not re.search(r"url\(\s*[\"']?(?:https?:)?//", page["markup"])
    # Every module is embedded, and none imports from the network or by a relative path.
    for key, url in page["imports"].items():
        assert url.startswith("data:"), key
        src = decode_data_url(url)
        assert not REMOTE_IMPORT.search(src), key
        if "left out of this build" not in src:
            assert not re.search(r"""(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'`]\.{1,2}/""", src), key
    # The Python the browser needs, exactly: app/main.py + pyscript.toml's [files].
    import tomllib

    listed = tomllib.loads((ROOT / "pyscript.toml").read_text())["files"]
    py = {k for k in page["files"] if k.endswith((".py", ".zip")) and not k.startswith("pyodide/")}
    assert py == {"app/main.py", "app/engine.zip"}
    engine = zipfile.ZipFile(__import__("io").BytesIO(gzip.decompress(base64.b64decode(page["blobs"]["app/engine.zip"]))))
    assert {n for n in engine.namelist() if n.endswith(".py")} == {v.removeprefix("./") for v in listed.values()}
    assert page["config"]["files"] == {"./app/engine.zip": "./*"}
    assert "sw-register" not in page["markup"]
    assert page["config"]["interpreter"] == "pyodide/pyodide.mjs"
    assert not any(str(v).startswith(("http:", "https:")) for v in page["config"].values())


def test_toml_fallback_reads_pyscript_toml_like_tomllib():
    import tomllib

    for text in ((ROOT / "pyscript.toml").read_text(), TOML):
        assert build_dist.toml_loads(text, force_fallback=True) == tomllib.loads(text)
    with pytest.raises(SystemExit, match="Python 3.11"):
        build_dist.toml_loads("a = 'single quoted'\n", force_fallback=True)


# --- no request waterfall: the big files are preloaded (issue 19) --------------------------
PRELOAD = re.compile(r'<link rel="preload" href="([^"]+)" as="fetch" crossorigin="anonymous">')


def test_index_preloads_every_big_runtime_file_that_exists():
    """index.html starts the runtime's big downloads at t = 0; each preload names a vendored
    file, the numpy wheel is the lock's, and boot.js measures (and checks) every one of them."""
    if not (ROOT / "assets/vendor/VENDORED.json").exists():
        pytest.fail("assets/vendor is missing: run `make vendor` (or `make test`)")
    hrefs = PRELOAD.findall((ROOT / "index.html").read_text())
    runtime = ROOT / "assets/vendor/pyodide"
    lock = json.loads((runtime / "pyodide-lock.json").read_text())
    want = {"pyodide.asm.wasm", "pyodide.asm.js", "python_stdlib.zip", "pyodide-lock.json",
            lock["packages"]["numpy"]["file_name"]}
    assert {h.removeprefix("assets/vendor/pyodide/") for h in hrefs} == want
    for h in hrefs:
        assert (ROOT / h).is_file(), h
    boot = (ROOT / "assets/js/boot.js").read_text()
    for name in want:
        assert f'"{name}": {{ stage:' in boot, f"boot.js FILES lacks {name}"


def test_the_stack_floor_bench_page_preloads_what_index_preloads():
    """tools/bench's floor of the stack (PyScript's worker importing numpy, no app) starts the
    same downloads at t = 0 as the page it is the floor of, or it would not be a floor."""
    page = ROOT / "tools/bench/pages/pyscript-worker.html"
    floor = {(page.parent / h).resolve() for h in PRELOAD.findall(page.read_text())}
    index = {(ROOT / h).resolve() for h in PRELOAD.findall((ROOT / "index.html").read_text())}
    assert floor == index and index


def test_the_single_file_floor_replaces_only_the_named_files(tmp_path):
    """tools/bench/single_floor.py builds the single file from a mirror of the checkout whose
    app.js and main.py are replaced: every other file is the checkout's own (a symlink), and
    folders the build lists recursively are real folders all the way down."""
    from tools.bench import single_floor
    src = tmp_path / "src"
    for rel in ("index.html", "assets/js/app.js", "assets/js/ui/dom.js", "assets/vendor/x.wasm",
                "app/main.py", "app/swarmlab/space.py"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(f"original {rel}")
    dst = tmp_path / "dst"
    single_floor._mirror(src, dst, {"assets/js/app.js": "stub app", "app/main.py": "stub main"})
    assert (dst / "assets/js/app.js").read_text() == "stub app"
    assert (dst / "app/main.py").read_text() == "stub main"
    assert not (dst / "assets/js/app.js").is_symlink()
    for rel in ("index.html", "assets/js/ui/dom.js", "assets/vendor/x.wasm", "app/swarmlab/space.py"):
        assert (dst / rel).read_text() == f"original {rel}", rel
    assert (dst / "assets/js/ui").is_dir() and not (dst / "assets/js/ui").is_symlink()
    assert sorted(p.relative_to(dst).as_posix() for p in (dst / "assets/js").rglob("*.js")) == \
        ["assets/js/app.js", "assets/js/ui/dom.js"]
    assert (src / "assets/js/app.js").read_text() == "original assets/js/app.js"  # the source is untouched


def test_dist_preloads_the_engine_archive_and_the_single_file_preloads_nothing(fake_repo, tmp_path):
    out = tmp_path / "site"
    build_dist.build(fake_repo, out)
    site_page = (out / "index.html").read_text()
    hrefs = PRELOAD.findall(site_page)
    assert hrefs[-1] == "app/engine.zip" and hrefs.count("app/engine.zip") == 1
    assert hrefs[:-1] == PRELOAD.findall((fake_repo / "index.html").read_text())
    for h in hrefs:
        assert (out / h).is_file(), h
    # The rest of the page is the repository's, byte for byte.
    assert re.sub(r'\s*<link rel="preload" href="app/engine.zip"[^>]*>', "", site_page) == \
        re.sub(r"\r\n", "\n", (fake_repo / "index.html").read_text())
    single = tmp_path / "one.html"
    build_offline.build(fake_repo, single, level=1)
    markup = re.sub(r"<script\b.*?</script>", "", single.read_text(), flags=re.S)
    assert not re.search(r'<link\s+rel="preload"', markup)


# --- tools/serve.py: the gzip host and the emulated link of the deploy benchmark ----------
def test_throttle_is_one_link_shared_by_every_connection(monkeypatch):
    """--throttle 8:40 is 1 MB/s for all connections together (a fake clock: no wall time)."""
    import serve

    now = [100.0]

    def sleep(d):
        now[0] += d

    monkeypatch.setattr(serve.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(serve.time, "sleep", sleep)
    link = serve.Throttle.parse("8:40")
    assert link.bytes_per_s == 1e6 and link.rtt_s == pytest.approx(0.04)
    link.send(500_000)
    assert now[0] == pytest.approx(100.5)
    # Two connections that send at the same moment: the second waits for the first.
    now[0] = 200.0
    link.send(250_000)
    assert now[0] == pytest.approx(200.25)
    now[0] = 200.0
    link.send(250_000)
    assert now[0] == pytest.approx(200.5)
    # An idle link does not bank credit.
    now[0] = 300.0
    link.send(100_000)
    assert now[0] == pytest.approx(300.1)
    with pytest.raises(ValueError):
        serve.Throttle.parse("0")


def test_gzip_server_compresses_and_answers_revalidation_with_304(tmp_path):
    """A Web Worker revalidates what the page preloaded (Cache-Control: no-cache): the gzip
    host must answer 304, not send the file again."""
    import urllib.error
    import urllib.request

    import serve

    write(tmp_path, "big.wasm", b"\0asm" + bytes(50_000))
    with serve.Background(serve.make_server(tmp_path, "127.0.0.1", 0, quiet=True, gzip=True)) as served:
        url = f"{served.url}/big.wasm"
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})) as r:
            assert r.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(r.read()) == (tmp_path / "big.wasm").read_bytes()
            stamp = r.headers["Last-Modified"]
        again = urllib.request.Request(url, headers={"Accept-Encoding": "gzip", "If-Modified-Since": stamp})
        with pytest.raises(urllib.error.HTTPError) as not_modified:
            urllib.request.urlopen(again)
        assert not_modified.value.code == 304
        not_modified.value.close()  # an HTTPError holds the connection open


@pytest.mark.parametrize("gzip_on", [True, False])
def test_an_older_file_than_the_browsers_copy_is_sent_not_304(tmp_path, gzip_on):
    """`make run` after previewing dist/site on the same port: the repository's older sw.js must
    reach the browser (its update is how a browser learns of another build); a 304 for any file
    no newer than the browser's copy kept the dist build's worker in control for ever."""
    import email.utils
    import os
    import urllib.request

    import serve

    write(tmp_path, "sw.js", b"const BUILD = null;\n")
    os.utime(tmp_path / "sw.js", (1_700_000_000, 1_700_000_000))
    newer = email.utils.formatdate(1_800_000_000, usegmt=True)  # the other build's sw.js was newer
    with serve.Background(serve.make_server(tmp_path, "127.0.0.1", 0, quiet=True, gzip=gzip_on)) as served:
        req = urllib.request.Request(f"{served.url}/sw.js", headers={"Accept-Encoding": "gzip", "If-Modified-Since": newer})
        with urllib.request.urlopen(req) as r:
            assert r.status == 200
            body = r.read()
            if r.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            assert body == b"const BUILD = null;\n"



@pytest.mark.parametrize("gzip_on", [True, False])
def test_a_file_rewritten_within_the_same_second_is_sent_again(tmp_path, gzip_on):
    """Last-Modified has whole seconds: a file rebuilt within the second the browser's copy was
    sent (a quick `make dist` and reload) answered 304 and the old file stayed.  The server now
    tags each version (ETag: nanosecond time, size, encoding) and a browser revalidates with it."""
    import os
    import urllib.error
    import urllib.request

    import serve

    path = write(tmp_path, "sw.js", b"const BUILD = 'a';\n")
    os.utime(path, ns=(1_700_000_000_100_000_000, 1_700_000_000_100_000_000))
    with serve.Background(serve.make_server(tmp_path, "127.0.0.1", 0, quiet=True, gzip=gzip_on)) as served:
        url = f"{served.url}/sw.js"

        def get(**headers):
            req = urllib.request.Request(url, headers={"Accept-Encoding": "gzip", **headers})
            try:
                with urllib.request.urlopen(req) as r:
                    body = r.read()
                    body = gzip.decompress(body) if r.headers.get("Content-Encoding") == "gzip" else body
                    return r.status, r.headers["ETag"], body
            except urllib.error.HTTPError as exc:
                exc.close()
                return exc.code, exc.headers["ETag"], None

        status, tag, body = get()
        assert status == 200 and body == b"const BUILD = 'a';\n" and tag
        assert tag.endswith('-gz"') == gzip_on  # the gzip body is another representation
        assert get(**{"If-None-Match": tag})[:2] == (304, tag)  # unchanged: one round trip
        path.write_bytes(b"const BUILD = 'b';\n")  # the same size, the same second
        os.utime(path, ns=(1_700_000_000_600_000_000, 1_700_000_000_600_000_000))
        status, tag2, body = get(**{"If-None-Match": tag})
        assert (status, body) == (200, b"const BUILD = 'b';\n") and tag2 != tag
        assert get(**{"If-None-Match": f'W/{tag2}, "other"'})[0] == 304  # a list, a weak tag
        assert get(**{"If-None-Match": "*"})[0] == 304
        req = urllib.request.Request(f"{served.url}/nothing.js")
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(req)
        assert missing.value.code == 404 and missing.value.headers["ETag"] is None  # no file, no tag
        missing.value.close()
