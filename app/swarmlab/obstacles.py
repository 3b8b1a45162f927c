"""Lab 1 obstacles: solid circles on the torus, avoidance steering and the fallback.

Geometry (SPEC.md, model lengths)
---------------------------------
* ``none``    no obstacle.
* ``circle``  one disc, radius 11, centre (80, 50).
* ``passage`` two discs, radius 28, centres (80, 14) and (80, 86).  Their inner
  edges leave a 16-length opening at y = 42..58; across the top/bottom edge their
  periodic copies overlap (y = 86..100 and 0..14), so together they form one wall
  with a gap.

Periodic copies need no special code: every point-to-centre vector is the
minimum image ``space.displacement(centre, point)``, and radius + avoidance band
(28 + 8 = 36) is smaller than half of either box side, so the nearest image of a
centre is the only one that matters.

Avoidance steering (documented choice)
--------------------------------------
For each check point q (the agent's position, and the 0.7 s straight-ahead
prediction ``x + v * 0.7 * u``) and each disc c, let ``s = |q - c| - r`` be the
distance from q to that disc's boundary (negative inside) and ``n`` the disc's
outward unit normal at q.  The pair contributes::

    obstacle += STRENGTH * clip(1 - s / BAND, 0, 1) * n        (STRENGTH = 4, BAND = 8)

i.e. zero at 8 lengths or more, rising linearly to 4 at the boundary, and staying
at 4 inside.  This is the same linear profile and magnitude as the threat, so at
the boundary one check point outweighs the strongest possible social steering
(``w_s + 2 w_a + w_c`` = 4.1 at the defaults); both points together give up to 8.
The prediction point starts the turn about ``v * 0.7 + 8`` lengths ahead of the
boundary.  Summing over discs (rather than taking the nearest one) matters at
the passage's two concave corners, where the discs meet at y = 0: there both
normals add up to a push straight out of the corner instead of flipping between
the two discs from one step to the next.

Fallback
--------
If a new position is still inside a disc (``|q - c| < r``), it is moved to the
nearest point outside the union of discs with a 0.15 margin, and the inward
component of the heading is reflected.  For overlapping discs the nearest
outside point is either a radial projection onto one disc (if that point is not
inside another disc) or one of the two points where the margin-enlarged discs
intersect.  This is a safeguard, not realistic contact; :data:`FALLBACK_MARGIN`.

Exact operations only
---------------------
Everything here feeds the state, so lengths are ``sqrt(dx*dx + dy*dy)``
(``space.norm``, never ``hypot``), trig is ``detmath``, and sums over discs are
written out disc by disc (no ``einsum``): the same bits in CPython and Pyodide.
"""

from __future__ import annotations

import numpy as np

from . import detmath
from .space import Box, displacement, norm, shift, wrap, wrap_angle

#: name -> tuple of (cx, cy, radius)
OBSTACLES: dict[str, tuple[tuple[float, float, float], ...]] = {
    "none": (),
    "circle": ((80.0, 50.0, 11.0),),
    "passage": ((80.0, 14.0, 28.0), (80.0, 86.0, 28.0)),
}
# the passage's opening between the two discs' inner edges (16 lengths)
PASSAGE_GAP = (OBSTACLES["passage"][1][1] - OBSTACLES["passage"][1][2]) - (OBSTACLES["passage"][0][1] + OBSTACLES["passage"][0][2])
LOOKAHEAD = 0.7  # s, straight-ahead prediction time
BAND = 8.0  # lengths, avoidance acts within this distance of the boundary
STRENGTH = 4.0  # steering magnitude at the boundary, per check point
FALLBACK_MARGIN = 0.15  # lengths outside the boundary after a fallback projection


def discs(name: str) -> np.ndarray:
    """(M, 3) float64 array of (cx, cy, r) for an obstacle name."""
    if name not in OBSTACLES:
        raise ValueError(f"obstacle must be one of {', '.join(OBSTACLES)}, got {name!r}")
    return np.array(OBSTACLES[name], dtype=np.float64).reshape(-1, 3)


def _to_points(q: np.ndarray, d: np.ndarray, box: Box) -> np.ndarray:
    """(P, M, 2) minimum-image vectors from each disc centre to each point."""
    return displacement(d[None, :, :2], q[:, None, :], box)


def avoidance(x: np.ndarray, u: np.ndarray, v: float, d: np.ndarray, box: Box) -> np.ndarray:
    """Outward steering (N, 2) from the two check points (see module docstring).

    obstacle_i = sum over q in {x_i, x_i + v*0.7*u_i}, discs c of
                 STRENGTH * clip(1 - (|q - c| - r_c)/BAND, 0, 1) * (q - c)/|q - c|
    (a point exactly at a centre gets no push from that disc; the fallback handles it).
    """
    out = np.zeros_like(x)
    if d.shape[0] == 0 or x.shape[0] == 0:
        return out
    for q in (x, shift(x, u, v * LOOKAHEAD, box)):
        rel = _to_points(q, d, box)  # (N, M, 2) centre -> point
        dist = norm(rel)
        mag = STRENGTH * np.clip(1.0 - (dist - d[None, :, 2]) / BAND, 0.0, 1.0)
        scale = mag / np.where(dist > 0, dist, np.inf)
        for m in range(d.shape[0]):  # disc by disc, in a fixed order
            out = out + scale[:, m, None] * rel[:, m]
    return out


def inside(q: np.ndarray, d: np.ndarray, box: Box) -> np.ndarray:
    """(P,) bool: strictly inside any disc (``|q - c| < r``)."""
    if d.shape[0] == 0 or q.shape[0] == 0:
        return np.zeros(q.shape[0], dtype=bool)
    rel = _to_points(q, d, box)
    return np.any(norm(rel) < d[None, :, 2], axis=1)


def _nearest_outside(q: np.ndarray, fallback_dir: np.ndarray, d: np.ndarray, box: Box) -> np.ndarray:
    """Nearest point to each q (P, 2) outside all discs enlarged by the margin."""
    big = d.copy()
    big[:, 2] += FALLBACK_MARGIN
    # Geometry in each q's own unwrapped frame: ``centres`` are the disc centres' images nearest
    # q, so differences of points of this frame (rel, ab, cand - q) are plain vectors, no minimum
    # image (two discs' nearest images to q need not be each other's nearest images).
    centres = q[:, None, :] + displacement(q[:, None, :], big[None, :, :2], box)  # nearest images (P, M, 2)
    rel = q[:, None, :] - centres
    dist = norm(rel)
    safe = np.where(dist > 0, dist, 1.0)
    unit = np.where((dist > 0)[..., None], rel / safe[..., None], fallback_dir[:, None, :])
    cands = [centres + big[None, :, 2, None] * unit]  # radial projections, one per disc
    m = d.shape[0]
    for a in range(m):
        for b in range(a + 1, m):
            ca, cb = centres[:, a], centres[:, b]
            ra, rb = big[a, 2], big[b, 2]
            ab = cb - ca
            L = norm(ab)
            ok = (L > 0) & (L < ra + rb) & (L > abs(ra - rb))
            Ls = np.where(ok, L, 1.0)
            along = (ra * ra - rb * rb + Ls * Ls) / (2 * Ls)
            h = np.sqrt(np.maximum(ra * ra - along * along, 0.0))
            e = ab / Ls[:, None]
            perp = np.stack([-e[:, 1], e[:, 0]], axis=1)
            base = ca + along[:, None] * e
            for sgn in (1.0, -1.0):
                c = base + sgn * h[:, None] * perp
                c[~ok] = np.nan
                cands.append(c[:, None, :])
    cand = np.concatenate(cands, axis=1)  # (P, K, 2)
    K = cand.shape[1]
    flat = wrap(np.nan_to_num(cand.reshape(-1, 2), nan=0.0), box)
    rel2 = displacement(d[None, :, :2], flat[:, None, :], box)
    # valid: outside every enlarged disc, the whole margin from each (a hair below it: the
    # circles' intersections lie on two enlarged circles up to rounding).  Half the margin was
    # accepted before, so near the passage's concave corners a projection onto one disc could
    # stay 0.076 lengths from the other.
    valid = np.all(norm(rel2) >= d[None, :, 2] + (FALLBACK_MARGIN - 1e-9), axis=1)
    valid = valid.reshape(-1, K) & ~np.isnan(cand[..., 0])
    cost = norm(cand - q[:, None, :])
    cost = np.where(valid, cost, np.inf)
    best = np.argmin(cost, axis=1)
    rows = np.arange(q.shape[0])
    out = cand[rows, best]
    # If no candidate were valid (impossible for the shapes in OBSTACLES), fall back to the radial one.
    bad = ~np.isfinite(cost[rows, best])
    out[bad] = cand[bad, 0]
    return wrap(out, box)


def project_out(x: np.ndarray, theta: np.ndarray, d: np.ndarray, box: Box) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fallback: move agents inside a disc to the nearest outside point, reflect inward headings.

    x (N, 2), theta (N,).  Returns (x_new, theta_new, moved) where ``moved`` is the
    (K,) int64 array of indices that were inside.  Headings whose component along
    the push direction n (unit vector from old to new position) is negative are
    reflected: u <- u - 2 (u.n) n.  Agents outside are untouched (same values).
    """
    mask = inside(x, d, box)
    moved = np.flatnonzero(mask)
    if moved.size == 0:
        return x, theta, moved
    x = x.copy()
    theta = theta.copy()
    q = x[moved]
    sin_t, cos_t = detmath.sincos(theta[moved])
    u = np.stack([cos_t, sin_t], axis=1)
    new = _nearest_outside(q, u, d, box)
    push = displacement(q, new, box)
    plen = norm(push)
    n = push / np.where(plen > 0, plen, 1.0)[:, None]
    un = u[:, 0] * n[:, 0] + u[:, 1] * n[:, 1]
    refl = un < 0
    u[refl] -= 2.0 * un[refl, None] * n[refl]
    x[moved] = new
    theta[moved] = np.where(refl, wrap_angle(detmath.atan2(u[:, 1], u[:, 0])), theta[moved])
    return x, theta, moved
