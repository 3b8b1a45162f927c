"""Rules in Python: the built-in rule functions, a student's copy of them, bad rules.

The exact-replay tests (test_boids_exact.py, tests/parity) pin the built-in rules to the
engine's recorded bits; here a student's rule loaded from the very same source text must
give the same bits, an edited rule must give a different run, and every kind of bad
rule must be refused with a message naming the problem (and its line), losing nothing.
"""

import json
import re

import numpy as np
import pytest

from swarmlab import boids as B
from swarmlab import rules, rules_boids, rules_vicsek, vicsek
from swarmlab.sessions.boids import BoidsSession
from swarmlab.sessions.vicsek import VicsekSession

BOIDS = rules_boids.KIND
VICSEK = rules_vicsek.KIND


def same(a, b):
    return a.shape == b.shape and a.tobytes() == b.tobytes()


# ------------------------------------------------------------------- the same code, the same bits
@pytest.mark.parametrize("sample", (1, 42))
def test_a_student_copy_of_the_boids_rules_replays_the_built_in_run_bit_for_bit(sample):
    p = B.Params(sample=sample, population=120)
    mine = rules.load(BOIDS.source(), BOIDS)
    assert mine.user and mine.fn is not rules_boids.steering
    a = b = B.initial_state(p)
    treat = B.Treat(True, 40.0, 30.0)
    for k in range(240):
        t = treat if 80 <= k < 120 else None  # the treat held for one model second
        a = B.step(a, p, t)
        b = B.step(b, p, t, mine)
    assert same(a.x, b.x) and same(a.v, b.v)
    # and zero weights (the presets) take the same path
    q = p.with_values(**B.PRESETS["separation"])
    assert same(B.run(a, q, 40).x, B.run(a, q, 40, rule=mine).x)


def test_the_shown_source_is_the_function_the_engine_calls():
    src = BOIDS.source()
    assert src.startswith("def steering(i, j, d, r, v, p):")
    assert "r[near] * r[near] + EPS" in src  # inverse-square separation, readable
    with open(rules_boids.__file__, encoding="utf-8") as fh:
        assert src.strip() in fh.read()
    assert VICSEK.source().startswith("def turn(i, j, d, r, theta, a, kick):")


def test_a_student_copy_of_the_vicsek_turn_replays_the_built_in_run_bit_for_bit():
    built_in = vicsek.Ensemble([(3, 1.0), (17, 0.4)])
    student = vicsek.Ensemble([(3, 1.0), (17, 0.4)])
    student.turn = rules.load(VICSEK.source(), VICSEK)
    for _ in range(300):
        built_in.step()
        student.step()
    assert same(built_in.state.theta, student.state.theta) and same(built_in.state.x, student.state.x)
    assert student.failure is None


def test_an_edited_rule_changes_the_run():
    p = B.Params(sample=3)
    doubled = rules.load(BOIDS.source().replace("p.k_sep * steer", "2 * p.k_sep * steer"), BOIDS)
    a = B.run(B.initial_state(p), p, 200)
    b = B.run(B.initial_state(p), p, 200, rule=doubled)
    assert not same(a.x, b.x)
    no_kick = rules.load(VICSEK.source().replace(" + kick", ""), VICSEK)
    ens = vicsek.Ensemble([(3, 1.0)])
    ens.turn = no_kick
    ens.run(300)
    assert ens.order[0] > 0.999  # without kicks every arrow ends up flying one way


# ------------------------------------------------------------------- bad rules are refused
ARGS = (np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros((0, 2)), np.zeros(0), np.ones((3, 2)), B.Params())


def refused(code, kind=BOIDS, args=ARGS):
    with pytest.raises(rules.RuleError) as info:
        rules.load(code, kind)(*args)
    return info.value


def test_syntax_error_names_its_line():
    e = refused("def steering(i, j, d, r, v, p):\n    a = (1,\n    return a\n\n\nx = = 2\n")
    assert e.kind == "syntax" and e.line is not None and f"line {e.line}" in str(e)
    e = refused("def steering(i, j, d, r, v, p):\n    return v\n  x = 1\n")
    assert e.line == 3 and "SyntaxError" in str(e)


def test_an_exception_names_the_students_line_even_deep_inside_numpy():
    e = refused("def steering(i, j, d, r, v, p):\n    n = len(v)\n    return np.zeros((n, 2)) + v @ np.ones(3)\n")
    assert e.kind == "exception" and e.line == 3 and "ValueError" in str(e)
    e = refused("def helper(v):\n    return v.nope\n\ndef steering(i, j, d, r, v, p):\n    return helper(v)\n")
    assert e.line == 2 and "AttributeError" in str(e)
    e = refused("print('hello')\nx = 1 / 0\n")
    assert e.line == 2 and "ZeroDivisionError" in str(e)


def test_a_module_the_page_lacks_is_said_to_be_left_out_only_in_the_browser():
    """Under Pyodide (``browser``) a rule's "No module named ..." says that the page's Python is
    trimmed and where the rule runs whole; under CPython the module is simply not installed."""
    code = "import swarmlab_no_such_module\n" + rules_boids.KIND.source()
    with pytest.raises(rules.RuleError) as info:
        rules.load(code, rules_boids.KIND)
    assert str(info.value) == "ModuleNotFoundError on line 1: No module named 'swarmlab_no_such_module'"
    assert info.value.line == 1 and "python -m swarmlab" not in str(info.value)  # CPython: no hint
    left_out = ModuleNotFoundError("No module named 'graphlib'", name="graphlib")  # stdlib, trimmed away
    assert str(rules.explain(left_out, browser=True)).endswith(
        f"No module named 'graphlib' ({rules.BROWSER_MODULE_HINT})")
    numpy_part = ModuleNotFoundError("No module named 'numpy.testing'", name="numpy.testing")
    assert rules.BROWSER_MODULE_HINT in str(rules.explain(numpy_part, browser=True))
    assert "python -m swarmlab and --rules your_rule.py" in rules.BROWSER_MODULE_HINT
    # a typo or a package nobody ships: no hint (on a computer it fails the same way)
    try:
        import swarmlab_no_such_module  # noqa: F401
    except ModuleNotFoundError as exc:
        assert str(rules.explain(exc, browser=True)) == "ModuleNotFoundError: No module named 'swarmlab_no_such_module'"
    assert rules.explain(ValueError("x"), browser=True).args[0] == "ValueError: x"  # other errors: as they are


def test_a_huge_exception_message_is_cut_short():
    """A student's exception may carry megabytes (``assert ok, d.tolist()``): the message the
    page shows keeps its start, the line, and at most rules.MAX_MESSAGE_CHARS characters."""
    e = refused("def steering(i, j, d, r, v, p):\n    raise ValueError('x' * 2_000_000)\n")
    text = str(e)
    assert e.line == 2 and text.startswith("ValueError on line 2: xxx") and text.endswith("…")
    assert len(text) == rules.MAX_MESSAGE_CHARS == len(e.to_json()["message"])


@pytest.mark.parametrize("body, words", [
    ("return (v - v) / 0", "NaN"),  # 0 / 0
    ("return v / 0", "infinite"),
    ("return v.copy() * np.where(np.arange(3) == 1, np.nan, 1.0)[:, None]", "row 1"),
    ("return v[:2]", "shape (2, 2)"),
    ("return v[:, 0]", "shape (3,)"),
    ("return None", "returned nothing"),
    ("return v.astype(complex)", "complex128"),
    ("return [[1, 2], [3]]", "not an array"),
    ("return np.array([['a', 'b']] * 3)", "real numbers"),
])
def test_bad_results_are_refused_with_a_message_naming_the_problem(body, words):
    e = refused(f"def steering(i, j, d, r, v, p):\n    {body}\n")
    assert e.kind in ("result", "exception") and words in str(e), str(e)


def test_a_missing_function_or_wrong_input_is_refused():
    assert refused("def steer(i, j, d, r, v, p):\n    return v\n").kind == "missing"
    assert refused("def steering(i, j, d, r, v, p):\n    return v\n", VICSEK,
                   ARGS[:4] + (np.zeros(3), np.ones(3), np.zeros(3))).kind == "missing"
    with pytest.raises(rules.RuleError):
        rules.load(42, BOIDS)
    with pytest.raises(rules.RuleError, match="under"):
        rules.load("#" * (rules.MAX_SOURCE_CHARS + 1), BOIDS)


def test_an_endless_loop_is_stopped_by_the_time_limit():
    # the limit is the feature's own parameter (how long a rule may run), not a timing assertion
    for loop in ("while True: pass", "while True:\n        x = 1", "for k in iter(int, 1): pass"):
        fn = rules.load(f"def steering(i, j, d, r, v, p):\n    {loop}\n", BOIDS).fn
        with pytest.raises(rules.RuleError) as info:
            rules.call_limited(fn, ARGS, limit=0.05)
        assert info.value.kind == "timeout" and info.value.line in (2, 3)
    import sys
    assert sys.gettrace() is None  # the tracer is removed again


def test_the_time_limit_belongs_to_the_loaded_rule():
    """A batch run sets its rule's limit when loading it (the engine never passes one)."""
    loop = "def steering(i, j, d, r, v, p):\n    while True:\n        pass\n"
    with pytest.raises(rules.RuleError, match="more than 0.05 s") as info:
        rules.load(loop, BOIDS, time_limit=0.05)(*ARGS)
    assert info.value.kind == "timeout"
    import sys
    seen = []
    untraced = rules.load("def steering(i, j, d, r, v, p):\n    seen.append(sys.gettrace())\n    return v\n",
                          BOIDS, time_limit=None)
    untraced.fn.__globals__.update(seen=seen, sys=sys)
    untraced(*ARGS)
    assert seen == [None] and untraced.time_limit is None
    # still read-only arrays, still checked results, still explained exceptions
    with pytest.raises(rules.RuleError, match="read-only") as info:
        rules.load("def steering(i, j, d, r, v, p):\n    v[:] = 0\n    return v\n", BOIDS, time_limit=None)(*ARGS)
    assert info.value.kind == "exception" and info.value.line == 2
    with pytest.raises(rules.RuleError, match="line 2"):
        rules.load("def steering(i, j, d, r, v, p):\n    return 1 / 0\n", BOIDS, time_limit=None)(*ARGS)
    for bad in (-1.0, float("nan"), float("inf"), "2", True, False):  # (0 is no limit, as --time-limit 0)
        with pytest.raises(ValueError, match="time limit"):
            rules.load(loop, BOIDS, time_limit=bad)
    assert rules.load(loop, BOIDS).time_limit == rules.TIME_LIMIT_S  # the page's


def test_the_students_namespace_is_the_rule_modules_and_fresh():
    ns = BOIDS.namespace()
    assert {"np", "sum_by", "mean_by", "steer", "allocate", "unit", "EPS"} <= set(ns)
    assert "steering" not in ns and "boids" not in ns
    ns["np"] = None
    assert BOIDS.namespace()["np"] is np  # one student's code cannot spoil the next one's


@pytest.mark.parametrize("lab", ["boids", "vicsek"])
def test_the_helpers_the_page_lists_are_the_names_a_rule_can_use(lab):
    """The panel's "Ready to use" list is the session's: one entry per name of the rule's
    namespace, each a call with its parameters, a constant with its value, or numpy."""
    from swarmlab import sessions
    src = sessions.create(lab).op_rules_source()
    kind = sessions.create(lab).RULES
    names = [k for k in kind.namespace() if not k.startswith("__")]
    listed = [h.split("(")[0].split(" ")[0] for h in src["helpers"]]
    assert listed == names
    for h, name in zip(src["helpers"], names):
        obj = kind.namespace()[name]
        if obj is np:
            assert h == "np (numpy)"
        elif callable(obj):
            assert h.startswith(f"{name}(") and h.endswith(")") and ":" not in h  # no annotations
        else:
            assert h == f"{name} = {obj!r}"
    if lab == "boids":
        assert "sum_by(i, values, n)" in src["helpers"] and "EPS = 1.0" in src["helpers"]


@pytest.mark.parametrize("lab", ["boids", "vicsek"])
def test_the_panels_words_come_with_the_source_and_name_every_argument(lab):
    """The panel's heading, introduction and "What the function gets" are the engine's
    (RuleKind.panel), sent with the source; the help names each argument of the rule
    function as the source declares it, so the two cannot drift apart."""
    import inspect
    from swarmlab import sessions
    s = sessions.create(lab)
    src = s.op_rules_source()
    assert src["title"] and src["intro"] and src["help"]
    assert src["title"] == s.RULES.module.PANEL_TITLE
    for name in inspect.signature(s.RULES.builtin).parameters:  # "i, j: ...", "d: ...", "r its length"
        assert re.search(rf"(^|[ ;]){name}(:|,| its )", src["help"]), name
    assert "Return one" in src["help"]


# ------------------------------------------------------------------- the sessions
def test_boids_session_swaps_rules_live_marks_the_chart_and_keeps_time_and_state():
    s = BoidsSession()
    s.op_step(n=100)
    t, x = s.state.t, s.state.x.copy()
    src = s.op_rules_source()
    assert src["original"] == src["code"] and not src["user"] and src["name"] == "steering"
    assert src["time_limit_s"] == rules.TIME_LIMIT_S  # the page's watchdog waits longer than this
    out = s.op_rules(code=src["original"].replace("p.k_sep * steer", "3 * p.k_sep * steer"))
    assert out["ok"] and out["ms"] >= 0
    assert s.state.t == t and same(s.state.x, x)  # nothing restarted
    step = s.op_step(n=20)
    assert step["rules"] == {"user": True, "error": None} and step["ms_per_step"] >= 0
    assert "your rules" in json.dumps(s.op_history()["markers"])
    assert s.op_rules_source()["user"]
    s.op_rules_original()
    assert not s.op_rules_source()["user"]
    assert "original rules" in json.dumps(s.op_history()["markers"])


def test_a_refused_rule_changes_nothing_and_the_last_good_rule_keeps_running():
    s = BoidsSession()
    good = s.op_rules_source()["original"].replace("p.k_coh * steer", "0.5 * p.k_coh * steer")
    assert s.op_rules(code=good)["ok"]
    before = s.op_snapshot()
    for bad in ("def steering(:\n", "def steering(i, j, d, r, v, p):\n    return v * np.nan\n",
                "def steering(i, j, d, r, v, p):\n    while True: pass\n"):
        out = s.op_rules(code=bad)  # the endless loop is stopped after rules.TIME_LIMIT_S
        assert out["ok"] is False and out["error"]["message"]
    assert s.op_snapshot() == before and s.rule.code == good


@pytest.mark.parametrize("lab", ["boids", "vicsek"])
def test_a_rule_cannot_change_the_models_arrays_or_stop_the_engine(lab):
    """The student's code gets read-only arrays: "v[:] = np.nan" (then returning nothing) or
    "theta *= 2" used to change the run even though the rule was refused; sys.exit() and
    SystemExit are refused like any other exception (they used to escape every handler, so
    the page got no answer), on their line."""
    s = BoidsSession() if lab == "boids" else VicsekSession()
    head = "def steering(i, j, d, r, v, p):\n" if lab == "boids" else "def turn(i, j, d, r, theta, a, kick):\n"
    arr = "v" if lab == "boids" else "theta"
    before = s.op_snapshot()
    for body, words in ((f"    {arr}[:] = np.nan\n    return None\n", "read-only"),
                        (f"    {arr} *= 0\n    return {arr}\n", "read-only"),
                        ("    import sys\n    sys.exit(1)\n", "SystemExit on line 3"),
                        ("    raise SystemExit\n", "SystemExit on line 2")):
        out = s.op_rules(code=head + body)
        assert out["ok"] is False and words in out["error"]["message"], (body, out)
        assert s.op_snapshot() == before
    # a rule that returns its input unchanged is fine, and the engine may work on the result
    assert s.op_rules(code=head + (f"    return {arr}\n" if lab == "vicsek" else "    return np.zeros_like(v)\n"))["ok"]
    s.op_step(n=3)
    # and one that exits later gives way to the original rules, as any later error does
    s.op_rules_original()
    assert s.op_rules(code="calls = [0]\n" + head + f"    calls[0] += 1\n    if calls[0] > 3:\n        raise SystemExit\n"
                      + (f"    return {arr}\n" if lab == "vicsek" else "    return np.zeros_like(v)\n"))["ok"]
    out = s.op_step(n=10)
    assert out["rules"]["user"] is False and "SystemExit" in out["rules"]["error"]["message"]


@pytest.mark.parametrize("raised, words", [("BaseException('x')", "BaseException on line 2: x"),
                                           ("GeneratorExit", "GeneratorExit on line 2"),
                                           ("KeyboardInterrupt", "KeyboardInterrupt on line 2")])
def test_a_rule_raising_any_base_exception_is_a_broken_rule(raised, words, monkeypatch):
    """A BaseException that is not an Exception escaped every handler: at the trial the panel
    waited for ever ("Checking your rules..."), later the lab stopped with "reload the page" and
    the code was lost.  KeyboardInterrupt is a rule's own in the browser (nobody can press
    Ctrl-C there); at a terminal it still stops the run."""
    import sys

    from swarmlab import rules

    monkeypatch.setattr(sys, "platform", "emscripten")  # as inside Pyodide
    s = BoidsSession()
    head = "def steering(i, j, d, r, v, p):\n"
    out = s.op_rules(code=head + f"    raise {raised}\n")
    assert out["ok"] is False and words in out["error"]["message"], out
    later = ("calls = [0]\n" + head + f"    calls[0] += 1\n    if calls[0] > 3:\n        raise {raised}\n"
             "    return np.zeros_like(v)\n")
    assert s.op_rules(code=later)["ok"]
    out = s.op_step(n=10)
    assert out["rules"]["user"] is False and raised.split("(")[0] in out["rules"]["error"]["message"]
    monkeypatch.setattr(sys, "platform", "linux")  # the command line: Ctrl-C stops the run
    with pytest.raises(KeyboardInterrupt):
        rules.call_limited(lambda: (_ for _ in ()).throw(KeyboardInterrupt()), ())


def test_a_rule_that_fails_later_gives_way_to_the_original_without_losing_a_step():
    s = BoidsSession()
    # fine for the first calls, then NaN: the trial passes, a later step fails
    code = ("calls = [0]\n"
            "def steering(i, j, d, r, v, p):\n"
            "    calls[0] += 1\n"
            "    return np.zeros_like(v) if calls[0] < 5 else v * np.nan\n")
    assert s.op_rules(code=code)["ok"]
    out = s.op_step(n=10)
    assert s.state.steps == 10 and np.isfinite(s.state.x).all()
    assert out["rules"]["user"] is False and "NaN" in out["rules"]["error"]["message"]
    assert s.op_step(n=1)["rules"]["error"] is None  # told once
    assert "your rules stopped" in json.dumps(s.op_history()["markers"])
    assert s.op_rules_source()["code"] == code  # the student's text is kept for the editor


def test_boids_snapshot_restores_exactly_through_json():
    a = BoidsSession()
    a.op_set(name="population", value=150)
    a.op_step(n=123)
    a.op_treat(x=50.0, y=20.0, on=True)
    snap = json.loads(json.dumps(a.op_snapshot()))
    b = BoidsSession()
    b.op_restore(snapshot=snap)
    a.op_step(n=50)
    b.op_step(n=50)
    assert same(a.state.x, b.state.x) and same(a.state.v, b.state.v) and a.state.steps == b.state.steps
    with pytest.raises(ValueError):
        b.op_restore(snapshot={**snap, "x": snap["x"][:-1]})
    with pytest.raises(ValueError):
        b.op_restore(snapshot={"lab": "vicsek"})


def test_vicsek_session_rules_and_snapshot():
    a = VicsekSession()
    a.op_step(n=40)
    assert a.op_rules(code=a.op_rules_source()["original"])["ok"]
    a.op_step(n=30)
    ref = VicsekSession()
    ref.op_step(n=70)
    assert same(a.ens.state.theta, ref.ens.state.theta)  # the same code, the same run
    snap = json.loads(json.dumps(a.op_snapshot()))
    b = VicsekSession()
    b.op_restore(snapshot=snap)
    a.op_step(n=25)
    b.op_step(n=25)
    assert same(a.ens.state.theta, b.ens.state.theta) and same(a.ens.state.x, b.ens.state.x)
    out = a.op_rules(code="def turn(i, j, d, r, theta, a, kick):\n    return theta[:3]\n")
    assert not out["ok"] and "shape (3,)" in out["error"]["message"]
    bad_later = ("calls = [0]\n"
                 "def turn(i, j, d, r, theta, a, kick):\n"
                 "    calls[0] += 1\n"
                 "    if calls[0] > 3:\n"
                 "        raise RuntimeError('tired')\n"
                 "    return theta\n")
    assert a.op_rules(code=bad_later)["ok"]
    t = a.ens.t
    out = a.op_step(n=5)
    assert a.ens.t == t + 5 and "line 5" in out["rules"]["error"]["message"]
    assert a.op_rules_original() == {"ok": True}


# ------------------------------------------------------------------- ideas to try: what the page promises
IDEA_SAMPLES = (1, 2, 3, 4)


def _measured(code, samples=IDEA_SAMPLES, seconds=90, start=30):
    """(samples, [P, spacing]): mean P and mean nearest spacing from `start` to `seconds` model s
    (sampled each second), the samples' flocks stepped together (boids.run_many: the runs one
    sample at a time, bit for bit, tests/unit/test_boids_many.py)."""
    rule = rules.load(code, BOIDS)
    p = B.Params()
    states = B.initial_states(p, samples)
    P, sp = [], []
    for k in range(seconds):
        states = B.run_many(states, p, B.STEPS_PER_SECOND, rule=rule)
        if k >= start:
            m = [B.measure(s, p) for s in states]
            P.append([x["P"] for x in m])
            sp.append([x["spacing"] for x in m])
    return np.stack([np.mean(P, axis=0), np.mean(sp, axis=0)], axis=1)


@pytest.fixture(scope="module")
def idea_runs():
    src = BOIDS.source()
    out = {"original": _measured(src)}
    for idea in rules_boids.IDEAS:
        out[idea.name] = _measured(idea.apply(src))
    return out  # name -> (samples, [P, spacing])


def test_every_idea_is_a_working_edit_the_page_can_load():
    src = BOIDS.source()
    page = BoidsSession().op_rules_source()["ideas"]
    assert [i["name"] for i in page] == [i.name for i in rules_boids.IDEAS]
    for idea, shown in zip(rules_boids.IDEAS, page):
        assert shown["code"] == idea.apply(src) != src
        s = BoidsSession()
        assert s.op_rules(code=shown["code"])["ok"], idea.name
        s.op_step(n=20)
        assert s.rule is not None  # still running: no NaN, no exception


def test_ideas_do_what_the_page_says(idea_runs):
    """Each idea's "look" text, measured over samples 1-4 from 30 to 90 model s (80 boids)."""
    base = idea_runs["original"]
    P, spacing = 0, 1
    # twice as strong separation: further apart on average
    assert idea_runs["double"][:, spacing].mean() > base[:, spacing].mean()
    # no blind spot: closer together in every sample, more one way on average
    assert np.all(idea_runs["all-round"][:, spacing] < base[:, spacing])
    assert idea_runs["all-round"][:, P].mean() > base[:, P].mean()
    # a straight-line fall-off: further apart in every sample
    assert np.all(idea_runs["fade"][:, spacing] > base[:, spacing])
    # the nearest neighbour only: less agreement on average
    assert idea_runs["nearest"][:, P].mean() < base[:, P].mean()


def test_vicsek_ideas_do_what_the_page_says():
    """Mean P over updates 1000-1500 of four check seeds (the page's numbers: ~0.94 -> 1 and ~0.6)."""
    src = VICSEK.source()
    shown = VicsekSession().op_rules_source()["ideas"]
    assert [i["name"] for i in shown] == ["no-kicks", "strong-kicks"]

    def mean_p(code):
        rule = rules.load(code, VICSEK)
        ens = vicsek.Ensemble([(seed, 1.0) for seed in vicsek.CHECK_SEEDS[:4]])  # stepped together
        ens.turn = rule
        return ens.run(1500)[1000:].mean(axis=0)

    base = mean_p(src)
    calm = mean_p(rules_vicsek.IDEAS[0].apply(src))
    wild = mean_p(rules_vicsek.IDEAS[1].apply(src))
    assert np.all(calm > 0.999) and np.all(calm > base)
    assert np.all(np.abs(base - 0.94) < 0.02) and np.all(np.abs(wild - 0.6) < 0.05)


# ------------------------------------------------------------------- the same functions from the command line
def test_cli_runs_a_rule_file_and_explains_a_bad_one(tmp_path, capsys):
    from swarmlab import cli

    same_file = tmp_path / "same.py"
    same_file.write_text(BOIDS.source(), encoding="utf-8")
    assert cli.main(["boids", "--seconds", "2"]) == 0
    plain = capsys.readouterr().out
    assert cli.main(["boids", "--seconds", "2", "--rules", str(same_file)]) == 0
    mine = capsys.readouterr().out
    assert "with the rules of" in mine
    assert plain.split(": N=")[1] == mine.split(": N=")[1]  # the same code: the same numbers

    turn_file = tmp_path / "turn.py"
    turn_file.write_text(VICSEK.source().replace(" + kick", ""), encoding="utf-8")
    assert cli.main(["vicsek", "--warmup", "300", "--measure", "50", "--rules", str(turn_file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["order_mean"] > 0.999

    bad = tmp_path / "bad.py"
    bad.write_text("def steering(i, j, d, r, v, p):\n    return v[:1]\n", encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        cli.main(["boids", "--seconds", "1", "--rules", str(bad)])
    assert info.value.code == 2 and "shape" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["boids", "--seconds", "1", "--rules", str(tmp_path / "missing.py")])
    assert "cannot read" in capsys.readouterr().err


def test_python_callers_get_the_command_lines_meanings(tmp_path):
    """time_limit=0 is no limit, as --time-limit 0 is; a rules file that is not UTF-8 is a
    RuleError (a batch script catching RuleError missed the UnicodeDecodeError); text where a
    list of samples or seeds belongs is refused ("37" ran seeds 3 and 7)."""
    code = rules_boids.KIND.source()
    assert rules.load(code, rules_boids.KIND, time_limit=0).time_limit is None
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# r\xe9gle\n" + code.encode())
    with pytest.raises(rules.RuleError, match="not UTF-8 text"):
        rules.load_file(str(latin), rules_boids.KIND)
    with pytest.raises(ValueError, match="seeds must be a list of whole numbers"):
        vicsek.run_check(seeds="37", warmup=1, measure=1)
    with pytest.raises(ValueError, match="samples must be a list of whole numbers"):
        B.initial_states(B.Params(), "12")
    with pytest.raises(ValueError, match="seeds must be a list"):
        vicsek.run_check(seeds=5, warmup=1, measure=1)
    assert len(B.initial_states(B.Params(), (1, 2))) == 2  # a tuple, a range, a generator: fine
