#!/usr/bin/env python3
"""Build ``dist/swarm-lab.html``: the whole app in ONE file that runs from ``file://``.

A student double-clicks it, with no network, and all three labs run.  The file makes
no request except to ``data:`` and ``blob:`` URLs.

Why it is built this way
------------------------
A page opened from a file has the origin "null": Chromium refuses to load module
scripts from other files and refuses ``fetch()`` of other files.  PyScript and Pyodide
are modules and fetch their runtime, so a plain folder cannot be double-clicked.  What
does work (see /work/shared/RUNTIME-FACTS.md for the measurements):

1. **An import map** maps every JavaScript module to a ``data:text/javascript;base64``
   URL.  Data-URL modules may be loaded from ``file://``, but they cannot resolve
   relative specifiers (a data: URL is no base), so every relative specifier is first
   rewritten to a bare name that the import map knows:
     - PyScript chunks: ``"./core-x.js"`` -> ``"pyscript/core-x.js"``;
     - our own modules: ``"./engine.js"`` in assets/js/app.js ->
       ``"swarmlab/assets/js/engine.js"``, including the template-literal dynamic
       import ``./labs/${lab}.js`` (a lab module that does not exist stays unresolvable,
       so app.js shows that lab's error exactly as it does when served);
     - ``import.meta.url`` in our modules becomes the URL the module would have had.
   ``pyodide/pyodide.mjs`` and ``./pyodide/pyodide.mjs`` both map to pyodide.mjs
   (PyScript imports the interpreter by its absolute URL, which matches the URL-like key).
   Import maps resolve keys, not files, so chunk cycles are no problem.
2. **Only the PyScript chunks that are loaded** are embedded: the static-import closure
   of core.js plus the plugin table in the core chunk (PyScript imports each plugin at
   start), plus their static imports, plus the CodeMirror chunks of PyScript's
   ``codemirror`` export (the "Rules in Python" editor, assets/js/ui/rules.js).  Every other chunk maps to a small stub that
   reports "left out of the single-file build" as an error, so a wrong guess fails loudly
   (the browser test checks it never fires).  No TOML parser: the config is inline JSON.
3. **Binary runtime files** (``pyodide.asm.wasm``, ``python_stdlib.zip``,
   ``pyodide-lock.json``, the numpy wheel, ``pyodide.asm.js``) and the Python files
   (``app/main.py`` + pyscript.toml's ``[files]`` packed as ``app/engine.zip`` with their
   ``.pyc``, as in the built site: tools/engine_archive.py) are stored gzip-compressed and base64
   encoded in inert ``<script type="application/x-swarmlab-gzip">`` elements at the end
   of the body, and decoded with ``DecompressionStream('gzip')``.
4. **A fetch shim**, installed before boot.js (so boot.js still measures progress), answers
   requests by path relative to the page (falling back to a unique file name) with the
   decoded bytes and the right Content-Type (``application/wasm`` for the wasm).  Every
   other request passes through untouched.
5. **pyodide.asm.js** is decoded and run as a classic inline script before PyScript
   starts; it defines the global ``_createPyodideModule``, so Pyodide does not load it.
6. **The PyScript config is inline JSON** (``config='{...}'``) with the interpreter
   ``pyodide/pyodide.mjs`` (mapped through the import map), ``packages_cache =
   "passthrough"`` and the ``[files]`` table of pyscript.toml.
7. No service worker: a file has no origin to register one for, so the
   ``assets/js/sw-register.js`` script is dropped (and the file needs none: it holds
   everything).
8. ``window.SWARMLAB_SINGLE_FILE = true`` is set before boot.js runs, so boot.js does not
   show its "opened as a file" explanation.  CSS is inlined; images become data: URLs;
   stylesheets a lab adds at run time (``<link href="assets/css/<lab>.css">``) are
   redirected to data: URLs by a small hook on ``HTMLLinkElement.href`` / ``setAttribute``.

The build is deterministic (sorted inputs, gzip mtime 0) and standard library only.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import html
import json
import posixpath
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_dist import ENGINE_ARCHIVE, toml_loads, write_engine  # noqa: E402  (tomllib, or a fallback on Python 3.10)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "dist" / "swarm-lab.html"
VENDOR = "assets/vendor"
PYSCRIPT_DIR = f"{VENDOR}/pyscript"
PYODIDE_DIR = f"{VENDOR}/pyodide"
JS_DIR = "assets/js"
CSS_DIR = "assets/css"
SW_REGISTER = f"{JS_DIR}/sw-register.js"   # the service worker's register script: not in a file
OWN_PREFIX = "swarmlab/"          # bare-specifier prefix of our own modules in the import map
PYSCRIPT_PREFIX = "pyscript/"     # ... and of PyScript's chunks
INTERPRETER = "pyodide/pyodide.mjs"
BLOB_TYPE = "application/x-swarmlab-gzip"

# Runtime files Pyodide fetches from its indexURL (the folder of pyodide.mjs), served by
# the fetch shim under pyodide/<name>.  The numpy wheel's name comes from the lock.
PYODIDE_FETCHED = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PACKAGES = ("numpy",)
MIME = {
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".json": "application/json",
    ".py": "text/x-python; charset=utf-8",
    ".js": "text/javascript",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".webp": "image/webp",
    ".css": "text/css",
}


class BuildError(SystemExit):
    def __init__(self, message: str):
        super().__init__(f"build_offline: ERROR: {message}")


# --- small pure helpers ------------------------------------------------------------------
def gz_b64(data: bytes, level: int = 9) -> str:
    """gzip (mtime 0, so deterministic) then base64."""
    return base64.b64encode(gzip.compress(data, compresslevel=level, mtime=0)).decode("ascii")


def data_url(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def js_data_url(source: str, name: str) -> str:
    """A JavaScript module as a data: URL; sourceURL names it in devtools and stack traces."""
    return data_url(f"{source}\n//# sourceURL={name}\n".encode("utf-8"), "text/javascript")


def script_safe(text: str) -> str:
    """Make text safe inside an inline <script> element (no early </script>, no <!--)."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.I).replace("<!--", "<\\!--")


def mime_of(name: str) -> str:
    return MIME.get(Path(name).suffix.lower(), "application/octet-stream")


# --- PyScript chunks -----------------------------------------------------------------------
STATIC_IMPORT = re.compile(r"""(?:\bfrom|\bimport)\s*(["'])\./([\w.\-]+\.js)\1""")
PLUGIN_IMPORT = re.compile(r"""["']?[\w\-]+["']?\s*:\s*\(\)\s*=>\s*import\(\s*(["'])\./([\w.\-]+\.js)\1\s*\)""")


def static_imports(source: str) -> set[str]:
    """Names of sibling chunks a chunk imports statically (import ... from "./x.js")."""
    return {m.group(2) for m in STATIC_IMPORT.finditer(source)}


# PyScript's `codemirror` export (core.js) loads the editor's chunks on demand; the "Rules in
# Python" panel (assets/js/ui/rules.js) uses it, so the single file carries them too.
EDITOR_IMPORT = re.compile(r"""\bimport\(\s*(["'])\./(codemirror[\w.\-]*\.js)\1\s*\)""")


def editor_imports(source: str) -> set[str]:
    """The CodeMirror chunks behind PyScript's `codemirror` export."""
    return {m.group(2) for m in EDITOR_IMPORT.finditer(source)}


def plugin_imports(source: str) -> set[str]:
    """Chunks of PyScript's plugin table ({name: () => import("./x.js")}), all loaded at start."""
    return {m.group(2) for m in PLUGIN_IMPORT.finditer(source)}


def pyscript_closure(chunks: dict[str, str], entry: str = "core.js") -> list[str]:
    """The chunks PyScript loads: static closure of ``entry`` and of every plugin chunk."""
    if entry not in chunks:
        raise BuildError(f"{PYSCRIPT_DIR}/{entry} is missing: run `make vendor`")
    seen: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in chunks:
            raise BuildError(f"PyScript chunk {name} is imported but not vendored")
        seen.add(name)
        src = chunks[name]
        todo.extend(static_imports(src) | plugin_imports(src) | editor_imports(src))
    return sorted(seen)


def rewrite_chunk(source: str, names: set[str]) -> str:
    """``"./x.js"`` -> ``"pyscript/x.js"`` for every vendored chunk name x.js."""
    def sub(m: re.Match) -> str:
        q, name = m.group(1), m.group(2)
        return f"{q}{PYSCRIPT_PREFIX}{name}{q}" if name in names else m.group(0)
    return re.sub(r"""(["'])\./([\w.\-]+\.js)\1""", sub, source)


def stub_module(name: str) -> str:
    msg = (f"Error: [swarmlab single file] PyScript module {name} was left out of this build; "
           "add it in tools/build_offline.py")
    return f"console.error({json.dumps(msg)});throw new Error({json.dumps(msg)});"


# --- our own modules -------------------------------------------------------------------------
OWN_SPECIFIER = re.compile(
    r"""(?P<lead>\bimport\s*\(\s*|\bfrom\s*|\bimport\s+|\bexport\s*\*\s*from\s*)"""
    r"""(?P<q>["'`])(?P<spec>\.{1,2}/[^"'`\n]*)(?P=q)"""
)


def resolve_relative(importer: str, spec: str) -> str:
    """Repo-relative path of ``spec`` imported from the repo-relative module ``importer``."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))


def rewrite_own_module(rel: str, source: str, own: set[str], chunks: set[str]) -> str:
    """Rewrite relative import specifiers of our module ``rel`` to import-map names.

    Template literals (``./labs/${lab}.js``) are rewritten the same way; the import map
    holds every real module, so an unknown lab fails to resolve exactly as a 404 would.
    """
    def sub(m: re.Match) -> str:
        spec = m.group("spec")
        target = resolve_relative(rel, spec)
        q = m.group("q")
        if "${" in target or target in own:
            new = OWN_PREFIX + target
        elif target.startswith(PYSCRIPT_DIR + "/") and posixpath.basename(target) in chunks:
            new = PYSCRIPT_PREFIX + posixpath.basename(target)
        else:
            raise BuildError(f"{rel} imports {spec!r} ({target}), which is not a module of the app")
        return f"{m.group('lead')}{q}{new}{q}"

    out = OWN_SPECIFIER.sub(sub, source)
    # A data: module has a data: URL as import.meta.url; give it its real place instead.
    return out.replace("import.meta.url", f"new URL({json.dumps(rel)}, document.baseURI).href")


# --- the HTML --------------------------------------------------------------------------------
LOCAL_ATTR = re.compile(r"""\b(src|href)\s*=\s*"(?!data:|https?:|#|\?|mailto:|//)([^"]+)\"""")
CSS_URL = re.compile(r"""url\(\s*(["']?)(?!data:|https?:|#)([^"')]+)\1\s*\)""")


def inline_css(root: Path, rel: str) -> str:
    """A stylesheet with its url(...) references turned into data: URLs."""
    css = (root / rel).read_text(encoding="utf-8")

    def sub(m: re.Match) -> str:
        target = resolve_relative(rel, m.group(2))
        p = root / target
        if not p.is_file():
            raise BuildError(f"{rel} refers to {m.group(2)} ({target}), which does not exist")
        return f'url("{data_url(p.read_bytes(), mime_of(target))}")'
    return CSS_URL.sub(sub, css)


SHIM_JS = r"""
window.SWARMLAB_SINGLE_FILE = true;
/* Swarm Lab single file: answers the runtime's fetches from data embedded in this page. */
(function () {
  "use strict";
  var FILES = __FILES__;   /* path relative to this page -> {id, type, size} */
  var CSS = __CSS__;       /* stylesheet path -> data: URL (for <link> added by labs) */
  var realFetch = window.fetch.bind(window);
  var byName = {};
  Object.keys(FILES).forEach(function (rel) {
    var name = rel.split("/").pop();
    byName[name] = byName[name] === undefined ? rel : null;  /* null: ambiguous */
  });
  function relOf(url, table) {
    var u;
    try { u = new URL(String(url), document.baseURI); } catch (e) { return null; }
    if (u.protocol === "data:" || u.protocol === "blob:") return null;
    var here = new URL(".", document.baseURI).href;
    var href = u.href.split("#")[0].split("?")[0];
    var rel = null;
    try { rel = href.indexOf(here) === 0 ? decodeURIComponent(href.slice(here.length)) : null; } catch (e) { /* bad escape */ }
    if (rel !== null && Object.prototype.hasOwnProperty.call(table, rel)) return rel;
    if (table === FILES && u.origin === location.origin) {
      var alt = byName[href.split("/").pop()];
      if (alt) return alt;
    }
    return null;
  }
  function bytesOf(id) {
    var el = document.getElementById(id);
    if (!el) throw new Error("Swarm Lab single file: embedded data " + id + " is missing (the file is damaged)");
    var text = el.textContent.trim();
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
    var bin = atob(text), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function stream(rel) {
    return new Blob([bytesOf(FILES[rel].id)]).stream().pipeThrough(new DecompressionStream("gzip"));
  }
  function text(rel) { return new Response(stream(rel)).text(); }
  window.fetch = function (input, init) {
    var url = typeof input === "string" ? input : (input && (input.href || input.url));
    var rel = url ? relOf(url, FILES) : null;
    if (rel === null) return realFetch(input, init);
    try {
      var f = FILES[rel];
      return Promise.resolve(new Response(stream(rel), {
        status: 200, statusText: "OK",
        headers: { "Content-Type": f.type, "Content-Length": String(f.size) },
      }));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  /* Labs add stylesheet links to assets/css/<lab>.css: point those at data: URLs. */
  function mapCss(v) {
    var rel = relOf(v, CSS);
    return rel === null ? v : CSS[rel];
  }
  var hrefDesc = Object.getOwnPropertyDescriptor(HTMLLinkElement.prototype, "href");
  Object.defineProperty(HTMLLinkElement.prototype, "href", {
    configurable: true, enumerable: hrefDesc.enumerable, get: hrefDesc.get,
    set: function (v) { hrefDesc.set.call(this, mapCss(v)); },
  });
  var setAttr = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (this instanceof HTMLLinkElement && String(name).toLowerCase() === "href") value = mapCss(value);
    return setAttr.call(this, name, value);
  };
  new MutationObserver(function (records) {  /* links created from HTML strings */
    records.forEach(function (r) {
      r.addedNodes.forEach(function (n) {
        var links = n.nodeType !== 1 ? [] : (n.matches("link[href]") ? [n] : n.querySelectorAll("link[href]"));
        Array.prototype.forEach.call(links, function (l) {
          var v = l.getAttribute("href"), m = mapCss(v);
          if (m !== v) setAttr.call(l, "href", m);
        });
      });
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
  /* pyodide.asm.js runs as a classic script (it defines _createPyodideModule). */
  async function runtimeScript() {
    var source = await text(__ASM__);
    var s = document.createElement("script");
    s.textContent = source;
    document.head.appendChild(s);
    if (typeof window._createPyodideModule !== "function") throw new Error("pyodide.asm.js did not define _createPyodideModule");
  }
  window.SwarmlabSingleFile = { files: FILES, fetch: window.fetch, runtimeScript: runtimeScript };
})();
"""

START_MODULE = """
await window.SwarmlabSingleFile.runtimeScript();
await import("pyscript/core.js");
"""


def offline_config(toml_text: str) -> dict:
    """The PyScript config as inline JSON: interpreter through the import map, passthrough."""
    cfg = toml_loads(toml_text)
    cfg["interpreter"] = INTERPRETER
    cfg["packages_cache"] = "passthrough"
    cfg.setdefault("packages", list(PACKAGES))
    return cfg


def python_sources(cfg: dict) -> list[str]:
    """app/main.py plus the [files] sources, as repo-relative paths."""
    out = {"app/main.py"}
    for src in cfg.get("files", {}):
        out.add(posixpath.normpath(src.removeprefix("./")))
    return sorted(out)


def numpy_wheel(root: Path) -> list[str]:
    lock = json.loads((root / PYODIDE_DIR / "pyodide-lock.json").read_text())
    return [lock["packages"][p]["file_name"] for p in PACKAGES]


class Builder:
    """Collects everything, then renders the page.  ``level`` is the gzip level."""

    def __init__(self, root: Path = ROOT, level: int = 9):
        self.root = root
        self.level = level
        self.blobs: list[tuple[str, str, str]] = []  # (id, rel, base64)
        self.files: dict[str, dict] = {}             # rel -> {id, type, size}
        self.stats: dict[str, int] = {}

    def read(self, rel: str) -> bytes:
        p = self.root / rel
        if not p.is_file():
            hint = "run `make vendor`" if rel.startswith(VENDOR) else "run `python3 tools/pyfiles.py`?"
            raise BuildError(f"{rel} is missing ({hint})")
        return p.read_bytes()

    def embed(self, served_as: str, source_rel: str | None = None, data: bytes | None = None) -> str:
        data = self.read(source_rel) if data is None else data
        bid = f"sl-{len(self.blobs)}"
        self.blobs.append((bid, served_as, gz_b64(data, self.level)))
        self.files[served_as] = {"id": bid, "type": mime_of(served_as), "size": len(data)}
        return bid

    # -- the import map --
    def import_map(self) -> dict[str, str]:
        root = self.root
        chunk_files = sorted(p.name for p in (root / PYSCRIPT_DIR).glob("*.js"))
        chunks = {n: (root / PYSCRIPT_DIR / n).read_text(encoding="utf-8") for n in chunk_files}
        used = pyscript_closure(chunks)
        names = set(chunk_files)
        imports: dict[str, str] = {}
        for n in chunk_files:
            src = rewrite_chunk(chunks[n], names) if n in used else stub_module(n)
            imports[PYSCRIPT_PREFIX + n] = js_data_url(src, f"{PYSCRIPT_DIR}/{n}")
        self.stats["pyscript_chunks"] = len(used)
        self.used_chunks = used
        mjs = js_data_url(self.read(f"{PYODIDE_DIR}/pyodide.mjs").decode("utf-8"), f"{PYODIDE_DIR}/pyodide.mjs")
        imports[INTERPRETER] = mjs
        imports["./" + INTERPRETER] = mjs
        own = sorted(p.relative_to(root).as_posix() for p in (root / JS_DIR).rglob("*.js"))
        own = [r for r in own if r not in (f"{JS_DIR}/boot.js", SW_REGISTER)]
        own_set = set(own)
        for rel in own:
            src = rewrite_own_module(rel, (root / rel).read_text(encoding="utf-8"), own_set, names)
            imports[OWN_PREFIX + rel] = js_data_url(src, rel)
        self.stats["own_modules"] = len(own)
        return imports

    def css_table(self) -> dict[str, str]:
        base = self.root / CSS_DIR
        return {p.relative_to(self.root).as_posix(): data_url(inline_css(self.root, p.relative_to(self.root).as_posix()).encode("utf-8"), "text/css")
                for p in sorted(base.rglob("*.css"))}

    def render(self) -> str:
        root = self.root
        page = (root / "index.html").read_text(encoding="utf-8")
        cfg = offline_config((root / "pyscript.toml").read_text(encoding="utf-8"))

        # Embedded files, in a fixed order.
        for name in PYODIDE_FETCHED + tuple(numpy_wheel(root)):
            self.embed(f"pyodide/{name}", f"{PYODIDE_DIR}/{name}")
        # The engine as one archive with its .pyc (tools/engine_archive.py), like the built site.
        if cfg.get("files"):
            with tempfile.TemporaryDirectory(prefix="swarmlab-offline-") as t:
                info = write_engine(root, Path(t) / "engine.zip")
                engine = (Path(t) / "engine.zip").read_bytes()
            self.stats["engine_pyc"] = info["pyc"]
            cfg["files"] = {f"./{ENGINE_ARCHIVE}": "./*"}
        for rel in python_sources(cfg):
            if rel == ENGINE_ARCHIVE:
                self.embed(rel, data=engine)
            else:
                self.embed(rel, rel)
        self.embed("pyodide/pyodide.asm.js", f"{PYODIDE_DIR}/pyodide.asm.js")

        imap = self.import_map()
        css = self.css_table()
        shim = (SHIM_JS.replace("__FILES__", json.dumps(self.files, sort_keys=True))
                .replace("__CSS__", json.dumps(css, sort_keys=True))
                .replace("__ASM__", json.dumps("pyodide/pyodide.asm.js")))
        boot = (root / JS_DIR / "boot.js").read_text(encoding="utf-8")

        def once(pattern: str, repl, text: str, what: str) -> str:
            new, n = re.subn(pattern, repl, text, count=1, flags=re.S)
            if n != 1:
                raise BuildError(f"index.html: could not find {what} (pattern {pattern!r})")
            return new

        head_extra = (
            f'<script type="importmap">{script_safe(json.dumps({"imports": imap}, sort_keys=True))}</script>\n'
            f"  <script>{script_safe(shim)}</script>\n"
            f"  <script>{script_safe(boot)}</script>"
        )
        # Preload tags name files of the served runtime; this file carries them inside.
        page = re.sub(r'[ \t]*<link\s+rel="preload"[^>]*>\n?', "", page)
        page = once(r'<script\s+src="assets/js/boot\.js"\s*>\s*</script>', lambda m: head_extra, page, "boot.js")
        page = once(r'<link\s+rel="stylesheet"\s+href="assets/css/app\.css"\s*/?>',
                    lambda m: f"<style>{inline_css(root, 'assets/css/app.css')}</style>", page, "app.css")
        page = once(r'<script\s+type="module"\s+src="assets/js/app\.js"\s*>\s*</script>',
                    lambda m: f'<script type="module">import "{OWN_PREFIX}assets/js/app.js";</script>', page, "app.js")
        page = once(r'\s*<script\s+type="module"\s+src="assets/js/sw-register\.js"\s*>\s*</script>', lambda m: "",
                    page, "sw-register.js")
        page = once(r'<script\s+type="module"\s+src="assets/vendor/pyscript/core\.js"\s*>\s*</script>',
                    lambda m: f'<script type="module">{START_MODULE}</script>', page, "core.js")
        config_attr = html.escape(json.dumps(cfg, sort_keys=True, separators=(",", ":")), quote=True)
        page = once(r'(<script\s+type="py"\s+src="[^"]*")\s+config="[^"]*"', lambda m: f'{m.group(1)} config="{config_attr}"',
                    page, "the py script's config")
        # The download note is not true of this file.
        page = re.sub(r"The first visit downloads about [^<.]*(?:\.[^<]*?)?(?=</p>)",
                      "This one file holds everything it needs, so it works without a network.", page, count=1)

        def local(m: re.Match) -> str:
            attr, target = m.group(1), m.group(2)
            rel = posixpath.normpath(target.split("?")[0].removeprefix("./"))
            p = root / rel
            if not p.is_file():
                raise BuildError(f"index.html refers to {target}, which does not exist")
            if rel.endswith((".js", ".mjs", ".css", ".py", ".toml")):
                raise BuildError(f"index.html loads {target}; teach build_offline.py to inline it")
            return f'{attr}="{data_url(p.read_bytes(), mime_of(rel))}"'

        # Only the markup outside <script> bodies (a py script's src is served by the shim).
        parts = re.split(r"(<script\b.*?</script>)", page, flags=re.S)
        for i in range(0, len(parts), 2):
            parts[i] = LOCAL_ATTR.sub(local, parts[i])
        page = "".join(parts)

        blobs = "\n".join(f'<script type="{BLOB_TYPE}" id="{bid}" data-name="{html.escape(rel)}">{b64}</script>'
                          for bid, rel, b64 in self.blobs)
        page = once(r"</body>", lambda m: f"<!-- embedded runtime and engine (gzip, base64) -->\n{blobs}\n</body>",
                    page, "</body>")
        banner = ("<!-- Swarm Lab, single-file build (tools/build_offline.py). Open it directly: "
                  "it needs no server and no network. -->\n")
        return page.replace("<!doctype html>", "<!doctype html>\n" + banner, 1)


def build(root: Path = ROOT, out: Path = OUT, level: int = 9) -> dict:
    t0 = time.perf_counter()
    b = Builder(root, level)
    page = b.render()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(out)
    return {"bytes": out.stat().st_size, "seconds": time.perf_counter() - t0,
            "embedded": len(b.blobs), "chunks": b.used_chunks, **b.stats}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build dist/swarm-lab.html, the single-file app.")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--level", type=int, default=9, help="gzip level (1-9)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    info = build(ROOT, out, args.level)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"build_offline: wrote {shown}: {info['bytes'] / 1e6:.1f} MB "
          f"({info['embedded']} embedded files, {info['pyscript_chunks']} PyScript chunks, "
          f"{info['own_modules']} app modules) in {info['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
