"""Every lab in Firefox ESR and in WebKitGTK (Safari's engine), served and from one file.

Driven through the DOM only, as a student would use the page: the lab tabs and
buttons, the sliders (value + input/change events), the readouts, the clock and the
stage canvas's pixels.  Nothing calls the engine from the test, so these tests do not
depend on how the page talks to Python.

Per engine: each lab is booted from the server (?lab=...), the stage canvas moves,
Pause stops the clock and the picture (and Play resumes them), a slider changes the
session (the population readout follows), the Vicsek eight-seed table equals
``python -m swarmlab vicsek-check --json``; and the single file of ``make offline``
boots from file://, moves, pauses and mounts the other two labs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

BOOT_TIMEOUT_S = 240  # WebKitGTK with its JIT on a loaded 2-core machine needs ~30 s; generous on purpose
PLAY = {"swarm": ".swarm-play", "vicsek": ".vk-play", "boids": ".bd-play"}
CLOCK = {"swarm": ".swarm-clock", "vicsek": ".vk-t", "boids": ".bd-t"}
POPULATION = {  # slider -> readout that shows the session's population
    "swarm": ("#lab-swarm .ctl[data-param=N] input[type=range]", "#lab-swarm .readout[data-key=N] .v"),
    "boids": ("#lab-boids .ctl[data-param=population] input[type=range]", "#lab-boids .bd-N"),
}
SEEDS = [3, 17, 41, 73, 101, 211, 307, 499]

# selenium's own deprecation notice about its internals, not about this project
# serial: Firefox and WebKitGTK (software rendering in Xvfb) run alone, after the parallel part:
# beside two test workers, WebKit once lost its page ("page crash or hang") in CI
pytestmark = [pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning"), pytest.mark.serial]


# --- small DOM helpers ---------------------------------------------------------------------------
def wait_for(eng, expression: str, timeout: float, what: str):
    """Poll a JS expression until it is truthy; return its value (fail with ``what``)."""
    end = time.monotonic() + timeout
    while True:
        value = eng.js(expression)
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{eng.name}: timed out waiting for {what}")
        time.sleep(0.25)


def boot(eng, url: str) -> None:
    eng.goto(url)
    state = wait_for(eng, "document.documentElement.classList.contains('lab-ready') ? 'ready' : "
                          "(document.documentElement.classList.contains('boot-failed') ? 'failed' : '')",
                     BOOT_TIMEOUT_S, f"the lab to boot at {url}")
    if state == "failed":
        raise AssertionError(f"{eng.name}: boot failed: " + str(eng.js("document.getElementById('boot-error').innerText")))


def text(eng, selector: str) -> str:
    return eng.js(f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent || ''")


def canvas_signature(eng, lab: str):
    """A hash of the lab's largest canvas (the stage), drawn down to 160x100 pixels, and how
    many of those pixels differ from the first (the ink)."""
    return eng.js(canvas_signature_js(lab))


def canvas_signature_js(lab: str) -> str:
    """The expression :func:`canvas_signature` evaluates."""
    return (f"""(() => {{
        const cs = [...document.querySelectorAll('#lab-{lab} canvas')].filter(c => c.width * c.height > 0);
        if (!cs.length) return null;
        const c = cs.sort((a, b) => b.width * b.height - a.width * a.height)[0];
        const o = document.createElement('canvas'); o.width = 160; o.height = 100;
        const g = o.getContext('2d'); g.drawImage(c, 0, 0, 160, 100);
        const d = g.getImageData(0, 0, 160, 100).data;
        let h = 7, ink = 0;
        for (let i = 0; i < d.length; i++) {{ h = (Math.imul(h, 31) + d[i]) >>> 0; }}
        for (let i = 0; i < d.length; i += 4) {{ if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) ink++; }}
        return [h, ink];
    }})()""")


def play_state(eng, lab: str) -> str:
    return text(eng, f"#lab-{lab} {PLAY[lab]}").strip()


def ensure_playing(eng, lab: str) -> None:
    wait_for(eng, f"!!document.querySelector('#lab-{lab} {PLAY[lab]}')", 30, f"the {lab} play button")
    if play_state(eng, lab) == "Play":
        eng.click(f"#lab-{lab} {PLAY[lab]}")
    assert wait_for(eng, f"document.querySelector('#lab-{lab} {PLAY[lab]}').textContent.trim() === 'Pause'", 10,
                    "the button to read Pause")


def check_canvas_moves(eng, lab: str) -> None:
    end = time.monotonic() + 30
    while True:  # the first frames may still be on their way
        first = canvas_signature(eng, lab)
        assert first is not None, f"{eng.name}: no stage canvas in #lab-{lab}"
        if first[1] > 50:
            break
        if time.monotonic() > end:
            raise AssertionError(f"{eng.name}: the {lab} stage stayed blank ({first[1]} drawn pixels of 16,000)")
        time.sleep(0.3)
    clock0 = text(eng, f"#lab-{lab} {CLOCK[lab]}")
    end = time.monotonic() + 30
    while canvas_signature(eng, lab) == first or text(eng, f"#lab-{lab} {CLOCK[lab]}") == clock0:
        if time.monotonic() > end:
            raise AssertionError(f"{eng.name}: the {lab} stage or clock did not change in 30 s (clock {clock0!r})")
        time.sleep(0.3)


def check_pause_and_play(eng, lab: str) -> None:
    eng.click(f"#lab-{lab} {PLAY[lab]}")
    wait_for(eng, f"document.querySelector('#lab-{lab} {PLAY[lab]}').textContent.trim() === 'Play'", 10,
             "the button to read Play after Pause")
    # A move or a reply already under way may still land (a slow software-drawn WebKit):
    # wait until two looks 0.5 s apart agree, then it must stay still for 1.5 s.
    seen, deadline = None, time.monotonic() + 10
    while True:
        look = (text(eng, f"#lab-{lab} {CLOCK[lab]}"), canvas_signature(eng, lab))
        if look == seen or time.monotonic() > deadline:
            break
        seen = look
        time.sleep(0.5)
    clock, picture = look
    time.sleep(1.5)
    assert text(eng, f"#lab-{lab} {CLOCK[lab]}") == clock, f"{eng.name}: the {lab} clock ran on while paused"
    assert canvas_signature(eng, lab) == picture, f"{eng.name}: the {lab} stage moved while paused"
    eng.click(f"#lab-{lab} {PLAY[lab]}")  # and Play resumes
    wait_for(eng, f"document.querySelector('#lab-{lab} {CLOCK[lab]}').textContent !== {json.dumps(clock)}", 30,
             f"the {lab} clock to run again after Play")


def check_larger_shapes(eng, lab: str) -> None:
    """Paused, "Larger shapes" draws the animals bigger (more ink on the stage), and turned off
    again the picture is the one it was."""
    eng.click(f"#lab-{lab} {PLAY[lab]}")
    wait_for(eng, f"document.querySelector('#lab-{lab} {PLAY[lab]}').textContent.trim() === 'Play'", 10,
             "the button to read Play after Pause")
    seen, deadline = None, time.monotonic() + 10
    while True:  # (a reply under way may still land: wait for two looks that agree)
        look = canvas_signature(eng, lab)
        if look == seen or time.monotonic() > deadline:
            break
        seen = look
        time.sleep(0.5)
    eng.click(f"#lab-{lab} .access-shapes")
    larger = wait_for(eng, f"""(() => {{ const s = {json.dumps(look)};
        const now = ({canvas_signature_js(lab)});
        return now[1] > 1.3 * s[1] ? now : null; }})()""", 10, f"the {lab} stage to draw larger shapes (had {look})")
    assert eng.js(f"document.querySelector('#lab-{lab} .access-shapes').getAttribute('aria-pressed')") == "true", larger
    eng.click(f"#lab-{lab} .access-shapes")
    wait_for(eng, f"JSON.stringify({canvas_signature_js(lab)}) === {json.dumps(json.dumps(look, separators=(',', ':')))}",
             10, f"the {lab} stage to look as before with the usual shapes")


def check_population_slider(eng, lab: str, value: int) -> None:
    slider, readout = POPULATION[lab]
    before = text(eng, readout)
    assert before.strip() and before.strip() != str(value), before
    eng.js(f"""(() => {{ const i = document.querySelector({json.dumps(slider)});
        i.value = String({value});
        i.dispatchEvent(new Event('input', {{ bubbles: true }}));
        i.dispatchEvent(new Event('change', {{ bubbles: true }}));
        return i.value; }})()""")
    wait_for(eng, f"(document.querySelector({json.dumps(readout)}).textContent || '').trim() === '{value}'", 30,
             f"the {lab} population readout to show {value} (was {before!r})")


def page_errors(eng) -> list:
    return eng.errors() if hasattr(eng, "errors") else []


# --- CPython's eight-seed table ------------------------------------------------------------------
@pytest.fixture(scope="session")
def cpython_check():
    res = subprocess.run([sys.executable, "-m", "swarmlab", "vicsek-check", "--json"], capture_output=True, text=True,
                         timeout=600, env=_app_env())
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _app_env():
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    return dict(os.environ, PYTHONPATH=str(root / "app") + os.pathsep + os.environ.get("PYTHONPATH", ""))


# --- the tests -----------------------------------------------------------------------------------
def test_swarm_lab_served(eng, app_url):
    boot(eng, f"{app_url}/?lab=swarm")
    assert eng.js("document.documentElement.dataset.engine") == "worker"  # the engine runs off the main thread
    ensure_playing(eng, "swarm")
    check_canvas_moves(eng, "swarm")
    check_population_slider(eng, "swarm", 60)
    check_pause_and_play(eng, "swarm")
    # a trial started from its card, below the stage: the stage and the trial's question come
    # into view (Firefox ended at the page's top: its scrollBy during a smooth scroll adds up)
    eng.js("(document.querySelector('#lab-swarm .swarm-trial-start[data-trial=passage]').scrollIntoView(), true)")
    eng.click("#lab-swarm .swarm-trial-start[data-trial=passage]")
    wait_for(eng, """(() => { const h = window.innerHeight, q = document.querySelector('#lab-swarm .swarm-trial-now');
        const s = document.querySelector('#lab-swarm .swarm-stage').getBoundingClientRect(), b = q.getBoundingClientRect();
        return !q.hidden && b.top >= 0 && b.bottom <= h + 1 && s.top >= -0.25 * s.height && s.top <= 0.4 * h; })()""",
             10, "the stage and the trial's question to come into view")
    time.sleep(1.6)  # past the correction after the smooth scroll: still in view
    assert eng.js("document.querySelector('#lab-swarm .swarm-trial-now').getBoundingClientRect().bottom <= window.innerHeight + 1")
    assert eng.js("window.scrollY") > 0
    assert page_errors(eng) == []


def test_vicsek_lab_served_and_eight_seed_table(eng, app_url, cpython_check):
    boot(eng, f"{app_url}/?lab=vicsek")
    ensure_playing(eng, "vicsek")
    check_canvas_moves(eng, "vicsek")
    check_pause_and_play(eng, "vicsek")
    # The check runs between frames whether the stage plays or not; paused, a frame costs
    # little, so in a software-drawn WebKit it finishes several times sooner.
    eng.click(f"#lab-vicsek {PLAY['vicsek']}")
    state = wait_for(eng, "['done', 'error'].includes(document.getElementById('lab-vicsek').dataset.check) && "
                          "document.getElementById('lab-vicsek').dataset.check", 600, "the eight-seed check")
    assert state == "done", text(eng, "#lab-vicsek .vk-check-error")
    rows = eng.js("""[...document.querySelectorAll('#lab-vicsek .vk-table tbody tr')].map(tr => [
        Number(tr.dataset.seed), tr.querySelector('[data-col=a0]').textContent, tr.querySelector('[data-col=a1]').textContent])""")
    want = cpython_check
    assert [r[0] for r in rows] == SEEDS == [s["seed"] for s in want["seeds"]]
    for (seed, a0, a1), exp in zip(rows, want["seeds"]):
        assert (a0, a1) == (f"{exp['a0']:.3f}", f"{exp['a1']:.3f}"), (eng.name, seed)
    # the dot plot carries every value in full: bit for bit equal to CPython's
    dots = eng.js("""[...document.querySelectorAll('#lab-vicsek .vk-dotplot .overview circle.dot')].map(c =>
        [Number(c.dataset.seed), c.classList.contains('a0') ? 'a0' : 'a1', c.dataset.value])""")
    assert len(dots) == 16
    full = {(s["seed"], k): s[k] for s in want["seeds"] for k in ("a0", "a1")}
    for seed, key, value in dots:
        assert float(value) == full[(seed, key)], (eng.name, seed, key, value, full[(seed, key)])
    assert page_errors(eng) == []


def test_boids_lab_served(eng, app_url):
    boot(eng, f"{app_url}/?lab=boids")
    ensure_playing(eng, "boids")
    check_canvas_moves(eng, "boids")
    check_population_slider(eng, "boids", 40)
    check_pause_and_play(eng, "boids")
    check_larger_shapes(eng, "boids")
    # "Copy link with my rules" after an edit: WebKit refused the copy, asked for only once the
    # code was packed (after an await), and opened a prompt every time.  (The edit goes through
    # the editor's own controller: typing into CodeMirror differs between the drivers.)
    eng.js("(() => { const e = window.swarmlab.labs.get('boids').rules.editor; e.setCode(e.getCode() + '# edited\\n'); return true; })()")
    eng.click("#lab-boids .rules-link")
    notes = "[...document.querySelectorAll('#lab-boids .copy-note')].map((e) => e.textContent).join(' ')"
    wait_for(eng, f"{notes}.includes('Whoever opens it sees your code')",
             20, "the note beside the button that the link with the code was copied")
    assert "could not copy" not in text(eng, "#notices") + eng.js(notes)
    # #code= links in this engine: one the page wrote reads back; a fragment longer than the page
    # ever writes is refused before inflating, and a short one that inflates past 100 kB is
    # refused part-way (its stream is cancelled, which each engine does its own way)
    eng.js("""(window.__links = null, (async () => {
        const { packCode, unpackCode } = await import(new URL('assets/js/ui/rules.js', document.baseURI).href);
        const code = 'def steering(i, j, d, r, v, p):\\n    return v * 0.0  # \u00e9\\n';
        const bomb = (n) => packCode('#'.repeat(n));  // the page's own packing
        const read = async (t) => { try { await unpackCode(t); return 'read'; } catch (err) { return String(err.message); } };
        window.__links = { back: (await unpackCode(await packCode(code))) === code,
                           long: await read(await bomb(20e6)), short: await read(await bomb(2e6)) };
      })().catch((err) => { window.__links = { failed: String(err) }; }), true)""")
    wait_for(eng, "window.__links !== null", 60, "the code-link checks")
    assert eng.js("window.__links") == {"back": True, "long": "too long", "short": "too long"}, eng.name
    assert page_errors(eng) == []


def test_single_file_from_file_url(eng, single_file):
    boot(eng, single_file.as_uri() + "?lab=swarm")
    ensure_playing(eng, "swarm")
    check_canvas_moves(eng, "swarm")
    check_pause_and_play(eng, "swarm")
    for lab in ("vicsek", "boids"):  # the other labs mount from the file too
        eng.click(f"#tab-{lab}")
        wait_for(eng, f"!document.getElementById('lab-{lab}').hidden && !!document.querySelector('#lab-{lab} {PLAY[lab]}')",
                 120, f"the {lab} lab to mount from the file")
        ensure_playing(eng, lab)
        check_canvas_moves(eng, lab)
    assert eng.js("document.documentElement.classList.contains('boot-failed')") is False
    assert page_errors(eng) == []
