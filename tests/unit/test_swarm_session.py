"""Lab 1 session (the browser-facing object) and the ``swarm`` CLI command."""

import csv
import io
import json
import math
from dataclasses import replace

import numpy as np
import pytest

from swarmlab import cli, obstacles, sessions, swarm
from swarmlab.params import defaults
from swarmlab.sessions.swarm import HEADER, STRIDE, SwarmSession
from swarmlab.space import distance, wrap_angle


def small(**kw):
    kw.setdefault("N", 60)
    return SwarmSession(**kw)


def test_create_and_frame_layout():
    s = sessions.create("swarm")
    assert s.lab == "swarm" and s.SPECS is swarm.SPECS
    names = [d["name"] for d in s.dispatch("spec", {})]
    assert names == [p.name for p in swarm.SPECS]
    f = s.frame()
    assert f.dtype == np.float32 and f.shape == (HEADER + STRIDE * 150,)
    assert f[0] == 150 and f[1] == 0 and f[2] == 0 and f[5] == -1 and f[6] == 0 and f[7] == 0
    body = f[HEADER:].reshape(-1, STRIDE)
    np.testing.assert_allclose(body[:, :2], s.state.x, rtol=1e-6)
    np.testing.assert_allclose(body[:, 2], s.state.theta, rtol=1e-6)
    # the constants are published once, by the layout; the state (asked for often) carries only
    # what changes (it repeated all of them)
    assert s.dispatch("layout", {})["constants"]["dt"] == swarm.DT
    assert "constants" not in s.dispatch("state", {})


def test_bad_input_gives_error_and_changes_nothing():
    s = small()
    before = s.frame().copy()
    vals = dict(s.values)
    for method, args in [("set", {"name": "R", "value": 1000}), ("set", {"name": "bogus", "value": 1}),
                         ("set", {"name": "k", "value": "2.5"}), ("reset", {"R": "nan"}),
                         ("step", {"n": -1}), ("step", {"n": 1.5}), ("population", {"n": 0}),
                         ("restart_trial", {"trial": "x"}), ("select", {"index": 999}),
                         ("step", {"m": 3})]:
        out = json.loads(s.call(method, json.dumps(args)))
        assert "error" in out, (method, args)
    assert np.array_equal(s.frame(), before) and s.values == vals


def test_rule_toggle_changes_nothing_before_next_step():
    a, b = small(), small()
    a.op_step(120)
    b.op_step(120)
    frame = a.frame().copy()
    out = a.op_set("alignment", False)
    assert out["changed"] and out["applies"] == "now"
    assert np.array_equal(a.frame(), frame)  # nothing moved
    assert a.values["w_a"] == 1.0  # the weight control keeps its value
    assert a.history.markers[-1] == (120, "alignment off")
    a.op_step(1)
    b.op_step(1)
    assert not np.array_equal(a.state.theta, b.state.theta)  # ... but the next step differs


def test_setting_change_updates_local_statistics_at_once():
    s = small(N=120)
    s.op_step(300)
    x = s.state.x.copy()
    m1 = s.op_metrics()
    s.op_set("R", 2.0)
    m2 = s.op_metrics()
    assert np.array_equal(s.state.x, x)
    assert m1["P"] == m2["P"] and m1["local"] != m2["local"]


def test_playback_speed_invariance_across_chunkings():
    runs = []
    for chunks in ([600], [1] * 600, [7, 13, 280, 1, 299]):
        s = small(sigma=40.0)
        done = 0
        for c in chunks:
            if done < 300 <= done + c:  # the same live change at the same model step in every run
                s.op_step(300 - done)
                s.op_set("cohesion", False)
                c -= 300 - done
                done = 300
            s.op_step(c)
            done += c
        runs.append(s)
    for s in runs[1:]:
        assert np.array_equal(s.frame(), runs[0].frame())
        assert s.history.to_dict() == runs[0].history.to_dict()
    assert runs[0].state.step == 600 and len(runs[0].history) == 41


def test_five_minute_pause_and_continue():
    s = small(N=20)
    s.state = replace(s.state, step=swarm.TIME_LIMIT_STEPS - 10)  # jump near the limit (skips 5 minutes of steps)
    out = s.op_step(100)
    assert out["steps_done"] == 10 and out["paused_at_limit"] and out["t"] == pytest.approx(300.0)
    assert s.frame()[7] == 1.0
    assert s.op_step(5)["steps_done"] == 0
    n_hist = len(s.history)
    st = s.op_continue()
    assert not st["paused_at_limit"] and st["t"] == pytest.approx(300.0)
    out = s.op_step(30)
    assert out["steps_done"] == 30 and not out["paused_at_limit"]
    assert len(s.history) == n_hist + 2  # same history, still growing


def test_turn_one_only_selected():
    s = small()
    s.op_step(30)
    x0, th0 = s.state.x.copy(), s.state.theta.copy()
    sel = s.op_select(index=12)
    assert sel == {"index": 12, "id": 12}
    s.op_turn_one()
    changed = np.flatnonzero(s.state.theta != th0)
    assert changed.tolist() == [12]
    assert wrap_angle(s.state.theta[12] - th0[12]) == pytest.approx(math.radians(60))
    assert np.array_equal(s.state.x, x0) and s.state.step == 30
    assert s.history.markers[-1][1] == "turned one (individual 13)"
    # with nothing selected it picks the lowest ID and says so
    s.op_select()
    out = s.op_turn_one()
    assert out["id"] == 0 and s.selected_id == 0


def test_select_by_places_counts_every_press():
    """Next/previous move from the engine's own selection: five quick presses are five places,
    whatever frame the page last drew; from none selected, next is the first, previous the last."""
    s = small()
    n = s.state.n
    assert s.op_select(by=1)["index"] == 0
    for _ in range(5):
        s.op_select(by=1)
    assert s._selected_index() == 5
    s.op_select()
    assert s.op_select(by=-1)["index"] == n - 1
    assert s.op_select(by=2)["index"] == 1  # wraps round
    for bad in (0.5, "1", True, 10**9, 0):
        with pytest.raises(ValueError, match="by must be a whole number"):
            s.op_select(by=bad)
    with pytest.raises(ValueError, match="not several"):
        s.op_select(by=1, index=3)


def test_a_link_names_the_trial_its_own_settings_hold_for():
    """The link carries the run's start (run_values): a start chosen for the next restart does
    not drop the trial from it, though a restart would leave the trial."""
    s = SwarmSession()
    s.op_start_trial("no-shared-direction")
    s.op_set("start", "cluster")
    assert s.op_link()["extra"] == {"trial": "no-shared-direction"}
    assert s.op_link()["values"]["start"] != "cluster"  # the run's own start
    s.op_set("sigma", 40)  # a live change the trial allows
    assert s.op_link()["extra"] == {"trial": "no-shared-direction"}
    s.op_reset()  # the restart takes the cluster start: no longer that trial
    assert s.op_state()["trial"] is None and s.op_link()["extra"] == {}


def test_select_by_point():
    s = small()
    i = 17
    x, y = s.state.x[i]
    assert s.op_select(x=float(x) + 0.3, y=float(y) - 0.2)["index"] == i
    empty_spot = None
    for cand in np.array([[a, b] for a in range(0, 160, 5) for b in range(0, 100, 5)], float):
        if distance(cand[None], s.state.x, swarm.BOX).min() > 6:
            empty_spot = cand
            break
    assert empty_spot is not None
    assert s.op_select(x=float(empty_spot[0]), y=float(empty_spot[1])) == {"index": None, "id": None}
    # the largest tap radius the page may ask for is the one the session publishes
    top = s.constants()["select_radius_max"]
    assert s.op_select(x=float(x), y=float(y), radius=top)["index"] is not None
    with pytest.raises(ValueError, match=f"radius must be a number in \\(0, {top:g}\\]"):
        s.op_select(x=float(x), y=float(y), radius=top * 1.01)


def test_selected_panel_matches_neighbourhood():
    s = small(N=150)
    s.op_step(240)
    s.op_select(index=40)
    v = s.op_selected()
    p = s.params
    i = 40
    u = s.state.u
    soc, per, near = set(), set(), set()
    for j in range(s.state.n):
        if j == i:
            continue
        d = _mi(s.state.x[i], s.state.x[j])
        r = math.hypot(*d)
        if r < swarm.PERSONAL:
            per.add(j)
        if r <= p.R and np.dot(u[i], d) >= math.cos(math.radians(135)) * r:
            soc.add(j)
        if r <= 1.5 * p.R:
            near.add(j)
    assert set(v["social"]) == soc and set(v["personal"]) == per
    assert set(v["excluded"]) == near - soc - per
    total = np.sum([v["vectors"][k] for k in swarm.Steering.NAMES], axis=0)
    np.testing.assert_allclose(total, v["vectors"]["total"], atol=1e-12)
    assert v["id"] == 40 and isinstance(v["text"], str) and v["text"]
    json.loads(s.call("selected"))  # JSON-able
    # the panel's rows are the session's urges: one per steering vector, in the engine's order
    urges = s.display()["urges"]
    assert [u["key"] for u in urges] == [k for k in v["vectors"] if k != "total"] == list(swarm.Steering.NAMES)
    assert all(isinstance(u["label"], str) and u["label"] for u in urges)


def _mi(a, b):
    """Minimum image from a to b, written independently of space.displacement."""
    d = np.asarray(b, float) - np.asarray(a, float)
    size = swarm.BOX.size
    return d - size * np.round(d / size)


def test_panel_waiting_for_first_neighbourhood_and_none():
    s = small(N=1)
    assert s.op_selected() is None
    s.op_select(index=0)
    v = s.op_selected()
    assert v["social"] == [] and v["text"].startswith("Waiting for the first neighbourhood")
    m = json.loads(s.call("metrics"))
    assert m["local"] is None  # NaN becomes null in JSON


def test_slider_drag_leaves_one_marker_but_switches_each_leave_one():
    s = small()
    s.op_step(30)
    for v in (1.6, 1.7, 1.8, 2.4):  # a drag of the separation weight while paused
        s.op_set("w_s", v)
    s.op_step(10)
    s.op_set("w_s", 2.5)  # 10 steps later: still the same drag
    s.op_set("alignment", False)
    s.op_set("alignment", True)  # switches are never merged
    s.op_step(40)
    s.op_set("w_s", 1.0)  # a new change
    s.op_population(70)
    s.op_population(80)
    labels = [(round(m["t"] * 60), m["label"]) for m in s.op_history()["markers"]]
    assert labels == [(30, "separation weight 2.5"), (40, "alignment off"), (40, "alignment on"),
                      (80, "separation weight 1.0"), (80, "population 80 animals")]


def test_population_ops_and_selection():
    s = small(N=30)
    s.op_select(index=29)
    out = s.op_set("N", 40)
    assert out["added"] == 10 and s.state.n == 40 and s.selected_id == 29
    s.op_population(25)
    assert s.state.ids.tolist() == list(range(25)) and s.selected_id is None
    assert s.history.markers[-1][1] == "population 25 animals"
    assert s.frame()[0] == 25


def test_obstacle_set_displaces_and_marks():
    s = small(N=300, start="scattered")
    d = obstacles.discs("passage")
    was_inside = obstacles.inside(s.state.x, d, swarm.BOX)
    out = s.op_set("obstacle", "passage")
    assert sorted(out["moved"]) == np.flatnonzero(was_inside).tolist() and out["moved"]
    assert not np.any(obstacles.inside(s.state.x, d, swarm.BOX))
    assert s.history.markers[-1][1].startswith("obstacle: a narrow passage")
    assert s.frame()[6] == 2


def test_threat_in_frame_and_expires():
    s = small()
    s.op_select(index=3)
    out = s.op_threat()
    f = s.frame()
    assert f[2] == 1 and (f[3], f[4]) == pytest.approx((out["x"], out["y"]), abs=1e-4)
    s.op_step(swarm.THREAT_STEPS)
    assert s.frame()[2] == 0 and not s.op_state()["threat_active"]
    assert s.state.n == 60


def test_restart_and_trials_keep_sample_and_appearance():
    s = small(sample=7, appearance="fish")
    s.op_step(10)
    out = s.op_restart_trial("rules-matter")
    assert out["t"] == 0 and out["trial"] == "rules-matter" and out["trial_info"]["title"] == "Rules matter"
    assert s.values["separation"] is False and s.values["alignment"] is False and s.values["cohesion"] is False
    assert s.values["sample"] == 7 and s.values["appearance"] == "fish" and s.values["N"] == 150
    assert [t["id"] for t in s.op_trials()] == [t.id for t in swarm.TRIALS]
    # restart replays exactly
    s.op_step(50)
    f1 = s.frame().copy()
    s.op_reset()
    s.op_step(50)
    assert np.array_equal(s.frame(), f1)
    # sample is restart-only
    r = s.op_set("sample", 8)
    assert r["applies"] == "restart" and s.state.sample == 7
    assert r["notice"] == "Sample 8 will be used when you press Restart."
    assert s.op_set("start", "scattered")["notice"] == "Start “scattered over the world” will be used when you press Restart."
    # the run's own restart-only values (what a link that replays it carries) stay the run's
    assert s.op_state()["run_values"] == {"sample": 7, "start": "cluster"}
    assert s.op_state()["params"]["start"] == "scattered"
    s.op_set("start", "cluster")
    s.op_reset()
    assert s.state.sample == 8
    assert s.op_state()["run_values"] == {"sample": 8, "start": "cluster"}


def test_history_and_csv():
    s = small()
    s.op_step(30)
    s.op_set("sigma", 30)
    s.op_step(45)
    h = s.op_history()
    assert h["t"] == pytest.approx([0, 0.25, 0.5, 0.75, 1.0, 1.25])
    assert h["markers"] == [{"t": pytest.approx(0.5), "label": "uncertainty 30 °/√s"}]
    inc = s.op_history(since=1.0, version=h["version"])
    assert inc["t"] == pytest.approx([1.25]) and not inc["full"]
    rows = list(csv.reader(io.StringIO(s.op_csv())))
    assert rows[0][0] == "time (s)" and "mean nearest spacing (lengths)" in rows[0]
    assert any(r[-1] == "uncertainty 30 °/√s" for r in rows[1:])
    json.loads(s.call("history"))


def test_cli_runs_and_writes_csv(tmp_path, capsys):
    out = tmp_path / "run.csv"
    rc = cli.main(["swarm", "--sample", "3", "--seconds", "2", "--set", "N=40", "--set", "alignment=off",
                   "--csv", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert text.startswith("swarm sample 3 with alignment=off: 2 s (120 steps), N=40")  # what made the CSV
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0][0] == "time (s)" and len(rows) == 1 + 9
    # a setting the run cannot use is named, not silently dropped
    assert cli.main(["swarm", "--seconds", "0.5", "--set", "k=3", "--set", "R=12.5"]) == 0
    got = capsys.readouterr()
    assert "with R=12.5, k=3:" in got.out and "k (nearest few) applies only with --set mode=nearest" in got.err
    assert cli.main(["swarm", "--seconds", "0.5", "--set", "k=3", "--set", "mode=nearest"]) == 0
    got = capsys.readouterr()
    assert "with mode=nearest, k=3:" in got.out and "applies only" not in got.err
    assert cli.main(["swarm", "--seconds", "0.5"]) == 0
    assert "swarm sample 42 with the defaults:" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["swarm", "--seconds", "0"], ["swarm", "--set", "R=99"],
                                  ["swarm", "--set", "R"], ["swarm", "--sample", "-4"],
                                  ["swarm", "--trial", "nope"], ["swarm", "--seconds", "abc"]])
def test_cli_bad_values_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err


def test_plain_restart_keeps_a_trial_only_while_its_settings_hold():
    """Restart begins again with the settings on screen: inside a trial it stays the trial's
    run while the trial's own settings hold, and leaves the trial once they do not."""
    s = small()
    s.op_restart_trial("passage")
    s.op_set("sigma", 40)
    assert s.op_reset()["trial"] == "passage"  # a raised uncertainty is still the passage trial
    s.op_set("obstacle", "none")
    assert s.op_state()["trial"] == "passage"  # the run on screen is still the trial's
    st = s.op_reset()
    assert st["trial"] is None and st["params"]["obstacle"] == "none"
    s.op_set("obstacle", "passage")
    assert s.op_reset()["trial"] is None  # leaving a trial is final: its card starts it again
    # a trial with no settings of its own is kept by any restart
    s.op_restart_trial("take-one-away")
    s.op_set("alignment", False)
    assert s.op_reset()["trial"] == "take-one-away"


def test_start_trial_takes_a_links_settings_and_leaves_out_what_contradicts_the_trial():
    """A trial link (op_start_trial): the defaults, the trial's own settings, then the link's
    other settings; one that contradicts the trial is left out and the reply says so in the
    chart markers' words.  A trial card (op_restart_trial) is the same start, keeping the
    run's sample and appearance."""
    s = small()
    s.op_set("sigma", 30)  # the run before does not leak into the trial's start
    st = s.op_start_trial("rules-matter", R=12)
    assert st["trial"] == "rules-matter" and st["params"]["R"] == 12 and "left_out" not in st
    assert st["params"]["sigma"] == swarm.SPEC_BY_NAME["sigma"].default
    assert (st["params"]["separation"], st["params"]["alignment"], st["params"]["cohesion"]) == (False,) * 3
    assert st["trial_info"]["settings_text"] == "separation off, alignment off, cohesion off"
    st = s.op_start_trial("passage", obstacle="circle", sigma=20)
    assert st["trial"] == "passage" and st["params"]["obstacle"] == "passage" and st["params"]["sigma"] == 20
    assert st["left_out"] == ("The trial “Narrow passage” begins with obstacle: a narrow passage, "
                              "so “obstacle: a circle” was left out.")
    assert s.op_link()["extra"] == {"trial": "passage"}
    s.op_step(10)
    before = s.op_state()
    for bad in ({"trial": "passage", "sigma": -5}, {"trial": "nope"}, {"trial": 3}, {"trial": "passage", "colour": 1}):
        with pytest.raises(ValueError):
            s.op_start_trial(**bad)
    assert s.op_state() == before  # nothing changed
    assert "trial" in json.loads(s.call("reset", json.dumps({"trial": "passage"})))["error"]  # reset starts no trial


def test_a_link_carries_the_run_and_names_a_trial_only_while_it_holds():
    """op_link: the live settings with the run's own sample and start (a sample typed for the
    next restart is not this run's), and the trial while those values still include its own."""
    s = SwarmSession()
    s.op_start_trial("passage", sigma=20)
    link = s.op_link()
    assert link["values"] == {**s.values, **s.run_values} and link["extra"] == {"trial": "passage"}
    s.op_set("sample", 9)  # for the next restart: the link still replays this run
    assert s.op_link()["values"]["sample"] == s.run_values["sample"] != 9
    s.op_set("obstacle", "none")  # the run on screen stays the trial's, but a link would contradict it
    link = s.op_link()
    assert link["extra"] == {} and link["values"]["obstacle"] == "none"
    assert json.loads(s.call("link"))["values"]["sigma"] == 20


def test_one_rule_starts_a_trial_for_the_page_and_the_command_line():
    """swarm.Trial.start_values is the one rule; its words are the chart markers' (ParamSpec.marker)."""
    tr = swarm.trial("rules-matter")
    values, left_out = tr.start_values({"alignment": True, "N": 90})
    assert left_out == {"alignment": True} and values["alignment"] is False and values["N"] == 90
    assert tr.holds(values) and not tr.holds({**values, "cohesion": True})
    assert tr.settings_text == ", ".join(swarm.SPEC_BY_NAME[k].marker(False) for k in ("separation", "alignment", "cohesion"))
    for t in swarm.TRIALS:
        v, lo = t.start_values({})
        assert lo == {} and t.holds(v) and v == {**defaults(swarm.SPECS), **t.own}


def test_population_by_adds_to_the_population_the_engine_has():
    """The page's Add 10 / Remove 10 send {by}: quick presses queued in the worker all count
    (each reads the population left by the one before), kept within N's range."""
    s = small()
    n0 = s.state.n
    for _ in range(5):
        out = json.loads(s.call("population", json.dumps({"by": 10})))
        assert "error" not in out, out
    assert s.state.n == n0 + 50 and s.values["N"] == n0 + 50 and out["N"] == n0 + 50
    assert json.loads(s.call("population", json.dumps({"by": -3})))["N"] == n0 + 47
    spec = swarm.SPEC_BY_NAME["N"]
    assert json.loads(s.call("population", json.dumps({"by": -10 * spec.max})))["error"]  # beyond any range
    assert json.loads(s.call("population", json.dumps({"by": -spec.max})))["N"] == spec.min  # clamped
    assert json.loads(s.call("population", json.dumps({"by": spec.max})))["N"] == spec.max
    for bad in ({"by": 1.5}, {"by": "x"}, {"by": float("nan")}, {}, {"n": 5, "by": 1}):
        before = s.state.n
        out = json.loads(s.call("population", json.dumps(bad)))
        assert "error" in out and s.state.n == before, (bad, out)


def test_panel_text_names_beyond_k_as_a_reason_only_in_nearest_few_mode():
    """SPEC (Display): excluded means outside the field of view, beyond k, or out of range.
    In nearest-few mode with a small k most ignored animals are ignored for being beyond k."""
    zero = {name: [0.0, 0.0] for name in swarm.Steering.NAMES}
    push = dict(zero, alignment=[0.3, 0.0])
    near = swarm.SwarmParams.from_values(mode="nearest", k=7, R=5)
    text = swarm.describe(near, 7, 0, 13, push)
    assert "ignores 13 more within" in text and "(out of view, out of range or beyond the nearest 7)" in text, text
    ranged = swarm.SwarmParams.from_values(R=5)
    text = swarm.describe(ranged, 7, 0, 13, push)
    assert "(out of view or range)" in text and "nearest" not in text, text
    # nobody sensed at all: then none is beyond k, in either mode
    assert swarm.describe(near, 0, 0, 3, zero).endswith("(3 nearby but out of view or range).")
