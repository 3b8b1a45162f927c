"""Lab 3 page ("Three rules") in a real Chromium: controls, presets, the treat, layout.

Model time is driven with op_step through the page's own bridge (engine_call), so
"N seconds of flocking" costs no wall-clock waiting; the page's loop keeps running
alongside, as it would for a student.
"""

from __future__ import annotations

import math
import time

import pytest
from browserlib import copied_link, engine_call, screenshot, settle, touch, wait_async, wait_ready

LAB = "boids"

DISTANCES_JS = """async ([x, y, r]) => {
  const e = window.swarmlab.engine;
  const d = await e.frame("boids");
  const st = await e.call("boids", "state", {});
  const W = st.world.width, H = st.world.height, n = d[0];
  const dist = [];
  for (let k = 0; k < n; k++) {
    let dx = d[5 + 4 * k] - x, dy = d[6 + 4 * k] - y;
    dx -= W * Math.round(dx / W); dy -= H * Math.round(dy / H);
    dist.push(Math.hypot(dx, dy));
  }
  dist.sort((a, b) => a - b);
  return { frac: dist.filter((v) => v < r).length / n, median: dist[Math.floor(n / 2)], n };
}"""


def distances(page, x, y, r=16.0):
    return page.evaluate(DISTANCES_JS, [x, y, r])


def state(page):
    return engine_call(page, LAB, "state")


def canvas_point(page, fx, fy):
    """Viewport coordinates of a point at fractions (fx, fy) of the stage canvas."""
    canvas = page.locator("#lab-boids canvas.bd-canvas")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    return box["x"] + fx * box["width"], box["y"] + fy * box["height"]


def wait_model_time_passes(page, t0, timeout=15_000):
    page.wait_for_function(f"Number(document.querySelector('#lab-boids').dataset.t) > {t0}", timeout=timeout)


def wait_treat_near(page, x, y, tol=0.8, timeout=5_000):
    """Input events are delivered asynchronously: wait until the engine's treat is at (x, y)."""
    wait_async(page, 
        """async ([x, y, tol]) => { const t = (await window.swarmlab.engine.call("boids", "state", {})).treat;
                             return t.on && Math.abs(t.x - x) <= tol && Math.abs(t.y - y) <= tol; }""",
        arg=[x, y, tol], timeout=timeout)


HOLD_STEPS = 720  # 18 model seconds


def hold_and_measure(page, x, y):
    """Hold the treat at (x, y) for HOLD_STEPS more steps and measure who came.

    18 s, not 12: the engine replayed from 48 starts (12 samples on four world shapes,
    treat anywhere) gathers at least 0.89 of the flock within 16 lengths after 720 steps,
    but only 0.56-0.81 after 480, too close to the 0.75 the tests ask.  The page's own
    loop runs alongside and only adds holding time."""
    engine_call(page, LAB, "step", {"n": HOLD_STEPS})
    return distances(page, x, y)


def treat_pixel(page):
    """RGBA of the stage canvas where the treat is drawn (after the next frame): the most
    yellow pixel within 3 px of its centre (the boids are drawn over the treat, and one may
    cross its centre)."""
    page.wait_for_timeout(120)
    return page.evaluate("""async () => {
      const st = await window.swarmlab.engine.call("boids", "state", {});
      const c = document.querySelector("#lab-boids canvas.bd-canvas");
      const x = Math.round(st.treat.x / st.world.width * c.width), y = Math.round(st.treat.y / st.world.height * c.height);
      const d = c.getContext("2d").getImageData(x - 3, y - 3, 7, 7).data;
      let best = 0;
      for (let k = 4; k < d.length; k += 4) if (d[k] + d[k + 1] - d[k + 2] > d[best] + d[best + 1] - d[best + 2]) best = k;
      return Array.from(d.slice(best, best + 4));
    }""")


@pytest.fixture(scope="module")
def lab(module_page, server):
    module_page.goto(f"{server}/?lab={LAB}")
    wait_ready(module_page)
    return module_page


def test_page_builds_from_specs_with_defaults_and_text(lab):
    page = lab
    st = state(page)
    assert st["N"] == 80
    for name, shown in (("k_sep", "1.50"), ("k_ali", "1.00"), ("k_coh", "1.00")):
        row = page.locator(f"#lab-boids .ctl[data-param={name}]")
        assert row.locator("input[type=range]").input_value() in (shown.rstrip("0").rstrip("."), shown, str(float(shown)))
        assert row.locator("output").inner_text() == shown
        assert row.locator("input").get_attribute("max") == "3"
        # the label shows the code name (p.k_sep in the rules) and a screen reader hears "k sep"
        assert row.locator("label .code-name").inner_text() == name
        word = {"k_sep": "Separation", "k_ali": "Alignment", "k_coh": "Cohesion"}[name]
        spoken = f"{word} {name.replace('_', ' ')}"
        assert page.locator("#lab-boids").get_by_role("slider", name=spoken, exact=True).count() == 1
    pop = page.locator("#lab-boids .ctl[data-param=population] input")
    assert int(pop.get_attribute("max")) >= 2000 and pop.input_value() == "80"
    # the world has the canvas's shape and the default area (same density on every screen)
    box = page.locator("#lab-boids canvas.bd-canvas").bounding_box()
    w, h = st["world"]["width"], st["world"]["height"]
    assert abs((w / h) / (box["width"] / box["height"]) - 1) < 0.03
    assert w * h == pytest.approx(16000, rel=0.01)
    # touch on the stage offers a treat instead of scrolling the page
    assert page.eval_on_selector("#lab-boids canvas.bd-canvas", "c => getComputedStyle(c).touchAction") == "none"
    assert page.get_attribute("#lab-boids canvas.bd-canvas", "tabindex") == "0"
    # presets, each with a sentence of what to look for
    buttons = page.locator("#lab-boids .bd-preset")
    assert buttons.count() == 3
    for k in range(3):
        look = page.locator(f"#{buttons.nth(k).get_attribute('aria-describedby')}").inner_text()
        assert len(look.split()) > 10
    # explanations: formulas in MathML, the scaling and robotics sections, the source
    text = page.inner_text("#lab-boids .bd-below")
    for heading in ("Three rules, and nothing else", "The formulas", "Why the flock keeps flowing",
                    "Why purely local rules scale", "And robots followed", "Sources"):
        assert heading in text
    # one section on robots, and the sources end the lab (after the story, as in the other labs)
    headings = page.eval_on_selector_all("#lab-boids h2", "els => els.map(e => e.textContent.trim())")
    assert headings[-1] == "Sources" and sum("robot" in h.lower() for h in headings) == 1, headings
    assert "calm" not in page.inner_text("#lab-boids .bd-try")  # no "flock calmed down?" tip any more
    assert page.locator("#lab-boids .bd-try-more").count() == 0
    assert page.locator("#lab-boids .bd-explain math").count() >= 6
    assert "ε" in page.text_content("#lab-boids .bd-explain math[data-formula=separation]")
    assert "cap" in page.text_content("#lab-boids .bd-explain math[data-formula=steering]")
    assert "allocate" in page.text_content("#lab-boids .bd-explain math[data-formula=allocation]")
    # Reynolds' ingredients: one control each, built from the engine's specs, and the text
    # quotes the engine's values (no copies in the page)
    specs = {s["name"]: s for s in page.evaluate("async () => await window.swarmlab.engine.spec('boids')")}
    for name in ("radius", "sep_radius", "coh_radius", "view", "max_force", "v_min", "v_max"):
        row = page.locator(f"#lab-boids .bd-advanced .ctl[data-param={name}]")
        assert row.count() == 1, name
        assert float(row.locator("input").input_value()) == specs[name]["default"] == st["params"][name]
        _assert_quoted(page, name, st["params"][name])
    blind = page.eval_on_selector_all("#lab-boids .bd-param[data-param=blind]", "els => els.map(e => e.textContent)")
    assert blind and all(float(v) == 360 - st["params"]["view"] for v in blind)
    assert f"{st['params']['view']:g}° field of view" in page.inner_text("#lab-boids .bd-world")
    assert "shaped like this stage (a copied link keeps it" in page.inner_text("#lab-boids .bd-world")
    assert page.locator("#lab-boids a[href='https://doi.org/10.1145/37401.37406']").count() == 1
    assert page.rec.page_errors == [] and page.rec.console_errors == []
    assert page.rec.outside_requests() == []


def _assert_quoted(page, name, value):
    """The explanation quotes setting ``name`` at ``value``: a bare number, or where it names the
    unit, exactly as the setting's control writes it (the spec's decimals and unit)."""
    shown = page.eval_on_selector_all(f"#lab-boids .bd-param[data-param={name}]",
                                      "els => els.map(e => [e.textContent, 'unit' in e.dataset])")
    assert shown, name
    for text, with_unit in shown:
        if with_unit:
            output = page.locator(f"#lab-boids .ctl[data-param={name}] output").text_content()
            assert text == output and float(text.split()[0]) == value and len(text.split()) == 2, (name, text, output)
        else:
            assert float(text) == value, (name, text)


def test_weight_slider_changes_the_engine_live(lab):
    page = lab
    before = state(page)
    wait_model_time_passes(page, before["t"])
    slider = page.locator("#lab-boids .ctl[data-param=k_ali] input")
    slider.focus()
    page.keyboard.press("ArrowRight")
    settle(page, LAB)
    page.keyboard.press("ArrowRight")
    settle(page, LAB)
    after = state(page)
    assert after["params"]["k_ali"] == pytest.approx(before["params"]["k_ali"] + 0.1)
    assert page.locator("#lab-boids .ctl[data-param=k_ali] output").inner_text() == f"{after['params']['k_ali']:.2f}"
    assert after["N"] == before["N"] and after["steps"] >= before["steps"]  # no restart
    wait_model_time_passes(page, after["t"])  # and it keeps running
    assert state(page)["params"]["k_ali"] == after["params"]["k_ali"]
    page.keyboard.press("ArrowLeft")
    settle(page, LAB)
    page.keyboard.press("ArrowLeft")
    settle(page, LAB)
    assert state(page)["params"]["k_ali"] == pytest.approx(before["params"]["k_ali"])


def test_population_slider_up_to_2000_and_back(lab):
    page = lab
    t0 = state(page)["t"]
    set_pop = """v => { const i = document.querySelector("#lab-boids .ctl[data-param=population] input");
                        i.value = v; i.dispatchEvent(new Event("input", {bubbles: true})); }"""
    page.evaluate(set_pop, 2000)
    st = state(page)
    assert st["N"] == 2000 and st["t"] >= t0
    assert page.locator("#lab-boids .bd-N").inner_text() in ("80", "2,000")  # readout refreshes within 0.25 s
    page.wait_for_function("document.querySelector('#lab-boids .bd-N').textContent === '2,000'", timeout=30_000)
    wait_model_time_passes(page, st["t"], timeout=30_000)
    n = page.evaluate("async () => (await window.swarmlab.engine.frame('boids'))[0]")
    assert n == 2000
    page.evaluate(set_pop, 80)
    st = state(page)
    assert st["N"] == 80 and st["params"]["population"] == 80


def test_radius_setting_is_live_and_the_text_follows(lab):
    page = lab
    page.click("#lab-boids .bd-advanced summary")
    settle(page, LAB)
    slider = page.locator("#lab-boids .ctl[data-param=radius] input")
    t0, r0 = state(page)["t"], state(page)["params"]["radius"]
    slider.focus()
    page.keyboard.press("ArrowRight")
    settle(page, LAB)
    st = state(page)
    assert st["params"]["radius"] == r0 + 0.5 and st["t"] >= t0
    texts = page.eval_on_selector_all("#lab-boids .bd-radius", "els => els.map(e => e.textContent)")
    assert texts and all(t == f"{r0 + 0.5:g}" for t in texts)
    assert f"within {r0 + 0.5:g} lengths" in page.inner_text("#lab-boids .bd-world")
    page.keyboard.press("ArrowLeft")
    settle(page, LAB)
    assert state(page)["params"]["radius"] == r0
    assert page.text_content("#lab-boids .bd-radius") == f"{r0:g}"
    page.click("#lab-boids .bd-advanced summary")
    settle(page, LAB)


def test_the_sample_number_is_a_box_to_type_in(lab):
    """The sample's range is two billion: a slider could not pick 1 to 8 (the page says "try a
    few sample numbers").  A number box, as in the Swarm Lab: a typed number is kept for the
    next restart; text that is not a whole number in range is refused with a message."""
    page = lab
    page.click("#lab-boids .bd-advanced summary")
    settle(page, LAB)
    box = page.locator("#lab-boids .ctl[data-param=sample] input")
    assert box.get_attribute("type") == "number" and box.input_value() == str(state(page)["params"]["sample"])
    assert box.is_visible() and box.bounding_box()["width"] >= 60
    n0 = state(page)["N"]
    box.fill("7")
    box.press("Enter")
    settle(page, LAB)
    assert state(page)["params"]["sample"] == 7 and box.input_value() == "7" and state(page)["N"] == n0
    # said as the Swarm Lab says it (the session's words; before, nothing was said)
    assert "Sample number 7 will be used when you press Restart." in page.inner_text("#notices")
    for bad, said in (("2.5", "got 2.5"), ("-3", "got -3"), ("", "got nothing (it was empty)"), ("1e309", "got 'not a number'")):
        box.fill(bad)
        box.press("Enter")
        settle(page, LAB)
        assert state(page)["params"]["sample"] == 7, bad
        assert box.input_value() == "7", bad  # snapped back to the last good value
        # the message names what was typed (an empty box and 1e309 once read "got None")
        assert said in page.inner_text("#notices") and "None" not in page.inner_text("#notices"), bad
        assert page.locator("#notices .notice", has_text="sample").count() == 1, bad  # one, replaced
    # the reason stands at the box too, and stays while other settings change (the lab writes
    # every control again after each change)
    note = page.locator("#lab-boids .ctl[data-param=sample] .ctl-note")
    assert "got 'not a number'" in note.inner_text() and box.get_attribute("aria-invalid") == "true"
    weight = page.locator("#lab-boids .bd-weights input[type=range]").first
    weight.focus()
    page.keyboard.press("ArrowRight")
    settle(page, LAB)
    assert note.is_visible() and box.get_attribute("aria-invalid") == "true"
    assert note.get_attribute("id") in box.get_attribute("aria-describedby").split()
    page.keyboard.press("ArrowLeft")
    settle(page, LAB)
    box.fill("42")
    box.press("Enter")
    settle(page, LAB)
    assert state(page)["params"]["sample"] == 42
    page.click("#lab-boids .bd-advanced summary")
    settle(page, LAB)


def test_reynolds_settings_are_live_and_the_text_follows(lab):
    """Field of view, maximum force and the speed range: sliders built from the engine's
    specs, applied live (no restart), and the explanation quotes the new values."""
    page = lab
    page.click("#lab-boids .bd-advanced summary")
    settle(page, LAB)
    before = state(page)
    set_value = """([name, v]) => { const i = document.querySelector(`#lab-boids .ctl[data-param=${name}] input`);
                       i.value = v; i.dispatchEvent(new Event("input", {bubbles: true})); }"""
    for name, value in (("view", 360), ("max_force", 20), ("v_max", 12), ("coh_radius", 10)):
        page.evaluate(set_value, [name, value])
        settle(page, LAB)
        st = state(page)
        assert st["params"][name] == value and st["steps"] >= before["steps"], name
        _assert_quoted(page, name, value)
    # all round, the explanation no longer speaks of a blind cone (it had said "a cone of 0°
    # behind it is blind")
    said = page.inner_text("#lab-boids .bd-says[data-says=view]")
    assert "sees all round" in said and "no blind spot" in said and "blind." not in said, said
    assert page.locator("#lab-boids .bd-param[data-param=blind]").count() == 0
    # cohesion reaching less far than alignment cannot pull a stream back (it had said "reaches a
    # little further than alignment (10 against 15 lengths)")
    said = page.inner_text("#lab-boids .bd-says[data-says=reach]")
    assert "less far than alignment (10 against 15 lengths)" in said and "rejoins only by chance" in said, said
    assert "360° field of view" in page.inner_text("#lab-boids .bd-world")
    # a speed range that is not a range is refused with a message, and nothing changes
    page.evaluate(set_value, ["v_min", 15])
    settle(page, LAB)
    assert state(page)["params"]["v_min"] == before["params"]["v_min"]
    page.wait_for_function("() => document.querySelector('#notices').innerText.includes('v_min')")
    for name in ("view", "max_force", "v_max", "v_min", "coh_radius"):
        page.evaluate(set_value, [name, before["params"][name]])
        settle(page, LAB)
    assert state(page)["params"] == before["params"]
    page.click("#lab-boids .bd-advanced summary")
    settle(page, LAB)


@pytest.mark.serial
def test_heavy_settings_keep_the_page_responsive(lab):
    """2,000 boids in a 10 x 10 world (everyone neighbours everyone: one step costs far more
    than a frame).  The engine works in its worker, so the page's main thread stays free:
    timers keep firing, Pause answers at once, and the run goes on in slow motion."""
    page = lab
    world = state(page)["world"]
    set_pop = """v => { const i = document.querySelector("#lab-boids .ctl[data-param=population] input");
                        i.value = v; i.dispatchEvent(new Event("input", {bubbles: true})); }"""
    page.evaluate(set_pop, 2000)
    engine_call(page, LAB, "resize", {"width": 10, "height": 10})
    page.wait_for_function("document.querySelector('#lab-boids .bd-N').textContent === '2,000'", timeout=30_000)
    t0 = state(page)["t"]
    gaps = page.evaluate("""() => new Promise((resolve) => {
      const gaps = []; let last = performance.now();
      const tick = () => { const now = performance.now(); gaps.push(now - last); last = now;
        if (gaps.length < 150) setTimeout(tick, 10); else resolve(gaps); };
      setTimeout(tick, 10);
    })""")
    assert max(gaps) < 250, max(gaps)  # a main-thread engine would block for whole steps
    assert state(page)["t"] > t0  # it keeps running, in slow motion
    ms = page.evaluate("""() => { const b = document.querySelector("#lab-boids .bd-play"); const t = performance.now();
                                  b.click(); return [b.textContent, performance.now() - t]; }""")
    assert ms[0] == "Play" and ms[1] < 100
    engine_call(page, LAB, "resize", world)
    page.evaluate(set_pop, 80)
    page.click("#lab-boids .bd-play")
    settle(page, LAB)


@pytest.mark.serial
def test_presets_change_weights_live_and_behave_as_taught(lab):
    page = lab
    engine_call(page, LAB, "reset", {"sample": 4})
    spacing = {}
    for name, weights, reach in (("separation", (1.5, 0.0, 0.0), 16.0), ("cohesion", (0.0, 0.0, 1.0), 60.0),
                                 ("balanced", (1.5, 1.0, 1.0), 16.0)):
        t_before = state(page)["t"]
        button = page.locator(f"#lab-boids .bd-preset[data-preset={name}]")
        # the button shows the weights it sets and its words the rest (from the session, not a JS copy)
        assert button.inner_text().endswith(" / ".join(f"{w:g}" for w in weights))
        look = page.locator(f"#bd-look-{name}").inner_text()
        assert ("360°, 60 lengths" in look) == (name == "cohesion")
        button.click()
        settle(page, LAB)
        st = state(page)
        assert (st["params"]["k_sep"], st["params"]["k_ali"], st["params"]["k_coh"]) == weights
        assert st["params"]["coh_radius"] == reach  # cohesion only also looks further, all round (one clump)
        assert st["params"]["view"] == (360.0 if name == "cohesion" else 200.0)
        said = page.inner_text("#lab-boids .bd-says[data-says=reach]")  # the text follows the preset
        assert f"reaches {'further' if name == 'cohesion' else 'a little further'} than alignment" in said, said
        assert st["t"] >= t_before  # live, no restart
        assert page.get_attribute(f"#lab-boids .bd-preset[data-preset={name}]", "aria-pressed") == "true"
        shown = [page.locator(f"#lab-boids .ctl[data-param={k}] output").inner_text() for k in ("k_sep", "k_ali", "k_coh")]
        assert shown == [f"{w:.2f}" for w in weights]
        assert float(page.locator("#lab-boids .ctl[data-param=coh_radius] input").input_value()) == reach
        # paused while measured: the page's own loop would add steps in proportion to the
        # machine's slowness (a slow runner 40-100 a preset, past the 0-30 replayed below)
        page.evaluate("async () => { const c = window.swarmlab.labs.get('boids'); c.pause(); await c.settle(); }")
        engine_call(page, LAB, "step", {"n": 600})  # 20 model seconds under this preset,
        readings = []                                  # the spacing averaged over the last 5
        for _ in range(20):
            engine_call(page, LAB, "step", {"n": 10})
            readings.append(engine_call(page, LAB, "metrics")["spacing"])
        spacing[name] = sum(readings) / len(readings)
        page.evaluate("() => window.swarmlab.labs.get('boids').play()")
    # Replayed in CPython (63 starts: 0-200 steps of the page's loop before the first click,
    # 0-30 more per preset), separation / balanced averaged so was 1.46-2.08 (median 1.77;
    # one reading alone 1.40-2.18, so a 1.5 bar on a single reading failed 5 in 63), and
    # balanced / cohesion 4.1-10.
    assert spacing["separation"] > 1.3 * spacing["balanced"]
    assert spacing["balanced"] > 2 * spacing["cohesion"]
    defaults = state(page)["params"]
    assert (defaults["k_sep"], defaults["k_ali"], defaults["k_coh"]) == (1.5, 1.0, 1.0)


def test_the_page_flies_the_same_flock_as_cpython(lab):
    """The page's engine (Pyodide's numpy, in the worker) runs exactly the model the
    CPython tests measure: after 60 model s of the balanced defaults the frame the page
    draws is bit-identical (float32) to the CPython session's.  So the CPython goal table
    (tests/unit/test_boids_behaviour.py: splits, turns, no lattice, still a flock) is what
    the student sees in the page."""
    import json

    from swarmlab.sessions import create

    page = lab
    page.click("#lab-boids .bd-preset[data-preset=balanced]")
    settle(page, LAB)
    world = {"width": 160.0, "height": 100.0}
    ref = create("boids")
    ref.call("reset", json.dumps({"sample": 3, **world}))
    ref.call("step", json.dumps({"n": 2400}))
    got = page.evaluate("""async (world) => {
      const e = window.swarmlab.engine, c = window.swarmlab.labs.get('boids');
      c.pause(); await c.settle();
      await e.call('boids', 'reset', { sample: 3, ...world });
      await e.call('boids', 'step', { n: 2400 });
      const f = await e.frame('boids');
      c.play();
      return Array.from(f);
    }""", world)
    assert got == ref.frame().astype(float).tolist()
    engine_call(page, LAB, "reset", {"sample": 42})


def test_flocks_readout_shows_groups_splitting_and_merging(lab):
    """The "flocks" readout (with the boids in groups that do not fly one way, and those alone)
    shows the engine's counts, and it keeps changing long after the start: between 60 and 120
    model s flocks split and merge."""
    page = lab
    page.click("#lab-boids .bd-preset[data-preset=balanced]")
    settle(page, LAB)
    if page.get_attribute("#lab-boids", "data-playing") == "1":
        page.click("#lab-boids .bd-play")
        settle(page, LAB)
    page.wait_for_function("document.querySelector('#lab-boids').dataset.playing === '0'")

    def shown_after(seconds):
        steps = int(seconds * 40)
        while steps > 0:
            engine_call(page, LAB, "step", {"n": min(steps, 4000)})
            steps -= 4000
        m = engine_call(page, LAB, "metrics")
        others = m["N"] - m["in_flocks"] - m["loners"]
        parts = ([f"{others} in small or mixed groups"] if others else []) + \
                ([f"{m['loners']} {'boid' if m['loners'] == 1 else 'boids'} alone"] if m["loners"] else [])
        text = f"{m['flocks']} ({', '.join(parts) or 'all in flocks'})"
        page.wait_for_function("t => document.querySelector('#lab-boids .bd-flocks').textContent === t", arg=text)
        return m

    try:
        engine_call(page, LAB, "reset", {"sample": 1})
        shown_after(60)
        # 62.5 .. 120 s, every 2.5 s.  Replayed in CPython (sample 1, worlds of aspect 1.3 to 2.0
        # in 15 steps, 16,000 square lengths): the readout (flocks, in flocks, alone) changed
        # 14-23 times in 23 readings (median 23), the count itself 1-12 times and it always
        # took at least two values
        shown = [shown_after(2.5) for _ in range(24)]
        counts = [m["flocks"] for m in shown]
        assert page.get_attribute("#lab-boids", "data-flocks") == str(counts[-1])
        readings = [(m["flocks"], m["in_flocks"], m["loners"]) for m in shown]
        changes = sum(a != b for a, b in zip(readings, readings[1:]))
        assert changes >= 8 and len(set(counts)) >= 2, readings
    finally:
        page.click("#lab-boids .bd-play")
        settle(page, LAB)
        page.wait_for_function("document.querySelector('#lab-boids').dataset.playing === '1'")


def test_mouse_treat_gathers_then_disperses(lab):
    page = lab
    engine_call(page, LAB, "reset", {"sample": 2})
    engine_call(page, LAB, "step", {"n": 200})
    w, h = state(page)["world"]["width"], state(page)["world"]["height"]
    x, y = canvas_point(page, 0.25, 0.7)
    page.mouse.move(x, y)
    page.mouse.down()
    try:
        held, far, st = drag_and_hold(page, w, h)
    finally:
        page.mouse.up()  # a failure here must not leave the next test with a held button
    assert held["frac"] >= 0.85 and far["frac"] < 0.5
    settle(page, LAB)
    assert state(page)["treat"]["on"] is False
    assert page.get_attribute("#lab-boids", "data-treat") == "off"
    # the press focused the stage, but no keyboard ring (nor cursor) stays after a mouse's treat,
    # until a key is pressed there
    canvas = page.locator("#lab-boids canvas.bd-canvas")
    assert canvas.evaluate("(c) => document.activeElement === c && getComputedStyle(c).outlineStyle") == "none"
    page.keyboard.press("ArrowLeft")
    assert canvas.evaluate("(c) => getComputedStyle(c).outlineStyle") == "solid"
    engine_call(page, LAB, "step", {"n": 160})
    later = distances(page, st["treat"]["x"], st["treat"]["y"])
    assert later["median"] > 1.5 * held["median"]


def drag_and_hold(page, w, h):
    settle(page, LAB)
    wait_treat_near(page, 0.25 * w, 0.7 * h, tol=0.6)
    st = state(page)
    assert st["treat"]["x"] == pytest.approx(0.25 * w, abs=0.6) and st["treat"]["y"] == pytest.approx(0.7 * h, abs=0.6)
    assert page.get_attribute("#lab-boids", "data-treat") == "on"
    r, g, b, _ = treat_pixel(page)
    assert r > 200 and g > 150 and b < 160  # the treat is drawn (warm yellow)
    # drag it: the treat follows the pointer
    x2, y2 = canvas_point(page, 0.6, 0.4)
    page.mouse.move(x2, y2, steps=6)
    wait_treat_near(page, 0.6 * w, 0.4 * h, tol=0.6)
    st = state(page)
    far = distances(page, st["treat"]["x"], st["treat"]["y"])
    held = hold_and_measure(page, st["treat"]["x"], st["treat"]["y"])
    return held, far, st


def test_keyboard_treat_with_cursor(lab):
    page = lab
    engine_call(page, LAB, "reset", {"sample": 3})
    canvas = page.locator("#lab-boids canvas.bd-canvas")
    canvas.focus()
    scroll = page.evaluate("window.scrollY")
    page.keyboard.down("Enter")
    try:
        settle(page, LAB)
        time.sleep(0.5)  # a hold, not a tap: the treat goes when the key comes up
        st = state(page)
        assert st["treat"]["on"] is True
        x0, y0 = st["treat"]["x"], st["treat"]["y"]
        # screen readers hear where the treat is and when it goes
        assert page.text_content("#lab-boids .bd-sr") == (
            f"Treat held at {round(100 * x0 / st['world']['width'])}% across, {round(100 * y0 / st['world']['height'])}% down.")
    finally:
        page.keyboard.up("Enter")
    settle(page, LAB)
    assert state(page)["treat"]["on"] is False
    assert page.text_content("#lab-boids .bd-sr") == "Treat released."
    for _ in range(4):
        page.keyboard.press("ArrowRight")
        settle(page, LAB)
    page.keyboard.press("ArrowUp")
    settle(page, LAB)
    page.keyboard.down(" ")  # Space holds too, and does not scroll the page
    try:
        st = state(page)
        w, h = st["world"]["width"], st["world"]["height"]
        assert st["treat"]["on"] is True
        assert st["treat"]["x"] == pytest.approx((x0 + 12) % w, abs=1e-3)
        assert st["treat"]["y"] == pytest.approx((y0 - 3) % h, abs=1e-3)
        page.keyboard.press("ArrowDown")  # moving the cursor while held moves the treat
        assert state(page)["treat"]["y"] == pytest.approx(y0 % h, abs=1e-3)
        assert hold_and_measure(page, st["treat"]["x"], y0)["frac"] >= 0.85
    finally:
        page.keyboard.up(" ")  # a failure must not leave the next test with a held key
    settle(page, LAB)
    assert state(page)["treat"]["on"] is False
    assert page.evaluate("window.scrollY") == scroll


def test_a_tapped_key_keeps_the_treat_until_the_next_tap(lab):
    """An on-screen keyboard, sticky keys, a switch or voice input cannot hold a key: a tap of
    Enter or Space keeps the treat (and says how to let go), the next tap lets go, and so does
    Escape."""
    page = lab
    canvas = page.locator("#lab-boids canvas.bd-canvas")
    canvas.focus()
    for key in ("Enter", " "):
        page.keyboard.press(key)  # down and up at once
        settle(page, LAB)
        time.sleep(0.8)
        assert state(page)["treat"]["on"] is True, key
        said = page.text_content("#lab-boids .bd-sr")
        assert said.startswith("Treat kept at ") and "again or Escape to let go" in said, said
        page.keyboard.press("ArrowLeft")  # the kept treat follows the cursor
        settle(page, LAB)
        assert state(page)["treat"]["on"] is True
        page.keyboard.press("Tab")  # and stays while the student tries another control
        settle(page, LAB)
        assert state(page)["treat"]["on"] is True
        canvas.focus()
        page.keyboard.press(key)  # the next tap lets go
        settle(page, LAB)
        assert state(page)["treat"]["on"] is False
        assert page.text_content("#lab-boids .bd-sr") == "Treat released."
    page.keyboard.press("Enter")
    settle(page, LAB)
    page.keyboard.press("Escape")
    settle(page, LAB)
    assert state(page)["treat"]["on"] is False


def test_desktop_screenshot_with_treat(lab):
    page = lab
    engine_call(page, LAB, "reset", {"sample": 42})
    engine_call(page, LAB, "step", {"n": 600})
    x, y = canvas_point(page, 0.55, 0.45)
    page.mouse.move(x, y)
    page.mouse.down()
    settle(page, LAB)
    engine_call(page, LAB, "step", {"n": 200})
    page.wait_for_timeout(150)
    screenshot(page, "boids-desktop-1280x800")
    page.mouse.up()
    settle(page, LAB)
    # a link copied after the treat says the run is not in it, in this lab's words (no threat here)
    page.locator("#lab-boids .bd-copy").click()
    note = page.locator("#lab-boids .copy-note")
    page.wait_for_function("() => (document.querySelector('#lab-boids .copy-note') || {innerText: ''}).innerText.includes('Link copied')")
    assert "(setting changes or the treat) is not in the link" in note.inner_text(), note.inner_text()
    assert "threat" not in note.inner_text()
    # the stage and the side column sit side by side and nothing overflows the viewport width
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    stage = page.locator("#lab-boids .bd-stage").bounding_box()
    side = page.locator("#lab-boids .bd-side").bounding_box()
    assert side["x"] >= stage["x"] + stage["width"] - 1
    assert stage["y"] + stage["height"] <= 800  # the whole stage is above the fold


def test_touch_treat_on_a_phone(phone_page, open_lab):
    page = open_lab(LAB, target=phone_page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    engine_call(page, LAB, "reset", {"sample": 5})
    engine_call(page, LAB, "step", {"n": 200})
    st = state(page)
    w, h = st["world"]["width"], st["world"]["height"]
    assert h > w  # a portrait stage gets a portrait world
    cdp = page.context.new_cdp_session(page)
    x, y = canvas_point(page, 0.5, 0.3)
    scroll = page.evaluate("window.scrollY")
    touch(cdp, "touchStart", x, y)
    wait_treat_near(page, 0.5 * w, 0.3 * h)
    # a vertical drag moves the treat and does not scroll the page
    for k in range(1, 9):
        touch(cdp, "touchMove", x, y + 15 * k)
    box = page.locator("#lab-boids canvas.bd-canvas").bounding_box()
    wait_treat_near(page, 0.5 * w, (0.3 * box["height"] + 120) / box["height"] * h)
    st = state(page)
    assert page.evaluate("window.scrollY") == scroll
    assert hold_and_measure(page, st["treat"]["x"], st["treat"]["y"])["frac"] >= 0.85
    page.wait_for_timeout(150)
    screenshot(page, "boids-phone-390x844")
    touch(cdp, "touchEnd", 0, 0)
    # (touch events reach the page asynchronously; the release is sent before the mark is set)
    page.wait_for_function("() => document.getElementById('lab-boids').dataset.treat === 'off'", timeout=5_000)
    assert state(page)["treat"]["on"] is False
    # a finger does not leave a focus frame and the keyboard cursor behind on the sky
    assert page.evaluate("document.activeElement !== document.querySelector('#lab-boids canvas.bd-canvas')")
    assert page.rec.page_errors == [] and page.rec.console_errors == []
    # one column on a phone: stage, "Try this" (the presets by the stage), controls, then the
    # chart and "Ten or ten thousand" (it sat between the stage and the controls before)
    stage, tries, controls, chart, scale = (page.locator(f"#lab-boids {sel}").bounding_box()
                                            for sel in (".bd-stage", ".bd-try", ".bd-controls", ".bd-chart-fig", ".bd-scale"))
    assert tries["y"] >= stage["y"] + stage["height"] and controls["width"] <= 390
    # Play/Pause right under the stage, on the first screen (it sat after the presets and the
    # sliders, about 2,100 px down, before)
    play = page.locator("#lab-boids .bd-play").bounding_box()
    assert stage["y"] + stage["height"] <= play["y"] < tries["y"]
    assert play["y"] + play["height"] + page.evaluate("scrollY") <= 844
    assert controls["y"] >= tries["y"] + tries["height"]
    assert chart["y"] >= controls["y"] + controls["height"]
    assert scale["y"] >= chart["y"] + chart["height"]
    # ... in the DOM too, so Tab meets them in that order
    assert page.evaluate("""() => { const [c, s] = ['.bd-controls', '.bd-scale'].map((q) => document.querySelector('#lab-boids ' + q));
                                    return Boolean(c.compareDocumentPosition(s) & Node.DOCUMENT_POSITION_FOLLOWING); }""")
    # no formula is cut off at phone width
    clipped = page.eval_on_selector_all("#lab-boids .bd-explain .formula",
                                        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).length")
    assert clipped == 0
    assert not math.isnan(float(page.get_attribute("#lab-boids", "data-t")))
    # the flocks readout's changing words never move what is below it (an embedded lab's frame
    # follows the lab's height: it went up and down by a line every second or two at 400 px)
    page.evaluate("() => window.swarmlab.labs.get('boids').pause()")
    settle(page, LAB)
    sizes = []
    for words in ("1 (all in flocks)", "3 (13 in small or mixed groups, 2 boids alone)",
                  "12 (1234 in small or mixed groups, 12 boids alone)", "0 (no boids)"):
        sizes.append(page.evaluate("""(words) => { document.querySelector('#lab-boids .bd-flocks').textContent = words;
                                      return [document.querySelector('#lab-boids .bd-readouts').offsetHeight,
                                              document.documentElement.scrollHeight]; }""", words))
    assert len({tuple(s) for s in sizes}) == 1, sizes


REPLAY = """async () => {
  const e = window.swarmlab.engine, c = window.swarmlab.labs.get('boids');
  c.pause();           // the page's own loop would otherwise step between these calls
  await c.settle();
  await e.call('boids', 'reset', {});
  await e.call('boids', 'step', { n: 240 });
  const frame = await e.frame('boids');
  return { state: await e.call('boids', 'state', {}), frame };
}"""


def test_minimal_controls_keep_every_setting_one_button_away(page, server):
    """?controls=minimal hides "More settings" (Lab 3) and the playback rate (Lab 2); the text
    that sends students there says how to reach it, and "Show all settings" does."""
    page.goto(f"{server}/?lab=boids&controls=minimal")
    wait_ready(page)
    more = page.locator("#lab-boids .bd-advanced")
    assert not more.is_visible()
    assert "Open “Show all settings”, then “More settings” and widen the field of view" in \
        " ".join(page.locator("#lab-boids .bd-explain").inner_text().split())
    page.locator("#lab-boids .minimal-toggle").click()
    assert more.is_visible() and more.get_attribute("open") is not None
    assert page.locator("#lab-boids .ctl[data-param=view]").is_visible()
    # the page's controls=minimal is kept for the next lab
    page.click("#tab-vicsek")
    wait_ready(page)
    page.wait_for_selector("#lab-vicsek .minimal-toggle", state="visible")
    assert not page.locator("#lab-vicsek .vk-rate input").is_visible()
    page.locator("#lab-vicsek .minimal-toggle").click()
    assert page.locator("#lab-vicsek .vk-rate input").is_visible()
    assert page.rec.page_errors == []


def test_a_link_whose_speeds_do_not_fit_together_keeps_its_other_settings(page, server):
    """Each setting of a link is in range on its own, but a lowest speed above the highest
    cannot hold: the page says so and drops the speeds only (it once failed to start, then
    threw every setting of the link away for them)."""
    page.goto(f"{server}/?lab={LAB}&v_min=10&v_max=5&k_sep=2&population=120")
    wait_ready(page)
    page.wait_for_function("() => document.querySelector('#notices').innerText.includes('ignored v_min=10 and v_max=5')")
    assert "Minimum speed v_min (10 lengths/s) must not exceed maximum speed v_max (5 lengths/s)" in page.inner_text("#notices")
    assert "do not fit together" not in page.inner_text("#notices")
    assert page.locator("#lab-boids .lab-error").count() == 0
    st = state(page)
    assert (st["params"]["v_min"], st["params"]["v_max"]) == (3, 6)  # the defaults' speeds
    assert (st["params"]["k_sep"], st["N"]) == (2, 120)  # and the link's other settings
    wait_model_time_passes(page, st["t"])


def test_a_scaling_population_without_its_sky_leaves_out_only_the_population(page, server):
    """10,000 boids belong to the scaling experiment's grown sky (a copied link carries it as
    world=).  Typed without it, the whole link's settings were thrown away (an outside review);
    now only the population is left out, and said."""
    page.goto(f"{server}/?lab={LAB}&population=10000&k_sep=2.5&view=300")
    wait_ready(page)
    page.wait_for_function("() => document.querySelector('#notices').innerText.includes('ignored population=10000')")
    notices = page.inner_text("#notices")
    assert "scaling experiment's sky" in notices and "do not fit together" not in notices, notices
    st = state(page)
    assert (st["params"]["k_sep"], st["params"]["view"]) == (2.5, 300)
    assert st["N"] == 80  # the default population
    wait_model_time_passes(page, st["t"])


def test_copied_link_replays_the_same_run_on_another_screen_shape(page, phone_page, server):
    """The link carries the world size, so a phone (another canvas shape) replays the desktop run."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page.goto(f"{server}/?lab=boids&sample=5&k_coh=0.8")
    wait_ready(page)
    # a sample typed for the next restart is not this run's: the link keeps the run's own
    page.evaluate("() => { for (const d of document.querySelectorAll('#lab-boids details')) d.open = true; }")
    box = page.locator("#lab-boids .ctl[data-param=sample] input")
    box.fill("9")
    box.press("Enter")
    page.wait_for_function("() => document.querySelector('#notices').innerText.includes('will be used when you press Restart')")
    page.locator("#lab-boids .bd-copy").click()
    settle(page, LAB)
    page.wait_for_function("() => [...document.querySelectorAll('.copy-note')].some((e) => e.innerText.includes('Link copied'))")
    url = copied_link(page, "boids")
    assert "world=" in url and "sample=5" in url and "k_coh=0.8" in url
    box.fill("5")  # (the replay below restarts this page too)
    box.press("Enter")
    settle(page, LAB)
    phone_page.goto(url)
    wait_ready(phone_page)
    a, b = page.evaluate(REPLAY), phone_page.evaluate(REPLAY)
    assert a["state"]["world"] == b["state"]["world"]
    assert a["frame"] == b["frame"]
    # (the desktop's sky on a phone's stage is drawn stretched, and the caption says so)
    assert ("body lengths (the link's sky, drawn stretched to this stage's other shape, so headings look slanted) "
            "and its edges wrap") in phone_page.inner_text("#lab-boids .bd-world")
    # and a bad world size is reported, the page still runs with its own shape
    phone_page.goto(f"{server}/?lab=boids&world=5x99999")
    wait_ready(phone_page)
    assert "world=5x99999" in phone_page.inner_text("#notices")
    assert phone_page.rec.page_errors == []


@pytest.mark.serial
def test_ten_or_ten_thousand_runs_to_ten_thousand_and_back(lab):
    """Issue 17: the scaling control takes the flock to 10,000 boids at the default density
    (the world grows, the view zooms out) and back; each size is timed in this browser and
    the chart and its table fill; the page keeps drawing and answering while the worker
    times the naive search (seconds of work at 10,000)."""
    page = lab
    panel = page.locator("#lab-boids .bd-scale")
    density = 80 / (160 * 100)
    # with a student's rule running (here the original, run as the student's), the watchdog that
    # stops stalled rules is on: it must wait for the experiment's long requests, not kill them
    rules = page.locator("#lab-boids .rules-panel")
    code = engine_call(page, LAB, "rules_source")["original"]
    page.evaluate("(code) => window.swarmlab.labs.get('boids').rules.editor.setCode(code)", code)
    rules.locator(".rules-run").click()
    rules.locator(".rules-status").locator("text=Your rules run from now on").wait_for(timeout=20_000)
    page.evaluate("""() => { window.__gaps = []; let last = performance.now();
        const f = (t) => { window.__gaps.push(t - last); last = t; window.__raf = requestAnimationFrame(f); };
        window.__raf = requestAnimationFrame(f); }""")
    slider = panel.locator("input[type=range]")
    slider.focus()
    page.keyboard.press("End")  # the largest size: 10,000
    page.wait_for_function("() => document.querySelector('#lab-boids .bd-scale').dataset.points === '1'", timeout=240_000)
    st = state(page)
    assert st["N"] == 10000 and st["params"]["population"] == 10000
    assert 10000 / (st["world"]["width"] * st["world"]["height"]) == pytest.approx(density, rel=1e-3)
    # the stage zooms out: the whole bigger world is drawn in the same canvas
    assert page.evaluate("() => window.swarmlab.labs.get('boids').test.stage.sx") < 1.0
    assert "10,000" in panel.locator(".bd-scale-status").inner_text()
    # the population slider cannot show 10,000 (its range ends at 2,000): it waits, and says why,
    # instead of dropping the flock to 1,999 in the big sky at the first key press
    pop = page.locator("#lab-boids .ctl[data-param=population]")
    held = pop.locator("input")
    assert held.get_attribute("aria-disabled") == "true"
    assert "bd-pop-held" in held.get_attribute("aria-describedby")  # a screen reader hears why
    assert "10,000 boids is more than this slider reaches" in pop.locator(".bd-pop-held").inner_text()
    held.focus()  # still a Tab stop; a key press there changes nothing
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(300)
    assert state(page)["N"] == 10000 and page.evaluate("() => document.activeElement.name") == "population"
    # the main thread kept drawing while the worker timed 10,000 boids both ways
    gaps = page.evaluate("() => { cancelAnimationFrame(window.__raf); return window.__gaps; }")
    print(f"\nframe gaps while 10,000 boids were timed: {len(gaps)} frames, median "
          f"{sorted(gaps)[len(gaps) // 2]:.0f} ms, worst {max(gaps[1:]):.0f} ms")
    # a frame budget: frames kept coming at the display's pace (17 ms here), with no stall a
    # student would feel (worst 33-67 ms on this 2-core VM; it was only checked under 1 s)
    assert len(gaps) > 20 and sorted(gaps)[len(gaps) // 2] < 50 and max(gaps[1:]) < 400, gaps
    # a phone on its side: 10,000 boids' sky cannot take so wide a shape (2,000 lengths a side
    # at most), so it is drawn stretched, and the caption says so (it said "shaped like this stage")
    assert "shaped like this stage" in page.inner_text("#lab-boids .bd-world")
    page.set_viewport_size({"width": 844, "height": 390})
    page.wait_for_function("() => document.querySelector('#lab-boids .bd-world').textContent.includes('drawn stretched')")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function("() => document.querySelector('#lab-boids .bd-world').textContent.includes('shaped like this stage')")
    slider.focus()
    page.keyboard.press("Home")  # and back down to 10
    page.wait_for_function("() => document.querySelector('#lab-boids .bd-scale').dataset.points === '2'", timeout=120_000)
    st = state(page)
    assert st["N"] == 10 and 10 / (st["world"]["width"] * st["world"]["height"]) == pytest.approx(density, rel=1e-3)
    assert held.get_attribute("aria-disabled") == "false" and pop.locator(".bd-pop-held").is_hidden()
    rows = panel.locator(".bd-scale-table tbody tr")
    assert rows.count() == 2
    cells = [[float(c.replace(",", "")) for c in rows.nth(k).locator("th, td").all_text_contents()] for k in range(2)]
    assert sorted(r[0] for r in cells) == [10, 10000] and all(r[1] > 0 and r[2] > 0 for r in cells)
    # what the curves show: per boid, the naive search grows with the flock far faster than the step
    small, big = sorted(cells)
    assert big[2] / small[2] > 10 * (big[1] / small[1])
    assert panel.locator("svg circle").count() == 2 and panel.locator("svg rect").count() == 2
    assert page.evaluate("() => window.swarmlab.engine.restarts") == 0  # the watchdog waited
    assert engine_call(page, LAB, "rules_source")["user"] is True


def test_measure_every_size_fills_the_chart_and_returns_to_the_flock(page, server):
    """"Measure every size" times each size of the session's list in turn, fills the chart and its
    table with one row a size, says that it is done with the trend, and leaves the flock at the
    size it started at (the default sky) with the page running."""
    page.goto(f"{server}/?lab=boids")
    wait_ready(page)
    sizes = engine_call(page, LAB, "layout")["constants"]["scale_sizes"]
    before = state(page)
    panel = page.locator("#lab-boids .bd-scale")
    panel.locator(".bd-scale-all").click()
    page.wait_for_function("(n) => Number(document.querySelector('#lab-boids .bd-scale').dataset.points) >= n",
                           arg=len(sizes), timeout=240_000)
    page.wait_for_function("() => document.querySelector('#lab-boids .bd-scale-status').textContent.startsWith('Done')",
                           timeout=120_000)
    measured = len(set(sizes) | {before["N"]})  # the way back measures the flock's own size too
    status = panel.locator(".bd-scale-status").inner_text()
    assert before["N"] not in sizes  # the default flock: its size is timed on the way back
    # the count the start announced ("Measuring 7 sizes"), then the flock's own size
    assert f"Done: {len(sizes)} sizes measured, then the flock's own {before['N']} boids, where it is now." in status, status
    assert "for everyone checking everyone" in status  # the trend, in words
    assert panel.locator(".bd-scale-table tbody tr").count() == measured
    after = state(page)
    assert after["N"] == before["N"] and after["world"] == before["world"]
    t0 = after["t"]
    wait_async(page, "async (t0) => (await window.swarmlab.engine.call('boids', 'state')).t > t0",
                           arg=t0, timeout=20_000)  # still flying
    assert page.rec.page_errors == []


def test_the_scaling_chart_starts_again_when_the_settings_change(page, server):
    """Times measured under other settings (a preset, a weight, a student's rule) do not compare
    with the new ones: the chart drops them and says so, instead of mixing the two."""
    page.goto(f"{server}/?lab=boids")
    wait_ready(page)
    panel = page.locator("#lab-boids .bd-scale")
    slider = panel.locator("input[type=range]")
    points = "(n) => document.querySelector('#lab-boids .bd-scale').dataset.points === String(n)"
    slider.focus()
    page.keyboard.press("Home")  # 10 boids
    page.wait_for_function(points, arg=1, timeout=60_000)
    page.keyboard.press("ArrowRight")  # 30 boids, the same settings: a second point
    page.wait_for_function(points, arg=2, timeout=60_000)
    page.wait_for_function("() => document.querySelector('#lab-boids .bd-scale-all').getAttribute('aria-disabled') === 'false'")
    assert "starts again" not in panel.locator(".bd-scale-status").inner_text()
    page.locator("#lab-boids .bd-preset[data-preset=cohesion]").click()
    wait_async(page, "async () => (await window.swarmlab.engine.call('boids', 'state')).params.k_sep === 0")
    slider.focus()
    page.keyboard.press("ArrowRight")  # 100 boids under the new settings: the chart starts again
    page.wait_for_function(points, arg=1, timeout=60_000)
    status = panel.locator(".bd-scale-status").inner_text()
    assert status.startswith("The settings changed since the last measurement, so the chart starts again") and "100 boids" in status
    assert panel.locator(".bd-scale-table tbody tr").count() == 1


def test_quick_presses_on_the_scaling_slider_end_at_the_last_size(page, server):
    """Two quick presses on "Ten or ten thousand": the second comes while the first size is
    being timed, and the flock still ends at the size the slider shows (it was dropped)."""
    page.goto(f"{server}/?lab={LAB}")
    wait_ready(page)
    panel = page.locator("#lab-boids .bd-scale")
    # each size's timing made to last 1.5 s (small sizes take a few ms now): the second press
    # then surely comes while the first size is timed, as on a slow machine
    page.evaluate("""() => { const e = window.swarmlab.engine, call = e.tryCall.bind(e);
        e.tryCall = async (lab, op, args, opts) => {
            if (op === 'cost') await new Promise((r) => setTimeout(r, 1500));
            return call(lab, op, args, opts);
        }; }""")
    slider = panel.locator("input[type=range]")
    slider.focus()
    start = int(slider.input_value())
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    # while a size is timed "Measure every size" is unavailable but keeps the keyboard focus
    # (a disabled button dropped it to the page's body); Enter on it then does nothing
    measure = panel.locator(".bd-scale-all")
    measure.focus()
    assert measure.get_attribute("aria-disabled") == "true"
    page.keyboard.press("Enter")
    want = engine_call(page, LAB, "layout")["constants"]["scale_sizes"][start + 2]
    page.wait_for_function("() => document.querySelector('#lab-boids .bd-scale').dataset.points === '2'", timeout=120_000)
    page.wait_for_function("() => document.querySelector('#lab-boids .bd-scale-all').getAttribute('aria-disabled') === 'false'",
                           timeout=60_000)
    assert page.evaluate("() => document.activeElement.classList.contains('bd-scale-all')")
    assert page.locator("#lab-boids .bd-scale").get_attribute("data-points") == "2"  # Enter started no sweep
    # the live region says the last size's result only (the progress line is not live)
    assert panel.locator(".bd-scale-said").text_content().startswith(f"{want:,} boids: ")
    assert panel.locator(".bd-scale-status").get_attribute("role") is None
    assert state(page)["N"] == want
    assert panel.locator(".bd-scale-out").inner_text() == f"{want:,} boids"
    assert not panel.locator(".bd-scale-between").is_visible()  # a size of the slider's own
    # the population slider changes the flock: "Ten or ten thousand" shows its size too (it kept
    # showing the experiment's last size)
    pop = page.locator("#lab-boids .ctl[data-param=population] input")
    pop.focus()
    page.keyboard.press("ArrowLeft")
    # (a size between the slider's steps says so: the thumb stands on the nearest step)
    page.wait_for_function("(t) => document.querySelector('#lab-boids .bd-scale-out').textContent === t",
                           arg=f"{want - 1:,} boids")
    assert panel.locator("input[type=range]").get_attribute("aria-valuetext") == f"{want - 1:,} boids (between this slider's sizes)"
    assert panel.locator(".bd-scale-between").is_visible()
    assert panel.locator(".bd-scale-between").inner_text() == (
        f"The flock has {want - 1:,} boids, between this slider's sizes: the thumb stands at the nearest, {want:,}.")
    assert state(page)["N"] == want - 1
