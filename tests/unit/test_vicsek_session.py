"""Browser session of Lab 2 (swarmlab.sessions.vicsek), driven through the JSON bridge."""

from __future__ import annotations

import json

import numpy as np
import pytest

from swarmlab import metrics, vicsek
from swarmlab.sessions import vicsek as vs
from swarmlab.space import Box, displacement


def call(s, method, **args):
    return json.loads(s.call(method, json.dumps(args)))


@pytest.fixture
def s():
    return vs.make_session()


def test_specs_have_alignment_knob(s):
    specs = s.dispatch("spec", {})
    a = next(p for p in specs if p["name"] == "a")
    assert (a["min"], a["max"], a["step"], a["default"]) == (0.0, 1.0, 0.01, 1.0)
    assert s.lab == "vicsek"


def test_live_stage_is_seed_3(s):
    st = call(s, "state")
    assert st["seed"] == 3 and st["n"] == 64 and st["t"] == 0 and st["params"] == {"a": 1.0}
    assert st["kick"] == 0.35 and st["radius"] == 0.12 and st["speed"] == 0.01
    ens = vicsek.Ensemble([(3, 1.0)])
    assert np.array_equal(s.ens.state.x, ens.state.x)
    ens.run(25)
    call(s, "step", n=25)
    assert np.array_equal(s.ens.state.theta, ens.state.theta)


def test_restart_reproduces(s):
    call(s, "step", n=150)
    f1 = s.frame().copy()
    m1 = call(s, "metrics")
    call(s, "reset")
    assert call(s, "state")["t"] == 0
    call(s, "step", n=150)
    assert np.array_equal(s.frame(), f1)
    assert call(s, "metrics") == m1


def test_stepping_once_600_equals_600_single_steps(s):
    other = vs.make_session()
    call(s, "step", n=600)
    for _ in range(600):
        call(other, "step")
    assert np.array_equal(s.frame(), other.frame())
    assert call(s, "metrics") == call(other, "metrics")
    assert call(s, "metrics")["t"] == 600


def test_set_is_live_and_keeps_the_kick_stream(s):
    call(s, "step", n=100)
    assert call(s, "set", name="a", value=0.25) == {"name": "a", "value": 0.25, "changed": True}
    assert call(s, "state")["t"] == 100  # no restart
    call(s, "step", n=50)
    ens = vicsek.Ensemble([(3, 1.0)])
    ens.run(100)
    ens.align[:] = 0.25
    ens.run(50)
    assert np.array_equal(s.ens.state.theta[0], ens.state.theta[0])
    # reset keeps a unless given; a given value is validated before anything changes
    call(s, "reset")
    assert call(s, "state")["params"]["a"] == 0.25
    assert "error" in call(s, "reset", a=3)
    assert "error" in call(s, "set", name="a", value="nan")
    assert "error" in call(s, "set", name="speed", value=1)
    assert call(s, "state")["params"]["a"] == 0.25
    call(s, "reset", a=1)
    assert call(s, "state")["params"]["a"] == 1.0


def test_step_validates(s):
    assert call(s, "step", n=0)["t"] == 0  # zero steps, as in every lab: a refresh
    assert "error" in call(s, "step", n=-1)
    assert "error" in call(s, "step", n=1.5)
    assert "error" in call(s, "step", bogus=1)
    assert call(s, "state")["t"] == 0


def test_metrics_and_history(s):
    m = call(s, "metrics")
    assert m["t"] == 0 and len(call(s, "history")["t"]) == 1
    r = call(s, "step", n=400)
    m = call(s, "metrics")
    assert m["t"] == 400 and r["t"] == 400 and m["P"] == r["P"]
    h = call(s, "history")
    assert h["t"] == list(range(401)) and h["series"]["P"][-1] == m["P"]  # one sample per update
    assert m["P"] == pytest.approx(vicsek.order_parameter(s.ens.state.theta[0]), abs=1e-15)


def test_history_marks_knob_changes_once_per_drag_and_restart_clears_it(s):
    call(s, "step", n=10)
    for a in (0.9, 0.7, 0.5):  # a drag: three values at once
        call(s, "set", name="a", value=a)
    call(s, "set", name="a", value=0.5)  # no change, no marker
    call(s, "step", n=20)
    call(s, "set", name="a", value=1)
    assert call(s, "history")["markers"] == [{"t": 10, "label": "alignment a 0.50"},
                                             {"t": 30, "label": "alignment a 1.00"}]
    full = call(s, "history")
    call(s, "step", n=3)
    more = call(s, "history", since=full["t"][-1], version=full["version"])
    assert more["full"] is False and more["t"] == [31, 32, 33]
    call(s, "reset")
    h = call(s, "history")
    assert h["t"] == [0] and h["markers"] == []


def _blocks(s):
    """The frame read through the layout the session publishes (as the page reads it)."""
    lay = call(s, "layout")["frame"]
    f = s.frame()
    o, k = lay["offset"], lay["stride"]
    assert lay["fields"] == ["x", "y", "theta"] and lay["blocks"] == 2
    n = int(f[lay["count"]])
    return f, f[o:o + n * k].reshape(n, k), f[o + n * k:o + 2 * n * k].reshape(n, k)


def test_frame_layout(s):
    f, now, before = _blocks(s)
    assert f.dtype == np.float32 and f.shape == (2 + 6 * 64,)
    assert np.array_equal(now, before)  # after reset
    prev = s.ens.state
    call(s, "step")
    f, now, before = _blocks(s)
    assert f[1] == s.ens.t
    assert np.array_equal(now[:, :2], s.ens.state.x[0].astype(np.float32))
    assert np.array_equal(now[:, 2], s.ens.state.theta[0].astype(np.float32))
    assert np.array_equal(before[:, 2], prev.theta[0].astype(np.float32))
    # block B is unwrapped next to block A: the straight step has length 0.01 along the new heading
    step = now[:, :2].astype(float) - before[:, :2].astype(float)
    assert np.allclose(np.hypot(step[:, 0], step[:, 1]), 0.01, atol=1e-6)
    assert np.allclose(step[:, 0], 0.01 * np.cos(now[:, 2]), atol=1e-6)
    # and it wraps back onto the previous positions
    assert np.allclose(displacement(prev.x[0], before[:, :2].astype(float), Box(1, 1)), 0, atol=1e-6)


def test_select_nearest_periodic(s):
    call(s, "step", n=10)
    x = s.ens.state.x[0]
    for px, py in [(0.5, 0.5), (0.001, 0.999), (1.3, -0.2), (0.9, 0.05)]:
        r = call(s, "select", x=px, y=py)
        d = displacement(x, np.array([px, py]) % 1.0, Box(1, 1))
        dist = np.hypot(d[:, 0], d[:, 1])
        assert r["index"] == int(np.argmin(dist))
        assert r["distance"] == pytest.approx(dist.min(), abs=1e-12)
        assert call(s, "state")["selected"] == r["index"]
    assert call(s, "select", index=5)["index"] == 5
    assert call(s, "select")["index"] is None
    assert "error" in call(s, "select", x=0.2)
    assert "error" in call(s, "select", x="a", y=0.1)
    assert "error" in call(s, "select", index=64)


def test_neighbours_match_brute_force(s):
    call(s, "step", n=300)
    x = s.ens.state.x[0]
    th = s.ens.state.theta[0]
    for i in (0, 17, 63):
        r = call(s, "neighbours", i=i)
        d = displacement(x[i], x, Box(1, 1))
        dist = np.hypot(d[:, 0], d[:, 1])
        ref = [j for j in range(64) if j != i and dist[j] <= 0.12]
        assert r["neighbours"] == ref and r["size"] == len(ref) + 1
        members = [i] + ref
        mean = np.arctan2(np.sin(th[members]).sum(), np.cos(th[members]).sum())
        assert r["mean_heading"] == pytest.approx(mean, abs=1e-12)
        assert r["turn_to"] == pytest.approx(mean, abs=1e-12)  # a = 1
        assert r["kick"] == 0.35 and r["radius"] == 0.12
    assert "error" in call(s, "neighbours", i=-1)


def test_the_arrow_followed_from_the_start_is_the_one_nearest_the_middle():
    """Arrow 1 of the live seed starts in a corner, where its circle is cut into pieces by the
    wrapping edges: the page follows the arrow the session names, nearest the middle."""
    s = vs.VicsekSession()
    k = s.constants()["follow"]
    x = s.ens.state.x[0]  # update 0 of the live seed
    wrapped = [min(abs(a - 0.5), 1.0 - abs(a - 0.5)) for a in x.ravel()]  # per coordinate, the short way
    dist = [float(np.hypot(wrapped[2 * i], wrapped[2 * i + 1])) for i in range(64)]
    assert dist[k] == min(dist) and dist.index(min(dist)) == k
    assert dist[k] + 0.12 < 0.5  # its whole circle (radius 0.12) clears the edges
    call(s, "step", n=40)
    assert s.constants()["follow"] == k  # the start's, whatever the run has done since


def test_no_aim_is_given_while_a_students_rule_runs(s):
    """The stage's aim and kick wedge are the original rule's turn: with a student's rule (here
    kicks three times as strong) they showed what the arrows do not do; the rule is not called
    again for them (a rule that keeps state would change the run)."""
    assert call(s, "neighbours", i=5)["turn_to"] is not None
    calls = []
    s.op_rules(code="def turn(i, j, d, r, theta, a, kick):\n    return theta + 3 * kick\n")
    rule = s.ens.turn
    s.ens.turn = lambda *args: calls.append(1) or rule(*args)
    r = call(s, "neighbours", i=5)
    assert r["turn_to"] is None and r["neighbours"] is not None and calls == []
    s.ens.turn = rule
    s.op_rules_original()
    assert call(s, "neighbours", i=5)["turn_to"] is not None


def test_check_ops(s):
    assert "error" in call(s, "check_advance", updates=5)
    assert "error" in call(s, "check_result")
    assert "error" in call(s, "check_start", mode="parallel")
    st = call(s, "check_start", mode="batched", warmup=20, measure=10)
    assert st["progress"] == 0.0 and st["done"] is False and st["total"] == 30
    assert "error" in call(s, "check_result")
    assert "error" in call(s, "check_advance", updates=0)
    r = call(s, "check_advance", updates=12)
    assert r == {"progress": pytest.approx(0.4), "done": False}
    r = call(s, "check_advance", updates=100)
    assert r == {"progress": 1.0, "done": True}
    res = call(s, "check_result")
    shown = res.pop("shown")  # the numbers as the page writes them: Python's .3f, ties to even
    assert res == json.loads(json.dumps(vicsek.run_check("batched", warmup=20, measure=10)))
    assert shown["mean"] == {k: f"{v:.3f}" for k, v in res["mean"].items()}
    assert [r["a1"] for r in shown["seeds"]] == [f"{r['a1']:.3f}" for r in res["seeds"]]
    assert shown["range"]["a0"] == [f"{v:.3f}" for v in res["range"]["a0"]]
    res["shown"] = shown
    assert [row["seed"] for row in res["seeds"]] == list(vicsek.CHECK_SEEDS)
    # serial mode gives the same numbers; the live stage was untouched
    call(s, "check_start", mode="serial", warmup=20, measure=10)
    while not call(s, "check_advance", updates=97)["done"]:
        pass
    assert call(s, "check_result") == res
    assert call(s, "state")["t"] == 0


def test_session_via_registry():
    from swarmlab import sessions

    assert sessions.create("vicsek").lab == "vicsek"


def test_display_carries_the_p_plots_window_and_words(s):
    """The P plot's window and words come from the session (op_layout's display), its series
    label from the readout: the history the plot draws keeps at least that many updates."""
    d = call(s, "layout")["display"]
    (plot,) = d["charts"]
    readouts = {r["key"]: r for r in d["readouts"]}
    assert plot["window"] == vs.CHART_WINDOW and f"last {vs.CHART_WINDOW} updates" in plot["title"]
    assert plot["series"] == [{"key": "P", "label": readouts["P"]["label"], "axis": "left"}]
    # its axes are named as the other labs' charts name theirs: P, and the update readout's word
    assert plot["axes"] == {"left": "P"} and plot["x_label"] == readouts["t"]["label"] == "update"
    assert plot["baseline"]
    level = plot["level"]  # the dashed line: its value is one of the layout's constants
    assert level["label"] and level["decimals"] >= 0
    consts = call(s, "layout")["constants"]
    assert consts[level["constant"]] == pytest.approx(metrics.random_polarization(consts["n"]))
    call(s, "step", n=vs.CHART_WINDOW + 5)
    h = call(s, "history")
    assert h["t"][-1] - h["t"][0] >= vs.CHART_WINDOW  # one sample per update, enough to fill it


def test_the_stage_is_searched_once_per_state(monkeypatch):
    """The page reads the followed arrow's neighbourhood every frame, and Describe the groups:
    one search per state serves both; after a step or a restart the reads search again."""
    from swarmlab import cells
    from swarmlab.sessions.vicsek import VicsekSession

    s = VicsekSession()
    real = cells.neighbour_pairs
    calls = []
    monkeypatch.setattr(cells, "neighbour_pairs", lambda *a, **k: calls.append(1) or real(*a, **k))

    def searches(fn, *args):  # how many searches one read makes
        before = len(calls)
        out = fn(*args)
        return out, len(calls) - before

    first, n = searches(s.op_neighbours, 3)
    assert n == 1
    assert searches(s.op_neighbours, 3) == (first, 0)
    assert searches(s.op_neighbours, 5)[1] == 0 and searches(s.op_describe)[1] == 0
    s.op_step(1)  # (the update searches for itself)
    moved, n = searches(s.op_neighbours, 3)
    assert n == 1 and searches(s.op_describe)[1] == 0
    fresh = VicsekSession()  # the same state searched afresh gives the same neighbourhood
    fresh.op_step(1)
    assert fresh.op_neighbours(3) == moved
    s.op_reset()
    assert searches(s.op_neighbours, 3)[1] == 1


def test_an_update_takes_the_pairs_the_page_read_of_its_state(monkeypatch):
    """While the page follows an arrow it reads each new state's neighbourhood, and the next
    update of that state takes those pairs: one search per update, and the run is the run of
    a session nobody reads (the neighbourhoods are put in canonical order either way)."""
    from swarmlab import cells
    from swarmlab.sessions.vicsek import VicsekSession

    read, alone = VicsekSession(), VicsekSession()
    real = cells.neighbour_pairs
    calls = []
    monkeypatch.setattr(cells, "neighbour_pairs", lambda *a, **k: calls.append(1) or real(*a, **k))
    for _ in range(30):  # a frame: read the followed arrow, then one update
        read.op_neighbours(7)
        read.op_step(1)
    assert len(calls) == 30  # the reads' searches only: every update took its state's pairs
    alone.op_step(30)
    assert np.array_equal(read.ens.state.x, alone.ens.state.x)
    assert np.array_equal(read.ens.state.theta, alone.ens.state.theta)
    # a (the knob) is not part of the search: pairs read before a change of a are taken after it
    read.op_neighbours(7)
    read.op_set("a", 0.5)
    before = len(calls)
    read.op_step(1)
    assert len(calls) == before
    alone.op_set("a", 0.5)
    alone.op_step(1)
    assert np.array_equal(read.ens.state.theta, alone.ens.state.theta)
    # a new state (a restart) is searched afresh, whatever was read before it
    read.op_neighbours(7)
    read.op_reset()
    before = len(calls)
    read.op_step(1)
    assert len(calls) == before + 1


def test_a_link_carries_the_knob():
    from swarmlab.sessions.vicsek import VicsekSession
    s = VicsekSession()
    s.op_set("a", 0.25)
    assert s.op_link() == {"values": {"a": 0.25}, "extra": {}}
