"""Periodic space: wrap, minimum-image displacement, distance, angle wrapping.

Oracles: the displacement is checked against an explicit search over the nine
periodic images (the shortest one wins), never against its own formula.
"""

import numpy as np
import pytest

from swarmlab.space import Box, displacement, distance, norm, shift, wrap, wrap_angle

BOXES = [Box(160.0, 100.0), Box(1.0, 1.0), Box(3.0, 2.0)]


def _images_min(a, b, box):
    """Shortest of the 9 image vectors b + (kx W, ky H) - a (brute force)."""
    best = None
    for kx in (-1, 0, 1):
        for ky in (-1, 0, 1):
            v = b + np.array([kx * box.width, ky * box.height]) - a
            n = np.hypot(v[..., 0], v[..., 1])
            if best is None:
                best, bestn = v.copy(), n
            else:
                better = n < bestn
                best[better] = v[better]
                bestn = np.where(better, n, bestn)
    return best, bestn


def test_box_size():
    assert np.array_equal(Box(160, 100).size, [160.0, 100.0])
    assert Box(3, 2).size.dtype == np.float64


@pytest.mark.parametrize("box", BOXES)
def test_wrap_maps_into_half_open_box(box):
    rng = np.random.default_rng(5)
    x = (rng.random((2000, 2)) * 6 - 3) * box.size
    w = wrap(x, box)
    assert (w >= 0).all() and (w < box.size).all()
    # same point of the torus: the difference is a whole number of periods
    k = (x - w) / box.size
    assert np.allclose(k, np.round(k), atol=1e-9)


def test_wrap_tiny_negative_does_not_give_L():
    box = Box(1.0, 1.0)
    w = wrap(np.array([[-1e-17, -1e-300], [1.0, 0.0]]), box)
    assert (w < 1.0).all() and (w >= 0).all()
    assert w[1, 0] == 0.0


@pytest.mark.parametrize("box", BOXES)
def test_displacement_is_the_shortest_image(box):
    rng = np.random.default_rng(7)
    a = rng.random((5000, 2)) * box.size
    b = rng.random((5000, 2)) * box.size
    d = displacement(a, b, box)
    _, bestn = _images_min(a, b, box)
    assert np.allclose(np.hypot(d[:, 0], d[:, 1]), bestn, rtol=0, atol=1e-12 * box.size.max())
    half = box.size / 2
    assert (d >= -half).all() and (d < half).all()
    # it is an image of b - a
    k = (b - a - d) / box.size
    assert np.allclose(k, np.round(k), atol=1e-9)


def test_displacement_direction_and_antisymmetry():
    box = Box(10.0, 10.0)
    a = np.array([9.5, 5.0])
    b = np.array([0.5, 5.0])
    assert np.allclose(displacement(a, b, box), [1.0, 0.0])  # from a to b, across the edge
    assert np.allclose(displacement(b, a, box), [-1.0, 0.0])
    rng = np.random.default_rng(1)
    p = rng.random((1000, 2)) * 10
    q = rng.random((1000, 2)) * 10
    assert np.array_equal(displacement(p, q, box), -displacement(q, p, box))


def test_displacement_at_exactly_half_box_is_minus_half():
    box = Box(4.0, 2.0)
    d1 = displacement(np.array([0.0, 0.0]), np.array([2.0, 1.0]), box)
    d2 = displacement(np.array([2.0, 1.0]), np.array([0.0, 0.0]), box)
    assert np.array_equal(d1, [-2.0, -1.0]) and np.array_equal(d2, [-2.0, -1.0])


def test_displacement_broadcasts():
    box = Box(5.0, 5.0)
    x = np.random.default_rng(2).random((7, 2)) * 5
    d = displacement(x[:, None, :], x[None, :, :], box)
    assert d.shape == (7, 7, 2)
    assert np.array_equal(d[2, 4], displacement(x[2], x[4], box))


def test_distance_matches_displacement_norm():
    box = Box(160.0, 100.0)
    rng = np.random.default_rng(3)
    a = rng.random((300, 2)) * box.size
    b = rng.random((300, 2)) * box.size
    d = displacement(a, b, box)
    assert np.allclose(distance(a, b, box), np.hypot(d[:, 0], d[:, 1]), rtol=1e-15, atol=0)
    assert distance(a[0], a[0], box) == 0.0


def test_wrap_angle_range_and_identity():
    t = np.linspace(-20, 20, 4001)
    w = wrap_angle(t)
    assert (w >= -np.pi).all() and (w < np.pi).all()
    assert np.allclose(np.cos(w), np.cos(t)) and np.allclose(np.sin(w), np.sin(t))
    assert wrap_angle(np.pi) == pytest.approx(-np.pi)
    assert wrap_angle(0.3) == pytest.approx(0.3)


def test_wrap_angle_never_returns_plus_pi():
    from swarmlab.space import wrap_angle

    th = np.array([-np.pi - 1e-20, np.pi, -np.pi, 3 * np.pi, -1e-300, 7.0, -7.0])
    w = wrap_angle(th)
    assert np.all(w >= -np.pi) and np.all(w < np.pi)
    assert np.allclose(np.cos(w), np.cos(th)) and np.allclose(np.sin(w), np.sin(th), atol=1e-12)


def test_norm_is_the_ieee_exact_formula_in_both_forms():
    rng = np.random.default_rng(5)
    v = rng.normal(size=(500, 2)) * 10.0 ** rng.integers(-5, 5, (500, 1))
    want = np.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1])  # the written-out formula, same bits
    assert np.array_equal(norm(v), want)
    assert np.array_equal(norm(v[:, 0], v[:, 1]), want)
    assert norm(np.array([3.0, 4.0])) == 5.0 and norm(3.0, 4.0) == 5.0
    assert norm(np.zeros((0, 2))).shape == (0,)
    # close to the libm hypot (which rounds differently in the last bit between builds)
    np.testing.assert_allclose(want, np.hypot(v[:, 0], v[:, 1]), rtol=4e-16)


@pytest.mark.parametrize("box", BOXES)
def test_shift_moves_then_wraps_with_the_written_out_bits(box):
    rng = np.random.default_rng(6)
    x = rng.random((300, 2)) * box.size
    u = rng.normal(size=(300, 2))
    for dt in (0.025, 1.0, 7.5):
        got = shift(x, u, dt, box)
        assert np.array_equal(got, wrap(x + u * dt, box))
        assert (got >= 0).all() and (got < box.size).all()
    # a scalar speed folded into dt: x + u * (v dt) is the same as the models wrote it
    assert np.array_equal(shift(x, u, 3.0 * 0.025, box), wrap(x + (3.0 * 0.025) * u, box))
    # crossing the edge comes back in on the other side
    edge = shift(np.array([[box.width - 1e-3, 0.0]]), np.array([[1.0, -1.0]]), 2e-3, box)
    np.testing.assert_allclose(edge, [[1e-3, box.height - 2e-3]], atol=1e-12)
