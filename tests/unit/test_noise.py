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
