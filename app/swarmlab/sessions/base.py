"""The session protocol shared by every lab.

The page reaches a session only through the engine host (``sessions/host.py``), one
message a request: ``{lab, ops: [[name, args], ...], frame}``.  Each op runs
``session.op_<name>(**args)`` (only ``op_`` methods are reachable, through
:meth:`Session.dispatch`).

Errors: a ``ValueError`` from an ``op_`` method (bad input, checked before anything
changes) is reported to the page as ``{"error": "<message>"}``; wrong argument names and
out-of-range numbers (``OverflowError``) become the same kind of message.  Any other
exception is a bug and propagates.

Every session provides ``op_reset``, ``op_set``, ``op_step``, ``op_metrics`` and
``op_state``, plus from this base ``op_spec`` (its parameter specs), ``op_layout`` (its
frame layout, the constants the page shows and its ``display`` words), ``op_parse_query`` (lenient share-link
reading) and, when it keeps a ``metrics.History``, ``op_history`` and ``op_csv``.  A lab
whose rule is a function a student may rewrite (``RULES``, a ``rules.RuleKind``) also gets
``op_rules_source``, ``op_rules`` and ``op_rules_original`` from here (rules.py).  It
runs identically under CPython, which is how the tests drive it.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import describe, rules
from ..params import ParamSpec, clamp, shown, specs_to_json, validate


@dataclass(frozen=True)
class FrameLayout:
    """How a session's float32 frame buffer is laid out; the page reads offsets from this.

    header : names of the header floats, in order (``frame[k]`` is ``header[k]``)
    fields : names of the floats of one agent record
    blocks : how many runs of N records follow the header (Vicsek sends "now" and
             "one update ago"); block b, agent a, field f sits at
             ``len(header) + (b * N + a) * len(fields) + f``
    count  : the header field that holds N
    clock  : the header field that holds model time t (seconds); the integer step is
             ``round(t / dt)`` with ``dt`` from the session's constants
    """

    header: tuple[str, ...]
    fields: tuple[str, ...]
    blocks: int = 1
    count: str = "n"
    clock: str = "t"

    def to_json(self) -> dict:
        return {"header": list(self.header), "fields": list(self.fields), "blocks": self.blocks,
                "stride": len(self.fields), "offset": len(self.header),
                "count": self.header.index(self.count), "clock": self.header.index(self.clock)}


@functools.lru_cache(maxsize=None)
def _step_spec(max_steps: int) -> ParamSpec:
    """The spec of ``op_step``'s ``n`` for a lab that allows ``max_steps`` steps a call."""
    return ParamSpec("n", 1, "steps", kind="int", min=0, max=max_steps)


class Session:
    """Base class.  Subclasses set ``lab``, ``SPECS`` and ``FRAME`` and implement the ops."""

    lab: str = ""
    SPECS: tuple[ParamSpec, ...] = ()
    FRAME: FrameLayout | None = None
    MAX_STEPS_PER_CALL: int = 4000  # the most steps one op_step may ask for (a lab sets its own)

    def _step_count(self, n: Any) -> int:
        """``n`` as the steps of one call: a whole number in [0, MAX_STEPS_PER_CALL] (ValueError)."""
        return validate((_step_spec(self.MAX_STEPS_PER_CALL),), "n", n)

    # --- the bridge entry points -------------------------------------------------
    def dispatch(self, method: str, args: Any) -> Any:
        """Run ``op_<method>(**args)``; bad input raises ValueError and changes nothing."""
        fn = getattr(self, "op_" + str(method), None) if isinstance(method, str) else None
        if fn is None:
            raise ValueError(f"{self.lab}: unknown method {shown(method)}")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ValueError(f"{self.lab}.{method}: arguments must be a JSON object")
        try:
            return fn(**args)
        except TypeError as exc:  # wrong argument names from JS
            raise ValueError(f"{self.lab}.{method}: {exc}") from None
        except (OverflowError, RecursionError) as exc:  # e.g. a 400-digit integer from JSON
            raise ValueError(f"{self.lab}.{method}: a value is out of range ({exc})") from None

    def call(self, method: str, args_json: str = "{}") -> str:
        """JSON in, JSON out: the result, or ``{"error": message}`` for bad input."""
        try:
            args = json.loads(args_json) if args_json else {}
        except (json.JSONDecodeError, RecursionError) as exc:
            return json.dumps({"error": f"{self.lab}.{method}: arguments are not valid JSON ({exc})"})
        try:
            return json.dumps(_jsonable(self.dispatch(method, args)), allow_nan=False)
        except ValueError as exc:
            return json.dumps({"error": str(exc)})

    def op_spec(self) -> list:
        """The parameter specs the page builds its controls from (``ParamSpec.to_json``)."""
        return specs_to_json(self.SPECS)

    def op_layout(self) -> dict:
        """The frame layout and the constants the page shows (``FrameLayout.to_json``)."""
        if self.FRAME is None:
            raise ValueError(f"{self.lab}: this session publishes no frame")
        return {"frame": self.FRAME.to_json(), "constants": self.constants(), "display": self.display()}

    def constants(self) -> dict:
        """Model constants the page needs for drawing and text (dt, radii, ...)."""
        return {}

    # --- what a share link carries, for every lab ----------------------------------------
    def op_link(self) -> dict:
        """What "Copy link" puts in the link, so that it replays this run: ``values``, the
        settings by name (the page writes those that differ from their defaults), and
        ``extra``, the lab's other link keys (a trial, the world's size)."""
        return {"values": self.link_values(), "extra": self.link_extra()}

    def link_values(self) -> dict:
        """The settings a link carries: the live ones (each lab's session says more)."""
        return dict(self.values)

    def link_extra(self) -> dict:
        """A link's keys besides the settings, {key: text} (none by default)."""
        return {}

    def display(self) -> dict:
        """Words the page shows beside the specs: control groups, readouts, chart series."""
        return {}

    # --- the one history (metrics.History), for every lab that keeps one ----------------
    history = None  # a metrics.History sampled on the session's integer step clock

    def op_history(self, since: float | None = None, version: int | None = None) -> dict:
        """Chart series and markers; incremental (samples after ``since``) if ``version`` still matches."""
        if self.history is None:
            raise ValueError(f"{self.lab}: this lab keeps no history")
        if since is not None and version is not None:
            since = _finite_number("since", since)
            if _whole_number("version", version) == self.history.version:
                return self.history.to_dict(since=since)
        return self.history.to_dict()

    def op_describe(self) -> dict:
        """A short spoken summary of the lab's state (``describe.py``): ``{"text", "key", "charts"}``.

        ``key`` is a coarse signature (group shape, heading, agreement band, events): the
        page repeats a summary while playing only when it changes.  ``charts`` holds each
        chart's text alternative (current values and the trend over the last 10 s).
        ``news_turn_deg``: the heading turn that is news too (``describe.NEWS_TURN_DEG``).
        """
        return {**self.summary(), "news_turn_deg": describe.NEWS_TURN_DEG}

    def summary(self) -> dict:
        """The lab's ``describe.py`` summary of this session's state (each lab's session says
        what it hands over)."""
        raise ValueError(f"{self.lab}: this lab has no description")

    def op_csv(self) -> str:
        """The metric history as CSV text (units in the header, markers as event rows)."""
        if self.history is None:
            raise ValueError(f"{self.lab}: this lab keeps no history")
        return self.history.to_csv()

    def frame(self) -> np.ndarray:
        """Flat float32 array; layout documented by each lab."""
        raise NotImplementedError

    # --- rules in Python (labs whose rule is a function a student may replace) ----------
    RULES: rules.RuleKind | None = None  # the lab's rule kind (rules_boids.KIND, rules_vicsek.KIND)
    rule: rules.Rule | None = None  # the student's rule in use; None = the built-in one
    rule_error: dict | None = None  # why the student's rule last stopped (RuleError.to_json), once
    rule_code: str | None = None  # the student's last rule that worked (kept after it stops)

    def _rules_kind(self) -> rules.RuleKind:
        if self.RULES is None:
            raise ValueError(f"{self.lab}: this lab has no rules to edit")
        return self.RULES

    def op_rules_source(self) -> dict:
        """The rule function the page shows: ``{"name", "original", "code", "user", "result", "ideas",
        "helpers", "time_limit_s", "title", "intro", "help"}``.

        ``original`` is the built-in function's own source (the code the model runs);
        ``code`` the student's rule in use or last used (else the original); ``user`` whether
        the student's rule is running now; ``ideas`` the "Ideas to try" (``rules.Idea.to_json``);
        ``helpers`` the other names the student's code can use (``RuleKind.helpers``);
        ``time_limit_s`` how long one call of a student's rule may run before Python stops it
        (``rules.TIME_LIMIT_S``; the page's watchdog waits longer than that); ``title``,
        ``intro`` and ``help`` the panel's words (``RuleKind.panel``).
        """
        kind = self._rules_kind()
        original = kind.source()
        return {"name": kind.name, "original": original, "code": self.rule_code or original,
                "user": self.rule is not None, "result": kind.result,
                "ideas": [idea.to_json(original) for idea in kind.ideas], "helpers": kind.helpers(),
                "time_limit_s": rules.TIME_LIMIT_S, **kind.panel()}

    def op_rules(self, code: Any) -> dict:
        """Swap in a student's rule at the next step (no restart: time and state kept).

        The code is compiled and tried once on the current state first.  Either way the
        reply is a value, so the page can place the message by the editor:
        ``{"ok": true, "ms": trial ms}`` or ``{"ok": false, "error": {"message", "line", "kind"}}``;
        after a failure the rule in use before keeps running.
        """
        kind = self._rules_kind()
        try:
            rule = rules.load(code, kind)
            ms = self._rule_trial(rule)
        except rules.RuleError as exc:
            return {"ok": False, "error": exc.to_json()}
        self._rule_install(rule)
        self.rule, self.rule_code, self.rule_error = rule, rule.code, None
        self._rule_mark("your rules")
        return {"ok": True, "ms": round(ms, 3)}

    def op_rules_original(self) -> dict:
        """Back to the built-in rule at the next step (time and state kept)."""
        self._rules_kind()
        was_user = self.rule is not None
        self._rule_install(None)
        self.rule, self.rule_error = None, None
        if was_user:
            self._rule_mark("original rules")
        return {"ok": True}

    def _rule_failed(self, exc: "rules.RuleError") -> None:
        """A student's rule failed during a step: the built-in one takes over from that step."""
        self._rule_install(None)
        self.rule, self.rule_error = None, exc.to_json()
        self._rule_mark("your rules stopped")

    def rules_status(self) -> dict:
        """For each step reply: whose rule runs, and (once) why the student's stopped."""
        error, self.rule_error = self.rule_error, None
        return {"user": self.rule is not None, "error": error}

    def _rule_trial(self, rule: "rules.Rule") -> float:
        """Run ``rule`` once on the current state without changing it; its time in ms
        (RuleError if it fails)."""
        raise NotImplementedError

    def _rule_install(self, rule: "rules.Rule | None") -> None:
        """Make the model call ``rule`` from the next step on (None = the built-in rule)."""
        raise NotImplementedError

    def _rule_mark(self, label: str) -> None:
        """A marker on the lab's chart at the current step."""
        raise NotImplementedError

    # --- shared ops -------------------------------------------------------------------
    def op_parse_query(self, query: dict) -> dict:
        """Lenient reading of URL parameters (share links, embeds).

        Returns ``{"values": {name: value}, "notices": [text, ...]}``: out-of-range
        numbers are clamped, anything else invalid or unknown is ignored, and each
        such case gets a short notice for the page to show.  Nothing is applied.
        """
        if not isinstance(query, dict):
            raise ValueError("query must be an object of name: value")
        names = {s.name for s in self.SPECS}
        # a name typed in another case is the setting of that name when only one matches
        # (Lab 1's N and R; ?n=300 means N): an address is typed by hand
        folded: dict[str, list[str]] = {}
        for name in names:
            folded.setdefault(name.lower(), []).append(name)
        values, notices = {}, []
        for key, raw in query.items():
            if key not in names:
                match = folded.get(str(key).lower(), [])
                if len(match) != 1:
                    notices.append(f"ignored unknown setting {shown(key)}")
                    continue
                if match[0] in query:
                    notices.append(f"ignored {shown(key)}: {match[0]} is given too")
                    continue
                key = match[0]
            value, notice = clamp(self.SPECS, key, raw)
            if notice:
                notices.append(notice)
            if value is not None:
                values[key] = value
        return {"values": values, "notices": notices}

    # --- ops every lab provides ---------------------------------------------------
    def op_reset(self, **params: Any) -> dict:  # restart with these parameter values
        raise NotImplementedError

    def op_set(self, name: str, value: Any) -> dict:  # one live parameter change
        raise NotImplementedError

    def op_step(self, n: int = 1) -> dict:  # advance n model steps
        raise NotImplementedError

    def op_metrics(self) -> dict:
        raise NotImplementedError

    def op_state(self) -> dict:  # small summary: time, step, N, params
        raise NotImplementedError


def _finite_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, got {str(value)[:40]!r}")
    return float(value)


def _whole_number(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and (not math.isfinite(value) or value != int(value))):
        raise ValueError(f"{name} must be a whole number, got {str(value)[:40]!r}")
    return int(value)


def _jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays and non-finite floats to JSON-safe values."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return _jsonable(obj.item())
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj
