"""Firefox ESR and WebKitGTK (Safari's engine) in the test suite (tests/engines).

Each test takes the ``eng`` fixture, parametrized over "firefox" and "webkit"; one
browser per engine serves the whole module (``tools/engines/drivers.py``).

A browser that is not installed: on a developer's machine its tests are deselected at
collection time (counted as not run, never as passed) and the run says so in one line;
with ``CI=true`` they stay and fail, because CI installs both (``.ci/run``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT / "tools", ROOT / "tools" / "engines", ROOT / "tests" / "browser"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import browser_paths  # noqa: E402

ENGINES = ("firefox", "webkit")
HERE = Path(__file__).resolve().parent


def missing(engine: str) -> str | None:
    """Why ``engine`` cannot run here (None when it can)."""
    if engine == "firefox":
        return None if browser_paths.firefox_path() else "Firefox ESR not found (apt-get install firefox-esr)"
    if not browser_paths.webkit_driver_path():
        return "WebKitGTK's WebKitWebDriver not found (apt-get install webkit2gtk-driver xvfb)"
    if not browser_paths.xvfb_path():
        return "Xvfb not found, which WebKitGTK needs (apt-get install xvfb)"
    return None


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_generate_tests(metafunc):
    if "engine_name" in metafunc.fixturenames:
        metafunc.parametrize("engine_name", ENGINES, scope="module")


_NOT_RUN: list[str] = []


def pytest_collection_modifyitems(config, items):
    if in_ci():
        return  # CI installs both browsers: a missing one must fail, not vanish
    keep, drop = [], {}
    for item in items:
        name = getattr(item, "callspec", None) and item.callspec.params.get("engine_name")
        reason = missing(name) if name and Path(str(item.fspath)).parent == HERE else None
        if reason:
            drop.setdefault(reason, []).append(item)
        else:
            keep.append(item)
    if drop:
        items[:] = keep
        for reason, dropped in drop.items():
            config.hook.pytest_deselected(items=dropped)
            _NOT_RUN.append(f"engines: {reason}: {len(dropped)} tests not run")


def pytest_terminal_summary(terminalreporter):
    for line in _NOT_RUN:
        terminalreporter.write_line(line, yellow=True)


@pytest.fixture
def eng(engine_name):
    """A started browser of that engine, one per test, closed at its end.  (One per module, WebKit
    lost its page, "session deleted because of page crash or hang", in the third or fourth heavy
    page of a CI run: a fresh browser costs about 2 s a test.)"""
    from drivers import DriverError, FirefoxDriver, WebKitDriver

    reason = missing(engine_name)
    if reason:  # only reached under CI=true
        pytest.fail(f"{reason}; CI must have every engine")
    try:
        if engine_name == "firefox":
            d = FirefoxDriver(browser_paths.firefox_path())
        else:
            d = WebKitDriver(browser_paths.webkit_driver_path(), browser_paths.xvfb_path())
    except DriverError as exc:
        pytest.fail(f"{engine_name} did not start: {exc}")
    print(f"\n{engine_name}: {d.version}")
    yield d
    d.close()


@pytest.fixture(scope="session")
def app_url():
    """The repo root served on a loopback port (tools/serve.py), as the app is served."""
    from browserlib import Served
    from serve import make_server

    if not (ROOT / "assets" / "vendor" / "VENDORED.json").exists():
        pytest.fail("assets/vendor is missing: run `make test` (it vendors the runtime) or `python3 tools/vendor.py`")
    served = Served(make_server(ROOT, "127.0.0.1", 0, quiet=True))
    yield served.url
    served.close()


@pytest.fixture(scope="session")
def single_file(tmp_path_factory):
    """The single file of `make offline`, built from this tree, alone in an empty folder."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_offline", ROOT / "tools" / "build_offline.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path = tmp_path_factory.mktemp("engines-single") / "swarm-lab.html"
    mod.build(ROOT, path)
    return path
