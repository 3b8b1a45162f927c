"""Helpers for browser tests (import with `from browserlib import ...`)."""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

# tools/serve.py's server answering on a loopback port from a daemon thread: Served(httpd).url
from serve import Background as Served  # noqa: E402,F401

SHOTS = ROOT / "tests" / "browser" / "screenshots"
BOOT_TIMEOUT_MS = 90_000
LABS = ("swarm", "vicsek", "boids")  # the page's labs, in its tab order


# What a page that did not boot in time shows: the classes boot.js sets, its stage and the
# files it saw, and the status line and error panel a student would read.
BOOT_REPORT = """() => {
  const B = window.SwarmBoot, s = B && B.state, text = (id) => {
    const el = document.getElementById(id); return el && !el.hidden ? el.innerText.trim().slice(0, 300) : null; };
  return { classes: document.documentElement.className, url: location.href.slice(0, 120),
           stage: s ? s.stage : 'boot.js did not run', pending: s ? s.pending : null,
           requested: s ? Object.keys(s.requested) : null, finished: s ? Object.keys(s.finished) : null,
           errors: s ? s.errors.map(String).slice(-5) : null,
           seconds: s ? Math.round(performance.now() - s.started) / 1000 : null,
           status: text('boot-message'), panel: text('boot-error'), engine: !!window.swarmlab };
}"""


def wait_for_boot(target, predicate: str, timeout=BOOT_TIMEOUT_MS, arg=None):
    """``target.wait_for_function(predicate)`` (a predicate that is also true once the boot has
    failed); on a timeout, fail with what the page shows (BOOT_REPORT), so a boot that hung in
    CI says at which stage, and after a failed boot with the error panel's text."""
    crashed = []
    page = getattr(target, "page", target)
    on_crash = lambda p: crashed.append(True)  # noqa: E731
    page.on("crash", on_crash)
    try:
        # Polled on a timer, not on animation frames: a boot must be seen even if frames stall.
        target.wait_for_function(predicate, arg=arg, timeout=timeout, polling=250)
    except Exception as exc:
        try:
            report = target.evaluate(BOOT_REPORT)
        except Exception as inner:
            report = f"(the page did not answer: {inner})"
        raise AssertionError(f"not booted after {timeout / 1000:.0f} s"
                             f"{' (the page crashed)' if crashed else ''}: {report}") from exc
    finally:
        page.remove_listener("crash", on_crash)
    if target.evaluate("() => document.documentElement.classList.contains('boot-failed')"):
        raise AssertionError("boot failed: " + target.evaluate("() => document.getElementById('boot-error').innerText"))


def wait_ready(page, timeout=BOOT_TIMEOUT_MS):
    """Wait until the active lab is mounted (or the boot failed: then fail with the panel text)."""
    # An arrow function, not an expression string: Playwright evals strings, which a CSP may forbid.
    wait_for_boot(
        page,
        "() => document.documentElement.classList.contains('lab-ready') || document.documentElement.classList.contains('boot-failed')",
        timeout=timeout,
    )


def engine_call(page, lab: str, method: str, args: dict | None = None):
    """Call the Python session from the test, through the same bridge the page uses."""
    return page.evaluate("([lab, m, a]) => window.swarmlab.engine.call(lab, m, a)", [lab, method, args or {}])


# Polls an async predicate inside the page until it answers truthy, awaiting each answer.
WAIT_ASYNC = """async ([arg, ms]) => {
  const predicate = %s;
  const end = performance.now() + ms;
  for (;;) {
    const value = await predicate(arg);
    if (value) return value;
    if (performance.now() > end) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}"""


def wait_async(page, predicate: str, arg=None, timeout=15_000):
    """Wait until the async JS function ``predicate(arg)`` resolves truthy (one that asks the
    engine, say), and return its value.  ``page.wait_for_function`` cannot do this: it does not
    await a returned promise, and a promise is truthy, so such a wait passes at once
    (microsoft/playwright#29132; tests/unit/test_test_honesty.py keeps them out)."""
    value = page.evaluate(WAIT_ASYNC % predicate, [arg, timeout])
    if not value:
        raise AssertionError(f"still false after {timeout / 1000:g} s: {predicate} (arg {arg!r})")
    return value


def wait_scrolled(page, quiet_ms=800):
    """Wait until the page (a Page or a Frame) has stopped scrolling: scrollY unchanged for
    ``quiet_ms``.  A smooth scroll passes through states that satisfy a test and may then end in
    one that does not, and a fixed wait for it is too short on a slow machine."""
    page.evaluate("() => { window.__still = { y: NaN, t: 0 }; }")
    page.wait_for_function("""(ms) => { const w = window.__still;
        if (scrollY !== w.y) { w.y = scrollY; w.t = performance.now(); }
        return performance.now() - w.t > ms; }""", arg=quiet_ms, polling=100)


def touch(cdp, kind, x, y):
    """One touch event of one finger through a CDP session (``page.context.new_cdp_session``):
    ``kind`` touchStart, touchMove or touchEnd (whose x, y are not used), in CSS px."""
    points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def screenshot(page, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def settle(page, lab: str):
    """Wait until the lab's pending actions and the engine's current state are on screen
    (the engine answers asynchronously, from its worker)."""
    page.evaluate("""(lab) => { const c = window.swarmlab.labs.get(lab);
                                return (c.test || c).settle(); }""", lab)


def copied_link(page, lab: str, timeout_s: float = 20.0) -> str:
    """The link on the clipboard once Copy link has put one there (a test that copies twice
    first writes a text without ``lab=`` there).

    Polled from Python and read once: the text returned is the text that satisfied the wait
    (a CI run once read the clipboard a second time and got an empty string; a promise
    returned to ``wait_for_function`` resolved to ``true``, not to the text)."""
    text = ""
    for _ in range(int(timeout_s * 10)):
        text = page.evaluate("() => navigator.clipboard.readText()")
        if f"lab={lab}" in text:
            return text
        page.wait_for_timeout(100)
    raise AssertionError(f"no link for lab={lab} on the clipboard: {text!r}")


def pause(page, lab: str):
    """Pause a lab through its controller (Lab 1's is test.setPlaying; the others pause())
    and wait until the paused state is on screen."""
    page.evaluate("""(lab) => { const c = window.swarmlab.labs.get(lab);
        if (c.test && c.test.setPlaying) c.test.setPlaying(false); else c.pause(); }""", lab)
    settle(page, lab)


def show_lab(page, lab: str, timeout=BOOT_TIMEOUT_MS):
    """Open another lab in the booted page as a student does, by its tab (no reload: the
    engine and the labs already shown keep running), and wait until it is mounted and
    decorated.  Saves a page boot (about 4 s, 6-8 s under a loaded test run)."""
    page.click(f"#tab-{lab}")
    page.wait_for_function(
        """(lab) => { const s = window.swarmlab, c = s && s.labs.get(lab);
                      return s.active === lab && c && typeof c.then !== 'function'
                             && document.querySelector(`#lab-${lab}[data-access='1']`) !== null; }""",
        arg=lab, timeout=timeout)
    return page


def open_lab(page, server, lab: str, query: str = ""):
    """Load the page at ?lab=lab(&query) and wait until that lab is mounted and decorated."""
    page.goto(f"{server}/?lab={lab}" + (f"&{query}" if query else ""))
    wait_ready(page)
    page.wait_for_selector(f"#lab-{lab}[data-access='1']")
    return page


def each_lab(page, server, labs):
    """Yield each of ``labs`` on screen in one page: the first opened from its link, the others
    from their tabs (:func:`show_lab`), as a student goes from lab to lab.  One boot for all."""
    for k, lab in enumerate(labs):
        if k == 0:
            open_lab(page, server, lab)
        else:
            show_lab(page, lab)
        yield lab


def png_rows(data: bytes) -> list[list[tuple[int, int, int]]]:
    """The pixels of a Playwright screenshot (8-bit RGB or RGBA PNG) as rows of (r, g, b): enough
    to read what the browser really painted (a CSS filter included), with no imaging library."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
    raw, stride = zlib.decompress(idat), width * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):  # undo the row's filter (PNG spec, section 9)
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[k:k + 3]) for k in range(0, stride, bpp)])
        prev = line
    return rows
