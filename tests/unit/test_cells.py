"""Cell-list neighbour search against the brute-force oracles (tests/unit/oracles.py).

"Exact" means: the same pairs in the same order, with the same displacement and
distance values (compared with ==, and bit for bit where no -0.0 is involved).
Every test runs over many random seeds and hand-made worst cases: agents on
cell edges and corners, at exactly 0 and just below L, coincident agents, pairs
at exactly the cutoff, boxes only a few cells wide, cutoff >= L/2, replicas.
"""

import math

import numpy as np
import pytest

import oracles
from swarmlab import cells
from swarmlab.space import Box, displacement

BOXES = [Box(160.0, 100.0), Box(1.0, 1.0), Box(3.0, 2.0), Box(10.0, 10.0)]

# a RuntimeWarning (overflow, invalid cast) inside the search is a bug
pytestmark = pytest.mark.filterwarnings("error")


@pytest.fixture(params=["all-pairs below 91 agents", "cell list always"])
def both_paths(request, monkeypatch):
    """Run a test twice: with the direct all-pairs path for small N (the default) and
    with the cell list for every N, so the hand-made small cases test both.  (Only where
    it matters: the whole file also runs inside Pyodide, under a time limit.)"""
    if request.param == "cell list always":
        monkeypatch.setattr(cells, "_ALL_PAIRS", -1)
    return request.param


def assert_same_pairs(got, want, bitwise=True, msg=""):
    assert isinstance(got, cells.Pairs)
    assert got.n == want.n, msg
    assert got.i.dtype == np.intp and got.j.dtype == np.intp, msg  # int32 on wasm32 (Pyodide)
    assert got.d.shape == (len(want), 2) and got.r.shape == (len(want),), msg
    for f in "ijdr":
        a, b = getattr(got, f), getattr(want, f)
        assert np.array_equal(a, b), f"{msg}: field {f} differs ({len(got)} vs {len(want)} pairs)"
    if bitwise:  # also the sign of zero
        assert np.array_equal(got.d.view(np.int64), want.d.view(np.int64)), msg
        assert np.array_equal(got.r.view(np.int64), want.r.view(np.int64)), msg


def check(x, box, cutoff, group=None, bitwise=True, msg="", **kw):
    got = cells.neighbour_pairs(x, box, cutoff, group, **kw)
    want = oracles.neighbour_pairs(x, box, cutoff, group)
    assert_same_pairs(got, want, bitwise, f"{msg} box={box} cutoff={cutoff}")
    return got


def lattice(box, nx, ny, jitter=0.0, rng=None):
    """Agents on an nx-by-ny lattice: exactly on cell edges and corners."""
    gx, gy = np.meshgrid(np.arange(nx) * (box.width / nx), np.arange(ny) * (box.height / ny))
    x = np.stack((gx.ravel(), gy.ravel()), axis=1)
    if jitter:
        x = (x + rng.choice([-1, 0, 1], x.shape) * jitter) % box.size
    return x


# ---------------------------------------------------------------------------
# neighbour_pairs
# ---------------------------------------------------------------------------


def test_random_configurations_many_seeds():
    fractions = [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.33, 0.45, 0.4999, 0.5, 0.6, 0.75, 1.0, 2.0]
    for seed in range(240):
        rng = np.random.default_rng(seed)
        box = BOXES[seed % len(BOXES)]
        n = int(rng.integers(0, 160))
        x = rng.random((n, 2)) * box.size
        cutoff = float(rng.choice(fractions)) * float(min(box.width, box.height))
        check(x, box, cutoff, msg=f"seed={seed} n={n}")


def test_dense_and_sparse_use_every_stencil_width():
    # the result must not depend on the grid tuning knob
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        box = Box(160.0, 100.0)
        x = rng.random((400, 2)) * box.size
        for cutoff in (3.2, 10.0, 23.0):
            want = oracles.neighbour_pairs(x, box, cutoff)
            for m in (1, 2, 3, 4):
                got = cells.neighbour_pairs(x, box, cutoff, cells_per_cutoff=m)
                assert_same_pairs(got, want, msg=f"seed={seed} m={m} cutoff={cutoff}")


@pytest.mark.usefixtures("both_paths")
def test_lattice_on_cell_edges_and_corners_with_pairs_at_exact_cutoff():
    rng = np.random.default_rng(0)
    for box in BOXES:
        for nx, ny in ((8, 5), (16, 10), (12, 12), (3, 4), (5, 3)):
            h = box.width / nx
            x = lattice(box, nx, ny)
            # cutoffs equal to lattice spacings: many pairs at exactly r == cutoff
            for cutoff in (h, box.height / ny, 2 * h, np.hypot(h, box.height / ny), h * (1 - 1e-15), h * (1 + 1e-15)):
                check(x, box, cutoff, msg=f"lattice {nx}x{ny}")
            xj = lattice(box, nx, ny, jitter=1e-12 * box.width, rng=rng)
            check(xj, box, h, msg=f"jittered lattice {nx}x{ny}")


def test_lattice_sweep_pairs_at_exact_cutoff_many_boxes():
    # agents on a lattice whose spacing is the cell size and the cutoff a multiple of
    # a spacing (or of the diagonal): rounding decides every boundary case.  Without
    # the safety margin on the cell size this sweep finds missing pairs.
    rng = np.random.default_rng(77)
    for t in range(150):
        w = float(rng.choice([1.0, 0.1, 0.3, 0.7, 3.0, 160.0, 100.0, 1 / 3, 2.2])) * float(rng.choice([1.0, 1.0 + rng.random()]))
        box = Box(w, w * float(rng.choice([1.0, 0.625, 1.6, 0.5])))
        nx, ny = int(rng.integers(3, 25)), int(rng.integers(3, 25))
        x = lattice(box, nx, ny)
        hx, hy = box.width / nx, box.height / ny
        cutoff = (hx, hy, np.hypot(hx, hy))[t % 3] * float(rng.choice([1, 2, 3]))
        check(x, box, cutoff, msg=f"sweep t={t} {nx}x{ny}")
        if t % 5 == 0:
            check_nearest(x, box, msg=f"sweep t={t}")
    # found by such sweeps: cutoff = 3 spacings of 6 rounds to just below L/2 while
    # agents sit at exactly L/2 (where the reverse vector is not the negation)
    for w, h, nx, ny, kind in [
        (0.3939143576459813, 0.6302629722335702, 6, 24, 0),
        (3.569089400173573, 3.569089400173573, 6, 5, 0),
        (3.3067613093860717, 1.6533806546930359, 20, 6, 1),
        (0.10525133950508099, 0.10525133950508099, 6, 12, 0),
    ]:
        box = Box(w, h)
        cutoff = 3 * (box.width / nx if kind == 0 else box.height / ny)
        check(lattice(box, nx, ny), box, cutoff, msg=f"regression {w} {h} {nx}x{ny}")


@pytest.mark.usefixtures("both_paths")
def test_positions_at_zero_and_just_below_L():
    for box in BOXES:
        w, h = box.width, box.height
        below_w, below_h = np.nextafter(w, 0), np.nextafter(h, 0)
        pts = np.array(
            [[0.0, 0.0], [below_w, 0.0], [0.0, below_h], [below_w, below_h], [w / 2, 0.0], [0.0, h / 2],
             [w / 2, below_h], [np.nextafter(w / 2, 0), h / 2], [np.nextafter(0, 1), 5e-324]]
        )
        rng = np.random.default_rng(1)
        x = np.concatenate((pts, rng.random((40, 2)) * box.size))
        for cutoff in (0.0, 1e-300, 0.01 * w, 0.1 * h, 0.3 * h, 0.5 * h, 0.5 * w, w):
            check(x, box, cutoff, msg="edges")


@pytest.mark.usefixtures("both_paths")
def test_coincident_agents():
    box = Box(160.0, 100.0)
    rng = np.random.default_rng(3)
    base = rng.random((30, 2)) * box.size
    x = np.concatenate((base, base, base[:7], [[0.0, 0.0], [0.0, 0.0]]))
    for cutoff in (0.0, 1.0, 10.0):
        got = check(x, box, cutoff, msg="coincident")
        z = got.r == 0
        assert z.sum() >= 2 * (30 + 2 * 7 + 1)
        # coincident pairs carry +0.0, never -0.0 (direction code may use atan2)
        assert not np.signbit(got.d[z]).any()
    # everyone at one point: every ordered pair, sorted by (i, j)
    x = np.full((25, 2), 7.0)
    got = check(x, box, 0.0, msg="all at one point")
    assert len(got) == 25 * 24


@pytest.mark.usefixtures("both_paths")
def test_tiny_populations():
    box = Box(160.0, 100.0)
    for n in (0, 1, 2):
        x = np.random.default_rng(n).random((n, 2)) * box.size
        got = check(x, box, 200.0, msg=f"n={n}")
        assert len(got) == n * (n - 1)
    empty = cells.neighbour_pairs(np.zeros((0, 2)), box, 10.0)
    assert len(empty) == 0 and empty.d.shape == (0, 2) and empty.counts().shape == (0,)
    # two agents exactly one cutoff apart across the periodic edge
    x = np.array([[0.5, 50.0], [150.5, 50.0]])
    got = check(x, box, 10.0)
    assert np.array_equal(got.i, [0, 1]) and np.array_equal(got.d, [[-10.0, 0.0], [10.0, 0.0]])
    assert len(check(x, box, np.nextafter(10.0, 0))) == 0


@pytest.mark.usefixtures("both_paths")
def test_small_boxes_and_cutoff_at_or_beyond_half_box():
    for seed in range(40):
        rng = np.random.default_rng(500 + seed)
        box = Box(float(rng.choice([1.0, 2.0, 3.0])), float(rng.choice([1.0, 1.5, 2.0])))
        n = int(rng.integers(2, 60))
        x = rng.random((n, 2)) * box.size
        if seed % 3 == 0:  # exact half-box offsets: components at exactly -L/2
            x[1] = (x[0] + box.size / 2) % box.size
        short = min(box.width, box.height)
        for f in (0.3, 0.34, 0.4, 0.49, 0.5, 0.51, 0.7, 1.0, 5.0):
            check(x, box, f * short, msg=f"seed={seed}")
    x = np.random.default_rng(9).random((30, 2))
    got = check(x, Box(1.0, 1.0), np.inf)
    assert len(got) == 30 * 29


def test_non_square_box_160_by_100():
    box = Box(160.0, 100.0)
    for seed in range(10):
        rng = np.random.default_rng(900 + seed)
        x = rng.random((int(rng.integers(100, 300)), 2)) * box.size
        for cutoff in (3.2, 10.0, 49.0, 50.0, 79.0, 80.0, 100.0):
            check(x, box, cutoff, msg=f"seed={seed}")


@pytest.mark.usefixtures("both_paths")
def test_positions_slightly_outside_are_binned_periodically():
    # the contract is [0, L), but x == L or a tiny negative must not break exactness
    box = Box(4.0, 3.0)
    rng = np.random.default_rng(4)
    x = rng.random((80, 2)) * box.size
    x[:5] = [[4.0, 0.0], [0.0, 3.0], [-1e-17, 1.0], [2.0, -1e-15], [4.0, 3.0]]
    for cutoff in (0.2, 0.7, 1.4):
        check(x, box, cutoff, msg="outside", bitwise=False)
    # up to a period outside (e.g. positions before wrapping)
    shift = rng.integers(-1, 2, x.shape) * box.size
    for cutoff in (0.3, 1.1):
        check(x + shift, box, cutoff, msg="a period outside", bitwise=False)
    j, r = cells.nearest_any(x + shift, box)
    jo, ro = oracles.nearest_any(x + shift, box)
    assert np.array_equal(j, jo) and np.allclose(r, ro, rtol=1e-12)
    # x == L and x == 1e-17 are the same point for the minimum image (it rounds to 0)
    x = np.array([[4.0, 0.5], [1e-17, 0.5], [2.0, -1e-17], [2.0, 3.0 - 1e-16]])
    got = check(x, box, 0.0, msg="outside, cutoff 0", bitwise=False)
    assert len(got) == 4


def test_groups_random_and_vicsek_replicas():
    for seed in range(30):
        rng = np.random.default_rng(1000 + seed)
        box = BOXES[seed % len(BOXES)]
        n = int(rng.integers(0, 150))
        x = rng.random((n, 2)) * box.size
        ngroups = int(rng.integers(1, 6))
        g = rng.integers(0, ngroups, n)
        if seed % 3 == 1:  # arbitrary labels, not 0..G-1
            g = np.array([-7, 3, 1000000])[g % 3]
        cutoff = float(rng.choice([0.05, 0.12, 0.3, 0.5])) * min(box.width, box.height)
        got = check(x, box, cutoff, group=g, msg=f"groups seed={seed}")
        assert (g[got.i] == g[got.j]).all()
    # Lab 2 batch: 16 replicas x 64 agents in a unit box, R = 0.12
    rng = np.random.default_rng(8)
    x = rng.random((16 * 64, 2))
    g = np.repeat(np.arange(16), 64)
    got = check(x, Box(1.0, 1.0), 0.12, group=g, msg="vicsek batch")
    # identical to searching each replica on its own
    for rep in (0, 5, 15):
        sel = np.flatnonzero(g == rep)
        alone = cells.neighbour_pairs(x[sel], Box(1.0, 1.0), 0.12)
        mine = got.take(g[got.i] == rep)
        assert np.array_equal(sel[alone.i], mine.i) and np.array_equal(sel[alone.j], mine.j)
        assert np.array_equal(alone.d, mine.d)


def test_many_groups_and_wide_keys(monkeypatch):
    rng = np.random.default_rng(12)
    box = Box(1.0, 1.0)
    x = rng.random((1200, 2))
    g = rng.integers(0, 300, 1200)
    check(x, box, 0.05, group=g, msg="300 groups")
    check(x, box, 0.002, msg="tiny cutoff: mostly empty cells")
    # the int64 key path (used above 65536 cells) gives the same answer
    monkeypatch.setattr(cells, "_KEY16", 0)
    check(x, box, 0.05, group=g, msg="int64 keys, groups")
    check(x, box, 0.03, msg="int64 keys")


def test_output_sort_beyond_16_bit_ids_and_ties():
    # more than 65536 agents needs two 16-bit digits for i; exact ties in r by j
    rng = np.random.default_rng(13)
    m, n = 60000, 300000
    ii = rng.integers(0, n, m)
    ii[:2000] = ii[0]  # one agent with many pairs
    jj = rng.integers(0, n, m)
    rr = rng.choice(np.array([0.0, 1e-300, 0.5, 0.5 + 1e-16, 1.0, 2.0]), m) * rng.choice([1.0, 1.0, 0.999999], m)
    dd = rng.random((m, 2))
    got = cells._emit_sorted(ii, jj, dd[:, 0].copy(), dd[:, 1].copy(), rr, n)
    o = np.lexsort((jj, rr, ii))
    assert np.array_equal(got.i, ii[o]) and np.array_equal(got.j, jj[o])
    assert np.array_equal(got.r, rr[o]) and np.array_equal(got.d, dd[o])


def test_output_invariants():
    box = Box(160.0, 100.0)
    x = np.random.default_rng(21).random((500, 2)) * box.size
    p = cells.neighbour_pairs(x, box, 10.0)
    assert np.array_equal(p.d, displacement(x[p.i], x[p.j], box))
    assert np.array_equal(p.r, np.sqrt(p.d[:, 0] * p.d[:, 0] + p.d[:, 1] * p.d[:, 1]))
    assert (p.i != p.j).all() and (p.r <= 10.0).all()
    # (i, r, j) order
    key_ok = (np.diff(p.i) > 0) | ((np.diff(p.i) == 0) & ((np.diff(p.r) > 0) | ((np.diff(p.r) == 0) & (np.diff(p.j) > 0))))
    assert key_ok.all()
    # both directions present
    fwd = set(zip(p.i.tolist(), p.j.tolist()))
    assert fwd == set(zip(p.j.tolist(), p.i.tolist()))
    assert np.array_equal(p.counts(), np.bincount(p.i, minlength=500))


def test_bad_input():
    box = Box(10.0, 10.0)
    with pytest.raises(ValueError):
        cells.neighbour_pairs(np.array([[1.0, np.nan], [2.0, 2.0]]), box, 1.0)
    with pytest.raises(ValueError):
        cells.neighbour_pairs(np.zeros((3, 3)), box, 1.0)
    with pytest.raises(ValueError):
        cells.neighbour_pairs(np.zeros((3, 2)), box, 1.0, group=np.zeros(2, int))
    # negative / NaN cutoff: no pair can qualify (same as brute force)
    x = np.random.default_rng(0).random((10, 2)) * 10
    assert len(check(x, box, -1.0)) == 0
    assert len(check(x, box, float("nan"))) == 0


# ---------------------------------------------------------------------------
# filters on Pairs
# ---------------------------------------------------------------------------


def test_take_accepts_mask_or_indices():
    box = Box(10.0, 10.0)
    p = cells.neighbour_pairs(np.random.default_rng(2).random((60, 2)) * 10, box, 2.0)
    mask = p.r < 1.0
    a, b = p.take(mask), p.take(np.flatnonzero(mask))
    assert_same_pairs(a, b)
    assert a.n == p.n == 60


def _view_cases(seed0, n_min, n_max, tied_headings):
    """25 random flocks for the field-of-view tests: (seed, box, x, u), some with three
    coincident agents, and with ``tied_headings`` some where every other agent shares one
    heading (exact ties with the cone's edge)."""
    for seed in range(25):
        rng = np.random.default_rng(seed0 + seed)
        box = BOXES[seed % len(BOXES)]
        n = int(rng.integers(n_min, n_max))
        x = rng.random((n, 2)) * box.size
        if seed % 4 == 0 and n > 4:
            x[:3] = x[3]  # coincident: visible
        th = rng.random(n) * 2 * np.pi
        if tied_headings and seed % 5 == 0:
            th[::2] = th[0]
        yield seed, box, x, np.stack((np.cos(th), np.sin(th)), axis=1)


def test_field_of_view_of_half_pairs_is_that_of_the_ordered_pairs():
    """Half pairs in view come back as ordered pairs: the same pairs, in the same order and
    with the same bits (signs of zero too) as the view of the ordered search, and as the
    per-pair loop over ``full()``; with coincident agents (visible both ways) and
    neighbours straight behind (seen by neither's cone of 0 degrees)."""
    for seed, box, x, u in _view_cases(7000, 2, 150, tied_headings=True):
        cutoff = 0.3 * min(box.width, box.height)
        h = cells.neighbour_pairs(x, box, cutoff, sort=False, half=True)
        ordered = cells.neighbour_pairs(x, box, cutoff, sort=False)
        assert h.half and not ordered.half and 2 * len(h) == len(ordered)
        for half in (np.radians(135.0), np.pi / 2, 0.0, np.pi):
            got = cells.in_field_of_view(h, u, half)
            assert not got.half
            assert_same_pairs(got, cells.in_field_of_view(ordered, u, half), msg=f"seed={seed}")
            assert_same_pairs(got, oracles.in_field_of_view(h.full(), u, half), msg=f"seed={seed}")


def test_field_of_view_matches_per_pair_loop():
    for seed, box, x, u in _view_cases(2000, 0, 120, tied_headings=False):
        p = cells.neighbour_pairs(x, box, 0.3 * min(box.width, box.height))
        for half in (np.radians(135.0), np.pi / 2, 0.0, np.pi):
            assert_same_pairs(cells.in_field_of_view(p, u, half), oracles.in_field_of_view(p, u, half), msg=f"seed={seed}")
    # 270 degrees: straight behind is excluded, 134 degrees off is seen
    box = Box(100.0, 100.0)
    x = np.array([[50.0, 50.0], [45.0, 50.0], [50 + np.cos(np.radians(134)), 50 + np.sin(np.radians(134))]])
    u = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    seen = cells.in_field_of_view(cells.neighbour_pairs(x, box, 10.0), u, np.radians(135.0))
    assert set(seen.j[seen.i == 0].tolist()) == {2}


def test_k_nearest_with_ties_by_id():
    for seed in range(25):
        rng = np.random.default_rng(3000 + seed)
        box = BOXES[seed % len(BOXES)]
        if seed % 2:
            x = lattice(box, 6, 5)  # many exactly equal distances: ties by j
        else:
            x = rng.random((int(rng.integers(0, 100)), 2)) * box.size
        p = cells.neighbour_pairs(x, box, 0.45 * min(box.width, box.height))
        for k in (0, 1, 2, 3, 7, 1000):
            got = cells.k_nearest(p, k)
            assert_same_pairs(got, oracles.k_nearest(p, k), msg=f"seed={seed} k={k}")
            assert (got.counts() == np.minimum(p.counts(), k)).all()


# ---------------------------------------------------------------------------
# nearest_any
# ---------------------------------------------------------------------------


def check_nearest(x, box, group=None, msg=""):
    j, r = cells.nearest_any(x, box, group)
    jo, ro = oracles.nearest_any(x, box, group)
    assert j.dtype == np.intp and r.dtype == np.float64
    assert np.array_equal(j, jo), msg
    assert np.array_equal(r, ro), msg
    return j, r


def test_nearest_any_random_seeds():
    for seed in range(120):
        rng = np.random.default_rng(4000 + seed)
        box = BOXES[seed % len(BOXES)]
        n = int(rng.integers(0, 200))
        x = rng.random((n, 2)) * box.size
        g = rng.integers(0, int(rng.integers(1, 5)), n) if seed % 3 == 0 else None
        check_nearest(x, box, g, msg=f"seed={seed}")


def test_nearest_any_clusters_stragglers_and_ties():
    box = Box(160.0, 100.0)
    rng = np.random.default_rng(5)
    # tight flocks plus a few lonely agents far away: several ring sizes
    cen = rng.random((3, 2)) * box.size
    x = (cen[rng.integers(0, 3, 600)] + rng.normal(0, 0.5, (600, 2))) % box.size
    x = np.concatenate((x, [[1.0, 1.0], [80.0, 99.9], [159.9, 50.0]]))
    check_nearest(x, box, msg="clusters")
    # lattice: every agent has 4 nearest at exactly the same distance -> smallest id
    for nx, ny in ((8, 5), (3, 3), (16, 10)):
        check_nearest(lattice(box, nx, ny), box, msg=f"lattice {nx}x{ny}")
    # coincident agents, all at one point, positions at 0 and just below L
    base = rng.random((20, 2)) * box.size
    check_nearest(np.concatenate((base, base, [[0.0, 0.0], [np.nextafter(160.0, 0), np.nextafter(100.0, 0)]])), box)
    j, r = check_nearest(np.full((40, 2), 3.0), box)
    assert (r == 0).all() and j[0] == 1 and (j[1:] == 0).all()


def test_nearest_any_near_ties_on_a_circle():
    # many agents at (nearly) the same distance around one agent: the cheap squared
    # distance may order them differently from the exact hypot; the exact one wins
    box = Box(160.0, 100.0)
    for seed in range(40):
        rng = np.random.default_rng(6000 + seed)
        c = rng.random(2) * box.size
        rad = float(rng.choice([0.3, 1.0, 2.5, 7.0]))
        th = rng.random(40) * 2 * np.pi
        ring = c + rad * np.stack((np.cos(th), np.sin(th)), axis=1)
        axes = c + rad * np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
        x = np.concatenate(([c], ring, axes)) % box.size
        check_nearest(x, box, msg=f"circle seed={seed}")


def test_nearest_any_does_not_trust_a_ring_beyond_its_radius():
    # Agent A sits on a cell wall.  B lies inside the searched block just beyond
    # the guaranteed radius s; C lies just outside the block and is nearer than B.
    # 64 agents in a unit box give cells of 1/8; rings of 1, 2 and 4 cells are hit.
    h = 1.0 / 8
    # fillers at least 0.26 away from A, B and C
    fill = np.stack(np.meshgrid(np.arange(8) / 8 + 1 / 16, 0.45 + np.arange(8) * 0.05), -1).reshape(-1, 2)[:61]
    for s in (h, 2 * h, 1.5 * h, h * (1 - 1e-12)):
        a = [0.0, 0.1875]
        b = [s * (1 + 5e-5), 0.1875]
        c = [1.0 - s * (1 + 1e-5), 0.1875]
        x = np.concatenate(([a, b, c], fill))
        j, r = check_nearest(x, Box(1.0, 1.0), msg=f"s={s}")
        assert j[0] == 2


def test_nearest_any_small_populations_and_groups():
    box = Box(1.0, 1.0)
    for n in (0, 1, 2, 3):
        j, r = check_nearest(np.random.default_rng(n).random((n, 2)), box)
        if n == 1:
            assert j[0] == -1 and r[0] == np.inf
    # an agent alone in its replica
    x = np.random.default_rng(1).random((10, 2))
    g = np.array([0, 0, 0, 1, 2, 2, 2, 2, 3, 3])
    j, r = check_nearest(x, box, g)
    assert j[3] == -1 and r[3] == np.inf and (j[[0, 1, 2, 4, 5, 6, 7, 8, 9]] >= 0).all()
    # Lab 2 batch
    rng = np.random.default_rng(2)
    check_nearest(rng.random((16 * 64, 2)), box, np.repeat(np.arange(16), 64), msg="vicsek batch")
    # narrow and tiny boxes
    for b in (Box(3.0, 0.5), Box(0.2, 7.0), Box(1e-3, 1e-3)):
        check_nearest(rng.random((50, 2)) * b.size, b, msg=str(b))


def test_nearest_any_memory_chunks(monkeypatch):
    # force many small chunks of queries; results must not change
    monkeypatch.setattr(cells, "_CHUNK", 50)
    box = Box(160.0, 100.0)
    rng = np.random.default_rng(6)
    x = np.concatenate((rng.random((300, 2)) * box.size, np.full((30, 2), 5.0)))
    check_nearest(x, box, msg="chunked")
    check_nearest(x, box, rng.integers(0, 3, x.shape[0]), msg="chunked groups")


def check_query(x, box, query, group=None, msg=""):
    """nearest_any(query=...) against the oracle's full answer at the same agents."""
    query = np.asarray(query, dtype=np.intp)
    j, r = cells.nearest_any(x, box, group, query=query)
    jo, ro = oracles.nearest_any(x, box, group)
    assert j.dtype == np.intp and r.dtype == np.float64, msg
    assert j.shape == query.shape and r.shape == query.shape, msg
    assert np.array_equal(j, jo[query]), msg
    assert np.array_equal(r.view(np.int64), ro[query].view(np.int64)), msg  # bit for bit
    return j, r


@pytest.mark.parametrize("brute", [True, False])  # direct comparison, or the ring search
def test_nearest_any_query_random_seeds(brute, monkeypatch):
    if not brute:
        monkeypatch.setattr(cells, "_BRUTE", 0)
    for seed in range(80):
        rng = np.random.default_rng(7000 + seed)
        box = BOXES[seed % len(BOXES)]
        n = int(rng.integers(0, 250))
        x = rng.random((n, 2)) * box.size
        if seed % 4 == 1 and n > 3:  # clusters plus stragglers
            x[: n // 2] = (x[0] + rng.normal(0, 0.01, (n // 2, 2)) * box.size) % box.size
        g = rng.integers(0, int(rng.integers(1, 4)), n) if seed % 3 == 0 else None
        q = rng.integers(0, n, int(rng.integers(0, n + 5))) if n else np.zeros(0, np.int64)  # repeats allowed
        check_query(x, box, q, g, msg=f"seed={seed} brute={brute}")
        check_query(x, box, np.arange(n)[::-1], g, msg=f"all, reversed, seed={seed}")


@pytest.mark.parametrize("brute", [True, False])
def test_nearest_any_query_edge_cases(brute, monkeypatch):
    if not brute:
        monkeypatch.setattr(cells, "_BRUTE", 0)
    box = Box(160.0, 100.0)
    rng = np.random.default_rng(8)
    # N = 0, 1, 2: empty query, the lone agent (j = -1, r = inf), both of two
    j, r = check_query(np.zeros((0, 2)), box, [])
    j, r = check_query(np.array([[3.0, 4.0]]), box, [0])
    assert j[0] == -1 and r[0] == np.inf
    j, r = check_query(np.array([[3.0, 4.0], [159.0, 99.0]]), box, [1, 0])
    assert (j == [0, 1]).all() and r[0] == r[1]
    x = rng.random((300, 2)) * box.size
    # none queried ("none isolated") and every agent queried ("all isolated")
    j, r = check_query(x, box, [])
    assert j.size == 0 and r.size == 0
    check_query(x, box, np.arange(300))
    # sparse stragglers far from a tight flock: only the stragglers queried
    flock = (np.array([40.0, 30.0]) + rng.normal(0, 0.3, (400, 2))) % box.size
    lone = np.array([[150.0, 90.0], [100.0, 5.0], [0.0, 0.0], [np.nextafter(160.0, 0), 60.0]])
    xs = np.concatenate((flock, lone))
    check_query(xs, box, np.arange(400, 404), msg="stragglers")
    # coincident agents: distance 0, ties by the smaller index
    xc = np.concatenate((np.full((5, 2), 7.0), rng.random((20, 2)) * box.size))
    j, r = check_query(xc, box, [4, 0, 2, 24])
    assert (r[:3] == 0).all() and j[0] == 0 and j[1] == 1 and j[2] == 0
    # lattice: exact ties at equal distances go to the smaller index
    check_query(lattice(box, 8, 5), box, [0, 7, 39, 20], msg="lattice")
    # replicas: an agent alone in its replica
    g = np.array([0, 0, 1, 2, 2])
    j, r = check_query(rng.random((5, 2)) * box.size, box, [2, 0, 4], g)
    assert j[0] == -1 and r[0] == np.inf


def test_nearest_any_query_validation():
    x = np.random.default_rng(9).random((10, 2))
    box = Box(1.0, 1.0)
    for bad in ([10], [-1], [[0, 1]], [0.5], np.array([True, False])):
        with pytest.raises(ValueError):
            cells.nearest_any(x, box, query=np.asarray(bad))


def test_nearest_any_query_memory_chunks(monkeypatch):
    monkeypatch.setattr(cells, "_CHUNK", 50)
    monkeypatch.setattr(cells, "_BRUTE", 0)
    box = Box(160.0, 100.0)
    rng = np.random.default_rng(10)
    x = np.concatenate((rng.random((300, 2)) * box.size, np.full((30, 2), 5.0)))
    check_query(x, box, rng.integers(0, 330, 120), msg="chunked")


@pytest.mark.parametrize("seed", range(6))
def test_unsorted_output_is_the_same_set_of_pairs(seed):
    """sort=False skips only the output sort: the same pairs, vectors and distances."""
    rng = np.random.default_rng(1000 + seed)
    box = Box(160.0, 100.0) if seed % 2 else Box(1.0, 1.0)
    n = int(rng.integers(2, 600))
    x = rng.random((n, 2)) * box.size
    cutoff = float(rng.uniform(0.02, 0.3)) * box.height
    a = cells.neighbour_pairs(x, box, cutoff)
    b = cells.neighbour_pairs(x, box, cutoff, sort=False)
    order = np.lexsort((b.j, b.r, b.i))
    assert np.array_equal(a.i, b.i[order]) and np.array_equal(a.j, b.j[order])
    assert np.array_equal(a.d, b.d[order]) and np.array_equal(a.r, b.r[order])


# ---------------------------------------------------------------------------
# half pairs and Pairs.sum_by_i
# ---------------------------------------------------------------------------


def _as_set(p):
    return {(int(a), int(b)): (float(dx), float(dy), float(r))
            for a, b, dx, dy, r in zip(p.i, p.j, p.dx, p.dy, p.r)}


def test_half_pairs_are_each_unordered_pair_once_and_expand_to_the_full_form():
    for seed in range(16):
        rng = np.random.default_rng(500 + seed)
        box = BOXES[seed % len(BOXES)]
        n = int(rng.integers(0, 240))
        x = rng.random((n, 2)) * box.size
        cutoff = float(rng.choice([0.01, 0.05, 0.1, 0.2, 0.3, 0.45])) * min(box.width, box.height)
        want = oracles.neighbour_pairs(x, box, cutoff)
        half = cells.neighbour_pairs(x, box, cutoff, half=True)
        assert half.half and len(half) * 2 == len(want), f"seed={seed}"
        assert half.i.dtype == np.intp and half.j.dtype == np.intp
        keys = {frozenset((int(a), int(b))) for a, b in zip(half.i, half.j)}
        assert len(keys) == len(half)  # no pair twice, in either direction
        # both directions, bit for bit, as the oracle lists them
        assert _as_set(half.full()) == _as_set(want), f"seed={seed}"
        # and the sorted form of the expansion is the oracle itself
        full = half.full()
        got = cells._emit_sorted(full.i, full.j, full.dx.copy(), full.dy.copy(), full.r, full.n)
        assert_same_pairs(got, want, msg=f"seed={seed}")


@pytest.mark.usefixtures("both_paths")
def test_half_pairs_fall_back_to_full_where_the_reverse_is_not_minus_d():
    box = Box(3.0, 2.0)
    x = lattice(box, 6, 4)  # components at exactly L/2
    p = cells.neighbour_pairs(x, box, 1.5, half=True)
    assert not p.half
    assert_same_pairs(cells._emit_sorted(p.i, p.j, p.dx.copy(), p.dy.copy(), p.r, p.n),
                      oracles.neighbour_pairs(x, box, 1.5))


def test_sum_by_i_on_half_pairs_matches_the_full_form():
    box = Box(160.0, 100.0)
    for seed in range(3):
        rng = np.random.default_rng(700 + seed)
        n = 500
        x = rng.random((n, 2)) * box.size
        v = rng.normal(size=(n, 2))
        full = cells.neighbour_pairs(x, box, 10.0, sort=False)
        half = cells.neighbour_pairs(x, box, 10.0, half=True)
        assert np.array_equal(half.counts(), full.counts())
        assert np.array_equal(full.counts(), np.bincount(full.i, minlength=n))
        w_f = 1.0 / (full.r * full.r + 1.0)
        w_h = 1.0 / (half.r * half.r + 1.0)
        # odd: symmetric weight times the displacement (separation, cohesion)
        sf = full.sum_by_i((w_f * full.dx, w_f * full.dy))
        sh = half.sum_by_i((w_h * half.dx, w_h * half.dy), odd=True)
        assert sf.shape == sh.shape == (n, 2)
        np.testing.assert_allclose(sh, sf, rtol=1e-12, atol=1e-12)
        # even: a function of r only
        np.testing.assert_allclose(half.sum_by_i(w_h), full.sum_by_i(w_f), rtol=1e-12, atol=1e-12)
        # v_j - v_i is odd too (alignment's form)
        dvx_f = v[:, 0][full.j] - v[:, 0][full.i]
        dvx_h = v[:, 0][half.j] - v[:, 0][half.i]
        np.testing.assert_allclose(half.sum_by_i(dvx_h, odd=True), full.sum_by_i(dvx_f), atol=1e-12)
        # the oracle: a per-pair loop
        want = np.zeros(n)
        for a, w in zip(full.i.tolist(), (w_f * full.dx).tolist()):
            want[a] += w
        np.testing.assert_allclose(sf[:, 0], want, rtol=1e-12, atol=1e-12)
    # full pairs ignore ``odd`` (each direction is listed)
    assert np.array_equal(full.sum_by_i(w_f, odd=True), full.sum_by_i(w_f))


def test_half_and_full_pairs_with_groups_and_empty_input():
    rng = np.random.default_rng(9)
    x = rng.random((16 * 64, 2))
    g = np.repeat(np.arange(16), 64)
    half = cells.neighbour_pairs(x, Box(1.0, 1.0), 0.12, group=g, half=True)
    assert half.half and (g[half.i] == g[half.j]).all()
    assert _as_set(half.full()) == _as_set(oracles.neighbour_pairs(x, Box(1.0, 1.0), 0.12, g))
    e = cells.neighbour_pairs(np.zeros((1, 2)), Box(1.0, 1.0), 0.1, half=True)
    assert len(e) == 0 and e.half and e.sum_by_i(np.zeros(0), odd=True).shape == (1,)
    assert e.sum_by_i((np.zeros(0), np.zeros(0))).shape == (1, 2)


def test_slot_images_give_the_minimum_image_bit_for_bit(monkeypatch):
    """From _IMAGES_MIN candidates on, the search subtracts each half-shell slot's image
    (_half_shifts) instead of computing the minimum image per candidate.  Forced on for
    every size here: the same pairs, in the same order, with the same bits (signs of zero
    included) as the per-candidate path, and sorted, as brute force."""
    calls = []
    real = cells._subtract_images
    monkeypatch.setattr(cells, "_subtract_images", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(cells, "_ALL_PAIRS", -1)
    cases = []
    for seed in range(40):
        rng = np.random.default_rng(2000 + seed)
        box = BOXES[seed % len(BOXES)] if seed % 5 else Box(float(rng.uniform(5, 50)), float(rng.uniform(5, 50)))
        n = int(rng.integers(2, 400))
        x = rng.random((n, 2)) * box.size
        if seed % 3 == 0:  # crowd the edges: positions at 0 and just below L
            edge = rng.random(n) < 0.4
            x[edge, 0] = rng.choice([0.0, np.nextafter(box.width, 0.0)], edge.sum())
            x[rng.random(n) < 0.2, 1] = np.nextafter(box.height, 0.0)
        cutoff = float(rng.choice([0.03, 0.1, 0.2, 0.3, 0.45])) * float(min(box.width, box.height))
        group = rng.integers(0, 3, n) if seed % 4 == 1 else None
        cases.append((x, box, cutoff, group, seed % 7 == 2 and 2 or None))
    for box in BOXES[:2]:  # agents exactly on cell edges, pairs at exactly the cutoff
        h = box.width / 16
        cases += [(lattice(box, 16, 10), box, c, None, None) for c in (h, 2 * h, h * (1 + 1e-15))]
    for k, (x, box, cutoff, group, m) in enumerate(cases):
        msg = f"case {k} n={len(x)} box={box} cutoff={cutoff} groups={group is not None} m={m}"
        monkeypatch.setattr(cells, "_IMAGES_MIN", 0)
        got = [cells.neighbour_pairs(x, box, cutoff, group, cells_per_cutoff=m, sort=s, half=h)
               for s, h in ((True, False), (False, False), (False, True))]
        monkeypatch.setattr(cells, "_IMAGES_MIN", 1 << 62)
        want = [cells.neighbour_pairs(x, box, cutoff, group, cells_per_cutoff=m, sort=s, half=h)
                for s, h in ((True, False), (False, False), (False, True))]
        for g, w in zip(got, want):
            assert g.half == w.half, msg
            assert_same_pairs(g, w, msg=msg)
        assert_same_pairs(got[0], oracles.neighbour_pairs(x, box, cutoff, group), msg=msg)
    assert len(calls) > 100  # the slot images were taken (not the per-candidate fallback)


def test_exact_filter_threshold_is_the_largest_square_with_sqrt_within_the_cutoff():
    for c in (0.0, 1e-300, 0.1, 0.12, 1.0, 3.2, 10.0, 23.0, 1e300, np.nextafter(10.0, 0.0)):
        t = cells._r2_max(float(c))
        assert math.sqrt(t) <= c and not math.sqrt(math.nextafter(t, math.inf)) <= c, c
    assert cells._r2_max(float("inf")) == float("inf")


@pytest.mark.usefixtures("both_paths")
def test_reciprocal_min_image_near_half_the_box():
    # the search multiplies by 1/L instead of dividing when the positions are inside the
    # box and cutoff < L/2: pairs whose raw separation sits at ~L/2 (where d*(1/L) and
    # d/L may round apart) must still come out exactly as brute force
    box = Box(3.0, 1.0)
    rng = np.random.default_rng(31)
    base = rng.random((80, 2)) * box.size
    other = (base + np.array([1.5, 0.5]) + rng.integers(-3, 4, (80, 2)) * 2.0 ** -51) % box.size
    x = np.concatenate((base, other))
    for cutoff in (0.4999, 0.49999999, 0.3, np.nextafter(0.5 / (1 + 1e-9), 0)):
        check(x, box, float(cutoff), msg="near L/2")
        check(x, box, float(cutoff), msg="near L/2 unsorted", sort=True)
