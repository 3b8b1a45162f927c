"""Lab 3 session (what the page drives) and the ``boids`` command line."""

import csv
import io
import json
import math
from dataclasses import replace

import numpy as np
import pytest

from swarmlab import boids as B
from swarmlab import cells, cli, metrics, scaling, sessions
from swarmlab.commands import boids as boids_cmd
from swarmlab.sessions.boids import FRAME_HEADER, SAMPLE_INTERVAL_STEPS, BoidsSession, new_history
from swarmlab.space import distance


def call(s, method, **args):
    return json.loads(s.call(method, json.dumps(args)))


@pytest.fixture
def s():
    return sessions.create("boids")


def test_session_defaults_and_frame_layout(s):
    st = call(s, "state")
    assert st["N"] == 80 and st["t"] == 0
    assert st["params"]["k_sep"] == 1.5 and st["world"] == {"width": 160.0, "height": 100.0}
    f = s.frame()
    assert f.dtype == np.float32 and f.shape == (FRAME_HEADER + 4 * 80,)
    assert f[0] == 80 and f[1] == 0 and f[2] == 0
    body = f[FRAME_HEADER:].reshape(80, 4)
    np.testing.assert_allclose(body[:, :2], s.state.x, rtol=1e-6)
    np.testing.assert_allclose(body[:, 2:], s.state.v, rtol=1e-6)
    names = [p["name"] for p in s.dispatch("spec", {})]
    assert names[:4] == ["k_sep", "k_ali", "k_coh", "population"]


def test_set_is_live_no_restart(s):
    call(s, "step", n=40)
    x_before = s.state.x.copy()
    out = call(s, "set", name="k_ali", value=2.5)
    assert out["params"]["k_ali"] == 2.5 and out["t"] == pytest.approx(1.0) and out["N"] == 80
    assert np.array_equal(s.state.x, x_before)
    after = call(s, "step", n=40)
    assert after["t"] == pytest.approx(2.0) and after["N"] == 80
    # a slider string (from a URL) is accepted too
    assert call(s, "set", name="k_coh", value="0.35")["params"]["k_coh"] == 0.35


def test_bad_input_returns_error_and_changes_nothing(s):
    call(s, "step", n=10)
    before = call(s, "state")
    x = s.state.x.copy()
    for method, args in [
        ("set", {"name": "k_sep", "value": 7}), ("set", {"name": "k_sep", "value": "NaN"}),
        ("set", {"name": "nope", "value": 1}), ("population", {"n": 1}), ("population", {"n": 10**6}),
        ("preset", {"name": "chaos"}), ("step", {"n": -1}), ("step", {"n": 1.5}), ("step", {"n": True}),
        ("treat", {"x": float("inf"), "y": 1.0, "on": True}), ("treat", {"x": "a", "y": 1, "on": True}),
        ("treat", {"x": 1, "y": 1, "on": "maybe"}), ("reset", {"width": 0}), ("reset", {"k_ali": -1}),
        ("resize", {"width": 50, "height": 1e9}),
    ]:
        out = call(s, method, **args)
        assert "error" in out, (method, args)
    assert call(s, "state") == before and np.array_equal(s.state.x, x)
    assert "error" in json.loads(s.call("step", "[1]"))


def test_presets_are_live_and_balanced_restores_defaults(s):
    call(s, "step", n=20)
    out = call(s, "preset", name="separation")
    assert (out["params"]["k_sep"], out["params"]["k_ali"], out["params"]["k_coh"]) == (1.5, 0.0, 0.0)
    assert out["t"] == pytest.approx(0.5)
    out = call(s, "preset", name="cohesion")
    assert (out["params"]["k_sep"], out["params"]["k_ali"], out["params"]["k_coh"]) == (0.0, 0.0, 1.0)
    out = call(s, "preset", name="balanced")
    assert (out["params"]["k_sep"], out["params"]["k_ali"], out["params"]["k_coh"]) == (1.5, 1.0, 1.0)


def test_population_live_up_and_down(s):
    call(s, "step", n=20)
    x80 = s.state.x.copy()
    out = call(s, "population", n=2000)
    assert out["N"] == 2000 and out["t"] == pytest.approx(0.5) and out["params"]["population"] == 2000
    assert np.array_equal(s.state.x[:80], x80)
    assert s.frame().shape == (FRAME_HEADER + 4 * 2000,)
    out = call(s, "set", name="population", value=50)
    assert out["N"] == 50 and np.array_equal(s.state.ids, np.arange(50))


def test_reset_with_world_and_restart_semantics(s):
    call(s, "set", name="k_coh", value=2.0)
    call(s, "step", n=30)
    out = call(s, "reset", width=90.0, height=180.0, population=120)
    assert out["t"] == 0 and out["N"] == 120 and out["world"] == {"width": 90.0, "height": 180.0}
    assert out["params"]["k_coh"] == 2.0  # restart keeps the other settings
    assert np.all((s.state.x >= 0) & (s.state.x < [90.0, 180.0]))
    # the sample number is stored live and used at the next restart
    out = call(s, "set", name="sample", value=9)
    assert "notice" in out
    x_before = s.state.x.copy()
    call(s, "reset")
    assert not np.allclose(s.state.x, x_before)
    assert np.array_equal(s.state.x, B.initial_state(s.params).x)


def test_resize_stretches_live(s):
    call(s, "step", n=10)
    rel = s.state.x / [160.0, 100.0]
    out = call(s, "resize", width=100.0, height=160.0)
    assert out["t"] == pytest.approx(0.25) and out["world"] == {"width": 100.0, "height": 160.0}
    np.testing.assert_allclose(s.state.x / [100.0, 160.0], rel, rtol=1e-12)


def test_treat_through_the_session_gathers_then_releases(s):
    call(s, "step", n=200)
    out = call(s, "treat", x=-20.0, y=30.0, on=True)  # wrapped into the world
    assert out["treat"] == {"on": True, "x": 140.0, "y": 30.0}
    f = s.frame()
    assert f[2] == 1 and f[3] == 140.0 and f[4] == 30.0
    call(s, "step", n=480)  # hold for 12 model s: the far side of the world is 16 s away at full speed
    near = distance(s.state.x, np.array([140.0, 30.0]), s.params.box)
    assert np.mean(near < 16.0) >= 0.75
    out = call(s, "treat", x=140.0, y=30.0, on=False)
    assert out["treat"]["on"] is False and s.frame()[2] == 0
    call(s, "step", n=160)
    assert np.median(distance(s.state.x, np.array([140.0, 30.0]), s.params.box)) > 1.5 * np.median(near)


def test_metrics_shape_and_values(s):
    m = call(s, "metrics")
    assert set(m) == {"P", "spacing", "flocks", "in_flocks", "loners", "N", "t", "where"}
    assert isinstance(m["where"], str) and m["where"]  # the flocks readout's note (describe.flocks_where)
    assert 0 <= m["P"] <= 1 and m["spacing"] > 0 and m["N"] == 80
    assert isinstance(m["flocks"], int) and isinstance(m["loners"], int) and 0 <= m["loners"] <= 80
    assert isinstance(m["in_flocks"], int) and 5 * m["flocks"] <= m["in_flocks"] <= 80 - m["loners"]
    call(s, "population", n=2)
    call(s, "step", n=3)
    m = call(s, "metrics")
    assert m["N"] == 2 and m["flocks"] == 0  # two boids are never a flock (5 or more)
    call(s, "treat", x=50.0, y=50.0, on=True)
    call(s, "step", n=400)  # both end up at the treat, within the radius of each other
    assert call(s, "metrics")["loners"] == 0


def test_two_streams_passing_each_other_are_two_flocks():
    """The flocks readout links neighbours that also head alike (within FLOCK_LINK_DEG): two
    files of boids flying opposite ways, side by side well within the alignment range, are two
    flocks, where chains of distance alone would make one tangle of P = 0 and count none.  A
    file whose headings alternate by 60 degrees at each boid is no flock (no link is kept), and
    loners are counted by distance alone."""
    p = B.Params(population=40, width=160.0, height=100.0)
    k = np.arange(20)
    east = np.column_stack([20.0 + 3.0 * k, np.full(20, 50.0)])
    west = np.column_stack([20.0 + 3.0 * k, np.full(20, 54.0)])
    x = np.concatenate([east, west])
    v = np.concatenate([np.tile([4.5, 0.0], (20, 1)), np.tile([-4.5, 0.0], (20, 1))])
    st = B.BoidsState(x, v, np.arange(40, dtype=np.int64), 0, 40)
    m = B.measure(st, p)
    assert (m["flocks"], m["in_flocks"], m["loners"]) == (2, 40, 0)
    assert m["P"] < 1e-12
    # the old definition, chains of distance alone, sees one group of 40 with P = 0: no flock
    pairs = cells.neighbour_pairs(x, p.box, p.radius, sort=False)
    u = B.unit_headings(v)
    assert metrics.count_flocks(metrics.group_labels(pairs), u, B.FLOCK_MIN, B.FLOCK_AGREEMENT) == 0
    # headings turning 60 degrees from each boid to the next (a boid heads as the one 6 places
    # on, 18 lengths away, beyond the range) link nobody: no flock, though nobody is alone
    zig = (math.pi / 3) * (k % 6)
    st = B.BoidsState(east, 4.5 * np.column_stack([np.cos(zig), np.sin(zig)]), np.arange(20, dtype=np.int64), 0, 20)
    m = B.measure(st, p.with_values(population=20))
    assert (m["flocks"], m["in_flocks"], m["loners"]) == (0, 0, 0)
    # a bend, 15 degrees from one boid to the next over 20 boids (285 in all): every link
    # holds, but the group's own P is below FLOCK_AGREEMENT, so it does not fly one way
    bend = np.radians(15.0) * k
    st = B.BoidsState(east, 4.5 * np.column_stack([np.cos(bend), np.sin(bend)]), np.arange(20, dtype=np.int64), 0, 20)
    u = B.unit_headings(st.v)
    assert float(np.hypot(*u.mean(axis=0))) < B.FLOCK_AGREEMENT
    assert B.measure(st, p.with_values(population=20))["flocks"] == 0


def test_display_carries_the_readouts_and_chart_series_of_the_history(s):
    """The page's readout labels and chart series come from the session (op_layout's display),
    written from the history's own series: one place for each label."""
    d = call(s, "layout")["display"]
    history = call(s, "history")
    readouts = {r["key"]: r for r in d["readouts"]}
    assert list(readouts) == ["N", "t", "P", "spacing", "flocks"]
    assert set(readouts) <= set(call(s, "metrics"))  # every readout is a metric the page receives
    for key in ("P", "spacing", "flocks"):
        assert readouts[key]["label"] == history["labels"][key]
    assert readouts["spacing"]["unit"] == history["units"]["spacing"] == "lengths"
    assert readouts["t"]["unit"] == "s" and readouts["N"]["decimals"] == 0
    (chart,) = d["charts"]
    assert [x["key"] for x in chart["series"]] == ["P", "spacing"]
    assert [x["label"] for x in chart["series"]] == [history["labels"]["P"], history["labels"]["spacing"]]
    assert chart["axes"]["right"] == history["units"]["spacing"]
    assert {x["key"]: x["axis"] for x in chart["series"]} == {"P": "left", "spacing": "right"}


def test_state_reports_the_random_headings_level_for_the_current_population(s):
    """The chart caption's "P for headings at random" follows the population (E P = sqrt(pi) / (2 sqrt N)),
    and the constants carry the chart's sampling interval and a share link's world range."""
    expected = lambda n: math.sqrt(math.pi) / (2 * math.sqrt(n))  # noqa: E731
    assert call(s, "state")["baseline"] == pytest.approx(expected(80))
    assert call(s, "population", n=20)["baseline"] == pytest.approx(expected(20))
    assert call(s, "set", name="population", value=500)["baseline"] == pytest.approx(expected(500))
    assert call(s, "scale", n=3000)["baseline"] == pytest.approx(expected(3000))
    # the level is what random headings give: 4,000 draws of 80 headings
    th = np.random.default_rng(1).uniform(-math.pi, math.pi, size=(4000, 80))
    assert np.abs(np.exp(1j * th).mean(axis=1)).mean() == pytest.approx(expected(80), rel=0.03)
    c = call(s, "layout")["constants"]
    assert c["sample_seconds"] == pytest.approx(B.DT * 10)
    assert c["world_default"] == [B.WORLD_WIDTH, B.WORLD_HEIGHT] and c["world_range"] == [10.0, 2000.0]


# ----------------------------------------------------------------------------------------
# command line


@pytest.fixture
def only_boids(monkeypatch):
    """Run the real cli.main with just this lab's command registered."""
    monkeypatch.setattr(cli, "COMMANDS", ("boids",))


def test_cli_writes_csv_with_units_and_prints_summary(only_boids, tmp_path, capsys):
    out = tmp_path / "b.csv"
    rc = cli.main(["boids", "--sample", "3", "--seconds", "5", "--set", "k_ali=2", "--csv", str(out)])
    assert rc == 0
    line = capsys.readouterr().out.strip()
    assert "\n" not in line and "sample 3" in line and "k_ali=2" in line and "P=" in line
    rows = list(csv.reader(io.StringIO(out.read_text())))
    # the page's columns (the session's history: a CSV from the page and one from here match)
    page_header = next(csv.reader(io.StringIO(new_history().to_csv())))
    assert rows[0] == page_header == ["time (s)", "shared heading P (0 to 1)", "mean nearest spacing (lengths)",
                                      "flocks (count)", "event"]
    times = [float(r[0]) for r in rows[1:]]
    assert times[0] == 0 and times[-1] == pytest.approx(5.0) and len(times) == 21
    # the same run through the engine gives the same numbers
    p = B.Params(sample=3, k_ali=2.0)
    st = B.run(B.initial_state(p), p, 200)
    m = B.measure(st, p)
    assert float(rows[-1][1]) == pytest.approx(m["P"], rel=1e-5)
    assert int(rows[-1][3]) == m["flocks"] and f"flocks={m['flocks']};" in line


def test_cli_presets_differ_as_taught(only_boids, tmp_path):
    res = {}
    for preset in ("separation", "cohesion"):
        path = tmp_path / f"{preset}.csv"
        cli.main(["boids", "--seconds", "20", "--preset", preset, "--csv", str(path)])
        rows = list(csv.reader(io.StringIO(path.read_text())))
        res[preset] = float(rows[-1][2])
    assert res["separation"] > 3 * res["cohesion"]


@pytest.mark.parametrize("argv", [
    ["--set", "k_sep=9"], ["--set", "k_sep"], ["--set", "warp=1"], ["--sample", "-4"],
    ["--seconds", "0"], ["--seconds", "nan"], ["--preset", "chaos"], ["--set", "population=1.5"],
])
def test_cli_bad_values_exit_2_with_clear_message(only_boids, argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["boids", "--seconds", "1"] + argv)
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err


def test_cli_csv_to_stdout_keeps_summary_on_stderr(only_boids, capsys):
    assert cli.main(["boids", "--seconds", "1", "--csv", "-"]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("time (s),") and "P=" in cap.err


def test_cli_simulate_samples_every_quarter_second():
    h = boids_cmd.simulate(B.Params(), 1.0)
    assert h.times() == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])


def test_cli_samples_prints_the_goal_table(only_boids, capsys, monkeypatch):
    """--samples: one row per sample and which goals hold.  The CLI steps the samples together
    (``goal_rows``); its row of sample 3 is the row ``goal_row`` makes for sample 3 alone."""
    asked = []  # (samples, seconds, rows) of each goal_rows call the CLI makes
    real_goal_rows = B.goal_rows

    def goal_rows(params, samples, seconds=B.GOAL_SECONDS):
        rows = real_goal_rows(params, samples, seconds)
        asked.append((list(samples), seconds, [dict(r) for r in rows]))
        return rows

    monkeypatch.setattr(B, "goal_rows", goal_rows)
    assert cli.main(["boids", "--samples", "1,3", "--seconds", "63"]) == 0
    assert [(a[0], a[1]) for a in asked] == [([1, 3], 63.0)]  # one batch of both samples
    out = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in out if line.strip()[:1].isdigit()]
    assert [r[0] for r in rows] == ["1", "3"]
    monkeypatch.undo()
    want = B.goal_row(B.Params(sample=3), 63.0)  # one flock alone
    assert asked[0][2][1] == want
    assert rows[1][1:3] == [str(want["splits"]), str(want["turns"])]
    assert float(rows[1][4]) == pytest.approx(want["P"], abs=0.005) and rows[1][7] == str(want["clumps"])
    assert float(rows[1][8]) == pytest.approx(want["compact"], abs=0.005)
    assert out[-1].startswith("goals: splits >= 3:") and "one_clump" in out[-1]


@pytest.mark.parametrize("argv", [["--samples", "x"], ["--samples", "5-2"], ["--samples", "-3"],
                                  ["--samples", "1-2", "--csv", "-"]])
def test_cli_bad_samples_exit_2(only_boids, argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["boids", "--seconds", "1"] + argv)
    assert exc.value.code == 2 and "error" in capsys.readouterr().err


def test_chart_markers_name_settings_as_the_page_does():
    """A marker's text comes from the setting's spec (its label and unit, as the slider shows
    it: "separation k_sep" is the label) and a preset's from its button title."""
    s = sessions.create("boids")
    s.op_set("k_sep", 1.2)
    s.op_step(40)
    s.op_set("view", 360)
    s.op_step(40)
    s.op_preset("cohesion")
    labels = [m["label"] for m in s.op_history()["markers"]]
    assert labels == ["separation k_sep 1.20", "field of view 360 °", "preset: Cohesion only"]


def test_readouts_and_history_share_one_search_per_step(monkeypatch):
    """op_metrics (the page asks about four times a second) measures a step's flock once; a new
    step or a new setting measures again, and the numbers are those of boids.measure."""
    calls = []
    real = B.measure
    monkeypatch.setattr(B, "measure", lambda state, params, pairs=None: calls.append(state.steps) or real(state, params, pairs))
    s = sessions.create("boids")  # its history's first sample measures step 0
    first = s.op_metrics()
    assert s.op_metrics() == first and calls == [0]
    s.op_step(n=10)  # a history sample is due at step 10: the page's readout then reuses it
    assert calls == [0, 10], calls
    measured = lambda: {k: v for k, v in s.op_metrics().items() if k != "where"}  # noqa: E731 (the note is words)
    assert measured() == real(s.state, s.params) and calls == [0, 10]
    s.op_set(name="radius", value=12.0)
    assert measured() == real(s.state, s.params) and calls == [0, 10, 10]
    s.op_metrics()["P"] = -1.0  # a caller's copy: the cache keeps its own
    assert s.op_metrics()["P"] >= 0


def test_a_link_whose_speeds_clash_loses_its_speeds_only():
    """A lowest speed above the highest (each in range alone) is dropped from a link with a
    notice; the link's other settings stay (the page threw them all away for it)."""
    s = sessions.create("boids")
    got = s.op_parse_query({"population": "500", "k_sep": "2", "v_min": "10", "v_max": "5", "sample": "1.5"})
    assert got["values"] == {"population": 500, "k_sep": 2.0, "sample": 2}
    assert got["notices"][-1] == ("ignored v_min=10 and v_max=5: Minimum speed v_min (10 lengths/s) must not exceed "
                                  "maximum speed v_max (5 lengths/s)")
    # one speed against the session's other one
    got = s.op_parse_query({"v_min": "10", "k_ali": "0.5"})
    assert got["values"] == {"k_ali": 0.5} and got["notices"][0].startswith("ignored v_min=10: ")
    # speeds that fit are kept, and the reset the page then makes runs
    got = s.op_parse_query({"v_min": "10", "v_max": "20"})
    assert got == {"values": {"v_min": 10.0, "v_max": 20.0}, "notices": []}
    assert s.op_reset(**got["values"])["params"]["v_max"] == 20.0


def test_a_link_copied_at_ten_thousand_boids_opens_at_ten_thousand():
    """The scaling experiment's sizes exceed the population slider: a link copied at 10,000
    boids carried population=10000 and its grown world, and opened with the population cut to
    2,000 in that world (a fifth of the density), with a notice.  Now the link's size is kept
    and the restart takes it; a size beyond the experiment is still cut, with its notice."""
    s = BoidsSession()
    s.op_scale(10000)
    out = s.op_parse_query({"population": "10000"})  # (the page reads world= itself: parse_world)
    assert out["values"]["population"] == 10000 and not out["notices"], out
    t = BoidsSession()
    st = t.op_reset(**out["values"], width=s.params.width, height=s.params.height)
    assert st["N"] == 10000 and t.state.n == 10000
    assert (t.params.width, t.params.height) == (s.params.width, s.params.height)
    cut = BoidsSession().op_parse_query({"population": "20000"})
    assert cut["values"]["population"] == 2000 and cut["notices"], cut
    with pytest.raises(ValueError):
        BoidsSession().op_reset(population=1)  # below every range: refused, nothing changes
    small = BoidsSession()
    before = small.state.n
    with pytest.raises(ValueError, match="sky") as refused:  # 10,000 in the slider's sky: refused
        small.op_reset(population=10000)
    # (numbers this big with separators, as the page writes them)
    assert "10,000 boids need the scaling experiment's sky of at least 2,000,000 square lengths" in str(refused.value)
    assert "(the population slider goes to 2,000)" in str(refused.value)
    assert small.state.n == before


def test_the_run_keeps_its_own_sample_until_a_restart():
    """A sample typed for the next restart is not the run's: run_values (what a link that
    replays the run carries) keeps the run's own, through a snapshot and a restore too."""
    s = BoidsSession()
    s.op_set("sample", 7)
    st = s.op_state()
    assert st["params"]["sample"] == 7 and st["run_values"] == {"sample": 42}
    snap = s.op_snapshot()
    other = BoidsSession()
    assert other.op_restore(json.loads(json.dumps(snap)))["run_values"] == {"sample": 42}
    assert s.op_reset()["run_values"] == {"sample": 7}


def test_a_sampled_state_is_searched_once_for_its_measures_and_its_next_step(monkeypatch):
    """Search once, then reduce: the history's measurement of a sampled state takes the step's
    search of it (boids.search, within the reach), and the next step takes the same pairs, so a
    run searches once per step; the measures and the run are those of separate searches."""
    s = BoidsSession()
    p = s.params
    for kw in ({}, {"view": 360.0}, {"population": 300}):  # the measures from either search, bit for bit
        q = replace(p, **kw)
        st = B.initial_state(q)
        for _ in range(25):
            st = B.step(st, q)
            a, b = B.measure(st, q), B.measure(st, q, B.search(st, q))
            assert a.keys() == b.keys() and all(a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]) for k in a), (kw, a, b)
    real = cells.neighbour_pairs
    cutoffs = []
    monkeypatch.setattr(cells, "neighbour_pairs", lambda x, box, cutoff, *a, **k: cutoffs.append(cutoff) or real(x, box, cutoff, *a, **k))
    st0 = s.state
    steps = 10 * SAMPLE_INTERVAL_STEPS
    s.op_step(steps)
    assert cutoffs == [p.reach] * steps  # one search per step, none more for the 10 samples
    s.op_metrics()  # the readouts of the latest sample: no search either
    assert len(cutoffs) == steps
    assert len(s.history.to_dict()["t"]) >= 10
    monkeypatch.setattr(cells, "neighbour_pairs", real)
    ref = B.run(st0, p, steps)
    assert np.array_equal(s.state.x, ref.x) and np.array_equal(s.state.v, ref.v)
    assert s._measure() == B.measure(s.state, p)


def test_the_scaling_cost_times_every_steps_own_search(monkeypatch):
    """op_cost's rounds time each step's whole work: its search too, also where the history's
    measurement of a sampled state made that search already (the cost read 5-10 % low at some
    sizes when such a step reused it untimed)."""
    s = BoidsSession()
    real, calls, inside = cells.neighbour_pairs, [], [None]
    run = s._run

    def counted_run(k, *args):  # one record per call: [steps, searches made inside]
        inside[0] = [k, 0]
        try:
            run(k, *args)
        finally:
            calls.append(inside[0])
            inside[0] = None

    def counted_search(*a, **kw):
        if inside[0] is not None:
            inside[0][1] += 1
        return real(*a, **kw)

    monkeypatch.setattr(s, "_run", counted_run)
    monkeypatch.setattr(cells, "neighbour_pairs", counted_search)
    s.op_step(SAMPLE_INTERVAL_STEPS - scaling.WARM_UP_STEPS % SAMPLE_INTERVAL_STEPS)  # the warm-up ends on a sample
    calls.clear()
    s.op_cost(steps=40)
    warm = 0  # the warm-up's calls come first; the timed rounds' after them
    while warm < scaling.WARM_UP_STEPS:
        warm += calls.pop(0)[0]
    assert warm == scaling.WARM_UP_STEPS and sum(k for k, _ in calls) == 40
    assert all(searches == k for k, searches in calls), calls  # every timed step searched itself


def test_a_link_carries_the_settings_the_runs_sample_and_the_world():
    s = BoidsSession()
    s.op_set(name="k_ali", value=0.5)
    s.op_set(name="sample", value=9)  # for the next restart
    link = s.op_link()
    assert link["values"]["k_ali"] == 0.5 and link["values"]["sample"] == s.run_sample != 9
    assert set(link["values"]) == {spec.name for spec in B.SPECS}
    w, h = s.params.width, s.params.height
    assert link["extra"] == {"world": f"{round(w, 3):g}x{round(h, 3):g}"}
    s.op_resize(width=200.125, height=100)
    assert s.op_link()["extra"]["world"] == "200.125x100"


def test_the_scaling_experiment_returns_to_the_flocks_own_sky():
    """Every size's world takes the stage's shape, not the last size's rounded one: the way back
    from 10,000 boids missed a 160 x 100 sky by a thousandth (160.001 x 100), and so the run."""
    s = BoidsSession()
    for world in ({"width": 160.0, "height": 100.0}, {"width": 159.928, "height": 100.045}):
        s.op_reset(**world)
        for n in (10, 30, 100, 300, 1000, 3000, 10000, 80):
            s.op_scale(n)
        assert (s.params.width, s.params.height) == (world["width"], world["height"])
        s.op_scale(3000)  # ... and through a worker's restart in the middle of it
        t = BoidsSession()
        t.op_restore(json.loads(json.dumps(s.op_snapshot())))
        t.op_scale(80)
        assert (t.params.width, t.params.height) == (world["width"], world["height"])
