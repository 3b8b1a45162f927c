"""Browser session of Lab 2, "Few turns, one direction" (Vicsek alignment).

The live stage is the teaching form (64 agents, L = 1, R = 0.12 with self,
step 0.01, kicks 0.35 * U[-1, 1]) with **seed 3**; restart replays it exactly
(same start, same kicks).  The only knob is the alignment ``a`` (live: changing
it does not restart; the kick stream simply continues).

Frame layout (``frame()``: flat float32, 2 + 6 * 64 = 386 values; published as ``FRAME``)
-----------------------------------------------------------------------------------------
    [ n, t,                                                           # header: N, update count
      x_0, y_0, th_0,  x_1, y_1, th_1,  ...,  x_63, y_63, th_63,      # block A: now
      px_0, py_0, pth_0,  ...,  px_63, py_63, pth_63 ]                # block B: one update ago

* Block A: positions of the current update, in model units, in [0, 1); headings
  th in radians, counter-clockwise from +x, in [-pi, pi).  Screen y is up in the
  model: the page flips it if its canvas y points down.
* Block B: the previous update's positions **unwrapped next to the current
  ones** (``p = x + displacement(x, x_prev)``, so a component may lie slightly
  outside [0, 1) when the agent crossed the edge) and its previous heading.
  Interpolate ``p + s * (x - p)`` for s in [0, 1] and wrap when drawing; the
  path is the straight step the agent took.  Right after a reset block B equals
  block A.  The page keeps its own 8-update trail from successive frames.

Ops (JSON in/out through ``Session.call``)
------------------------------------------
reset(a=None)            restart seed 3 from the start (a kept unless given)
set(name, value)         live change of a parameter ("a"), no restart
step(n=1)                n updates -> {"t", "P"}
metrics()                {"t", "P"}
history(since, version)  P on the update clock and the knob's markers (metrics.History, base op)
state()                  constants and current values (see op_state)
select(x, y)             nearest arrow (periodic distance) to a model point -> {"index", "distance"}
                         (select(index=i) picks directly; select() with no args clears)
neighbours(i)            agent i's neighbourhood now: {"index", "neighbours" (others, ascending),
                         "size" (count incl. self), "mean_heading", "turn_to", "kick", "radius"};
                         i becomes the followed arrow (the spoken summary names it), as the
                         page asks for the followed arrow's neighbourhood every frame
check_start(mode="batched"|"serial")   begin the eight-seed check (runs in chunks)
check_advance(updates)   do that many units of work -> {"progress": 0..1, "done"}
check_result()           the CLI --json shape: {"seeds": [...8], "mean": {...}, "range": {...}}
rules_source(), rules(code), rules_original()
                         the turn rule in Python (sessions/base.py, rules.py): show
                         rules_vicsek.turn, swap in a student's version at the next update (tried
                         once first), go back to the original; a marker on the P chart each time.
                         The eight-seed check always runs the original rule.
snapshot(), restore(snapshot)
                         the live run as JSON, exact to the bit (the kick stream is re-positioned
                         at the snapshot's update)
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from .. import cells, describe, detmath, metrics, rules, rules_vicsek, vicsek
from ..params import ParamSpec, Readout, defaults, spec_named, validate
from ..space import displacement, distance, wrap, wrap_angle
from .base import FrameLayout, Session

LIVE_SEED = vicsek.LIVE_SEED
# How fast the stage plays: the page's "Updates per second" control.  A viewing speed only (the
# model and its history are the same at any rate); written here because the session counts
# seconds of watching in updates at its default (the marker merging below, the description's
# trend window).
RATE = ParamSpec("rate", 6, "Updates per second", kind="int", min=1, max=30, step=1, unit="/ s",
                 help="How fast the stage plays. It changes only the viewing speed, not the model.")
# A knob dragged through many values within this many updates (about one second at the
# default rate) is one change: one marker, labelled with the final value.
MERGE_MARKER_UPDATES = RATE.default
# The spoken description's chart trend: the last 10 s of watching at the default rate.
TREND_UPDATES = 10 * RATE.default
# P's words, written once: the readout, the plot and the history (its table and CSV) take them
P_SERIES = metrics.Series("P", metrics.P_SHARED_HEADING, "0 to 1")
READOUTS = (
    Readout("P", P_SERIES.label),
    Readout("t", "update", decimals=0),
)
# The P plot beside the stage: the history's last CHART_WINDOW updates, the level of random
# headings dashed.  Its words and window are published by display(); colours are the page's.
# "level": the dashed line's short label on the plot, the constant (op_layout's constants) that
# gives its value and its decimals (ui/chart.js levelOf writes "random ≈ 0.11").
CHART_WINDOW = 600  # updates shown
CHARTS = (
    {"id": "P", "title": f"P over the last {CHART_WINDOW} updates", "window": CHART_WINDOW,
     "x_label": READOUTS[1].label, "axes": {"left": P_SERIES.name},
     "series": [{"key": "P", "label": READOUTS[0].label, "axis": "left"}],
     "baseline": "about where P sits when headings are random",
     "level": {"label": "random", "constant": "baseline", "decimals": 2}},
)

_CHECK_SPECS = (
    ParamSpec("updates", 1, "Updates", kind="int", min=1, max=1_000_000, step=1),
    ParamSpec("mode", "batched", "Mode", kind="choice", choices=("batched", "serial")),
    ParamSpec("warmup", vicsek.CHECK_WARMUP, "Warm-up", kind="int", min=0, max=100_000, step=1),
    ParamSpec("measure", vicsek.CHECK_MEASURE, "Measured", kind="int", min=1, max=100_000, step=1),
)
_POINT_SPECS = (
    ParamSpec("x", 0.5, "x", min=-1e6, max=1e6),
    ParamSpec("y", 0.5, "y", min=-1e6, max=1e6),
    ParamSpec("index", 0, "Agent", kind="int", min=0, max=vicsek.TEACHING.n - 1, step=1, identifier=True),
)


class VicsekSession(Session):
    lab = "vicsek"
    MAX_STEPS_PER_CALL = 10_000
    RULES = rules_vicsek.KIND
    FRAME = FrameLayout(header=("n", "t"), fields=("x", "y", "theta"), blocks=2)
    # the model's knob "align" (its label, range and default), called a on the page
    SPECS = (
        replace(spec_named(vicsek.GENERAL_SPECS, "align"), name="a",
                help="How far each arrow turns towards its neighbours' mean heading per update: "
                     "0 = random nudges only, 1 = Vicsek's rule."),
    )

    def __init__(self):
        self.params = vicsek.TEACHING
        self.values = defaults(self.SPECS)
        self._check: vicsek.CheckRun | None = None
        self.selected: int | None = None
        self._pairs_key: tuple | None = None  # (state, params) of the pairs in self._pairs (_live_pairs)
        self._pairs = None
        self.op_reset()

    # --- live model ----------------------------------------------------------------
    def op_reset(self, **params: Any) -> dict:
        new = dict(self.values)
        for name, value in params.items():  # validate everything before touching state
            new[name] = validate(self.SPECS, name, value)
        self.values = new
        self.ens = vicsek.Ensemble([(LIVE_SEED, self.values["a"])], self.params)
        self.ens.fallback = True  # a failing rule: the page says so, and the stage goes on
        # the arrow the page follows from the start (constants): nearest the middle at update 0
        self.follow = vicsek.central_agent(self.ens.state.x[0], self.params.space)
        self.ens.turn = self.rule  # a student's rule stays in use across a restart
        self.prev = self.ens.state
        self._new_history()
        return self.op_state()

    def _new_history(self) -> None:
        # one sample per update, kept to metrics.HISTORY_CAPACITY (halved in density when full)
        self.history = metrics.History((P_SERIES,), tick_seconds=1.0, interval=1, time_label="update")
        self.history.record(self.ens.t, {"P": float(self.ens.order[0])})

    def op_set(self, name: str, value: Any) -> dict:
        """A live change (no restart); a change of value leaves a marker on the P chart."""
        v = validate(self.SPECS, name, value)
        changed = v != self.values[name]
        self.values[name] = v
        if name == "a":
            self.ens.align[:] = v
        if changed:
            self.history.mark(self.ens.t, spec_named(self.SPECS, name).marker(v), key=name,
                              merge_ticks=MERGE_MARKER_UPDATES)
        return {"name": name, "value": v, "changed": changed}

    def op_step(self, n: int = 1) -> dict:
        n = self._step_count(n)
        t0 = time.perf_counter()
        for _ in range(n):
            self.prev = self.ens.state
            p = self.ens.step(self._searched_pairs())  # the state the page read: searched once
            if self.ens.failure is not None:  # the student's rule failed; the original took that update
                exc, self.ens.failure = self.ens.failure, None
                self.history.record(self.ens.t, {"P": float(p[0])})
                self._rule_failed(exc)
                continue
            self.history.record(self.ens.t, {"P": float(p[0])})
        ms = (time.perf_counter() - t0) * 1000.0 / max(n, 1)
        return {"t": self.ens.t, "P": float(self.ens.order[0]), "ms_per_step": round(ms, 3),
                "rules": self.rules_status()}

    # --- rules in Python (the protocol is in sessions/base.py) -------------------------
    def _rule_trial(self, rule: rules.Rule) -> float:
        x, theta = self.ens.state.x[0], self.ens.state.theta[0]
        p = self.params
        i, j, d, r = vicsek.neighbourhoods(cells.neighbour_pairs(x, p.space, p.radius), p.n)
        t0 = time.perf_counter()
        rule(i, j, d, r, theta, np.full(p.n, float(self.ens.align[0])), np.zeros(p.n))
        return (time.perf_counter() - t0) * 1000.0

    def _rule_install(self, rule: rules.Rule | None) -> None:
        self.ens.turn = rule

    def _rule_mark(self, label: str) -> None:
        self.history.mark(self.ens.t, label)

    # --- the live run as JSON -------------------------------------------------------------
    def op_snapshot(self) -> dict:
        """Everything needed to carry on exactly from here (floats survive JSON exactly)."""
        st, prev = self.ens.state, self.prev
        return {"lab": self.lab, "t": st.t, "x": st.x[0].tolist(), "theta": st.theta[0].tolist(),
                "prev_x": prev.x[0].tolist(), "prev_theta": prev.theta[0].tolist(),
                "values": dict(self.values)}

    def op_restore(self, snapshot: Any) -> dict:
        """Carry on from a :meth:`op_snapshot`: the seed's kick stream is drawn up to the
        snapshot's update, so the kicks that follow are the ones the run would have had."""
        if not isinstance(snapshot, dict) or snapshot.get("lab") != self.lab:
            raise ValueError("restore needs a snapshot of this lab")
        n = self.params.n
        try:
            t = int(snapshot["t"])
            a = validate(self.SPECS, "a", snapshot["values"]["a"])
            arrays = [np.array(snapshot[k], dtype=np.float64) for k in ("x", "theta", "prev_x", "prev_theta")]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"restore: the snapshot is incomplete ({exc})") from None
        shapes = [a_.shape for a_ in arrays]
        if (shapes != [(n, 2), (n,), (n, 2), (n,)] or not all(np.isfinite(a_).all() for a_ in arrays)
                or not 0 <= t <= 10_000_000):
            raise ValueError("restore: the snapshot's arrays do not fit this lab")
        self.values["a"] = a
        ens = vicsek.Ensemble([(LIVE_SEED, a)], self.params)
        x, theta, px, pth = arrays
        ens.resume(vicsek.VicsekState(x[None], theta[None], t))
        ens.turn, ens.fallback = self.rule, True
        self.ens, self.prev = ens, vicsek.VicsekState(px[None], pth[None], t - 1)
        self._new_history()
        self._rule_mark("restarted from the last good update")
        return self.op_state()

    def op_metrics(self) -> dict:
        return {"t": self.ens.t, "P": float(self.ens.order[0])}

    def _live_pairs(self) -> cells.Pairs:
        """The stage's neighbour pairs in its current state: searched once per state and
        parameters (the page reads the followed arrow's neighbourhood every frame, paused or
        not, and Describe reads the groups), then reduced as each reader needs; the next
        update takes them too (:meth:`op_step`)."""
        pairs = self._searched_pairs()
        if pairs is None:
            pairs = cells.neighbour_pairs(self.ens.state.x[0], self.params.space, self.params.radius)
            self._pairs = pairs
            self._pairs_key = (self.ens.state, self.params)  # (holds the state: its id cannot be reused meanwhile)
        return pairs

    def _searched_pairs(self) -> cells.Pairs | None:
        """:meth:`_live_pairs` if a reader already searched the current state, else None (the
        update then searches it)."""
        key = (self.ens.state, self.params)
        if self._pairs_key is not None and all(a is b for a, b in zip(self._pairs_key, key)):
            return self._pairs
        return None

    def summary(self) -> dict:
        """The spoken summary (``describe.vicsek``) of the stage's run, its followed arrow, and
        the chart's trend over TREND_UPDATES."""
        p, ens = self.params, self.ens
        x, theta = ens.state.x[0], ens.state.theta[0]
        pairs = self._live_pairs()
        sel = self.selected
        return describe.vicsek(
            x, theta, pairs, float(ens.order[0]), float(ens.align[0]), int(ens.t),
            selected=None if sel is None else sel + 1,
            neighbours=None if sel is None else int(np.count_nonzero(pairs.i == sel)),
            history=self.history, baseline=self.constants()["baseline"], window=TREND_UPDATES)

    def display(self) -> dict:
        """The readouts (``params.Readout``), the P plot's words and window (``CHARTS``) and the
        stage's playback rate control (``RATE``)."""
        return {"readouts": [r.to_json() for r in READOUTS], "charts": [dict(c) for c in CHARTS],
                "rate": RATE.to_json()}

    def op_state(self) -> dict:
        p = self.params
        return {
            "lab": self.lab,
            "t": self.ens.t,
            "n": p.n,
            "box": p.box,
            "radius": p.radius,
            "speed": p.speed,
            "kick": p.kick,
            "seed": LIVE_SEED,
            "params": dict(self.values),
            "P": float(self.ens.order[0]),
            "selected": self.selected,
        }

    def constants(self) -> dict:
        p = self.params
        return {"dt": 1, "n": p.n, "box": p.box, "radius": p.radius, "speed": p.speed,
                "eta": p.eta, "kick": p.kick, "seed": LIVE_SEED, "seeds": list(vicsek.CHECK_SEEDS),
                "baseline": metrics.random_polarization(p.n),  # P of random headings
                "warmup": vicsek.CHECK_WARMUP, "measure": vicsek.CHECK_MEASURE,
                "p_elsewhere": metrics.P_WHOLE_GROUP,  # the Swarm Lab's name for P
                "follow": self.follow}  # the live seed's arrow nearest the middle at update 0

    def frame(self) -> np.ndarray:
        box = self.params.space
        x = self.ens.state.x[0]
        th = self.ens.state.theta[0]
        px = x + displacement(x, self.prev.x[0], box)  # previous position next to the current one
        now = np.column_stack([x, th])
        before = np.column_stack([px, self.prev.theta[0]])
        head = np.array([x.shape[0], self.ens.t], dtype=np.float64)
        return np.concatenate([head, now.ravel(), before.ravel()]).astype(np.float32)

    # --- selection ---------------------------------------------------------------------
    def op_select(self, x: Any = None, y: Any = None, index: Any = None) -> dict:
        if index is not None:
            i = validate(_POINT_SPECS, "index", index)
            self.selected = i
            return {"index": i, "distance": None}
        if x is None and y is None:
            self.selected = None
            return {"index": None, "distance": None}
        if x is None or y is None:
            raise ValueError("select needs both x and y (model units)")
        px = validate(_POINT_SPECS, "x", x)
        py = validate(_POINT_SPECS, "y", y)
        box = self.params.space
        point = wrap(np.array([px, py]), box)
        d = distance(self.ens.state.x[0], point[None, :], box)
        i = int(np.argmin(d))  # ties: the smaller index
        self.selected = i
        return {"index": i, "distance": float(d[i])}

    def op_neighbours(self, i: Any) -> dict:
        i = validate(_POINT_SPECS, "index", i)
        self.selected = i
        p = self.params
        th = self.ens.state.theta[0]
        # The whole flock's sums, on purpose: the update's own reduction in its canonical order
        # (heading_sums), so the mean heading shown is the model's to the bit (64 agents: cheap).
        pairs = self._live_pairs()
        mine = np.sort(pairs.j[pairs.i == i])
        s, c = detmath.sincos(th)
        sx, sy = vicsek.heading_sums(pairs, c, s)
        cancel = sx[i] == 0.0 and sy[i] == 0.0
        mean = None if cancel else float(detmath.atan2(sy[i], sx[i]))
        a = float(self.ens.align[0])
        delta = 0.0 if cancel else float(wrap_angle(mean - th[i]))
        turn_to = float(wrap_angle(th[i] + a * delta))
        # While a student's rule runs, the aim and the kick wedge would be the original rule's,
        # not what the arrows do: none is given (calling the student's rule again here could
        # change a rule that keeps state, and so the run).
        own = self.ens.turn is None
        return {
            "index": i,
            "neighbours": [int(j) for j in mine],
            "size": int(mine.size) + 1,
            "mean_heading": mean,
            "turn_to": turn_to if own else None,  # heading before the next kick; the wedge is turn_to +- kick
            "kick": p.kick,
            "radius": p.radius,
        }

    # --- the eight-seed check, in chunks ----------------------------------------------
    def op_check_start(self, mode: str = "batched", warmup: Any = None, measure: Any = None) -> dict:
        mode = validate(_CHECK_SPECS, "mode", mode)
        w = vicsek.CHECK_WARMUP if warmup is None else validate(_CHECK_SPECS, "warmup", warmup)
        m = vicsek.CHECK_MEASURE if measure is None else validate(_CHECK_SPECS, "measure", measure)
        self._check = vicsek.CheckRun(mode, warmup=w, measure=m)
        return {"progress": 0.0, "done": False, "mode": mode, "total": self._check.total}

    def op_check_advance(self, updates: Any = 1) -> dict:
        n = validate(_CHECK_SPECS, "updates", updates)
        if self._check is None:
            raise ValueError("no check running: call check_start first")
        self._check.advance(n)
        return {"progress": self._check.progress, "done": self._check.done}

    def op_check_result(self) -> dict:
        if self._check is None:
            raise ValueError("no check running: call check_start first")
        out = self._check.result()  # ValueError while unfinished
        out["shown"] = vicsek.check_shown(out)  # its numbers as the page writes them
        return out


def make_session() -> VicsekSession:
    return VicsekSession()


__all__ = ["VicsekSession", "make_session", "LIVE_SEED"]
