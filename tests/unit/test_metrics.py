"""Metrics against direct formulas, and the History (thinning, markers, export)."""

import csv
import io
import math

import numpy as np
import pytest

import oracles
from swarmlab import cells, metrics
from swarmlab.space import Box

BOX = Box(160.0, 100.0)


def _periodic_dist(a, b, box=BOX):
    """Brute force: smallest distance over the 9 periodic images (independent of space.displacement)."""
    best = math.inf
    for sx in (-1, 0, 1):
        for sy in (-1, 0, 1):
            best = min(best, math.hypot(b[0] + sx * box.width - a[0], b[1] + sy * box.height - a[1]))
    return best


def test_polarization_direct_formula():
    rng = np.random.default_rng(1)
    th = rng.uniform(-np.pi, np.pi, 37)
    u = metrics.headings_to_u(th)
    expected = abs(sum(complex(math.cos(t), math.sin(t)) for t in th) / len(th))
    assert metrics.polarization(u) == pytest.approx(expected, abs=1e-12)
    assert metrics.polarization(metrics.headings_to_u(np.full(5, 0.3))) == pytest.approx(1.0)
    assert metrics.polarization(metrics.headings_to_u(np.array([0.0, np.pi]))) == pytest.approx(0.0, abs=1e-15)
    assert math.isnan(metrics.polarization(np.zeros((0, 2))))


def test_local_agreement_brute_force():
    rng = np.random.default_rng(2)
    n = 60
    x = rng.uniform(0, [40, 30], (n, 2))  # dense corner region, neighbours wrap nothing here
    x[:5] = [[159.5, 99.5], [0.5, 0.5], [159.0, 0.2], [0.3, 99.0], [80, 50]]  # across the corner + one isolated
    th = rng.uniform(-np.pi, np.pi, n)
    u = metrics.headings_to_u(th)
    R = 4.0
    pairs = cells.neighbour_pairs(x, BOX, R)
    vals = []
    for i in range(n):
        nbrs = [j for j in range(n) if j != i and _periodic_dist(x[i], x[j]) <= R]
        if nbrs:
            s = complex(u[i, 0], u[i, 1]) + sum(complex(u[j, 0], u[j, 1]) for j in nbrs)
            vals.append(abs(s) / (1 + len(nbrs)))
    assert metrics.local_agreement(u, pairs) == pytest.approx(np.mean(vals), abs=1e-12)
    # isolated agents are excluded, and no neighbours at all gives NaN
    assert math.isnan(metrics.local_agreement(u, cells.neighbour_pairs(x, BOX, 1e-6)))


def test_nearest_spacing_brute_force():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, [160, 100], (50, 2))
    x[0] = [0.1, 50.0]
    x[1] = [159.6, 50.0]  # 0.5 apart across the edge
    r = np.array([min(_periodic_dist(x[i], x[j]) for j in range(50) if j != i) for i in range(50)])
    mean, share = metrics.nearest_spacing(x, BOX, close=1.2)
    assert mean == pytest.approx(r.mean(), abs=1e-12)
    assert share == pytest.approx(np.mean(r < 1.2))
    assert share >= 2 / 50
    # a lone agent has no nearest neighbour: both are undefined (the page shows "–" for both,
    # as for the other metrics a lone animal lacks; the share read "0.0 %" beside them)
    one_mean, one_share = metrics.nearest_spacing(x[:1], BOX)
    assert math.isnan(one_mean) and math.isnan(one_share)
    two = metrics.nearest_spacing(x[:2], BOX, close=1.2)  # two agents: defined, here both close
    assert two == (pytest.approx(0.5), 1.0)
    mean, share = metrics.nearest_spacing(x[:2], BOX)  # no threshold given: no share (no default copy of Lab 1's)
    assert mean == pytest.approx(0.5) and math.isnan(share)


def _bits(a):
    return np.asarray(a, np.float64).view(np.int64)


@pytest.mark.parametrize("sort,half", [(True, False), (False, False), (False, True)])
def test_nearest_distances_from_pairs_bit_identical(sort, half):
    """Nearest distances from a complete neighbour search, ordered or each unordered pair
    once (+ a search for the agents without a pair), equal the full search and the
    brute-force oracle bit for bit."""
    boxes = [BOX, Box(1.0, 1.0), Box(3.0, 2.0)]
    for seed in range(60):
        rng = np.random.default_rng(9000 + seed)
        box = boxes[seed % 3]
        n = int(rng.integers(0, 300))
        x = rng.random((n, 2)) * box.size
        if seed % 4 == 1 and n > 4:  # a tight flock and stragglers
            x[: n // 2] = (x[0] + rng.normal(0, 0.02, (n // 2, 2)) * box.size) % box.size
        if seed % 5 == 2 and n > 4:  # coincident agents
            x[1:4] = x[0]
        # from "nobody has a pair" through "everybody does", and cutoff >= L/2
        for frac in (0.0, 0.005, 0.03, 0.1, 0.6):
            cutoff = frac * min(box.width, box.height)
            pairs = cells.neighbour_pairs(x, box, cutoff, sort=sort, half=half)
            assert pairs.half == (half and cutoff < 0.5 * min(box.width, box.height))
            r = metrics.nearest_distances(x, box, pairs)
            assert np.array_equal(_bits(r), _bits(cells.nearest_any(x, box)[1])), f"seed={seed} frac={frac}"
            assert np.array_equal(_bits(r), _bits(oracles.nearest_any(x, box)[1])), f"seed={seed} frac={frac}"
            # a strict sub-cut-off (like personal space, r < 3.2) is complete too
            sub = pairs.take(np.flatnonzero(pairs.r < 0.5 * cutoff))
            assert np.array_equal(_bits(metrics.nearest_distances(x, box, sub)), _bits(r))
            full = metrics.nearest_spacing(x, box, 0.01 * box.width)
            assert _same(metrics.nearest_spacing(x, box, 0.01 * box.width, pairs=pairs), full)


def _same(a, b):
    """Tuples of floats equal bit for bit (NaN == NaN)."""
    return all(np.array_equal(_bits(p), _bits(q)) for p, q in zip(a, b))


def test_nearest_distances_edge_cases():
    # N = 0, 1, 2; all isolated; none isolated; coincident
    assert metrics.nearest_distances(np.zeros((0, 2)), BOX, cells.neighbour_pairs(np.zeros((0, 2)), BOX, 5.0)).size == 0
    one = np.array([[5.0, 5.0]])
    assert metrics.nearest_distances(one, BOX, cells.neighbour_pairs(one, BOX, 5.0))[0] == np.inf
    two = np.array([[5.0, 5.0], [150.0, 95.0]])  # 15.0 and 10.0 apart across the corner
    for c in (1.0, 30.0):
        r = metrics.nearest_distances(two, BOX, cells.neighbour_pairs(two, BOX, c))
        assert np.array_equal(r, oracles.nearest_any(two, BOX)[1])
    same = np.full((6, 2), 3.0)
    r = metrics.nearest_distances(same, BOX, cells.neighbour_pairs(same, BOX, 1.0))
    assert (r == 0).all()
    x = np.random.default_rng(4).random((80, 2)) * BOX.size
    for c in (0.0, 1e-9, 200.0):
        assert np.array_equal(_bits(metrics.nearest_distances(x, BOX, cells.neighbour_pairs(x, BOX, c))),
                              _bits(oracles.nearest_any(x, BOX)[1]))
    with pytest.raises(ValueError):
        metrics.nearest_distances(x[:10], BOX, cells.neighbour_pairs(x, BOX, 5.0))


def test_local_agreement_matches_per_agent_loop_bitwise_order_free():
    """Unsorted and sorted pairs give the same agreement (a reduction, order-free up to rounding)."""
    rng = np.random.default_rng(12)
    x = rng.random((200, 2)) * BOX.size
    u = metrics.headings_to_u(rng.uniform(-np.pi, np.pi, 200))
    a = metrics.local_agreement(u, cells.neighbour_pairs(x, BOX, 12.0))
    b = metrics.local_agreement(u, cells.neighbour_pairs(x, BOX, 12.0, sort=False))
    assert a == pytest.approx(b, abs=1e-14)
    # non-contiguous heading columns (a view) give the same result as a copy
    big = np.zeros((200, 4))
    big[:, ::2] = u
    assert metrics.local_agreement(big[:, ::2], cells.neighbour_pairs(x, BOX, 12.0)) == a


@pytest.mark.parametrize("centre", [(80.0, 50.0), (0.0, 0.0), (159.0, 1.0)])
def test_rotation_order_mill_and_translation(centre):
    ang = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    rad = 12.0
    x = np.mod(np.stack([centre[0] + rad * np.cos(ang), centre[1] + rad * np.sin(ang)], 1), BOX.size)
    mill = metrics.headings_to_u(ang + np.pi / 2)  # counter-clockwise tangent
    assert metrics.rotation_order(x, mill, BOX) == pytest.approx(1.0, abs=1e-9)
    assert metrics.polarization(mill) == pytest.approx(0.0, abs=1e-12)  # the page's caveat: a mill has P ~ 0
    assert metrics.rotation_order(x, -mill, BOX) == pytest.approx(1.0, abs=1e-9)
    straight = metrics.headings_to_u(np.full(40, 0.7))
    assert metrics.rotation_order(x, straight, BOX) == pytest.approx(0.0, abs=1e-9)


def test_rotation_needs_two_agents():
    """One agent is its own centre: its "rotation" would be rounding noise (0.5, then 0.94)."""
    u = metrics.headings_to_u(np.array([0.3]))
    for x in ([[80.0, 50.0]], [[159.9, 0.1]], [[12.345, 67.89]]):
        assert math.isnan(metrics.rotation_order(np.array(x), u, BOX))
    assert math.isnan(metrics.rotation_order(np.zeros((0, 2)), np.zeros((0, 2)), BOX))


def test_periodic_centre_across_edge():
    x = np.array([[159.0, 99.0], [1.0, 1.0]])
    c = metrics.periodic_centre(x, BOX)
    assert _periodic_dist(c, np.array([0.0, 0.0])) < 1e-9


def test_periodic_centre_stays_inside_the_box_for_a_centre_a_hair_below_zero():
    # Three boids at the origin and one a hair below it: a circular mean of about -1e-14
    # lengths, which np.mod alone rounds up to exactly L.
    x = np.array([[0.0, 0.0]] * 3 + [[np.nextafter(BOX.width, 0.0), np.nextafter(BOX.height, 0.0)]])
    c = metrics.periodic_centre(x, BOX)
    assert np.all(c >= 0.0) and np.all(c < BOX.size), c.tolist()
    assert _periodic_dist(c, np.array([0.0, 0.0])) < 1e-9


# --- History ----------------------------------------------------------------------------------
def _hist(capacity=8, interval=15):
    return metrics.History([metrics.Series("P", "agreement", "0 to 1"), metrics.Series("s", "spacing", "lengths")],
                           tick_seconds=1 / 60, interval=interval, capacity=capacity)


def test_history_samples_on_interval_only():
    h = _hist(capacity=100)
    stored = [t for t in range(0, 200) if h.record(t, {"P": t, "s": 2 * t})]
    assert stored == list(range(0, 200, 15))
    assert h.times()[1] == pytest.approx(0.25)
    assert not h.record(30, {"P": 0})  # already recorded: not stored twice


def test_history_thins_and_keeps_whole_run():
    h = _hist(capacity=8)
    for t in range(0, 15 * 100 + 1):
        h.record(t, {"P": t / 1500, "s": 1.0})
    assert len(h) <= 8
    assert h.ticks[0] == 0  # the start stays visible
    assert h.ticks[-1] >= 1500 - h.interval  # and so does the latest part
    assert h.interval == 15 * 2 ** h.version
    assert h.version >= 3
    assert all(t % h.interval == 0 for t in h.ticks)
    assert np.all(np.diff(h.ticks) == h.interval)  # evenly spaced after thinning
    assert h.values["P"] == [t / 1500 for t in h.ticks]  # values stay with their times


def test_history_capacity_2400_default():
    h = metrics.History([metrics.Series("a", "a")], tick_seconds=1.0, interval=1)
    for t in range(10_000):
        h.record(t, {"a": 1.0})
    assert 1200 <= len(h) <= 2400


def test_markers_dict_and_since():
    h = _hist(capacity=100)
    for t in range(0, 61):
        h.record(t, {"P": 0.5, "s": math.nan})
    h.mark(20, "alignment off")
    d = h.to_dict()
    assert d["t"] == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])
    assert d["markers"] == [{"t": pytest.approx(20 / 60), "label": "alignment off"}]
    assert d["units"] == {"P": "0 to 1", "s": "lengths"}
    assert d["time_label"] == h.time_label
    assert math.isnan(d["series"]["s"][0])
    inc = h.to_dict(since=0.5)
    assert inc["t"] == pytest.approx([0.75, 1.0]) and inc["series"]["P"] == [0.5, 0.5]
    assert inc["version"] == d["version"]


def test_markers_of_one_dragged_control_merge():
    h = _hist(capacity=100)
    h.mark(10, "w 1.1", key="w", merge_ticks=30)
    h.mark(10, "w 1.2", key="w", merge_ticks=30)  # same instant (paused drag)
    h.mark(35, "w 1.5", key="w", merge_ticks=30)  # within 30 ticks of the first
    assert [(m["t"] * 60, m["label"]) for m in h.to_dict()["markers"]] == [(pytest.approx(10), "w 1.5")]
    h.mark(80, "w 2.0", key="w", merge_ticks=30)  # later: a new change
    h.mark(81, "v 3", key="v", merge_ticks=30)  # another control: its own marker
    h.mark(82, "threat")  # no key: never merged, and it ends the run of "v"
    h.mark(83, "v 4", key="v", merge_ticks=30)
    h.mark(84, "threat")
    h.mark(84, "threat")
    assert [m["label"] for m in h.to_dict()["markers"]] == ["w 1.5", "w 2.0", "v 3", "threat", "v 4",
                                                            "threat", "threat"]
    h.clear()
    h.mark(0, "w 1", key="w", merge_ticks=30)
    assert len(h.to_dict()["markers"]) == 1


def test_csv_units_markers_and_order():
    h = _hist(capacity=100)
    h.record(0, {"P": 0.1, "s": 2.0})
    h.record(15, {"P": 0.2, "s": math.nan})
    h.mark(15, "threat")
    h.mark(7, "cohesion off")
    h.record(30, {"P": 0.3, "s": 2.5})
    rows = list(csv.reader(io.StringIO(h.to_csv())))
    assert rows[0] == ["time (s)", "agreement (0 to 1)", "spacing (lengths)", "event"]
    assert rows[1] == ["0", "0.1", "2", ""]
    assert rows[2] == [f"{7 / 60:.10g}", "", "", "cohesion off"]
    assert rows[3] == ["0.25", "0.2", "", ""]
    assert rows[4] == ["0.25", "", "", "threat"]  # a marker at a sample's tick follows it
    assert rows[5] == ["0.5", "0.3", "2.5", ""]


def test_csv_values_read_back_as_the_same_floats():
    """The CSV kept six significant digits (0.0187532 for 0.018753172...): a researcher's
    analysis of it differed from the same run's numbers in Python."""
    h = _hist(capacity=100)
    values = [0.018753172000000002, 1 / 3, 2.0, 1e-07, 123456.789012345]
    for k, v in enumerate(values):
        h.record(15 * k, {"P": v, "s": -v})
    rows = list(csv.reader(io.StringIO(h.to_csv())))[1:]
    assert [float(r[1]) for r in rows] == values and [float(r[2]) for r in rows] == [-v for v in values]
    assert rows[2][1] == "2" and rows[0][1] == "0.018753172000000002"


# ----------------------------------------------------------------------------------------
# groups (connected pieces of the neighbour graph)


def _groups_oracle(x, box, cutoff):
    """Brute force: breadth-first search over all pairs within cutoff (9 periodic images)."""
    n = len(x)
    near = [[k for k in range(n) if k != i and _periodic_dist(x[i], x[k], box) <= cutoff] for i in range(n)]
    label = [-1] * n
    for s in range(n):  # s is the smallest index of its group when first unlabelled
        if label[s] >= 0:
            continue
        label[s], todo = s, [s]
        while todo:
            for k in near[todo.pop()]:
                if label[k] < 0:
                    label[k] = s
                    todo.append(k)
    return np.array(label)


@pytest.mark.parametrize("seed", range(6))
def test_group_labels_match_breadth_first_search(seed):
    rng = np.random.default_rng(seed)
    box = Box(*(rng.uniform(20, 120, 2)))
    n = int(rng.integers(0, 120))
    # clumps, including some straddling the wrap, plus scattered loners
    centres = rng.random((4, 2)) * box.size
    x = np.concatenate([centres[rng.integers(0, 4, n // 2)] + rng.normal(0, 4, (n // 2, 2)),
                        rng.random((n - n // 2, 2)) * box.size]) % box.size
    for cutoff in (1.5, 6.0, 15.0):
        pairs = cells.neighbour_pairs(x, box, cutoff, sort=bool(seed % 2))
        want = _groups_oracle(x, box, cutoff)
        got = metrics.group_labels(pairs)
        assert got.dtype == np.intp and np.array_equal(got, want)
        # flocks: groups of 3+ whose mean unit heading is at least 0.8 long, by direct loops
        u = rng.normal(size=(n, 2))
        u[: n // 2] = [0.6, 0.8] + 0.1 * u[: n // 2]  # the clumped half mostly agrees
        u /= np.hypot(u[:, 0], u[:, 1])[:, None]
        expect = 0
        for g in set(want.tolist()):
            members = [k for k in range(n) if want[k] == g]
            mean = [sum(u[k][c] for k in members) / len(members) for c in (0, 1)]
            expect += len(members) >= 3 and math.hypot(*mean) >= 0.8
        assert metrics.count_flocks(got, u, 3, 0.8) == expect


@pytest.mark.parametrize("seed", range(4))
def test_aligned_pairs_keep_the_pairs_heading_within_the_angle(seed):
    """Against direct loops over the pairs: the kept pairs are those with u_i . u_j >= cos_min,
    in the search's order, both directions together (so groups of them are well defined)."""
    rng = np.random.default_rng(100 + seed)
    box = Box(60.0, 40.0)
    n = 150
    x = rng.random((n, 2)) * box.size
    a = rng.uniform(-math.pi, math.pi, n)
    u = np.column_stack([np.cos(a), np.sin(a)])
    pairs = cells.neighbour_pairs(x, box, 8.0, sort=bool(seed % 2))
    cos_min = math.sqrt(0.5)
    got = metrics.aligned_pairs(pairs, u, cos_min)
    keep = [k for k in range(len(pairs))
            if u[pairs.i[k], 0] * u[pairs.j[k], 0] + u[pairs.i[k], 1] * u[pairs.j[k], 1] >= cos_min]
    assert 0 < len(keep) < len(pairs)
    assert np.array_equal(got.i, pairs.i[keep]) and np.array_equal(got.j, pairs.j[keep])
    assert np.array_equal(got.d, pairs.d[keep]) and np.array_equal(got.r, pairs.r[keep])
    assert sorted(zip(got.i.tolist(), got.j.tolist())) == sorted(zip(got.j.tolist(), got.i.tolist()))
    assert got.n == n


def test_group_labels_long_chain_and_edge_cases():
    box = Box(1000.0, 10.0)
    chain = np.column_stack([np.arange(300) * 2.0, np.full(300, 5.0)])[::-1]  # highest index first
    assert (metrics.group_labels(cells.neighbour_pairs(chain, box, 2.5)) == 0).all()
    assert (metrics.group_labels(cells.neighbour_pairs(chain, box, 1.5)) == np.arange(300)).all()
    empty = metrics.group_labels(cells.neighbour_pairs(np.zeros((0, 2)), box, 1.0))
    assert empty.size == 0
    assert metrics.count_flocks(empty, np.zeros((0, 2)), 3, 0.8) == 0
    u = np.tile([1.0, 0.0], (300, 1))
    assert metrics.count_flocks(np.zeros(300, np.intp), u, 5, 0.8) == 1  # one chain flying one way
    u[::2] = [-1.0, 0.0]
    assert metrics.count_flocks(np.zeros(300, np.intp), u, 5, 0.8) == 0  # half each way: no flock
    # two flocks of 6 and 7 flying one way, a knot of 8 that does not, a pair, and a loner
    labels = np.repeat([0, 1, 2, 3, 4], [6, 7, 8, 2, 1])
    u = np.tile([0.0, 1.0], (24, 1))
    u[13:21:2] = [0.0, -1.0]  # the knot: half each way
    assert list(metrics.flock_sizes(labels, u, 5, 0.8)) == [6, 7]
    assert metrics.count_flocks(labels, u, 5, 0.8) == 2


# ----------------------------------------------------------------------------------------
# groups over time (membership tracking), splits, turns, grouped share, hexatic order


def _match_oracle(before, after, min_size):
    """Direct loops: for each earlier group of min_size+, count its members per later group."""
    out = {}
    for g in sorted(set(before.tolist())):
        members = [k for k in range(len(before)) if before[k] == g]
        if len(members) < min_size:
            continue
        counts = {}
        for k in members:
            counts[int(after[k])] = counts.get(int(after[k]), 0) + 1
        out[g] = sorted(counts.items(), key=lambda hk: (-hk[1], hk[0]))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_match_groups_and_splits_against_direct_loops(seed):
    rng = np.random.default_rng(40 + seed)
    n = int(rng.integers(1, 150))
    before = rng.integers(0, max(1, n // 8), n)
    after = rng.integers(0, max(1, n // 5), n)
    for min_size in (1, 6):
        want = _match_oracle(before, after, min_size)
        got = metrics.match_groups(before, after, min_size)
        assert got == want
        assert all(sum(k for _, k in parts) == np.count_nonzero(before == g) for g, parts in got.items())
        splits = [g for g, parts in want.items() if len([k for _, k in parts if k >= 3]) >= 2]
        assert metrics.group_splits(before, after, min_size, 3) == splits


def test_splits_need_two_parts_of_min_part_members():
    before = np.zeros(12, np.intp)
    # 12 boids -> 9 + 3: a split; 10 + 2: a group losing two stragglers is not
    assert metrics.group_splits(before, np.array([0] * 9 + [9] * 3)) == [0]
    assert metrics.group_splits(before, np.array([0] * 10 + [10] * 2)) == []
    # the parts are counted by members of the earlier group, whoever else joined them later
    after = np.array([0] * 10 + [10] * 2 + [10] * 5)
    assert metrics.group_splits(np.array([0] * 12 + list(range(12, 17))), after) == []
    # groups below min_size are not followed; labels of different lengths are refused
    assert metrics.group_splits(np.zeros(5, np.intp), np.array([0, 0, 0, 3, 3])) == []
    assert metrics.group_splits(np.zeros(5, np.intp), np.array([0, 0, 0, 3, 3]), min_size=5, min_part=2) == [0]
    with pytest.raises(ValueError, match="same agents"):
        metrics.match_groups(np.zeros(3, np.intp), np.zeros(4, np.intp))
    assert metrics.match_groups(np.zeros(0, np.intp), np.zeros(0, np.intp)) == {}


def test_group_turns_measure_the_turn_of_the_members_mean_heading():
    labels = np.array([0] * 8 + [8] * 8 + [16] * 3)
    u0 = metrics.headings_to_u(np.zeros(19))
    turn = np.concatenate([np.full(8, math.radians(35.0)), np.full(8, math.radians(10.0)), np.full(3, 2.0)])
    u1 = metrics.headings_to_u(turn)
    got = metrics.group_turns(labels, u0, u1, min_size=6)
    assert [g for g, _ in got] == [0]  # 10 degrees is too slow, the 3-boid group too small
    assert got[0][1] == pytest.approx(math.radians(35.0), abs=1e-12)
    # the mean heading of a spread group, and either turning sense
    th = np.linspace(-0.5, 0.5, 8)
    u0 = metrics.headings_to_u(np.concatenate([th, th, [0, 0, 0]]))
    u1 = metrics.headings_to_u(np.concatenate([th - 1.0, th + 0.2, [0, 0, 0]]))
    got = dict(metrics.group_turns(labels, u0, u1, min_size=6))
    assert set(got) == {0} and got[0] == pytest.approx(1.0, abs=1e-12)
    # a group whose headings (nearly) cancel has no mean heading to turn: only groups
    # flying one way (own P >= min_agreement at both moments) count
    u0 = metrics.headings_to_u(np.array([0.0, math.pi] * 4 + [0.0] * 11))
    assert 0 not in dict(metrics.group_turns(labels, u0, u1, min_size=6))
    u0 = metrics.headings_to_u(np.array([0.0] * 6 + [2.0] * 2 + [0.0] * 11))
    own = metrics.polarization(u0[:8])  # 0.685
    assert 0 in dict(metrics.group_turns(labels, u0, u1, min_size=6, min_agreement=own - 1e-9))
    assert 0 not in dict(metrics.group_turns(labels, u0, u1, min_size=6, min_agreement=own + 1e-9))
    assert metrics.group_turns(np.zeros(0, np.intp), np.zeros((0, 2)), np.zeros((0, 2))) == []


def test_grouped_share():
    assert metrics.grouped_share(np.array([0] * 6 + [6] * 5 + [11]), 6) == pytest.approx(0.5)
    assert metrics.grouped_share(np.array([0] * 6 + [6] * 5 + [11]), 5) == pytest.approx(11 / 12)
    assert math.isnan(metrics.grouped_share(np.zeros(0, np.intp), 6))


def _lattice(a, nx, ny, box_w, box_h, jitter=0.0, seed=0):
    rng = np.random.default_rng(seed)
    pts = [((k + 0.5 * (r % 2)) * a, r * a * math.sqrt(3) / 2) for r in range(ny) for k in range(nx)]
    return (np.array(pts) + [5.0, 5.0] + jitter * rng.normal(size=(len(pts), 2))) % [box_w, box_h]


def test_hexatic_order_lattice_liquid_and_direct_formula():
    box = Box(200.0, 150.0)
    x = _lattice(4.0, 10, 10, box.width, box.height)
    order, count = metrics.hexatic_order(x, box)
    # a perfect triangular patch: 1 for every agent with 3+ bonds (the edge agents too, since
    # each bond angle is a multiple of 60 degrees); two corners have only 2 bonds
    assert order == pytest.approx(1.0, abs=1e-12) and count == 98
    # rotated lattices are just as ordered
    th = 0.37
    rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    assert metrics.hexatic_order((x - 60.0) @ rot.T + 80.0, box)[0] == pytest.approx(1.0, abs=1e-9)
    # a random gas of the same density is far from it
    rng = np.random.default_rng(7)
    gas = rng.random((100, 2)) * [40.0, 35.0] + 20.0
    assert metrics.hexatic_order(gas, box)[0] < 0.6
    # the direct formula (complex exponentials, 9 periodic images) on a jittered patch
    xj = _lattice(4.0, 8, 8, box.width, box.height, jitter=0.8, seed=3)
    nearest = [min(_periodic_dist(xj[i], xj[j], box) for j in range(len(xj)) if j != i) for i in range(len(xj))]
    cut = 1.5 * np.mean(nearest)
    vals = []
    for i in range(len(xj)):
        z = []
        for j in range(len(xj)):
            d = xj[j] - xj[i]
            d = d - box.size * np.floor(d / box.size + 0.5)
            if j != i and math.hypot(*d) <= cut:
                z.append(complex(math.cos(6 * math.atan2(d[1], d[0])), math.sin(6 * math.atan2(d[1], d[0]))))
        if len(z) >= 3:
            vals.append(abs(sum(z) / len(z)))
    order, count = metrics.hexatic_order(xj, box)
    assert count == len(vals) and order == pytest.approx(np.mean(vals), abs=1e-12)
    assert 0.3 < order < 0.99
    # too few agents or bonds
    assert math.isnan(metrics.hexatic_order(np.zeros((1, 2)), box)[0])
    assert metrics.hexatic_order(np.array([[1.0, 1.0], [3.0, 1.0], [5.0, 1.0]]), box)[1] == 0


def test_the_last_sample_of_a_run_is_kept_between_ticks_and_reserve_avoids_thinning():
    h = metrics.History([metrics.Series("P", "P", "")], tick_seconds=0.25, interval=4, capacity=3)
    for tick in range(0, 9):
        h.record(tick, {"P": tick})
    assert h.ticks == [0, 4, 8] and not h.record(9, {"P": 9}) and not h.record(8, {"P": 8}, last=True)
    assert h.record(10, {"P": 10}, last=True) and h.ticks == [0, 8, 10]  # full: thinned, then kept
    assert not h.record(10, {"P": 10}, last=True)  # not twice
    h = metrics.History([metrics.Series("P", "P", "")], tick_seconds=0.25, interval=4, capacity=3)
    h.reserve(10)
    for tick in range(0, 37):
        h.record(tick, {"P": tick})
    assert h.ticks == list(range(0, 37, 4)) and h.interval == 4  # ten samples, none thinned
    h.reserve(2)  # never shrinks
    assert h.capacity == 10
