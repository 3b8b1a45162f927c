"""Periodic rectangular space.

Sign convention (stated once, used everywhere)
----------------------------------------------
``displacement(a, b, box)`` is the shortest periodic vector **from a to b**,
i.e. the minimum image of ``b - a``.  For agents i and j the vector
``r_ij = displacement(x[i], x[j], box)`` points from i towards j.

No other module subtracts positions directly: every distance in every model
and metric goes through :func:`displacement` (or :func:`distance`), every length
through :func:`norm`, and every move through :func:`shift`.

Only IEEE-exact operations (``+ - * /``, ``floor``, ``sqrt``): the same bits in
CPython and in Pyodide (wasm32), whose libm ``hypot`` differs in the last bit.
So lengths are ``sqrt(x*x + y*y)``, never ``np.hypot`` (no overflow guard is
needed at model scales).

Components of the result lie in ``[-L/2, L/2)`` for each box side ``L``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class Box:
    """A periodic rectangle ``[0, width) x [0, height)`` (a torus)."""

    width: float
    height: float

    @cached_property  # (made once per box: every step's wrap asks for it; read-only)
    def size(self) -> np.ndarray:
        """Side lengths as a float64 array of shape (2,)."""
        size = np.array([self.width, self.height], dtype=np.float64)
        size.setflags(write=False)
        return size


def wrap(x: np.ndarray, box: Box) -> np.ndarray:
    """Map positions ``x`` (shape (..., 2)) back into the box ``[0, L)``."""
    size = box.size
    y = np.mod(x, size)
    # np.mod can return exactly L for tiny negative inputs (-1e-17 % 1 == 1.0).
    return np.where(y >= size, y - size, y)


def shift(x: np.ndarray, v: np.ndarray, dt: float, box: Box) -> np.ndarray:
    """Move then wrap: ``wrap(x + v * dt)``, positions (N, 2) after a step of ``dt``.

    x : (..., 2) positions (lengths);  v : (..., 2) velocities (lengths per unit time)
    or anything that broadcasts;  dt : the step.  ``v * dt`` is formed first, then
    added, so the bits equal the written-out formula.
    """
    return wrap(x + v * dt, box)


def norm(v: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """Euclidean length ``sqrt(x*x + y*y)``.

    ``norm(v)``    : v of shape (..., 2) -> shape ``v.shape[:-1]``
    ``norm(x, y)`` : the components as two arrays (or scalars) that broadcast;
                     use it on contiguous columns (no (N, 2) array to build).

    IEEE-exact (correctly rounded ``*``, ``+`` and ``sqrt``, no overflow scaling:
    model values are far inside the double range), so bit-identical in CPython and
    Pyodide; use it instead of ``np.hypot`` / ``math.hypot`` / ``np.linalg.norm``.
    """
    if y is None:
        v = np.asarray(v, dtype=np.float64)
        x, y = v[..., 0], v[..., 1]
    else:
        x = np.asarray(v, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
    return np.sqrt(x * x + y * y)


def unit_headings(v: np.ndarray) -> np.ndarray:
    """(N, 2) velocities -> (N, 2) unit headings, ``v / |v|`` (a zero velocity stays 0; Lab 3's
    speeds never are, see ``boids.limit_speed``).  Here, with the geometry, so that describing
    any lab does not import Lab 3's model."""
    s = norm(v)
    return v / np.where(s > 0, s, 1.0)[:, None]


def displacement(a: np.ndarray, b: np.ndarray, box: Box) -> np.ndarray:
    """Minimum-image vector from ``a`` to ``b`` (shapes broadcast, last axis 2).

    Result components are in ``[-L/2, L/2)``.
    """
    size = box.size
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    return d - size * np.floor(d / size + 0.5)


def distance(a: np.ndarray, b: np.ndarray, box: Box) -> np.ndarray:
    """Minimum-image distance between ``a`` and ``b`` (shape of the broadcast minus the last axis)."""
    return norm(displacement(a, b, box))


def wrap_angle(theta: np.ndarray) -> np.ndarray:
    """Map angles to ``[-pi, pi)``.

    ``np.mod`` can return exactly 2*pi for tiny negative inputs (``np.mod(-1e-20, 2*pi)``),
    which would give +pi; that case is mapped to -pi.  Exact operations only.
    """
    r = np.mod(np.asarray(theta, dtype=np.float64) + np.pi, 2.0 * np.pi)
    r = np.where(r >= 2.0 * np.pi, 0.0, r)
    return r - np.pi
