"""Deterministic elementary functions: the same bits on every numpy build.

Why this module exists
----------------------
The Vicsek model is chaotic: a one-ulp difference in one heading grows until
the whole run is different.  ``np.sin``, ``np.cos`` and ``np.arctan2`` call the
platform's maths library (glibc, possibly through SIMD kernels that numpy picks
at run time on x86) and, in the browser, the wasm build's libm (musl).  Those
are accurate to about one ulp but are *not* guaranteed to round identically,
so the browser could print different eight-seed averages from CPython.

The functions here are built only from operations that IEEE 754 defines to the
last bit and that numpy performs one at a time, elementwise:

    +, -, *, / (correctly rounded), np.sqrt (correctly rounded), np.floor,
    comparisons, np.where, np.abs, negation, and the exact bit-level helpers
    np.signbit, np.copysign, np.frexp, np.ldexp (no rounding at all).

No fused multiply-add can occur (each numpy ufunc call rounds its own result),
there are no reductions, and the constants are either exact literals or are
derived at import time from pure Python integer arithmetic.  So every build —
CPython on x86-64 or ARM, Pyodide on wasm32 — returns the same bits.

Accuracy (tested against numpy's libm, see tests/unit/test_detmath.py)
----------------------------------------------------------------------
* ``sincos(x)``: absolute error below ~2e-16 for any finite double, including
  huge arguments (exact Payne–Hanek-style range reduction above 2**19).
  Algorithm: reduce ``x = q*pi/2 + y`` with ``|y| <= pi/4`` (three-part
  Cody–Waite for ``|x| < 2**19``, a table of 2/pi in 24-bit chunks above), then
  the fdlibm ``__kernel_sin`` / ``__kernel_cos`` polynomials, then the quadrant.
  ``sin(-0.0) == -0.0``; inf and nan give nan.
* ``atan2(y, x)``: error ~1 ulp, fdlibm's ``atan`` kernel on ``min/max`` of
  ``|x|, |y|`` in [0, 1], then the octant.  Signed zeros and infinities follow
  C99 / numpy: ``atan2(+-0, +0) = +-0``, ``atan2(+-0, -0) = +-pi``,
  ``atan2(+-inf, +-inf) = +-pi/4`` or ``+-3pi/4``; nan in gives nan out.
* ``log(x)``: natural logarithm, error below 1 ulp: fdlibm's ``__ieee754_log``
  (reduce ``x = 2**k * m`` with ``m`` in [sqrt(2)/2, sqrt(2)) by ``frexp``, then
  ``f = m - 1`` (exact), ``s = f/(2+f)`` and the Lg1..Lg7 polynomial).
  ``log(0) = -inf``, ``log(x < 0) = nan``, ``log(inf) = inf``; subnormals are exact
  inputs for ``frexp``.  Used by the Box-Muller transform of ``swarmlab.noise``.
* ``hypot(x, y)``: ``sqrt(x*x + y*y)`` (no overflow protection: use it for
  values well inside the double range, as the models do).

Polynomial coefficients are fdlibm's (Sun Microsystems, freely distributable),
the same ones musl and Java's StrictMath use.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["sincos", "sin", "cos", "atan2", "log", "hypot", "TWO_OVER_PI_CHUNKS"]


# ----------------------------------------------------------------------------- constants
def _pi_scaled(bits: int) -> int:
    """floor(pi * 2**bits) (up to a few units), by Machin's formula in integers."""
    guard = 32
    one = 1 << (bits + guard)

    def arctan_inv(k: int) -> int:  # atan(1/k) * one
        total = 0
        power = one // k
        n = 1
        sign = 1
        k2 = k * k
        while power:
            total += sign * (power // n)
            power //= k2
            n += 2
            sign = -sign
        return total

    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)
    return pi >> guard


_BITS = 1400
_PI_INT = _pi_scaled(_BITS)  # pi * 2**_BITS
_TWO_OVER_PI_INT = (1 << (2 * _BITS + 1)) // _PI_INT  # (2/pi) * 2**_BITS
_NCHUNK = 52  # 24-bit chunks of 2/pi: 1248 bits, enough for x up to the double maximum

#: 2/pi = sum_k TWO_OVER_PI_CHUNKS[k] * 2**(-24*(k+1)); each chunk an integer < 2**24.
TWO_OVER_PI_CHUNKS = np.array(
    [(_TWO_OVER_PI_INT >> (_BITS - 24 * (k + 1))) & 0xFFFFFF for k in range(_NCHUNK)],
    dtype=np.float64,
)


def _pio2_parts() -> tuple[float, float, float]:
    """pi/2 = P1 + P2 + P3 (+ ~1e-32): P1, P2 hold 33 bits each (so q*P is exact for q < 2**20)."""
    pio2 = _PI_INT >> 1  # (pi/2) * 2**_BITS ; pi/2 in [1, 2) so its leading bit is 2**_BITS
    top33 = pio2 >> (_BITS - 32)  # 33 bits: value top33 * 2**-32
    p1 = float(top33) * 2.0**-32
    rest = pio2 - (top33 << (_BITS - 32))
    next33 = rest >> (_BITS - 65)
    p2 = float(next33) * 2.0**-65
    rest = rest - (next33 << (_BITS - 65))
    p3 = float(rest >> (_BITS - 140)) * 2.0**-140  # rounds once to the nearest double
    return p1, p2, p3


_P1, _P2, _P3 = _pio2_parts()
_INV_PIO2 = 6.36619772367581382433e-01  # 2/pi rounded (only used to choose q)
_PIO2_HI = 1.57079632679489655800e00  # pi/2 rounded to a double
_PIO2_LO = 6.12323399573676603587e-17  # pi/2 - _PIO2_HI
_PI_HI = 3.14159265358979311600e00  # pi rounded
_PI_LO = 1.22464679914735317722e-16  # pi - _PI_HI
_MEDIUM = 2.0**19  # below: Cody-Waite reduction; at or above: chunked exact reduction

# fdlibm __kernel_sin / __kernel_cos, valid for |y| <= pi/4
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11

# fdlibm s_atan
_ATANHI0 = 4.63647609000806093515e-01  # atan(0.5) hi
_ATANHI1 = 7.85398163397448278999e-01  # atan(1.0) hi
_ATANLO0 = 2.26987774529616870924e-17
_ATANLO1 = 3.06161699786838301793e-17
_AT = (
    3.33333333333329318027e-01,
    -1.99999999998764832476e-01,
    1.42857142725034663711e-01,
    -1.11111104054623557880e-01,
    9.09088713343650656196e-02,
    -7.69187620504482999495e-02,
    6.66107313738753120669e-02,
    -5.83357013379057348645e-02,
    4.97687799461593236017e-02,
    -3.65315727442169155270e-02,
    1.62858201153657823623e-02,
)

# fdlibm e_log
_LN2_HI = 6.93147180369123816490e-01  # 3fe62e42 fee00000: trailing zeros, so k*_LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10  # 3dea39ef 35793c76
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_SQRT_HALF = 0.70710678118654752440  # m below this is doubled (and k lowered by one)


# ----------------------------------------------------------------------------- sin / cos
def _reduce_medium(ax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ax in [0, 2**19): return (q, y) with ax = q*pi/2 + y, |y| <~ pi/4, q a float integer.

    q*P1 and q*P2 are exact (q < 2**19, P1/P2 have 33 bits) and ax - q*P1 is exact
    (Sterbenz), so the only roundings are the last two subtractions.
    """
    q = np.floor(ax * _INV_PIO2 + 0.5)
    y = ax - q * _P1
    y = y - q * _P2
    y = y - q * _P3
    return q, y


def _reduce_huge(ax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact reduction for finite ax >= 2**19 (Payne–Hanek with 24-bit chunks of 2/pi).

    Write ax = M * 2**E with M an integer in [2**52, 2**53), and M = Mh*2**26 + Ml.
    Then ax*(2/pi) = sum_k (Mh*c_k) 2**(E+26-24(k+1)) + (Ml*c_k) 2**(E-24(k+1)).
    Every product Mh*c_k, Ml*c_k has at most 51 bits, so it and its power-of-two
    scaling are exact; each term's value mod 4 is computed exactly; chunks before
    k0 only add multiples of 4 and are skipped; 10 chunks from k0 leave a tail
    below 2**-137.  Each term is split at 2**-24 and 2**-72: the high parts
    (multiples of 2**-24 below 4) and the middle parts (48-bit multiples of
    2**-72) add exactly; only the low parts (< 2**-72 each) round.  So even the
    closest double to a multiple of pi/2 (remainder ~2**-61) keeps ~60 good bits.
    """
    m, e = np.frexp(ax)
    big_m = np.ldexp(m, 53)  # integer-valued, exact
    e_int = e.astype(np.int64) - 53  # ax = big_m * 2**e_int
    mh = np.floor(np.ldexp(big_m, -26))
    ml = big_m - np.ldexp(mh, 26)
    k0 = np.maximum((e_int - 26) // 24, 0)
    hi_sum = np.zeros_like(ax)
    mid_sum = np.zeros_like(ax)
    lo_sum = np.zeros_like(ax)
    for j in range(10):
        k = k0 + j
        c = TWO_OVER_PI_CHUNKS[np.minimum(k, _NCHUNK - 1)]
        c = np.where(k < _NCHUNK, c, 0.0)
        for part, shift in ((mh, e_int + 26 - 24 * (k + 1)), (ml, e_int - 24 * (k + 1))):
            t = np.ldexp(part * c, shift.astype(np.int32))
            t = t - 4.0 * np.floor(t * 0.25)  # exact: t mod 4
            hi = np.ldexp(np.floor(np.ldexp(t, 24)), -24)
            rest = t - hi  # exact, < 2**-24
            mid = np.ldexp(np.floor(np.ldexp(rest, 72)), -72)
            hi_sum = hi_sum + hi  # multiples of 2**-24 below 80: exact
            mid_sum = mid_sum + mid  # multiples of 2**-72 below 2**-19: exact
            lo_sum = lo_sum + (rest - mid)  # each < 2**-72: the only rounding
    h = hi_sum - 4.0 * np.floor(hi_sum * 0.25)
    q = np.floor((h + mid_sum) + 0.5)
    r = ((h - q) + mid_sum) + lo_sum  # h - q exact; the first sum is exact when r is tiny
    y = r * _PIO2_HI + r * _PIO2_LO
    return q, y


def _kernel_sin(y: np.ndarray, z: np.ndarray) -> np.ndarray:
    r = _S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))
    v = z * y
    s = y + v * (_S1 + z * r)
    return np.where(np.abs(y) < 2.0**-27, y, s)  # keeps -0.0 and tiny y exact


def _kernel_cos(z: np.ndarray) -> np.ndarray:
    r = z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6)))))
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + z * r)


def _octant_parts(x_in):
    """The shared work of :func:`sincos` and :func:`cos`: x (at least 1-D), the kernels' sin
    and cos of the reduced argument, the quadrant's two bits (``odd``: quadrant 1 or 3, where
    sin and cos swap; ``upper``: quadrant 2 or 3), and the finite mask, or None when every
    ``|x| < 2**19`` (then every x is finite and needs neither the chunked reduction nor the
    NaN masks: one comparison and one reduction instead of about eight calls)."""
    x = np.atleast_1d(np.asarray(x_in, dtype=np.float64))
    ax = np.abs(x)
    medium = ax < _MEDIUM
    if medium.all():
        finite = None
        q, y = _reduce_medium(ax)
    else:
        finite = np.isfinite(x)
        q, y = _reduce_medium(np.where(medium, ax, 0.0))
        huge = finite & ~medium
        if np.any(huge):
            idx = np.nonzero(huge)
            qh, yh = _reduce_huge(ax[idx])
            q = q.copy()
            y = y.copy()
            q[idx] = qh
            y[idx] = yh
    z = y * y
    s = _kernel_sin(y, z)
    c = _kernel_cos(z)
    half = q * 0.5  # q is a whole number: exact
    odd = half != np.floor(half)
    upper = (q - 4.0 * np.floor(q * 0.25)) >= 2.0  # quadrant q mod 4 (exact) is 2 or 3
    return x, s, c, odd, upper, finite


def _finished(v: np.ndarray, finite, shape) -> np.ndarray:
    """v with NaN where the input was not finite (``finite`` None: all were), in the input's shape."""
    return (v if finite is None else np.where(finite, v, np.float64(np.nan))).reshape(shape)


def sincos(x) -> tuple[np.ndarray, np.ndarray]:
    """(sin x, cos x), bit-reproducible on every IEEE-754 numpy build.

    x : array_like of float64 (any shape).  Returns two float64 arrays of that shape
    (0-d arrays for scalar input).

    Quadrants q mod 4 = 0, 1, 2, 3 give sin x = s, c, -s, -c and cos x = c, -s, -c, s
    (s, c: the kernels' values at the reduced argument), and sin is odd in x.  The signs
    are products with +-1.0, which are exact and equal to negation for every finite value,
    signed zeros included (a NaN never reaches them: non-finite inputs are set to NaN after).
    """
    shape = np.shape(x)
    x, s, c, odd, upper, finite = _octant_parts(x)
    sin_x = np.where(odd, c, s) * np.where(upper != np.signbit(x), -1.0, 1.0)
    return _finished(sin_x, finite, shape), _cos_from(s, c, odd, upper, finite, shape)


def _cos_from(s, c, odd, upper, finite, shape) -> np.ndarray:
    """cos x from :func:`_octant_parts`: c, -s, -c, s in quadrants 0, 1, 2, 3."""
    cos_x = np.where(odd, s, c) * np.where(upper != odd, -1.0, 1.0)  # cos is even: no sign of x
    return _finished(cos_x, finite, shape)


def sin(x) -> np.ndarray:
    """Deterministic sine (see :func:`sincos`)."""
    return sincos(x)[0]


def cos(x) -> np.ndarray:
    """Deterministic cosine (see :func:`sincos`; the same bits, without the sine's last steps)."""
    shape = np.shape(x)
    _, s, c, odd, upper, finite = _octant_parts(x)
    return _cos_from(s, c, odd, upper, finite, shape)


@lru_cache(maxsize=128)
def cos_of(angle: float) -> float:
    """:func:`cos` of one angle, as a Python float, remembered: for a threshold that a rule
    asks for every step (the field of view's cos(view / 2)).  One call of :func:`cos` is
    some 30 numpy calls, 0.13 ms in Pyodide: 14 % of a step of 80 boids."""
    return float(cos(float(angle)))


# ----------------------------------------------------------------------------- atan2
# fdlibm's three intervals of t in [0, 1] (below 7/16, to 11/16, from 11/16): its reduced
# argument tt = (a t + b) / (c t + d) and atan's value at the interval's point, hi + lo.
# (a, b, c, d) = (1, 0, 0, 1) gives (t + 0) / 1 = t exactly (t >= +0), (2, -1, 1, 2) gives
# (2t - 1) / (t + 2) and (1, -1, 1, 1) gives (t - 1) / (t + 1): fdlibm's operations, since
# products by 1 and 2 are exact and x + (-1) is x - 1, so the same bits as its branches.
_ATAN_A = np.array([1.0, 2.0, 1.0])
_ATAN_B = np.array([0.0, -1.0, -1.0])
_ATAN_C = np.array([0.0, 1.0, 1.0])
_ATAN_D = np.array([1.0, 2.0, 1.0])
_ATAN_HI = np.array([0.0, _ATANHI0, _ATANHI1])
_ATAN_LO = np.array([0.0, _ATANLO0, _ATANLO1])


def _atan_unit(t: np.ndarray) -> np.ndarray:
    """atan(t) for t in [0, 1] (fdlibm's argument reduction at 7/16 and 11/16, its
    intervals' constants read from the tables above: a few gathers instead of six
    ``where``s and both branches' divisions)."""
    k = (t >= 0.4375).view(np.int8) + (t >= 0.6875).view(np.int8)  # the interval, 0, 1 or 2
    tt = (_ATAN_A[k] * t + _ATAN_B[k]) / (_ATAN_C[k] * t + _ATAN_D[k])
    z = tt * tt
    w = z * z
    a = _AT
    s1 = z * (a[0] + w * (a[2] + w * (a[4] + w * (a[6] + w * (a[8] + w * a[10])))))
    s2 = w * (a[1] + w * (a[3] + w * (a[5] + w * (a[7] + w * a[9]))))
    # for interval 0 (hi = lo = 0) this equals tt - tt*(s1+s2) bit for bit
    return _ATAN_HI[k] - ((tt * (s1 + s2) - _ATAN_LO[k]) - tt)


def atan2(y, x) -> np.ndarray:
    """Deterministic ``atan2(y, x)`` in [-pi, pi] (numpy/C99 conventions for zeros, infs, nans).

    y, x : array_like float64, broadcast together.
    """
    y, x = np.broadcast_arrays(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64))
    ax = np.abs(x)
    ay = np.abs(y)
    swap = ay > ax
    num = np.where(swap, ax, ay)
    den = np.where(swap, ay, ax)
    if (den > 0.0).all() and (num < np.inf).all():  # no (0, 0), no (inf, inf), no nan: the usual case
        t = num / den  # in [0, 1]
    else:
        both_zero = (ax == 0.0) & (ay == 0.0)
        both_inf = np.isinf(ax) & np.isinf(ay)
        special = both_zero | both_inf
        t = num / np.where(special, 1.0, den)  # in [0, 1] (or nan when an input is nan)
        t = np.where(both_zero, 0.0, np.where(both_inf, 1.0, t))
    a = _atan_unit(t)
    left = np.signbit(x)  # x < 0 or x == -0.0: the left half-plane
    a = np.where(
        swap,
        np.where(left, _PIO2_HI + (a + _PIO2_LO), _PIO2_HI - (a - _PIO2_LO)),  # pi/2 -+ atan(|x|/|y|)
        np.where(left, _PI_HI - (a - _PI_LO), a),  # pi - atan(|y|/|x|)  or  atan(|y|/|x|)
    )
    return np.copysign(a, y)


# ----------------------------------------------------------------------------- log
def log(x) -> np.ndarray:
    """Deterministic natural logarithm (fdlibm ``__ieee754_log``), error below 1 ulp.

    x : array_like float64 (any shape; 0-d out for scalar in).  Only exact steps
    (``frexp``, multiplication by 2, ``m - 1`` by Sterbenz) and correctly rounded
    + - * / are used, so every IEEE-754 build returns the same bits.
    """
    x_in = np.asarray(x, dtype=np.float64)
    x = np.atleast_1d(x_in)
    ok = (x > 0.0) & (x < np.inf)  # false for nan too
    usual = ok.all()  # then no input needs the special values below
    m, e = np.frexp(x if usual else np.where(ok, x, 1.0))  # x = m * 2**e, m in [0.5, 1); exact for subnormals too
    low = m < _SQRT_HALF
    m = np.where(low, m * 2.0, m)  # exact
    k = (e - low).astype(np.float64)  # x = m * 2**k, m in [sqrt(2)/2, sqrt(2))
    f = m - 1.0  # exact (Sterbenz)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    out = k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)
    if not usual:
        out = np.where(ok, out, np.where(x == 0.0, -np.inf, np.where(x == np.inf, np.inf, np.nan)))
    return out.reshape(x_in.shape)


def hypot(x, y) -> np.ndarray:
    """sqrt(x*x + y*y) with correctly rounded steps (no overflow scaling).

    The one definition is ``space.norm``; this name stays for the list above."""
    from .space import norm  # space imports nothing from here; late import keeps it so

    return norm(x, y)
