"""Browser-test fixtures: a static server on a loopback port and a real Chromium.

Chromium: $CHROMIUM, else /usr/bin/chromium (Debian), else Playwright's own
download (`playwright install chromium`, which `make test` runs when no system
Chromium exists).

Fixtures
--------
server      base URL of the repo root served by tools/serve.py (session-scoped)
browser     a Playwright Browser (session-scoped)
page        a fresh Page at 1280x800 whose console errors and outside requests are recorded
open_lab    open_lab("swarm", query="sample=7", page=None) -> Page after the engine is ready
phone_page  a fresh Page at 390x844 with touch
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from serve import make_server  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))
from browserlib import BOOT_TIMEOUT_MS, Served, wait_ready  # noqa: E402,F401

CHROME_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--disable-quic",
]


def chromium_path() -> str | None:
    for cand in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if cand and Path(cand).exists():
            return cand
    return None  # Playwright's bundled browser


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def serve_root():
    """Start extra servers: serve_root(path, csp=None) -> Served (closed at session end)."""
    started = []

    def start(root: Path = ROOT, csp: str | None = None) -> Served:
        s = Served(make_server(root, "127.0.0.1", 0, csp=csp, quiet=True))
        started.append(s)
        return s

    yield start
    for s in started:
        s.close()


@pytest.fixture(scope="session")
def server(serve_root):
    if not (ROOT / "assets" / "vendor" / "VENDORED.json").exists():
        pytest.fail("assets/vendor is missing: run `make test` (it vendors the runtime) or `python3 tools/vendor.py`")
    return serve_root(ROOT).url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        kwargs = {"args": CHROME_ARGS}
        exe = chromium_path()
        if exe:
            kwargs["executable_path"] = exe
        b = p.chromium.launch(**kwargs)
        yield b
        b.close()


class PageRecorder:
    """Records console errors, page errors and requests that leave the served origin."""

    def __init__(self, page, origin: str):
        self.page = page
        self.origin = origin
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))

    def outside_requests(self) -> list[str]:
        ok = (self.origin, "data:", "blob:")
        return [u for u in self.requests if not u.startswith(ok)]


def _new_page(browser, server, **ctx_kwargs):
    context = browser.new_context(**ctx_kwargs)
    page = context.new_page()
    page.rec = PageRecorder(page, server)
    return context, page


@pytest.fixture
def page(browser, server):
    context, page = _new_page(browser, server, viewport={"width": 1280, "height": 800})
    yield page
    context.close()


@pytest.fixture
def phone_page(browser, server):
    context, page = _new_page(browser, server, viewport={"width": 390, "height": 844}, has_touch=True,
                              is_mobile=True, device_scale_factor=2)
    yield page
    context.close()


@pytest.fixture
def open_lab(page, server):
    def open_(lab: str, query: str = "", target=None):
        p = target or page
        url = f"{server}/?lab={lab}" + (f"&{query}" if query else "")
        p.goto(url)
        wait_ready(p)
        return p

    return open_


@pytest.fixture(scope="module")
def module_page(browser, server):
    """One page shared by a whole test module (saves a ~5 s boot per test). Desktop 1280x800."""
    context, page = _new_page(browser, server, viewport={"width": 1280, "height": 800})
    yield page
    context.close()
