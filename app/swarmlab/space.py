"""Periodic rectangular space.

Sign convention (stated once, used everywhere)
----------------------------------------------
``displacement(a, b, box)`` is the shortest periodic vector **from a to b**,
i.e. the minimum image of ``b - a``.  For agents i and j the vector
``r_ij = displacement(x[i], x[j], box)`` points from i towards j.

No other module subtracts positions directly: every distance in every model
and metric goes through :func:`displacement` (or :func:`distance`).

Components of the result lie in ``[-L/2, L/2)`` for each box side ``L``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Box:
    """A periodic rectangle ``[0, width) x [0, height)`` (a torus)."""

    width: float
    height: float

    @property
    def size(self) -> np.ndarray:
        """Side lengths as a float64 array of shape (2,)."""
        return np.array([self.width, self.height], dtype=np.float64)


def wrap(x: np.ndarray, box: Box) -> np.ndarray:
    """Map positions ``x`` (shape (..., 2)) back into the box ``[0, L)``."""
    size = box.size
    y = np.mod(x, size)
    # np.mod can return exactly L for tiny negative inputs (-1e-17 % 1 == 1.0).
    return np.where(y >= size, y - size, y)


def displacement(a: np.ndarray, b: np.ndarray, box: Box) -> np.ndarray:
    """Minimum-image vector from ``a`` to ``b`` (shapes broadcast, last axis 2).

    Result components are in ``[-L/2, L/2)``.
    """
    size = box.size
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    return d - size * np.floor(d / size + 0.5)


def distance(a: np.ndarray, b: np.ndarray, box: Box) -> np.ndarray:
    """Minimum-image distance between ``a`` and ``b`` (shape of the broadcast minus the last axis)."""
    d = displacement(a, b, box)
    return np.sqrt(np.einsum("...k,...k->...", d, d))


def wrap_angle(theta: np.ndarray) -> np.ndarray:
    """Map angles to ``[-pi, pi)``.

    ``np.mod`` can return exactly 2*pi for tiny negative inputs (``np.mod(-1e-20, 2*pi)``),
    which would give +pi; that case is mapped to -pi.  Exact operations only.
    """
    r = np.mod(np.asarray(theta, dtype=np.float64) + np.pi, 2.0 * np.pi)
    r = np.where(r >= 2.0 * np.pi, 0.0, r)
    return r - np.pi
