"""Where the test browsers are on this machine (Debian packages), or None.

chromium   $CHROMIUM, /usr/bin/chromium, chromium / chromium-browser on PATH
firefox    $FIREFOX, /usr/bin/firefox-esr, firefox-esr / firefox on PATH (package firefox-esr)
webkit     $WEBKIT_WEBDRIVER, /usr/bin/WebKitWebDriver (package webkit2gtk-driver), plus
           Xvfb (package xvfb) because WebKitGTK's MiniBrowser has no headless mode
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def _first(*cands: str | None) -> str | None:
    for c in cands:
        if c and Path(c).exists():
            return c
    return None


def chromium_path() -> str | None:
    return _first(os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                  shutil.which("chromium-browser"))


def firefox_path() -> str | None:
    return _first(os.environ.get("FIREFOX"), "/usr/bin/firefox-esr", shutil.which("firefox-esr"),
                  shutil.which("firefox"))


def webkit_driver_path() -> str | None:
    return _first(os.environ.get("WEBKIT_WEBDRIVER"), "/usr/bin/WebKitWebDriver", shutil.which("WebKitWebDriver"))


def xvfb_path() -> str | None:
    return _first(shutil.which("Xvfb"), "/usr/bin/Xvfb")
