"""Lab 3 engine (Reynolds boids): rules vs brute force, limits, determinism, behaviour.

Behaviour tests are judged over several samples (seeds); each compares against
a baseline (the random start, another preset, the treat position) or against the
goals of SPEC.md / issue 13 (the liveliness measures), never against hard-coded
trajectories.
"""

import math
from dataclasses import replace

import numpy as np
import pytest

from swarmlab import boids as B
from swarmlab import cells, metrics
from swarmlab.rules_boids import steering
from swarmlab.space import Box, displacement, distance

SEEDS = (1, 2, 3, 4)


def rules(state, p, radius=None):
    """The built-in rule function on a state's own neighbour search (as boids.step calls it)."""
    pairs = cells.neighbour_pairs(state.x, p.box, p.reach if radius is None else radius)
    return steering(pairs.i.astype(np.intp), pairs.j.astype(np.intp), pairs.d, pairs.r, state.v, p)


# ----------------------------------------------------------------------------------------
# brute-force oracle: per-boid Python loops, every vector via space.displacement, every
# angle by math.atan2 (an independent route to the field-of-view test)


def brute_requests(x, v, box, p):
    """The three weighted, capped steering requests of every boid, by loops."""
    n = len(x)
    half = math.radians(p.view) / 2
    out = np.zeros((3, n, 2))
    for i in range(n):
        sp = math.hypot(*v[i])
        hi = math.atan2(v[i][1], v[i][0])
        sep = np.zeros(2)
        ali, coh = [], []
        for j in range(n):
            if j == i:
                continue
            d = displacement(x[i], x[j], box)  # i -> j
            r = math.hypot(d[0], d[1])
            if p.view < 360 and r > 0:
                off = abs(math.remainder(math.atan2(d[1], d[0]) - hi, 2 * math.pi))
                if off > half + 1e-9:
                    continue
            if r <= p.sep_radius:
                sep += displacement(x[j], x[i], box) / (r * r + B.EPS)
            if r <= p.radius:
                ali.append(v[j])
            if r <= p.coh_radius:
                coh.append(d)
        rules = (sep, np.mean(ali, axis=0) if ali else np.zeros(2), np.mean(coh, axis=0) if coh else np.zeros(2))
        for k, (w, rule) in enumerate(zip((p.k_sep, p.k_ali, p.k_coh), rules)):
            m = math.hypot(*rule)
            if m == 0 or w == 0:
                continue
            st = p.v_max * rule / m - v[i]
            ms = math.hypot(*st)
            if ms > p.max_force:
                st = st * p.max_force / ms
            out[k, i] = w * st
        assert sp > 0
    return out


def brute_allocate(reqs, budget):
    a = np.zeros(reqs.shape[1:])
    for i in range(reqs.shape[1]):
        left = budget
        for req in reqs[:, i]:
            m = math.hypot(*req)
            take = min(m, left)
            if m > 0:
                a[i] += req * take / m
            left -= take
    return a


def brute_step(x, v, box, p, treat=None):
    a = brute_allocate(brute_requests(x, v, box, p), p.max_force)
    if treat is not None and treat.on:
        for i in range(len(x)):
            d = displacement(x[i], np.array([treat.x, treat.y]), box)
            a[i] += B.TREAT_RATE * (p.v_max * d / math.hypot(*d) - v[i])
    vn = v + a * B.DT
    for i in range(len(x)):
        s = math.hypot(*vn[i])
        vn[i] *= min(max(s, p.v_min), p.v_max) / s
    xn = np.mod(x + vn * B.DT, box.size)
    return xn, vn


def small_random_state(seed, n=40, box=Box(24.0, 18.0)):
    rng = np.random.default_rng(seed)
    x = rng.random((n, 2)) * box.size
    v = rng.normal(size=(n, 2)) * 4.0
    return x, v, box


def random_params(seed, box, n):
    rng = np.random.default_rng(100 + seed)
    r = [float(rng.uniform(1.0, 8.0)) for _ in range(3)]
    return B.Params(width=box.width, height=box.height, population=n,
                    k_sep=float(rng.uniform(0, 3)), k_ali=float(rng.uniform(0, 3)), k_coh=float(rng.uniform(0, 3)),
                    sep_radius=r[0], radius=r[1], coh_radius=r[2], view=float(rng.choice([90.0, 200.0, 300.0, 360.0])),
                    max_force=float(rng.uniform(2.0, 20.0)), v_min=2.0, v_max=float(rng.uniform(5.0, 12.0)))


@pytest.mark.parametrize("seed", SEEDS)
def test_rule_vectors_match_brute_force_across_the_wrap(seed):
    x, v, box = small_random_state(seed)
    radius = 6.0  # a quarter of the box: many pairs meet across the wrap
    pairs = cells.neighbour_pairs(x, box, radius)
    raw = x[pairs.j] - x[pairs.i]
    assert np.count_nonzero(np.abs(raw - pairs.d).max(axis=1) > 1.0) > 10
    sep = np.zeros((len(x), 2))
    ali = np.zeros((len(x), 2))
    coh = np.zeros((len(x), 2))
    for i in range(len(x)):
        nb = [j for j in range(len(x)) if j != i and distance(x[i], x[j], box) <= radius]
        for j in nb:
            d = displacement(x[j], x[i], box)
            sep[i] += d / (d @ d + B.EPS)
        if nb:
            ali[i] = np.mean(v[nb], axis=0)
            coh[i] = np.mean([displacement(x[i], x[j], box) for j in nb], axis=0)
    # steering() asks each rule for a direction only: with one weight on, all round view, an
    # unlimited budget and v = 0 its answer is v_max * rule / |rule|, so each rule's direction
    # (and where it is exactly 0) is read off against the loops above.
    state = B.BoidsState(x=x, v=np.zeros_like(v), ids=np.arange(len(x)))
    base = B.Params(width=box.width, height=box.height, population=len(x), view=360.0, max_force=1e9,
                    v_min=0.5, v_max=2.0, sep_radius=radius, radius=radius, coh_radius=radius)
    state_v = B.BoidsState(x=x, v=v, ids=np.arange(len(x)))
    for name, want, st in (("k_sep", sep, state), ("k_ali", ali, state_v), ("k_coh", coh, state)):
        p = replace(base, **{k: float(k == name) for k in ("k_sep", "k_ali", "k_coh")})
        got = rules(st, p)
        m = np.hypot(want[:, 0], want[:, 1])[:, None]
        some = m[:, 0] > 0
        assert np.all(got[~some] == 0.0)  # nobody in range: no request at all
        np.testing.assert_allclose(got[some] + st.v[some], p.v_max * want[some] / m[some], rtol=1e-9, atol=1e-10)
        assert np.count_nonzero(m) > 10


def test_blind_cone_behind():
    # straight ahead, beside and behind, for a boid heading +x with a 270 degree view: only the
    # neighbours it sees pull it (cohesion only, unlimited budget)
    x = np.array([[10.0, 10.0], [12.0, 10.0], [10.0, 12.0], [8.0, 10.0], [8.2, 9.0]])
    v = np.array([[1.0, 0.0]] * 5)
    p = B.Params(width=50.0, height=50.0, population=5, view=270.0, k_sep=0.0, k_ali=0.0, k_coh=1.0,
                 coh_radius=5.0, max_force=1e9, v_min=0.5, v_max=2.0)  # an unlimited budget (not a slider value)
    for others, seen in (([1], True), ([2], True), ([3], False), ([4], False), ([3, 4], False)):
        st = B.BoidsState(x=x[[0] + others], v=v[[0] + others], ids=np.arange(1 + len(others)))
        a0 = rules(st, replace(p, population=st.n))[0]
        assert np.any(a0 != 0.0) == seen, others
    assert B.cos_half_view(360.0) == -1.0 and B.cos_half_view(180.0) == pytest.approx(0.0, abs=1e-16)


@pytest.mark.parametrize("seed", SEEDS)
def test_step_matches_brute_force_with_random_settings_and_treat(seed):
    x, v, box = small_random_state(seed)
    p = random_params(seed, box, len(x))
    treat = B.Treat(True, 3.0 * seed, 17.0 - seed) if seed % 2 else None
    state = B.BoidsState(x=x.copy(), v=v.copy(), ids=np.arange(len(x)))
    np.testing.assert_allclose(rules(state, p), brute_allocate(brute_requests(x, v, box, p), p.max_force),
                               rtol=1e-9, atol=1e-10)
    new = B.step(state, p, treat)
    xb, vb = brute_step(x, v, box, p, treat)
    np.testing.assert_allclose(new.v, vb, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(distance(new.x, xb, box), 0.0, atol=1e-9)
    assert new.t == pytest.approx(B.DT) and new.steps == 1


def test_prioritised_allocation_serves_separation_first():
    rng = np.random.default_rng(5)
    reqs = [rng.normal(size=(200, 2)) * s for s in (3.0, 2.0, 4.0)]
    for budget in (0.5, 3.0, 8.0, 100.0):
        a = B.allocate(reqs, budget)
        np.testing.assert_allclose(a, brute_allocate(np.array(reqs), budget), rtol=1e-12, atol=1e-12)
        assert np.all(B.norm(a) <= budget * (1 + 1e-12))
    # a big separation request takes the whole budget: alignment and cohesion get nothing
    sep = np.array([[6.0, 0.0]])
    ali = np.array([[0.0, 1.0]])
    coh = np.array([[0.0, -1.0]])
    np.testing.assert_allclose(B.allocate([sep, ali, coh], 5.0), [[5.0, 0.0]])
    # with room to spare, each is served in full in turn, the last one trimmed
    np.testing.assert_allclose(B.allocate([np.array([[2.0, 0.0]]), ali, np.array([[0.0, -4.0]])], 5.0), [[2.0, -1.0]])
    np.testing.assert_allclose(B.allocate([np.zeros((1, 2)), ali, coh], 5.0), [[0.0, 0.0]])


def test_steering_is_desired_minus_current_capped():
    v = np.array([[5.0, 0.0], [5.0, 0.0], [5.0, 0.0]])
    rule = np.array([[1.0, 0.0], [0.0, 3.0], [0.0, 0.0]])
    out = B.steer(rule, v, 8.0, 4.0)
    np.testing.assert_allclose(out[0], [3.0, 0.0])  # full speed ahead: speed up by 3
    assert math.hypot(*out[1]) == pytest.approx(4.0)  # (-5, 8) capped at 4, same direction
    np.testing.assert_allclose(out[1] / 4.0, np.array([-5.0, 8.0]) / math.hypot(5, 8))
    assert np.all(out[2] == 0.0)  # nobody in range: no request


def test_steering_is_taken_per_steer_time(monkeypatch):
    """The page writes s = cap((v_max r/|r| - v) / tau, F) with tau = STEER_TIME (1 s): the
    steering is an acceleration.  At 1 s the division is left out (the same bits); any other
    value divides the velocity difference before the cap."""
    assert B.STEER_TIME == 1.0
    v = np.array([[5.0, 0.0], [5.0, 0.0]])
    rule = np.array([[1.0, 0.0], [0.0, 3.0]])
    monkeypatch.setattr(B, "STEER_TIME", 2.0)
    out = B.steer(rule, v, 8.0, 4.0)
    np.testing.assert_allclose(out[0], [1.5, 0.0])  # (8 - 5) / 2 s: under the cap
    np.testing.assert_allclose(out[1], 4.0 * np.array([-5.0, 8.0]) / math.hypot(5, 8))  # capped as before


def test_a_rule_with_weight_zero_contributes_nothing():
    x, v, box = small_random_state(9)
    p = B.Params(width=box.width, height=box.height, population=len(x), radius=6.0, coh_radius=8.0, view=360.0)
    st = B.BoidsState(x=x, v=v, ids=np.arange(len(x)))
    for name in ("k_sep", "k_ali", "k_coh"):
        q = p.with_values(**{name: 0.0})
        want = brute_requests(x, v, box, q)
        assert np.all(want[("k_sep", "k_ali", "k_coh").index(name)] == 0.0)
        np.testing.assert_allclose(rules(st, q), brute_allocate(want, q.max_force), rtol=1e-9, atol=1e-10)
    pairs = cells.neighbour_pairs(x, box, p.reach)
    none = B.acceleration(st, pairs, p.with_values(k_sep=0, k_ali=0, k_coh=0))
    assert np.all(none == 0.0)


def test_lonely_boid_feels_no_rule():
    x = np.array([[10.0, 10.0], [12.0, 10.0], [60.0, 60.0]])
    v = np.array([[1.0, 0.0], [-1.0, 0.0], [5.0, 5.0]])
    p = B.Params(width=100.0, height=100.0, population=3, view=360.0)
    a = rules(B.BoidsState(x=x, v=v, ids=np.arange(3)), p)
    assert np.all(a[2] == 0.0)
    assert np.any(a[0] != 0.0)


def test_eps_keeps_coincident_and_touching_boids_finite():
    box = Box(50.0, 50.0)
    x = np.array([[20.0, 20.0], [20.0, 20.0], [20.0, 20.0 + math.sqrt(B.EPS)], [20.0, 20.0 + 1e-12]])
    sep = B.Params(width=50.0, height=50.0, population=4, view=360.0, k_sep=1.0, k_ali=0.0, k_coh=0.0)
    v = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    st = B.BoidsState(x=x, v=v, ids=np.arange(4))
    assert np.all(np.isfinite(rules(st, sep)))
    # a pair at distance sqrt(eps) or 1e-12 is pushed apart, along the line between them
    for k in (2, 3):
        two = B.BoidsState(x=x[[0, k]], v=np.zeros((2, 2)) + [1e-9, 0.0], ids=np.arange(2))
        a = rules(two, replace(sep, population=2, max_force=1e9))
        assert a[0][1] < 0 < a[1][1]
    # exactly coincident boids push each other with exactly zero
    pile = B.BoidsState(x=x[[0, 1]], v=v[:2], ids=np.arange(2))
    assert np.all(rules(pile, sep.with_values(population=2)) == 0.0)
    # a whole step of a crowd piled onto one point stays finite and in range
    p = B.Params(population=20, k_sep=3.0)
    st = B.BoidsState(x=np.full((20, 2), 30.0), v=B.initial_state(p).v, ids=np.arange(20))
    st = B.run(st, p, 20)
    assert np.all(np.isfinite(st.x)) and np.all(np.isfinite(st.v))


@pytest.mark.parametrize("seed", SEEDS)
def test_speed_and_force_limits_hold_under_extreme_settings(seed):
    p = B.Params(population=200, sample=seed, k_sep=3.0, k_ali=3.0, k_coh=3.0, radius=30.0, view=360.0)
    st = B.initial_state(p)
    treat = B.Treat(True, 80.0, 50.0)
    for k in range(60):
        pairs = cells.neighbour_pairs(st.x, p.box, p.reach)
        a = B.acceleration(st, pairs, p)
        assert np.all(B.norm(a) <= p.max_force * (1 + 1e-12))  # the budget, whatever the weights
        st = B.step(st, p, treat if k < 30 else None)
        s = B.norm(st.v)
        assert s.min() >= p.v_min * (1 - 1e-12) and s.max() <= p.v_max * (1 + 1e-12)
        assert np.all((st.x >= 0) & (st.x < p.box.size))


def test_limit_speed_keeps_heading_and_handles_zero():
    v = np.array([[100.0, 0.0], [0.0, 0.5], [3.0, 4.0], [0.0, 0.0]])
    prev = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, -2.0]])
    out = B.limit_speed(v, prev, 3.0, 10.0)
    np.testing.assert_allclose(out, [[10.0, 0.0], [0.0, 3.0], [3.0, 4.0], [0.0, -3.0]])


def test_a_velocity_too_large_to_measure_keeps_its_direction_at_the_top_speed():
    """|v| past ~1e154 squares to inf: such a row once read as infinitely fast and came out at
    speed 0 (below v_min); now it keeps its heading at v_max, and other rows are untouched."""
    v = np.array([[3e200, 4e200], [-1e300, 0.0], [3.0, 4.0]])
    prev = np.ones((3, 2))
    with np.errstate(over="ignore"):
        out = B.limit_speed(v, prev, 3.0, 10.0)
    np.testing.assert_allclose(out[:2], [[6.0, 8.0], [-10.0, 0.0]], rtol=1e-12)
    assert np.array_equal(out[2], [3.0, 4.0])
    p = B.Params()  # a rule's huge but finite output, run as the page runs it
    with np.errstate(over="ignore"):
        st = B.run(B.initial_state(p), p, 2, rule=lambda i, j, d, r, v, p: v * 1e200)
    speed = B.norm(st.v)
    assert np.allclose(speed, p.v_max, rtol=1e-12), (speed.min(), speed.max())


def test_watch_windows_and_clump_times_from_python_are_checked():
    """A start or a duration that is no number of seconds is refused with its name, not
    measured as NaN or failing inside numpy."""
    for bad in (float("nan"), -1.0, "5", True, float("inf")):
        with pytest.raises(ValueError, match="start must be"):
            B.liveliness(B.Params(), 62, start=bad)
    for bad in (float("nan"), 0.0, -2.0, "1", float("inf")):
        with pytest.raises(ValueError, match="seconds must be"):
            B.cohesion_only(B.Params(), bad)
    with pytest.raises(ValueError, match="one step"):
        B.cohesion_only(B.Params(), 0.001)
    assert B.cohesion_only(B.Params(), np.int64(1)) == B.cohesion_only(B.Params(), 1.0)


def test_steps_are_deterministic_and_pure():
    p = B.Params(sample=7)
    a = B.initial_state(p)
    x0, v0 = a.x.copy(), a.v.copy()
    r1 = B.run(a, p, 200, B.Treat(True, 20.0, 30.0))
    r2 = B.run(B.initial_state(p), p, 200, B.Treat(True, 20.0, 30.0))
    assert np.array_equal(r1.x, r2.x) and np.array_equal(r1.v, r2.v)
    assert np.array_equal(a.x, x0) and np.array_equal(a.v, v0)  # input untouched
    other = B.initial_state(B.Params(sample=8))
    assert not np.allclose(other.x, a.x)


def test_spawn_depends_only_on_sample_and_id():
    p = B.Params(sample=5)
    big = B.initial_state(p.with_values(population=120))
    small = B.initial_state(p.with_values(population=80))
    assert np.array_equal(big.x[:80], small.x) and np.array_equal(big.v[:80], small.v)
    assert np.all((big.x >= 0) & (big.x < p.box.size))
    np.testing.assert_allclose(B.norm(big.v), p.spawn_speed)
    # spread over the whole world, headings all round (deterministic sin/cos: detmath)
    assert big.x[:, 0].max() - big.x[:, 0].min() > 0.8 * p.width
    assert metrics.polarization(B.unit_headings(big.v)) < 0.3


def test_population_changes_keep_survivors_and_remove_most_recent():
    p = B.Params(sample=3)
    st = B.run(B.initial_state(p), p, 40)
    grown = B.resize_population(st, 100, p)
    assert grown.n == 100 and grown.t == st.t and grown.steps == st.steps
    assert np.array_equal(grown.x[:80], st.x) and np.array_equal(grown.ids[80:], np.arange(80, 100))
    grown = B.run(grown, p, 10)
    shrunk = B.resize_population(grown, 90, p)
    assert np.array_equal(shrunk.ids, np.arange(90))  # ids 90..99, the most recent, are gone
    assert np.array_equal(shrunk.x, grown.x[:90])
    regrown = B.resize_population(shrunk, 95, p)
    assert np.array_equal(regrown.ids[90:], np.arange(100, 105))  # fresh ids, never reused
    assert B.resize_population(st, 2000, p).n == 2000
    with pytest.raises(ValueError, match="population"):
        B.resize_population(st, 1, p)
    # from Python, the population has Params' range (the slider stops at 2000; the bench runs 100,000)
    big = B.Params(population=3000)
    assert B.resize_population(B.initial_state(big), 2500, big).n == 2500
    assert B.resize_population(st, 2500, p).n == 2500


def test_a_plain_function_rule_cannot_change_the_state_it_is_given():
    """boids.step is pure for a rule passed from Python too: its arrays are read-only views."""
    p = B.Params(sample=2)
    s0 = B.initial_state(p)
    before = s0.v.copy()

    def halve(i, j, d, r, v, params):
        v *= 0.5
        return np.zeros_like(v)

    with pytest.raises(ValueError, match="read-only"):
        B.run(s0, p, 1, rule=halve)
    assert np.array_equal(s0.v, before)


@pytest.mark.parametrize("name,value", [
    ("k_sep", -0.1), ("k_ali", 3.5), ("k_coh", float("nan")), ("k_sep", "lots"), ("population", 1),
    ("population", 2.5), ("population", B.MAX_POPULATION + 1), ("radius", float("inf")), ("sample", -1),
    ("width", 5.0), ("height", True), ("speed", 1.0), ("view", 10.0), ("view", 361.0), ("max_force", 0.0),
    ("sep_radius", -1.0), ("coh_radius", 100.0), ("v_min", 0.0), ("v_max", 1e9),
])
def test_param_validation_rejects_bad_values_and_names_the_parameter(name, value):
    p = B.Params()
    with pytest.raises(ValueError) as exc:
        p.with_values(**{name: value})
    assert name in str(exc.value)
    assert p == B.Params()  # unchanged


def test_speed_range_must_be_a_range():
    p = B.Params()
    with pytest.raises(ValueError, match="v_min"):
        p.with_values(v_min=p.v_max + 1.0)
    with pytest.raises(ValueError, match="v_min"):
        p.with_values(v_max=p.v_min - 0.5)
    assert p.with_values(v_min=p.v_max).v_min == p.v_max


def test_specs_defaults_and_presets():
    from dataclasses import asdict

    from swarmlab.params import defaults

    assert {k: v for k, v in asdict(B.Params()).items() if k in defaults(B.SPECS)} == defaults(B.SPECS)
    assert (B.Params().width, B.Params().height) == tuple(s.default for s in B.WORLD_SPECS)
    table = {s.name: s for s in B.SPECS}
    assert (table["k_sep"].default, table["k_ali"].default, table["k_coh"].default) == (1.5, 1.0, 1.0)
    for k in ("k_sep", "k_ali", "k_coh"):
        assert (table[k].min, table[k].max, table[k].step) == (0.0, 3.0, 0.05)
    assert table["population"].default == 80 and table["population"].max >= 2000
    # Reynolds' ingredients are parameters the page builds controls from, with units and groups
    for name in ("radius", "sep_radius", "coh_radius", "view", "max_force", "v_min", "v_max"):
        s = table[name]
        assert s.advanced and s.unit and s.help and s.group and s.min <= s.default <= s.max
    d = B.Params()
    assert d.sep_radius < d.radius <= d.coh_radius and d.view < 360 and d.v_min < d.v_max
    same = {"coh_radius": d.coh_radius, "view": d.view}
    assert B.PRESETS["balanced"] == {"k_sep": 1.5, "k_ali": 1.0, "k_coh": 1.0, **same}
    assert B.PRESETS["separation"] == {"k_sep": 1.5, "k_ali": 0.0, "k_coh": 0.0, **same}
    # cohesion only also looks all round and further, so that it gathers the whole sky (issue 13)
    assert B.PRESETS["cohesion"] == {"k_sep": 0.0, "k_ali": 0.0, "k_coh": 1.0,
                                     "coh_radius": B.COH_RADIUS_CLUMP, "view": B.VIEW_CLUMP}
    assert d.coh_radius < B.COH_RADIUS_CLUMP <= table["coh_radius"].max and B.VIEW_CLUMP == 360.0
    # every preset sets the same complete set of values, and the page has words for each
    assert len({tuple(v) for v in B.PRESETS.values()}) == 1 and set(B.PRESET_WORDS) == set(B.PRESETS)


def test_no_libm_trig_on_the_state_path():
    """IEEE-exact replay: the step's code never calls numpy's sin/cos/arctan2/hypot or
    linalg.norm (their last bits differ between builds); detmath supplies the one cosine
    and the birth headings."""
    import inspect

    src = inspect.getsource(B)
    for banned in ("np.sin(", "np.cos(", "np.arctan2(", "np.hypot(", "linalg", "np.einsum(", "@ "):
        assert banned not in src, banned
