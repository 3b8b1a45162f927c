"""Lab 3's rules as one function: what the engine runs every step, and what the page shows.

:func:`steering` is the whole of a boid's mind in Reynolds' model (see ``boids.py`` for the
units, the constants and why they have these values).  Every step applies it to the step's
one neighbour search: ``boids.step`` computes it from half pairs (``boids.builtin_steering``,
tested to give exactly the same bits as this function on the ordered pairs); the page's
"Rules in Python" panel shows its source, and a student's edited copy is run in its place
(``rules.load``, on the ordered pairs) with the names of this module as its namespace: ``np``,
the helpers below and the constants.

Helpers a rule can use (all vectorised over pairs or boids)
-----------------------------------------------------------
``sum_by(i, values, n)``   per-boid sums of per-pair values, (n,) or (n, 2)
``mean_by(i, values, n)``  per-boid means (0 for a boid with no pair)
``count_by(i, n)``         per-boid pair counts
``unit(v)``                (N, 2) unit vectors of the rows of ``v``
``norm(v)``                (N,) lengths of the rows of ``v``
``steer(rule, v, p)``      Reynolds steering towards the direction of ``rule`` (boids.steer)
``allocate(requests, budget)``  prioritised acceleration allocation (boids.allocate)
``cos_half_view(view)``    cos(view / 2), the field-of-view test's threshold
``EPS``                    lengths^2, the separation's softening
"""

from __future__ import annotations

import sys

import numpy as np

from . import boids
from .boids import EPS, allocate, cos_half_view
from .rules import Idea, RuleKind, count_by, mean_by, sum_by
from .space import norm

unit = boids.unit_headings

__all__ = ["steering", "steer", "sum_by", "mean_by", "count_by", "unit", "norm", "allocate",
           "cos_half_view", "EPS", "np"]


def steer(rule: np.ndarray, v: np.ndarray, p) -> np.ndarray:
    """``limit((p.v_max * rule / |rule| - v) / (1 s), p.max_force)``, 0 where ``rule`` is 0
    (boids.steer: the velocity difference per second, an acceleration)."""
    return boids.steer(rule, v, p.v_max, p.max_force)


def steering(i, j, d, r, v, p):
    """Each boid's acceleration from its neighbours: separation, alignment, cohesion.

    i, j : (M,) ints       pairs of boids closer than the longest range (j is near i)
    d    : (M, 2) lengths  d = p_j - p_i, the vector from boid i to boid j
    r    : (M,) lengths    r = |d|, their distance
    v    : (N, 2)          every boid's velocity, lengths/s
    p    : the parameters  p.k_sep, p.radius, p.view, p.max_force, p.v_max, ...
    returns (N, 2) accelerations, lengths/s^2
    """
    n = len(v)

    # What boid i sees: j inside the field of view, a cone of p.view degrees around i's heading.
    u = unit(v)  # headings
    ahead = u[i, 0] * d[:, 0] + u[i, 1] * d[:, 1]  # u_i . d_ij
    seen = (ahead >= cos_half_view(p.view) * r) | (p.view >= 360)

    # Separation: away from the boids that are too close, each pushing with d / (distance^2 + EPS),
    # so its push falls as 1 / distance (closer than sqrt(EPS), EPS eases it off: finite at 0).
    near = seen & (r <= p.sep_radius) & (p.k_sep > 0)  # a rule weighted 0 looks at nobody
    away = sum_by(i[near], d[near] * (-1.0 / (r[near] * r[near] + EPS))[:, None], n)

    # Alignment: towards the mean velocity of the boids in view nearby.
    mid = seen & (r <= p.radius) & (p.k_ali > 0)
    match = mean_by(i[mid], v[j[mid]], n)

    # Cohesion: towards the centre of the boids in view further out.
    far = seen & (r <= p.coh_radius) & (p.k_coh > 0)
    centre = mean_by(i[far], d[far], n)

    # Each rule asks to turn; the budget p.max_force serves separation first, then the others.
    return allocate([p.k_sep * steer(away, v, p),
                     p.k_ali * steer(match, v, p),
                     p.k_coh * steer(centre, v, p)], p.max_force)


# What the sessions and the CLI load a student's rule as (rules.load).
# The page's "Rules in Python" panel: its words (RuleKind.panel).
PANEL_TITLE = "Rules in Python"
PANEL_INTRO = ("This is the function the model runs at every step to steer every boid: the three rules in "
               "numpy, over all pairs of nearby boids at once. Change it and press “Run my rules”: the flock "
               "carries on from where it is, with your rules. The sliders still feed it their weights and ranges "
               "(p.k_sep, p.radius, …).")
PANEL_HELP = ("i, j: the pairs of boids near each other (j is near i); d: the vector from i to j and r its length, "
              "in body lengths; v: every boid's velocity; p: the settings (p.k_sep, p.k_ali, p.k_coh, p.sep_radius, "
              "p.radius, p.coh_radius, p.view, p.max_force, p.v_max). Return one acceleration (ax, ay) per boid. "
              "The main helpers: sum_by and mean_by add up or average per-pair values per boid; steer(rule, v, p) "
              "turns a direction into a capped steering request; allocate([...], budget) serves requests in order.")
KIND = RuleKind("steering", sys.modules[__name__], "accelerations in lengths/s², one row (ax, ay) per boid", 2)


# Ideas to try: small edits of steering's source (the page's "try it" buttons load the
# edited code into the editor).  Each edit is (the line as it is, the line as it becomes);
# tests/unit/test_rules.py checks every edit still applies and measures what the page says
# happens (IDEAS' "look").
IDEAS = (
    Idea("double", "Separation twice as strong",
         "Keeping space now wins more often: the boids keep a little further apart (the mean nearest "
         "spacing grows).",
         (("return allocate([p.k_sep * steer(away, v, p),", "return allocate([2 * p.k_sep * steer(away, v, p),"),)),
    Idea("all-round", "No blind spot: see all round",
         "With nobody blind behind, each boid answers to the whole group around it: the boids pack closer "
         "together (the spacing shrinks) and on average fly more one way (P rises).",
         (("seen = (ahead >= cos_half_view(p.view) * r) | (p.view >= 360)", "seen = r >= 0  # everyone near is seen"),)),
    Idea("fade", "Separation that fades with distance",
         "A push that falls off in a straight line, to 0 at the edge of the separation range, instead "
         "of the inverse square: the nearest neighbour no longer dominates and the boids settle a "
         "little further apart.",
         (("away = sum_by(i[near], d[near] * (-1.0 / (r[near] * r[near] + EPS))[:, None], n)",
           "away = sum_by(i[near], -d[near] * (1.0 - r[near] / p.sep_radius)[:, None], n)"),)),
    Idea("nearest", "Match only the nearest neighbour",
         "Each boid copies one neighbour instead of the average of all in range: on average the "
         "flock agrees less (P falls).",
         (("match = mean_by(i[mid], v[j[mid]], n)",
           "ii, jj, by_distance = i[mid], j[mid], np.lexsort((r[mid], i[mid]))  # each boid's pairs, nearest first\n"
           "    first = by_distance[np.unique(ii[by_distance], return_index=True)[1]]\n"
           "    match = mean_by(ii[first], v[jj[first]], n)  # only the nearest one in view"),)),
)
