"""The spoken summaries (swarmlab/describe.py) and op_describe in every session.

Oracles: hand-built states whose shape is known (two separated clusters, one cluster
heading a known way), direct loops for the groups, and the sessions' own metrics for
the numbers the text must quote.
"""

import math
import re

import numpy as np
import pytest

from swarmlab import boids, cells, describe, metrics, sessions, swarm
from swarmlab.space import Box


def test_compass_words():
    assert describe.compass(0.0) == "east"
    assert describe.compass(math.pi / 4) == "north-east"
    assert describe.compass(math.pi / 2) == "north"
    assert describe.compass(-math.pi / 2) == "south"
    assert describe.compass(math.pi) == "west"
    assert describe.compass(-math.pi) == "west"
    assert describe.compass(3 * math.pi / 4 + 0.3) == "north-west"
    assert describe.compass(-math.pi / 4 - 0.1) == "south-east"
    # the sector edges are halfway between the words
    assert describe.compass(math.pi / 8 - 1e-6) == "east"
    assert describe.compass(math.pi / 8 + 1e-6) == "north-east"


def _groups_by_loops(x, box, r, u, min_size):
    """Breadth-first search over all pairs within r (the oracle for describe.groups)."""
    n = len(x)
    d = np.array([[math.dist((0, 0), tuple(((x[j] - x[i] + box.size / 2) % box.size) - box.size / 2))
                   for j in range(n)] for i in range(n)])
    seen, out = set(), []
    for s in range(n):
        if s in seen:
            continue
        comp, todo = [], [s]
        seen.add(s)
        while todo:
            i = todo.pop()
            comp.append(i)
            for j in range(n):
                if j != i and j not in seen and d[i, j] <= r:
                    seen.add(j)
                    todo.append(j)
        if len(comp) >= min_size:
            m = u[comp].mean(axis=0)
            out.append((len(comp), float(np.hypot(*m))))
    return sorted(out, key=lambda g: -g[0])


def test_groups_match_breadth_first_search():
    rng = np.random.default_rng(5)
    box = Box(40.0, 30.0)
    x = np.concatenate([rng.uniform(0, 6, (20, 2)) + [3, 3], rng.uniform(0, 4, (9, 2)) + [25, 18],
                        rng.uniform(0, 40, (6, 2)) * [1, 0.75]])
    th = rng.uniform(-math.pi, math.pi, len(x))
    u = np.column_stack([np.cos(th), np.sin(th)])
    pairs = cells.neighbour_pairs(x, box, 2.5)
    got = describe.groups(metrics.group_labels(pairs), u)
    want = _groups_by_loops(x, box, 2.5, u, describe.GROUP_MIN)
    assert [g["size"] for g in got] == [w[0] for w in want]
    assert [g["agreement"] for g in got] == pytest.approx([w[1] for w in want], abs=1e-12)


def test_shape_phrases():
    one = [{"size": 140, "agreement": 0.9, "heading": math.pi / 4}]
    text, key, angle = describe.shape_phrase(150, one, "animals")
    assert text == "150 animals, mostly in one group heading north-east"
    # the heading is not in the key (a heading wavering across a compass word's boundary would
    # make every summary news): the page compares the angle, in degrees, east = 0, counterclockwise
    assert key == ("one", "headed") and angle == 45.0
    text, _, angle = describe.shape_phrase(150, [{"size": 150, "agreement": 0.9, "heading": 0.0}], "animals")
    assert text == "150 animals, all in one group heading east" and angle == 0.0
    # Lab 3 keeps screen coordinates: +y is south
    text, _, angle = describe.shape_phrase(80, [{"size": 80, "agreement": 0.9, "heading": math.pi / 2}], "boids", y_down=True)
    assert text.endswith("heading south") and angle == 270.0
    two = [{"size": 60, "agreement": 0.2, "heading": 0.3}, {"size": 30, "agreement": 0.95, "heading": 0.0}]
    text, key, angle = describe.shape_phrase(100, two, "animals")
    assert text == "100 animals in 2 groups; the largest has 60 animals, heading many ways; 10 on their own"
    assert key == ("many", 2, "many ways") and angle is None
    text, key, _ = describe.shape_phrase(100, two[:1], "animals", milling=0.7)
    assert "circling" in text and "one group of 60" in text and key == ("one-part", "circling")
    assert describe.shape_phrase(5, [], "animals")[0] == "5 animals, scattered, none in a group"
    assert describe.shape_phrase(1, [], "animals")[0].startswith("1 animal,")


def test_trend_words_and_window():
    t = [0.25 * k for k in range(200)]  # 50 s
    rising = [k / 200 for k in range(200)]
    tr = describe.trend(t, rising)
    assert tr["word"] == "rising" and tr["span"] == pytest.approx(10.0)
    assert tr["then"] == pytest.approx(rising[t.index(t[-1] - 10.0)])
    assert describe.trend(t, [0.5] * 200)["word"] == "steady"
    assert describe.trend(t, rising[::-1])["word"] == "falling"
    assert describe.trend([], [])["word"] == ""
    assert describe.trend([0.0], [0.3])["word"] == ""
    with_nan = rising[:-1] + [math.nan]
    assert describe.trend(t, with_nan)["now"] == rising[-2]
    text = describe.trend_phrase("P", describe.trend(t, rising), lambda v: f"{v:.2f}")
    assert text == f"P {rising[-1]:.2f}, rising from {rising[-41]:.2f} over the last 10 s"


def test_swarm_summary_quotes_the_engine_numbers():
    s = sessions.create("swarm")
    s.op_step(n=600)
    d = s.op_describe()
    m = s.op_metrics()
    text = d["text"]
    assert text.startswith("150 animals")
    assert f"agreement {m['P']:.2f} whole group, {m['local']:.2f} local" in text
    assert f"mean spacing {m['spacing']:.1f} lengths" in text
    assert "threat" not in text
    # the heading word is the compass word of the whole group's mean heading (P is high here)
    assert m["P"] > 0.5
    mean = s.state.u.mean(axis=0)
    assert f"heading {describe.compass(math.atan2(mean[1], mean[0]))}" in text
    assert d["values"]["P"] == m["P"]
    assert set(d["charts"]) == {"agree", "space"}
    assert re.search(r"whole-group agreement P \d\.\d\d, (rising|falling|steady)", d["charts"]["agree"])


def test_swarm_summary_events_change_the_key():
    s = sessions.create("swarm")
    s.op_step(n=60)
    before = s.op_describe()
    s.op_threat()
    s.op_step(n=1)
    after = s.op_describe()
    assert "a threat is passing" in after["text"] and "Individual 1 is selected" in after["text"]
    assert after["key"] != before["key"]
    s.op_set("obstacle", "passage")
    assert "a narrow passage in the way" in s.op_describe()["text"]
    s.op_restart_trial(swarm.TRIALS[0].id)
    assert f"Trial: {swarm.TRIALS[0].title}." in s.op_describe()["text"]


def test_swarm_summary_names_the_models_own_time_limit():
    """At the model-time limit the summary names it from swarm.TIME_LIMIT_STEPS (not a copy)."""
    s = sessions.create("swarm")
    s.op_step(n=10)
    s.at_limit = True  # (reaching it takes TIME_LIMIT_STEPS steps; the session's flag is what describe reads)
    minutes = swarm.TIME_LIMIT_STEPS * swarm.DT / 60
    assert f"Paused at the {minutes:g}-minute limit; Continue keeps everything." in s.op_describe()["text"]
    alone = cells.neighbour_pairs(np.array([[1.0, 1.0]]), Box(10.0, 10.0), 1.0)
    d = describe.swarm(1, np.array([[1.0, 0.0]]), alone, {"P": 1.0, "local": 1.0, "spacing": math.nan},
                       at_limit=True, limit_minutes=2.5)
    assert "Paused at the 2.5-minute limit" in d["text"]


def test_swarm_key_ignores_small_changes():
    s = sessions.create("swarm")
    s.op_step(n=1800)  # settled: one polarised flock
    keys = set()
    for _ in range(5):
        s.op_step(n=6)  # 0.1 s
        keys.add(s.op_describe()["key"])
    assert len(keys) == 1


def test_two_separate_clusters_read_as_two_groups():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(0, 8, (40, 2)) + [20, 20], rng.uniform(0, 8, (30, 2)) + [100, 70]])
    th = np.concatenate([np.full(40, math.pi / 2), np.full(30, math.pi)])
    u = np.column_stack([np.cos(th), np.sin(th)])
    pairs = cells.neighbour_pairs(x, swarm.BOX, 10.0)
    m = {"P": metrics.polarization(u), "local": 1.0, "spacing": 1.5, "milling": 0.0}
    d = describe.swarm(70, u, pairs, m)
    assert d["text"].startswith("70 animals in 2 groups; the largest has 40 animals, heading north;")


def test_vicsek_summary():
    s = sessions.create("vicsek")
    s.op_step(n=120)
    d = s.op_describe()
    P = s.op_metrics()["P"]
    assert d["text"].startswith("Update 120: 64 arrows")
    assert f"P {P:.2f}" in d["text"] and "alignment a 1" in d["text"]
    s.op_select(index=4)
    nb = s.op_neighbours(4)
    d = s.op_describe()
    assert f"Following arrow 5, with {len(nb['neighbours'])} neighbour" in d["text"]
    assert d["charts"]["P"].startswith(f"P chart: P {P:.2f}")
    assert d["values"]["P"] == P
    s.op_reset(a=0.0)
    s.op_step(n=200)
    d = s.op_describe()
    assert "alignment a 0" in d["text"]
    assert s.op_metrics()["P"] > 0.5 or "close to random headings" in d["text"] or "partly" in d["text"]


def test_boids_summary():
    s = sessions.create("boids")
    s.op_step(n=800)
    d = s.op_describe()
    m = s.op_metrics()
    assert d["text"].startswith(f"{m['N']} boids")
    assert f"shared heading P {m['P']:.2f}" in d["text"]
    grouped = m["N"] - m["in_flocks"] - m["loners"]
    none = f"no flock ({m['where']})" if grouped else "no flock yet"  # the flocks readout's note
    flocks = none if m["flocks"] == 0 else f"{'one flock' if m['flocks'] == 1 else str(m['flocks']) + ' flocks'} flying one way"
    assert flocks in d["text"]
    assert "Weights: separation 1.5, alignment 1, cohesion 1." in d["text"]
    assert "treat" not in d["text"]
    assert d["values"]["P"] == m["P"]
    s.op_treat(x=10, y=10, on=True)
    d2 = s.op_describe()
    assert "the treat is held" in d2["text"] and d2["key"] != d["key"]
    assert d["charts"]["chart"].startswith(f"Chart: shared heading P {m['P']:.2f}")
    assert "flock" not in d["charts"]["chart"]  # the chart plots P and spacing only


def test_boids_words_follow_flocks_and_heading():
    v = np.tile([[0.0, -3.0]], (80, 1))  # everyone flying up the screen: north in Lab 3
    # a clump going nowhere together is a group, not "no flock yet"
    clump = describe.boids(v, {"P": 0.2, "spacing": 0.5, "flocks": 0, "in_flocks": 0, "loners": 0})
    assert clump["text"].startswith("80 boids, no flock (80 in small or mixed groups);")
    scattered = describe.boids(v, {"P": 0.2, "spacing": 9.0, "flocks": 0, "in_flocks": 0, "loners": 80})
    assert scattered["text"].startswith("80 boids, no flock yet;")
    d = describe.boids(v, {"P": 1.0, "spacing": 2.0, "flocks": 1})
    assert d["text"].startswith("80 boids, one flock flying one way, heading north;") and d["heading"] == 90.0
    turned = describe.boids(np.tile([[3.0, 0.0]], (80, 1)), {"P": 1.0, "spacing": 2.0, "flocks": 1})
    assert "heading east" in turned["text"] and turned["heading"] == 0.0 and turned["key"] == d["key"]
    d = describe.boids(v, {"P": 0.3, "spacing": 2.0, "flocks": 3})
    assert d["text"].startswith("80 boids, 3 flocks flying one way; shared heading P 0.30")
    # where the other boids are, as the flocks readout says: "80 boids in 2 flocks" read as if
    # every boid were in one when the readout said "2 (69 in small or mixed groups, 1 boid alone)"
    d = describe.boids(v, {"P": 0.3, "spacing": 2.0, "flocks": 2, "in_flocks": 10, "loners": 1})
    assert d["text"].startswith("80 boids, 2 flocks flying one way (10 in them, 69 in small or mixed groups, 1 boid alone);")
    d = describe.boids(v, {"P": 0.9, "spacing": 2.0, "flocks": 1, "in_flocks": 80, "loners": 0})
    assert d["text"].startswith("80 boids, one flock flying one way (all in it), heading north;")
    d = describe.boids(v, {"P": 0.9, "spacing": 2.0, "flocks": 1, "in_flocks": 66, "loners": 2})
    assert d["text"].startswith("80 boids, one flock flying one way (66 in it, 12 in small or mixed groups, 2 boids alone)")
    assert describe.boids(v, {"P": 0.1, "spacing": 5.0, "flocks": 0})["text"].startswith("80 boids, no flock yet;")


def test_boids_readout_and_summary_say_where_the_boids_are_in_the_same_words():
    """The flocks readout's note (the session's ``where``) is the summary's breakdown, word for
    word: one place words them (``describe.flock_breakdown``)."""
    s = sessions.create("boids")
    s.op_step(n=1600)  # 40 s: the default sky has flocks, boids in other groups and three alone
    m = s.op_metrics()
    grouped = m["N"] - m["in_flocks"] - m["loners"]
    assert m["flocks"] > 0 and grouped > 0 and m["loners"] > 0, m
    assert m["where"] == f"{grouped} in small or mixed groups, {m['loners']} boid{'s' * (m['loners'] != 1)} alone"
    them = "it" if m["flocks"] == 1 else "them"
    assert f"({m['in_flocks']} in {them}, {m['where']})" in s.op_describe()["text"]
    assert describe.flocks_where(80, 10, 1) == "69 in small or mixed groups, 1 boid alone"
    assert describe.flocks_where(80, 70, 10) == "10 boids alone"
    assert describe.flocks_where(80, 80, 0) == "all in flocks" and describe.flocks_where(0, 0, 0) == "no boids"
    # counts as the prose writes them, as the boids readout beside it does ("boids 2,000")
    assert describe.flocks_where(2000, 0, 0) == "2,000 in small or mixed groups"
    assert describe.flocks_where(10000, 8500, 1200) == "300 in small or mixed groups, 1,200 boids alone"


def test_boids_sentence_names_p_with_the_histories_own_label():
    """The spoken summary names P as the chart does (the session's HISTORY_SERIES), not a copy."""
    v = np.tile([[0.0, -3.0]], (80, 1))
    h = metrics.History((metrics.Series("P", "agreement of headings"), metrics.Series("spacing", "gap", "lengths"),
                         metrics.Series("flocks", "groups")), tick_seconds=0.025, interval=10)
    h.record(0, {"P": 0.5, "spacing": 2.0, "flocks": 1})
    d = describe.boids(v, {"P": 0.5, "spacing": 2.0, "flocks": 1}, history=h)
    assert "; agreement of headings 0.50;" in d["text"] and "shared heading P" not in d["text"]


def test_op_describe_through_the_host():
    from swarmlab.sessions.host import Host
    import json
    host = Host()
    for lab in sessions.LABS:
        reply, _ = host.handle(json.dumps({"lab": lab, "ops": [["describe", {}]]}))
        value = json.loads(reply)["results"][0]["value"]
        assert isinstance(value["text"], str) and value["text"].endswith(".")
        assert isinstance(value["key"], str) and value["charts"]


def test_each_charted_series_names_an_axis_its_chart_labels():
    """Which axis a series is read on is the engine's word, next to the axis labels (the page
    only picks colours): every series of a chart with axes names one of them."""
    for lab in sessions.LABS:
        for chart in sessions.create(lab).display()["charts"]:
            for series in chart["series"]:
                if "axes" in chart:
                    assert series["axis"] in chart["axes"], (lab, chart["id"], series["key"])
                else:
                    assert "axis" not in series, (lab, chart["id"], series["key"])


def test_boids_summary_of_a_clump_says_it_is_a_group():
    """Cohesion only: after a minute the sky is one clump going nowhere together.  The summary
    says so from the sample's full measures, not "no flock yet" (which reads as scattered)."""
    s = sessions.create("boids")
    s.op_reset(**boids.PRESETS["cohesion"])
    s.op_step(n=2400)
    m = s.op_metrics()
    assert m["flocks"] == 0 and m["in_flocks"] + m["loners"] < m["N"]
    grouped = m["N"] - m["in_flocks"] - m["loners"]
    assert grouped > 0 and f"no flock ({m['where']})" in s.op_describe()["text"]


def test_a_lone_animal_has_no_spacing_and_no_local_agreement_in_words():
    """With one animal (Lab 1 allows one; Lab 3 at least two) neither the spacing nor the local
    agreement can be measured: the summary says why, instead of "mean spacing unknown lengths"
    and "unknown local"."""
    s = sessions.create("swarm")
    s.op_population(n=1)
    m = s.op_metrics()
    assert not math.isfinite(m["spacing"]) and not math.isfinite(m["local"])
    text = s.op_describe()["text"]
    assert "unknown" not in text and "lengths" not in text
    assert "agreement 1.00 whole group, none local (no one has a neighbour in range); no spacing (no other animal)" in text
    s.op_population(n=2)  # two far apart: a spacing, still no neighbour in range
    s.op_set(name="R", value=1)
    text = s.op_describe()["text"]
    assert "none local (no one has a neighbour in range)" in text and "mean spacing" in text


def test_every_description_says_which_turn_of_its_heading_is_news():
    """The page's spoken summaries treat a turn of one compass word's width as news; the width
    comes with each description (no copy of it in the page)."""
    from swarmlab import sessions

    assert describe.NEWS_TURN_DEG == 360.0 / len(describe.COMPASS) == 45.0
    for lab in sessions.LABS:
        d = sessions.create(lab).op_describe()
        assert d["news_turn_deg"] == describe.NEWS_TURN_DEG, lab
