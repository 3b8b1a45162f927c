"""What every lab tells a student: its title and lead, and no sentence copied from the sources."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from browserlib import LABS, each_lab, wait_async, wait_ready, wait_scrolled

# Sentences of the documents the labs were specified from; the page must say these in its own words.
VERBATIM = [
    "Three local rules, no leader",
    "Cohesion — don't get left behind",
    "Cohesion — don’t get left behind",
    "No rule mentions a destination, a leader or the flock as a whole",
    "A shared heading does not mean a tight group",
    "wrap(…) takes the shorter way round",
]

TITLES = {
    "swarm": "Moving together, with no leader",
    "vicsek": "How can a few local turns become one shared direction?",
    "boids": "Three rules: who steers the flock?",
}


def test_each_lab_has_one_title_a_lead_and_no_copied_sentence(page, server):
    """Each lab, the first from its link, the others from their tabs (one title shown at a time)."""
    for lab in each_lab(page, server, LABS):
        section = page.locator(f"#lab-{lab}")
        h1 = page.locator("h1:visible")
        assert h1.count() == 1 and h1.inner_text() == TITLES[lab], lab
        lead = section.locator(".lab-lead").inner_text()
        assert len(lead) > 120, lab
        text = section.inner_text().replace("\u00a0", " ")
        low = text.lower()
        for phrase in VERBATIM:
            assert phrase.lower() not in low, (lab, phrase)


@pytest.mark.parametrize("lab", ["swarm", "boids"])
def test_embedded_lab_keeps_its_lead_folded_to_two_lines(page, server, lab):
    """In a course page's iframe (embed=1) the title and the lead SPEC.md asks for stay: the lead
    folded to its first two lines with "Read more" (the stage stays on the first screen); the
    whole text is in the page for screen readers. Outside embed, on a desktop, it is unfolded."""
    def geometry():
        return page.evaluate("""(lab) => { const l = document.querySelector(`#lab-${lab} .lab-lead`);
            const cs = getComputedStyle(l);
            return { h: l.getBoundingClientRect().height, full: l.scrollHeight,
                     line: parseFloat(cs.lineHeight), shown: cs.display !== 'none' && l.getClientRects().length > 0 }; }""", lab)

    page.goto(f"{server}/?lab={lab}&embed=1")
    wait_ready(page)
    section = page.locator(f"#lab-{lab}")
    assert page.locator("h1:visible").inner_text() == TITLES[lab]
    assert len(section.locator(".lab-lead").inner_text()) > 120  # all of it, for readers
    g = geometry()
    assert g["shown"] and g["h"] <= 2 * g["line"] + 2 < g["full"], g
    more = section.locator(".lab-lead-more")
    assert more.is_visible() and more.get_attribute("aria-expanded") == "false"
    more.click()
    assert more.get_attribute("aria-expanded") == "true" and more.inner_text() == "Show less"
    g = geometry()
    assert g["h"] >= g["full"] - 1 and g["h"] > 2 * g["line"] + 2, g
    page.goto(f"{server}/?lab={lab}")
    wait_ready(page)
    g = geometry()
    assert g["shown"] and g["h"] >= g["full"] - 1, g
    assert not section.locator(".lab-lead-more").is_visible()


AUTO_HEIGHT_HOST = """<!doctype html><title>Course</title><body style="margin:0">
<iframe id="lab" src="{src}" style="width:100%;height:300px;border:0"></iframe>
<script>addEventListener("message", (e) => {{ if (e.data && e.data.type === "swarmlab:height")
  document.getElementById("lab").style.height = e.data.height + "px"; }});</script></body>"""


def _in_auto_height_frame(browser, server, tmp_path, serve_root, lab):
    """A course page (another origin) whose frame takes the lab's height from its messages, on a
    1280 x 940 screen (the browser's own bars leave the page 800 px; embed.js allows 140): the
    context, the course page and the lab's frame, once the lab is ready."""
    (tmp_path / "course.html").write_text(AUTO_HEIGHT_HOST.format(src=f"{server}/?lab={lab}&embed=1"), encoding="utf-8")
    host = serve_root(tmp_path)
    context = browser.new_context(viewport={"width": 1280, "height": 800}, screen={"width": 1280, "height": 940})
    try:
        page = context.new_page()
        page.goto(f"{host.url}/course.html")
        page.wait_for_function("() => document.querySelector('#lab')")
        frame = next(f for f in page.frames if f.url.startswith(server))
        wait_ready(frame)
    except BaseException:
        context.close()
        raise
    return context, page, frame


@pytest.mark.parametrize("lab, stage", [("vicsek", ".vk-canvas"), ("swarm", ".swarm-canvas"), ("boids", ".bd-canvas")])
def test_a_stage_in_an_auto_height_frame_fits_the_window(browser, server, tmp_path, serve_root, lab, stage):
    """A course page that sizes its frame to the content (the README's script): the frame's own
    height is then the content's, so a stage planned for the frame's height grew with every
    message (876 px in an 800 px window).  It is planned for the screen instead (embed.js)."""
    context, page, frame = _in_auto_height_frame(browser, server, tmp_path, serve_root, lab)
    try:
        page.wait_for_function("() => document.getElementById('lab').getBoundingClientRect().height > 1200")
        page.wait_for_timeout(500)  # a few more height messages
        box = frame.locator(f"#lab-{lab} {stage}").bounding_box()
        assert 350 <= box["height"] <= 800 - 100, box  # nor stuck at the frame's first, small height
    finally:
        context.close()


def test_in_page_links_and_a_started_trial_scroll_the_course_page(browser, server, tmp_path, serve_root):
    """In a frame as tall as its content the frame has nothing to scroll: "Trials ↓" only
    changed the frame's address, and a trial started from its card left the stage 1,500 px
    above the course page's view (an outside review).  Both now scroll the course page."""
    context, page, frame = _in_auto_height_frame(browser, server, tmp_path, serve_root, "swarm")
    try:
        page.wait_for_function("() => document.getElementById('lab').getBoundingClientRect().height > 1500")

        def top_in_course_view(selector):  # where the element's top is in the course page's window
            return page.evaluate("document.getElementById('lab').getBoundingClientRect().top") + \
                frame.evaluate(f"document.querySelector({selector!r}).getBoundingClientRect().top")

        assert page.evaluate("scrollY") == 0
        frame.locator(".swarm-trials-link").click()
        page.wait_for_function("() => scrollY > 300")
        wait_scrolled(page)  # (a smooth scroll)
        assert -2 <= top_in_course_view("#swarm-trials-title") < 200
        assert frame.evaluate("document.activeElement.id") == "swarm-trials-title"  # the keyboard follows
        frame.locator(".swarm-trial-start").first.click()
        page.wait_for_function("(y) => scrollY < y - 300", arg=page.evaluate("scrollY"))
        wait_scrolled(page)
        assert -60 <= top_in_course_view(".swarm-canvas") < 300
    finally:
        context.close()


# What SPEC.md's "What the page must tell" asks of each lab, as words that must be on the page
# (lower case; each a phrase of the page's own wording).
LEADS = {
    "swarm": ("without anyone in charge", "one mind", "build a flock or a school", "decisions"),
    "vicsek": ("nobody is in charge", "arrows", "common heading"),
    "boids": ("murmuration", "no leader", "nobody", "three"),
}
LAB1_MUST = (
    # plots never steer; Reynolds; not proof
    "the plots never steer anyone", "no animal is ever told the group's centre", "reynolds' boids (1987)",
    "not proof",
    # Ballerini: six or seven, not universal, finite range in both modes
    "ballerini", "six or seven", "not a rule for all birds or fish", "senses only within the range r",
    # Tunstrøm: states; the rotation readout classifies nothing
    "tunstrøm", "golden shiners", "classify a biological state",
    # outside signals and the contrast experiment
    "an outside signal is not coordination", "a single 60° turn with no threat", "alignment switched off",
    "neither outcome needs a leader",
    # active matter, no common attracting centre
    "active matter", "nothing here conserves energy or momentum", "no centre that everything is drawn to",
    # obstacle mechanics, and the formula's o and h terms
    "0.7 s ahead", "within 8 lengths", "0.15 lengths outside", "reflected", "choosing an obstacle at once moves",
    "is obstacle avoidance", "is the threat's push",
    # update details
    "smaller id", "keeps its heading", "exactly the same point", "same old state",
    # history and limits
    "2,400 samples", "sampling halves", "five model minutes", "continue carries on", "hidden page freezes",
    "reduced motion", "playback speed changes only",
    # P caveats, 0-1
    "mill", "opposite directions cancel", "finite", "nor that the order is stable", "information spreads",
    "1 means every heading matches",
    # not a forecast; omissions in full
    "not a forecast", "altitude or depth", "no learning", "no leaders", "differences between individuals",
    "occlusion", "reaction delay", "metabolism", "flight or swimming mechanics", "wakes", "fitted to data",
    "change the sample number and repeat",
    # sources
    "boids: background and update", "ballerini", "tunstrøm",
    # appearance, visibly
    "changes only the drawing",
)
LAB2_MUST = (
    "collective motion", "cond-mat/0611743", "horde of the flies", "why averages?", "straight step",
    "surroundings", "fitted", "p = | (1/64) σ",
)
LAB3_MUST = (
    "emergence", "herring", "wings or fins", "drone swarms", "warehouse", "search-and-rescue",
    "without a central computer", "single point of failure", "radio traffic does not explode",
    "remove half", "key takeaways", "1987",
)


def test_each_lab_tells_what_spec_asks(page, server):
    """Every item of SPEC.md's "What the page must tell" for each lab is on the page (Lab 3's
    text about the flock's dynamics is checked by test_boids).  The first lab from its link,
    the others from their tabs."""
    for lab in each_lab(page, server, LABS):
        _tells_what_spec_asks(page, lab)


def _tells_what_spec_asks(page, lab):
    section = page.locator(f"#lab-{lab}")
    lead = section.locator(".lab-lead").inner_text().lower()
    for must in LEADS[lab]:
        assert must in lead, (lab, must)
    text = section.inner_text()
    if lab == "vicsek":  # the three steps are tabs: read each one as a student does, by opening it
        for tab in section.locator(".vk-steptab").all():
            tab.click()
            text += "\n" + section.locator(".vk-steppanel:not([hidden])").inner_text()
    text = text.replace("\u00a0", " ").lower()
    for must in {"swarm": LAB1_MUST, "vicsek": LAB2_MUST, "boids": LAB3_MUST}[lab]:
        assert must in text, (lab, must)
    if lab == "swarm":
        # the formula's obstacle and threat terms are defined where the formulas are
        formulas = page.evaluate("""() => { let e = document.getElementById('swarm-formulas').nextElementSibling, t = '';
            while (e && e.tagName !== 'H2') { t += e.innerText + ' '; e = e.nextElementSibling; } return t; }""").lower()
        assert "is obstacle avoidance" in formulas and "is the threat's push" in formulas
        assert section.locator(".ctl[data-param=appearance] .help").is_visible()
        assert section.locator(".swarm-status").is_visible()  # the status line under the stage
        # the model clock sits on its own opaque backdrop, not straight on the agents
        bg = page.evaluate("() => getComputedStyle(document.querySelector('.swarm-clock')).backgroundColor")
        alpha = float(bg.split(",")[3].strip(" )")) if bg.startswith("rgba") else 1.0
        assert alpha >= 0.85 and bg != "rgba(0, 0, 0, 0)", bg
    if lab == "boids":
        assert section.locator(".bd-takeaways li").count() == 4


def test_lab2_follows_an_arrow_from_the_start(page, server):
    page.goto(f"{server}/?lab=vicsek")
    wait_ready(page)
    # the session's arrow nearest the middle, so its circle is first seen whole (arrow 1 started
    # in a corner, its circle cut into four pieces by the wrapping edges: an outside review)
    k = page.evaluate("() => window.swarmlab.engine.layout('vicsek').then((l) => l.constants.follow)")
    assert k > 0
    page.wait_for_function(f"document.querySelector('#lab-vicsek').dataset.selected === '{k}'")
    assert f"Following arrow {k + 1} of 64" in page.inner_text("#lab-vicsek .vk-follow")
    # the circle and the wedge the legend describes are drawn from the start
    assert int(page.get_attribute("#lab-vicsek", "data-neighbours")) >= 0
    assert page.evaluate("() => window.swarmlab.labs.get('vicsek').stage.selected") == k


def test_lab1_caption_quotes_the_trails_the_stage_draws(page, server):
    """The stage caption's "last 2.4 s of every third animal" is read from trails.js, the module
    that keeps the trails (its TrailBuffer's defaults; the renderer passes none of its own)."""
    page.goto(f"{server}/?lab=swarm")
    wait_ready(page)
    got = page.evaluate("""async () => {
        const { TRAILS } = await import('./assets/js/labs/swarm/trails.js');
        return { TRAILS, caption: document.querySelector('#lab-swarm .stage-caption').textContent };
    }""")
    words = {2: "every second", 3: "every third", 4: "every fourth"}[got["TRAILS"]["every"]]
    assert f"the last {got['TRAILS']['seconds']} s of {words} animal's path" in got["caption"], got


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768), (1440, 900)])
def test_lab3_stage_and_its_play_row_fit_a_laptop_window(page, server, size):
    """A student review: at 1280 x 800 the stage ended at y = 783 and its Play row at 792 showed
    8 px, below the window.  Now stage and Play row fit under the title and lead on the usual
    laptop windows, and the stage keeps the default sky's shape (narrowed, not squashed)."""
    w, h = size
    page.set_viewport_size({"width": w, "height": h})
    page.goto(f"{server}/?lab=boids")
    wait_ready(page)
    got = page.evaluate("""async () => {
        const r = (s) => document.querySelector('#lab-boids ' + s).getBoundingClientRect();
        const st = await window.swarmlab.engine.call('boids', 'state', {});
        const c = (await window.swarmlab.engine.layout('boids')).constants.world_default;
        return { stage: r('.bd-canvas').toJSON(), play: r('.bd-play').toJSON(), world: st.world, normal: c,
                 scrollY: scrollY }; }""")
    assert got["scrollY"] == 0 and got["play"]["bottom"] <= h and got["stage"]["bottom"] <= got["play"]["top"], got
    aspect = got["world"]["width"] / got["world"]["height"]
    assert abs(aspect / (got["normal"][0] / got["normal"][1]) - 1) < 0.005, got
    assert got["stage"]["width"] >= 480


def test_lab1_charts_keep_their_width_in_a_short_window(page, server):
    """A short desktop window (a 1366 x 768 laptop's browser, 625 px inside) narrows Lab 1's main
    column with its stage, to 480 px: the charts were then 144 px wide beside the sensing panel,
    their legends cut ("whole-group ag…").  The panel now goes under them there."""
    page.set_viewport_size({"width": 1366, "height": 625})
    page.goto(f"{server}/?lab=swarm")
    wait_ready(page)
    box = page.evaluate("""() => Object.fromEntries(['.swarm-main', '.swarm-charts', '.swarm-sense'].map((c) => {
        const r = document.querySelector('#lab-swarm ' + c).getBoundingClientRect();
        return [c, { left: r.left, top: r.top, width: r.width, bottom: r.bottom }]; }))""")
    main, charts, sense = box[".swarm-main"], box[".swarm-charts"], box[".swarm-sense"]
    assert main["width"] < 600, box  # (the case: a narrow main column beside a wide window)
    assert charts["width"] >= main["width"] - 1 and sense["top"] >= charts["bottom"], box


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768), (390, 844)])
def test_lab1_stage_and_live_charts_are_seen_together(browser, server, size):
    """The trials say "watch both the pattern and the spacing trace": without scrolling, the
    stage and both live charts are in view together (on a phone, the strip right under the stage)."""
    w, h = size
    context = browser.new_context(viewport={"width": w, "height": h}, has_touch=w < 600)
    page = context.new_page()
    page.goto(f"{server}/?lab=swarm")
    wait_ready(page)
    if w < 600:  # a phone: scroll the stage to the top, as a student does
        page.locator(".swarm-stage").scroll_into_view_if_needed()
        page.evaluate("() => window.scrollTo(0, document.querySelector('.swarm-stage').getBoundingClientRect().top + scrollY)")
    boxes = page.evaluate("""() => Object.fromEntries(['.swarm-stage', '.swarm-live', '.swarm-live-agree', '.swarm-live-space', '.swarm-status', '.swarm-play'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect(); return [s, [r.top, r.bottom, r.height]]; }))""")
    for name, (top, bottom, height) in boxes.items():
        assert height > (30 if name in (".swarm-play", ".swarm-status") else 60), (name, height)
        if name == ".swarm-stage" and w < 600:
            assert top >= -1 and top < h, (name, top)
        else:
            assert top >= 0 and bottom <= h + 1, (name, top, bottom, h)
    if w < 600:  # directly under the stage; then Play, and the status line (SPEC: under the stage)
        assert abs(boxes[".swarm-live-agree"][0] - boxes[".swarm-stage"][1]) < 40
        assert 0 <= boxes[".swarm-play"][0] - boxes[".swarm-live"][1] < 40, boxes  # the strip's own box
        assert boxes[".swarm-play"][1] <= boxes[".swarm-status"][0] and boxes[".swarm-status"][1] <= h, boxes
        # the status ends the Play block, before the access bar (Describe, Keys...)
        assert page.evaluate("""() => { const s = document.querySelector('#lab-swarm .swarm-status');
            return s.parentElement.classList.contains('swarm-transport') && s.nextElementSibling === null
                   && s.getBoundingClientRect().bottom <= document.querySelector('#lab-swarm .access-bar').getBoundingClientRect().top; }""")
    # the live charts show the same samples as the full charts
    page.wait_for_function("() => window.swarmlab.labs.get('swarm').test.history.t.length > 0")
    context.close()


def test_a_page_key_given_twice_says_which_value_is_used(page, server):
    """lab= and trial= (and the other page keys) given twice used their first value without a
    word, while a lab's settings given twice were named in a notice."""
    page.goto(f"{server}/?lab=swarm&lab=boids&trial=passage&trial=rules-matter")
    wait_ready(page)
    text = page.inner_text("#notices")
    assert "lab was given 2 times; the first value (swarm) is used" in text
    assert "trial was given 2 times; the first value (passage) is used" in text
    assert page.evaluate("() => window.swarmlab.active") == "swarm"
    wait_async(page, "async () => (await window.swarmlab.engine.call('swarm', 'state')).trial === 'passage'")


def test_a_hostile_link_gives_one_short_summary(page, server):
    """200 unknown keys, a 40,000-character key and repeated keys: one notice with a details
    toggle, nothing wider than the screen, and the first value of a repeated key is used."""
    bad = "&".join(f"junk{k}=1" for k in range(200))
    long_key = "x" * 40_000
    page.goto(f"{server}/?lab=vicsek&a=0.3&a=0.9&{bad}&{long_key}=1&constructor=1&toString=x")
    wait_ready(page)
    notices = page.locator("#notices .notice")
    assert notices.count() == 1
    summary = page.inner_text("#notices .notice summary")
    assert "notes" in summary and "details" in summary
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280 + 1
    assert page.evaluate("() => document.querySelector('#notices').getBoundingClientRect().height") < 120
    page.click("#notices .notice summary")
    text = page.inner_text("#notices .notice")
    assert "a was given 2 times; the first value (0.3) is used" in text
    # keys that are names of every JS object's own properties are just unknown keys
    assert "function Object" not in text and "constructor was given" not in text
    assert page.evaluate("() => window.swarmlab.engine.call('vicsek', 'state')")["params"]["a"] == 0.3
    page.click("#notices .notice .notice-close")
    assert page.locator("#notices .notice").count() == 0
    page.goto(f"{server}/?lab=vicsek&constructor=1")
    wait_ready(page)
    assert "unknown setting 'constructor'" in page.inner_text("#notices")
    # __proto__ too: on a plain object it set the prototype and vanished without a word
    page.goto(f"{server}/?lab=vicsek&__proto__=1")
    wait_ready(page)
    assert "unknown setting '__proto__'" in page.inner_text("#notices")


def test_a_code_link_to_the_swarm_lab_says_it_is_ignored(page, server):
    """The Swarm Lab has no rules editor: a #code= link to it dropped the code without a word."""
    page.goto(f"{server}/?lab=swarm#code=S0lNTAEA")
    wait_ready(page)
    assert "no rules editor, so they are ignored" in page.inner_text("#notices")


def test_lab3_tells_its_story(page, server):
    page.goto(f"{server}/?lab=boids")
    wait_ready(page)
    text = page.inner_text("#lab-boids")
    for must in ("emergence", "herring", "drone swarms", "single point of failure", "Remove half",
                 "Key takeaways", "1987"):
        assert must.lower() in text.lower(), must
    assert page.locator("#lab-boids .bd-takeaways li").count() == 4


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)])
def test_lab3_presets_sit_by_the_stage(browser, server, size):
    w, h = size
    context = browser.new_context(viewport={"width": w, "height": h})
    page = context.new_page()
    page.goto(f"{server}/?lab=boids")
    wait_ready(page)
    page.click("#lab-boids .bd-preset[data-preset=cohesion]")
    stage = page.evaluate("() => { const r = document.querySelector('#lab-boids .bd-stage').getBoundingClientRect(); return [r.top, r.bottom]; }")
    buttons = page.evaluate("() => [...document.querySelectorAll('#lab-boids .bd-preset')].map(b => { const r = b.getBoundingClientRect(); return [r.top, r.bottom]; })")
    visible_stage = min(stage[1], h) - max(stage[0], 0)
    assert visible_stage > 0.8 * (stage[1] - stage[0]), (stage, h)
    for top, bottom in buttons:
        assert top >= 0 and bottom <= h, (top, bottom, h)
    context.close()


# ------------------------------------------------------------------ the page follows the engine
def _tree_with_edits(dest, edits):
    """A copy of the served tree made of symlinks, except the files in ``edits``
    ({relative path: [(old, new), ...]}), which are written with each ``old`` replaced."""
    from browserlib import ROOT

    for entry in ROOT.iterdir():
        if entry.name in (".git", ".venv", "node_modules", "tests", "app"):
            continue
        (dest / entry.name).symlink_to(entry)
    for src in (ROOT / "app").rglob("*"):
        if "__pycache__" in src.parts or src.is_dir():
            continue
        rel = src.relative_to(ROOT)
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if str(rel) in edits:
            text = src.read_text(encoding="utf-8")
            for old, new in edits[str(rel)]:
                assert text.count(old) == 1, (rel, old)
                text = text.replace(old, new)
            out.write_text(text, encoding="utf-8")
        else:
            out.symlink_to(src)


@contextmanager
def _edited_app_page(browser, serve_root, tmp_path, edits, lab, query=""):
    """A 1280x800 page showing ``lab`` (``?lab=<lab><query>``), ready, of the app served with
    ``edits`` made to its Python only (``_tree_with_edits``); yields (page, the server's url)."""
    _tree_with_edits(tmp_path, edits)
    url = serve_root(tmp_path).url
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{url}/?lab={lab}{query}")
        wait_ready(page)
        yield page, url
    finally:
        context.close()


def _readout_labels(section) -> dict:
    """{key: label} of a lab's readouts (``.readout[data-key]``), as the page shows them."""
    return section.evaluate("(s) => Object.fromEntries([...s.querySelectorAll('.readout[data-key]')]"
                            ".map((r) => [r.dataset.key, r.querySelector('.k').textContent]))")


def test_a_constant_or_label_changed_in_python_is_what_the_page_shows(browser, serve_root, tmp_path):
    """Each constant and label the page shows comes from the engine: serve the app with a few
    of them changed in Python only, and the pages of Labs 1 and 2 show the new ones."""
    edits = {
        "app/swarmlab/swarm.py": [
            ("VERY_CLOSE = 1.2  #", "VERY_CLOSE = 1.5  #"),                       # a constant
            ("PERSONAL = 3.2  #", "PERSONAL = 3.5  #"),                           # quoted in the prose
            ("RESPONSE_TIME = 0.42  #", "RESPONSE_TIME = 0.45  #"),
            ('"Range R", min=1.0', '"Sensing range R", min=1.0'),                  # a control's label
            ('"a circle", "a narrow passage"', '"a circle", "a gap between two rocks"'),  # a choice label
            ('ParamSpec("N", 150, "Population"', 'ParamSpec("N", 100, "Population"'),  # a default, quoted
            ("BOX = Box(160.0, 100.0)", "BOX = Box(160.0, 120.0)"),                # the world's shape
            ('"rotation order (milling)"', '"milling (rotation)"'),                # a measure's name
        ],
        "app/swarmlab/sessions/swarm.py": [
            ('Group("rules", "Social rules")', 'Group("rules", "The three social rules")'),  # a group title
            ('URGE_LABELS = {"separation": "space"', 'URGE_LABELS = {"separation": "personal space"'),
        ],
        "app/swarmlab/vicsek.py": [('ParamSpec("radius", 0.12,', 'ParamSpec("radius", 0.15,'),
                                   ('ParamSpec("eta", 0.7,', 'ParamSpec("eta", 0.9,')],
        "app/swarmlab/sessions/vicsek.py": [('Readout("t", "update", decimals=0)', 'Readout("t", "Updates so far", decimals=0)')],
    }
    with _edited_app_page(browser, serve_root, tmp_path, edits, "swarm") as (page, url):
        lab = page.locator("#lab-swarm")
        labels = _readout_labels(lab)
        assert labels["very_close"] == "share under 1.5 lengths" and labels["milling"] == "milling (rotation)"
        assert lab.locator(".ctl[data-param=R] label").inner_text() == "Sensing range R"
        assert "a gap between two rocks" in lab.locator(".ctl[data-param=obstacle] select").inner_text()
        assert lab.locator(".swarm-group-rules summary").inner_text() == "The three social rules"
        prose = lab.locator(".swarm-explain").inner_text()
        assert "closer than 3.5 lengths" in prose and "3.2 lengths" not in prose
        assert "time scale of 0.45 s" in prose and "closer than 1.5 lengths" in prose
        assert "about 0.89/√N, roughly 0.09 for 100 animals" in prose  # sqrt(pi) / (2 sqrt(100))
        assert "3.5" in lab.locator(".swarm-explain .formula[aria-label=Separation]").inner_text()
        gap = page.evaluate("async () => (await window.swarmlab.engine.call('swarm', 'layout')).constants.passage_gap")
        assert gap > 0 and f"leave a {gap:g}-length gap" in prose  # the published constant, quoted
        # the stage has the world's shape, 160 by 120: nothing cut off, no empty band
        for part in (".swarm-stage", ".swarm-canvas"):
            box = lab.locator(part).bounding_box()
            assert abs(box["width"] / box["height"] - 160 / 120) < 0.01, (part, box)
        series = page.evaluate("() => window.swarmlab.labs.get('swarm').test.charts[1].opts.series.map((s) => s.label)")
        assert "share under 1.5 lengths" in series
        assert lab.locator(".sense-arrows .arrow-name").all_inner_texts() == [
            "personal space", "alignment", "cohesion", "obstacle", "threat"]  # the urges' names
        # a live change writes its chart marker with the new words
        lab.locator(".ctl[data-param=obstacle] select").select_option("passage")
        page.wait_for_function("() => [...document.querySelectorAll('#lab-swarm .swarm-marker')].some((b) => b.textContent.includes('a gap between two rocks'))")
        said = page.evaluate("async () => (await window.swarmlab.engine.call('swarm', 'describe')).text")
        assert "a gap between two rocks in the way" in said  # the description names it as the control does
        page.goto(f"{url}/?lab=vicsek")
        wait_ready(page)
        vk = page.locator("#lab-vicsek")
        assert "R = 0.15" in vk.locator(".vk-legend").inner_text()
        assert _readout_labels(vk)["t"] == "Updates so far"
        assert page.evaluate("() => window.swarmlab.labs.get('vicsek').stage.radius") == 0.15
        assert "a distance R (0.15 of the box side) of arrow" in vk.locator(".vk-rule").inner_text()  # the rule's words too
        assert "noise amplitude η = 0.9;" in vk.locator(".vk-rule").inner_text()
        assert "at most 0.45 rad" in vk.locator(".vk-rule").inner_text()


def test_lab2_numbers_and_words_changed_in_python_are_what_the_page_shows(browser, serve_root, tmp_path):
    """Lab 2 quotes the engine's counts, not copies: with fewer arrows, fewer and shorter check
    runs, another live seed and a shorter P plot set in Python only, the lead, the stage's
    names, the random level, the plot's words, the check's name, its runs and its table caption
    all follow."""
    edits = {
        "app/swarmlab/vicsek.py": [
            ('ParamSpec("n", 64, "Agents"', 'ParamSpec("n", 50, "Agents"'),
            ('ParamSpec("box", 1.0, "Box side"', 'ParamSpec("box", 2.0, "Box side"'),
            ("CHECK_SEEDS: tuple[int, ...] = (3, 17, 41, 73, 101, 211, 307, 499)",
             "CHECK_SEEDS: tuple[int, ...] = (3, 17, 41, 73, 101, 211)"),
            ("CHECK_WARMUP = 1000\n", "CHECK_WARMUP = 200\n"),
            ("CHECK_MEASURE = 500\n", "CHECK_MEASURE = 100\n"),
            ("LIVE_SEED = 3 ", "LIVE_SEED = 17 "),
        ],
        "app/swarmlab/sessions/vicsek.py": [("CHART_WINDOW = 600 ", "CHART_WINDOW = 300 "),
                                            ('RATE = ParamSpec("rate", 6, "Updates per second", kind="int", min=1, max=30,',
                                             'RATE = ParamSpec("rate", 8, "Updates shown per second", kind="int", min=2, max=40,')],
    }
    with _edited_app_page(browser, serve_root, tmp_path, edits, "vicsek") as (page, _):
        vk = page.locator("#lab-vicsek")
        # the playback rate control is the session's (RATE): its words, range and default
        rate = vk.locator(".vk-rate input[type=range]")
        assert (rate.get_attribute("min"), rate.get_attribute("max"), rate.input_value()) == ("2", "40", "8")
        assert vk.locator(".vk-rate label").inner_text() == "Updates shown per second"
        assert vk.locator(".vk-rate output").inner_text() == "8 / s"
        assert rate.get_attribute("aria-valuetext") == "8 per second"
        assert "Take 50 arrows" in vk.locator(".lab-lead").inner_text()
        canvas = vk.locator(".vk-canvas")
        assert "50 arrows moving" in canvas.get_attribute("aria-label")
        assert canvas.get_attribute("data-access-label").startswith("Few turns stage: 50 arrows moving")
        assert vk.locator(".vk-restart").get_attribute("title").startswith("Replay seed 17 ")
        # a box of side 2: each arrow is drawn where the model has it, at x / 2 of the stage's
        # width (not at x mod 1), and the rule's words give the step as a share of the side
        seen = page.evaluate("""async () => {
            const lab = window.swarmlab.labs.get('vicsek');
            lab.pause();
            await lab.settle();
            const f = await window.swarmlab.engine.frame('vicsek');
            return { f: Array.from(f.slice(2, 2 + 3 * 50)), p: Array.from({ length: 50 }, (_, i) => lab.clientPoint(i)) };
        }""")
        box = canvas.bounding_box()
        placed = [(box["x"] + seen["f"][3 * i] / 2 * box["width"], box["y"] + (1 - seen["f"][3 * i + 1] / 2) * box["height"])
                  for i in range(50)]
        misplaced = [i for i, (x, y) in enumerate(placed)
                     if abs(seen["p"][i]["x"] - x) > 0.5 or abs(seen["p"][i]["y"] - y) > 0.5]
        assert misplaced == []
        assert max(seen["f"][0::3]) > 1.2  # the run does use the whole box
        assert "each moves 0.005 of the box side" in vk.locator(".vk-rule").inner_text()
        # "Follow previous" from no arrow followed goes to the last of the 50 (not of 64)
        vk.locator(".access-follow-stop").click()
        vk.locator(".access-follow-prev").click()
        page.wait_for_function("() => window.swarmlab.labs.get('vicsek').selected === 49")
        page.wait_for_function("() => document.querySelector('#lab-vicsek .vk-follow-who')"
                               ".textContent.startsWith('Following arrow 50 of 50')")
        # sqrt(pi) / (2 sqrt(50)) = 0.125: the random level in the words and the plot's name
        assert "0.13 level of random headings" in vk.locator(".vk-pplot").get_attribute("aria-label")
        # the plot's window and words
        assert vk.locator(".vk-pplot").get_attribute("aria-label").startswith("P over the last 300 updates, ")
        assert vk.locator(".vk-plot-fig figcaption").inner_text() == (
            "P over the last 300 updates. Dashed: about where P sits when headings are random.")
        vk.locator(".vk-steptabs [role=tab]").nth(2).click()
        assert "Why 0.13 and not 0" in vk.locator(".vk-steppanels").inner_text()
        assert vk.locator("#vk-check-h").inner_text().startswith("Six-seed check")
        intro = vk.locator(".vk-check-intro").inner_text()
        assert "For each of six seeds (3, 17, 41, 73, 101, 211)" in intro and "all 12 runs" in intro
        assert "200 updates to settle" in intro and "the next 100" in intro
        page.wait_for_function("() => document.querySelector('#lab-vicsek').dataset.check === 'done'", timeout=120_000)
        assert vk.locator(".vk-table caption").inner_text() == "Average P over updates 201–300, for each seed"
        assert vk.locator(".vk-table tbody tr").count() >= 6
        assert "All 12 runs, full scale" in vk.locator(".vk-dots").inner_text()
        assert "the six seeds average P" in vk.locator(".vk-check-summary").inner_text()


def test_lab3_words_and_numbers_changed_in_python_are_what_the_page_shows(browser, serve_root, tmp_path):
    """Lab 3's readouts, chart and caption are the session's: change the history's labels, a
    readout's label, the sampling interval and the world's range in Python only, and the
    page follows; the caption's random-headings level follows the population slider."""
    edits = {
        "app/swarmlab/sessions/boids.py": [
            ('metrics.Series("P", metrics.P_SHARED_HEADING, "0 to 1")', 'metrics.Series("P", "common heading P", "0 to 1")'),
            ('metrics.Series("spacing", "mean nearest spacing", "lengths")',
             'metrics.Series("spacing", "mean gap to the nearest boid", "lengths")'),
            ('Readout("t", "model time", unit="s"', 'Readout("t", "time in the model", unit="s"'),
            ("SAMPLE_INTERVAL_STEPS = 10\n", "SAMPLE_INTERVAL_STEPS = 20\n"),
            # the chart's series in the other order: the caption finds each by its key and axis
            ('(("P", "left"), ("spacing", "right"))', '(("spacing", "right"), ("P", "left"))'),
        ],
        "app/swarmlab/boids.py": [
            ('"World width", min=10.0, max=2000.0', '"World width", min=10.0, max=1500.0'),
            ('"World height", min=10.0, max=2000.0', '"World height", min=10.0, max=1500.0'),
            ("GOAL_SAMPLES = tuple(range(1, 9))", "GOAL_SAMPLES = tuple(range(1, 7))"),
            ("GOAL_SECONDS = 300.0", "GOAL_SECONDS = 240.0"),
            ("WORLD_HEIGHT = 100.0  #", "WORLD_HEIGHT = 105.0  #"),  # the default sky's shape
        ],
        "app/swarmlab/scaling.py": [
            ('"title": "Ten or ten thousand"', '"title": "Ten boids or ten thousand"'),
            ('"label": "everyone checks everyone (search only)"', '"label": "all pairs (search only)"'),
            ('"Boids at the default density", kind="int"', '"Flock size, same density", kind="int"'),
        ],
    }
    with _edited_app_page(browser, serve_root, tmp_path, edits, "boids", "&world=5x5") as (page, _):
        bd = page.locator("#lab-boids")
        labels = _readout_labels(bd)
        assert labels["P"] == "common heading P" and labels["t"] == "time in the model"
        assert labels["spacing"] == "mean gap to the nearest boid"
        assert "mean gap to the nearest boid, common heading P" in bd.locator(".bd-chart").get_attribute("aria-label")
        series = page.evaluate("() => window.swarmlab.labs.get('boids').test.chart.opts.series.map((s) => [s.label, s.axis])")
        assert series == [["mean gap to the nearest boid", "right"], ["common heading P", "left"]]
        caption = bd.locator(".bd-chart-fig figcaption")
        text = caption.inner_text()
        assert text.startswith("Common heading P (left axis)") and "Mean gap to the nearest boid, in lengths (right axis)" in text
        assert "Sampled every 0.5 s of model time" in text
        # on a wide screen the stage has the default sky's shape, 160 by 105
        box = bd.locator(".bd-canvas").bounding_box()
        assert abs(box["height"] / box["width"] - 105 / 160) < 0.01, box
        # the scaling panel's title, slider, legend and table are the session's words
        scale = bd.locator(".bd-scale")
        assert scale.locator("h3").inner_text() == "Ten boids or ten thousand"
        assert "See it for yourself in “Ten boids or ten thousand” under the chart" in bd.locator(".bd-explain").inner_text()
        assert scale.locator("label").inner_text() == "Flock size, same density"
        assert "all pairs (search only)" in scale.locator(".bd-scale-legend").inner_text()
        assert scale.locator(".bd-scale-table thead th").all_text_contents() == [
            "boids", "this model's step (cell list + rules)", "all pairs (search only)"]
        assert "time per boid per step (µs)" in scale.locator("svg").inner_html()
        # "Why the flock keeps flowing" quotes the engine's goal table (six samples, four minutes)
        assert "In all six sample numbers we tested, groups were still splitting and swinging round after four minutes" \
            in " ".join(bd.inner_text().split())
        # sqrt(pi) / (2 sqrt(N)): 0.099 for 80 boids, 0.198 for 20
        assert "about 0.10 for 80 boids heading anywhere" in text
        page.evaluate("""() => { const i = document.querySelector("#lab-boids .ctl[data-param=population] input");
                                 i.value = 20; i.dispatchEvent(new Event("input", {bubbles: true})); }""")
        page.wait_for_function("() => document.querySelector('#lab-boids .bd-chart-fig figcaption')"
                               ".textContent.includes('about 0.20 for 20 boids heading anywhere')")
        # the chart's text alternative (describe.py) names the series with the same words
        page.wait_for_function("() => (document.querySelector('#access-chart-boids-chart') || {}).textContent"
                               "?.startsWith('Chart: common heading P')", timeout=30_000)
        # the share link's world was refused with the engine's range
        notice = page.locator("#notices").inner_text()
        assert "ignored world=5x5" in notice and "e.g. 160x105, each 10 to 1500" in notice


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)])
def test_lab2_stage_and_legend_are_in_view_together(browser, server, size):
    """The followed arrow's circle and wedge are explained by the legend under the stage: at
    1280x800 and 1366x768 the whole square stage and its legend are on the first screen."""
    w, h = size
    context = browser.new_context(viewport={"width": w, "height": h})
    page = context.new_page()
    page.goto(f"{server}/?lab=vicsek")
    wait_ready(page)
    boxes = page.evaluate("""() => ['.vk-stage', '.vk-legend'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect(); return [r.top, r.bottom, r.width, r.height]; })""")
    (st, sb, sw, sh), (lt, lb, lw, lh) = boxes
    assert sw > 400 and abs(sw - sh) < 2, boxes  # a square, not a thumbnail
    assert st >= 0 and sb <= h and lb <= h, (boxes, h)
    context.close()


STAGE = {"swarm": ".swarm-stage", "vicsek": ".vk-stage", "boids": ".bd-stage"}


@pytest.mark.parametrize("kw", [dict(viewport={"width": 844, "height": 390}, has_touch=True, is_mobile=True),
                                dict(viewport={"width": 640, "height": 400}, device_scale_factor=2)],
                         ids=["phone-sideways", "zoom-200"])
def test_every_stage_fits_a_short_window(browser, server, kw):
    """A phone turned sideways (844x390) or a page zoomed to 200 % (640x400): Labs 1 and 2 drew
    their stages 508-640 px tall, so the whole world, or the followed arrow's circle, was never in
    view.  Each stage now fits the window with room for a row under it, and the lead is folded."""
    context = browser.new_context(**kw)
    page = context.new_page()
    try:
        page.goto(f"{server}/?lab=swarm")
        wait_ready(page)
        h = kw["viewport"]["height"]
        for lab in LABS:
            if lab != "swarm":
                page.click(f"#tab-{lab}")
                page.wait_for_selector(f"#lab-{lab}[data-access='1']")
            box = page.locator(f"#lab-{lab} {STAGE[lab]}").bounding_box()
            assert 200 <= box["height"] <= h - 60, (lab, box, h)
            assert box["width"] >= 200, (lab, box)
            lead = page.locator(f"#lab-{lab} .lab-lead")
            assert lead.evaluate("(e) => e.scrollHeight > e.clientHeight + 4"), lab  # folded behind "Read more"
            assert page.locator(f"#lab-{lab} .lab-lead-more").is_visible(), lab
    finally:
        context.close()


@pytest.mark.parametrize("lab", ["swarm", "vicsek", "boids"])
def test_every_source_a_lab_cites_has_a_link(page, server, lab):
    """A teacher follows the citations: each item under a lab's "Sources" heading links to the
    paper (its DOI) or the page (the Swarm Lab's were plain text, the other labs' linked)."""
    page.goto(f"{server}/?lab={lab}")
    wait_ready(page)
    items = page.evaluate("""(lab) => {
      const h = [...document.querySelectorAll(`#lab-${lab} h2`)].find((e) => e.textContent.trim() === 'Sources');
      if (!h) return null;
      let list = h.nextElementSibling;
      while (list && !/^(UL|OL)$/.test(list.tagName)) list = list.nextElementSibling;
      return list ? [...list.querySelectorAll(':scope > li')].map((li) => ({
        text: li.textContent.trim().slice(0, 60), links: [...li.querySelectorAll('a[href^="https://"]')].length })) : [];
    }""", lab)
    assert items, f"{lab}: no list under a Sources heading"
    assert [i for i in items if i["links"] == 0] == [], items
