"""Lab 1 session ("Swarm Lab"): the object the browser bridge drives.

Every op reads and returns JSON-able values; a ``ValueError`` (bad input)
leaves the session unchanged and reaches JavaScript as ``{"error": msg}``.
Model time advances only in :meth:`SwarmSession.op_step`, in whole steps of
1/60 s, so playback speed and frame rate never change results: the page asks
for however many steps its speed setting wants per animation frame.

One neighbour search per model state: the session caches the
:class:`~swarmlab.swarm.Neighbourhood` and :class:`~swarmlab.swarm.Steering` of
the current state under the current parameters; the next step, the metrics and
the selected-individual panel all read that one cache.  Any change of state or
parameters drops it.

Frame layout (``frame()``, float32, flat)
-----------------------------------------
Header, ``HEADER = 8`` floats:

====  =====================================================================
 [0]  N, number of agents
 [1]  t, model time in seconds
 [2]  threat active (1.0) or not (0.0)
 [3]  threat x (model lengths; 0 when inactive)
 [4]  threat y
 [5]  selected agent index, -1 if none
 [6]  obstacle code: 0 none, 1 circle, 2 passage
 [7]  paused at the five-minute limit (1.0) or not (0.0)
====  =====================================================================

then N records of ``STRIDE = 3`` floats: ``x, y, theta`` (lengths, lengths,
radians counter-clockwise from +x; y is "up" in the model frame).  Records are
in index order, which is stable-ID order: an agent keeps its index for its
whole life (new agents are appended, removal takes the newest), so the page can
key its trails on the index.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import describe, metrics, obstacles, swarm
from ..params import Group, ParamSpec, Readout, as_int, defaults, shown, validate, validate_many
from ..space import distance
from .base import FrameLayout, Session

FRAME = FrameLayout(
    header=("n", "t", "threat_on", "threat_x", "threat_y", "selected", "obstacle", "at_limit"),
    fields=("x", "y", "theta"),
)
HEADER = len(FRAME.header)
STRIDE = len(FRAME.fields)
SELECT_RADIUS = 4.0  # lengths: a click selects the nearest agent within this distance
SELECT_RADIUS_MAX = 50.0  # lengths: the largest radius select() accepts (a tap on a small stage)
# op_population's change "by": at most the whole range of N either way.
_BY_SPEC = (ParamSpec("by", 0, "animals", kind="int", min=-swarm.SPEC_BY_NAME["N"].max,
                      max=swarm.SPEC_BY_NAME["N"].max),)
# Markers of a slider (weights, R, k, v, sigma, population) changed again within this many
# steps (0.5 model s) merge into one: dragging a slider sends every intermediate value.
MERGE_MARKER_STEPS = 30
MERGEABLE = ("w_s", "w_a", "w_c", "R", "k", "v", "sigma", "N")


# --- what the page shows beside the specs (published by op_layout()["display"]) ------------
GROUPS = (
    Group("rules", "Social rules"),
    Group("perception", "Neighbours", advanced=True),
    Group("motion", "Motion", advanced=True),
    Group("world", "Population and world"),
    Group("display", "Appearance"),
    Group("run", "Run, sample and sharing"),
)
# The readouts' and the charts' words are the history's (swarm.HISTORY_SERIES), written once.
_SERIES = {s.name: s for s in swarm.HISTORY_SERIES}
READOUTS = (
    Readout("P", _SERIES["P"].label),
    Readout("local", _SERIES["local"].label),
    Readout("spacing", _SERIES["spacing"].label, unit=_SERIES["spacing"].unit, decimals=2),
    Readout("very_close", _SERIES["very_close"].label, unit="%", decimals=1, scale=100.0),
    Readout("milling", _SERIES["milling"].label),
    Readout("N", _SERIES["N"].label, decimals=0),
)
# The two charts (agreement, spacing): titles, axis labels, and each series' label ("short" in
# the compact live strip beside the stage) and the axis it is read on.  Colours and dashes are
# drawing, chosen by the page.
CHARTS = (
    {"id": "agree", "title": "Agreement", "x_label": "model time",
     "axes": {"left": "agreement (0–1)"},
     "series": [{"key": "P", "label": f"{_SERIES['P'].label} (solid)", "short": "P", "axis": "left"},
                {"key": "local", "label": f"{_SERIES['local'].label} (dashed)", "short": "local", "axis": "left"}]},
    {"id": "space", "title": "Spacing", "x_label": "model time",
     "axes": {"left": "lengths", "right": "share of animals (%)"},
     "series": [{"key": "spacing", "label": f"{_SERIES['spacing'].label} ({_SERIES['spacing'].unit})",
                 "short": f"spacing ({_SERIES['spacing'].unit})", "axis": "left"},
                {"key": "very_close", "label": _SERIES["very_close"].label,
                 "short": f"< {swarm.VERY_CLOSE:g} (%)", "axis": "right"}]},
)

# The steering urges as the "What can I sense?" panel names them, one row each, in the engine's
# order (swarm.Steering.NAMES, the keys of op_selected's "vectors").  Arrow styles are drawing.
URGE_LABELS = {"separation": "space", "alignment": "alignment", "cohesion": "cohesion",
               "obstacle": "obstacle", "threat": "threat"}


class SwarmSession(Session):
    """Lab 1 session.  Created with the defaults and already reset."""

    lab = "swarm"
    MAX_STEPS_PER_CALL = 6_000
    FRAME = FRAME
    SPECS = swarm.SPECS

    def __init__(self, **params: Any):
        self.values: dict = defaults(self.SPECS)
        self.selected_id: int | None = None
        self.trial: str | None = None
        self.history = swarm.new_history()
        self.op_reset(**params)

    # --- internal helpers -------------------------------------------------------------------
    @property
    def params(self) -> swarm.SwarmParams:
        return self._p

    def _invalidate(self) -> None:
        self._nb = None
        self._steer = None

    def _neighbourhood(self) -> swarm.Neighbourhood:
        if self._nb is None:
            self._nb = swarm.find_neighbours(self.state, self._p)
        return self._nb

    def _steering(self) -> swarm.Steering:
        if self._steer is None:
            self._steer = swarm.steering(self.state, self._p, self._neighbourhood())
        return self._steer

    def _selected_index(self) -> int | None:
        return None if self.selected_id is None else self.state.index_of(self.selected_id)

    def _ensure_selected(self) -> int:
        """Index of the selected agent; selects the lowest ID if none is selected."""
        idx = self._selected_index()
        if idx is None:
            if self.state.n == 0:
                raise ValueError("there are no agents")
            idx = 0
            self.selected_id = int(self.state.ids[0])
        return idx

    def _record(self) -> None:
        if self.history.due(self.state.step):
            self.history.record(self.state.step, swarm.measure(self.state, self._neighbourhood()))

    def record_end(self) -> None:
        """Record the state now as the history's last sample, even between two sampling ticks:
        a headless run's CSV and summary end where the run did (``History.record(last=True)``)."""
        self.history.record(self.state.step, swarm.measure(self.state, self._neighbourhood()), last=True)

    def _mark(self, label: str, key: str | None = None) -> None:
        merge = MERGE_MARKER_STEPS if key in MERGEABLE else 0
        self.history.mark(self.state.step, label, key=key if merge else None, merge_ticks=merge)

    # --- ops ----------------------------------------------------------------------------------
    def op_reset(self, **params: Any) -> dict:
        """Restart with the current values updated by ``params`` (all validated first).

        Inside a trial the new run is still the trial's while its values include all of
        the trial's own settings; after e.g. the passage was removed it is no trial's run
        (``state.trial`` is None), and the page's banner and link follow.  A trial is
        started by :meth:`op_start_trial`.
        """
        new = dict(self.values)
        new.update(validate_many(self.SPECS, params))
        keep = self._trial_held_by(new)
        self._restart(new)
        self.trial = keep
        return self.op_state()

    def _restart(self, values: dict) -> None:
        p = swarm.SwarmParams(**values)
        self.values = dict(values)
        self.run_values = {name: values[name] for name in swarm.RESTART_ONLY}
        self._p = p
        self.state = swarm.initial_state(p)
        self._invalidate()
        self.history.clear()
        self.at_limit = False
        self.continued = False
        self.trial = None
        if self._selected_index() is None:
            self.selected_id = None
        self._record()

    def op_start_trial(self, trial: str, **given: Any) -> dict:
        """Start a trial's run: the defaults, the trial's own settings, then ``given`` (a trial
        link's other settings) except any that contradict the trial (``Trial.start_values``).
        The reply is the state with ``trial_info`` and, when something was left out,
        ``left_out``: a sentence that says what and why."""
        if not isinstance(trial, str):
            raise ValueError(f"trial must be a trial's name, got {shown(trial)}")
        tr = swarm.trial(trial)
        values, left_out = tr.start_values(given)
        self._restart(values)
        self.trial = tr.id
        out = self.op_state()
        out["trial_info"] = tr.to_json()
        if left_out:
            words = ", ".join(f"“{swarm.SPEC_BY_NAME[k].marker(v)}”" for k, v in left_out.items())
            out["left_out"] = (f"The trial “{tr.title}” begins with {tr.settings_text}, so {words} "
                               f"{'was' if len(left_out) == 1 else 'were'} left out.")
        return out

    def op_restart_trial(self, trial: str) -> dict:
        """Start a trial's run again from its card: :meth:`op_start_trial`, keeping this run's
        sample and appearance."""
        return self.op_start_trial(trial, sample=self.values["sample"], appearance=self.values["appearance"])

    def op_trials(self) -> list:
        """The trials table (id, title, question, try_next, settings)."""
        return [t.to_json() for t in swarm.TRIALS]

    def op_set(self, name: str, value: Any) -> dict:
        """One live change.  Never moves an agent, except that a new obstacle displaces
        agents inside it and population changes add or remove agents.  Adds a chart marker.
        (Which trial a restart keeps, or a link names, follows from the values: op_reset,
        op_link.)
        """
        return self._set(name, value)

    def _obstacle_words(self) -> str | None:
        """The obstacle as its control names it ("a narrow passage"), None for none."""
        value = self.values["obstacle"]
        return None if value == "none" else swarm.SPEC_BY_NAME["obstacle"].choice_label(value)

    def _trial_held_by(self, values: dict) -> str | None:
        """The running trial while ``values`` still include its own settings, else None."""
        if self.trial and swarm.TRIALS_BY_ID[self.trial].holds(values):
            return self.trial
        return None

    def link_values(self) -> dict:
        """The live settings, with this run's own sample and start (``run_values``): a link
        replays this run from its start, whatever the controls say for the next restart."""
        return {**self.values, **self.run_values}

    def link_extra(self) -> dict:
        """The trial the link names, only while its values still hold it (so a link never
        carries settings that contradict its trial)."""
        trial = self._trial_held_by(self.link_values())
        return {"trial": trial} if trial else {}

    def _set(self, name: str, value: Any) -> dict:
        v = validate(self.SPECS, name, value)
        out = {"name": name, "value": v, "changed": v != self.values[name]}
        if not out["changed"]:
            return out
        if name == "N":
            out.update(self.op_population(v))
            return out
        self.values[name] = v
        self._p = swarm.SwarmParams(**self.values)
        if name in swarm.RESTART_ONLY:
            out["applies"] = "restart"
            out["notice"] = swarm.SPEC_BY_NAME[name].restart_notice(v)
            return out
        if name in swarm.DRAWING_ONLY:
            out["applies"] = "drawing"
            return out
        self._invalidate()
        label = swarm.SPEC_BY_NAME[name].marker(v)
        if name == "obstacle":
            self.state, moved = swarm.place_obstacle(self.state, v)
            out["moved"] = moved.tolist()
            if moved.size:
                label += f" ({moved.size} moved out)"
        self._mark(label, key=name)
        out["applies"] = "now"
        return out

    def op_population(self, n: int | None = None, by: int | None = None) -> dict:
        """Add agents (scattered, reproducible) or remove the most recently added, to reach
        ``n``; or change the population ``by`` that many, kept within N's range (the page's
        "Add 10" / "Remove 10": the worker takes requests in order, so quick presses add up)."""
        before = self.state.n
        if (n is None) == (by is None):
            raise ValueError("population needs either n (the new number of animals) or by (how many to add)")
        if by is not None:
            spec = swarm.SPEC_BY_NAME["N"]
            by = validate(_BY_SPEC, "by", by)
            n = min(max(before + by, spec.min), spec.max)
        n = validate(self.SPECS, "N", n)
        if n == before:
            return {"N": n, "added": 0, "removed": 0}
        self.state = swarm.set_population(self.state, n, self.values["obstacle"])
        self.values["N"] = n
        self._p = swarm.SwarmParams(**self.values)
        self._invalidate()
        if self._selected_index() is None:
            self.selected_id = None
        self._mark(swarm.SPEC_BY_NAME["N"].marker(n), key="N")
        return {"N": n, "added": max(n - before, 0), "removed": max(before - n, 0)}

    def op_step(self, n: int = 1) -> dict:
        """Advance n whole steps (stops at the five-minute limit until :meth:`op_continue`)."""
        n = self._step_count(n)
        done = 0
        for _ in range(int(n)):
            if not self.continued and self.state.step >= swarm.TIME_LIMIT_STEPS:
                self.at_limit = True
                break
            self.state = swarm.step(self.state, self._p, self._neighbourhood(), self._steering())
            self._invalidate()
            self._record()
            done += 1
        if not self.continued and self.state.step >= swarm.TIME_LIMIT_STEPS:
            self.at_limit = True
        return {"t": self.state.t, "step": self.state.step, "steps_done": done,
                "paused_at_limit": self.at_limit}

    def op_continue(self) -> dict:
        """Lift the five-minute pause; the run keeps its state and history."""
        self.continued = True
        self.at_limit = False
        return self.op_state()

    def op_turn_one(self) -> dict:
        """Turn the selected agent by +60 deg (selects the lowest ID if none is selected)."""
        idx = self._ensure_selected()
        self.state = swarm.turn_one(self.state, idx)
        self._invalidate()
        self._mark(f"turned one (individual {self.selected_id + 1})")
        return {"index": idx, "id": self.selected_id, "theta": float(self.state.theta[idx])}

    def op_threat(self) -> dict:
        """Send a threat past the selected agent (selects the lowest ID if none is selected)."""
        idx = self._ensure_selected()
        self.state = swarm.start_threat(self.state, idx)
        self._invalidate()
        self._mark("threat")
        pos = swarm.threat_position(self.state)
        return {"index": idx, "id": self.selected_id, "x": float(pos[0]), "y": float(pos[1]),
                "seconds": swarm.THREAT_STEPS * swarm.DT}

    def op_select(self, x: float | None = None, y: float | None = None, index: int | None = None,
                  radius: float = SELECT_RADIUS, by: int | None = None) -> dict:
        """Select by model point (nearest agent within ``radius`` lengths, periodic), by index,
        or ``by`` places from the selected agent (wrapping round; from none selected, +1 is
        the first and -1 the last): each quick press of "next" counts, since it moves from
        the selection the engine has at that moment, not from the one last drawn.

        No argument clears the selection.  Returns {"index", "id"} (both None if nothing selected).
        """
        if by is not None:
            if x is not None or y is not None or index is not None:
                raise ValueError("select: give by, or index, or x and y, not several")
            step = as_int(by) if isinstance(by, (int, float)) else None
            if step is None or step == 0 or abs(step) > swarm.SPEC_BY_NAME["N"].max:
                raise ValueError(f"select: by must be a whole number of places other than 0, got {shown(by)}")
            n = self.state.n
            if n:
                cur = self._selected_index()
                start = (-1 if step > 0 else 0) if cur is None else cur
                self.selected_id = int(self.state.ids[(start + step) % n])
        elif index is not None:
            i = as_int(index) if isinstance(index, (int, float)) else None
            if i is None or not 0 <= i < self.state.n:
                raise ValueError(f"select: index must be a whole number in [0, {self.state.n - 1}], got {shown(index)}")
            self.selected_id = int(self.state.ids[i])
        elif x is not None and y is not None:
            try:
                pt = np.array([float(x), float(y)])
            except (TypeError, ValueError, OverflowError):
                raise ValueError(f"select: x and y must be numbers, got {shown(x)}, {shown(y)}") from None
            if not np.all(np.isfinite(pt)):
                raise ValueError("select: x and y must be finite")
            if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not 0 < radius <= SELECT_RADIUS_MAX:
                raise ValueError(f"select: radius must be a number in (0, {SELECT_RADIUS_MAX:g}] lengths, got {shown(radius)}")
            self.selected_id = None
            if self.state.n:
                dist = distance(pt[None, :], self.state.x, swarm.BOX)
                k = int(np.argmin(dist))
                if dist[k] <= radius:
                    self.selected_id = int(self.state.ids[k])
        else:
            self.selected_id = None
        idx = self._selected_index()
        return {"index": idx, "id": self.selected_id}

    def op_selected(self) -> dict | None:
        """Panel data for the selected agent (None if nothing is selected); see swarm.agent_view."""
        idx = self._selected_index()
        if idx is None:
            return None
        return swarm.agent_view(self.state, self._p, self._neighbourhood(), self._steering(), idx)

    def op_metrics(self) -> dict:
        """Current metric values (under the current settings, even before anything moves)."""
        out = swarm.measure(self.state, self._neighbourhood())
        out["t"] = self.state.t
        return out

    def summary(self) -> dict:
        """The spoken summary (``describe.swarm``): the state, its trial, threat and obstacle."""
        s = self.state
        return describe.swarm(
            s.n, s.u, self._neighbourhood().personal, self.op_metrics(),
            threat=swarm.threat_position(s) is not None, obstacle=self._obstacle_words(),
            at_limit=self.at_limit, trial=swarm.trial(self.trial).title if self.trial else None,
            selected=None if self._selected_index() is None else self.selected_id + 1,
            history=self.history, very_close=swarm.VERY_CLOSE,
            limit_minutes=swarm.TIME_LIMIT_SECONDS / 60.0)

    def op_state(self) -> dict:
        s = self.state
        return {
            "lab": self.lab,
            "t": s.t,
            "step": s.step,
            "N": s.n,
            "sample": s.sample,
            "params": dict(self.values),
            # the settings this run started with that apply only at a restart (sample, start):
            # what a link that replays this run carries, whatever the controls now say
            "run_values": dict(self.run_values),
            "selected": self.selected_id,
            "selected_index": self._selected_index(),
            "threat_active": swarm.threat_position(s) is not None,
            "paused_at_limit": self.at_limit,
            "continued": self.continued,
            "trial": self.trial,
            "fallbacks": s.fallbacks,
        }

    def constants(self) -> dict:
        return {
            "dt": swarm.DT,
            "world": [swarm.BOX.width, swarm.BOX.height],
            "personal": swarm.PERSONAL,
            "threat_radius": swarm.THREAT_RADIUS,
            "time_limit_s": swarm.TIME_LIMIT_SECONDS,
            "p_elsewhere": metrics.P_SHARED_HEADING,  # the other labs' name for P
            "obstacles": {name: [list(c) for c in discs] for name, discs in obstacles.OBSTACLES.items()},
            "obstacle_codes": dict(swarm.OBSTACLE_CODES),
            # quoted by the page's explanation (labs/swarm/explain.js)
            "fov_deg": swarm.FOV_DEG,
            "response_time": swarm.RESPONSE_TIME,
            "max_turn": swarm.MAX_TURN,
            "turn_one_deg": round(math.degrees(swarm.TURN_ONE), 9),
            "threat_strength": swarm.THREAT_STRENGTH,
            "threat_seconds": swarm.THREAT_STEPS * swarm.DT,
            "obstacle_lookahead": obstacles.LOOKAHEAD,
            "obstacle_band": obstacles.BAND,
            "obstacle_strength": obstacles.STRENGTH,
            "obstacle_margin": obstacles.FALLBACK_MARGIN,
            "passage_gap": obstacles.PASSAGE_GAP,  # lengths between the passage's two walls
            "very_close": swarm.VERY_CLOSE,
            "sample_seconds": swarm.SAMPLE_INTERVAL_STEPS * swarm.DT,
            "history_capacity": swarm.HISTORY_CAPACITY,
            "select_radius": SELECT_RADIUS,
            "select_radius_max": SELECT_RADIUS_MAX,
            # the P of random headings, ``random_p_coefficient / sqrt(N)``, and at the default N
            "random_p_coefficient": metrics.RANDOM_P_COEFFICIENT,
            "n_default": swarm.SPEC_BY_NAME["N"].default,
            "random_p_default": metrics.random_polarization(swarm.SPEC_BY_NAME["N"].default),
        }

    def display(self) -> dict:
        return {"groups": [g.to_json() for g in GROUPS],
                "readouts": [r.to_json() for r in READOUTS],
                "charts": [dict(c) for c in CHARTS],
                "urges": [{"key": k, "label": URGE_LABELS[k]} for k in swarm.Steering.NAMES]}

    # --- frame --------------------------------------------------------------------------------
    def frame(self) -> np.ndarray:
        s = self.state
        out = np.empty(HEADER + STRIDE * s.n, dtype=np.float32)
        tp = swarm.threat_position(s)
        idx = self._selected_index()
        out[:HEADER] = (
            s.n, s.t,
            0.0 if tp is None else 1.0,
            0.0 if tp is None else tp[0],
            0.0 if tp is None else tp[1],
            -1 if idx is None else idx,
            swarm.OBSTACLE_CODES[self.values["obstacle"]],
            1.0 if self.at_limit else 0.0,
        )
        body = out[HEADER:].reshape(s.n, STRIDE)
        body[:, 0:2] = s.x
        body[:, 2] = s.theta
        return out


def make_session() -> SwarmSession:
    return SwarmSession()
