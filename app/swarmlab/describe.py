"""Words for what a lab shows: the "interactive description" a screen reader speaks.

Every lab gets one function that turns the session's own state and metrics into a
short summary, for example::

    150 animals, mostly in one group heading north-east; agreement 0.82 whole group,
    0.91 local; mean spacing 2.3 lengths; a threat is passing.

The numbers are the engine's (the same ``measure`` the readouts and charts show), so
the words never disagree with the page.  Each function returns a dict::

    text   the summary (one or two sentences)
    values the numbers the page sonifies ({"P": whole-group agreement, 0..1})
    key    a coarse signature of the state (group shape, whether it heads one way,
           agreement band, events); the page speaks a new summary while playing only
           when the key changes or ``heading`` turns far enough (``TURN_DEG`` in
           assets/js/ui/access.js, an octant's width: the page decides what is news),
           so noise in the third decimal never reaches the listener, and a heading that
           wavers across the line between two compass words is not news either
    heading the compass angle of the (largest) group's heading in degrees, east = 0,
           counterclockwise; None when it does not head one way
    charts {chart id: text alternative}: current values and the trend over the last
           ``TREND_SECONDS`` of the lab's history

Groups are the connected pieces of the neighbour graph (:func:`metrics.group_labels`)
with at least ``GROUP_MIN`` members; an agent in a smaller piece is "on its own".
Headings become compass words with east = +x.  Labs 1 and 2 draw model y upwards
(north = +y); Lab 3 keeps screen coordinates (y downwards), so its north is -y.

numpy and the standard library only, like the rest of the engine.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from . import metrics
from .params import grouped as _grouped
from .space import norm, unit_headings

GROUP_MIN = 5            # agents: the smallest piece of the neighbour graph called a group
MOSTLY_ONE = 0.8         # share of agents in the largest group for "mostly in one group"
HEADED = 0.5             # a group's own agreement from which it "heads" somewhere
MILLING = 0.5            # rotation order from which a crowd is "circling"
TREND_SECONDS = 10.0     # window of the charts' trend
AGREEMENT_BANDS = (0.2, 0.5, 0.8, 0.95)  # the key changes when agreement crosses one of these

COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")
# A turn of the heading that is news for the page's spoken summaries (ui/access.js isNews): one
# compass word's width, so a heading wavering across the line between two words is not news.
# Every lab's description carries it (sessions.base.Session.op_describe).
NEWS_TURN_DEG = 360.0 / len(COMPASS)


# ------------------------------------------------------------------------------------ words
def compass(angle: float) -> str:
    """Eight-point compass word of an angle (radians, counter-clockwise from east = +x)."""
    k = int(math.floor(angle / (math.pi / 4.0) + 0.5)) % 8
    return COMPASS[k]


def band(value: float, edges: Sequence[float] = AGREEMENT_BANDS) -> int:
    """Index of the band ``value`` falls in (0 = below the first edge); -1 for NaN."""
    if value is None or not math.isfinite(value):
        return -1
    return int(sum(value >= e for e in edges))


def count(n: int) -> str:
    """A count as the page's prose writes it: "80", "2,000"."""
    return _grouped(str(int(n)))


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{count(n)} {one if n == 1 else (many or one + 's')}"


def flock_breakdown(n: int, in_flocks: int, loners: int) -> list[str]:
    """Where Lab 3's boids are besides its flocks, in the words of both the flocks readout and
    the description: e.g. ``["69 in small or mixed groups", "1 boid alone"]``; empty when every
    boid is in a flock.  The first part holds every boid with a neighbour in reach that is in no
    flock: its group is too small to be one, or mixes headings (a clump, a swirl)."""
    others = n - in_flocks - loners
    parts = [f"{count(others)} in small or mixed groups"] if others > 0 else []
    return parts + ([f"{plural(loners, 'boid')} alone"] if loners > 0 else [])


def flocks_where(n: int, in_flocks: int, loners: int) -> str:
    """The flocks readout's note: "all in flocks", "no boids", or the breakdown above."""
    parts = flock_breakdown(n, in_flocks, loners)
    return ", ".join(parts) if parts else ("all in flocks" if n else "no boids")


def _num(v: float, digits: int = 2) -> str:
    return "unknown" if v is None or not math.isfinite(v) else f"{v:.{digits}f}"


def _finite(v: float | None) -> bool:
    return v is not None and math.isfinite(v)


def _spacing(v: float | None) -> str:
    """The mean nearest spacing in words; with a single animal there is none to measure (said
    so, rather than "unknown lengths")."""
    return f"mean spacing {v:.1f} lengths" if _finite(v) else "no spacing (no other animal)"


def _agreement(P: float, local: float) -> str:
    """Whole-group and local agreement; local needs a social neighbour somewhere."""
    near = f"{local:.2f} local" if _finite(local) else "none local (no one has a neighbour in range)"
    return f"agreement {_num(P)} whole group, {near}"


# ------------------------------------------------------------------------------------ groups
def groups(labels: np.ndarray, u: np.ndarray, min_size: int = GROUP_MIN) -> list[dict]:
    """The groups of a labelling, largest first.

    labels : (N,) intp from :func:`metrics.group_labels`
    u      : (N, 2) unit headings
    returns [{"size", "agreement" (the group's own P, 0..1), "heading" (radians of its
    mean heading; NaN when the headings cancel)}], only groups of at least ``min_size``.
    """
    if labels.size == 0:
        return []
    sizes = np.bincount(labels, minlength=labels.size)
    sx = np.bincount(labels, weights=u[:, 0], minlength=labels.size)
    sy = np.bincount(labels, weights=u[:, 1], minlength=labels.size)
    big = np.flatnonzero(sizes >= min_size)
    out = []
    for g in big[np.argsort(-sizes[big], kind="stable")]:
        n = int(sizes[g])
        mx, my = sx[g] / n, sy[g] / n
        r = float(norm(mx, my))
        out.append({"size": n, "agreement": r, "heading": math.atan2(my, mx) if r > 1e-12 else math.nan})
    return out


def shape_phrase(n: int, found: list[dict], noun: str, *, milling: float = math.nan,
                 y_down: bool = False) -> tuple[str, tuple, float | None]:
    """"150 animals, mostly in one group heading north-east", its coarse key, and the
    largest group's compass heading in degrees (None when it heads many ways or circles).

    n      : number of agents
    found  : :func:`groups` of the current state, largest first
    noun   : plural noun ("animals", "boids", "arrows")
    """
    flip = -1.0 if y_down else 1.0
    head = plural(n, noun[:-1] if noun.endswith("s") else noun, noun)
    if n == 0:
        return f"no {noun}", ("empty",), None
    grouped = sum(g["size"] for g in found)
    alone = n - grouped

    def heading(g: dict) -> tuple[str, str, float | None]:
        if g["agreement"] >= HEADED and math.isfinite(g["heading"]):
            a = flip * g["heading"]
            return f"heading {compass(a)}", "headed", _degrees(a)
        if math.isfinite(milling) and milling >= MILLING:
            return "circling", "circling", None
        return "heading many ways", "many ways", None

    if not found:
        return f"{head}, scattered, none in a group", ("scattered",), None
    first = found[0]
    words, way, angle = heading(first)
    if first["size"] >= MOSTLY_ONE * n:
        shape = "all in one group" if first["size"] == n else "mostly in one group"
        text = f"{head}, {shape} {words}"
        key = ("one", way)
    elif len(found) == 1:
        text = f"{head}; one group of {first['size']} {words}, the rest on their own"
        key = ("one-part", way)
    else:
        text = f"{head} in {len(found)} groups; the largest has {first['size']} {noun}, {words}"
        key = ("many", min(len(found), 4), way)
        if alone:
            text += f"; {alone} on {'its' if alone == 1 else 'their'} own"
    return text, key, angle


def _degrees(angle: float) -> float:
    """A compass angle (radians, east = 0, counterclockwise) in degrees, 0 to 360."""
    return round(math.degrees(angle) % 360.0, 1)


# ------------------------------------------------------------------------------------ charts
def trend(times: Sequence[float], values: Sequence[float], *, window: float = TREND_SECONDS,
          steady: float = 0.03) -> dict:
    """Current value and the change over the last ``window`` (same unit as ``times``).

    times, values : the history's samples, oldest first (NaN values are skipped)
    steady        : a change smaller than this (in the values' unit) reads "steady"
    returns {"now", "then" (the first value inside the window), "span" (its age),
    "word": "rising" | "falling" | "steady" | ""} ("" with fewer than two samples)
    """
    pts = [(t, v) for t, v in zip(times, values) if v is not None and math.isfinite(v)]
    if not pts:
        return {"now": math.nan, "then": math.nan, "span": 0.0, "word": ""}
    t_now, v_now = pts[-1]
    inside = [(t, v) for t, v in pts if t >= t_now - window - 1e-9]
    t0, v0 = inside[0]
    if t_now - t0 <= 0:
        return {"now": v_now, "then": v0, "span": 0.0, "word": ""}
    d = v_now - v0
    word = "steady" if abs(d) < steady else ("rising" if d > 0 else "falling")
    return {"now": v_now, "then": v0, "span": t_now - t0, "word": word}


def trend_phrase(label: str, tr: dict, fmt, unit_word: str = "s") -> str:
    """"whole-group agreement 0.82, rising from 0.61 over the last 10 s"."""
    if not math.isfinite(tr["now"]):
        return f"{label}: no samples yet"
    text = f"{label} {fmt(tr['now'])}"
    span = f"over the last {tr['span']:.0f} {unit_word}"
    if tr["word"] in ("rising", "falling"):
        text += f", {tr['word']} from {fmt(tr['then'])} {span}"
    elif tr["word"] == "steady":
        text += f", steady {span}"
    return text


def history_series(history: metrics.History, name: str) -> tuple[list[float], list[float]]:
    """(times in s, values) of one series of a :class:`metrics.History`."""
    return history.times(), history.values[name]


def _spacing_steady(values: Sequence[float]) -> float:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return 0.05 * max(finite[-1], 1.0) if finite else 0.05


# ------------------------------------------------------------------------------------ Lab 1
def swarm(n: int, u: np.ndarray, pairs, m: Mapping[str, float], *, threat: bool = False,
          obstacle: str | None = None, at_limit: bool = False, trial: str | None = None,
          selected: int | None = None, history: metrics.History | None = None,
          very_close: float | None = None, limit_minutes: float | None = None) -> dict:
    """Lab 1 ("Swarm Lab").

    n      : number of animals
    u      : (N, 2) unit headings, model frame (y up)
    pairs  : the pairs that define the groups, both directions; the session passes the
             step's personal-space pairs (``Neighbourhood.personal``, r < 3.2 lengths), so a
             group is a chain of animals each closer than 3.2 lengths to the next (a flock's
             spacing is 2-3 lengths) and the search is already done
    m      : ``swarm.measure`` (P, local, spacing, very_close, milling)
    threat : a threat is passing; obstacle: the obstacle as its control names it ("a narrow
             passage", the spec's choice label), None for none
    at_limit : paused at the model-time limit (``limit_minutes`` long, ``swarm.TIME_LIMIT_STEPS``);
               trial: the running trial's title
    selected : the selected individual's number as the page shows it (ID + 1)
    history  : the session's metrics.History, for the charts' text
    very_close : the very-close threshold in lengths (``swarm.VERY_CLOSE``), named in that text
    """
    found = groups(metrics.group_labels(pairs), u)
    shape, key, angle = shape_phrase(n, found, "animals", milling=m.get("milling", math.nan))
    parts = [shape]
    if n:
        parts.append(_agreement(m["P"], m["local"]))
        parts.append(_spacing(m["spacing"]))
    if obstacle:
        parts.append(f"{obstacle} in the way")
    if threat:
        parts.append("a threat is passing")
    text = "; ".join(parts) + "."
    extra = []
    if trial:
        extra.append(f"Trial: {trial}.")
    if selected is not None:
        extra.append(f"Individual {selected} is selected.")
    if at_limit:
        limit = "the time limit" if limit_minutes is None else f"the {limit_minutes:g}-minute limit"
        extra.append(f"Paused at {limit}; Continue keeps everything.")
    if extra:
        text += " " + " ".join(extra)
    out = {"text": text, "key": _key(key, band(m.get("P", math.nan)), threat, at_limit, obstacle, n),
           "heading": angle, "values": {"P": m.get("P", math.nan)}, "charts": {}}
    if history is not None:
        t = history.times()
        agree = [trend_phrase(metrics.P_WHOLE_GROUP, trend(t, history.values["P"]), _fmt2),
                 trend_phrase("local agreement", trend(t, history.values["local"]), _fmt2)]
        sp = history.values["spacing"]
        if very_close is None:
            raise ValueError("describe.swarm: the charts' text needs very_close (swarm.VERY_CLOSE)")
        space = [trend_phrase("mean nearest spacing", trend(t, sp, steady=_spacing_steady(sp)), _fmt_len),
                 trend_phrase(f"share under {very_close:g} lengths", trend(t, history.values["very_close"]), _fmt_pct)]
        out["charts"] = {"agree": "Agreement chart: " + "; ".join(agree) + ".",
                         "space": "Spacing chart: " + "; ".join(space) + "."}
    return out


# ------------------------------------------------------------------------------------ Lab 2
def vicsek(x: np.ndarray, theta: np.ndarray, pairs, P: float, a: float, t: int, *,
           selected: int | None = None, neighbours: int | None = None,
           history: metrics.History | None = None, baseline: float = math.nan,
           window: int = 60) -> dict:
    """Lab 2 ("Few turns, one direction").

    x, theta  : (N, 2) positions in the unit square (y up) and (N,) headings, radians
    pairs     : neighbour pairs at the interaction radius (both directions)
    P         : the order parameter now; a: the alignment knob; t: updates so far
    selected  : the followed arrow's number as the page shows it (index + 1), with its
                neighbour count (itself excluded)
    history   : the session's metrics.History of P (its clock counts updates)
    baseline  : P of independent random headings (about 0.11 for 64)
    window    : updates in the chart trend (sessions/vicsek.py TREND_UPDATES: 10 s at the default rate)
    """
    n = int(theta.shape[0])
    u = np.column_stack([np.cos(theta), np.sin(theta)]) if n else np.zeros((0, 2))
    found = groups(metrics.group_labels(pairs), u, min_size=3)
    shape, key, angle = shape_phrase(n, found, "arrows")
    if math.isfinite(baseline) and P < 2.0 * baseline:
        state = "close to random headings"
    elif P >= 0.8:
        state = "nearly all one way"
    else:
        state = "partly lined up"
    text = f"Update {t}: {shape}; P {_num(P)}, {state}; alignment a {a:g}."
    if selected is not None:
        text += f" Following arrow {selected}" + ("" if neighbours is None else
                                                  f", with {plural(neighbours, 'neighbour')} in its circle") + "."
    steps, hist = history_series(history, "P") if history is not None else ([], [])
    tr = trend(steps, hist, window=window)
    chart = trend_phrase("P", tr, _fmt2, unit_word="updates")
    return {"text": text, "key": _key(key, band(P), a), "heading": angle, "values": {"P": P},
            "charts": {"P": f"P chart: {chart}."}}


# ------------------------------------------------------------------------------------ Lab 3
def boids(v: np.ndarray, m: Mapping[str, float], *, treat: bool = False,
          weights: tuple[float, float, float] = (math.nan,) * 3,
          history: metrics.History | None = None) -> dict:
    """Lab 3 ("Three rules").

    v       : (N, 2) velocities, screen frame (y down), lengths/s
    m       : the lab's own measures (``boids.measure`` or the history's latest sample):
              P, spacing, flocks (groups of 5+ flying one way, the "flocks" readout), and
              when known in_flocks and loners (boids in those flocks, boids alone)
    treat   : the treat is held; weights: (separation, alignment, cohesion)

    No neighbour search here: the shape is told by the flocks count the page shows, so the
    description costs nothing even with 2,000 boids in a small sky.
    """
    n = int(v.shape[0])
    P = float(m.get("P", math.nan))
    flocks = int(m.get("flocks", 0) or 0)
    head = plural(n, "boid")
    angle = None
    heading = ""
    if n:
        u = unit_headings(v)
        mean = u.mean(axis=0)
        if math.isfinite(P) and P >= HEADED and float(norm(mean)) > 1e-12:
            a = -math.atan2(mean[1], mean[0])  # y down: north is -y
            heading, angle = f", heading {compass(a)}", _degrees(a)
    known = "in_flocks" in m and "loners" in m  # where the other boids are, as the readout says
    in_flocks, loners = (int(m["in_flocks"]), int(m["loners"])) if known else (0, 0)
    grouped = n - in_flocks - loners if known else 0
    rest = flock_breakdown(n, in_flocks, loners) if known else []
    if not n:
        shape = "no boids"
    elif flocks == 0:
        # boids near others but in no flock (a small group, a clump, a swirl) are not "no flock yet"
        if grouped > 0:
            shape = f"{head}, no flock ({', '.join(rest)}){heading}"
        else:
            shape = f"{head}, no flock yet{heading}"
    else:
        which = "one flock" if flocks == 1 else f"{flocks} flocks"
        where = ""
        if known:  # "80 boids, 2 flocks flying one way (10 in them, 69 in small or mixed groups, 1 boid alone)"
            them = "it" if flocks == 1 else "them"  # "one flock … (66 in it, …)"
            where = f" ({', '.join([f'{count(in_flocks)} in {them}', *rest])})" if rest else f" (all in {them})"
        shape = f"{head}, {which} flying one way{where}{heading}"
    parts = [shape]
    # the chart's own words when there is a history (the session's HISTORY_SERIES)
    label = {s.name: s.label for s in history.series} if history is not None else {}
    if n:
        parts.append(f"{label.get('P', metrics.P_SHARED_HEADING)} {_num(P)}")
        parts.append(_spacing(m.get("spacing", math.nan)))
    if treat:
        parts.append("the treat is held")
    text = "; ".join(parts) + "."
    if all(math.isfinite(w) for w in weights):
        text += f" Weights: separation {weights[0]:g}, alignment {weights[1]:g}, cohesion {weights[2]:g}."
    out = {"text": text, "key": _key(min(flocks, 4), angle is not None, band(P), treat, n),
           "heading": angle, "values": {"P": P}, "charts": {}}
    if history is not None:
        t = history.times()
        sp = history.values["spacing"]
        # the chart plots P and spacing; the flocks count is a readout, told in the text above
        parts = [trend_phrase(label["P"], trend(t, history.values["P"]), _fmt2),
                 trend_phrase(label["spacing"], trend(t, sp, steady=_spacing_steady(sp)), _fmt_len)]
        out["charts"] = {"chart": "Chart: " + "; ".join(parts) + "."}
    return out


# ------------------------------------------------------------------------------------ helpers
def _fmt2(v: float) -> str:
    return f"{v:.2f}"


def _fmt_len(v: float) -> str:
    return f"{v:.1f} lengths"


def _fmt_pct(v: float) -> str:
    return f"{100 * v:.0f} %"


def _key(*parts) -> str:
    """"one|3|4|False": the parts (tuples flattened) joined by "|"."""
    flat = []
    for p in parts:
        flat.extend(p if isinstance(p, tuple) else (p,))
    return "|".join(str(p) for p in flat)
