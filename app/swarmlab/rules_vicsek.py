"""Lab 2's rule as one function: the Vicsek turn, what the engine runs every update.

:func:`turn` is applied once per update to every agent's neighbourhood (itself included, in
a fixed order: see ``vicsek.neighbourhoods``); the engine wraps its result into [-pi, pi) and
moves each agent one step along its new heading.  ``vicsek._advance`` runs it as
``vicsek.builtin_turn`` (tested to give exactly the same bits, with the headings' sin and cos
kept from the update before); the page's "Rules in Python" panel shows this function's source,
and a student's edited copy runs in its place (``rules.load``, on ``vicsek.neighbourhoods``)
with this module's names as its namespace.

Helpers a rule can use
----------------------
``sum_by(i, values, n)``, ``mean_by``, ``count_by``   per-agent reductions over pairs
``sincos(theta)``   (sin, cos) of an array, the same bits in every browser (detmath)
``atan2(y, x)``     the angle of (x, y), radians in [-pi, pi] (detmath)
``wrap_angle(a)``   an angle (difference) into [-pi, pi)
"""

from __future__ import annotations

import sys

import numpy as np

from .detmath import atan2, sincos
from .rules import Idea, RuleKind, count_by, mean_by, sum_by
from .space import wrap_angle

__all__ = ["turn", "sum_by", "mean_by", "count_by", "sincos", "atan2", "wrap_angle", "np"]


def turn(i, j, d, r, theta, a, kick):
    """Each agent turns towards its neighbours' mean heading, by a share a, plus a random kick.

    i, j  : (M,) ints      pairs: j is in i's neighbourhood (within the radius, i itself included)
    d, r  : (M, 2), (M,)   the vector from i to j and its length (box units)
    theta : (N,) radians   every agent's heading now
    a     : (N,)           the alignment knob (0 = kicks only, 1 = Vicsek's rule)
    kick  : (N,) radians   this update's random kicks, uniform in [-eta/2, eta/2)
                           (eta = 0.7 on the page: [-0.35, 0.35))
    returns (N,) new headings, radians
    """
    n = len(theta)
    s, c = sincos(theta)
    sx, sy = sum_by(i, c[j], n), sum_by(i, s[j], n)  # S_i: the neighbourhood's headings added up
    mean = atan2(sy, sx)  # its circular mean heading
    cancel = (sx == 0.0) & (sy == 0.0)  # headings that cancel exactly: no mean, no turn
    return theta + a * np.where(cancel, 0.0, wrap_angle(mean - theta)) + kick


# What the sessions and the CLI load a student's rule as (rules.load).
# The page's "Rules in Python" panel: its words (RuleKind.panel).
PANEL_TITLE = "The turn in Python"
PANEL_INTRO = ("This is the function the model runs at every update to turn every arrow. Its last line is the whole "
               "Vicsek rule. Change it and press “Run my rules”: the arrows carry on from where they are, with "
               "your rule (the check below, a = 0 against a = 1, always uses the original).")
PANEL_HELP = ("i, j: every pair of arrows within the radius, each arrow paired with itself too (j is in i's "
              "neighbourhood); d, r: the vector from i to j and its length, in box units; theta: every heading in "
              "radians; a: the alignment knob, one value per arrow; kick: this update's random nudges. Return one new "
              "heading per arrow (the engine wraps it into −π…π).")
KIND = RuleKind("turn", sys.modules[__name__], "new headings in radians, one per agent", 0)


# Ideas to try (edits of turn's source; tests/unit/test_rules.py measures each "look").
IDEAS = (
    Idea("no-kicks", "Switch off the random nudges (kick)",
         "With nothing to knock them off course the arrows end up flying exactly one way: P climbs to 1.",
         (("return theta + a * np.where(cancel, 0.0, wrap_angle(mean - theta)) + kick",
           "return theta + a * np.where(cancel, 0.0, wrap_angle(mean - theta))  # no kick"),)),
    Idea("strong-kicks", "Nudges (kick) three times as strong",
         "Alignment still pulls the arrows together, but the nudges keep breaking the agreement up: "
         "P falls from about 0.94 to about 0.6.",
         (("return theta + a * np.where(cancel, 0.0, wrap_angle(mean - theta)) + kick",
           "return theta + a * np.where(cancel, 0.0, wrap_angle(mean - theta)) + 3 * kick"),)),
)
