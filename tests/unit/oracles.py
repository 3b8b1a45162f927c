"""Brute-force O(N^2) oracles for the neighbour search (the original reference code).

These are deliberately the simplest correct implementations: every pair is
tested.  ``swarmlab.cells`` must agree with them exactly (same pairs, same order,
same displacements and distances).  Only for tests; N up to a few hundred.
"""

from __future__ import annotations

import numpy as np

from swarmlab.cells import Pairs
from swarmlab.space import Box, displacement


def _norm(d: np.ndarray) -> np.ndarray:
    """|d| over the last axis as sqrt(dx*dx + dy*dy): IEEE-exact operations only, so
    distances (and hence pair order) are bit-identical in CPython and in Pyodide,
    whose libm hypot differs in the last bit."""
    return np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1])


def neighbour_pairs(x: np.ndarray, box: Box, cutoff: float, group: np.ndarray | None = None) -> Pairs:
    """All ordered pairs (i, j), i != j, r <= cutoff; sorted by i then (r, j)."""
    x = np.asarray(x, dtype=np.float64).reshape(-1, 2)
    n = x.shape[0]
    ii, jj = np.nonzero(~np.eye(n, dtype=bool))
    if group is not None:
        g = np.asarray(group)
        keep = g[ii] == g[jj]
        ii, jj = ii[keep], jj[keep]
    d = displacement(x[ii], x[jj], box).reshape(-1, 2)
    r = _norm(d)
    keep = np.flatnonzero(r <= cutoff)
    ii, jj, d, r = ii[keep], jj[keep], d[keep], r[keep]
    order = np.lexsort((jj, r, ii))
    return Pairs(ii[order].astype(np.intp), jj[order].astype(np.intp), d[order], r[order], n)


def in_field_of_view(pairs: Pairs, u: np.ndarray, half_angle: float) -> Pairs:
    """Per-pair loop: keep j when angle(u_i, r_ij) <= half_angle (coincident j visible)."""
    keep = []
    c = np.cos(half_angle)
    for p in range(len(pairs)):
        ui = u[pairs.i[p]]
        dot = ui[0] * pairs.d[p, 0] + ui[1] * pairs.d[p, 1]
        keep.append(dot >= c * pairs.r[p] - 1e-12 * pairs.r[p])
    return pairs.take(np.flatnonzero(np.array(keep, dtype=bool)))


def k_nearest(pairs: Pairs, k: int) -> Pairs:
    """Per-agent loop: the first k pairs of each i (pairs are sorted by (i, r, j))."""
    keep = []
    seen: dict[int, int] = {}
    for p in range(len(pairs)):
        a = int(pairs.i[p])
        seen[a] = seen.get(a, 0) + 1
        keep.append(seen[a] <= k)
    return pairs.take(np.flatnonzero(np.array(keep, dtype=bool)))


def nearest_any(x: np.ndarray, box: Box, group: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Nearest other agent at any distance: (j, r), j = -1 and r = inf when alone; ties by smaller j."""
    x = np.asarray(x, dtype=np.float64).reshape(-1, 2)
    n = x.shape[0]
    if n == 0:
        return np.zeros(0, np.intp), np.zeros(0)
    d = displacement(x[:, None, :], x[None, :, :], box)
    r = _norm(d)
    r[np.arange(n), np.arange(n)] = np.inf
    if group is not None:
        g = np.asarray(group)
        r[g[:, None] != g[None, :]] = np.inf
    j = np.argmin(r, axis=1).astype(np.intp)
    rr = r[np.arange(n), j]
    j[~np.isfinite(rr)] = -1
    return j, rr
