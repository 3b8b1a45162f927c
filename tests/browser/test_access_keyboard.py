"""Access (issue 15), keyboard part two: focus order, focus management, and each lab done by keys.

- Focus order equals visual order: Tab walks the whole page at 390 and 800 px (a phone and a
  200 % zoomed laptop) and every next focused element lies below the last one, to its right
  on the same row, or in a column to its right.
- Focus management: after a trial starts, the next trial is a few Tabs away; automatic events
  (the five-minute pause, a finished check) leave focus where it was; Escape closes dialogs.
- A keyboard-only walk through each lab's main tasks (Tab, Enter, Space, arrows and the
  shortcuts), with the help dialog (? and Escape) and Describe (D) read from the live region.
"""

from __future__ import annotations

import pytest

from browserlib import LABS, SHOTS, each_lab, engine_call, open_lab, pause, settle, wait_async, wait_scrolled


# What the focused element is and where it is on the page (page coordinates, CSS px).
FOCUSED = """() => {
    const e = document.activeElement;
    if (!e || e === document.body) return null;
    const r = e.getBoundingClientRect();
    const name = e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '')
        + (e.id ? '#' + e.id : '');
    return { name, text: (e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 40),
             x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height,
             fixed: getComputedStyle(e).position === 'fixed', tabindex: e.getAttribute('tabindex'),
             control: e.matches('a[href], button, input, select, textarea, summary, [contenteditable], [role]') };
}"""


# Where each stop of a walk is once the walk is over, all read in one layout: a panel that
# settles while Tab moves on (an editor finishing its line wrapping) must not read as a jump.
REMEASURE = """(n) => { const out = [];
    for (let k = 0; k < n; k++) {
        const e = document.querySelector(`[data-tab-walk="${k}"]`);
        if (!e) { out.push(null); continue; }
        const r = e.getBoundingClientRect();
        out.push({ x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height });
        e.removeAttribute('data-tab-walk');
    }
    return out; }"""


def tab_walk(page, limit=400):
    """Press Tab from the top of the page until focus leaves it or comes round again.  The
    stops come in focus order, with their places measured together after the walk."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    seen, out = set(), []
    for _ in range(limit):
        page.keyboard.press("Tab")
        f = page.evaluate(FOCUSED)
        if f is None:
            break
        key = (f["name"], f["text"], round(f["x"]), round(f["y"]))
        if key in seen:
            break
        seen.add(key)
        page.evaluate("(k) => document.activeElement.setAttribute('data-tab-walk', String(k))", len(out))
        out.append(f)
    for f, r in zip(out, page.evaluate(REMEASURE, len(out))):
        if r is not None:
            f.update(r)
    return out



def slide_by_key(page, lab, selector, key):
    """Tab to a slider, press an arrow key, and wait until the session's parameter has moved
    that way (ArrowRight up, ArrowLeft down)."""
    tab_to(page, selector)
    name = page.evaluate("() => document.activeElement.closest('.ctl').dataset.param")
    old = engine_call(page, lab, "state")["params"][name]
    page.keyboard.press(key)
    moved = ">" if key == "ArrowRight" else "<"
    wait_async(page, f"([lab, n, o]) => window.swarmlab.engine.call(lab, 'state').then((s) => s.params[n] {moved} o)",
                           arg=[lab, name, old])

def order_faults(stops, tol=4):
    """Pairs of successive focus stops that go against reading order.

    b may follow a when it is on the same row further right, on a lower row, or in a column
    to the right (b starts right of a's right edge: two-column layouts read column by column).
    """
    faults = []
    for a, b in zip(stops, stops[1:]):
        if a["w"] == 0 or b["w"] == 0 or a["fixed"] or b["fixed"]:
            continue
        overlap = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
        same_row = overlap > 0.5 * min(a["h"], b["h"])
        if same_row:
            ok = b["x"] >= a["x"] - tol or b["y"] >= a["y"] + a["h"] - tol
        else:
            ok = b["y"] >= a["y"] - tol or b["x"] >= a["x"] + a["w"] - tol
        if not ok:
            faults.append((a, b))
    return faults


@pytest.mark.parametrize("width", [390, 800, 1280])
def test_focus_order_follows_visual_order(browser, server, width):
    """Each lab at this width, the first from its link, the others from their tabs."""
    phone = width < 500
    context = browser.new_context(viewport={"width": width, "height": 844 if phone else 600 if width < 1000 else 800},
                                  has_touch=phone, is_mobile=phone)
    page = context.new_page()
    found = {}
    try:
        for lab in each_lab(page, server, LABS):
            pause(page, lab)
            stops = tab_walk(page)
            assert len(stops) >= 15, (lab, [s["name"] for s in stops])
            # every stop is a control, or a box the page made one on purpose (tabindex): a box
            # that only overflows by a pixel or two (a formula) must not become a silent Tab stop
            silent = [s["name"] for s in stops if not s["control"] and s["tabindex"] is None]
            assert silent == [], (lab, silent)
            faults = order_faults(stops)
            if faults:
                found[lab] = [f"{a['name']} '{a['text']}' ({a['x']:.0f},{a['y']:.0f}) -> {b['name']} '{b['text']}' "
                              f"({b['x']:.0f},{b['y']:.0f})" for a, b in faults]
        assert not found, "\n".join(f"{lab}: {line}" for lab, lines in found.items() for line in lines)
    finally:
        context.close()


def test_reflow_puts_parts_back_when_the_window_widens(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        open_lab(page, server, "swarm")
        where = """() => ({ analysis: document.querySelector('#lab-swarm .swarm-analysis').parentElement.className,
                           trials: document.querySelector('#lab-swarm .swarm-trials').parentElement.className,
                           status: document.querySelector('#lab-swarm .swarm-status').nextElementSibling.className })"""
        wide = page.evaluate(where)
        assert wide["analysis"] == "swarm-main" and wide["trials"] == "swarm-side"
        page.set_viewport_size({"width": 800, "height": 600})
        page.wait_for_function("() => document.querySelector('#lab-swarm .swarm-trials').parentElement.classList.contains('swarm-layout')")
        assert not order_faults(tab_walk(page))
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_function("() => document.querySelector('#lab-swarm .swarm-trials').parentElement.classList.contains('swarm-side')")
        assert page.evaluate(where) == wide
        assert not order_faults(tab_walk(page))
    finally:
        context.close()


def tabs_to(page, selector, limit=60):
    """Number of Tab presses from the current focus until `selector` has focus (None: never)."""
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return n
    return None


# ------------------------------------------------------------------------------- focus management
def test_after_a_trial_starts_the_next_trial_is_a_few_tabs_away(page, server):
    open_lab(page, server, "swarm")
    starts = page.locator("#lab-swarm .swarm-trial-start")
    n_trials = starts.count()
    assert n_trials >= 3
    starts.first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.classList.contains('swarm-trial-now')")
    settle(page, "swarm")
    first_title = page.locator("#lab-swarm .swarm-trial h4").first.inner_text()
    second_title = page.locator("#lab-swarm .swarm-trial h4").nth(1).inner_text()
    assert page.locator("#lab-swarm .swarm-trial-now-title").inner_text() == f"Trial: {first_title}"
    # focus is on the running trial's box, right under the stage (in view), and the way on is 1 Tab
    # ... and the stage above it, all but a quarter at most (stage, controls and box are 835 px
    # here; the old scroll to the stage's top left the box cut off). Judged once the page has
    # stopped scrolling (scrollY unchanged for 0.8 s): a smooth scroll passes through states
    # that satisfy the test and may then end in one that does not.
    wait_scrolled(page)
    box, stage = page.evaluate("""() => ['.swarm-trial-now', '.swarm-stage'].map((c) => {
        const r = document.querySelector('#lab-swarm ' + c).getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, height: r.height, h: innerHeight }; })""")
    assert box["top"] >= 0 and box["bottom"] <= box["h"], (box, stage)
    assert stage["top"] >= -0.25 * stage["height"], (box, stage)
    n = tabs_to(page, "#lab-swarm .swarm-trial-next")
    assert n is not None and n <= 2, n
    assert page.evaluate("() => document.activeElement.textContent") == f"Next trial: {second_title} ↓"
    page.keyboard.press("Enter")
    nxt = page.locator("#lab-swarm .swarm-trial-start").nth(1)
    page.wait_for_function("() => document.activeElement.dataset.trial === document.querySelectorAll('.swarm-trial-start')[1].dataset.trial")
    # the Start button says which question it answers
    qid = nxt.get_attribute("aria-describedby")
    assert page.locator(f"#{qid}").inner_text() == page.locator("#lab-swarm .swarm-question").nth(1).inner_text()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector('#lab-swarm .swarm-trial-now-title').textContent === {second_title!r}.replace(/^/, 'Trial: ')")
    # the last trial has no "next"
    page.locator("#lab-swarm .swarm-trial-start").nth(n_trials - 1).click()
    page.wait_for_function("() => document.activeElement.classList.contains('swarm-trial-now')")
    assert page.locator("#lab-swarm .swarm-trial-next").is_hidden()


# ------------------------------------------------------------------------------- chart tables
TABLES = {"swarm": {"agree": ["P", "local"], "space": ["spacing", "very_close"]},
          "vicsek": {"P": ["P"]}, "boids": {"chart": ["P", "spacing"]}}


def read_table(page, sel):
    return page.evaluate("""(sel) => { const t = document.querySelector(sel);
        return { caption: t.querySelector('caption').textContent,
                 head: [...t.querySelectorAll('thead th')].map((th) => [th.textContent, th.getAttribute('scope')]),
                 rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => [c.tagName, c.textContent, c.getAttribute('scope')])) }; }""", sel)


def test_each_chart_has_a_table_of_its_samples(page, server):
    """Each lab; the first from its link, the others from their tabs."""
    for lab in each_lab(page, server, LABS):
        _chart_tables(page, lab)


def _chart_tables(page, lab):
    pause(page, lab)
    step = {"swarm": 600, "vicsek": 40, "boids": 400}[lab]
    engine_call(page, lab, "step", {"n": step})
    # one set of chart ids and series: the session's display.charts, its spoken chart texts,
    # the page's chart canvases (LAB_ACCESS) and the tables agree, and are what this test expects
    display = engine_call(page, lab, "layout")["display"]
    published = {c["id"]: [s["key"] for s in c["series"]] for c in display["charts"]}
    # a column whose readout is scaled is written as the readout and the chart's axis write it:
    # the very-close share in % (the table wrote it as a fraction beside a 0-100 % axis)
    scaled = {r["key"]: r for r in display["readouts"] if r.get("scale") not in (None, 1)}
    readouts = {r["key"]: r for r in display["readouts"]}
    assert ("very_close" in scaled and scaled["very_close"]["unit"] == "%") == (lab == "swarm")
    assert published == TABLES[lab]
    assert set(engine_call(page, lab, "describe")["charts"]) == set(published)
    page_ids = page.evaluate("async (lab) => Object.keys((await import('/assets/js/ui/keys.js')).LAB_ACCESS[lab].charts)", lab)
    assert set(page_ids) == set(published)
    for chart, keys in TABLES[lab].items():
        summary = page.locator(f"#chart-table-{lab}-{chart} > summary")
        summary.scroll_into_view_if_needed()
        summary.focus()
        page.keyboard.press("Enter")  # a disclosure: opened by keyboard
        sel = f"#chart-table-{lab}-{chart} table"
        page.wait_for_function("(s) => document.querySelector(s + ' tbody tr')", arg=sel)
        h = engine_call(page, lab, "history")
        names = [h["labels"][k] for k in keys]
        # the summary's name says which series; the box is a focusable region named by the caption
        assert summary.evaluate("(s) => s.textContent") == f"Values as a table ({' and '.join(names)})"
        box = page.locator(f"#chart-table-{lab}-{chart} .chart-table-box")
        assert box.get_attribute("tabindex") == "0" and box.get_attribute("role") == "region"
        t = read_table(page, sel)
        units = {k: scaled[k]["unit"] if k in scaled else h["units"][k] for k in keys}
        heads = [h["time_label"]] + [f"{n} ({units[k]})" if units[k] else n for n, k in zip(names, keys)] + ["changes"]
        assert [x for x, _ in t["head"]] == heads and all(s == "col" for _, s in t["head"])
        count = h["count"]
        assert count >= 2
        assert f"all {count} samples" in t["caption"] and names[0] in t["caption"]
        assert len(t["rows"]) == count
        for k in (0, count - 1):  # first and last rows: the engine's samples, as shown
            row = t["rows"][k]
            assert row[0][0] == "TH" and row[0][2] == "row"
            assert float(row[0][1]) == pytest.approx(h["t"][k], abs=0.006)
            for j, key in enumerate(keys):
                v = h["series"][key][k]
                if v is None:
                    assert row[1 + j][1] == "–"
                else:
                    scale = scaled[key]["scale"] if key in scaled else 1
                    text = row[1 + j][1]
                    if key in readouts:  # written as its readout writes it (P 0.823, not 0.82)
                        decimals = readouts[key]["decimals"]
                        assert len(text.partition(".")[2]) == decimals, (key, text)
                        assert float(text) == pytest.approx(v * scale, abs=0.51 * 10 ** -decimals)
                    else:
                        assert float(text) == pytest.approx(v * scale, abs=0.006 * scale)
    # an open table follows the run (while the lab is on screen)
    sel = f"#chart-table-{lab}-{next(iter(TABLES[lab]))} tbody tr"
    before = page.locator(sel).count()
    engine_call(page, lab, "step", {"n": step})
    page.wait_for_function("([s, n]) => document.querySelectorAll(s).length > n", arg=[sel, before], timeout=10_000)


def test_table_thins_long_runs_and_lists_changes(page, server):
    open_lab(page, server, "swarm")
    page.evaluate("() => window.swarmlab.labs.get('swarm').test.setPlaying(false)")
    settle(page, "swarm")
    engine_call(page, "swarm", "step", {"n": 300})
    engine_call(page, "swarm", "set", {"name": "alignment", "value": False})
    engine_call(page, "swarm", "step", {"n": 6000})
    page.locator("#chart-table-swarm-agree > summary").click()
    sel = "#chart-table-swarm-agree table"
    page.wait_for_function("(s) => document.querySelector(s + ' tbody tr')", arg=sel)
    h = engine_call(page, "swarm", "history")
    t = read_table(page, sel)
    count = h["count"]
    assert count > 150
    stride = -(-count // 150)
    assert len(t["rows"]) <= 150 and f"{len(t['rows'])} of {count} samples" in t["caption"]
    assert float(t["rows"][-1][0][1]) == pytest.approx(h["t"][-1], abs=0.006)  # always the latest
    assert float(t["rows"][-1][0][1]) - float(t["rows"][-2][0][1]) == pytest.approx(stride * h["interval"], abs=0.011)
    changes = [r[-1][1] for r in t["rows"] if r[-1][1]]
    marker = h["markers"][-1]["label"]
    assert any(marker in c for c in changes), (marker, changes)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chart-table-swarm-agree").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "access-chart-table-swarm-desktop.png"))
    # Restart begins the session's history again: the open table follows
    page.locator("#lab-swarm .swarm-restart").click()
    settle(page, "swarm")
    page.wait_for_function("(s) => document.querySelectorAll(s + ' tbody tr').length <= 2", arg=sel, timeout=10_000)
    caption = read_table(page, sel)["caption"]
    assert "1 sample, at 0.00 s." in caption or "all 2 samples" in caption, caption


# ------------------------------------------------------------------------------- keyboard only
def tab_to(page, selector, limit=300, back=False):
    """Tab (or Shift+Tab) from the current focus until `selector` has focus; return the presses."""
    for n in range(limit):
        if page.evaluate("(s) => Boolean(document.activeElement && document.activeElement.matches(s))", selector):
            return n
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"{selector} is not reached by {'Shift+Tab' if back else 'Tab'}")


def focused(page, selector):
    return page.evaluate("(s) => document.activeElement.matches(s)", selector)


def live(page):
    return page.locator("#access-live").inner_text()


def wait_live(page, contains, timeout=15_000):
    page.wait_for_function("(s) => document.getElementById('access-live').textContent.includes(s)", arg=contains,
                           timeout=timeout)
    return live(page)


def help_and_describe(page, lab, back_to):
    """? opens the key list (focus inside), Escape closes it and focus returns; D speaks the summary,
    and the words under the stage are the same.  The lab must be paused: while it plays, those
    words follow the run (a newer description replaces them every few seconds)."""
    page.keyboard.press("Shift+Slash")
    dlg = page.locator("#access-help")
    assert dlg.is_visible() and focused(page, "#access-help .access-letter-keys input")  # its top, on a small screen too
    page.keyboard.press("Escape")
    assert dlg.is_hidden() and focused(page, back_to)
    page.evaluate("() => { document.getElementById('access-live').textContent = ''; }")
    page.keyboard.press("d")
    said = wait_live(page, ".")
    settle(page, lab)
    assert said == page.locator(f"#lab-{lab} .access-said").inner_text()
    assert focused(page, back_to)  # describing moves nothing
    return said


def start_from_top(page):
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    page.keyboard.press("Tab")


def test_swarm_by_keyboard_only(page, server):
    open_lab(page, server, "swarm")
    start_from_top(page)
    # play / pause
    tab_to(page, "#lab-swarm .swarm-play")
    was = page.evaluate("() => window.swarmlab.labs.get('swarm').test.playing")
    page.keyboard.press("Enter")
    page.wait_for_function("(w) => window.swarmlab.labs.get('swarm').test.playing === !w", arg=was)
    if page.evaluate("() => window.swarmlab.labs.get('swarm').test.playing"):
        page.keyboard.press("Space")  # Space on the focused button: the same button
        page.wait_for_function("() => !window.swarmlab.labs.get('swarm').test.playing")
    said = help_and_describe(page, "swarm", "#lab-swarm .swarm-play")
    assert said.startswith("150 animals")
    # a threat, by its button and by T
    tab_to(page, "#lab-swarm .swarm-threat")
    page.keyboard.press("Enter")
    wait_live(page, "Threat sent.")
    assert engine_call(page, "swarm", "state")["threat_active"]
    # the next animal: N, and the stage's own arrow keys
    before = engine_call(page, "swarm", "state")["selected_index"]
    page.keyboard.press("n")
    wait_async(page, "(b) => window.swarmlab.engine.call('swarm', 'state').then((s) => s.selected_index === b + 1)", arg=before)
    tab_to(page, "#lab-swarm .swarm-canvas", back=True)
    page.keyboard.press("ArrowRight")
    wait_async(page, "(b) => window.swarmlab.engine.call('swarm', 'state').then((s) => s.selected_index === b + 2)", arg=before)
    # a rule switched off: Tab to its checkbox (its group is open), Space
    tab_to(page, "#lab-swarm .ctl[data-param=alignment] input")
    page.keyboard.press("Space")
    wait_async(page, "() => window.swarmlab.engine.call('swarm', 'state').then((s) => s.params.alignment === false)")
    # a slider by arrow keys
    slide_by_key(page, "swarm", "#lab-swarm .swarm-controls input[type=range]", "ArrowRight")
    # a trial: Tab to its Start, Enter; focus lands by the stage; the next trial is 1 Tab + Enter away
    tab_to(page, "#lab-swarm .swarm-trial-start")
    title = page.locator("#lab-swarm .swarm-trial h4").first.inner_text()
    page.keyboard.press("Enter")
    wait_live(page, f"Trial started: {title}.")
    assert focused(page, "#lab-swarm .swarm-trial-now")
    assert tab_to(page, "#lab-swarm .swarm-trial-next") <= 2
    page.keyboard.press("Enter")
    assert focused(page, "#lab-swarm .swarm-trial-start")
    # a chart's table: Tab to its disclosure, Enter, and into the table's box
    tab_to(page, "#lab-swarm #chart-table-swarm-agree > summary", back=True)
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#chart-table-swarm-agree tbody tr')")
    page.keyboard.press("Tab")
    assert focused(page, "#chart-table-swarm-agree .chart-table-box")
    # restart with R (focus on a button: R is not a typing key)
    page.keyboard.press("r")
    wait_live(page, "Restarted.")
    assert engine_call(page, "swarm", "state")["step"] < 120


def test_vicsek_by_keyboard_only(page, server):
    open_lab(page, server, "vicsek")
    ctl = "window.swarmlab.labs.get('vicsek')"
    start_from_top(page)
    tab_to(page, "#lab-vicsek .vk-play")
    if page.evaluate(f"() => {ctl}.playing"):
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => !{ctl}.playing")
    help_and_describe(page, "vicsek", "#lab-vicsek .vk-play")
    # one update with Step
    tab_to(page, "#lab-vicsek .vk-step")
    t0 = engine_call(page, "vicsek", "state")["t"]
    page.keyboard.press("Enter")
    wait_async(page, f"(t) => window.swarmlab.engine.call('vicsek', 'state').then((s) => s.t === t + 1)", arg=t0)
    # follow an arrow: the buttons by the stage, N, and the stage's own arrow keys; Escape lets go
    tab_to(page, "#lab-vicsek .access-follow-stop", back=True)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => {ctl}.selected === -1")
    page.keyboard.press("Shift+Tab")
    assert focused(page, "#lab-vicsek .access-follow-next")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => {ctl}.selected === 0")
    page.keyboard.press("n")
    page.wait_for_function(f"() => {ctl}.selected === 1")
    tab_to(page, "#lab-vicsek .vk-canvas", back=True)
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => {ctl}.selected === 2")
    page.keyboard.press("Escape")
    page.wait_for_function(f"() => {ctl}.selected === -1")
    # the knob: the alignment slider by arrow keys
    slide_by_key(page, "vicsek", "#lab-vicsek .vk-knob input[type=range]", "ArrowLeft")
    # the three steps: a tab list, moved along with the arrow keys
    tab_to(page, "#lab-vicsek .vk-steptab[aria-selected=true]")
    page.keyboard.press("ArrowRight")
    assert page.locator("#lab-vicsek .vk-steptab").nth(1).get_attribute("aria-selected") == "true"
    assert focused(page, "#lab-vicsek .vk-steptab[aria-selected=true]")
    # play with Space (focus on the tab list: Space is the tab's own key, so press it on the body)
    tab_to(page, "#lab-vicsek .vk-play", back=True)
    page.keyboard.press("Space")
    page.wait_for_function(f"() => {ctl}.playing")
    page.keyboard.press("r")
    wait_live(page, "Restarted from seed 3")
    # the eight-seed check runs by itself; its table is reached by Tab
    page.wait_for_function("() => document.querySelector('.vk-check-announce').textContent.includes('done')", timeout=120_000)
    assert focused(page, "#lab-vicsek .vk-play")  # the finished check took no focus


def test_boids_by_keyboard_only(page, server):
    open_lab(page, server, "boids")
    ctl = "window.swarmlab.labs.get('boids')"
    start_from_top(page)
    tab_to(page, "#lab-boids .bd-canvas")
    page.evaluate(f"() => {ctl}.pause()")  # (Space on the stage is the treat here)
    help_and_describe(page, "boids", "#lab-boids .bd-canvas")
    page.evaluate(f"() => {ctl}.play()")
    # the treat: arrow keys move the cursor, Enter held sets the treat there, Escape lets go
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    page.keyboard.down("Enter")
    page.wait_for_function("() => document.getElementById('lab-boids').dataset.treat === 'on'")
    assert engine_call(page, "boids", "state")["treat"]["on"]
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.getElementById('lab-boids').dataset.treat !== 'on'")
    page.keyboard.up("Enter")
    # a preset ("Try this"), then a weight by its slider
    tab_to(page, "#lab-boids .bd-preset")
    name = page.evaluate("() => document.activeElement.firstChild.textContent.trim()")
    page.keyboard.press("Enter")
    wait_live(page, f"Preset applied: {name}.")
    slide_by_key(page, "boids", "#lab-boids .bd-weights input[type=range]", "ArrowRight")
    # pause with its button, play with Space on the body... and Restart with R
    tab_to(page, "#lab-boids .bd-play")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => !{ctl}.playing")
    page.keyboard.press("r")
    wait_live(page, "Restarted.")
    # the chart's table
    tab_to(page, "#chart-table-boids-chart > summary")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#chart-table-boids-chart tbody tr')")
