"""Lab 2 model, "Few turns, one direction": Vicsek alignment.

Units and frames
----------------
Lengths are in box units (the teaching box has side L = 1); time is counted in
updates.  Headings theta are radians measured counter-clockwise from the +x
axis, stored in [-pi, pi).  A unit heading vector is (cos theta, sin theta).

The model (SPEC.md, Lab 2)
--------------------------
General form: N point agents in a periodic square of side ``box``; every update,
synchronously, from the old state:

1. Neighbourhood ``N_i`` = every agent j with minimum-image distance
   ``|r_ij| <= radius`` **including i itself** (no cap on the count).
2. Circular mean ``thetabar_i = atan2(S_i^y, S_i^x)`` with
   ``S_i = sum_{j in N_i} (cos theta_j, sin theta_j)``.  If ``S_i`` is exactly
   (0, 0) the headings cancel and the agent keeps its old heading before the kick.
3. Turn: ``theta_i' = wrap(theta_i + a * wrap(thetabar_i - theta_i) + (eta/2) * xi_i)``
   with ``xi_i`` uniform in [-1, 1) from the seeded kick stream, so the kick is
   uniform in [-eta/2, eta/2).  ``wrap`` maps to [-pi, pi).
4. Move along the NEW heading: ``x_i' = wrap(x_i + speed * (cos theta_i', sin theta_i'))``.

``a = 1`` is Vicsek et al. (1995) with noise amplitude eta; ``a = 0`` gives pure
random kicks; values in between are a teaching interpolation.

Teaching form (:data:`TEACHING`): N = 64, box = 1, radius = 0.12, speed = 0.01,
eta = 0.7 (kicks 0.35 * xi; 0.7/2 == 0.35 exactly in binary, so the teaching
form *is* the general form bit for bit).

Order parameter: ``P = |(1/N) sum_i e^{i theta_i}|`` (independent random
headings give about sqrt(pi)/(2 sqrt(N)) ~ 0.11 for N = 64).

The kick stream (seeded, counter-based)
---------------------------------------
Each seed owns one ``numpy.random.Philox`` bit generator with ``key=seed`` and
counter 0 (Philox4x64-10 is counter-based: word w of the stream is a pure
function of (key, w)).  Raw 64-bit words are turned into doubles exactly,
``u = (word >> 11) * 2**-53`` in [0, 1), and ``xi = 2u - 1`` (exact).  Words are
consumed in a fixed order:

* words ``0 .. 2N-1``: start positions, ``x_i = box * u_{2i}``, ``y_i = box * u_{2i+1}``;
* words ``2N .. 3N-1``: start headings, ``theta_i = pi * (2u - 1)``;
* update t (t = 0, 1, ...): words ``3N + tN + i`` are the kicks ``xi_i``.

So the kick of agent i at update t depends only on (seed, N, t, i): not on a,
not on which other replicas run alongside, not on how the run is chunked.  The
a = 0 and a = 1 runs of one seed therefore share their start and every kick.

Batching
--------
An :class:`Ensemble` holds B independent replicas with shapes (B, N, 2) and
(B, N).  They step together: one neighbour search for all B*N agents with
``group`` = replica id (one cell list, no cross-replica pairs), one set of array
operations, and per-replica reductions through ``np.bincount``.

Determinism (CPython == Pyodide, bit for bit)
---------------------------------------------
* trig goes through :mod:`swarmlab.detmath` (IEEE-exact building blocks), never
  ``np.sin``/``np.cos``/``np.arctan2``;
* sums use ``np.bincount`` (a sequential C loop), in a canonical order: the
  pairs of each agent are sorted by neighbour index with the agent itself in
  its place, so the result doesn't depend on how the neighbour search orders
  pairs, nor on batching;
* random numbers are raw Philox words converted exactly (see above);
* wrapping uses ``np.mod``/``np.floor`` (exact operations);
* every index array handed to ``np.bincount`` is ``np.intp``: on wasm32 (Pyodide)
  numpy 2.0 refuses to cast int64 indices to the 32-bit native index type.

Checked: the eight-seed check, a long live run and 900k detmath values give the
same bits in CPython (x86-64) and in Pyodide 0.27.7 (wasm32, numpy 2.0.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Iterable, Sequence

import numpy as np

from . import cells, detmath
from .params import ParamSpec, listed, step_count, validate
from .rules import Rule, RuleError, read_only
from .space import Box, distance, shift, wrap_angle

__all__ = [
    "VicsekParams",
    "VicsekState",
    "TEACHING",
    "CHECK_SEEDS",
    "CHECK_WARMUP",
    "CHECK_MEASURE",
    "GENERAL_SPECS",
    "KickStream",
    "start_state",
    "neighbourhoods",
    "sum_order",
    "builtin_turn",
    "heading_sums",
    "align_turn",
    "move",
    "step",
    "order_parameter",
    "Ensemble",
    "CheckRun",
    "run_check",
    "run_general",
    "general_params",
]

CHECK_SEEDS: tuple[int, ...] = (3, 17, 41, 73, 101, 211, 307, 499)
CHECK_WARMUP = 1000
CHECK_MEASURE = 500
LIVE_SEED = 3  # the page's live stage (SPEC.md: seed 3)

#: The general form's parameters and run options (the CLI's --set; the page's knob a is "align"):
#: their defaults are the teaching form of SPEC.md Lab 2.
GENERAL_SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("n", 64, "Agents", kind="int", min=1, max=200000, step=1, help="number of agents N"),
    ParamSpec("box", 1.0, "Box side", min=0.01, max=10000.0, step=0.01, unit="L",
              help="side of the periodic square"),
    ParamSpec("radius", 0.12, "Interaction radius", min=0.0, max=5000.0, step=0.01, unit="L",
              help="neighbourhood radius R, self included; at most box/2"),
    ParamSpec("speed", 0.01, "Step length", min=0.0, max=5000.0, step=0.001, unit="L/update",
              help="distance moved per update; at most box/2"),
    ParamSpec("eta", 0.7, "Noise amplitude", min=0.0, max=2 * math.pi, step=0.01, unit="rad",
              help="kicks are uniform in [-eta/2, eta/2)"),
    ParamSpec("align", 1.0, "Alignment a", min=0.0, max=1.0, step=0.01,
              help="0 = random kicks only, 1 = Vicsek rule"),
    ParamSpec("warmup", CHECK_WARMUP, "Warm-up updates", kind="int", min=0, max=10_000_000, step=1,
              help="updates before measuring"),
    ParamSpec("measure", CHECK_MEASURE, "Measured updates", kind="int", min=1, max=10_000_000, step=1,
              help="updates over which P is averaged"),
    ParamSpec("seed", LIVE_SEED, "Seed", kind="int", min=0, max=2**63 - 1, step=1, identifier=True,
              help="key of the Philox kick stream (start and kicks)"),
)
_DEFAULT = {s.name: s.default for s in GENERAL_SPECS}
MAX_PAIRS = 2e7  # neighbour pairs an update that VicsekParams allows (expected at uniform density)
# peak memory per pair of one update (the search and its pair arrays): 120-135 B measured
# (one update at N = 4,000, R = 0.25 and 0.5 L: peak RSS less that of R = 0.01 L)
PAIR_BYTES = 130


@dataclass(frozen=True)
class VicsekParams:
    """Parameters of the general form, checked when made (a bad value raises ValueError
    naming it: the ranges of ``GENERAL_SPECS``, radius and speed at most box/2, and no
    more than ``MAX_PAIRS`` expected pairs an update).

    n      number of agents per replica
    box    side L of the periodic square (length units)
    radius interaction radius R (length units; neighbourhood includes self)
    speed  distance moved per update (length units)
    eta    noise amplitude: kicks uniform in [-eta/2, eta/2) radians
    align  alignment knob a in [0, 1] (per replica in an Ensemble)
    """

    n: int = _DEFAULT["n"]
    box: float = _DEFAULT["box"]
    radius: float = _DEFAULT["radius"]
    speed: float = _DEFAULT["speed"]
    eta: float = _DEFAULT["eta"]
    align: float = _DEFAULT["align"]

    def __post_init__(self):
        # every value through its spec, as the command line's are (types coerced: "0.5",
        # np.int64(64); NaN, text, 2.5 agents and values out of range refused)
        for f in fields(self):
            value = validate(GENERAL_SPECS, f.name, getattr(self, f.name))
            object.__setattr__(self, f.name, int(value) if f.name == "n" else float(value))
        half = self.box / 2
        if self.radius > half:
            raise ValueError(f"radius must be at most box/2 = {half:g}, got {self.radius:g}")
        if self.speed > half:
            raise ValueError(f"speed must be at most box/2 = {half:g}, got {self.speed:g}")
        # The one search of an update returns every (i, j) pair within R: about N (1 + (N - 1)
        # pi R^2 / L^2) at a uniform density.  A crowd in which everyone neighbours everyone
        # would fill the memory (200,000 agents in 0.01 L: 40 billion pairs) before the first
        # update ends.
        n = self.n
        pairs = n * (1 + (n - 1) * math.pi * self.radius ** 2 / self.box ** 2)
        if pairs > MAX_PAIRS:
            raise ValueError(
                f"n={n}, box={self.box:g} and radius={self.radius:g} give each agent about "
                f"{pairs / n:,.0f} neighbours, {pairs:.2g} pairs an update (the limit is {MAX_PAIRS:.0e}, "
                f"about {MAX_PAIRS * PAIR_BYTES / 1e9:.0f} GB of memory); use a larger box, a smaller radius or fewer agents")

    @property
    def space(self) -> Box:
        return Box(float(self.box), float(self.box))

    @property
    def kick(self) -> float:
        """The largest kick, eta / 2 radians: each update's kick is ``kick * U[-1, 1)``."""
        return 0.5 * self.eta


#: The teaching form of SPEC.md Lab 2 (a = 1 by default; the check also runs a = 0).
TEACHING = VicsekParams()


@dataclass(frozen=True)
class VicsekState:
    """State of one replica or of a batch.

    x     : (N, 2) or (B, N, 2) float64 positions in [0, box)
    theta : (N,) or (B, N) float64 headings in [-pi, pi) radians
    t     : number of updates done
    """

    x: np.ndarray
    theta: np.ndarray
    t: int = 0


# ----------------------------------------------------------------------------- kick stream
class KickStream:
    """The seeded stream of one seed: start positions, start headings, then kicks.

    See the module docstring for the exact word layout.  ``n`` is the number of
    agents (it fixes the layout).
    """

    def __init__(self, seed: int, n: int):
        self.seed = int(seed)
        self.n = int(n)
        self._bitgen = np.random.Philox(key=self.seed)
        self.words_used = 0

    def uniforms(self, count: int) -> np.ndarray:
        """Next ``count`` doubles in [0, 1), converted exactly from raw 64-bit words."""
        raw = self._bitgen.random_raw(count)
        self.words_used += count
        return (raw >> np.uint64(11)).astype(np.float64) * (2.0**-53)

    def start(self, box: float) -> VicsekState:
        """Draw the start (positions then headings); must be the first draw."""
        if self.words_used:
            raise RuntimeError("the start must be drawn first from a fresh stream")
        n = self.n
        x = float(box) * self.uniforms(2 * n).reshape(n, 2)
        theta = np.pi * (2.0 * self.uniforms(n) - 1.0)
        return VicsekState(x, theta, 0)

    def kicks(self) -> np.ndarray:
        """xi for the next update: (N,) uniform in [-1, 1) (2u - 1 is exact)."""
        return 2.0 * self.uniforms(self.n) - 1.0

    def at_update(self, t: int) -> "KickStream":
        """A new stream of this seed whose next ``kicks()`` are update ``t``'s (word 3N + tN).

        O(1) for any t: word w is a pure function of (key, w), so Philox's counter jumps
        straight there (four 64-bit words per counter value), nothing is drawn and discarded.
        """
        out = KickStream(self.seed, self.n)
        words = 3 * self.n + int(t) * self.n
        blocks, rest = divmod(words, 4)
        out._bitgen.advance(blocks)
        if rest:
            out._bitgen.random_raw(rest)
        out.words_used = words
        return out


def start_state(seed: int, params: VicsekParams = TEACHING) -> tuple[VicsekState, KickStream]:
    """Start of one replica and its kick stream, positioned at update 0."""
    stream = KickStream(seed, params.n)
    return stream.start(params.box), stream


def central_agent(x: np.ndarray, space: Box) -> int:
    """The agent nearest the middle of the box (minimum image; ties: the smaller index).

    x : (N, 2) positions.  The page follows it from the start, so the neighbourhood circle and
    the nudge wedge are first seen whole, not cut up by the wrapping edges."""
    middle = np.array([[0.5 * space.width, 0.5 * space.height]])
    return int(np.argmin(distance(x, middle, space)))


# ----------------------------------------------------------------------------- rules
def _with_self(pairs: cells.Pairs, n: int) -> tuple[cells.Pairs, np.ndarray, np.ndarray]:
    """The ordered pairs (half pairs: both directions, by cells' one sign convention), and
    their i and j with every agent's self pair (k, k) appended, each (M + n,)."""
    full = pairs.full()
    own = np.arange(n, dtype=np.intp)
    return full, np.concatenate((full.i, own)), np.concatenate((full.j, own))


def neighbourhoods(pairs: cells.Pairs, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of every neighbourhood ``N_i`` *including i itself*, in canonical order.

    pairs : neighbour pairs (i != j) of all agents (flat, ``n`` agents), in any order:
            ordered (both directions) or half (``pairs.half``, each unordered pair once)
    Returns (i, j, d, r): i, j (M + n,) ``np.intp``; d (M + n, 2) displacement from i to j;
    r (M + n,) distance.  A self pair has d = 0, r = 0.

    Order: for each i, j ascending with i itself in its place, so sums over them
    (``np.bincount``, sequential) depend only on the neighbourhood *set*, not on the
    search's pair order or on batching.  The search therefore need not sort
    (``sort=False``): the (i, j) keys are unique, so any sort of them gives this one order.
    """
    full, ii, jj = _with_self(pairs, n)
    d = np.concatenate((full.d, np.zeros((n, 2))))
    r = np.concatenate((full.r, np.zeros(n)))
    if n <= 1 << 16:
        # two stable radix passes on 16-bit digits (numpy's O(M) sort for small
        # unsigned ints): by j, then by i
        order = jj.astype(np.uint16).argsort(kind="stable")
        order = order[ii.astype(np.uint16)[order].argsort(kind="stable")]
    else:
        order = np.argsort(ii.astype(np.int64) * n + jj, kind="stable")
    # bincount needs the native index type (int32 on wasm32)
    return ii[order].astype(np.intp, copy=False), jj[order].astype(np.intp, copy=False), d[order], r[order]


def sum_order(pairs: cells.Pairs, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of every neighbourhood *including i itself*, in an order that sums like the
    canonical one: sorted by j only (stable), ``np.intp``, each (M + n,).

    ``np.bincount`` over i adds each agent's values in the order they appear, and for one i
    the j are distinct, so sorting by j alone already lists every neighbourhood with j
    ascending, the order of :func:`neighbourhoods`: a sum over these pairs has the same bits.
    The built-in rule needs no displacements, so none are reordered (one radix pass on
    16-bit j instead of two, and no (M, 2) gather).
    """
    _, ii, jj = _with_self(pairs, n)
    order = (jj.astype(np.uint16) if n <= 1 << 16 else jj).argsort(kind="stable")
    return ii[order].astype(np.intp, copy=False), jj[order].astype(np.intp, copy=False)


def builtin_turn(i: np.ndarray, j: np.ndarray, theta: np.ndarray, sin_t: np.ndarray, cos_t: np.ndarray,
                 a, kick: np.ndarray) -> np.ndarray:
    """:func:`swarmlab.rules_vicsek.turn` (the function the page shows), the same operations in
    the same order, with the headings' (sin, cos) given: the update before computed them to
    move the agents.  i, j from :func:`sum_order`.  tests/unit/test_vicsek_model.py checks the
    bits against ``turn`` on :func:`neighbourhoods`."""
    n = len(theta)
    sx = cells.sum_by_i(i, cos_t[j], n)
    sy = cells.sum_by_i(i, sin_t[j], n)
    mean = detmath.atan2(sy, sx)
    cancel = (sx == 0.0) & (sy == 0.0)
    return theta + a * np.where(cancel, 0.0, wrap_angle(mean - theta)) + kick


def heading_sums(pairs: cells.Pairs, cos_t: np.ndarray, sin_t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Neighbourhood sums including self: ``S_i = sum_{j in N_i ∪ {i}} (cos theta_j, sin theta_j)``.

    pairs        : ordered neighbour pairs (i != j) of all agents (flat, N_total agents)
    cos_t, sin_t : (N_total,) unit heading components
    Returns (S^x, S^y), each (N_total,), summed in the canonical order of :func:`neighbourhoods`.
    """
    n = cos_t.shape[0]
    ii, jj, _, _ = neighbourhoods(pairs, n)
    return cells.sum_by_i(ii, cos_t[jj], n), cells.sum_by_i(ii, sin_t[jj], n)


def align_turn(theta: np.ndarray, sx: np.ndarray, sy: np.ndarray, a, kick: np.ndarray) -> np.ndarray:
    """Turn rule: ``theta' = wrap(theta + a * wrap(thetabar - theta) + kick)``.

    thetabar = atan2(S^y, S^x) is the circular mean of the neighbourhood.  When
    S is exactly (0, 0) (headings cancel) the alignment term is 0: the agent keeps
    its old heading before the kick.  ``a`` is a scalar or per-agent array;
    ``a = 0`` leaves only the kick.  Evaluated left to right as written.
    """
    cancel = (sx == 0.0) & (sy == 0.0)
    mean = detmath.atan2(sy, sx)
    delta = np.where(cancel, 0.0, wrap_angle(mean - theta))
    return wrap_angle((theta + a * delta) + kick)


def move(x: np.ndarray, cos_new: np.ndarray, sin_new: np.ndarray, speed: float, box: Box) -> np.ndarray:
    """Move rule: ``x' = wrap(x + speed * (cos theta', sin theta'))`` along the NEW heading."""
    return shift(x, np.stack([cos_new, sin_new], axis=-1), speed, box)


def _flat(state: VicsekState) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    theta = np.asarray(state.theta, dtype=np.float64)
    n = theta.shape[-1]
    b = int(np.prod(theta.shape[:-1], dtype=np.int64)) if theta.ndim > 1 else 1
    group = np.repeat(np.arange(b, dtype=np.intp), n) if theta.ndim > 1 else None
    return np.asarray(state.x, dtype=np.float64).reshape(-1, 2), theta.reshape(-1), group, b


def _advance(state: VicsekState, params: VicsekParams, xi: np.ndarray, align,
             turn=None, trig=None, pairs: cells.Pairs | None = None) -> tuple[VicsekState, np.ndarray, np.ndarray]:
    """One synchronous update; also returns (cos, sin) of the new headings (flat).

    ``turn(i, j, d, r, theta, a, kick)`` gives the new headings from the neighbourhoods
    (:func:`neighbourhoods`); None is the built-in :func:`swarmlab.rules_vicsek.turn`, the
    function the page shows, run as :func:`builtin_turn` (the same bits).  The result is
    wrapped into [-pi, pi) here.  ``trig``: (sin, cos) of ``state.theta`` (flat) when known.
    ``pairs``: the neighbour pairs within ``params.radius`` of this very state (flat, any
    form and order: the neighbourhoods are put in canonical order) when already searched.
    """
    x, theta, group, b = _flat(state)
    n = state.theta.shape[-1]
    box = params.space
    # the one search per update: half pairs in any order (neighbourhoods() puts them in its own)
    if pairs is None:
        pairs = cells.neighbour_pairs(x, box, params.radius, group=group, sort=False, half=True, any_order=True)
    a = np.asarray(align, dtype=np.float64)
    if a.ndim:  # one value per replica -> per agent
        a = np.repeat(a.reshape(-1), n)
    kick = params.kick * np.asarray(xi, dtype=np.float64).reshape(-1)
    if turn is None:
        s, c = detmath.sincos(theta) if trig is None else trig
        i, j = sum_order(pairs, theta.shape[0])
        new_theta = wrap_angle(builtin_turn(i, j, theta, s, c, a, kick))
    else:
        i, j, d, r = neighbourhoods(pairs, theta.shape[0])
        if isinstance(turn, Rule):
            out = turn(i, j, d, r, theta, a, kick)
        else:  # a plain function from Python: the read-only arrays and checks a loaded rule gets
            from . import rules_vicsek  # noqa: PLC0415 (rules_vicsek imports this module)
            out = rules_vicsek.KIND.check(turn(*map(read_only, (i, j, d, r, theta, a, kick))), theta.shape[0])
        new_theta = wrap_angle(out)
    s2, c2 = detmath.sincos(new_theta)
    new_x = move(x, c2, s2, float(params.speed), box)
    new = VicsekState(new_x.reshape(state.x.shape), new_theta.reshape(state.theta.shape), state.t + 1)
    return new, c2, s2


def step(state: VicsekState, params: VicsekParams, xi: np.ndarray, align=None) -> VicsekState:
    """One pure, synchronous update of one replica (N,) or a batch (B, N).

    xi    : kicks in [-1, 1], same shape as ``state.theta`` (the kick is ``eta/2 * xi``)
    align : a, scalar or (B,) per replica; defaults to ``params.align``
    """
    return _advance(state, params, xi, params.align if align is None else align)[0]


def _order_from_trig(c: np.ndarray, s: np.ndarray, b: int, n: int) -> np.ndarray:
    g = np.repeat(np.arange(b, dtype=np.intp), n)  # native index type for bincount
    cx = np.bincount(g, weights=c, minlength=b)
    cy = np.bincount(g, weights=s, minlength=b)
    return np.sqrt(cx * cx + cy * cy) / n


def order_parameter(theta: np.ndarray) -> np.ndarray | float:
    """P = |(1/N) sum e^{i theta}| per replica: float for (N,), (B,) array for (B, N)."""
    theta = np.asarray(theta, dtype=np.float64)
    n = theta.shape[-1]
    b = theta.size // n if n else 0
    s, c = detmath.sincos(theta.reshape(-1))
    p = _order_from_trig(c, s, b, n)
    return float(p[0]) if theta.ndim == 1 else p.reshape(theta.shape[:-1])


# ----------------------------------------------------------------------------- ensembles
class Ensemble:
    """B independent replicas ``(seed_b, a_b)`` of one general form, stepped together.

    Replicas that share a seed share their start and their kicks (the seed's
    stream is drawn once per update and handed to each of them).

    state : VicsekState with x (B, N, 2), theta (B, N)
    align : (B,) float64, the knob a of each replica (may be changed between updates)
    """

    def __init__(self, replicas: Sequence[tuple[int, float]], params: VicsekParams = TEACHING):
        if not replicas:
            raise ValueError("an ensemble needs at least one replica")
        self.params = params
        # whole seeds in the spec's range (1.5, True or -1 would silently run another seed)
        seeds = [validate(GENERAL_SPECS, "seed", s) for s, _ in replicas]
        self.seeds = tuple(seeds)
        self.align = np.array([validate(GENERAL_SPECS, "align", a) for _, a in replicas], dtype=np.float64)
        unique = list(dict.fromkeys(seeds))
        self._streams = [KickStream(s, params.n) for s in unique]
        starts = [st.start(params.box) for st in self._streams]
        self._source = np.array([unique.index(s) for s in seeds], dtype=np.int64)
        x = np.stack([starts[k].x for k in self._source])
        theta = np.stack([starts[k].theta for k in self._source])
        self.state = VicsekState(x, theta, 0)
        self.order = order_parameter(theta)  # (B,) P of the current state
        self.turn = None  # the turn rule (None = the built-in rules_vicsek.turn); see _advance
        # When the turn rule fails: raise its RuleError (False, for scripts: no numbers from
        # another rule), or hand that update and the rest to the built-in rule and keep the
        # error in ``failure`` (True: the page's session, which tells the student).
        self.fallback = False
        self.failure = None  # the RuleError of a student's turn rule that failed (see step)
        self._trig = (None, None, None)  # (state, sin, cos): the headings' trig, kept by step

    @property
    def t(self) -> int:
        return self.state.t

    def resume(self, state: VicsekState) -> None:
        """Put ``state`` in place (x (B, N, 2), theta (B, N) at update ``state.t``), each seed's
        kicks positioned at that update: the next step is the one that followed it."""
        self._streams = [st.at_update(state.t) for st in self._streams]
        self.state = state
        self.order = order_parameter(state.theta)

    def next_kicks(self) -> np.ndarray:
        """(B, N) xi for the next update (one draw per distinct seed)."""
        draws = np.stack([st.kicks() for st in self._streams])
        return draws[self._source]

    def step(self, pairs: cells.Pairs | None = None) -> np.ndarray:
        """Advance every replica by one update; return the new P, shape (B,).  ``pairs``: the
        current state's neighbour pairs (flat over the replicas, within the radius, any order)
        when a reader already searched them (the live stage's session does)."""
        xi = self.next_kicks()
        # the trig of the headings now, if the last update computed it for this very state
        # (a session may have put another state in place: then it is computed afresh)
        trig = self._trig[1:] if self._trig[0] is self.state else None
        try:
            self.state, c, s = _advance(self.state, self.params, xi, self.align, self.turn, trig, pairs)
        except RuleError as exc:  # a student's rule failed: the built-in one takes over, same kicks
            if not self.fallback:
                raise
            self.turn, self.failure = None, exc
            self.state, c, s = _advance(self.state, self.params, xi, self.align, None, trig, pairs)
        self._trig = (self.state, s, c)
        b, n = self.state.theta.shape
        self.order = _order_from_trig(c, s, b, n)
        return self.order

    def run(self, updates: int) -> np.ndarray:
        """Advance ``updates`` updates; return P after each, shape (updates, B)."""
        updates = step_count(updates, "updates")
        out = np.empty((updates, len(self.seeds)))
        for k in range(updates):
            out[k] = self.step()
        return out


class CheckRun:
    """The eight-seed check, runnable in chunks (the browser calls advance between frames).

    For every seed: a = 0 and a = 1 from the same start with the same kicks,
    ``warmup`` updates, then P averaged over the next ``measure`` updates.

    mode "batched": all 2 * len(seeds) replicas in one Ensemble (one unit of work
                    = one update of all replicas; total = warmup + measure).
    mode "serial":  one replica at a time in the order (seed, a=0), (seed, a=1), ...
                    (one unit = one update of one replica; total = 16 * (warmup + measure)).
    Both modes give the same bits.
    """

    def __init__(
        self,
        mode: str = "batched",
        seeds: Iterable[int] = CHECK_SEEDS,
        warmup: int = CHECK_WARMUP,
        measure: int = CHECK_MEASURE,
        params: VicsekParams = TEACHING,
    ):
        if mode not in ("batched", "serial"):
            raise ValueError(f"mode must be 'batched' or 'serial', got {mode!r}")
        self.mode = mode
        # whole seeds and update counts, as Ensemble and run_general check them (int() made
        # seed 1.5 or True run seed 1, and warmup 2.7 run 2 updates)
        self.seeds = tuple(validate(GENERAL_SPECS, "seed", s) for s in listed(seeds, "seeds"))
        self.warmup = step_count(warmup, "warmup")
        self.measure = step_count(measure, "measure", least=1)
        self.params = params
        self.replicas = [(s, a) for s in self.seeds for a in (0.0, 1.0)]
        self._per_run = self.warmup + self.measure
        self._sums = np.zeros(len(self.replicas))
        if mode == "batched":
            self.total = self._per_run
            self._ens = Ensemble(self.replicas, params)
        else:
            self.total = self._per_run * len(self.replicas)
            self._run_index = 0
            self._ens = Ensemble([self.replicas[0]], params)
        self.done_units = 0

    @property
    def progress(self) -> float:
        return self.done_units / self.total

    @property
    def done(self) -> bool:
        return self.done_units >= self.total

    def advance(self, n_updates: int) -> float:
        """Do up to ``n_updates`` units of work; return the progress in [0, 1]."""
        todo = min(step_count(n_updates, "n_updates"), self.total - self.done_units)
        for _ in range(todo):
            if self.mode == "batched":
                p = self._ens.step()
                if self._ens.t > self.warmup:
                    self._sums += p
            else:
                p = self._ens.step()
                if self._ens.t > self.warmup:
                    k = self._run_index
                    self._sums[k : k + 1] += p
                if self._ens.t == self._per_run and self._run_index + 1 < len(self.replicas):
                    self._run_index += 1
                    self._ens = Ensemble([self.replicas[self._run_index]], self.params)
            self.done_units += 1
        return self.progress

    def run(self) -> dict:
        """Finish the check and return :meth:`result`."""
        self.advance(self.total - self.done_units)
        return self.result()

    def means(self) -> np.ndarray:
        """(len(seeds), 2) mean P per seed, columns a = 0 and a = 1."""
        if not self.done:
            raise ValueError(f"the check is not finished ({100 * self.progress:.0f}% done)")
        return (self._sums / self.measure).reshape(len(self.seeds), 2)

    def result(self) -> dict:
        """The check as plain data (the CLI's --json shape).

        {"seeds": [{"seed", "a0", "a1"}, ...], "mean": {"a0", "a1"},
         "range": {"a0": [min, max], "a1": [min, max]}}
        """
        m = self.means()
        rows = [{"seed": s, "a0": float(m[k, 0]), "a1": float(m[k, 1])} for k, s in enumerate(self.seeds)]
        out = {"seeds": rows, "mean": {}, "range": {}}
        for col, key in ((0, "a0"), (1, "a1")):
            vals = [float(v) for v in m[:, col]]
            out["mean"][key] = _sequential_mean(vals)  # seed order
            out["range"][key] = [min(vals), max(vals)]
        return out


def check_shown(result: dict) -> dict:
    """The check's numbers as the page and the CLI write them: three decimals (Python's
    rounding, ties to even), in :meth:`CheckRun.result`'s shape ({"seeds": [{"seed", "a0",
    "a1"}], "mean": {"a0", "a1"}, "range": {"a0": [lo, hi], "a1": [lo, hi]}}) with text
    for every float.  The one place they are formatted (the page has no copy)."""
    def f(x: float) -> str:
        return f"{x:.3f}"
    return {"seeds": [{"seed": r["seed"], "a0": f(r["a0"]), "a1": f(r["a1"])} for r in result["seeds"]],
            "mean": {k: f(v) for k, v in result["mean"].items()},
            "range": {k: [f(lo), f(hi)] for k, (lo, hi) in result["range"].items()}}


def _sequential_mean(values) -> float:
    """The plain mean: a left-to-right sum of the floats, then one division (no pairwise or
    exact summation), so that a sum the check accumulates step by step has the same bits."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def run_check(mode: str = "batched", **kwargs) -> dict:
    """Run the whole eight-seed check at once (see :class:`CheckRun`)."""
    return CheckRun(mode, **kwargs).run()


# ----------------------------------------------------------------------------- general form (CLI)


def general_params(**values) -> tuple[VicsekParams, dict]:
    """Validate general-form values (defaults for the rest); return (params, run options).

    Raises ValueError naming the parameter.  Run options: seed, warmup, measure.
    """
    v = dict(_DEFAULT)
    for name, value in values.items():
        if value is None:
            continue
        v[name] = validate(GENERAL_SPECS, name, value)
    params = VicsekParams(**{f.name: v[f.name] for f in fields(VicsekParams)})  # the cross-checks
    return params, {"seed": int(v["seed"]), "warmup": int(v["warmup"]), "measure": int(v["measure"])}


def run_general(params: VicsekParams, seed: int, warmup: int, measure: int, turn=None) -> dict:
    """One run of the general form; mean and (population) std of P over the measured updates.

    ``turn``: a student's turn rule (``rules.load_file(path, rules_vicsek.KIND)``, or a plain
    function, which gets the same checks) in place of the built-in one; if it fails, its
    RuleError is raised (nothing half-measured), with ``update``: the update that failed,
    counted from 1."""
    warmup, measure = step_count(warmup, "warmup"), step_count(measure, "measure", least=1)
    ens = Ensemble([(seed, params.align)], params)
    ens.turn = turn

    def step() -> float:
        try:
            return float(ens.step()[0])
        except RuleError as exc:  # (an Ensemble raises a failing rule's error by default)
            exc.update = ens.t + 1  # the update it was computing
            raise

    for _ in range(warmup):
        step()
    ps = [step() for _ in range(measure)]
    # in update order, as CheckRun adds P: the same run prints the same mean, to the last
    # bit, here and in vicsek-check
    mean = _sequential_mean(ps)
    std = math.sqrt(math.fsum((p - mean) ** 2 for p in ps) / len(ps))
    return {"order_mean": mean, "order_std": std}
