"""Lab 3 session ("Three rules"): the object the browser bridge drives.

Ops (JSON in, JSON out through :meth:`Session.call`; every input is validated
first, so a bad value returns ``{"error": ...}`` and changes nothing):

``reset(**params)``     restart from the seeded start.  ``params`` may hold any
                        of the SPECS (weights, population, ranges, view,
                        max_force, speeds, sample) and the world ``width``/``height`` in lengths;
                        the others keep their current values.  The treat is released.
``set(name, value)``    one live change, no restart (time and positions kept):
                        weights, ranges, view, force and speeds apply from the next step; population
                        adds/removes boids; ``sample`` is stored for the next restart.
``preset(name)``        live: "separation" (1.5/0/0), "cohesion" (0/0/1, cohesion range
                        60 lengths, all-round view) or "balanced" (1.5/1/1, the defaults);
                        each also sets the cohesion range and the view (``boids.PRESETS``).
``step(n)``             advance n steps of ``DT`` = 0.025 s (0 <= n <= 4000).
``treat(x, y, on)``     hold (on=true) or release the treat at (x, y) lengths.
``population(n)``       live population change (removes the most recent first).
``resize(width, height)`` live world resize: positions are stretched with it.
``metrics()``           {"P", "spacing", "flocks", "in_flocks", "loners", "N", "t", "where"}.
``scale(n)``            "ten or ten thousand" (:mod:`swarmlab.scaling`): restart with ``n``
                        boids (10..10,000) in a world grown to keep the default density,
                        same aspect; the other settings kept.
``cost(steps)``         time ``steps`` real steps (they advance the run, after an untimed
                        warm-up step) and the naive everyone-checks-everyone search of the
                        same positions (a sample of the boids' checks at large N), in this
                        runtime: {"n", "step_us", "naive_us"} in microseconds per boid, and
                        "settings" (what the costs were measured under).
``state()``             summary: t, steps, N, params, run_values, world, treat, and
                        ``baseline``, the P of N random headings (metrics.random_polarization);
                        the constants and presets are the layout's (``layout()``), sent once.
``rules_source()``, ``rules(code)``, ``rules_original()``
                        the rule function in Python (sessions/base.py, rules.py): show
                        rules_boids.steering, swap in a student's version at the next step
                        (tried once first), go back to the original; a marker each time.
``snapshot()``, ``restore(snapshot)``
                        the whole run as JSON (positions, velocities, ids, time, parameters,
                        treat), exact to the bit; the page keeps one from the last good step
                        while a student's rule runs, to restart from if the engine is stopped.

Frame layout (float32, flat), read by assets/js/labs/boids.js::

    [0] N   [1] t (s)   [2] treat on (0/1)   [3] treat x   [4] treat y
    then per boid k (k = 0..N-1, in id order): [5+4k] x, [6+4k] y, [7+4k] vx, [8+4k] vy
    (published to the page as ``FRAME``, a FrameLayout; the page reads offsets from it)

Positions in lengths inside [0, width) x [0, height); velocities in lengths/s.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from .. import boids, cells, describe, metrics, rules, rules_boids, scaling
from ..params import ParamSpec, Readout, shown, spec_named, validate, validate_many
from ..space import wrap
from .base import FrameLayout, Session

FRAME = FrameLayout(header=("n", "t", "treat_on", "treat_x", "treat_y"), fields=("x", "y", "vx", "vy"))
FRAME_HEADER = len(FRAME.header)
# The chart's history, on the step clock like every lab's: a sample every 10 steps (0.25 s).
HISTORY_SERIES = (
    metrics.Series("P", metrics.P_SHARED_HEADING, "0 to 1"),
    metrics.Series("spacing", "mean nearest spacing", "lengths"),
    metrics.Series("flocks", "flocks", "count"),
)
SAMPLE_INTERVAL_STEPS = 10
MERGE_MARKER_STEPS = 40  # a slider dragged within 1 model s is one marker

# --- what the page shows beside the specs (published by op_layout()["display"]) ------------
# The words of the readouts and the chart are the history's own (HISTORY_SERIES), written once.
_SERIES = {s.name: s for s in HISTORY_SERIES}
READOUTS = (
    Readout("N", "boids", decimals=0),
    Readout("t", "model time", unit="s", decimals=1),
    Readout("P", _SERIES["P"].label, decimals=2),
    Readout("spacing", _SERIES["spacing"].label, unit=_SERIES["spacing"].unit, decimals=1),
    Readout("flocks", _SERIES["flocks"].label, decimals=0),
)
# The chart (P and spacing over time): title, axis labels, each series' label and axis.  Colours are drawing,
# chosen by the page.
CHARTS = (
    {"id": "chart", "title": "Flock measures", "x_label": "model time",
     "axes": {"left": "P", "right": _SERIES["spacing"].unit},
     "series": [{"key": k, "label": _SERIES[k].label, "unit": _SERIES[k].unit, "axis": side}
                for k, side in (("P", "left"), ("spacing", "right"))]},
)


def new_history() -> metrics.History:
    return metrics.History(HISTORY_SERIES, tick_seconds=boids.DT, interval=SAMPLE_INTERVAL_STEPS,
                           time_label="time (s)")  # (capacity: metrics.HISTORY_CAPACITY)


class BoidsSession(Session):
    lab = "boids"
    FRAME = FRAME
    SPECS = boids.SPECS
    RULES = rules_boids.KIND

    def __init__(self) -> None:
        self.params = boids.Params()
        self.run_sample = self.params.sample  # the run's own sample (see _restart)
        self.treat = boids.Treat()
        self.state = boids.initial_state(self.params)
        self.history = new_history()
        # the sky's shape (width / height) as the stage or a restart gave it: the scaling
        # experiment's worlds take it, not their own rounded sizes' (whose shape drifts by a
        # thousandth a size, so the way back missed the flock's own sky: 160.001 x 100)
        self.sky_aspect = self.params.width / self.params.height
        self._measured: tuple | None = None  # (state, params, measures): see _measure
        self._searched: tuple | None = None  # (state, params, pairs): see _search
        # (history, steps, all the measures) of that history's latest sample, for Describe
        self.sampled: tuple[metrics.History, int, dict] | None = None
        self._record()

    def _record(self) -> None:
        if self.history.due(self.state.steps):
            m = self._measure()
            if self.history.record(self.state.steps, m):
                self.sampled = (self.history, self.state.steps, m)

    def _measure(self) -> dict:
        """``boids.measure`` of the current state and settings, searched once per state (the
        history's sample and the page's readouts of the same step share it).  States and
        params are immutable: a new one is a new object."""
        cache = self._measured
        if cache is None or cache[0] is not self.state or cache[1] is not self.params:
            measured = boids.measure(self.state, self.params, self._search())
            cache = self._measured = (self.state, self.params, measured)
        return dict(cache[2])

    def _search(self) -> cells.Pairs:
        """``boids.search`` of the current state and settings, made once: the measurement of a
        sampled state reads it, and the next step of that state takes it (``_run``)."""
        pairs = self._searched_pairs()
        if pairs is None:
            pairs = boids.search(self.state, self.params)
            self._searched = (self.state, self.params, pairs)
        return pairs

    def _searched_pairs(self) -> cells.Pairs | None:
        """The search of the current state if it was made already (else the step makes it)."""
        cache = self._searched
        if cache is not None and cache[0] is self.state and cache[1] is self.params:
            return cache[2]
        return None

    def _mark(self, label: str, key: str | None = None) -> None:
        merge = MERGE_MARKER_STEPS if key is not None else 0
        self.history.mark(self.state.steps, label, key=key, merge_ticks=merge)

    # --- restart and live changes ---------------------------------------------------
    def op_reset(self, **params: Any) -> dict:
        population = params.pop("population", None)
        new = self.params.with_values(**params)  # raises before anything changes
        if population is not None:  # the slider's range, or a size of the scaling experiment
            new = scaling.with_population(new, population)
        self.sky_aspect = new.width / new.height
        return self._restart(new)

    def op_parse_query(self, query: dict) -> dict:
        """Each setting read on its own (the base), then the one pair that must hold together:
        a lowest speed above the highest drops the link's speeds, and only them, with a notice
        (the whole link's settings were thrown away for it).  A population above the slider's
        range is one of the scaling experiment's (a link copied at 10,000 boids, with its grown
        world): kept, as a restart takes it (it was cut to 2,000 in a world five times too big)."""
        query = dict(query) if isinstance(query, dict) else query
        big = _scaled_population(query.get("population")) if isinstance(query, dict) else None
        if big is not None:
            del query["population"]
        out = super().op_parse_query(query)
        values = out["values"]
        if big is not None:
            values["population"] = big
        check = {k: v for k, v in values.items() if k != "population" or big is None}
        try:
            self.params.with_values(**check)
        except ValueError as exc:
            speeds = {k: values.pop(k) for k in ("v_min", "v_max") if k in values}
            if not speeds:  # (no other pair can clash today; the page's reset would say so)
                return out
            given = " and ".join(f"{k}={v:g}" for k, v in speeds.items())
            out["notices"].append(f"ignored {given}: {exc}")
        return out

    def _restart(self, new: boids.Params) -> dict:
        self.params = new
        self.run_sample = new.sample  # the run's own; a sample typed later waits for a restart
        self.treat = boids.Treat()
        self.state = boids.initial_state(new)
        self.history = new_history()
        self._record()
        return self.op_state()

    def op_set(self, name: str, value: Any) -> dict:
        value = validate(self.SPECS, name, value)
        if name == "population":
            return self.op_population(value)
        self.params = self.params.with_values(**{name: value})
        if name != "sample":
            self._mark(spec_named(self.SPECS, name).marker(value), key=name)
        out = self.op_state()
        if name == "sample":
            out["notice"] = spec_named(self.SPECS, name).restart_notice(value)
        return out

    def op_preset(self, name: str) -> dict:
        if not isinstance(name, str) or name not in boids.PRESETS:
            raise ValueError(f"unknown preset {str(name)[:40]!r}; choose one of {', '.join(boids.PRESETS)}")
        self.params = self.params.with_values(**boids.PRESETS[name])
        self._mark(f"preset: {boids.PRESET_WORDS[name]['title']}")
        return self.op_state()

    def op_scale(self, n: Any) -> dict:
        n = validate(scaling.SCALE_SPECS, "n", n)
        width, height = scaling.world_for(n, self.sky_aspect)
        # the population may exceed the slider's range here: the world grows with it
        return self._restart(replace(self.params.with_values(width=width, height=height), population=n))

    def op_cost(self, steps: Any = None) -> dict:
        """``steps`` real steps timed together (without the history's measurements), after
        ``scaling.WARM_UP_STEPS`` untimed ones, and the naive search of the same positions
        repeated until it has run long enough to time: browsers coarsen the clock to 0.1-1 ms,
        so short runs are timed in batches.  In microseconds per boid per step.  Without
        ``steps``, about 20,000 boid-steps (``scaling.timed_steps``).  Each cost is the fastest
        of up to ``scaling.TIMED_ROUNDS`` rounds that share that work, so a busy moment of the
        machine slows one round, not the answer.  Above ``scaling.NAIVE_PAIRS`` pairs the naive
        search times a sample of the boids' checks (``scaling.naive_rows``; every boid's check
        is the same work).  ``settings`` names what the costs depend on besides the size (the
        rules' settings, and whether a student's rule runs), so the page can tell when
        measurements stop being comparable."""
        n = self.state.n
        steps = scaling.timed_steps(n) if steps is None else validate(scaling.COST_SPECS, "steps", steps)
        self._advance(scaling.WARM_UP_STEPS)
        step = min(self._advance(k, reuse=False) / k for k in scaling.rounds(steps))
        box, reach, rows = self.params.box, self.params.reach, scaling.naive_rows(n)
        naive = min(_seconds_per_run(lambda: scaling.everyone_checks_everyone(self.state.x, box, reach, rows),
                                     scaling.MIN_TIMED_SECONDS / scaling.TIMED_ROUNDS,
                                     scaling.MAX_TIMED_RUNS // scaling.TIMED_ROUNDS)
                    for _ in range(scaling.TIMED_ROUNDS))
        return {"n": n, "step_us": step / n * 1e6, "naive_us": naive / rows * 1e6, "settings": self._cost_settings()}

    def _cost_settings(self) -> str:
        """What a step's cost depends on besides the flock's size and sky: every setting but
        the population, the world and the sample, and the rule in use ("name=value ...; rule")."""
        values = asdict(self.params)
        shown = " ".join(f"{k}={values[k]!r}" for k in sorted(values)
                         if k not in ("population", "width", "height", "sample"))
        if self.rule is None:
            return f"{shown}; built-in rules"
        return f"{shown}; your rules {hashlib.sha256(self.rule.code.encode()).hexdigest()[:12]}"

    def op_population(self, n: Any) -> dict:
        n = validate(self.SPECS, "population", n)
        self.state = boids.resize_population(self.state, n, self.params)
        self.params = self.params.with_values(population=n)
        self._mark(f"{n} boids", key="population")
        return self.op_state()

    def op_resize(self, width: Any, height: Any) -> dict:
        size = validate_many(boids.WORLD_SPECS, {"width": width, "height": height})
        old = self.params.box
        new = self.params.with_values(**size)
        self.state = boids.rescale_world(self.state, old, new.box)
        if self.treat.on:
            self.treat = boids.Treat(True, *_wrap_point(self.treat.x * new.width / old.width,
                                                         self.treat.y * new.height / old.height, new))
        self.params = new
        self.sky_aspect = new.width / new.height
        return self.op_state()

    def op_treat(self, x: Any = 0.0, y: Any = 0.0, on: Any = True) -> dict:
        on = _as_bool(on)
        px, py = _finite("x", x), _finite("y", y)
        self.treat = boids.Treat(on, *_wrap_point(px, py, self.params)) if on else boids.Treat(False, self.treat.x, self.treat.y)
        return {"treat": asdict(self.treat)}

    # --- running and reading ---------------------------------------------------------
    def op_step(self, n: Any = 1) -> dict:
        n = self._step_count(n)
        spent = self._advance(n)
        return {"t": self.state.t, "steps": self.state.steps, "N": self.state.n,
                "ms_per_step": round(spent * 1000.0 / max(n, 1), 3), "rules": self.rules_status()}

    def _advance(self, n: int, reuse: bool = True) -> float:
        """``n`` steps with the rule in use, recording the history at its sample times; returns
        the seconds spent in the model's steps alone, each step's one search included (not the
        history's measurements).  A sampled state's search is made with the steps (timed) and
        read by its measurement and by its next step.  ``reuse=False``: every step makes its
        own search (``op_cost``: each timed round does all its steps' work, whatever came
        before it)."""
        spent = 0.0
        left = n
        while left > 0:  # stop at every sample time of the history
            k = min(left, SAMPLE_INTERVAL_STEPS - self.state.steps % SAMPLE_INTERVAL_STEPS)
            t0 = time.perf_counter()
            self._run(k, reuse)
            if reuse and self.history.due(self.state.steps):
                self._search()  # the next step's search, made now: the measurement reads it too
            spent += time.perf_counter() - t0
            self._record()
            left -= k
        return spent

    def _run(self, k: int, reuse: bool = True) -> None:
        """k steps with the rule in use; a student's rule that fails gives way to the
        built-in one from the failing step on (that step is taken with the built-in rule).
        ``reuse``: the first step takes its state's search if it was made already."""
        pairs = self._searched_pairs() if reuse else None
        if self.rule is None:
            self.state = boids.run(self.state, self.params, k, self.treat, pairs=pairs)
            return
        for done in range(k):
            try:
                self.state = boids.step(self.state, self.params, self.treat, self.rule, pairs=pairs)
                pairs = None
            except rules.RuleError as exc:
                self._rule_failed(exc)
                self.state = boids.run(self.state, self.params, k - done, self.treat)
                return

    # --- rules in Python (the protocol is in sessions/base.py) -------------------------
    def _rule_trial(self, rule: rules.Rule) -> float:
        s, p = self.state, self.params
        pairs = self._search().full()  # the ordered pairs the rule gets in the step
        t0 = time.perf_counter()
        rule(boids._index(pairs.i), boids._index(pairs.j), pairs.d, pairs.r, s.v, p)
        return (time.perf_counter() - t0) * 1000.0

    def _rule_install(self, rule: rules.Rule | None) -> None:
        pass  # _run hands self.rule to the model at every step

    def _rule_mark(self, label: str) -> None:
        self._mark(label)

    # --- the whole run as JSON -----------------------------------------------------------
    def op_snapshot(self) -> dict:
        """Everything needed to carry on exactly from here (floats survive JSON exactly)."""
        s = self.state
        return {"lab": self.lab, "x": s.x.tolist(), "v": s.v.tolist(), "ids": s.ids.tolist(),
                "t": s.t, "steps": s.steps, "next_id": s.next_id, "params": asdict(self.params),
                "treat": asdict(self.treat), "run_sample": self.run_sample, "sky_aspect": self.sky_aspect}

    def op_restore(self, snapshot: Any) -> dict:
        """Carry on from a :meth:`op_snapshot` (validated first; a bad one changes nothing).
        The history starts afresh at the snapshot's time, with a marker."""
        if not isinstance(snapshot, dict) or snapshot.get("lab") != self.lab:
            raise ValueError("restore needs a snapshot of this lab")
        try:
            values = dict(snapshot["params"])
            population = _population(values.pop("population"))
            params = replace(boids.Params().with_values(**values), population=population)
            x = np.array(snapshot["x"], dtype=np.float64).reshape(-1, 2)
            v = np.array(snapshot["v"], dtype=np.float64).reshape(-1, 2)
            ids = np.array(snapshot["ids"], dtype=np.int64)
            steps = int(snapshot["steps"])
            state = boids.BoidsState(x=x, v=v, ids=ids, steps=steps, next_id=int(snapshot["next_id"]))
            treat = boids.Treat(**snapshot.get("treat", {}))
            run_sample = validate(self.SPECS, "sample", snapshot.get("run_sample", params.sample))
            sky_aspect = snapshot.get("sky_aspect", params.width / params.height)
            if isinstance(sky_aspect, bool) or not isinstance(sky_aspect, (int, float)) or not 0 < sky_aspect < math.inf:
                raise TypeError(f"sky_aspect {shown(sky_aspect)}")
        except (KeyError, TypeError) as exc:
            raise ValueError(f"restore: the snapshot is incomplete ({exc})") from None
        if not (len(x) == len(v) == len(ids) == params.population and np.isfinite(x).all()
                and np.isfinite(v).all() and steps >= 0):
            raise ValueError("restore: the snapshot's arrays do not fit together")
        self.params, self.state, self.treat, self.run_sample = params, state, treat, run_sample
        self.sky_aspect = float(sky_aspect)
        self.history = new_history()
        self.history.record(steps, self._measure())
        self._mark("restarted from the last good step")
        return self.op_state()

    def op_metrics(self) -> dict:
        """The readouts' values, and ``where``: the flocks readout's note of where the other
        boids are (``describe.flocks_where``, the description's words)."""
        m = self._measure()
        return {**m, "where": describe.flocks_where(m["N"], m["in_flocks"], m["loners"])}

    def summary(self) -> dict:
        """The spoken summary (``describe.boids``) from the history's latest sample (at most 10
        steps = 0.25 s old): no second neighbour search, which with 2,000 boids in a small sky
        would cost seconds."""
        s, p, h = self.state, self.params, self.history
        m = {k: h.values[k][-1] for k in ("P", "spacing", "flocks")}
        if self.sampled is not None and self.sampled[0] is h and self.sampled[1] == h.ticks[-1]:
            m = self.sampled[2]  # that sample's measures in full: also the boids in flocks and alone
        return describe.boids(s.v, m, treat=bool(self.treat.on), weights=(p.k_sep, p.k_ali, p.k_coh), history=h)

    def op_parse_world(self, width: Any, height: Any) -> dict:
        """Validate a world size from a share link without applying it."""
        return validate_many(boids.WORLD_SPECS, {"width": width, "height": height})

    def link_values(self) -> dict:
        """The live settings, with this run's own sample (``run_values``): a link replays this
        run from its start."""
        values = {s.name: getattr(self.params, s.name) for s in self.SPECS}
        values["sample"] = self.run_sample
        return values

    def link_extra(self) -> dict:
        """The world's size, ``world=WxH`` in lengths (to 1/1000), so that the run replays the
        same on a screen of another shape."""
        def text(v: float) -> str:
            v = round(float(v), 3)
            return str(int(v)) if v == int(v) else repr(v)
        return {"world": f"{text(self.params.width)}x{text(self.params.height)}"}

    def op_state(self) -> dict:
        p = asdict(self.params)
        world = {"width": p.pop("width"), "height": p.pop("height")}
        return {
            "t": self.state.t,
            "steps": self.state.steps,
            "N": self.state.n,
            "params": p,
            # the settings this run started with that apply only at a restart (the sample): what
            # a link that replays this run carries, whatever the controls now say
            "run_values": {"sample": self.run_sample},
            "world": world,
            "treat": asdict(self.treat),
            "baseline": metrics.random_polarization(self.state.n),  # P of random headings, this N
        }

    def constants(self) -> dict:
        return {"dt": boids.DT, "eps": boids.EPS, "treat_rate": boids.TREAT_RATE, "steer_time": boids.STEER_TIME,
                "world_area": boids.WORLD_WIDTH * boids.WORLD_HEIGHT,  # lengths²: the page keeps it at any aspect
                "flock_min": boids.FLOCK_MIN, "flock_link_deg": boids.FLOCK_LINK_DEG,
                "flock_agreement": boids.FLOCK_AGREEMENT, "max_population": boids.MAX_POPULATION,
                # the goal table the page's "Why the flock keeps flowing" quotes (issue 13)
                "goal_samples": len(boids.GOAL_SAMPLES), "goal_seconds": boids.GOAL_SECONDS,
                "scale_sizes": list(scaling.SIZES),
                "sample_seconds": SAMPLE_INTERVAL_STEPS * boids.DT,  # the chart's sampling interval
                # a share link's world=WxH: each side's range (lengths), and the default as the example
                "world_range": [boids.WORLD_SPECS[0].min, boids.WORLD_SPECS[0].max],
                "world_default": [boids.WORLD_WIDTH, boids.WORLD_HEIGHT]}

    def display(self) -> dict:
        """The presets as the page shows them (name, title, what to look for, the values set),
        the readouts (``params.Readout``), the chart's words (``CHARTS``) and the scaling
        panel's (``scaling.CHART``, with its slider's label)."""
        return {"presets": [{"name": name, **boids.PRESET_WORDS[name], "values": values}
                            for name, values in boids.PRESETS.items()],
                "readouts": [r.to_json() for r in READOUTS],
                "charts": [dict(c) for c in CHARTS],
                "scaling": {**scaling.CHART, "slider": scaling.SCALE_SPECS[0].label}}

    def frame(self) -> np.ndarray:
        s = self.state
        out = np.empty(FRAME_HEADER + 4 * s.n, dtype=np.float32)
        out[:FRAME_HEADER] = (s.n, s.t, float(self.treat.on), self.treat.x, self.treat.y)
        body = out[FRAME_HEADER:].reshape(s.n, 4)
        body[:, 0:2] = s.x
        body[:, 2:4] = s.v
        return out


def _seconds_per_run(run, seconds: float, most: int) -> float:
    """Seconds per call of ``run``, repeated until it has run ``seconds`` or ``most`` times."""
    runs, t0 = 0, time.perf_counter()
    while True:
        run()
        runs += 1
        took = time.perf_counter() - t0
        if took >= seconds or runs >= most:
            return took / runs


def _scaled_population(value: Any) -> int | None:
    """``value`` when it is a population only the scaling experiment reaches (above the
    slider's range, within the experiment's), else None."""
    if value is None:
        return None
    try:
        n = validate(scaling.SCALE_SPECS, "n", value)
    except ValueError:
        return None
    return n if n > spec_named(boids.SPECS, "population").max else None


def _population(value: Any) -> int:
    """A population from a snapshot: the slider's range, or the scaling experiment's (which may
    exceed it, its world grown to match)."""
    try:
        return validate(boids.SPECS, "population", value)
    except ValueError:
        return validate(scaling.SCALE_SPECS, "n", value)


def _finite(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"treat {name} must be a finite number (lengths), got {shown(value)}")
    return float(value)


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    raise ValueError(f"treat on must be true or false, got {shown(value)}")


def _wrap_point(x: float, y: float, params: boids.Params) -> tuple[float, float]:
    p = wrap(np.array([x, y]), params.box)
    return float(p[0]), float(p[1])


def make_session() -> BoidsSession:
    return BoidsSession()
