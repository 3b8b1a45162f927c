"""Lab 3's built-in rules on half pairs (boids.builtin_steering) give exactly the bits of
the function the page shows (rules_boids.steering) on the ordered pairs."""

import numpy as np
import pytest

from swarmlab import boids, cells
from swarmlab.rules_boids import steering


def ordered(state, p):
    return cells.neighbour_pairs(state.x, p.box, p.reach, sort=False)


def both(state, p):
    half = cells.neighbour_pairs(state.x, p.box, p.reach, sort=False, half=True)
    assert half.half
    full = ordered(state, p)
    shown = steering(full.i, full.j, full.d, full.r, state.v, p)
    return boids.builtin_steering(half, state.v, p), shown, len(full)


SETTINGS = [
    {},
    {"view": 360.0},
    {"view": 30.0},
    {"k_ali": 0.0},
    {"k_sep": 0.0, "k_coh": 0.0},
    {"k_sep": 0.0, "k_ali": 0.0, "k_coh": 0.0},
    {"sep_radius": 20.0, "radius": 2.0, "coh_radius": 8.0, "max_force": 0.5},
    {**boids.PRESETS["cohesion"], "width": 400.0, "height": 250.0},  # reach 60: a world over 120 wide
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v:g}" for k, v in s.items()) or "defaults")
def test_half_pairs_give_the_shown_rules_bits(settings):
    p = boids.Params(population=300).with_values(**settings)
    state = boids.run(boids.initial_state(p), p, 80)  # two model seconds: groups, close pairs
    fast, shown, m = both(state, p)
    assert m > 1000  # enough pairs to mean something
    assert np.array_equal(fast, shown)


def test_coincident_and_touching_boids():
    """r = 0 pairs (the reverse displacement is +0.0, not -0.0), boids at the separation
    range exactly, and a boid alone."""
    p = boids.Params(population=6)
    x = np.array([[10.0, 10.0], [10.0, 10.0], [14.0, 10.0], [10.0, 14.0], [10.0, 6.0], [100.0, 50.0]])
    v = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 4.0], [4.0, 4.0], [-5.0, 1.0], [3.0, 3.0]])
    state = boids.BoidsState(x=x, v=v, ids=np.arange(6), steps=0, next_id=6)
    fast, shown, _ = both(state, p)
    assert np.array_equal(fast, shown)
    assert np.all(fast[5] == 0.0)


def ordered_step(state, p, treat=None):
    """The step as it was before half pairs: the unsorted ordered search, the shown rules."""
    pairs = ordered(state, p)
    a = steering(pairs.i, pairs.j, pairs.d, pairs.r, state.v, p)
    if treat is not None:
        a = a + boids.treat_pull(state.x, state.v, treat, p.box, p.v_max)
    v = boids.limit_speed(state.v + a * boids.DT, state.v, p.v_min, p.v_max)
    return boids.BoidsState(x=boids.shift(state.x, v, boids.DT, p.box), v=v, ids=state.ids,
                            steps=state.steps + 1, next_id=state.next_id)


@pytest.mark.parametrize("n", [80, 200])
def test_step_replays_the_ordered_rules_exactly(n):
    """300 steps of boids.step, of the shown function handed in as a student's rule, and of
    the ordered step written out above: the same run, bit for bit (80 boids: the default,
    where a sorted search would take another path)."""
    p = boids.Params(population=n)
    treat = boids.Treat(on=True, x=50.0, y=40.0)
    a = b = c = boids.initial_state(p)
    for k in range(300):
        t = treat if 100 <= k < 150 else None
        a = boids.step(a, p, t)
        b = boids.step(b, p, t, rule=steering)
        c = ordered_step(c, p, t)
    assert np.array_equal(a.x, c.x) and np.array_equal(a.v, c.v)
    assert np.array_equal(b.x, c.x) and np.array_equal(b.v, c.v)


def test_small_world_falls_back_to_ordered_pairs():
    """Reach at least half the world: the search returns ordered pairs and the shown
    function runs on them (the same step as before)."""
    p = boids.Params(population=40, width=30.0, height=30.0)
    state = boids.initial_state(p)
    assert not cells.neighbour_pairs(state.x, p.box, p.reach, sort=False, half=True).half
    a = boids.step(state, p)
    b = boids.step(state, p, rule=steering)
    assert np.array_equal(a.v, b.v)


# --- the vectorised steering, allocation and speed limit against their formulas written out
# one operation at a time (the engine's earlier code): the same bits, signs of zero included.

def norm_rows(a):
    return np.sqrt(a[..., 0] * a[..., 0] + a[..., 1] * a[..., 1])


def steer_written_out(rule, v, v_max, max_force):
    s = norm_rows(rule)
    has = s > 0
    desired = rule * (v_max / np.where(has, s, 1.0))[..., None]
    e = desired - v
    t = norm_rows(e)
    f = np.where(t > max_force, max_force / np.where(t > 0, t, 1.0), 1.0)
    return np.where(has[..., None], e * f[..., None], 0.0)


def allocate_written_out(requests, budget):
    m = norm_rows(requests)
    safe = np.where(m > 0, m, 1.0)
    left = np.full(requests.shape[1], float(budget))
    a = np.zeros(requests.shape[1:])
    for k in range(requests.shape[0]):
        take = np.minimum(m[k], left)
        a += requests[k] * (take / safe[k])[:, None]
        left = left - take
    return a


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b))


def awkward_requests(rng, n=4000):
    """Requests that fit exactly, overflow, are zero (+0.0 and -0.0) or tiny."""
    r = rng.normal(size=(3, n, 2)) * rng.choice([0.1, 1.0, 3.0, 10.0], size=(3, n, 1))
    r[:, : n // 8] = 0.0
    r[1, n // 8: n // 4] = -0.0
    r[0, n // 4: n // 4 + 50] = [6.0, 8.0]  # |r| = 10: the whole budget of 10, exactly
    r[0, n // 4 + 50: n // 4 + 100] = [3.0, 4.0]  # 5 and then 5: the budget exactly in two
    r[1, n // 4 + 50: n // 4 + 100] = [0.0, -5.0]
    r[:, n // 4 + 100: n // 4 + 150] = -0.0  # every request -0.0: the sum starts at +0.0
    r[2, -50:] = 1e-300
    return r


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf and NaN inputs, on purpose
def test_vectorised_allocation_equals_the_sequential_loop():
    rng = np.random.default_rng(11)
    req = awkward_requests(rng)
    for budget in (0.0, -0.0, 1.0, 5.0, 10.0, 1e9, np.inf, -1.0, np.nan):  # a student may pass anything
        for k in (1, 2, 3):  # one, two or three requests
            want = allocate_written_out(req[:k], budget)
            assert same_bits(boids.allocate(req[:k], budget), want) or np.isnan(budget) and \
                np.array_equal(boids.allocate(req[:k], budget), want, equal_nan=True)
        assert same_bits(boids.allocate(list(req), budget), allocate_written_out(req, budget)) or np.isnan(budget)
    odd = req.copy()
    odd[1, :5] = [np.inf, 0.0]
    odd[2, 5:10] = np.nan
    assert np.array_equal(boids.allocate(odd, 10.0), allocate_written_out(odd, 10.0), equal_nan=True)


def test_vectorised_steering_equals_the_formula():
    rng = np.random.default_rng(12)
    rule = awkward_requests(rng)
    v = rng.normal(size=(rule.shape[1], 2)) * 4.0
    v[:10] = -0.0
    for v_max, max_force in ((6.0, 10.0), (6.0, 0.5), (30.0, 50.0)):
        assert same_bits(boids.steer(rule, v, v_max, max_force), steer_written_out(rule, v, v_max, max_force))
        assert same_bits(boids.steer(rule[0], v, v_max, max_force), steer_written_out(rule[0], v, v_max, max_force))
        # shapes that broadcast, as a student's rule may pass them: one rule for everyone, one boid
        east = np.array([1.0, 0.0])
        assert same_bits(boids.steer(east, v, v_max, max_force), steer_written_out(east, v, v_max, max_force))
        assert same_bits(boids.steer(rule[0, 7], v[7], v_max, max_force),
                         steer_written_out(rule[0, 7], v[7], v_max, max_force))
        assert same_bits(boids.steer(rule[:, :2], v[3], v_max, max_force),
                         steer_written_out(rule[:, :2], v[3], v_max, max_force))


def test_speed_limit_equals_the_formula():
    rng = np.random.default_rng(13)
    v = rng.normal(size=(3000, 2)) * rng.choice([0.1, 1.0, 4.0, 20.0], size=(3000, 1))
    v[:5] = 0.0
    prev = rng.normal(size=v.shape)
    s = norm_rows(v)
    v2 = np.where((s == 0.0)[:, None], prev, v)
    s2 = np.where(s == 0.0, norm_rows(v2), s)
    want = v2 * (s2.clip(3.0, 6.0) / np.where(s2 > 0, s2, 1.0))[:, None]
    assert same_bits(boids.limit_speed(v, prev, 3.0, 6.0), want)
