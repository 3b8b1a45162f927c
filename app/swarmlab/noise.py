"""Counter-based (keyed) random numbers.

Why keyed draws
---------------
A sequential generator (``np.random.default_rng``) hands out numbers in the
order they are asked for, so the noise an agent receives would depend on how
many agents exist, in which order they are processed, and on how the run was
chunked into frames.  SPEC.md requires the opposite for Lab 1: the noise
``xi`` of agent ``id`` at timestep ``step`` in sample ``s`` is a fixed number,
whatever the population, frame rate, pauses or playback speed.

So every draw here is a pure function of its key::

    bits = H(sample, stream, id, counter)          # 64 random bits
    uniform = top 53 bits * 2**-53                  # exact, in [0, 1)
    normal  = sqrt(-2 ln u1) * cos(2 pi u2)         # Box-Muller, two streams

``H`` is two rounds of the SplitMix64 finaliser (Steele, Lea & Flood 2014),
applied to ``key + gamma * counter`` where ``counter = id << 32 | step``
packs the (agent ID, timestep) pair injectively (both < 2**32).  The first
round is exactly SplitMix64's output at position ``counter`` of the stream
seeded by ``key``; the second round, xor-ed with a second key, decorrelates
different samples and streams.  Only integer arithmetic modulo 2**64 (exact
everywhere) is used for the bits; the float conversion is exact; the normal
transform uses ``detmath.log``, ``np.sqrt`` and ``detmath.cos``, which are built
from IEEE-exact operations only (libm's ``log`` and ``cos`` differ in the last
bit between builds, e.g. x86-64 CPython and Pyodide's wasm32), so a normal is
the same double in CPython and in the browser.

``stream`` separates independent uses (heading noise, initial positions,
initial headings, ...) so that they never share numbers: uniforms use lane 0 of
a stream, the two Box-Muller inputs of a normal use lanes 1 and 2, so
``keyed_uniform(s, k, ...)`` and ``keyed_normal(s, k, ...)`` are independent.

Everything is vectorised over ``ids`` (and ``counter`` may be an array that
broadcasts with it).  Only numpy and the standard library are used.
"""

from __future__ import annotations

import numpy as np

from . import detmath

_GAMMA = 0x9E3779B97F4A7C15  # 2**64 / golden ratio, odd
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_KEY2 = 0xD1B54A32D192ED03
_MASK64 = (1 << 64) - 1
_TWO_POW_M53 = 2.0 ** -53


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser on a uint64 array (wraps modulo 2**64)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
    return z ^ (z >> np.uint64(31))


def _mix64_int(z: int) -> int:
    """The same finaliser on a Python int (for scalar keys)."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * _M1) & _MASK64
    z = ((z ^ (z >> 27)) * _M2) & _MASK64
    return z ^ (z >> 31)


def _keys(sample: int, stream: int) -> tuple[int, int]:
    sample = int(sample)
    stream = int(stream)
    if sample < 0 or stream < 0:
        raise ValueError("sample and stream must be non-negative integers")
    k1 = _mix64_int(sample * _GAMMA + _mix64_int(stream + 0x5EED))
    k2 = _mix64_int(k1 ^ _KEY2)
    return k1, k2


def keyed_bits(sample: int, stream: int, ids, counter, lane: int = 0) -> np.ndarray:
    """64 random bits per element, a pure function of (sample, stream, lane, id, counter).

    ids     : int array (N,) of non-negative agent IDs (< 2**32)
    counter : int or int array broadcasting with ``ids`` (< 2**32), e.g. a timestep
    lane    : 0..3, sub-stream (see module docstring)
    returns : uint64 array of the broadcast shape
    """
    return _lane_bits(_packed(ids, counter), sample, stream, lane)


def _packed(ids, counter) -> np.ndarray:
    """``id << 32 | counter`` as uint64 (at least 1-D), after checking both ranges."""
    ids = np.asarray(ids, dtype=np.int64)
    counter = np.asarray(counter, dtype=np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= 1 << 32):
        raise ValueError("ids must be in [0, 2**32)")
    if counter.size and (counter.min() < 0 or counter.max() >= 1 << 32):
        raise ValueError("counter must be in [0, 2**32)")
    packed = (ids.astype(np.uint64) << np.uint64(32)) | counter.astype(np.uint64)
    return np.atleast_1d(packed)  # arrays wrap silently; numpy scalars would warn


def _lane_bits(packed: np.ndarray, sample: int, stream: int, lane: int) -> np.ndarray:
    """:func:`keyed_bits` of already packed counters (one packing serves several lanes)."""
    if not 0 <= int(lane) < 4:
        raise ValueError("lane must be 0..3")
    k1, k2 = _keys(sample, 4 * int(stream) + int(lane))
    z = _mix64(packed * np.uint64(_GAMMA) + np.uint64(k1))
    return _mix64(z ^ np.uint64(k2))


def keyed_uniform(sample: int, stream: int, ids, counter) -> np.ndarray:
    """Uniform float64 in [0, 1) with 53 random bits, keyed like :func:`keyed_bits`."""
    return _unit(keyed_bits(sample, stream, ids, counter, 0))


def _unit(bits: np.ndarray) -> np.ndarray:
    return (bits >> np.uint64(11)).astype(np.float64) * _TWO_POW_M53


def keyed_normal(sample: int, stream: int, ids, counter) -> np.ndarray:
    """Standard normal float64, keyed like :func:`keyed_bits` (Box-Muller).

    Uses lanes 1 and 2 of ``stream``; u1 is shifted to (0, 1] so the logarithm
    is finite (largest possible |value| about 8.6).
    """
    packed = _packed(ids, counter)
    u1 = 1.0 - _unit(_lane_bits(packed, sample, stream, 1))  # (0, 1]
    u2 = _unit(_lane_bits(packed, sample, stream, 2))
    return np.sqrt(-2.0 * detmath.log(u1)) * detmath.cos(2.0 * np.pi * u2)


class NormalsAhead:
    """:func:`keyed_normal` of one stream at consecutive counters, drawn a block at a time.

    ``ahead(sample, ids, step)`` equals ``keyed_normal(sample, stream, ids, step)`` bit for
    bit (every value is a pure function of its key, and the maths is elementwise), but a
    stepper asks for step, step + 1, step + 2, ... with the same IDs, and one call of
    ``keyed_normal`` costs about as much for 100 values as for 1,000 (some 150 numpy calls
    of a few microseconds each).  So on a miss the rows of the next ``block`` counters are
    drawn in one (block, N) call, with ``block = clamp(target // N, 1, max_block)``, and
    later calls return a row of it.

    ids     : int array (N,), as for keyed_normal; compared by content with the copy kept
    returns : float64 (N,), read-only (a row of the block)

    ``keep`` blocks are kept (least recently used goes first), so a few runs stepping in
    turn (the page's run and a trial, or a researcher's runs side by side) do not evict each
    other.
    """

    def __init__(self, stream: int, target: int = 8192, max_block: int = 32, keep: int = 4):
        self.stream = int(stream)
        self.target = int(target)
        self.max_block = int(max_block)
        self.keep = int(keep)
        self._blocks: list[tuple[int, np.ndarray, int, np.ndarray]] = []  # (sample, ids, first, rows)

    def __call__(self, sample: int, ids: np.ndarray, step: int) -> np.ndarray:
        sample, step = int(sample), int(step)
        for k, (s, known, first, rows) in enumerate(self._blocks):
            if s == sample and first <= step < first + rows.shape[0] and np.array_equal(known, ids):
                if k:
                    self._blocks.insert(0, self._blocks.pop(k))
                return rows[step - first]
        ids = np.asarray(ids)
        n = max(int(ids.size), 1)
        block = max(1, min(self.max_block, self.target // n, (1 << 32) - step))
        counters = np.arange(step, step + block, dtype=np.int64)[:, None]
        rows = keyed_normal(sample, self.stream, ids.reshape(1, -1), counters)
        rows.flags.writeable = False
        self._blocks.insert(0, (sample, ids.copy(), step, rows))
        del self._blocks[self.keep:]
        return rows[0]
