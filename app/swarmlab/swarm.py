"""Lab 1 "Swarm Lab": local rules, no leader.

Units, frames, conventions
--------------------------
* World: a 160 x 100 torus (:data:`BOX`), in model lengths.  x to the right,
  y "up" in the model frame (the renderer may flip it).  Headings ``theta`` are
  radians counter-clockwise from +x, kept in [-pi, pi); ``u = (cos, sin)``.
* Time: fixed step ``DT = 1/60`` model second; ``state.step`` counts steps and
  ``t = step * DT``.  Speeds in lengths/s, turning rates in rad/s.
* The uncertainty control ``sigma`` is in degrees per sqrt(second) and is
  converted to radians inside :func:`step`.
* Every periodic vector goes through ``space.displacement`` (FROM a TO b).

State
-----
:class:`SwarmState` is a small dataclass of arrays (shapes in its docstring).
Agents carry stable IDs; **the arrays are kept ordered by ID** (new agents get
``next_id`` and are appended; removal takes the most recently added, i.e. the
end), so array index order equals ID order and ``cells.k_nearest``'s
"ties by smaller j" is "ties by stable agent ID".  An agent's index never
changes while it lives.

Update order of one synchronous step (:func:`step`)
---------------------------------------------------
1. One neighbour search on the OLD positions (cutoff ``max(R, 3.2)``) gives the
   personal-space pairs (r < 3.2, all directions) and the social pairs (r <= R,
   within +-135 deg of the heading, and in "nearest" mode only the k closest of
   those).  See :func:`find_neighbours`.  The same :class:`Neighbourhood`
   serves the rules, the metrics and the selected-individual panel.
2. Steering from the old state (:func:`steering`):
   ``g = w_s S + w_a A + w_c C + obstacle + threat`` with the rules
   :func:`separation`, :func:`alignment`, :func:`cohesion`,
   ``obstacles.avoidance`` and :func:`threat_push` (threat at the old time).
3. Heading: ``theta* = direction(u + g)`` (keep theta if u + g == 0);
   ``theta += clip(wrap(theta* - theta)/0.42, +-3.2) DT + sigma sqrt(DT) xi``
   with ``xi = noise.keyed_normal(sample, STREAM_NOISE, id, step)``.
4. Position with the NEW heading: ``x = wrap(x + v u_new DT)``.
5. Fallback: a position inside a solid obstacle is projected outside (0.15
   margin) and the inward heading component reflected (``obstacles.project_out``).
6. ``step += 1``; a threat older than 12 s is dropped.

Nothing here reads JavaScript or the clock; a run is a pure function of
(parameters, sample, sequence of user actions at given steps).

Exact replay everywhere
-----------------------
Every operation that feeds the state is IEEE-exact (correctly rounded + - * /
and sqrt, floor, mod, comparisons): trig goes through :mod:`swarmlab.detmath`
(``sincos``, ``atan2``), lengths are ``sqrt(dx*dx + dy*dy)`` (never ``hypot``
or ``linalg.norm``), the noise's Box-Muller uses ``detmath.log``/``cos``, and
sums over pairs are ``np.bincount`` in a fixed order.  So a run in CPython
(the CLI) is bit-identical to the same run in the page's Pyodide
(``tests/parity/test_pyodide_parity.py``: 3,600 steps, with an obstacle and a
threat too).  The flocking dynamics are chaotic: numpy's own ``sin``/``cos``/
``arctan2``/``hypot`` differ in the last bit between builds, and such a
difference grew to a different world within about 40 model seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, ClassVar, Mapping

import numpy as np

from . import cells, detmath, metrics, noise, obstacles
from .cells import Pairs
from .params import ParamSpec, defaults, step_count, validate, validate_many
from .space import Box, displacement, distance, norm, shift, wrap, wrap_angle

# --- fixed constants (SPEC.md Lab 1) --------------------------------------------------------
BOX = Box(160.0, 100.0)
DT = 1.0 / 60.0  # s
PERSONAL = 3.2  # lengths, personal-space radius (all directions)
FOV_HALF = math.radians(135.0)  # social field of view is +-135 deg (270 deg)
FOV_DEG = round(math.degrees(2.0 * FOV_HALF), 9)  # the whole field of view, as the page quotes it
RESPONSE_TIME = 0.42  # s, heading relaxation scale
MAX_TURN = 3.2  # rad/s cap on deterministic turning (noise not capped)
TURN_ONE = math.radians(60.0)  # "turn one individual"
VERY_CLOSE = 1.2  # lengths, very-close metric threshold
SAMPLE_INTERVAL_STEPS = 15  # metrics every 0.25 model s
HISTORY_CAPACITY = metrics.HISTORY_CAPACITY
TIME_LIMIT_STEPS = 5 * 60 * 60  # five model minutes
TIME_LIMIT_SECONDS = TIME_LIMIT_STEPS * DT  # the same limit in model seconds (the page's words)

# threat (SPEC: 12 s prescribed path, radius 22, magnitude 4 (1 - d/22))
THREAT_RADIUS = 22.0
THREAT_STRENGTH = 4.0
THREAT_STEPS = 12 * 60  # 12 s
# Documented choices for the prescribed path: it appears THREAT_OFFSET lengths ahead
# (along x, on the side the selected agent is heading to) and runs head-on against it,
# one full lap of the 160-length width in 12 s, with a vertical sine of amplitude
# THREAT_AMPLITUDE and two full periods.
THREAT_OFFSET = 15.0
THREAT_SPEED = 160.0 / 12.0  # lengths/s
THREAT_AMPLITUDE = 8.0
THREAT_PERIODS = 2.0

# panel: "nearby but excluded" ring radius as a multiple of R
NEARBY_FACTOR = 1.5

# cluster start: disc around CLUSTER_CENTRE with about this area per agent
CLUSTER_CENTRE = (40.0, 50.0)
CLUSTER_AREA_PER_AGENT = 12.0  # lengths^2 (nearest spacing about 1.7 at the start)
CLUSTER_MAX_RADIUS = 45.0

# keyed random streams (noise.py); all keyed by (sample, agent ID, counter)
STREAM_NOISE = 0  # heading noise xi, counter = step
STREAM_POS_A = 1  # placement uniforms, counter = placement attempt
STREAM_POS_B = 2
STREAM_HEADING = 3  # initial / added heading, counter 0
STREAM_COINCIDENT = 4  # direction for exactly coincident pairs (sample 0, "id" = lower ID, counter = higher ID)
PLACEMENT_ATTEMPTS = 32

OBSTACLE_CODES = {"none": 0, "circle": 1, "passage": 2}

# --- parameters ------------------------------------------------------------------------------
SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("separation", True, "Separation", kind="bool", group="rules",
              help=f"Personal space: steer away from every animal closer than {PERSONAL:g} lengths, in any direction."),
    ParamSpec("w_s", 1.5, "Separation weight", min=0.0, max=5.0, step=0.1, group="rules", advanced=True,
              help="Weight w_s of the separation rule. Switching the rule off keeps this value."),
    ParamSpec("alignment", True, "Alignment", kind="bool", group="rules",
              help="Turn towards the mean heading of the social neighbours."),
    ParamSpec("w_a", 1.0, "Alignment weight", min=0.0, max=5.0, step=0.1, group="rules", advanced=True,
              help="Weight w_a of the alignment rule. Switching the rule off keeps this value."),
    ParamSpec("cohesion", True, "Cohesion", kind="bool", group="rules",
              help="Turn towards the mean position of the social neighbours."),
    ParamSpec("w_c", 0.6, "Cohesion weight", min=0.0, max=5.0, step=0.1, group="rules", advanced=True,
              help="Weight w_c of the cohesion rule. Switching the rule off keeps this value."),
    ParamSpec("mode", "range", "Neighbours", kind="choice", choices=("range", "nearest"),
              choice_labels=("everyone in range", "nearest few (k)"), group="perception",
              help=f"Everyone in range: every animal within R in its {FOV_DEG:g}° view. Nearest few (k): only the k "
                   "closest of those (starlings track about 6–7 neighbours)."),
    ParamSpec("R", 10.0, "Range R", min=1.0, max=40.0, step=0.5, unit="lengths", group="perception",
              help="How far an animal senses its social neighbours (both modes)."),
    ParamSpec("k", 7, "Nearest few k", kind="int", min=1, max=30, step=1, group="perception",
              help="In nearest-few mode: how many of the closest visible neighbours count."),
    ParamSpec("v", 10.0, "Speed v", min=1.0, max=25.0, step=0.5, unit="lengths/s", group="motion",
              help="Common swimming or flying speed of every animal."),
    ParamSpec("sigma", 15.0, "Uncertainty", min=0.0, max=180.0, step=1.0, unit="°/√s", group="motion",
              help="Random heading error sigma: without steering, the spread grows as sigma times the square root of elapsed time."),
    ParamSpec("N", 150, "Population", kind="int", min=1, max=2000, step=1, unit="animals", unit_one="animal", group="world",
              advanced=True,
              help="Added animals appear at scattered reproducible places; removal takes the most recently added. "
                   "Large populations may run slower than real time; the results do not change."),
    ParamSpec("obstacle", "none", "Obstacle", kind="choice", choices=("none", "circle", "passage"),
              choice_labels=("none", "a circle", "a narrow passage"), group="world",
              help="A solid circle, or a narrow passage between two large circles. Animals inside a new obstacle "
                   "are moved out at once."),
    ParamSpec("appearance", "birds", "Appearance", kind="choice", choices=("birds", "fish"),
              choice_labels=("birds", "fish"), group="display",
              help="Changes only the drawing, never the model."),
    ParamSpec("sample", 42, "Sample", kind="int", min=0, max=999_999_999, step=1, group="run", identifier=True,
              help="Seeds the start and all the noise. Takes effect when the run restarts."),
    ParamSpec("start", "cluster", "Start", kind="choice", choices=("cluster", "scattered"),
              choice_labels=("a loose patch", "scattered over the world"), group="run",
              advanced=True,
              help="A loose patch: animals close together, facing unrelated ways. Scattered: over the whole world, facing "
                   "unrelated ways. "
                   "Takes effect when the run restarts."),
)
SPEC_BY_NAME = {s.name: s for s in SPECS}
RESTART_ONLY = ("sample", "start")  # stored live, used at the next restart
DRAWING_ONLY = ("appearance",)


# What SwarmParams(...) made from Python (or dataclasses.replace) checks: the same specs without
# the sliders' upper bounds (tools/bench runs 10,000 animals), with lower bounds of at most 0
# (at least 1 animal and 1 nearest neighbour, and R > 0: cohesion divides by it); NaN, text and
# negative values are refused, as boids.Params does.  The sample keeps its range: the page and
# the CLI can replay only those.
_PYTHON_SPECS: tuple[ParamSpec, ...] = tuple(
    s if s.name == "sample" or s.kind in ("bool", "choice")
    else replace(s, max=None, min=s.min if s.name in ("N", "k") else min(s.min, 0), above_min=s.name == "R")
    for s in SPECS)


@dataclass(frozen=True)
class SwarmParams:
    """Validated parameter values (see :data:`SPECS` for units, ranges and defaults).

    Build with :meth:`from_values` (defaults from SPECS, everything validated within the
    sliders' ranges).  Made directly, or by ``dataclasses.replace``, every value is still
    checked, without the sliders' upper bounds (``_PYTHON_SPECS``).
    """

    separation: bool
    w_s: float
    alignment: bool
    w_a: float
    cohesion: bool
    w_c: float
    mode: str
    R: float
    k: int
    v: float
    sigma: float
    N: int
    obstacle: str
    appearance: str
    sample: int
    start: str

    def __post_init__(self):
        for spec in _PYTHON_SPECS:
            object.__setattr__(self, spec.name, validate(_PYTHON_SPECS, spec.name, getattr(self, spec.name)))

    @classmethod
    def from_values(cls, values: Mapping[str, Any] | None = None, **more: Any) -> "SwarmParams":
        """Defaults updated by ``values`` and ``more``, all through ``params.validate``; a name
        in both must have the same value there (ValueError otherwise: no silent winner)."""
        merged = dict(values or {})
        for name, value in more.items():
            if name in merged and merged[name] != value:
                raise ValueError(f"{name} is given twice, as {merged[name]!r} and as {value!r}; give it once")
            merged[name] = value
        d = defaults(SPECS)
        d.update(validate_many(SPECS, merged))
        return cls(**d)

    def with_values(self, **changes: Any) -> "SwarmParams":
        return replace(self, **validate_many(SPECS, changes))

    # effective rule weights: a rule that is off has weight 0 (its control keeps its value)
    @property
    def ws(self) -> float:
        return self.w_s if self.separation else 0.0

    @property
    def wa(self) -> float:
        return self.w_a if self.alignment else 0.0

    @property
    def wc(self) -> float:
        return self.w_c if self.cohesion else 0.0

    @property
    def cutoff(self) -> float:
        """Neighbour-search radius serving both personal space and the social range."""
        return max(self.R, PERSONAL)


# --- state -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Threat:
    """A passing threat on a prescribed path (never steered by the agents).

    start_step : step at which it appeared
    origin     : (2,) position at its first step
    direction  : +1 or -1, the sign of its x velocity
    """

    start_step: int
    origin: tuple[float, float]
    direction: float

    def position(self, step: int) -> np.ndarray:
        """(2,) wrapped position at ``step``: x advances at THREAT_SPEED, y follows a sine."""
        tau = (step - self.start_step) * DT
        off = np.array([
            self.direction * THREAT_SPEED * tau,
            THREAT_AMPLITUDE * float(detmath.sin(2.0 * math.pi * THREAT_PERIODS * tau / (THREAT_STEPS * DT))),
        ])
        return wrap(np.asarray(self.origin) + off, BOX)

    def active(self, step: int) -> bool:
        return 0 <= step - self.start_step < THREAT_STEPS


@dataclass(frozen=True)
class SwarmState:
    """Lab 1 state (arrays are never modified in place; every change makes a new state).

    ids       : (N,) int64  stable agent IDs, strictly increasing along the array
    x         : (N, 2) float64  positions in [0, 160) x [0, 100), lengths
    theta     : (N,) float64  headings in [-pi, pi), radians
    step      : int  steps taken; model time t = step * DT
    sample    : int  the sample number that keys the noise of this run
    next_id   : int  ID the next added agent receives (IDs are never reused)
    threat    : Threat or None
    fallbacks : int  cumulative count of obstacle fallback projections (diagnostic)
    """

    ids: np.ndarray
    x: np.ndarray
    theta: np.ndarray
    step: int = 0
    sample: int = 42
    next_id: int = 0
    threat: Threat | None = None
    fallbacks: int = 0

    @property
    def n(self) -> int:
        return int(self.ids.shape[0])

    @property
    def t(self) -> float:
        return self.step * DT

    @cached_property
    def u(self) -> np.ndarray:
        """(N, 2) unit headings (cos, sin), IEEE-exact (:func:`unit_vectors`); read-only.

        Computed once per state (``detmath.sincos`` costs a few dozen numpy calls):
        the search, the rules, the turn and the metrics of one step all read it, and
        :func:`step` hands the new headings' vectors to the state it returns.
        """
        return _frozen(unit_vectors(self.theta))

    def index_of(self, agent_id: int) -> int | None:
        """Array index of a stable ID, or None if that agent does not exist."""
        k = int(np.searchsorted(self.ids, agent_id))
        return k if k < self.n and int(self.ids[k]) == int(agent_id) else None


def unit_vectors(theta: np.ndarray) -> np.ndarray:
    """(N,) angles -> (N, 2) unit vectors (cos, sin) through ``detmath.sincos`` (same bits everywhere)."""
    s, c = detmath.sincos(np.asarray(theta, dtype=np.float64))
    return np.stack([c, s], axis=-1)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False  # a cached value must never be changed in place
    return a


# --- placement -------------------------------------------------------------------------------
def _place(sample: int, ids: np.ndarray, layout: str, n_total: int, obstacle: str) -> np.ndarray:
    """Reproducible positions (len(ids), 2) keyed by (sample, ID, attempt); avoids obstacles.

    scattered: uniform over the world.  cluster: uniform in a disc around CLUSTER_CENTRE
    whose area is about CLUSTER_AREA_PER_AGENT per agent of ``n_total``.
    An agent whose draw falls inside the obstacle redraws with the next attempt
    number; after PLACEMENT_ATTEMPTS it is projected out.
    """
    d = obstacles.discs(obstacle)
    x = np.zeros((ids.shape[0], 2))
    todo = np.arange(ids.shape[0])
    radius = min(math.sqrt(max(n_total, 1) * CLUSTER_AREA_PER_AGENT / math.pi), CLUSTER_MAX_RADIUS)
    for attempt in range(PLACEMENT_ATTEMPTS):
        a = noise.keyed_uniform(sample, STREAM_POS_A, ids[todo], attempt)
        b = noise.keyed_uniform(sample, STREAM_POS_B, ids[todo], attempt)
        if layout == "scattered":
            pos = np.stack([a * BOX.width, b * BOX.height], axis=1)
        elif layout == "cluster":
            rr = radius * np.sqrt(a)
            sin_a, cos_a = detmath.sincos(2.0 * np.pi * b)
            pos = np.stack([CLUSTER_CENTRE[0] + rr * cos_a, CLUSTER_CENTRE[1] + rr * sin_a], axis=1)
        else:
            raise ValueError(f"start must be cluster or scattered, got {layout!r}")
        x[todo] = wrap(pos, BOX)
        todo = todo[obstacles.inside(x[todo], d, BOX)]
        if todo.size == 0:
            break
    if todo.size:
        x, _, _ = obstacles.project_out(x, np.zeros(x.shape[0]), d, BOX)
    return x


def _headings(sample: int, ids: np.ndarray) -> np.ndarray:
    """Unrelated initial headings, uniform in [-pi, pi), keyed by (sample, ID)."""
    return wrap_angle(2.0 * np.pi * noise.keyed_uniform(sample, STREAM_HEADING, ids, 0) - np.pi)


def initial_state(p: SwarmParams) -> SwarmState:
    """Start of a run: N agents with IDs 0..N-1 placed by ``p.start``, unrelated headings."""
    ids = np.arange(p.N, dtype=np.int64)
    x = _place(p.sample, ids, p.start, p.N, p.obstacle)
    return SwarmState(ids=ids, x=x, theta=_headings(p.sample, ids), step=0, sample=p.sample, next_id=p.N)


# --- neighbourhood ---------------------------------------------------------------------------
@dataclass
class Neighbourhood:
    """One neighbour search and the sets derived from it.

    pairs    : all pairs with r <= max(R, 3.2).  In "nearest" mode the ordered pairs sorted
               by i, then r, then j (k_nearest needs that order); in "range" mode each
               unordered pair once (``half``: no output sort, about 40 % of a step at high
               density, and no reverse block), from which the field of view writes only
               the ordered pairs in view
    personal : ordered pairs with r < 3.2 (any direction)
    social   : ordered pairs with r <= R inside +-135 deg of i's heading; in "nearest"
               mode only the k closest of those per agent (ties by ID = index order)

    Every set is the same, bit for bit and in the same order, as when "range" mode
    searched ordered pairs (``cells.in_field_of_view`` and ``Pairs.full`` keep the order
    of the forward block, then the reverse block).
    """

    pairs: Pairs
    personal: Pairs
    social: Pairs


def find_neighbours(state: SwarmState, p: SwarmParams) -> Neighbourhood:
    """The step's single neighbour search (see module docstring, step 1)."""
    nearest = p.mode == "nearest"
    pairs = cells.neighbour_pairs(state.x, BOX, p.cutoff, sort=nearest, half=not nearest)
    personal = pairs.take(pairs.r < PERSONAL).full()
    social = pairs if p.R >= p.cutoff else pairs.take(pairs.r <= p.R)
    social = cells.in_field_of_view(social, state.u, FOV_HALF)
    if nearest:
        social = cells.k_nearest(social, p.k)
    return Neighbourhood(pairs=pairs, personal=personal, social=social)


# --- rules -----------------------------------------------------------------------------------
def cap1(vec: np.ndarray) -> np.ndarray:
    """Limit each row vector's length to 1: ``v / max(1, |v|)``.  vec (N, 2)."""
    return vec / np.maximum(norm(vec), 1.0)[:, None]


def coincident_direction(id_a: np.ndarray, id_b: np.ndarray) -> np.ndarray:
    """Unit vector (M, 2) used as r_hat for exactly coincident pairs (a at the same point as b).

    Deterministic and antisymmetric: the pair's angle is keyed by (lower ID, higher ID)
    and the sign flips with the order, so the two agents are pushed opposite ways.
    """
    lo = np.minimum(id_a, id_b)
    hi = np.maximum(id_a, id_b)
    ang = 2.0 * np.pi * noise.keyed_uniform(0, STREAM_COINCIDENT, lo, hi)
    sign = np.where(id_a < id_b, 1.0, -1.0)
    return sign[:, None] * unit_vectors(ang)


def separation(personal: Pairs, ids: np.ndarray) -> np.ndarray:
    """S_i = cap1( sum_j (1 - d_ij/3.2) * (-rhat_ij) ) over personal-space neighbours (d < 3.2).

    rhat_ij = r_ij/|r_ij| points from i towards j; exactly coincident pairs use
    :func:`coincident_direction`.  No neighbours -> zero.  Returns (N, 2), unweighted.
    """
    if len(personal) == 0:
        return np.zeros((personal.n, 2))
    r = personal.r
    zero = r == 0
    safe = np.where(zero, 1.0, r)
    rx = personal.dx / safe  # r_hat as two contiguous columns
    ry = personal.dy / safe
    if np.any(zero):
        c = coincident_direction(ids[personal.i[zero]], ids[personal.j[zero]])
        rx[zero] = c[:, 0]
        ry[zero] = c[:, 1]
    w = 1.0 - r / PERSONAL
    return cap1(personal.sum_by_i((-w * rx, -w * ry)))


def alignment(social: Pairs, u: np.ndarray) -> np.ndarray:
    """A_i = mean_j(u_j) - u_i over social neighbours; zero if none.  (N, 2), unweighted."""
    cnt = social.counts()
    mean = social.sum_by_i((u[:, 0][social.j], u[:, 1][social.j])) / np.maximum(cnt, 1)[:, None]
    return np.where((cnt > 0)[:, None], mean - u, 0.0)


def cohesion(social: Pairs, R: float) -> np.ndarray:
    """C_i = cap1( mean_j(r_ij) / R ) over social neighbours (r_ij periodic, i -> j); zero if none."""
    cnt = social.counts()
    mean = social.sum_by_i((social.dx, social.dy)) / np.maximum(cnt, 1)[:, None]
    return cap1(mean / R)  # rows with no neighbours are already zero


def threat_push(x: np.ndarray, u: np.ndarray, threat_pos: np.ndarray | None) -> np.ndarray:
    """Outward steering from a threat: 4 (1 - d/22) * unit(threat -> agent) for d < 22, else 0.

    An agent exactly at the threat's position flees straight ahead (along u).
    """
    out = np.zeros_like(x)
    if threat_pos is None or x.shape[0] == 0:
        return out
    rel = displacement(threat_pos[None, :], x, BOX)
    d = norm(rel)
    near = d < THREAT_RADIUS
    if not np.any(near):
        return out
    dn = d[near]
    dirn = np.where((dn > 0)[:, None], rel[near] / np.where(dn > 0, dn, 1.0)[:, None], u[near])
    out[near] = (THREAT_STRENGTH * (1.0 - dn / THREAT_RADIUS))[:, None] * dirn
    return out


@dataclass
class Steering:
    """Weighted steering contributions, each (N, 2) (not physical forces)."""

    separation: np.ndarray
    alignment: np.ndarray
    cohesion: np.ndarray
    obstacle: np.ndarray
    threat: np.ndarray

    NAMES: ClassVar[tuple[str, ...]]  # the fields' names in order, set below the class

    @property
    def total(self) -> np.ndarray:
        """g = w_s S + w_a A + w_c C + obstacle + threat."""
        return self.separation + self.alignment + self.cohesion + self.obstacle + self.threat

    def of(self, index: int) -> dict[str, list[float]]:
        """The contributions of one agent as {name: [gx, gy]} plus "total"."""
        out = {name: getattr(self, name)[index].tolist() for name in self.NAMES}
        out["total"] = self.total[index].tolist()
        return out


Steering.NAMES = tuple(f.name for f in fields(Steering))


def steering(state: SwarmState, p: SwarmParams, nb: Neighbourhood) -> Steering:
    """All contributions to g for every agent, from the old state (step 2)."""
    u = state.u
    threat_pos = threat_position(state)
    return Steering(
        separation=p.ws * separation(nb.personal, state.ids) if p.ws else np.zeros_like(u),
        alignment=p.wa * alignment(nb.social, u) if p.wa else np.zeros_like(u),
        cohesion=p.wc * cohesion(nb.social, p.R) if p.wc else np.zeros_like(u),
        obstacle=obstacles.avoidance(state.x, u, p.v, obstacles.discs(p.obstacle), BOX),
        threat=threat_push(state.x, u, threat_pos),
    )


def turn_rate(theta: np.ndarray, g: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
    """Deterministic turning rate (rad/s): clip(wrap(theta* - theta)/0.42, +-3.2).

    theta* = direction(u + g); where u + g is exactly zero, theta* = theta (rate 0).
    ``u`` may pass ``unit_vectors(theta)`` when it is already known.
    """
    w = (unit_vectors(theta) if u is None else u) + g
    zero = (w[:, 0] == 0.0) & (w[:, 1] == 0.0)
    target = np.where(zero, theta, detmath.atan2(w[:, 1], w[:, 0]))
    return np.clip(wrap_angle(target - theta) / RESPONSE_TIME, -MAX_TURN, MAX_TURN)


_NOISE_AHEAD = noise.NormalsAhead(STREAM_NOISE)


def heading_noise(state: SwarmState) -> np.ndarray:
    """xi (N,): standard normals keyed by (sample, agent ID, step) — counter-based.

    Equal to ``noise.keyed_normal(state.sample, STREAM_NOISE, state.ids, state.step)``, bit
    for bit; drawn for several steps ahead at once (``noise.NormalsAhead``).  Read-only.
    """
    return _NOISE_AHEAD(state.sample, state.ids, state.step)


def step(state: SwarmState, p: SwarmParams, nb: Neighbourhood | None = None,
         steer: Steering | None = None) -> SwarmState:
    """One synchronous step of Lab 1 (module docstring, steps 1-6).

    ``nb`` / ``steer`` may pass the neighbourhood / steering already computed for
    this exact (state, p) — e.g. by the session for the panel — so the search
    runs once per step.
    """
    if state.n == 0:
        return replace(state, step=state.step + 1)
    if steer is None:
        steer = steering(state, p, nb if nb is not None else find_neighbours(state, p))
    theta = state.theta + turn_rate(state.theta, steer.total, state.u) * DT
    if p.sigma > 0:
        theta = theta + math.radians(p.sigma) * math.sqrt(DT) * heading_noise(state)
    theta = wrap_angle(theta)
    u_new = unit_vectors(theta)
    x = shift(state.x, u_new, p.v * DT, BOX)  # x + u_new * (v DT), wrapped
    d = obstacles.discs(p.obstacle)
    fallbacks = state.fallbacks
    moved = None
    if d.shape[0]:
        x, theta, moved = obstacles.project_out(x, theta, d, BOX)
        fallbacks += int(moved.size)
    new_step = state.step + 1
    threat = state.threat if state.threat is not None and state.threat.active(new_step) else None
    new = replace(state, x=x, theta=theta, step=new_step, threat=threat, fallbacks=fallbacks)
    if moved is not None and moved.size:  # reflected headings: their vectors come from the new theta
        u_new[moved] = unit_vectors(theta[moved])
    new.__dict__["u"] = _frozen(u_new)  # == unit_vectors(new.theta), bit for bit
    return new


def advance(state: SwarmState, p: SwarmParams, n: int) -> SwarmState:
    """n steps with fixed parameters (batch helper; the session adds history and limits)."""
    for _ in range(step_count(n)):
        state = step(state, p)
    return state


# --- interventions (each returns a new state; none advances time) ----------------------------
def turn_one(state: SwarmState, index: int) -> SwarmState:
    """Add 60 deg to one agent's heading (wrapped); positions, clock and others unchanged."""
    theta = state.theta.copy()
    theta[index] = wrap_angle(theta[index] + TURN_ONE)
    return replace(state, theta=theta)


def start_threat(state: SwarmState, index: int) -> SwarmState:
    """Launch a threat near agent ``index`` (replacing any active one).

    It appears THREAT_OFFSET lengths from the agent along x, on the side the agent
    is heading to, and runs head-on towards it (then on around the torus).
    """
    s = 1.0 if float(detmath.cos(float(state.theta[index]))) >= 0 else -1.0
    origin = wrap(state.x[index] + np.array([s * THREAT_OFFSET, 0.0]), BOX)
    return replace(state, threat=Threat(start_step=state.step, origin=(float(origin[0]), float(origin[1])),
                                        direction=-s))


def threat_position(state: SwarmState) -> np.ndarray | None:
    """Current (2,) threat position, or None when no threat is active."""
    if state.threat is None or not state.threat.active(state.step):
        return None
    return state.threat.position(state.step)


def add_agents(state: SwarmState, count: int, obstacle: str) -> SwarmState:
    """Append ``count`` agents with new IDs at scattered reproducible places (keyed by sample, ID)."""
    if count <= 0:
        return state
    ids = np.arange(state.next_id, state.next_id + count, dtype=np.int64)
    x = _place(state.sample, ids, "scattered", count, obstacle)
    return replace(state, ids=np.concatenate([state.ids, ids]), x=np.concatenate([state.x, x]),
                   theta=np.concatenate([state.theta, _headings(state.sample, ids)]),
                   next_id=state.next_id + count)


def remove_agents(state: SwarmState, count: int) -> SwarmState:
    """Remove the ``count`` most recently added agents (the largest IDs, at the end)."""
    keep = max(state.n - max(int(count), 0), 0)
    return replace(state, ids=state.ids[:keep], x=state.x[:keep], theta=state.theta[:keep])


def set_population(state: SwarmState, n: int, obstacle: str) -> SwarmState:
    """Add or remove agents to reach ``n``."""
    if n > state.n:
        return add_agents(state, n - state.n, obstacle)
    return remove_agents(state, state.n - n)


def place_obstacle(state: SwarmState, obstacle: str) -> tuple[SwarmState, np.ndarray]:
    """Displace agents inside a newly chosen obstacle; returns (state, moved indices)."""
    x, theta, moved = obstacles.project_out(state.x, state.theta, obstacles.discs(obstacle), BOX)
    if moved.size == 0:
        return state, moved
    return replace(state, x=x, theta=theta), moved


# --- measurements and the selected-individual view -------------------------------------------
def measure(state: SwarmState, nb: Neighbourhood) -> dict[str, float]:
    """Metrics of the current state (nb = its neighbourhood under the current parameters).

    Returns (all floats; the chart series of :data:`HISTORY_SERIES` by the same keys):
      P          whole-group agreement |mean heading|, 0 to 1 (NaN for no agents)
      local      mean over agents with a social neighbour of their agreement with those
                 neighbours, 0 to 1 (NaN when no agent has one)
      spacing    mean distance to the nearest other agent, lengths (NaN below 2 agents)
      very_close share of agents with another within VERY_CLOSE lengths, 0 to 1 (NaN below 2 agents)
      milling    rotation order about the group's centre, 0 to 1 (NaN below 2 agents)
      N          the number of agents (a float, as the history stores it)

    The spacing metrics reuse the step's search: ``nb.pairs`` holds every pair within
    the cut-off, so only agents with no pair there are searched again, at any distance
    (``metrics.nearest_distances``; the values equal a full ``nearest_any`` bit for bit).
    """
    u = state.u
    spacing, close = metrics.nearest_spacing(state.x, BOX, VERY_CLOSE, pairs=nb.pairs)
    return {
        "P": metrics.polarization(u),
        "local": metrics.local_agreement(u, nb.social),
        "spacing": spacing,
        "very_close": close,
        "milling": metrics.rotation_order(state.x, u, BOX),
        "N": float(state.n),
    }


HISTORY_SERIES = (
    metrics.Series("P", metrics.P_WHOLE_GROUP, "0 to 1"),
    metrics.Series("local", "local agreement", "0 to 1"),
    metrics.Series("spacing", "mean nearest spacing", "lengths"),
    # (the page's readouts and charts take these words: one name for each measure everywhere)
    metrics.Series("very_close", f"share under {VERY_CLOSE:g} lengths", "fraction of animals"),
    metrics.Series("milling", "rotation order (milling)", "0 to 1"),
    metrics.Series("N", "population", "animals"),
)


def new_history() -> metrics.History:
    return metrics.History(HISTORY_SERIES, tick_seconds=DT, interval=SAMPLE_INTERVAL_STEPS,
                           capacity=HISTORY_CAPACITY, time_label="time (s)")


def nearby_radius(p: SwarmParams) -> float:
    """The panel's "nearby" distance, lengths: NEARBY_FACTOR * R, at least the personal space."""
    return max(NEARBY_FACTOR * p.R, PERSONAL)


def agent_view(state: SwarmState, p: SwarmParams, nb: Neighbourhood, steer: Steering, index: int) -> dict:
    """What agent ``index`` senses and how each rule pushes it (the panel's data).

    social / personal are read from the step's neighbourhood (they may overlap);
    "excluded" are the other agents within NEARBY_FACTOR * R (or 3.2) that are in
    neither set: outside the field of view, beyond k, or out of range.
    """
    i = int(index)
    soc = nb.social.j[nb.social.i == i]
    per = nb.personal.j[nb.personal.i == i]
    ring = nearby_radius(p)
    dist = distance(state.x[i][None, :], state.x, BOX)
    near = np.flatnonzero(dist <= ring)
    near = near[near != i]
    excluded = np.setdiff1d(near, np.union1d(soc, per))
    vectors = steer.of(i)
    return {
        "index": i,
        "id": int(state.ids[i]),
        "x": float(state.x[i, 0]),
        "y": float(state.x[i, 1]),
        "theta": float(state.theta[i]),
        "social": soc.tolist(),
        "personal": per.tolist(),
        "excluded": excluded.tolist(),
        "vectors": vectors,
        "R": p.R,
        "nearby_radius": ring,
        "personal_space": PERSONAL,
        "fov_deg": FOV_DEG,
        "text": describe(p, len(soc), len(per), len(excluded), vectors),
    }


_RULE_WORDS = {"separation": "keeping its personal space", "alignment": "matching its neighbours' heading",
               "cohesion": "closing in on its neighbours", "obstacle": "steering clear of the obstacle",
               "threat": "fleeing the threat"}


def _length(vec) -> float:
    return math.sqrt(vec[0] * vec[0] + vec[1] * vec[1])


def describe(p: SwarmParams, n_social: int, n_personal: int, n_excluded: int, vectors: Mapping) -> str:
    """One sentence for the panel: what the selected agent senses and its strongest push."""
    if n_social == 0 and n_personal == 0:
        text = "Waiting for the first neighbourhood: no one is within reach of its senses"
        if n_excluded:
            text += f" ({n_excluded} nearby but out of view or range)"  # (none seen: so none is beyond k)
        extra = [name for name in ("obstacle", "threat") if _length(vectors[name]) > 1e-9]
        if extra:
            text += "; it is " + " and ".join(_RULE_WORDS[e] for e in extra)
        return text + "."
    nearest = p.mode == "nearest"
    why = f"out of view, out of range or beyond the nearest {p.k:g}" if nearest else "out of view or range"  # (SPEC: excluded)
    who = "nearest-few" if nearest else "in range"
    parts = [f"It senses {n_social} social neighbour{'s' if n_social != 1 else ''} ({who}, within {p.R:g} lengths "
             f"in its {FOV_DEG:g}° view)"]
    if n_personal:
        parts.append(f"{n_personal} inside its personal space")
    if n_excluded:
        parts.append(f"and ignores {n_excluded} more within {nearby_radius(p):g} lengths ({why})")
    mags = {name: _length(vectors[name]) for name in Steering.NAMES}
    top = max(mags, key=lambda k: mags[k])
    text = ", ".join(parts) + "."
    if mags[top] > 1e-9:
        text += f" Strongest push: {_RULE_WORDS[top]}."
    return text


# --- trials ("make a prediction first") ------------------------------------------------------
@dataclass(frozen=True)
class Trial:
    """A guided experiment: restart with ``settings`` (on top of the defaults, same sample).

    ``uses`` names the controls that ``try_next`` asks the student to change: the page's
    minimal mode (``?controls=minimal``) shows them while the trial runs.
    """

    id: str
    title: str
    question: str
    try_next: str
    settings: dict = field(default_factory=dict)
    uses: tuple[str, ...] = ()

    @property
    def own(self) -> dict:
        """The trial's own settings, validated (``settings`` as the run holds them)."""
        return validate_many(SPECS, self.settings)

    def holds(self, values: Mapping[str, Any]) -> bool:
        """True if ``values`` include every one of the trial's own settings."""
        return all(values.get(k) == v for k, v in self.own.items())

    @property
    def settings_text(self) -> str:
        """The trial's own settings in words, as the chart markers write them
        ("obstacle: a narrow passage"; "separation off, alignment off, cohesion off")."""
        return ", ".join(SPEC_BY_NAME[k].marker(v) for k, v in self.own.items())

    def start_values(self, given: Mapping[str, Any]) -> tuple[dict, dict]:
        """The values a run of this trial starts with, and what was left out of ``given``.

        The defaults, then the trial's own settings, then ``given`` (validated: ValueError
        names a bad one) except where it contradicts one of the trial's settings: those
        are left out and returned as ``{name: value}``.  The one rule for starting a trial:
        the page's trial cards and trial links (``SwarmSession.op_start_trial``) and the
        command line (``python -m swarmlab swarm --trial``, which refuses a contradiction).
        """
        own = self.own
        given = validate_many(SPECS, dict(given))
        left_out = {k: v for k, v in given.items() if k in own and v != own[k]}
        values = defaults(SPECS)
        values.update(own)
        values.update({k: v for k, v in given.items() if k not in left_out})
        return values, left_out

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "question": self.question,
                "try_next": self.try_next, "settings": dict(self.settings), "uses": list(self.uses),
                "settings_text": self.settings_text}


TRIALS: tuple[Trial, ...] = (
    Trial(
        id="passage",
        title="Narrow passage",
        question=f"A wall with one {obstacles.PASSAGE_GAP:g}-length gap stands across the world. When a threat passes, "
                 "predict first: will the group split around the wall, or turn as one body?",
        try_next="Select one animal and press “Send a threat”; watch the spacing chart as well as the picture. "
                 "Then set the obstacle to none: which of the group's habits remain without the wall?",
        settings={"obstacle": "passage"},
        uses=("obstacle",),
    ),
    Trial(
        id="no-shared-direction",
        title="No shared direction",
        question="Everyone starts scattered over the whole world, facing unrelated ways, with no leader and "
                 "nowhere to go. Predict first: will a common direction appear, and how fast?",
        try_next="Watch whole-group and local agreement separately. Then raise the uncertainty step by step: "
                 "at what level does agreement stop surviving?",
        settings={"start": "scattered"},
        uses=("sigma",),
    ),
    Trial(
        id="rules-matter",
        title="Rules matter",
        question="All three social rules start switched off. Predict first: what will the animals do, and which "
                 "rule, switched on alone, will change the picture most?",
        try_next="Without restarting, switch the rules on one at a time. Compare both charts just before and "
                 "just after each marker.",
        settings={"separation": False, "alignment": False, "cohesion": False},
        uses=("separation", "alignment", "cohesion"),
    ),
    Trial(
        id="take-one-away",
        title="Take one rule away",
        question="A flock forms from a loose start. Predict first: if alignment is switched off while it flies, "
                 "does the flock keep together, keep its direction, both, or neither?",
        try_next="Once the agreement chart has settled, switch alignment off, wait, then on again. Repeat with "
                 "cohesion, then with separation, and watch the spacing chart.",
        settings={},
        uses=("separation", "alignment", "cohesion"),
    ),
)
TRIALS_BY_ID = {t.id: t for t in TRIALS}


def trial(trial_id: str) -> Trial:
    if trial_id not in TRIALS_BY_ID:
        raise ValueError(f"unknown trial {trial_id!r}; choose one of {', '.join(TRIALS_BY_ID)}")
    return TRIALS_BY_ID[trial_id]
