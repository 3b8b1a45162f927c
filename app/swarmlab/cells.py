"""Neighbour search: public API.

THIS FILE IS A TEMPORARY O(N^2) REFERENCE with the final API.  It is being
replaced by the cell-list implementation; callers must rely only on the API.

Pairs are **ordered** (both (i, j) and (j, i) appear), exclude i == j, and are
sorted by ``i`` and, within one ``i``, by ``(r, j)`` (nearest first, ties by id).
``d[p]`` is ``space.displacement(x[i[p]], x[j[p]])``: the vector from i to j.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .space import Box, displacement


@dataclass
class Pairs:
    """Flat neighbour pairs.

    i : (M,) int64   first agent
    j : (M,) int64   neighbour of i
    d : (M, 2) float64  minimum-image displacement from i to j
    r : (M,) float64    |d|
    n : int          number of agents the pairs refer to (for bincount minlength)
    """

    i: np.ndarray
    j: np.ndarray
    d: np.ndarray
    r: np.ndarray
    n: int

    def take(self, idx: np.ndarray) -> "Pairs":
        """Pairs at integer indices or boolean mask ``idx`` (order preserved)."""
        return Pairs(self.i[idx], self.j[idx], self.d[idx], self.r[idx], self.n)

    def __len__(self) -> int:
        return int(self.i.shape[0])

    def counts(self) -> np.ndarray:
        """Number of pairs per first agent, shape (n,)."""
        return np.bincount(self.i, minlength=self.n)


def neighbour_pairs(x: np.ndarray, box: Box, cutoff: float, group: np.ndarray | None = None) -> Pairs:
    """All ordered pairs (i, j), i != j, with periodic distance ``r <= cutoff``.

    x      : (N, 2) positions inside the box
    group  : optional (N,) int replica ids; pairs only form within one group
             (one cell list serves many independent replicas)
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    ii, jj = np.nonzero(~np.eye(n, dtype=bool))
    if group is not None:
        g = np.asarray(group)
        keep = g[ii] == g[jj]
        ii, jj = ii[keep], jj[keep]
    d = displacement(x[ii], x[jj], box)
    r = np.hypot(d[:, 0], d[:, 1])
    keep = np.flatnonzero(r <= cutoff)
    ii, jj, d, r = ii[keep], jj[keep], d[keep], r[keep]
    order = np.lexsort((jj, r, ii))
    return Pairs(ii[order].astype(np.int64), jj[order].astype(np.int64), d[order], r[order], n)


def in_field_of_view(pairs: Pairs, u: np.ndarray, half_angle: float) -> Pairs:
    """Keep pairs with j inside the forward cone of i: angle(u_i, r_ij) <= half_angle.

    u : (N, 2) unit headings.  A coincident neighbour (r == 0) counts as visible.
    """
    cosang = np.einsum("pk,pk->p", u[pairs.i], pairs.d)
    return pairs.take(np.flatnonzero(cosang >= np.cos(half_angle) * pairs.r - 1e-12 * pairs.r))


def k_nearest(pairs: Pairs, k: int) -> Pairs:
    """Keep, for each i, its ``k`` nearest pairs (ties broken by the smaller j).

    Relies on the (i, r, j) sort order of ``pairs``.
    """
    if len(pairs) == 0:
        return pairs
    starts = np.concatenate(([0], np.cumsum(pairs.counts())[:-1]))
    rank = np.arange(len(pairs)) - starts[pairs.i]
    return pairs.take(np.flatnonzero(rank < k))


def nearest_any(x: np.ndarray, box: Box, group: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Nearest other agent at any distance.

    Returns (j, r): (N,) int64 index (-1 if alone) and (N,) float64 distance (inf if alone).
    Ties are broken by the smaller j.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    d = displacement(x[:, None, :], x[None, :, :], box)
    r = np.hypot(d[..., 0], d[..., 1])
    r[np.arange(n), np.arange(n)] = np.inf
    if group is not None:
        g = np.asarray(group)
        r[g[:, None] != g[None, :]] = np.inf
    j = np.argmin(r, axis=1).astype(np.int64)
    rr = r[np.arange(n), j]
    j[~np.isfinite(rr)] = -1
    return j, rr
