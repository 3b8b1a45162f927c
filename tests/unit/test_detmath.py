"""swarmlab.detmath: deterministic sin/cos/atan2 against numpy's libm and an exact oracle."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest

from swarmlab import detmath


def _max_abs_err(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


@pytest.mark.parametrize("scale", [1e-300, 1e-8, 0.5, 1.0, 3.2, 10.0, 1e3, 4e5, 2.0**19, 1e6, 1e10, 1e22, 1e150, 1e300])
def test_sincos_matches_numpy_over_scales(scale):
    rng = np.random.default_rng(int(math.log10(scale) + 400))
    x = (2.0 * rng.random(20000) - 1.0) * scale
    s, c = detmath.sincos(x)
    assert _max_abs_err(s, np.sin(x)) <= 5e-16
    assert _max_abs_err(c, np.cos(x)) <= 5e-16


def test_sincos_every_exponent_and_sign():
    rng = np.random.default_rng(7)
    x = np.ldexp(rng.random(50000) + 0.5, rng.integers(-1074, 1024, 50000))
    x = np.concatenate([x, -x, [np.finfo(float).max, -np.finfo(float).max, 5e-324]])
    s, c = detmath.sincos(x)
    assert _max_abs_err(s, np.sin(x)) <= 5e-16
    assert _max_abs_err(c, np.cos(x)) <= 5e-16
    assert _max_abs_err(s * s + c * c, 1.0) <= 5e-16


def test_sincos_edge_cases():
    x = np.array([0.0, -0.0, np.pi, -np.pi, np.pi / 2, -np.pi / 2, 2 * np.pi, 5e-324, -5e-324])
    s, c = detmath.sincos(x)
    assert np.array_equal(np.signbit(s[:2]), [False, True])  # sin(-0) is -0
    assert s[0] == 0.0 and c[0] == 1.0 and c[1] == 1.0
    assert _max_abs_err(s, np.sin(x)) <= 2.3e-16
    assert _max_abs_err(c, np.cos(x)) <= 2.3e-16
    assert s[-2] == 5e-324 and s[-1] == -5e-324
    s, c = detmath.sincos(np.array([np.inf, -np.inf, np.nan]))
    assert np.isnan(s).all() and np.isnan(c).all()
    # scalar in, 0-d out; shape kept
    s0, c0 = detmath.sincos(1.0)
    assert s0.shape == () and abs(float(s0) - math.sin(1.0)) <= 1.2e-16
    s2, _ = detmath.sincos(np.zeros((3, 4)))
    assert s2.shape == (3, 4)
    assert detmath.sin(0.3) == detmath.sincos(0.3)[0] and detmath.cos(0.3) == detmath.sincos(0.3)[1]


# -- an independent exact oracle: decimal arithmetic with 420 digits ---------------------------
getcontext().prec = 420


def _dec_pi() -> Decimal:
    def arctan_inv(k: int) -> Decimal:
        x = Decimal(1) / k
        x2 = x * x
        total, term, n, sign = Decimal(0), x, 1, 1
        eps = Decimal(10) ** -415
        while term > eps:
            total += sign * term / n
            term *= x2
            n += 2
            sign = -sign
        return total

    return 16 * arctan_inv(5) - 4 * arctan_inv(239)


_PI = _dec_pi()


def _exact_sin_cos(x: float) -> tuple[float, float]:
    d = Decimal(x)  # exact value of the double
    two_pi = 2 * _PI
    r = d - two_pi * (d / two_pi).to_integral_value(rounding="ROUND_FLOOR")
    s, c = Decimal(0), Decimal(0)
    term = Decimal(1)
    k = 0
    while True:  # Taylor series of e^{ir}: alternate cos / sin terms
        if k % 4 == 0:
            c += term
        elif k % 4 == 1:
            s += term
        elif k % 4 == 2:
            c -= term
        else:
            s -= term
        k += 1
        term = term * r / k
        if abs(term) < Decimal(10) ** -60 and k > 10:
            break
    return float(s), float(c)  # float(Decimal) rounds correctly


@pytest.mark.parametrize(
    "x", [1.0, -2.5, 0.7853981633974483, 3.141592653589793, 1e-5, 12345.678, 524287.9, 2.0**19,
          1e22, 6381956970095103 * 2.0**797, 1.7976931348623157e308, 355.0, 103993.0]
)
def test_sincos_within_one_ulp_of_exact(x):
    s_exact, c_exact = _exact_sin_cos(x)
    s, c = detmath.sincos(x)
    assert abs(float(s) - s_exact) <= np.spacing(abs(s_exact)) * 1.0
    assert abs(float(c) - c_exact) <= np.spacing(abs(c_exact)) * 1.0


def test_constants_agree_with_published_fdlibm_tables():
    # fdlibm's ipio2[] starts 0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62
    assert [int(v) for v in detmath.TWO_OVER_PI_CHUNKS[:6]] == [
        0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62]
    assert detmath._P1 == float.fromhex("0x1.921fb54400000p+0")  # fdlibm pio2_1
    assert detmath._P2 == 6.07710050630396597660e-11  # fdlibm pio2_2


# -- atan2 ------------------------------------------------------------------------------------
def test_atan2_matches_numpy_random():
    rng = np.random.default_rng(11)
    m = 200000
    y = (2 * rng.random(m) - 1) * 10.0 ** rng.integers(-8, 8, m)
    x = (2 * rng.random(m) - 1) * 10.0 ** rng.integers(-8, 8, m)
    a = detmath.atan2(y, x)
    ref = np.arctan2(y, x)
    assert _max_abs_err(a, ref) <= 5e-16
    assert np.all(np.abs(a - ref) <= 2 * np.spacing(np.abs(ref)))


def test_atan2_unit_circle_inverts_sincos():
    theta = np.linspace(-np.pi, np.pi, 100001)[:-1]
    s, c = detmath.sincos(theta)
    back = detmath.atan2(s, c)
    assert _max_abs_err(back, theta) <= 1e-15


def test_atan2_special_values_follow_c99_like_numpy():
    vals = [0.0, -0.0, 1.0, -1.0, 2.5, -1e-310, 1e-310, 1e308, -1e308, np.inf, -np.inf, np.nan]
    yy, xx = np.meshgrid(vals, vals, indexing="ij")
    a = detmath.atan2(yy, xx)
    ref = np.arctan2(yy, xx)
    both_nan = np.isnan(a) & np.isnan(ref)
    close = np.abs(a - ref) <= np.spacing(np.abs(ref))
    assert np.all(both_nan | (close & (np.signbit(a) == np.signbit(ref))))
    # exact values where C99 pins them
    assert detmath.atan2(0.0, 0.0) == 0.0 and not np.signbit(detmath.atan2(0.0, 0.0))
    assert np.signbit(detmath.atan2(-0.0, 0.0))
    assert detmath.atan2(0.0, -0.0) == np.arctan2(0.0, -0.0)  # +pi
    assert detmath.atan2(-0.0, -1.0) == -np.arctan2(0.0, -1.0)  # -pi
    assert detmath.atan2(1.0, 0.0) == np.pi / 2 and detmath.atan2(-1.0, -0.0) == -np.pi / 2


def test_hypot_is_plain_sqrt():
    x = np.array([3.0, 1e-3, 0.0])
    y = np.array([4.0, 2e-3, -0.0])
    assert np.array_equal(detmath.hypot(x, y), np.sqrt(x * x + y * y))
    assert detmath.hypot(3.0, 4.0) == 5.0


# -- log --------------------------------------------------------------------------------------
def _ulps(a, ref):
    a = np.asarray(a, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    return np.abs(a - ref) / np.spacing(np.maximum(np.abs(ref), 1e-300))


@pytest.mark.parametrize("kind", ["unit", "near_one", "every_exponent", "box_muller_inputs"])
def test_log_within_one_ulp_of_numpy(kind):
    rng = np.random.default_rng(["unit", "near_one", "every_exponent", "box_muller_inputs"].index(kind))
    m = 200_000
    if kind == "unit":
        x = rng.random(m) + 5e-324
    elif kind == "near_one":
        x = 1.0 + (rng.random(m) - 0.5) * 10.0 ** rng.integers(-16, -1, m)
    elif kind == "every_exponent":
        x = np.ldexp(rng.random(m) + 0.5, rng.integers(-1074, 1024, m))
    else:  # what noise.keyed_normal feeds it: (0, 1] in steps of 2**-53
        x = 1.0 - np.floor(rng.random(m) * 2.0**53) * 2.0**-53
    x = x[np.isfinite(x) & (x > 0)]
    assert np.all(_ulps(detmath.log(x), np.log(x)) <= 1.0)


def _exact_ln(x: float) -> float:
    return float(Decimal(x).ln())  # Decimal's ln is correctly rounded at 420 digits


@pytest.mark.parametrize("x", [2.0**-53, 0.5, 0.7071067811865475, 0.7071067811865476, 0.9999999999999999,
                               1.0 + 2.0**-52, 1.4142135623730951, 2.0, 10.0, 1e-300, 5e-324, 1.7976931348623157e308,
                               0.123456789, 3.0 - 2.0**-51])
def test_log_within_one_ulp_of_exact(x):
    exact = _exact_ln(x)
    assert abs(float(detmath.log(x)) - exact) <= np.spacing(abs(exact))


def test_log_special_values_and_shapes():
    assert float(detmath.log(1.0)) == 0.0 and not np.signbit(detmath.log(1.0))
    assert float(detmath.log(0.0)) == -np.inf and float(detmath.log(-0.0)) == -np.inf
    assert np.isnan(detmath.log(-1.0)) and np.isnan(detmath.log(np.nan)) and np.isnan(detmath.log(-np.inf))
    assert float(detmath.log(np.inf)) == np.inf
    assert detmath.log(2.0).shape == () and detmath.log(np.ones((3, 4))).shape == (3, 4)
    assert float(detmath.log(2.0)) == math.log(2.0) and float(detmath.log(math.e)) == 1.0
    # exact powers of two: k * ln2 with the split constant, as fdlibm
    k = np.arange(-1074, 1024)
    assert np.all(_ulps(detmath.log(np.ldexp(1.0, k)), k * math.log(2.0)) <= 1.0)


# ----------------------------------------------------------------------------- the two paths
# sincos, cos, log and atan2 skip their special-value work when every input is ordinary
# (|x| < 2**19; x > 0 and finite; no (0, 0), (inf, inf) or nan).  An array holding one
# special input takes the general path for all of its elements, so the ordinary elements must
# come out with the same bits either way.
def _bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf, 2.0**19, -1e300])
def test_sin_and_cos_of_ordinary_angles_do_not_depend_on_the_path(special):
    x = np.random.default_rng(7).uniform(-20.0, 20.0, 4001)
    x[:6] = [0.0, -0.0, np.pi / 2, -np.pi, 5e-324, 2.0**19 - 1.0]
    fast = detmath.sincos(x)
    slow = detmath.sincos(np.append(x, special))
    for a, b in zip(fast, slow):
        assert np.array_equal(_bits(a), _bits(b[:-1]))
    assert np.array_equal(_bits(detmath.cos(x)), _bits(detmath.cos(np.append(x, special))[:-1]))
    assert np.array_equal(_bits(detmath.cos(x)), _bits(fast[1]))  # cos alone: the same bits as sincos'


@pytest.mark.parametrize("special", [0.0, -1.0, np.inf, np.nan])
def test_log_of_ordinary_values_does_not_depend_on_the_path(special):
    x = np.random.default_rng(8).uniform(0.0, 1.0, 4001) * 10.0 ** np.random.default_rng(9).integers(-300, 300, 4001)
    x[:3] = [5e-324, 1.0, 1.7976931348623157e308]
    assert np.all(x > 0)
    assert np.array_equal(_bits(detmath.log(x)), _bits(detmath.log(np.append(x, special))[:-1]))


@pytest.mark.parametrize("special", [(0.0, 0.0), (-0.0, -0.0), (np.inf, -np.inf), (np.nan, 1.0), (1.0, np.nan)])
def test_atan2_of_ordinary_points_does_not_depend_on_the_path(special):
    rng = np.random.default_rng(10)
    y, x = rng.normal(size=(2, 4001)) * 10.0 ** rng.integers(-5, 5, (2, 4001))
    y[:4], x[:4] = [0.0, -0.0, 1.0, np.inf], [1.0, -2.0, 0.0, 3.0]  # one zero or one infinity is ordinary
    fast = detmath.atan2(y, x)
    slow = detmath.atan2(np.append(y, special[0]), np.append(x, special[1]))
    assert np.array_equal(_bits(fast), _bits(slow[:-1]))


# ----------------------------------------------------------------------------- one value at a time
# The vectorised functions compute every branch on whole arrays and pick with masks, signs and
# tables.  These oracles are the same algorithms written one value at a time with plain
# branches, in Python floats (IEEE doubles, correctly rounded, no fused multiply-add): the
# vectorised results must have exactly their bits, which holds detmath to its algorithm (and
# so the models' runs to their bits) through any rewrite of the array code.
D = detmath


def _sincos_one(x: float) -> tuple[float, float]:
    """sin, cos of one |x| < 2**19: Cody-Waite reduction, fdlibm's kernels, the quadrant."""
    ax = abs(x)
    q = float(math.floor(ax * D._INV_PIO2 + 0.5))
    y = ax - q * D._P1
    y = y - q * D._P2
    y = y - q * D._P3
    z = y * y
    if abs(y) < 2.0**-27:
        s = y
    else:
        r = D._S2 + z * (D._S3 + z * (D._S4 + z * (D._S5 + z * D._S6)))
        s = y + (z * y) * (D._S1 + z * r)
    r = z * (D._C1 + z * (D._C2 + z * (D._C3 + z * (D._C4 + z * (D._C5 + z * D._C6)))))
    hz = 0.5 * z
    w = 1.0 - hz
    c = w + (((1.0 - w) - hz) + z * r)
    sin_a, cos_a = ((s, c), (c, -s), (-s, -c), (-c, s))[int(q) % 4]
    return (-sin_a if math.copysign(1.0, x) < 0 else sin_a), cos_a


def _atan2_one(y: float, x: float) -> float:
    """atan2 for a point that is not (0, 0), (inf, inf) or nan: fdlibm's s_atan and the octant."""
    ax, ay = abs(x), abs(y)
    swap = ay > ax
    t = (ax / ay) if swap else (ay / ax)
    a = D._AT
    if t >= 0.6875:
        tt, hi, lo = (t - 1.0) / (t + 1.0), D._ATANHI1, D._ATANLO1
    elif t >= 0.4375:
        tt, hi, lo = (2.0 * t - 1.0) / (2.0 + t), D._ATANHI0, D._ATANLO0
    else:
        tt, hi, lo = t, None, None
    z = tt * tt
    w = z * z
    s1 = z * (a[0] + w * (a[2] + w * (a[4] + w * (a[6] + w * (a[8] + w * a[10])))))
    s2 = w * (a[1] + w * (a[3] + w * (a[5] + w * (a[7] + w * a[9]))))
    v = tt - tt * (s1 + s2) if hi is None else hi - ((tt * (s1 + s2) - lo) - tt)
    left = math.copysign(1.0, x) < 0
    if swap:
        v = D._PIO2_HI + (v + D._PIO2_LO) if left else D._PIO2_HI - (v - D._PIO2_LO)
    elif left:
        v = D._PI_HI - (v - D._PI_LO)
    return math.copysign(v, y)


def _log_one(x: float) -> float:
    """fdlibm's __ieee754_log for one finite x > 0."""
    m, e = math.frexp(x)
    if m < D._SQRT_HALF:
        m, e = m * 2.0, e - 1
    k = float(e)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (D._LG2 + w * (D._LG4 + w * D._LG6))
    t2 = z * (D._LG1 + w * (D._LG3 + w * (D._LG5 + w * D._LG7)))
    hfsq = 0.5 * f * f
    return k * D._LN2_HI - ((hfsq - (s * (hfsq + (t2 + t1)) + k * D._LN2_LO)) - f)


def test_the_array_code_is_the_algorithm_one_value_at_a_time():
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-7.0, 7.0, 1500), rng.uniform(-5e5, 5e5, 500), rng.normal(size=200) * 1e-9,
                        np.arange(-16, 17) * (math.pi / 4), [0.0, -0.0, 5e-324, 2.0**19 - 1.0]])
    s, c = D.sincos(x)
    one = np.array([_sincos_one(float(v)) for v in x])
    assert np.array_equal(_bits(s), _bits(one[:, 0])) and np.array_equal(_bits(c), _bits(one[:, 1]))
    y, xx = rng.normal(size=(2, 2000)) * 10.0 ** rng.integers(-8, 8, (2, 2000))
    y[:6], xx[:6] = [0.0, -0.0, 1.0, -1.0, np.inf, 3.0], [-2.0, -2.0, 1.0, -1.0, 5.0, np.inf]
    assert np.array_equal(_bits(D.atan2(y, xx)), _bits(np.array([_atan2_one(a, b) for a, b in zip(y, xx)])))
    u = np.abs(rng.normal(size=2000)) * 10.0 ** rng.integers(-300, 300, 2000)
    u[:3] = [5e-324, 1.0, 1.7976931348623157e308]
    assert np.array_equal(_bits(D.log(u)), _bits(np.array([_log_one(float(v)) for v in u])))


@pytest.mark.parametrize("angle", [0.0, -0.0, 1e-300, 0.5, math.pi / 4, 3 * math.pi / 4, 2.356194490192345, 1e6, -7.25])
def test_cos_of_one_angle_is_cos(angle):
    want = detmath.cos(np.array(angle))
    got = detmath.cos_of(angle)
    assert type(got) is float and np.array_equal(np.float64(got).view(np.uint64), want.view(np.uint64))
    assert detmath.cos_of(angle) == got  # remembered
