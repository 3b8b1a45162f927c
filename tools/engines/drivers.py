"""Drive Firefox ESR and WebKitGTK from Python with one small interface (for tests/engines).

* Firefox ESR: npm ``puppeteer-core`` over WebDriver BiDi (there is no geckodriver in
  Debian), through the line bridge ``tools/engines/puppeteer_bridge.mjs``.
* WebKitGTK (Safari's engine): Selenium's ``webdriver.WebKitGTK`` and Debian's
  ``/usr/bin/WebKitWebDriver``, which starts MiniBrowser; MiniBrowser has no headless mode,
  so it runs on its own Xvfb display.  Its accelerated 2-D canvas is drawn in software
  here (1-7 fps), so it is launched with ``--enable-2d-canvas-acceleration=false``.

Interface: ``goto(url)``, ``js(expression) -> JSON value`` (synchronous expressions only),
``click(css_selector)`` (a real click), ``close()``.  Every process started here is
ended by ``close()`` through its own pid.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = ROOT / "tools" / "engines" / "puppeteer_bridge.mjs"
MINIBROWSER_CANDIDATES = (
    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
    "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser",
    "/usr/libexec/webkit2gtk-4.1/MiniBrowser",
)


class DriverError(RuntimeError):
    pass


class FirefoxDriver:
    name = "firefox"

    def __init__(self, executable: str, width: int = 1280, height: int = 800):
        if not (ROOT / "node_modules" / "puppeteer-core").exists():
            raise DriverError("node_modules/puppeteer-core is missing: run `npm ci` (make test does)")
        self.proc = subprocess.Popen(["node", str(BRIDGE)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self._id = 0
        self.version = self._send("launch", browser="firefox", executablePath=executable, width=width,
                                  height=height)["version"]

    def _send(self, cmd: str, **args):
        self._id += 1
        msg = dict(args, id=self._id, cmd=cmd)
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError) as exc:
            raise DriverError(f"the puppeteer bridge died: {self._stderr()}") from exc
        if not line:
            raise DriverError(f"the puppeteer bridge exited: {self._stderr()}")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise DriverError(f"{cmd}: {answer.get('error')}")
        return answer["value"]

    def _stderr(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        return (self.proc.stderr.read() or "")[-2000:]

    def goto(self, url: str) -> None:
        self._send("goto", url=url)

    def js(self, expression: str):
        return self._send("eval", js=expression)

    def click(self, selector: str) -> None:
        self._send("click", selector=selector)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._send("close")
            except DriverError:
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _free_display() -> int:
    for n in range(90, 300):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise DriverError("no free X display number for Xvfb")


def minibrowser_path() -> str | None:
    for cand in MINIBROWSER_CANDIDATES:
        if Path(cand).exists():
            return cand
    return None


class WebKitDriver:
    name = "webkit"

    def __init__(self, driver_path: str, xvfb: str, width: int = 1280, height: int = 800):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.service import Service

        self.xvfb = None
        self.driver = None
        n = _free_display()
        self.xvfb = subprocess.Popen([xvfb, f":{n}", "-screen", "0", f"{width + 100}x{height + 200}x24", "-nolisten", "tcp"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{n}").exists():
                break
            if self.xvfb.poll() is not None:
                raise DriverError(f"Xvfb :{n} exited at once")
            time.sleep(0.05)
        env = dict(os.environ, DISPLAY=f":{n}")
        opts = webdriver.WebKitGTKOptions()
        mini = minibrowser_path()
        if mini:
            opts.binary_location = mini
        opts.add_argument("--automation")
        opts.add_argument("--enable-2d-canvas-acceleration=false")
        try:
            self.driver = webdriver.WebKitGTK(options=opts, service=Service(executable_path=driver_path, env=env))
            self.driver.set_window_size(width, height + 100)
            self.driver.set_script_timeout(60)
        except Exception:
            self.close()
            raise
        self.version = "webkitgtk/" + str(self.driver.capabilities.get("browserVersion"))

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def js(self, expression: str):
        return self.driver.execute_script(f"return ({expression});")

    def click(self, selector: str) -> None:
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.CSS_SELECTOR, selector).click()

    def close(self) -> None:
        if self.driver is not None:
            try:
                self.driver.quit()
            except Exception:
                pass
            self.driver = None
        if self.xvfb is not None and self.xvfb.poll() is None:
            self.xvfb.terminate()
            try:
                self.xvfb.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.xvfb.kill()
                self.xvfb.wait()
