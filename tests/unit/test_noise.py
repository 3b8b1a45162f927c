"""Counter-based keyed random numbers (swarmlab.noise)."""

import math

import numpy as np
import pytest

from swarmlab import noise


def test_pure_function_of_key():
    ids = np.array([0, 5, 17, 123456])
    a = noise.keyed_normal(42, 0, ids, 99)
    b = noise.keyed_normal(42, 0, ids[::-1], 99)[::-1]  # order of asking does not matter
    c = np.array([noise.keyed_normal(42, 0, np.array([i]), 99)[0] for i in ids])  # one at a time
    assert np.array_equal(a, b)
    assert np.array_equal(a, c)


def test_population_does_not_change_others():
    small = noise.keyed_normal(7, 0, np.arange(10), 3)
    big = noise.keyed_normal(7, 0, np.arange(1000), 3)
    assert np.array_equal(small, big[:10])


def test_every_key_component_matters():
    ids = np.arange(64)
    base = noise.keyed_bits(1, 2, ids, 3)
    for other in (noise.keyed_bits(0, 2, ids, 3), noise.keyed_bits(1, 3, ids, 3),
                  noise.keyed_bits(1, 2, ids + 1000, 3), noise.keyed_bits(1, 2, ids, 4),
                  noise.keyed_bits(1, 2, ids, 3, lane=1)):
        assert np.count_nonzero(base == other) == 0


def test_counter_broadcasts_with_ids():
    ids = np.array([3, 4])
    steps = np.array([[0], [1], [2]])
    grid = noise.keyed_uniform(5, 0, ids[None, :], steps)
    assert grid.shape == (3, 2)
    assert grid[2, 1] == noise.keyed_uniform(5, 0, np.array([4]), 2)[0]


def test_uniform_range_and_moments():
    u = noise.keyed_uniform(3, 1, np.arange(200_000), 0)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / u.size)
    assert abs(u.var() - 1 / 12) < 0.002
    hist = np.bincount((u * 20).astype(int), minlength=20)
    expected = u.size / 20
    chi2 = float(((hist - expected) ** 2 / expected).sum())
    assert chi2 < 50  # 19 degrees of freedom; 50 is far in the tail


def test_normal_distribution():
    # values over agents and over steps both look standard normal
    z = np.concatenate([noise.keyed_normal(42, 0, np.arange(2000), s) for s in range(100)])
    assert abs(z.mean()) < 5 / math.sqrt(z.size)
    assert abs(z.std() - 1) < 0.01
    # Kolmogorov-Smirnov distance against the normal CDF
    zs = np.sort(z)
    cdf = 0.5 * (1 + np.vectorize(math.erf)(zs / math.sqrt(2)))
    ecdf = np.arange(1, zs.size + 1) / zs.size
    assert np.max(np.abs(ecdf - cdf)) < 1.63 / math.sqrt(zs.size) * 1.5
    # tails present in the right proportion (|z| > 3: 0.27 %)
    assert 0.0018 < np.mean(np.abs(z) > 3) < 0.0036


def test_streams_steps_and_samples_uncorrelated():
    ids = np.arange(20_000)
    a = noise.keyed_normal(42, 0, ids, 10)
    others = [noise.keyed_normal(42, 0, ids, 11), noise.keyed_normal(43, 0, ids, 10),
              noise.keyed_normal(42, 1, ids, 10), noise.keyed_uniform(42, 0, ids, 10) - 0.5]
    for b in others:
        assert abs(np.corrcoef(a, b)[0, 1]) < 5 / math.sqrt(ids.size)
    # consecutive agents are not correlated either
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < 5 / math.sqrt(ids.size)


@pytest.mark.parametrize("kwargs", [dict(sample=-1), dict(ids=np.array([-1])), dict(counter=-2),
                                    dict(ids=np.array([1 << 32])), dict(lane=4)])
def test_bad_keys_rejected(kwargs):
    args = dict(sample=1, stream=0, ids=np.array([0]), counter=0)
    args.update(kwargs)
    with pytest.raises(ValueError):
        noise.keyed_bits(**args)


# --- NormalsAhead: several steps drawn at once, the same numbers -------------------------------
def _ahead_equals_keyed(ahead, sample, ids, step):
    got = ahead(sample, ids, step)
    want = noise.keyed_normal(sample, ahead.stream, ids, step)
    return got.shape == want.shape and np.array_equal(got.view(np.uint64), want.view(np.uint64))


@pytest.mark.parametrize("n", [0, 1, 3, 150, 1000, 9000])
def test_normals_ahead_are_keyed_normals_step_after_step(n):
    ahead = noise.NormalsAhead(stream=9)
    ids = np.arange(5, 5 + 2 * n, 2)
    ids.flags.writeable = False
    for step in range(0, 70):
        assert _ahead_equals_keyed(ahead, 4, ids, step), step
    # the block really spans several steps where N is small (else the class would be pointless)
    assert ahead._blocks[0][3].shape[0] == max(1, min(32, 8192 // max(n, 1)))


def test_normals_ahead_follow_jumps_samples_and_new_populations():
    ahead = noise.NormalsAhead(stream=3, keep=2)
    a = np.arange(40)
    b = np.array([0, 2, 7, 9, 40, 41])
    plan = [(0, a, 10), (0, a, 11), (1, a, 11), (0, a, 12), (0, b, 13), (0, a, 13), (1, a, 12),
            (0, a, 5), (0, a, 200), (2, b, 199), (0, a, 199), (0, a, 2**32 - 2), (0, a, 2**32 - 1)]
    for sample, ids, step in plan:
        assert _ahead_equals_keyed(ahead, sample, ids, step), (sample, ids.size, step)
    assert len(ahead._blocks) == 2


def test_normals_ahead_see_ids_changed_in_place():
    """A writable IDs array edited in place is a new population, not the cached one."""
    ahead = noise.NormalsAhead(stream=1)
    ids = np.arange(20)
    first = ahead(0, ids, 3).copy()
    ids[4] = 99
    assert _ahead_equals_keyed(ahead, 0, ids, 4)
    assert _ahead_equals_keyed(ahead, 0, ids, 3)
    ids[4] = 4
    assert np.array_equal(ahead(0, ids, 3), first)


def test_normals_ahead_rows_are_read_only():
    row = noise.NormalsAhead(stream=1)(0, np.arange(10), 0)
    with pytest.raises(ValueError):
        row[0] = 1.0
