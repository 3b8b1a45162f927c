"""Lab 2 ("Few turns, one direction", Vicsek) in a real Chromium.

One desktop page is shared by the module (module_page): the eight-seed check starts by
itself when the page opens and keeps running in the background while the other tests
drive the live stage through the page's controller (window.swarmlab.labs.get("vicsek")),
so the check test comes last and rarely waits long.  A second, phone-sized page with
reduced motion covers the phone layout, the reduced-motion start and share-link reading.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from browserlib import ROOT, copied_link, engine_call, screenshot, touch, wait_async, wait_ready

LAB = "vicsek"
CTL = "window.swarmlab.labs.get('vicsek')"
SECTION = "#lab-vicsek"
BASELINE = 0.11


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


@pytest.fixture(scope="module")
def cpython_check():
    """Start `python -m swarmlab vicsek-check --json` under CPython now; read it when needed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    proc = subprocess.Popen([_python(), "-m", "swarmlab", "vicsek-check", "--json"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def result():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"vicsek-check failed under CPython:\n{err}"
        return json.loads(out)

    yield result
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


@pytest.fixture(scope="module")
def vpage(module_page, server, cpython_check):
    module_page.goto(f"{server}/?lab={LAB}")
    wait_ready(module_page)
    module_page.wait_for_selector(f"{SECTION} .vk-canvas")
    return module_page


def ctl(page, body: str, arg=None):
    """Evaluate `body` (an expression using `c`, the controller, and `arg`) in the page."""
    return page.evaluate(f"(arg) => {{ const c = {CTL}; return {body}; }}", arg)


def frame(page) -> list[float]:
    data = page.evaluate("() => window.swarmlab.engine.frame('vicsek')")
    return data[2:]  # after the header (n, t): the two blocks of records


def set_slider(page, name: str, value: float):
    page.evaluate(
        """([name, value]) => {
            const input = document.querySelector(`#lab-vicsek .ctl[data-param="${name}"] input`);
            input.value = String(value);
            input.dispatchEvent(new Event('input', {bubbles: true}));
        }""",
        [name, value],
    )


def fmt3(x: float) -> str:
    return f"{x:.3f}"


# ---------------------------------------------------------------------------------------------
def test_page_builds_and_runs(vpage):
    page = vpage
    assert page.evaluate("window.swarmlab.active") == LAB
    assert page.is_visible(f"{SECTION} .vk-canvas")
    # the three narrative steps, the knob, transport and readouts are there
    tabs = page.locator(f"{SECTION} .vk-steptab").all_inner_texts()
    assert [t.split()[-1] for t in tabs] == ["See", "Change", "Understand"]
    page.locator(f"{SECTION} .vk-steptab").nth(2).click()  # (the Swarm Lab's name for P is given)
    assert "(The Swarm Lab measures the same P and calls it the whole-group agreement P.)" in \
        " ".join(page.locator(f"{SECTION} .vk-steps").inner_text().split())
    for sel in (".ctl[data-param=a] input[type=range]", ".vk-play", ".vk-step", ".vk-restart", ".vk-copy",
                ".vk-P", ".vk-pplot", ".vk-rate input[type=range]"):
        assert page.locator(f"{SECTION} {sel}").count() == 1, sel
    # the notes are sections of their own, not parts of the eight-seed check's (h3 after its h2)
    h2 = page.eval_on_selector_all(f"{SECTION} h2", "els => els.map((e) => e.textContent.trim())")
    assert h2[-2:] == ["What this model leaves out", "Sources"], h2
    # playing by default (no reduced motion): the update count grows, also while the
    # eight-seed check runs in the background (it works in pieces between frames)
    assert page.get_attribute(SECTION, "data-playing") == "1"
    page.wait_for_function(f"document.querySelector('{SECTION}').dataset.check !== 'idle'", timeout=20_000)
    assert page.get_attribute(SECTION, "data-check") == "running"
    assert page.is_visible(f"{SECTION} .vk-progress")
    t0 = ctl(page, "c.t")
    page.wait_for_function(f"{CTL}.t >= {t0 + 3}", timeout=20_000)
    calls = ctl(page, "c.check.calls")
    page.wait_for_function(f"{CTL}.check.calls > {calls} || {CTL}.check.state === 'done'", timeout=20_000)
    assert page.rec.page_errors == []
    assert page.rec.console_errors == []


def test_the_legends_colour_disc_is_the_stages_wheel(vpage):
    """The legend's heading disc was a CSS gradient of its own, mirrored east-west against the
    stage (an arrow flying east is cyan, the disc's east was red): it is now the wheel the stage
    draws from (ui/heading.js, whose directions tests/js/heading.test.mjs checks)."""
    got = vpage.evaluate(f"""async () => {{
        const {{ headingWheel }} = await import('/assets/js/ui/heading.js');
        const probe = document.createElement('span');
        probe.style.backgroundImage = headingWheel();
        document.body.append(probe);
        const want = getComputedStyle(probe).backgroundImage;
        probe.remove();
        return [getComputedStyle(document.querySelector('{SECTION} .vk-sw-wheel')).backgroundImage, want];
    }}""")
    assert got[0].startswith("conic-gradient(") and got[0] == got[1], got


def test_interpolation_follows_the_step_across_the_wrap(vpage):
    """An arrow that just crossed the left edge is drawn between its two positions along its step,
    not dragged across the box (the raw x values are 0.006 and 0.996)."""
    got = vpage.evaluate(
        """async () => {
            const { Stage } = await import('./assets/js/labs/vicsek/stage.js');
            const { frameIndex } = await import('./assets/js/ui/frame.js');
            const canvas = document.createElement('canvas');
            canvas.style.width = '200px';
            document.body.append(canvas);
            const st = new Stage(canvas, 1, { box: 1, radius: 0.12, speed: 0.01, kick: 0.35 });
            // block A: now at x = 0.996 heading -x; block B: before, unwrapped next to A (1.006);
            // read through a layout (fields in another order than the session's, after a header)
            const fx = frameIndex({header: ['n', 't'], fields: ['theta', 'y', 'x'], blocks: 2, stride: 3, offset: 2});
            st.ingest(new Float32Array([1, 0, Math.PI, 0.5, 0.996, Math.PI, 0.5, 1.006]), fx, false);
            const out = [];
            for (const s of [0, 0.25, 0.5, 0.75, 1]) { st.draw(s); out.push([st.hx[0], st.hy[0]]); }
            canvas.remove();
            return out;
        }"""
    )
    want = [0.006, 0.0035, 0.001, 0.9985, 0.996]
    for (x, y), w in zip(got, want):
        assert abs(x - w) < 1e-5 and abs(y - 0.5) < 1e-6, (got, want)


def _trail_steps(page):
    """Lengths of every step of every arrow's trail as the stage holds it (unwrapped, model units),
    and how many positions the trail holds."""
    return page.evaluate(
        """() => {
            const st = window.swarmlab.labs.get('vicsek').stage;
            const n = st.n, U = st.trailU, out = [];
            for (let k = 0; k + 1 < st.ringCount; k++)
                for (let i = 0; i < n; i++) {
                    const a = 2 * (k * n + i), b = 2 * ((k + 1) * n + i);
                    out.push(Math.hypot(U[a] - U[b], U[a + 1] - U[b + 1]));
                }
            return { count: st.ringCount, steps: out };
        }"""
    )


def test_restart_reproduces_the_same_frames(vpage):
    page = vpage
    ctl(page, "c.setA(1)")
    start = None
    runs = []
    for _ in range(2):
        ctl(page, "c.pause()")
        page.click(f"{SECTION} .vk-restart")  # the page's own button
        ctl(page, "c.settle()")
        assert ctl(page, "c.t") == 0
        # a restart starts the trails over: nothing joins the new start to the old run
        tr = _trail_steps(page)
        assert tr["count"] == 1 and tr["steps"] == [], tr["count"]
        start = frame(page)
        ps = ctl(page, "c.run(100)")
        assert engine_call(page, LAB, "state")["t"] == 100
        runs.append((frame(page), ps))
    # the trail holds exactly the last 8 updates, each a straight step of 0.01 L
    tr = _trail_steps(page)
    assert tr["count"] == 9
    assert len(tr["steps"]) == 8 * 64 and all(abs(d - 0.01) < 1e-5 for d in tr["steps"]), max(tr["steps"])
    (f1, p1), (f2, p2) = runs
    assert f1 == f2, "restart did not replay the same run"
    assert p1 == p2
    assert f1 != start, "the state did not change in 100 updates"
    # one more update moves on (the comparison above is not of a frozen state)
    ctl(page, "c.run(1)")
    assert frame(page) != f1
    # and it is the seed-3 run of the engine: same positions as CPython after 100 updates
    sys.path.insert(0, str(ROOT / "app"))
    from swarmlab import vicsek

    ens = vicsek.Ensemble([(3, 1.0)])
    ens.run(100)
    n = len(f1) // 6
    for i in range(n):
        x, y, th = f1[3 * i: 3 * i + 3]
        assert math.isclose(x, ens.state.x[0, i, 0], abs_tol=1e-6)
        assert math.isclose(y, ens.state.x[0, i, 1], abs_tol=1e-6)
        assert math.isclose(th, ens.state.theta[0, i], abs_tol=1e-6)


def test_knob_zero_stays_near_baseline_and_one_orders(vpage):
    page = vpage
    means = {}
    for a in (0.0, 1.0):
        set_slider(page, "a", a)  # through the page's own control
        assert engine_call(page, LAB, "state")["params"]["a"] == a
        ctl(page, "(c.pause(), c.restart())")
        ps = ctl(page, "c.run(1000)")
        assert len(ps) == 1000
        tail = ps[-300:]
        means[a] = sum(tail) / len(tail)
        # the page's readout shows the current P
        assert page.inner_text(f"{SECTION} .vk-P") == f"{ps[-1]:.3f}"
        assert page.get_attribute(SECTION, "data-t") == "1000"
    # independent random headings: P is Rayleigh-distributed with mean sqrt(pi)/(2 sqrt(64)) ~ 0.111
    # and sd sqrt((4 - pi) / (4 * 64)) ~ 0.058; 300 updates at a = 0 hold a few independent
    # samples (the heading correlation sin(0.35)/0.35 per update decays in ~50 updates), so the
    # mean of the tail is within ~0.03 of the baseline: allow 0.07
    baseline = math.sqrt(math.pi) / (2 * math.sqrt(64))
    assert abs(means[0.0] - baseline) < 0.07, means
    assert means[1.0] > 0.6, means
    assert means[1.0] > means[0.0] + 0.4, means


def test_the_p_chart_draws_the_sessions_history(vpage):
    """One history: the P chart is the session's metrics.History (ui/history.js mirror), with
    the session's markers; a restart starts it over."""
    page = vpage
    ctl(page, "(c.pause(), c.restart())")
    ctl(page, "c.run(40)")
    set_slider(page, "a", 0.4)  # through the page's own control: one marker
    ctl(page, "c.settle()")
    ctl(page, "c.run(20)")
    ctl(page, "c.settle()")
    mine = ctl(page, "({t: c.history.t, P: c.history.series.P, markers: c.history.markers})")
    theirs = engine_call(page, LAB, "history")
    assert mine["t"] == theirs["t"] == list(range(61))
    assert mine["P"] == theirs["series"]["P"]
    assert mine["markers"] == theirs["markers"] == [{"t": 40, "label": "alignment a 0.40"}]
    ctl(page, "(c.pause(), c.restart())")
    ctl(page, "c.settle()")
    assert ctl(page, "c.history.t") == [0] and ctl(page, "c.history.markers") == []
    set_slider(page, "a", 1.0)
    ctl(page, "c.settle()")


def _pick_isolated(f, margin=0.16, clear=0.06):
    n = len(f) // 6
    pts = [(f[3 * i], f[3 * i + 1]) for i in range(n)]

    def md(a, b):
        dx = (a[0] - b[0] + 0.5) % 1.0 - 0.5
        dy = (a[1] - b[1] + 0.5) % 1.0 - 0.5
        return math.hypot(dx, dy)

    for i, p in enumerate(pts):
        if not (margin < p[0] < 1 - margin and margin < p[1] < 1 - margin):
            continue
        if all(md(p, q) > clear for j, q in enumerate(pts) if j != i):
            return i
    return None


def _circle_hits(page, cx, cy, r):
    """Fraction of 72 canvas pixels on the circle of radius r (model units) that are drawn in the
    neighbourhood colour, for the centre (cx, cy) in model units (the parts inside the box)."""
    return page.evaluate(
        """([cx, cy, r]) => {
            const canvas = document.querySelector('#lab-vicsek .vk-canvas');
            const g = canvas.getContext('2d');
            const W = canvas.width;
            let inside = 0, hits = 0;
            for (let k = 0; k < 72; k++) {
                const a = 2 * Math.PI * k / 72;
                const x = cx + r * Math.cos(a), y = cy + r * Math.sin(a);
                if (x < 0.01 || x > 0.99 || y < 0.01 || y > 0.99) continue;
                inside++;
                const px = Math.round(x * W), py = Math.round((1 - y) * W);
                const d = g.getImageData(px - 1, py - 1, 3, 3).data;
                let hit = false;
                for (let q = 0; q < d.length; q += 4) {
                    const [R, G, B] = [d[q], d[q + 1], d[q + 2]];
                    if (G > 130 && B > 140 && R < 120) hit = true;   // the cyan ring
                }
                if (hit) hits++;
            }
            return inside ? hits / inside : null;
        }""",
        [cx, cy, r],
    )


def test_tap_selects_an_arrow_and_draws_its_neighbourhood(vpage):
    page = vpage
    ctl(page, "c.select(-1)")
    ctl(page, "(c.pause(), c.restart())")
    k = None
    for _ in range(10):
        ctl(page, "c.run(15)")
        f = frame(page)
        k = _pick_isolated(f)
        if k is not None:
            break
    assert k is not None, "no isolated arrow found to tap"
    ctl(page, "c.settle()")
    x, y = f[3 * k], f[3 * k + 1]
    # the whole stage in view (an earlier test on this page may have scrolled it half away)
    page.evaluate("() => document.querySelector('#lab-vicsek .vk-canvas').scrollIntoView({block: 'center'})")
    before = _circle_hits(page, x, y, 0.12)
    rect = page.evaluate("(() => { const r = document.querySelector('#lab-vicsek .vk-canvas').getBoundingClientRect();"
                         " return {left: r.left, top: r.top, width: r.width, height: r.height}; })()")
    page.mouse.click(rect["left"] + x * rect["width"], rect["top"] + (1 - y) * rect["height"])
    page.wait_for_function(f"document.querySelector('{SECTION}').dataset.selected === '{k}'", timeout=5_000)
    ctl(page, "c.settle()")  # the neighbourhood arrives with the engine's next reply
    assert ctl(page, "c.selected") == k
    nb = engine_call(page, LAB, "neighbours", {"i": k})
    assert page.get_attribute(SECTION, "data-neighbours") == str(len(nb["neighbours"]))
    ctl(page, "c.settle()")
    after = _circle_hits(page, x, y, 0.12)
    assert before is not None and after is not None
    assert after > 0.8, f"neighbourhood circle not drawn ({after:.2f} of the ring's pixels)"
    assert before < 0.3, f"the ring was there before the tap ({before:.2f})"
    # the follow text names the arrow
    assert f"arrow {k + 1} of" in page.inner_text(f"{SECTION} .vk-follow")
    # its live region speaks when the selection changes, not at every update
    page.evaluate(
        """() => { const el = document.querySelector('#lab-vicsek .vk-follow[aria-live], #lab-vicsek .vk-follow [aria-live]');
            window.__vkMut = 0;
            window.__vkObs = new MutationObserver((l) => { window.__vkMut += l.length; });
            window.__vkObs.observe(el, { childList: true, characterData: true, subtree: true }); }"""
    )
    ctl(page, "c.run(30)")
    assert page.evaluate("(() => { window.__vkObs.disconnect(); return window.__vkMut; })()") == 0


def test_neighbourhood_circle_is_drawn_across_the_wrap(vpage):
    page = vpage
    ctl(page, "c.pause()")  # (the arrows must stay where the frame read them)
    ctl(page, "c.settle()")
    f = frame(page)
    n = len(f) // 6
    # an arrow near the left edge: part of its circle shows up again at the right edge
    cands = [i for i in range(n) if f[3 * i] < 0.06 and 0.2 < f[3 * i + 1] < 0.8]
    for _ in range(20):
        if cands:
            break
        ctl(page, "c.run(10)")
        f = frame(page)
        cands = [i for i in range(n) if f[3 * i] < 0.06 and 0.2 < f[3 * i + 1] < 0.8]
    assert cands, "no arrow came near the left edge"
    i = cands[0]
    ctl(page, "c.select(arg)", i)
    ctl(page, "c.settle()")
    x, y = f[3 * i], f[3 * i + 1]
    assert _circle_hits(page, x + 1.0, y, 0.12) > 0.8  # the periodic copy, at the right edge
    assert _circle_hits(page, x, y, 0.12) > 0.8        # and the circle itself


def test_copy_link_includes_a(vpage):
    page = vpage
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    set_slider(page, "a", 0.4)
    page.evaluate("() => navigator.clipboard.writeText('')")  # (not an earlier test's link)
    page.click(f"{SECTION} .vk-copy")
    url = copied_link(page, "vicsek")
    assert "lab=vicsek" in url and "a=0.4" in url, url
    set_slider(page, "a", 1.0)


def test_the_rate_control_sets_how_many_updates_play_each_second(vpage):
    """The playback rate is a control built from the session's spec like the others (its words,
    its range, a value read with its unit in words), and it paces the stage."""
    page = vpage
    if page.get_attribute(SECTION, "data-playing") != "1":
        page.click(f"{SECTION} .vk-play")
    rate = page.locator(f"{SECTION} .vk-rate input[type=range]")
    lo, hi, default = (int(rate.get_attribute("min")), int(rate.get_attribute("max")), int(rate.input_value()))
    assert rate.get_attribute("aria-valuetext") == f"{default} per second"

    def rate_over(ms):  # updates a second, both counted and timed in the page
        return ctl(page, """(async () => { const t0 = c.t, start = performance.now();
            await new Promise((r) => setTimeout(r, arg));
            return (c.t - t0) / ((performance.now() - start) / 1000); })()""", ms)

    rate.focus()
    page.keyboard.press("End")
    assert rate.get_attribute("aria-valuetext") == f"{hi} per second"
    assert page.locator(f"{SECTION} .vk-rate output").inner_text() == f"{hi} / s"
    fast = rate_over(3000)
    page.keyboard.press("Home")
    assert page.locator(f"{SECTION} .vk-rate output").inner_text() == f"{lo} / s"
    page.wait_for_timeout(300)
    slow = rate_over(3000)
    assert slow <= lo + 0.7, (slow, fast)  # (one update may fall on either edge of the window)
    assert fast >= 4 and fast >= 3 * max(slow, lo), (slow, fast)
    for _ in range(default - lo):
        page.keyboard.press("ArrowRight")
    assert rate.input_value() == str(default)
    assert page.rec.page_errors == []


def test_eight_seed_table_matches_cpython(vpage, cpython_check):
    page = vpage
    page.wait_for_function(
        f"['done', 'error'].includes(document.querySelector('{SECTION}').dataset.check)", timeout=300_000
    )
    assert page.get_attribute(SECTION, "data-check") == "done", page.inner_text(f"{SECTION} .vk-check")
    want = cpython_check()
    rows = page.evaluate(
        """() => Array.from(document.querySelectorAll('#lab-vicsek .vk-table tbody tr')).map(tr => ({
            seed: Number(tr.dataset.seed),
            a0: tr.querySelector('[data-col=a0]').textContent,
            a1: tr.querySelector('[data-col=a1]').textContent}))"""
    )
    assert [r["seed"] for r in rows] == [3, 17, 41, 73, 101, 211, 307, 499]
    assert [r["seed"] for r in rows] == [r["seed"] for r in want["seeds"]]
    for got, exp in zip(rows, want["seeds"]):
        assert got["a0"] == fmt3(exp["a0"]), (got, exp)
        assert got["a1"] == fmt3(exp["a1"]), (got, exp)
    mean = page.locator(f"{SECTION} .vk-table tr[data-row=mean] td").all_inner_texts()
    assert mean == [fmt3(want["mean"]["a0"]), fmt3(want["mean"]["a1"])]
    rng = page.locator(f"{SECTION} .vk-table tr[data-row=range] td").all_inner_texts()
    assert rng == [f"{fmt3(want['range'][k][0])}–{fmt3(want['range'][k][1])}" for k in ("a0", "a1")]
    # and bit for bit: the session's numbers are the CLI's JSON (repr floats round-trip exactly)
    got = engine_call(page, LAB, "check_result")
    assert got.pop("shown")["mean"] == {k: fmt3(v) for k, v in want["mean"].items()}  # the words the page shows
    assert got == want
    # the dot plot: a dot per seed and per a on the full scale, and again in each close-up,
    # placed in the order of the values
    assert page.locator(f"{SECTION} .vk-dotplot .overview circle.dot").count() == 16
    for key in ("a0", "a1"):
        dots = page.evaluate(
            f"""() => Array.from(document.querySelectorAll('#lab-vicsek .vk-dotplot .zoom.{key} circle.dot'))
                .map(c => [Number(c.dataset.seed), Number(c.getAttribute('cx'))])"""
        )
        assert sorted(sd for sd, _ in dots) == sorted(r["seed"] for r in want["seeds"])
        value = {r["seed"]: r[key] for r in want["seeds"]}
        by_value = [sd for sd, _ in sorted(dots, key=lambda d: value[d[0]])]
        by_x = [sd for sd, _ in sorted(dots, key=lambda d: d[1])]
        assert by_value == by_x, (key, dots)
        xs = [x for _, x in dots]
        assert max(xs) - min(xs) > 100, "the close-up does not spread the seeds out"
    # it ran in pieces between frames, and the stage kept updating meanwhile
    info = ctl(page, "c.check.info()")
    assert info["calls"] > 1
    assert page.rec.page_errors == []
    assert page.rec.console_errors == []


def test_desktop_screenshot(vpage):
    page = vpage
    ctl(page, "(c.pause(), c.restart())")
    ctl(page, "c.run(60)")
    f = frame(page)
    k = _pick_isolated(f, margin=0.2, clear=0.03) or 0
    ctl(page, "c.select(arg)", k)
    ctl(page, "c.settle()")
    page.evaluate("document.querySelectorAll('.notice-close').forEach(b => b.click())")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "vicsek-desktop")


def test_phone_layout_reduced_motion_and_share_link(phone_page, server):
    page = phone_page
    page.emulate_media(reduced_motion="reduce")
    page.goto(f"{server}/?lab={LAB}&a=0.25")
    wait_ready(page)
    page.wait_for_selector(f"{SECTION} .vk-canvas")
    # reduced motion: the stage starts paused, the check still starts; the caption says so and
    # still says how arrows are drawn between updates (Play slides them)
    assert page.get_attribute(SECTION, "data-playing") == "0"
    caption = page.inner_text(f"{SECTION} .vk-caption")
    assert "Paused at the start" in caption and "sliding along the straight step the model moved it" in caption
    page.wait_for_function(f"document.querySelector('{SECTION}').dataset.check !== 'idle'", timeout=20_000)
    assert ctl(page, "c.t") == 0
    # the share link's a was applied at the restart
    assert engine_call(page, LAB, "state")["params"]["a"] == 0.25
    assert page.input_value(f"{SECTION} .ctl[data-param=a] input") == "0.25"
    # stage first, full width, nothing wider than the screen
    box = page.locator(f"{SECTION} .vk-canvas").bounding_box()
    ctrl = page.locator(f"{SECTION} .vk-controls").bounding_box()
    assert box["y"] < ctrl["y"]
    assert box["width"] >= 300 and box["x"] >= 0 and box["x"] + box["width"] <= 390
    # the knob, Play and P come right under the stage (moved in the DOM, so Tab follows the
    # eye): with the stage at the top of the screen, all three are in view with it
    assert ctrl["y"] - (box["y"] + box["height"]) < 30
    assert page.evaluate(f"""() => {{
        const [canvas, knob, legend] = ['.vk-canvas', '.vk-knob input', '.vk-legend'].map((q) => document.querySelector('{SECTION} ' + q));
        return !!(canvas.compareDocumentPosition(knob) & Node.DOCUMENT_POSITION_FOLLOWING)
            && !!(knob.compareDocumentPosition(legend) & Node.DOCUMENT_POSITION_FOLLOWING); }}""")
    page.evaluate(f"() => window.scrollTo(0, document.querySelector('{SECTION} .vk-stage').getBoundingClientRect().top + scrollY)")
    for part in (".vk-canvas", ".vk-knob input", ".vk-play", ".vk-P"):
        r = page.locator(f"{SECTION} {part}").bounding_box()
        assert r["y"] >= -1 and r["y"] + r["height"] <= 844 + 1, (part, r)
    assert abs(box["width"] - box["height"]) < 2
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # controls are reachable and work by touch: Step advances one update
    page.locator(f"{SECTION} .vk-step").scroll_into_view_if_needed()
    page.tap(f"{SECTION} .vk-step")
    page.wait_for_function(f"{CTL}.t === 1", timeout=5_000)
    # tap an arrow on the touch screen
    f = frame(page)
    k = _pick_isolated(f, margin=0.15, clear=0.05)
    for _ in range(10):
        if k is not None:
            break
        ctl(page, "c.run(5)")
        f = frame(page)
        k = _pick_isolated(f, margin=0.15, clear=0.05)
    assert k is not None, "no isolated arrow found to tap"
    ctl(page, "c.settle()")
    page.locator(f"{SECTION} .vk-canvas").scroll_into_view_if_needed()
    b = page.locator(f"{SECTION} .vk-canvas").bounding_box()
    page.touchscreen.tap(b["x"] + f[3 * k] * b["width"], b["y"] + (1 - f[3 * k + 1]) * b["height"])
    page.wait_for_function(f"document.querySelector('{SECTION}').dataset.selected === '{k}'", timeout=5_000)
    # a finger put down and moved (a swipe, which scrolls the page: touch-action) neither follows
    # another arrow nor stops following; only a tap picks (an outside review lost its arrow)
    canvas = page.locator(f"{SECTION} .vk-canvas")
    assert canvas.evaluate("(c) => getComputedStyle(c).touchAction") == "manipulation"
    cdp = page.context.new_cdp_session(page)
    x0, y0 = b["x"] + 0.5 * b["width"], b["y"] + 0.8 * b["height"]
    touch(cdp, "touchStart", x0, y0)
    for dy in (20, 60, 120):
        touch(cdp, "touchMove", x0, y0 - dy)
    touch(cdp, "touchEnd", 0, 0)
    page.wait_for_timeout(300)
    ctl(page, "c.settle()")
    assert page.evaluate(f"document.querySelector('{SECTION}').dataset.selected") == str(k)
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "vicsek-phone")
    assert page.rec.page_errors == []


def test_the_knob_moved_then_restart_at_once_restarts_with_the_knobs_value(page, server):
    """Restart reads the knob's value, which it learns once the engine has answered the move:
    a move and a Restart in one instant restarted with the old value (the knob read 0.30, the
    model ran with a = 1).  Restart now waits for a move on its way.  Paused first, so that the
    restarted model stays at t = 0 for the wait to see (a playing one steps on at once, and a
    slow machine's poll found t > 0 each time)."""
    page.goto(f"{server}/?lab=vicsek")
    wait_ready(page)
    ctl(page, "c.pause()")
    ctl(page, "c.settle()")
    for value in ("0.3", "0.65"):
        page.evaluate("""(v) => {
          const knob = document.querySelector('#lab-vicsek .ctl[data-param=a] input');
          knob.value = v;
          knob.dispatchEvent(new Event('input', { bubbles: true }));
          document.querySelector('#lab-vicsek .vk-restart').click();
        }""", value)
        wait_async(page, "async () => (await window.swarmlab.engine.call('vicsek', 'state')).t === 0")
        ctl(page, "c.settle()")
        st = page.evaluate("() => window.swarmlab.engine.call('vicsek', 'state')")
        assert st["params"]["a"] == float(value), (value, st["params"])
        assert page.input_value("#lab-vicsek .ctl[data-param=a] input") == value
