"""Lab 2 model (swarmlab.vicsek): rules, kick stream, batching, physics checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

import oracles
from swarmlab import cells, detmath, vicsek
from swarmlab.space import Box, wrap, wrap_angle
from swarmlab.vicsek import Ensemble, KickStream, VicsekParams, VicsekState


def _random_state(seed, n, box=1.0, b=None):
    rng = np.random.default_rng(seed)
    shape = (n,) if b is None else (b, n)
    x = rng.random(shape + (2,)) * box
    theta = rng.uniform(-np.pi, np.pi, shape)
    return VicsekState(x, theta, 0)


# ------------------------------------------------------------------ oracles of one update
def _oracle_step_float(state, params, xi, a):
    """Plain-Python loops with the math module (an independent implementation)."""
    x = state.x
    th = state.theta
    n = th.shape[0]
    L = params.box
    new_th = np.empty(n)
    new_x = np.empty((n, 2))
    for i in range(n):
        sx = sy = 0.0
        for j in range(n):
            dx = x[j, 0] - x[i, 0]
            dy = x[j, 1] - x[i, 1]
            dx -= L * round(dx / L)
            dy -= L * round(dy / L)
            if j == i or math.hypot(dx, dy) <= params.radius:
                sx += math.cos(th[j])
                sy += math.sin(th[j])
        if sx == 0.0 and sy == 0.0:
            delta = 0.0
        else:
            delta = (math.atan2(sy, sx) - th[i] + math.pi) % (2 * math.pi) - math.pi
        t = th[i] + a * delta + params.eta / 2 * xi[i]
        t = (t + math.pi) % (2 * math.pi) - math.pi
        new_th[i] = t
        new_x[i, 0] = (x[i, 0] + params.speed * math.cos(t)) % L
        new_x[i, 1] = (x[i, 1] + params.speed * math.sin(t)) % L
    return new_x, new_th


def _oracle_step_exact(state, params, xi, a):
    """Same rule, brute-force neighbours, detmath trig, sums in j order: must match bit for bit."""
    box = params.space
    x = state.x
    th = state.theta
    n = th.shape[0]
    pairs = oracles.neighbour_pairs(x, box, params.radius)
    nbr = {i: set() for i in range(n)}
    for i, j in zip(pairs.i, pairs.j):
        nbr[int(i)].add(int(j))
    s, c = detmath.sincos(th)
    new_th = np.empty(n)
    for i in range(n):
        sx = sy = 0.0
        for j in range(n):  # ascending j, self in its place
            if j == i or j in nbr[i]:
                sx += float(c[j])
                sy += float(s[j])
        if sx == 0.0 and sy == 0.0:
            delta = 0.0
        else:
            delta = float(wrap_angle(float(detmath.atan2(sy, sx)) - th[i]))
        new_th[i] = float(wrap_angle((th[i] + a * delta) + (0.5 * params.eta) * xi[i]))
    s2, c2 = detmath.sincos(new_th)
    new_x = wrap(x + np.stack([params.speed * c2, params.speed * s2], axis=-1), box)
    return new_x, new_th


@pytest.mark.parametrize("a", [1.0, 0.6, 0.0])
@pytest.mark.parametrize("seed,n,box,radius,speed,eta", [(1, 64, 1.0, 0.12, 0.01, 0.7), (2, 80, 2.0, 0.3, 0.05, 1.3)])
def test_one_step_matches_brute_force(a, seed, n, box, radius, speed, eta):
    params = VicsekParams(n=n, box=box, radius=radius, speed=speed, eta=eta, align=a)
    st = _random_state(seed, n, box)
    xi = np.random.default_rng(seed + 100).uniform(-1, 1, n)
    new = vicsek.step(st, params, xi)
    fx, fth = _oracle_step_float(st, params, xi, a)
    assert np.max(np.abs(wrap_angle(new.theta - fth))) < 1e-12
    d = new.x - fx
    d -= box * np.round(d / box)
    assert np.max(np.abs(d)) < 1e-12
    ex, eth = _oracle_step_exact(st, params, xi, a)
    assert np.array_equal(new.theta, eth)
    assert np.array_equal(new.x, ex)
    assert new.t == 1


@pytest.mark.parametrize("n,groups", [(2, 1), (40, 1), (64, 1), (90, 1), (91, 1), (300, 1), (64, 16), (7, 3)])
def test_neighbourhoods_are_the_same_from_every_search_form(n, groups):
    """``neighbourhoods`` depends only on the neighbour *set*: the sorted, unsorted and half
    forms of the search (cell list or all pairs, with replicas or not) all give the brute
    force's pairs plus self, ordered by (i, j), bit for bit."""
    rng = np.random.default_rng(1000 * n + groups)
    box = Box(1.0, 1.0)
    x = rng.random((n * groups, 2))
    g = np.repeat(np.arange(groups), n) if groups > 1 else None
    cutoff = 0.2
    want = oracles.neighbour_pairs(x, box, cutoff, group=g)
    key = np.concatenate((want.i, np.arange(n * groups))) * (n * groups) + np.concatenate((want.j, np.arange(n * groups)))
    order = np.argsort(key)
    wd = np.concatenate((want.d, np.zeros((n * groups, 2))))[order]
    wr = np.concatenate((want.r, np.zeros(n * groups)))[order]
    forms = [dict(), dict(sort=False), dict(sort=False, half=True), dict(sort=False, half=True, any_order=True)]
    for kw in forms:
        i, j, d, r = vicsek.neighbourhoods(cells.neighbour_pairs(x, box, cutoff, group=g, **kw), n * groups)
        assert i.dtype == np.intp and j.dtype == np.intp
        assert np.array_equal(i * (n * groups) + j, key[order]), kw
        assert np.array_equal(d.view(np.int64), wd.view(np.int64)), kw  # signs of zero too
        assert np.array_equal(r.view(np.int64), wr.view(np.int64)), kw


@pytest.mark.parametrize("n,groups", [(2, 1), (64, 1), (300, 1), (64, 16), (7, 3)])
def test_sum_order_sums_like_the_canonical_order(n, groups):
    """The built-in rule's pair order (``sum_order``: by j only) gives every per-agent sum
    the bits of the canonical (i, j) order of ``neighbourhoods``, for every search form."""
    rng = np.random.default_rng(7 * n + groups)
    box = Box(1.0, 1.0)
    x = rng.random((n * groups, 2))
    g = np.repeat(np.arange(groups), n) if groups > 1 else None
    w = rng.standard_normal(n * groups)
    for kw in (dict(), dict(sort=False, half=True), dict(sort=False, half=True, any_order=True)):
        pairs = cells.neighbour_pairs(x, box, 0.2, group=g, **kw)
        ci, cj, _, _ = vicsek.neighbourhoods(pairs, n * groups)
        i, j = vicsek.sum_order(pairs, n * groups)
        assert i.dtype == np.intp and j.dtype == np.intp
        assert sorted(zip(i.tolist(), j.tolist())) == list(zip(ci.tolist(), cj.tolist())), kw  # the same pairs
        got = cells.sum_by_i(i, w[j], n * groups)
        want = cells.sum_by_i(ci, w[cj], n * groups)
        assert np.array_equal(got.view(np.int64), want.view(np.int64)), kw


def test_builtin_turn_is_the_shown_rule_bit_for_bit():
    """The engine runs Lab 2's built-in rule as ``builtin_turn`` (no displacements reordered,
    the headings' trig kept from the update before); the page shows ``rules_vicsek.turn``.
    The eight-seed check's 16 replicas give the same bits either way, also after a session
    puts another state in place (the kept trig is then not used)."""
    from swarmlab import rules_vicsek

    reps = [(s, a) for s in vicsek.CHECK_SEEDS for a in (0.0, 1.0)]
    fast, shown = Ensemble(reps), Ensemble(reps)
    shown.turn = rules_vicsek.turn  # a rule given explicitly runs as written, on neighbourhoods()
    for k in range(300):
        assert np.array_equal(fast.step().view(np.int64), shown.step().view(np.int64)), k
    assert np.array_equal(fast.state.theta.view(np.int64), shown.state.theta.view(np.int64))
    assert np.array_equal(fast.state.x.view(np.int64), shown.state.x.view(np.int64))
    other = _random_state(21, 64, b=len(reps))
    fast.state = VicsekState(other.x.copy(), other.theta.copy(), fast.t)
    shown.state = VicsekState(other.x.copy(), other.theta.copy(), shown.t)
    for k in range(20):
        assert np.array_equal(fast.step().view(np.int64), shown.step().view(np.int64)), k
    assert np.array_equal(fast.state.theta.view(np.int64), shown.state.theta.view(np.int64))


def test_neighbourhood_includes_self():
    # two agents 0.05 apart, headings 0 and pi/2, no kicks, a = 1:
    # with self the mean is pi/4 for both; without self they would swap headings
    params = VicsekParams(n=2)
    st = VicsekState(np.array([[0.5, 0.5], [0.55, 0.5]]), np.array([0.0, np.pi / 2]))
    new = vicsek.step(st, params, np.zeros(2))
    assert np.allclose(new.theta, [np.pi / 4, np.pi / 4], atol=1e-15)
    # an isolated agent keeps its heading up to the kick (its own heading is the mean)
    st = VicsekState(np.array([[0.1, 0.1], [0.6, 0.6]]), np.array([0.3, -2.0]))
    new = vicsek.step(st, params, np.array([0.5, -1.0]))
    assert np.allclose(new.theta, [0.3 + 0.175, -2.0 - 0.35], atol=1e-15)


def test_cancelling_neighbourhood_keeps_old_heading_before_kick():
    theta = np.array([0.4, -3.0, 2.0])
    kick = np.array([0.1, -0.2, 0.0])
    sx = np.array([0.0, 0.0, 1e-300])
    sy = np.array([0.0, 0.0, 0.0])
    out = vicsek.align_turn(theta, sx, sy, 1.0, kick)
    assert out[0] == wrap_angle(0.4 + 0.1)
    assert out[1] == wrap_angle(-3.0 - 0.2)
    assert out[2] == 0.0  # a tiny but non-zero sum still defines a mean heading (0 here)
    # atan2(0, 0) would give a mean heading of 0 and turn the agents: the rule must not
    assert out[0] != wrap_angle(0.1)


def test_a_zero_is_pure_kicks():
    params = VicsekParams(align=0.0)
    st = _random_state(5, 64)
    xi = np.random.default_rng(6).uniform(-1, 1, 64)
    new = vicsek.step(st, params, xi)
    assert np.array_equal(new.theta, wrap_angle(st.theta + 0.35 * xi))


def test_teaching_form_is_general_form_with_eta_07():
    assert 0.5 * 0.7 == 0.35
    t = vicsek.TEACHING
    assert (t.n, t.box, t.radius, t.speed, t.eta) == (64, 1.0, 0.12, 0.01, 0.7)


def test_moves_along_new_heading_by_speed():
    params = VicsekParams()
    st = _random_state(8, 64)
    new = vicsek.step(st, params, np.random.default_rng(9).uniform(-1, 1, 64))
    d = new.x - st.x
    d -= np.round(d)
    assert np.allclose(np.hypot(d[:, 0], d[:, 1]), 0.01, atol=1e-15)
    assert np.allclose(np.arctan2(d[:, 1], d[:, 0]), new.theta, atol=1e-12)
    assert np.all((new.x >= 0) & (new.x < 1))
    assert np.all((new.theta >= -np.pi) & (new.theta <= np.pi))


# ------------------------------------------------------------------ kick stream
def test_kick_stream_layout_is_counter_based():
    n, seed = 64, 41
    words = np.random.Philox(key=seed).random_raw(3 * n + 5 * n)
    u = (words >> np.uint64(11)).astype(np.float64) * 2.0**-53
    st, stream = vicsek.start_state(seed)
    assert np.array_equal(st.x, u[: 2 * n].reshape(n, 2))
    assert np.array_equal(st.theta, np.pi * (2 * u[2 * n : 3 * n] - 1))
    for t in range(5):
        assert np.array_equal(stream.kicks(), 2 * u[3 * n + t * n : 3 * n + (t + 1) * n] - 1)
    # chunking the raw draws doesn't change the stream
    s2 = KickStream(seed, n)
    parts = np.concatenate([s2.uniforms(7), s2.uniforms(1), s2.uniforms(3 * n + 5 * n - 8)])
    assert np.array_equal(parts, u)
    with pytest.raises(RuntimeError):
        stream.start(1.0)


@pytest.mark.parametrize("n", [1, 5, 7, 64])
def test_a_stream_jumps_to_any_update_without_drawing_the_ones_before(n):
    """at_update(t) gives update t's kicks, the very words a stream drawn from the start
    reaches there (word 3N + tN, whatever its place in Philox's blocks of four)."""
    seq = KickStream(211, n)
    seq.start(1.0)
    drawn = [seq.kicks() for _ in range(11)]
    for t in range(11):
        jumped = KickStream(211, n).at_update(t)
        assert np.array_equal(jumped.kicks(), drawn[t]), t
        if t < 10:
            assert np.array_equal(jumped.kicks(), drawn[t + 1])
    # far away: the same as counting every word (one raw draw of the words before)
    t = 1000
    raw = np.random.Philox(key=211).random_raw(3 * n + (t + 1) * n)[3 * n + t * n:]
    want = 2.0 * ((raw >> np.uint64(11)).astype(np.float64) * 2.0**-53) - 1.0
    assert np.array_equal(KickStream(211, n).at_update(t).kicks(), want)


def test_a_resumed_ensemble_continues_the_run_exactly():
    params = VicsekParams(n=7)
    run = Ensemble([(3, 1.0), (17, 0.5), (3, 0.0)], params)
    for _ in range(13):
        run.step()
    other = Ensemble([(3, 1.0), (17, 0.5), (3, 0.0)], params)
    other.resume(VicsekState(run.state.x.copy(), run.state.theta.copy(), run.state.t))
    assert np.array_equal(other.order, run.order)
    for _ in range(5):
        assert np.array_equal(other.step(), run.step())
    assert np.array_equal(other.state.x, run.state.x) and np.array_equal(other.state.theta, run.state.theta)


def test_kicks_are_uniform_in_unit_interval():
    s = KickStream(3, 64)
    xi = np.concatenate([s.kicks() for _ in range(500)])
    assert xi.min() >= -1 and xi.max() < 1
    assert abs(xi.mean()) < 0.02 and abs(xi.var() - 1 / 3) < 0.01


def test_a0_and_a1_share_start_and_kicks():
    ens = Ensemble([(17, 0.0), (17, 1.0), (41, 0.0)])
    assert np.array_equal(ens.state.x[0], ens.state.x[1])
    assert np.array_equal(ens.state.theta[0], ens.state.theta[1])
    assert not np.array_equal(ens.state.x[0], ens.state.x[2])
    ref = KickStream(17, 64)
    ref.start(1.0)
    ref41 = KickStream(41, 64)
    ref41.start(1.0)
    for _ in range(3):
        xi = ens.next_kicks()
        k = ref.kicks()
        assert np.array_equal(xi[0], k) and np.array_equal(xi[1], k)
        assert np.array_equal(xi[2], ref41.kicks())
    # a = 0 replica really follows theta + 0.35 * xi from the shared stream
    ens = Ensemble([(17, 0.0), (17, 1.0)])
    ref = KickStream(17, 64)
    th = ref.start(1.0).theta
    for _ in range(20):
        ens.step()
        th = wrap_angle(th + 0.35 * ref.kicks())
    assert np.array_equal(ens.state.theta[0], th)
    assert not np.array_equal(ens.state.theta[1], th)


# ------------------------------------------------------------------ batching
def test_batched_step_equals_separate_steps_bit_for_bit():
    params = VicsekParams()
    st = _random_state(12, 64, b=3)
    xi = np.random.default_rng(13).uniform(-1, 1, (3, 64))
    a = np.array([0.0, 0.5, 1.0])
    batched = vicsek.step(st, params, xi, a)
    for k in range(3):
        single = vicsek.step(VicsekState(st.x[k], st.theta[k]), params, xi[k], a[k])
        assert np.array_equal(batched.x[k], single.x)
        assert np.array_equal(batched.theta[k], single.theta)


def test_ensemble_equals_single_runs():
    reps = [(3, 0.0), (3, 1.0), (499, 0.3)]
    ens = Ensemble(reps)
    p_b = ens.run(120)
    for k, rep in enumerate(reps):
        one = Ensemble([rep])
        p_1 = one.run(120)
        assert np.array_equal(p_b[:, k], p_1[:, 0])
        assert np.array_equal(ens.state.theta[k], one.state.theta[0])


def test_order_parameter():
    assert vicsek.order_parameter(np.zeros(10)) == 1.0
    assert abs(vicsek.order_parameter(np.array([0.0, np.pi]))) < 1e-15
    th = np.random.default_rng(1).uniform(-np.pi, np.pi, (4, 64))
    p = vicsek.order_parameter(th)
    ref = np.abs(np.exp(1j * th).mean(axis=1))
    assert p.shape == (4,) and np.allclose(p, ref, atol=1e-15)


def test_random_headings_give_p_about_011():
    th = np.random.default_rng(2024).uniform(-np.pi, np.pi, (20000, 64))
    p = vicsek.order_parameter(th)
    baseline = math.sqrt(math.pi) / (2 * math.sqrt(64))  # 0.1108
    assert abs(p.mean() - baseline) < 0.003


# ------------------------------------------------------------------ physics
def test_no_noise_orders_fully():
    params = VicsekParams(n=100, box=1.0, radius=0.25, speed=0.02, eta=0.0, align=1.0)
    ens = Ensemble([(5, 1.0)], params)
    start = float(ens.order[0])
    ens.run(300)
    assert start < 0.3
    assert ens.order[0] > 0.999


def test_maximal_noise_gives_random_baseline():
    params = VicsekParams(eta=2 * math.pi)
    ens = Ensemble([(9, 1.0)], params)
    ens.run(20)
    p = ens.run(800)[:, 0]
    assert abs(p.mean() - math.sqrt(math.pi) / 16) < 0.012


def test_alignment_beats_no_alignment_at_teaching_noise():
    ens = Ensemble([(73, 0.0), (73, 1.0)])
    p = ens.run(700)[400:]
    assert p[:, 1].mean() > 0.6 > 0.2 > p[:, 0].mean()


# ------------------------------------------------------------------ general-form validation
def test_general_params_validation():
    params, opts = vicsek.general_params(n="500", box="2.5", eta=0.2, seed=7)
    assert params.n == 500 and params.box == 2.5 and params.eta == 0.2 and params.radius == 0.12
    assert opts == {"seed": 7, "warmup": 1000, "measure": 500}
    for bad in ({"n": "0"}, {"n": 1.5}, {"eta": "nan"}, {"box": "inf"}, {"align": 1.01},
                {"radius": 0.6}, {"speed": 0.51}, {"colour": 1}, {"measure": 0}, {"seed": -1}):
        with pytest.raises(ValueError):
            vicsek.general_params(**bad)


def test_params_made_in_python_get_the_command_lines_checks():
    """VicsekParams checks itself when made, so run_general, Ensemble and step never run on a
    value the command line refuses (before, radius=0.9 ran, n=2.5 ran 2 agents, eta=-0.7 and
    radius=-1 ran, and NaN or -5 agents failed deep inside numpy)."""
    made = VicsekParams(n=np.int64(500), box="2.5", eta=0.2)
    assert made == vicsek.general_params(n=500, box=2.5, eta=0.2)[0]
    assert type(made.n) is int and type(made.box) is float
    for bad, words in (({"radius": 0.9}, "radius must be at most box/2 = 0.5"),
                       ({"speed": 0.6}, "speed must be at most box/2"),
                       ({"n": 2.5}, "n must be a whole number"), ({"n": -5}, "n must be in"),
                       ({"n": True}, "n must be"), ({"eta": -0.7}, "eta must be in"),
                       ({"radius": -1}, "radius must be in"), ({"speed": float("nan")}, "speed must be a finite"),
                       ({"align": "a lot"}, "align"),
                       ({"n": 200_000, "radius": 0.5}, "pairs an update")):
        with pytest.raises(ValueError, match=words):
            VicsekParams(**bad)
        with pytest.raises(ValueError, match=words):
            vicsek.general_params(**bad)


def test_a_crowd_that_would_fill_the_memory_is_refused_with_what_to_change():
    """Everyone neighbouring everyone: 200,000 agents in a box 0.01 wide would need about
    1.3e9 pairs an update (tens of GB); the settings are refused before anything runs."""
    with pytest.raises(ValueError, match=r"about 6,284 neighbours, 1.3e\+09 pairs .* a larger box, a smaller radius or fewer agents"):
        vicsek.general_params(n=200_000, box=0.01, radius=0.001, speed=0.001)
    # the same crowd at a density that gives a few neighbours each is fine, as are big teaching-like runs
    vicsek.general_params(n=200_000, box=10_000, radius=10, speed=1)
    vicsek.general_params(n=20_000, box=10, radius=0.12)
    assert vicsek.MAX_PAIRS * vicsek.PAIR_BYTES < 4e9


@pytest.mark.parametrize("seed", [1.5, True, -1, 2**70, "three", float("nan")])
def test_a_seed_that_is_not_a_whole_number_in_range_is_refused(seed):
    """1.5 or True would silently run seed 1; -1 and 2**70 are outside the CLI's range."""
    params, _ = vicsek.general_params()
    with pytest.raises(ValueError, match="seed"):
        vicsek.run_general(params, seed, 0, 1)
    with pytest.raises(ValueError, match="seed"):
        Ensemble([(seed, 1.0)])
    with pytest.raises(ValueError, match="seed"):  # the eight-seed check's own seeds too
        vicsek.run_check(seeds=[seed], warmup=1, measure=1)


@pytest.mark.parametrize("kw, message", [
    ({"warmup": 2.7}, "warmup must be a whole number of steps, 0 or more"),
    ({"warmup": -1}, "warmup must be a whole number"),
    ({"measure": 0}, "measure must be a whole number of steps, 1 or more"),
    ({"measure": True}, "measure must be a whole number"),
])
def test_the_checks_update_counts_are_whole_numbers(kw, message):
    """CheckRun took int(): warmup 2.7 ran 2 updates."""
    with pytest.raises(ValueError, match=message):
        vicsek.run_check(**{"seeds": [1], "warmup": 1, "measure": 1, **kw})


@pytest.mark.parametrize("updates", [2.9, -3, "4", True])
def test_an_ensemble_runs_only_whole_numbers_of_updates(updates):
    """Ensemble.run(2.9) ran 2 updates and run(-3) failed inside numpy."""
    ens = Ensemble([(1, 1.0)])
    with pytest.raises(ValueError, match="updates must be a whole number of steps"):
        ens.run(updates)
    assert ens.t == 0
    assert ens.run(2.0).shape == (2, 1)  # a whole float is a whole number


def test_a_plain_turn_function_gets_the_checks_a_rules_file_gets():
    from swarmlab.rules import RuleError

    params, _ = vicsek.general_params()
    with pytest.raises(RuleError, match=r"shape \(3,\).*shape \(64,\)") as exc:
        vicsek.run_general(params, 3, 0, 2, turn=lambda i, j, d, r, theta, a, kick: np.zeros(3))
    assert exc.value.update == 1
    with pytest.raises(RuleError, match="NaN"):
        vicsek.run_general(params, 3, 0, 2, turn=lambda i, j, d, r, theta, a, kick: theta * np.nan)
    from swarmlab import rules_vicsek  # the built-in rule as a plain function: the built-in's results
    assert vicsek.run_general(params, 3, 5, 5, turn=rules_vicsek.turn) == vicsek.run_general(params, 3, 5, 5)

    def spin(i, j, d, r, theta, a, kick):  # changes the model's headings in place: refused
        theta += 1.0
        return theta

    with pytest.raises(ValueError, match="read-only"):
        vicsek.run_general(params, 3, 0, 2, turn=spin)


def test_run_general_reproducible_and_sane():
    params, _ = vicsek.general_params(n=100, box=1.25)
    r1 = vicsek.run_general(params, seed=4, warmup=100, measure=50)
    r2 = vicsek.run_general(params, seed=4, warmup=100, measure=50)
    assert r1 == r2 and set(r1) == {"order_mean", "order_std"}
    assert 0 <= r1["order_mean"] <= 1 and r1["order_std"] >= 0
    assert vicsek.run_general(params, seed=5, warmup=100, measure=50) != r1


def test_an_ensemble_raises_a_failing_turn_rule_unless_the_page_asks_for_the_fallback():
    """From Python, a failing rule stops the run (no numbers of the built-in rule under the
    student's name); the page's session opts in to the fallback and says what happened."""
    from swarmlab.rules import RuleError

    bad = lambda i, j, d, r, theta, a, kick: theta * np.nan  # noqa: E731
    ens = vicsek.Ensemble([(3, 1.0)])
    ens.turn = bad
    with pytest.raises(RuleError, match="NaN"):
        ens.run(5)
    assert ens.t == 0 and ens.turn is bad and ens.failure is None  # nothing advanced, nothing swapped
    ref = vicsek.Ensemble([(3, 1.0)])
    ens = vicsek.Ensemble([(3, 1.0)])
    ens.turn, ens.fallback = bad, True
    assert np.array_equal(ens.run(5), ref.run(5))  # the built-in rule took over from update 1
    assert ens.turn is None and isinstance(ens.failure, RuleError)
    with pytest.raises(RuleError) as exc:  # run_general names the update that failed, from 1
        vicsek.run_general(vicsek.general_params()[0], 3, 4, 2, turn=bad)
    assert exc.value.update == 1
