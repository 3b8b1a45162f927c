"""pytest-pyodide setup: the engine's tests inside Pyodide itself (Node, and Chromium).

* The dist folder is ``dist/pyodide-test`` (``tools/pyodide_test_dist.py``: the vendored
  runtime, pytest's wheels from PyPI, a lock cut down to them); it is (re)built here when
  this folder is collected, so ``pytest tests/pyodide`` works after ``make vendor``.
* The engine's source (``app/swarmlab``) and the unit tests that run inside Pyodide are
  zipped fresh for every session into that folder (``swarmlab-src.zip``) and unpacked
  inside Pyodide by the ``engine`` fixture, so a test never sees a stale copy.
* Runtimes: ``--rt node,chrome`` (pyproject's addopts).  Chromium is Debian's
  (``$CHROMIUM`` or /usr/bin/chromium) through Playwright: :func:`playwright_browsers`
  overrides pytest-pyodide's fixture, which would look for Playwright's own download.
"""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))

import pyodide_test_dist  # noqa: E402
from pyodide_test_dist import INSIDE_TESTS  # noqa: E402
from browser_paths import chromium_path  # noqa: E402

SRC_ZIP = "swarmlab-src.zip"
CHROME_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
               "--js-flags=--expose-gc"]


def _source_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted((ROOT / "app" / "swarmlab").rglob("*.py")):
            z.write(f, f.relative_to(ROOT).as_posix())
        for name in ("oracles.py",) + INSIDE_TESTS:
            z.write(ROOT / "tests" / "unit" / name, f"tests/unit/{name}")
    return buf.getvalue()


def pytest_configure(config):
    try:
        dist = pyodide_test_dist.build()
    except SystemExit as exc:  # DistError: a readable message
        raise pytest.UsageError(str(exc)) from None
    (dist / SRC_ZIP).write_bytes(_source_zip())
    config.option.dist_dir = dist
    pytest.pyodide_dist_dir = dist


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Run these tests first.  Playwright's sync API cannot start while another sync
    Playwright is alive (tests/browser keeps one for the whole session), and the one
    here is module-scoped, so it must be done before tests/browser begins."""
    here = [it for it in items if Path(str(it.fspath)).parent == HERE]
    if here:
        items[:] = here + [it for it in items if Path(str(it.fspath)).parent != HERE]


@pytest.fixture(scope="module")
def playwright_browsers(request):
    """Chromium for the "chrome" runtime: Debian's binary when there is one."""
    runtimes = getattr(pytest, "pyodide_runtimes", set())
    if request.config.option.runner.lower() != "playwright" or "chrome" not in runtimes:
        yield {}
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        exe = chromium_path()
        browser = p.chromium.launch(executable_path=exe, args=CHROME_ARGS) if exe else p.chromium.launch(args=CHROME_ARGS)
        try:
            yield {"chrome": browser}
        finally:
            browser.close()


@pytest.fixture
def engine(selenium):
    """``selenium`` with the current engine source unpacked at /tmp/src and on sys.path."""
    if hasattr(selenium, "p"):  # the Node runner waits for each result with pexpect's
        selenium.p.timeout = 300  # default 60 s: too short for a whole unit file on a busy machine
    selenium.run_async(f"""
        import sys, zipfile, io
        if "/tmp/src/app" not in sys.path:
            from pyodide.http import pyfetch
            data = await (await pyfetch({SRC_ZIP!r})).bytes()
            zipfile.ZipFile(io.BytesIO(data)).extractall("/tmp/src")
            sys.path[:0] = ["/tmp/src/app", "/tmp/src/tests/unit"]
    """)
    return selenium
