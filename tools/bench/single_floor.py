"""The single file's floor: ``dist/bench/single-floor.html``, the stack without the app.

``dist/swarm-lab.html`` (tools/build_offline.py) built from a copy of this checkout in which
the page's own code does nothing but start PyScript's Python script, and that script
(``app/main.py``) only imports numpy and notes the time.  Everything else is the same: the
same 12.8 MB file to read (runtime, engine archive, every module in the import map), the same
fetch shim and boot supervisor, PyScript and Pyodide on the page's main thread as the single
file runs them.  Its "first frame" (``window.__bench.done``) is what the single file costs
before any of the app's own work: the deploy bench's floor for the ``file://`` row.

    .venv/bin/python -m tools.bench.single_floor      # writes dist/bench/single-floor.html
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "dist" / "bench" / "single-floor.html"

# The page's app: start the engine's py script as engine.js does on the main thread.
APP_JS = """// single-file floor (tools/bench/single_floor.py): no app, only the engine's py script.
const script = document.getElementById("engine-script").content.querySelector("script");
document.body.append(script.cloneNode(true));
"""
# The engine's script: numpy, then the time.
MAIN_PY = """# single-file floor (tools/bench/single_floor.py): no engine, only numpy.
import numpy  # noqa: F401
import js

js.window.__bench.done = js.performance.now()
"""


def _mirror(src: Path, dst: Path, replace: dict[str, str], deep: bool = False) -> None:
    """``dst`` mirrors ``src`` by symlinks, except the files named in ``replace`` (relative
    paths), which are written with the given text.  The folders that hold them are mirrored
    file by file, all the way down (``deep``), since the build lists them recursively and a
    recursive listing does not enter a symlinked folder."""
    dst.mkdir(parents=True, exist_ok=True)
    heads = {rel.split("/", 1)[0] for rel in replace}
    for entry in src.iterdir():
        if entry.is_dir() and (deep or entry.name in heads):
            inner = {rel.split("/", 1)[1]: text for rel, text in replace.items() if rel.startswith(entry.name + "/")}
            _mirror(entry, dst / entry.name, inner, deep=True)
        elif entry.name in replace:
            (dst / entry.name).write_text(replace[entry.name], encoding="utf-8")
        else:
            (dst / entry.name).symlink_to(entry)


def build(out: Path = OUT) -> dict:
    sys.path.insert(0, str(ROOT / "tools"))
    import build_offline  # noqa: PLC0415 (tools/ is not a package)

    with tempfile.TemporaryDirectory(prefix="swarmlab-floor-") as t:
        root = Path(t) / "root"
        _mirror(ROOT, root, {"assets/js/app.js": APP_JS, "app/main.py": MAIN_PY})
        return build_offline.build(root, out)


def main() -> int:
    info = build()
    print(f"single_floor: wrote {OUT.relative_to(ROOT)}: {info['bytes'] / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
