"""Lab 3 "Three rules": classic Reynolds boids (Reynolds 1987, doi:10.1145/37401.37406).

Units and frames
----------------
* Length: the **length** (one boid body length).  The default world is a
  periodic 160 x 100 lengths rectangle (a torus).  ``width``/``height`` are
  restart parameters so the page can match the canvas aspect; it keeps the
  area (hence the density, hence the behaviour) about constant.
* Time: the model **second**.  One step advances ``DT`` = 0.025 s, so 40 steps
  are one model second and a 0.25 s metric sample is exactly 10 steps.
* Positions ``x`` live in ``[0, width) x [0, height)``; the renderer maps them
  1:1 onto the canvas (x right, y down).  Velocities ``v`` are in lengths/s and
  every speed stays in ``[V_MIN, V_MAX]``.

The three rules (acceleration of boid i over its neighbours j in N_i, the
boids within ``radius`` of it; a boid with no neighbour feels none of them)::

    separation  a_sep = k_sep * SEP_SCALE * sum_j (p_i - p_j) / (|p_i - p_j|^2 + EPS)
    alignment   a_ali = k_ali * ALI_SCALE * (mean_j v_j - v_i)
    cohesion    a_coh = k_coh * COH_SCALE * mean_j (p_j - p_i)

Every ``p_j - p_i`` is the minimum-image ``space.displacement(p_i, p_j)``
(``pairs.d`` of the step's one neighbour search), so the rules work across the
wrap; ``p_i - p_j`` is its negative, ``displacement(p_j, p_i)``.  The weights
``k_*`` are the dimensionless numbers on the sliders (defaults 1.5 / 1.0 / 1.0).
The fixed ``*_SCALE`` constants carry the units, because the three sums have
different dimensions (1/length, length/s and length).

The treat (an attractor under the held pointer) adds seek steering::

    a_treat = TREAT_RATE * (V_MAX * d_i / |d_i| - v_i),   d_i = displacement(p_i, treat)

i.e. each boid relaxes its velocity, at rate ``TREAT_RATE``, towards flying at
full speed straight at the treat.  The three rules keep acting, so the flock
packs into a swirling ball around the point (80 boids, defaults: 80 % within
about 14 lengths after 8 s); on release the term vanishes and the flock flies
off under the three rules alone and spreads out again.

Update order of one step (pure: old state in, new state out)
-------------------------------------------------------------
1. one neighbour search: ``cells.neighbour_pairs(x, box, radius)``;
2. accelerations of all boids from the OLD positions and velocities;
3. ``v' = limit_speed(v + a * DT)`` (semi-implicit Euler);
4. ``x' = wrap(x + v' * DT)``;  ``t' = (steps + 1) * DT``.

Choice of constants
-------------------
Tuned by simulation (12 samples, default 80 boids in 160 x 100, radius 10,
mean over 50-60 s):

================  ==============================  ===============  ===========================
preset            mean nearest spacing (lengths)  polarisation P   look
================  ==============================  ===============  ===========================
start (random)    6.3-7.7                         ~0.1             scattered
separation only   9.3-9.6 (none closer than 3)    ~0.15            evenly spread, dodging
cohesion only     0.5-1.0                         ~0.05            tight swirling clumps
balanced          4.2-4.4                         0.85-1.0         compact travelling flocks (*)
================  ==============================  ===============  ===========================

(*) Balanced, over time: after 10 s about 4-10 small flocks; they meet, swing
round and merge; by 60-120 s usually one flock (sometimes two side by side) that
then cruises on, curving only slowly, because with no noise nothing disturbs it
(measured in app/IMPLEMENTATION_NOTES.md; tests/unit/test_boids.py checks merging,
turns, and the two ways the page suggests to stir a calm flock).

* ``SEP_SCALE`` is large enough that separation alone keeps every boid out of
  its neighbours' way (nobody within 3 lengths) although it only acts inside
  the radius.
* ``SEP_SCALE / COH_SCALE`` sets the balanced spacing: a lone pair settles at
  ``s^2 + EPS = k_sep SEP_SCALE / (k_coh COH_SCALE)``, s = 2.3 lengths; in a
  flock the sum over many neighbours spreads them to ~4.
* ``COH_SCALE`` (an angular frequency of sqrt(12) = 3.5 rad/s) makes
  cohesion-only clumps tight: a boid that must keep at least ``V_MIN`` swings
  through its clump with an amplitude of about ``V_MIN / 3.5`` ~ 1 length.
* ``ALI_SCALE`` gives a 0.5 s velocity-matching time: flocks line up within a
  minute but can still turn and merge.
* ``EPS`` = 1 length^2 caps the push from any one neighbour at
  ``1 / (2 sqrt(EPS))`` = 0.5 per length (times weight and scale), reached at
  one body length; coincident boids push each other with exactly 0.
* ``V_MIN`` keeps boids flying (no hovering); ``V_MAX`` sets the pace.
* ``TREAT_RATE`` = 5/s turns a boid towards the treat within a fraction of a
  second; stronger pulls barely shrink the ball, whose size is set by separation.

Randomness
----------
Only the birth of a boid is random.  Its position and heading are keyed
draws ``noise.keyed_uniform(sample, stream, id, 0)`` (counter-based), so
boid ``id`` is always born in the same place for a given sample, whatever the
order of population changes.  Steps themselves are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from . import cells, metrics, noise
from .params import ParamSpec, validate, validate_many
from .space import Box, displacement, wrap

# --------------------------------------------------------------------------------------
# Constants (see the module docstring for units and for why these values).
DT = 0.025  # s per step
WORLD_WIDTH = 160.0  # lengths, default
WORLD_HEIGHT = 100.0  # lengths, default
RADIUS = 10.0  # lengths: neighbour radius (default; an advanced parameter)
EPS = 1.0  # lengths^2: separation softening
V_MIN = 3.0  # lengths/s
V_MAX = 10.0  # lengths/s: crossing the default world takes 16 s at full speed
SEP_SCALE = 50.0  # lengths^3/s^2: separation sum (1/length) -> acceleration
ALI_SCALE = 2.0  # 1/s: alignment relaxation rate at k_ali = 1
COH_SCALE = 12.0  # 1/s^2: cohesion spring constant at k_coh = 1
TREAT_RATE = 5.0  # 1/s: seek relaxation rate towards the treat
SPAWN_SPEED = 0.5 * (V_MIN + V_MAX)  # lengths/s, speed of a newly born boid
MAX_POPULATION = 2000  # population slider maximum

PRESETS: dict[str, dict[str, float]] = {
    "separation": {"k_sep": 1.5, "k_ali": 0.0, "k_coh": 0.0},
    "cohesion": {"k_sep": 0.0, "k_ali": 0.0, "k_coh": 1.0},
    "balanced": {"k_sep": 1.5, "k_ali": 1.0, "k_coh": 1.0},
}

SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("k_sep", 1.5, "Separation weight", min=0.0, max=3.0, step=0.05,
              help="Weight of the push away from close neighbours (inverse-square)."),
    ParamSpec("k_ali", 1.0, "Alignment weight", min=0.0, max=3.0, step=0.05,
              help="Weight of the turn towards the neighbours' mean velocity."),
    ParamSpec("k_coh", 1.0, "Cohesion weight", min=0.0, max=3.0, step=0.05,
              help="Weight of the pull towards the neighbours' centre."),
    ParamSpec("population", 80, "Boids", kind="int", min=2, max=MAX_POPULATION, step=1,
              help="Number of boids; removing takes the most recently added first."),
    ParamSpec("radius", RADIUS, "Neighbour radius", min=2.0, max=30.0, step=0.5, unit="lengths",
              help="Each boid only sees the boids within this distance.", advanced=True),
    ParamSpec("sample", 42, "Sample number", kind="int", min=0, max=2**31 - 1, step=1,
              help="Seeds the starting positions and headings; applies at restart.", advanced=True),
)

# World size is a restart argument (the page fits it to the canvas), not a slider.
WORLD_SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("width", WORLD_WIDTH, "World width", min=10.0, max=2000.0, unit="lengths"),
    ParamSpec("height", WORLD_HEIGHT, "World height", min=10.0, max=2000.0, unit="lengths"),
)


@dataclass(frozen=True)
class Params:
    """All parameters of one run (validated through ``SPECS``/``WORLD_SPECS``)."""

    k_sep: float = 1.5
    k_ali: float = 1.0
    k_coh: float = 1.0
    population: int = 80
    radius: float = RADIUS
    sample: int = 42
    width: float = WORLD_WIDTH
    height: float = WORLD_HEIGHT

    @property
    def box(self) -> Box:
        return Box(self.width, self.height)

    def with_values(self, **values) -> "Params":
        """Validated copy; raises ValueError (naming the parameter) and changes nothing."""
        table = SPECS + WORLD_SPECS
        return replace(self, **validate_many(table, values))


@dataclass(frozen=True)
class Treat:
    """The attractor: ``on`` while the pointer is held; ``x, y`` in lengths."""

    on: bool = False
    x: float = 0.0
    y: float = 0.0


@dataclass
class BoidsState:
    """State of the flock (arrays, not agent objects).

    x       : (N, 2) float64  positions, lengths, in [0, width) x [0, height)
    v       : (N, 2) float64  velocities, lengths/s, speed in [V_MIN, V_MAX]
    ids     : (N,)   int64    stable identities, increasing in order of birth
    t       : float           model time, s (= steps * DT)
    steps   : int             steps taken
    next_id : int             id the next added boid receives
    """

    x: np.ndarray
    v: np.ndarray
    ids: np.ndarray
    t: float = 0.0
    steps: int = 0
    next_id: int = 0

    @property
    def n(self) -> int:
        return int(self.x.shape[0])


# --------------------------------------------------------------------------------------
# Spawning: keyed (counter-based) draws, see noise.py.  Streams used by this lab:
STREAM_POS_X = 0  # birth x, counter 0
STREAM_POS_Y = 1  # birth y, counter 0
STREAM_HEADING = 2  # birth heading, counter 0


def spawn(ids: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray]:
    """Birth positions (k, 2) and velocities (k, 2) of the boids ``ids`` (uniform, any heading)."""
    ids = np.asarray(ids, dtype=np.int64)
    px = noise.keyed_uniform(params.sample, STREAM_POS_X, ids, 0) * params.width
    py = noise.keyed_uniform(params.sample, STREAM_POS_Y, ids, 0) * params.height
    heading = noise.keyed_uniform(params.sample, STREAM_HEADING, ids, 0) * 2.0 * np.pi
    x = wrap(np.stack([px, py], axis=1), params.box)
    v = SPAWN_SPEED * np.stack([np.cos(heading), np.sin(heading)], axis=1)
    return x, v


def initial_state(params: Params) -> BoidsState:
    """Seeded start: ``params.population`` boids with ids 0..N-1 at their spawn states."""
    ids = np.arange(params.population, dtype=np.int64)
    x, v = spawn(ids, params)
    return BoidsState(x=x, v=v, ids=ids, t=0.0, steps=0, next_id=params.population)


def resize_population(state: BoidsState, n: int, params: Params) -> BoidsState:
    """Return a state with ``n`` boids; time, positions and velocities of survivors kept.

    Growing appends new ids (``next_id`` onwards) at their spawn states;
    shrinking removes the most recently added boids (the last rows, highest ids).
    """
    n = validate(SPECS, "population", n)
    if n <= state.n:
        return replace(state, x=state.x[:n].copy(), v=state.v[:n].copy(), ids=state.ids[:n].copy())
    new_ids = np.arange(state.next_id, state.next_id + (n - state.n), dtype=np.int64)
    x_new, v_new = spawn(new_ids, params)
    return replace(
        state,
        x=np.concatenate([state.x, x_new]),
        v=np.concatenate([state.v, v_new]),
        ids=np.concatenate([state.ids, new_ids]),
        next_id=int(new_ids[-1]) + 1,
    )


def rescale_world(state: BoidsState, old: Box, new: Box) -> BoidsState:
    """Stretch positions from ``old`` to ``new`` world size (a live canvas resize)."""
    x = wrap(state.x * (new.size / old.size), new)
    return replace(state, x=x)


# --------------------------------------------------------------------------------------
# The rules.  Each is a weight per neighbour pair (i, j) of the step's one search
# (``pairs.d`` = displacement(p_i, p_j), the vector from i to j):
#
#     rule vector of boid i = sum_{j in N_i} [ w_d(i,j) * d_ij + w_v(i,j) * (v_j - v_i) ]
#
# and :func:`pair_sum` does that sum with bincount.  Because every rule has this
# form, ``acceleration`` adds the weighted rules pair by pair and reduces once.


def separation_weights(pairs: cells.Pairs, eps: float = EPS) -> np.ndarray:
    """Separation, inverse-square: w_d = -1 / (|d_ij|^2 + eps), (M,), 1/lengths^2.

        s_i = sum_{j in N_i} (p_i - p_j) / (|p_i - p_j|^2 + eps)

    since ``p_i - p_j = displacement(p_j, p_i) = -d_ij``.  ``eps`` > 0 keeps it
    finite: one neighbour pushes at most 1 / (2 sqrt(eps)) (at distance sqrt(eps)),
    and an exactly coincident one pushes 0.
    """
    return -1.0 / (pairs.r * pairs.r + eps)


def mean_weights(pairs: cells.Pairs) -> np.ndarray:
    """Weights of a neighbour mean: 1 / |N_i| per pair, (M,).  Used by two rules:

    alignment  a_i = mean_{j in N_i} v_j - v_i   = sum_{j in N_i} (v_j - v_i) / |N_i|   (w_v)
    cohesion   c_i = mean_{j in N_i} (p_j - p_i) = sum_{j in N_i} d_ij / |N_i|          (w_d)

    Both are 0 for a boid with no neighbour (it has no pairs).
    """
    i = _index(pairs.i)
    return 1.0 / np.bincount(i, minlength=pairs.n)[i]


def separation(pairs: cells.Pairs, eps: float = EPS) -> np.ndarray:
    """Separation vector s_i per boid, (N, 2), 1/lengths (before weight and scale)."""
    return pair_sum(pairs, w_d=separation_weights(pairs, eps))


def alignment(pairs: cells.Pairs, v: np.ndarray) -> np.ndarray:
    """Alignment vector a_i per boid, (N, 2), lengths/s (before weight and scale)."""
    return pair_sum(pairs, w_v=mean_weights(pairs), v=v)


def cohesion(pairs: cells.Pairs) -> np.ndarray:
    """Cohesion vector c_i per boid, (N, 2), lengths (before weight and scale)."""
    return pair_sum(pairs, w_d=mean_weights(pairs))


def treat_pull(x: np.ndarray, v: np.ndarray, treat: Treat, box: Box) -> np.ndarray:
    """Seek steering towards the treat, (N, 2), lengths/s^2.

        a_i = TREAT_RATE * (V_MAX * d_i / |d_i| - v_i),  d_i = displacement(p_i, treat)

    A boid exactly on the treat gets only the damping part ``-TREAT_RATE * v_i``.
    """
    d = displacement(x, np.array([treat.x, treat.y]), box)
    r = np.hypot(d[:, 0], d[:, 1])
    unit = d / np.where(r > 0, r, 1.0)[:, None]
    return TREAT_RATE * (V_MAX * unit - v)


def pair_sum(pairs: cells.Pairs, w_d: np.ndarray | None = None, w_v: np.ndarray | None = None,
             v: np.ndarray | None = None) -> np.ndarray:
    """sum_{j in N_i} [w_d * d_ij + w_v * (v_j - v_i)] for every boid, (n, 2).

    w_d, w_v : (M,) per-pair weights (None = 0);  v : (n, 2) velocities (needed with w_v).
    Works on x and y separately with 1-D bincounts (much faster in numpy than
    broadcasting over a trailing axis of length 2).  The ``- w_v * v_i`` part is
    ``v_i * sum_j w_v``, one more bincount.
    """
    n = pairs.n
    out = np.zeros((n, 2))
    if len(pairs) == 0:
        return out
    i = _index(pairs.i)
    j = _index(pairs.j) if w_v is not None else None
    if w_v is not None:
        w_v_sum = np.bincount(i, weights=w_v, minlength=n)
    for k in (0, 1):
        w = np.zeros(len(pairs))
        if w_d is not None:
            w += w_d * pairs.d[:, k]
        if w_v is not None:
            w += w_v * np.take(np.ascontiguousarray(v[:, k]), j)
        out[:, k] = np.bincount(i, weights=w, minlength=n)
        if w_v is not None:
            out[:, k] -= w_v_sum * v[:, k]
    return out


def _index(a: np.ndarray) -> np.ndarray:
    """Index array in numpy's native ``intp``: ``np.bincount`` and ``np.take`` refuse
    int64 on wasm32 (Pyodide), where intp is int32.  No copy on 64-bit machines."""
    return a.astype(np.intp, copy=False)


def acceleration(state: BoidsState, pairs: cells.Pairs, params: Params, treat: Treat | None = None) -> np.ndarray:
    """Total acceleration (N, 2), lengths/s^2: the weighted rules (+ the treat).

        acc_i = k_sep SEP_SCALE s_i + k_ali ALI_SCALE a_i + k_coh COH_SCALE c_i  [+ treat]

    All three rules go through one :func:`pair_sum`.  A rule whose weight is 0
    contributes exactly 0 and is not computed.
    """
    w_d = np.zeros(len(pairs))
    w_v = None
    if params.k_sep:
        w_d += (params.k_sep * SEP_SCALE) * separation_weights(pairs)
    if params.k_coh or params.k_ali:
        inv_n = mean_weights(pairs)  # shared by cohesion and alignment
        if params.k_coh:
            w_d += (params.k_coh * COH_SCALE) * inv_n
        if params.k_ali:
            w_v = (params.k_ali * ALI_SCALE) * inv_n
    a = pair_sum(pairs, w_d=w_d, w_v=w_v, v=state.v)
    if treat is not None and treat.on:
        a += treat_pull(state.x, state.v, treat, params.box)
    return a


def limit_speed(v: np.ndarray, v_prev: np.ndarray, v_min: float = V_MIN, v_max: float = V_MAX) -> np.ndarray:
    """Scale each velocity so its speed lies in [v_min, v_max].

    A velocity that came out exactly zero keeps the heading of ``v_prev``.
    """
    s = np.hypot(v[:, 0], v[:, 1])
    zero = s == 0.0
    if np.any(zero):
        v = np.where(zero[:, None], v_prev, v)
        s = np.where(zero, np.hypot(v[:, 0], v[:, 1]), s)
    target = np.clip(s, v_min, v_max)
    return v * (target / np.where(s > 0, s, 1.0))[:, None]


def step(state: BoidsState, params: Params, treat: Treat | None = None) -> BoidsState:
    """One step of DT seconds.  Pure: returns a new state, the input is untouched."""
    box = params.box
    pairs = cells.neighbour_pairs(state.x, box, params.radius, sort=False)  # only reduced: order not needed
    a = acceleration(state, pairs, params, treat)
    v = limit_speed(state.v + a * DT, state.v, V_MIN, V_MAX)
    x = wrap(state.x + v * DT, box)
    steps = state.steps + 1
    return replace(state, x=x, v=v, t=steps * DT, steps=steps)


def run(state: BoidsState, params: Params, n: int, treat: Treat | None = None) -> BoidsState:
    """``n`` steps."""
    for _ in range(int(n)):
        state = step(state, params, treat)
    return state


# --------------------------------------------------------------------------------------
# Metrics.


def unit_headings(v: np.ndarray) -> np.ndarray:
    """(N, 2) velocities -> (N, 2) unit headings (speeds are never 0, see limit_speed)."""
    s = np.hypot(v[:, 0], v[:, 1])
    return v / np.where(s > 0, s, 1.0)[:, None]


FLOCK_MIN = 5  # boids: the smallest group counted as a flock
FLOCK_AGREEMENT = 0.8  # the group's own P at least this: it flies one way


def measure(state: BoidsState, params: Params) -> dict:
    """The sampled metrics, from one neighbour search at the radius:

    P       whole-group agreement, 0..1
    spacing mean nearest distance, lengths (NaN below 2 boids)
    flocks  groups of boids linked by chains of neighbours (:func:`metrics.group_labels`)
            with at least ``FLOCK_MIN`` boids that fly one way (the group's own P is at
            least ``FLOCK_AGREEMENT``).  Separation-only chains and cohesion-only knots
            do not count; neither does one dense swirl filling the sky.
    loners  boids with no neighbour at all
    N, t    boids, model time (s)
    """
    pairs = cells.neighbour_pairs(state.x, params.box, params.radius, sort=False)
    spacing, _ = metrics.nearest_spacing(state.x, params.box, pairs=pairs)
    u = unit_headings(state.v)
    flocks = metrics.count_flocks(metrics.group_labels(pairs), u, FLOCK_MIN, FLOCK_AGREEMENT)
    loners = state.n - int(np.count_nonzero(np.bincount(_index(pairs.i), minlength=state.n)))
    return {
        "P": metrics.polarization(u),
        "spacing": spacing,
        "flocks": flocks,
        "loners": loners,
        "N": state.n,
        "t": state.t,
    }
