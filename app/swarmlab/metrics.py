"""Group measurements and their history (generic: used by every lab).

All functions are pure and read only; the plots never steer the agents.

Order parameters (u_i = unit heading of agent i, N agents)
----------------------------------------------------------
* whole-group agreement (polarisation)  ``P = |(1/N) sum_i u_i|``, 0 <= P <= 1.
  N independent random headings give about ``sqrt(pi / (4 N))`` (0.07 for 150).
* local agreement: for each agent with at least one social neighbour,
  ``P_i = |(u_i + sum_{j in S_i} u_j) / (1 + |S_i|)|``; the mean of P_i over
  those agents.  Isolated agents are excluded; NaN if every agent is isolated.
* mean nearest spacing: mean over agents of the periodic distance to the nearest
  other agent (lengths), via ``cells.nearest_any``, or from a step's neighbour
  pairs plus a search for the agents without any (:func:`nearest_distances`, the
  same values bit for bit); NaN for fewer than 2 agents.
* very-close share: fraction of all agents whose nearest other agent is closer
  than ``close`` (1.2 lengths in Lab 1).
* rotation (milling) order parameter (Tunstrom et al. 2013)
  ``M = |(1/N) sum_i rhat_i x u_i|`` where ``rhat_i`` is the unit vector from the
  group centre to agent i and ``x`` the 2-D cross product.  On the torus the
  centre is the circular mean of each coordinate.  M is near 1 for a mill (where
  P is near 0) and near 0 for a translating group.
* groups: the connected pieces of the neighbour graph (agents linked by a chain
  of neighbour pairs, e.g. boids within the radius of one another), from a
  step's pairs (:func:`group_labels`); on :func:`aligned_pairs` only, chains of
  neighbours that also head roughly alike.  :func:`count_flocks` counts the groups
  of at least ``min_size`` agents that also agree on a heading.
* group tracking: :func:`match_groups` follows the groups of one moment into
  the groups of a later one by membership (where did the members of each group
  go?); :func:`group_splits` and :func:`group_turns` read splits and sudden
  turns of whole groups from it; :func:`grouped_share` is the share of agents in
  groups of at least a given size.
* hexatic (six-fold bond) order: for agent i with bonds j (neighbours within
  ``scale`` times the mean nearest spacing), ``psi6_i = (1/n_i) sum_j exp(6 i theta_ij)``
  with theta_ij the bond angle; :func:`hexatic_order` is the mean of ``|psi6_i|``
  over agents with at least ``min_bonds`` bonds.  About 1 on a triangular lattice,
  about 0.2-0.4 in a liquid or a random gas; computed from the bond vectors with
  complex multiplication (no trigonometric function).

History
-------
:class:`History` samples on an integer clock ("ticks", e.g. model steps) every
``interval`` ticks, keeps at most ``capacity`` samples per series and, when
full, drops every other sample and doubles the interval, so the whole run stays
visible at a coarser density.  Event markers (tick, label) are kept separately
and are never thinned.  Export: :meth:`History.to_dict` and
:meth:`History.to_csv` (units in the header).
"""

from __future__ import annotations

import bisect
import csv
import io
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from . import cells, detmath
from .space import Box, displacement, norm, wrap


def headings_to_u(theta: np.ndarray) -> np.ndarray:
    """(N,) angles -> (N, 2) unit vectors (cos, sin)."""
    theta = np.asarray(theta, dtype=np.float64)
    return np.stack([np.cos(theta), np.sin(theta)], axis=-1)


def polarization(u: np.ndarray) -> float:
    """Whole-group agreement ``P = |mean_i u_i|``; NaN for no agents.  u : (N, 2)."""
    if u.shape[0] == 0:
        return math.nan
    return float(norm(u.mean(axis=0)))


RANDOM_P_COEFFICIENT = math.sqrt(math.pi) / 2.0  # E P of n random headings ~ this / sqrt(n)


def random_polarization(n: int) -> float:
    """Expected ``P`` of ``n`` independent, uniformly random headings (the "no shared
    direction" level the pages quote): for large n, ``|mean of n unit vectors|`` is
    Rayleigh-distributed with ``E P = sqrt(pi) / (2 sqrt(n))`` (0.11 for 64, 0.099 for 80);
    NaN for no agents."""
    return RANDOM_P_COEFFICIENT / math.sqrt(n) if n > 0 else math.nan


def local_agreement(u: np.ndarray, pairs: "cells.Pairs") -> float:
    """Mean over non-isolated agents of |(u_i + sum_j u_j) / (1 + n_i)|.

    u     : (N, 2) unit headings
    pairs : social-neighbour pairs (i -> j), as used by the rules
    Returns NaN when no agent has a social neighbour.
    """
    n = u.shape[0]
    cnt = pairs.counts()
    has = cnt > 0
    if not np.any(has):
        return math.nan
    # contiguous 1-D columns: ux[j] is a plain 1-D gather (u[j, 0] is a strided 2-D
    # fancy index, several times slower, most of all in Pyodide)
    ux = np.ascontiguousarray(u[:, 0])
    uy = np.ascontiguousarray(u[:, 1])
    sx = pairs.sum_by_i(ux[pairs.j]) + ux
    sy = pairs.sum_by_i(uy[pairs.j]) + uy
    p = norm(sx[has], sy[has]) / (1.0 + cnt[has])
    return float(p.mean())


def nearest_distances(x: np.ndarray, box: Box, pairs: "cells.Pairs | None" = None) -> np.ndarray:
    """(N,) periodic distance from each agent to its nearest other agent (inf if alone).

    Bit-identical to ``cells.nearest_any(x, box)[1]``.  ``pairs`` (optional) is a
    *complete* neighbour search of the same positions: every ordered pair with
    ``r <= c`` for some cut-off c, in any order, or every unordered pair once
    (``pairs.half``; e.g. a step's ``Neighbourhood.pairs``).  Then an agent with at least one pair
    has its nearest neighbour among its pairs (a nearer agent would also be within
    c), so its distance is the minimum of its pair distances (the same
    ``sqrt(dx*dx + dy*dy)`` of the same displacement as ``nearest_any``); only the
    agents without a pair are searched, at any distance, with
    ``nearest_any(..., query=...)``.
    """
    n = x.shape[0]
    if pairs is None:
        return cells.nearest_any(x, box)[1]
    if pairs.n != n:
        raise ValueError(f"pairs refer to {pairs.n} agents, positions to {n}")
    r = np.full(n, np.inf)
    if len(pairs):
        np.minimum.at(r, pairs.i, pairs.r)  # 1-D ufunc.at: fast in numpy >= 1.25
        if pairs.half:  # each unordered pair once: it also counts for j (a minimum: any order)
            np.minimum.at(r, pairs.j, pairs.r)
    alone = np.flatnonzero(r == np.inf)
    if alone.size:
        r[alone] = cells.nearest_any(x, box, query=alone)[1]
    return r


def nearest_spacing(x: np.ndarray, box: Box, close: float = math.nan, nearest: tuple | None = None,
                    pairs: "cells.Pairs | None" = None) -> tuple[float, float]:
    """(mean nearest spacing, very-close share) for positions x (N, 2).

    ``nearest`` may pass a precomputed ``cells.nearest_any(x, box)`` result;
    ``pairs`` a complete neighbour search of x (see :func:`nearest_distances`),
    which gives bit-identical values with far less work.
    Mean over agents that have another agent (NaN if none); share over all agents
    of ``r_nn < close`` (NaN below two agents: a lone agent has no nearest neighbour, so
    the share is undefined, not 0).  ``close`` is the caller's threshold (Lab 1's
    ``swarm.VERY_CLOSE``); without one the share is NaN.
    """
    n = x.shape[0]
    if n < 2:
        return math.nan, math.nan
    if nearest is not None:
        _, r = nearest
    else:
        r = nearest_distances(x, box, pairs)
    finite = np.isfinite(r)
    mean = float(r[finite].mean()) if np.any(finite) else math.nan
    share = float(np.count_nonzero(r < close) / n) if close == close else math.nan  # NaN: no threshold
    return mean, share


def group_labels(pairs: "cells.Pairs") -> np.ndarray:
    """(N,) intp: the label of each agent's group = the smallest agent index in it.

    A group is a connected piece of the neighbour graph: i and k share a group
    when a chain of pairs (i, j1), (j1, j2), ..., (jm, k) links them.  ``pairs``
    must hold each pair in both directions (as every ``cells`` search does).

    Min-label propagation with pointer jumping: every agent repeatedly takes the
    smallest label among itself and its neighbours, then the label of its label.
    Labels only decrease and always name an agent of the same group, so at the
    fixed point each group carries its smallest index.  A few rounds for a flock
    (the jumps halve long chains), never more than N.
    """
    n = pairs.n
    lab = np.arange(n, dtype=np.intp)
    if len(pairs) == 0:
        return lab
    i = pairs.i.astype(np.intp, copy=False)
    j = pairs.j.astype(np.intp, copy=False)
    for _ in range(n):
        new = lab.copy()
        np.minimum.at(new, i, lab[j])  # 1-D ufunc.at: fast in numpy >= 1.25
        new = new[new]
        if np.array_equal(new, lab):
            break
        lab = new
    return lab


def aligned_pairs(pairs: "cells.Pairs", u: np.ndarray, cos_min: float) -> "cells.Pairs":
    """The pairs whose two agents head within an angle of each other: ``u_i . u_j >= cos_min``
    (``u`` (N, 2) unit headings; ``cos_min`` the cosine of the largest angle).  Both
    directions stay together (the test is symmetric), so :func:`group_labels` takes the
    result: a group of it is a chain of neighbours each heading roughly as the next."""
    i = pairs.i.astype(np.intp, copy=False)
    j = pairs.j.astype(np.intp, copy=False)
    ux, uy = u[:, 0], u[:, 1]
    return pairs.take(ux[i] * ux[j] + uy[i] * uy[j] >= cos_min)


def flock_sizes(labels: np.ndarray, u: np.ndarray, min_size: int, min_agreement: float) -> np.ndarray:
    """The sizes of the groups (from :func:`group_labels`) of at least ``min_size`` agents
    whose own agreement ``P_g = |mean of u over the group|`` is at least ``min_agreement``:
    linked groups that also fly one way.  ``u`` (N, 2) unit headings.  Returns (F,) ints.
    """
    n = labels.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    size = np.bincount(labels, minlength=n)
    sx = np.bincount(labels, weights=u[:, 0], minlength=n)
    sy = np.bincount(labels, weights=u[:, 1], minlength=n)
    big = size >= min_size
    agree = norm(sx[big], sy[big]) / size[big]
    return size[big][agree >= min_agreement]


def count_flocks(labels: np.ndarray, u: np.ndarray, min_size: int, min_agreement: float) -> int:
    """How many groups are flocks (:func:`flock_sizes`)."""
    return len(flock_sizes(labels, u, min_size, min_agreement))


def periodic_centre(x: np.ndarray, box: Box) -> np.ndarray:
    """Circular mean of each coordinate: the group centre on the torus, shape (2,)."""
    size = box.size
    ang = 2.0 * np.pi * x / size
    c = np.arctan2(np.sin(ang).mean(axis=0), np.cos(ang).mean(axis=0))
    return wrap(c / (2.0 * np.pi) * size, box)


def concentration(x: np.ndarray, box: Box) -> float:
    """How gathered the points x (N, 2) are on the torus, 0..1: the smaller over the two axes
    of the circular mean resultant |mean_k exp(2 pi i x_k / L)|.  About 1 for one compact
    clump, near 0 for points spread evenly along an axis (a band wrapped round the world
    reads near 0 even though it is one connected group).  NaN for no points."""
    if len(x) == 0:
        return math.nan
    ang = 2.0 * np.pi * np.asarray(x, dtype=float) / box.size
    r = np.sqrt(np.cos(ang).mean(axis=0) ** 2 + np.sin(ang).mean(axis=0) ** 2)
    return float(r.min())


def rotation_order(x: np.ndarray, u: np.ndarray, box: Box) -> float:
    """Milling order ``M = |mean_i (rhat_i x u_i)|`` about the periodic centre; NaN below two
    agents (one agent is its own centre: no direction to turn about, only rounding noise)."""
    n = x.shape[0]
    if n < 2:
        return math.nan
    rel = displacement(periodic_centre(x, box), x, box)
    r = norm(rel)
    safe = np.where(r > 0, r, 1.0)
    cross = (rel[:, 0] * u[:, 1] - rel[:, 1] * u[:, 0]) / safe
    cross[r == 0] = 0.0
    return float(abs(cross.mean()))


# ----------------------------------------------------------------------------------------------
# Groups over time: follow each group's members from one moment to a later one.


def group_sizes(labels: np.ndarray) -> np.ndarray:
    """(N,) number of agents carrying each label (0 for labels nobody carries)."""
    labels = np.asarray(labels, dtype=np.intp)
    return np.bincount(labels, minlength=labels.shape[0])


def grouped_share(labels: np.ndarray, min_size: int) -> float:
    """Share of agents whose group (:func:`group_labels`) has at least ``min_size`` agents; NaN for none."""
    labels = np.asarray(labels, dtype=np.intp)
    n = labels.shape[0]
    if n == 0:
        return math.nan
    return float(np.count_nonzero(group_sizes(labels)[labels] >= min_size) / n)


def match_groups(before: np.ndarray, after: np.ndarray, min_size: int = 1) -> dict[int, list[tuple[int, int]]]:
    """Where the members of each earlier group are later: membership tracking.

    before, after : (N,) group labels of the same N agents (same order, e.g. stable
                    ids) at an earlier and a later moment (:func:`group_labels`).
    Returns ``{g: [(h, k), ...]}`` for every earlier group ``g`` of at least
    ``min_size`` agents: ``k`` of its members are in the later group ``h``; the
    list is sorted by ``k`` (largest first; ties by smaller ``h``) and its ``k``
    add up to the size of ``g``.  The first entry is the group's continuation.
    """
    before = np.asarray(before, dtype=np.intp)
    after = np.asarray(after, dtype=np.intp)
    if before.shape != after.shape:
        raise ValueError(f"labels of {before.shape[0]} and {after.shape[0]} agents: the same agents are needed")
    n = before.shape[0]
    out: dict[int, list[tuple[int, int]]] = {}
    if n == 0:
        return out
    keep = group_sizes(before)[before] >= min_size
    code = before[keep].astype(np.int64) * n + after[keep]
    codes, counts = np.unique(code, return_counts=True)
    for c, k in zip(codes.tolist(), counts.tolist()):
        out.setdefault(c // n, []).append((c % n, k))
    for parts in out.values():
        parts.sort(key=lambda hk: (-hk[1], hk[0]))
    return out


def group_splits(before: np.ndarray, after: np.ndarray, min_size: int = 6, min_part: int = 3) -> list[int]:
    """Earlier groups of at least ``min_size`` agents whose members are later in two or
    more groups holding at least ``min_part`` of them each (a split).  Labels as in
    :func:`match_groups`; returns the earlier labels, ascending."""
    matches = match_groups(before, after, min_size)
    return sorted(g for g, parts in matches.items() if sum(k >= min_part for _, k in parts) >= 2)


def group_turns(labels: np.ndarray, u_before: np.ndarray, u_after: np.ndarray, min_size: int = 6,
                min_turn: float = math.radians(20.0), min_agreement: float = 0.5) -> list[tuple[int, float]]:
    """Groups that turn as a whole: ``[(label, angle), ...]`` for every group of at
    least ``min_size`` agents (``labels`` at the earlier moment) that flies one way
    (the length of its members' mean unit heading, the group's own P, is at least
    ``min_agreement`` at both moments) and whose mean heading turns by more than
    ``min_turn`` radians between the two moments.

    u_before, u_after : (N, 2) unit headings of the same agents at both moments.
    The angle between the two mean headings m0, m1 is ``atan2(|m0 x m1|, m0 . m1)``
    (deterministic :func:`detmath.atan2`).  A swirl whose headings cancel has no
    heading to turn and is skipped.  Over one second, ``min_turn`` = 20 degrees is
    a turn faster than 20 degrees per second.
    """
    labels = np.asarray(labels, dtype=np.intp)
    n = labels.shape[0]
    if n == 0:
        return []
    size = group_sizes(labels)
    big = np.flatnonzero(size >= min_size)
    if big.size == 0:
        return []
    sums = [np.bincount(labels, weights=np.ascontiguousarray(u[:, k]), minlength=n)[big]
            for u in (u_before, u_after) for k in (0, 1)]
    ax, ay, bx, by = sums
    dot = ax * bx + ay * by
    cross = np.abs(ax * by - ay * bx)
    m = size[big] * max(min_agreement, 1e-9)  # |sum of unit headings| >= P_min * size
    ok = (ax * ax + ay * ay >= m * m) & (bx * bx + by * by >= m * m)
    angle = detmath.atan2(cross, dot)
    hit = ok & (angle > min_turn)
    return [(int(g), float(a)) for g, a in zip(big[hit], angle[hit])]


def hexatic_order(x: np.ndarray, box: Box, scale: float = 1.5, min_bonds: int = 3,
                  spacing: float | None = None) -> tuple[float, int]:
    """Mean local six-fold order ``|psi6|`` and how many agents it averages over.

    Bonds of agent i: the other agents within ``scale * spacing`` of it, where
    ``spacing`` is the mean nearest-neighbour distance (:func:`nearest_spacing`)
    unless given.  For an agent with at least ``min_bonds`` bonds
    ``psi6_i = (1/n_i) sum_j (d_ij / |d_ij|)^6`` (the bond vector as a complex
    number, raised to the sixth power by multiplication = exp(6 i theta_ij)).
    Returns ``(mean_i |psi6_i|, count)``; ``(nan, 0)`` when no agent has enough bonds.
    Coincident agents (|d| = 0) form no bond.
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1, 2)
    n = x.shape[0]
    if n < 2:
        return math.nan, 0
    if spacing is None:
        spacing, _ = nearest_spacing(x, box)
    if not (math.isfinite(spacing) and spacing > 0):
        return math.nan, 0
    pairs = cells.neighbour_pairs(x, box, scale * spacing, sort=False)
    pairs = pairs.take(np.flatnonzero(pairs.r > 0))
    if len(pairs) == 0:
        return math.nan, 0
    c = pairs.dx / pairs.r
    s = pairs.dy / pairs.r
    c2, s2 = c * c - s * s, 2.0 * c * s            # z^2
    c3, s3 = c2 * c - s2 * s, c2 * s + s2 * c      # z^3
    c6, s6 = c3 * c3 - s3 * s3, 2.0 * c3 * s3      # z^6
    cnt = pairs.counts()
    re = pairs.sum_by_i(c6)
    im = pairs.sum_by_i(s6)
    has = cnt >= min_bonds
    if not np.any(has):
        return math.nan, 0
    psi = np.sqrt(re[has] * re[has] + im[has] * im[has]) / cnt[has]
    return float(psi.mean()), int(np.count_nonzero(has))


# ----------------------------------------------------------------------------------------------
# P = |mean heading| (``polarization``) is named for each lab's story: beside the Swarm Lab's local
# agreement it is the whole-group agreement, in Labs 2 and 3 the shared heading.  The labs' texts
# give the other name once (the sessions' constant ``p_elsewhere``), so that a student moving
# between labs knows it is one measure.
P_WHOLE_GROUP = "whole-group agreement P"
P_SHARED_HEADING = "shared heading P"


@dataclass(frozen=True)
class Series:
    """One chart series: key, readable label, unit ("" = dimensionless)."""

    name: str
    label: str
    unit: str = ""


# Samples a page keeps of a run (about its memory): a full history halves its density and goes on.
HISTORY_CAPACITY = 2400


class History:
    """Metric history with thinning and event markers.

    series       : the Series to keep (one list of floats each)
    tick_seconds : model seconds per tick (e.g. 1/60 for Lab 1 steps)
    interval     : sampling interval in ticks (Lab 1: 15 steps = 0.25 s)
    capacity     : maximum samples per series (about 2,400)
    time_label   : CSV header of the time column
    """

    def __init__(
        self,
        series: Sequence[Series],
        tick_seconds: float,
        interval: int,
        capacity: int = HISTORY_CAPACITY,
        time_label: str = "time (s)",
        max_markers: int = 1000,
    ):
        if interval < 1 or capacity < 2:
            raise ValueError("interval must be >= 1 and capacity >= 2")
        self.series = tuple(series)
        self.tick_seconds = float(tick_seconds)
        self.base_interval = int(interval)
        self.capacity = int(capacity)
        self.time_label = time_label
        self.max_markers = int(max_markers)
        self.clear()

    def clear(self) -> None:
        self.interval = self.base_interval
        self.ticks: list[int] = []
        self.values: dict[str, list[float]] = {s.name: [] for s in self.series}
        self.markers: list[tuple[int, str]] = []
        self._last_marker_key: str | None = None
        self.version = 0  # bumped at every thinning (callers holding a partial copy refetch)

    def __len__(self) -> int:
        return len(self.ticks)

    @property
    def interval_seconds(self) -> float:
        return self.interval * self.tick_seconds

    def reserve(self, samples: int) -> None:
        """Room for at least ``samples`` samples before any thinning: a headless run keeps
        every sample (the page's ``capacity`` bounds its memory over an open-ended run)."""
        self.capacity = max(self.capacity, int(samples))

    def due(self, tick: int) -> bool:
        """True if a sample at ``tick`` would be kept (a multiple of the interval, not yet recorded)."""
        return tick % self.interval == 0 and (not self.ticks or tick > self.ticks[-1])

    def record(self, tick: int, values: Mapping[str, float], last: bool = False) -> bool:
        """Store one sample if due; thin first when full.  Returns whether it was stored.

        ``last=True`` stores it even between two sampling ticks (not before the latest
        sample): the end of a headless run of any length, so that its CSV and summary end
        where the run did.  A later thinning may drop it, like any sample off the new grid.
        """
        later = not self.ticks or tick > self.ticks[-1]
        if not (self.due(tick) or (last and later)):
            return False
        if len(self.ticks) >= self.capacity:
            self._thin()
            if not (self.due(tick) or last):
                return False
        self.ticks.append(int(tick))
        for s in self.series:
            v = values.get(s.name, math.nan)
            self.values[s.name].append(math.nan if v is None else float(v))
        return True

    def _thin(self) -> None:
        self.interval *= 2
        keep = [k for k, t in enumerate(self.ticks) if t % self.interval == 0]
        self.ticks = [self.ticks[k] for k in keep]
        for name, vals in self.values.items():
            self.values[name] = [vals[k] for k in keep]
        self.version += 1

    def mark(self, tick: int, label: str, key: str | None = None, merge_ticks: int = 0) -> None:
        """Add an event marker (never thinned; at most ``max_markers``, oldest dropped).

        ``key`` names what changed (e.g. a parameter).  If the previous marker has the
        same ``key`` and is at most ``merge_ticks`` older, this one replaces its label
        and keeps its tick: a slider dragged through twenty values is one change (one
        marker, at the time the drag began, labelled with the final value), not twenty.
        """
        tick = int(tick)
        if (key is not None and self.markers and key == self._last_marker_key
                and 0 <= tick - self.markers[-1][0] <= merge_ticks):
            self.markers[-1] = (self.markers[-1][0], str(label))
            return
        self.markers.append((tick, str(label)))
        self._last_marker_key = key
        if len(self.markers) > self.max_markers:
            del self.markers[0]

    def times(self) -> list[float]:
        return [t * self.tick_seconds for t in self.ticks]

    def to_dict(self, since: float | None = None) -> dict:
        """Chart data: times, series values (NaN kept), labels, units, the time column's
        label and all markers.

        ``since`` (seconds): only samples strictly later are returned (an incremental
        update); callers compare ``version`` with their copy and refetch in full
        after a thinning.
        """
        start = 0
        if since is not None:
            start = bisect.bisect_right(self.ticks, since / self.tick_seconds + 1e-9)
        return {
            "t": [t * self.tick_seconds for t in self.ticks[start:]],
            "series": {s.name: self.values[s.name][start:] for s in self.series},
            "labels": {s.name: s.label for s in self.series},
            "units": {s.name: s.unit for s in self.series},
            "time_label": self.time_label,
            "markers": [{"t": t * self.tick_seconds, "label": lab} for t, lab in self.markers],
            "interval": self.interval_seconds,
            "version": self.version,
            "full": since is None,
            "count": len(self.ticks),
        }

    def to_csv(self) -> str:
        """CSV text: one row per sample, plus one row per marker (metric cells empty).

        Header: the time column and each series as "label (unit)"; the last column
        ``event`` holds marker labels.  Rows are in time order; a marker at the same
        tick as a sample follows that sample.  Missing values are empty cells.
        """
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        head = [self.time_label]
        for s in self.series:
            head.append(f"{s.label} ({s.unit or 'dimensionless'})")
        head.append("event")
        w.writerow(head)
        marks = sorted(self.markers, key=lambda m: m[0])
        mi = 0
        for k, tick in enumerate(self.ticks):
            while mi < len(marks) and marks[mi][0] < tick:
                w.writerow(self._marker_row(marks[mi]))
                mi += 1
            row = [_fmt_time(tick * self.tick_seconds)]
            for s in self.series:
                row.append(_fmt_value(self.values[s.name][k]))
            row.append("")
            w.writerow(row)
        while mi < len(marks):
            w.writerow(self._marker_row(marks[mi]))
            mi += 1
        return buf.getvalue()

    def _marker_row(self, mark: tuple[int, str]) -> list[str]:
        return [_fmt_time(mark[0] * self.tick_seconds)] + [""] * len(self.series) + [mark[1]]


def _fmt_time(t: float) -> str:
    return f"{t:.10g}"


def _fmt_value(v: float) -> str:
    """A measurement as a CSV cell: the shortest text that reads back as the same float (so a
    researcher's analysis sees the numbers Python has, not six digits of them), "2" for 2.0,
    and empty for a missing value."""
    if not math.isfinite(v):
        return ""
    text = repr(float(v))
    return text[:-2] if text.endswith(".0") else text
