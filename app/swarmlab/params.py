"""Parameters are data.

Each model declares one tuple of :class:`ParamSpec`.  The browser builds its
controls from :func:`specs_to_json`, and every value that reaches a model —
from a slider, a URL parameter, the CLI or Python — passes through
:func:`validate`, the one validation path.  A rejected value raises
``ValueError`` naming the parameter and the allowed range, and leaves the
caller's state untouched (validation happens before any assignment).
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np


# How a unit's symbols are said: a slider's value is read out as "12 lengths per second
# squared", not "12 lengths slash s superscript two" (ParamSpec.unit_spoken).
_SAID = {"°": "degrees", "rad": "radians", "s": "seconds", "%": "percent"}
_SAID_PER = {"s": "second", "s²": "second squared", "√s": "root second"}


def spoken_unit(unit: str) -> str:
    """A unit in words: "lengths/s²" -> "lengths per second squared", "°/√s" -> "degrees per
    root second", "/ s" -> "per second", "rad" -> "radians"; other names as they are."""
    top, per, below = (part.strip() for part in unit.partition("/"))
    words = _SAID.get(top, top)
    if per:
        words = f"{words} per {_SAID_PER.get(below, below)}".strip()
    return words


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a model.

    kind : "float" | "int" | "bool" | "choice"
    For "choice", ``choices`` lists the allowed string values and min/max/step are unused;
    ``choice_labels`` (same order, optional) is what the page shows for each value.
    ``unit`` is shown next to the value ("" for dimensionless).  ``group`` names the
    :class:`Group` of controls the page puts it in; ``advanced`` controls are hidden in the
    page's minimal mode.  Everything the page shows about a parameter comes from here.
    """

    name: str
    default: Any
    label: str
    kind: str = "float"
    min: float | None = None
    max: float | None = None
    step: float | None = None
    unit: str = ""
    help: str = ""
    choices: tuple[str, ...] = field(default_factory=tuple)
    choice_labels: tuple[str, ...] = field(default_factory=tuple)
    group: str = ""
    advanced: bool = False
    above_min: bool = False  # the minimum itself is refused: values must be greater (R > 0)
    unit_one: str = ""  # the unit after exactly 1 of a whole number ("1 animal"); else ``unit``
    identifier: bool = False  # the number names something (a sample, a seed): no digit groups

    def __post_init__(self) -> None:
        if self.choice_labels and len(self.choice_labels) != len(self.choices):
            raise ValueError(f"{self.name}: choice_labels must match choices one to one")

    def choice_label(self, value: Any) -> str:
        """What the page shows for a choice value (the value itself when it has no label)."""
        labels = dict(zip(self.choices, self.choice_labels))
        return labels.get(value, str(value))

    @property
    def decimals(self) -> int:
        """Decimals a number of this setting is written with: as many as its step has (0.05 ->
        2, 0.5 -> 1, 5 -> 0; at most 4), so a slider's value, a chart marker and a notice
        write it alike ("10.0 lengths/s²" everywhere).  The page's controls read it from
        :meth:`to_json`."""
        if self.kind != "float":
            return 0
        step = self.step or 1.0
        return max(0, min(4, math.ceil(-math.log10(step) - 1e-9)))

    def shown(self, value: Any) -> str:
        """The value as the page writes it: "on"/"off", a choice's label, or a number (with
        :attr:`decimals` decimals, or in full when that would round it: a value off the
        slider's step, from a link or from Python, is never misstated) and its unit."""
        if self.kind == "choice":
            return self.choice_label(value)
        text = self.plain(value)
        if self.kind == "bool":
            return text
        if not self.identifier:
            text = grouped(text)  # "10,000 boids", but "sample 12345"
        unit = self.unit_for(value)
        return f"{text} {unit}" if unit else text

    def plain(self, value: Any) -> str:
        """The value as ``--set`` and a link write it: "on"/"off", a choice's value, or the
        number as :meth:`shown` writes it (its decimals, or in full) without digit groups or unit."""
        if self.kind == "bool":
            return "on" if value else "off"
        if self.kind == "choice":
            return str(value)
        if self.kind == "int":
            return str(int(value))
        text = f"{float(value):.{self.decimals}f}"
        return text if float(text) == float(value) else repr(float(value))

    def unit_for(self, value: Any) -> str:
        """The unit written after ``value``: ``unit_one`` after exactly 1 of a whole number
        ("1 animal", "2 animals"), else ``unit``."""
        return self.unit_one if self.unit_one and self.kind == "int" and value == 1 else self.unit

    def restart_notice(self, value: Any) -> str:
        """What the page says when a setting that takes effect only at the next restart is
        changed: "Sample 8 will be used when you press Restart." (every lab's session)."""
        shown_value = f"“{self.shown(value)}”" if self.kind == "choice" else self.shown(value)
        return f"{self.label} {shown_value} will be used when you press Restart."

    def marker(self, value: Any) -> str:
        """A chart marker's text for a change to ``value``, from the label: "alignment off",
        "range R 12 lengths", "obstacle: a narrow passage" (every lab's history uses it)."""
        label = self.label[:1].lower() + self.label[1:]
        return f"{label}: {self.shown(value)}" if self.kind == "choice" else f"{label} {self.shown(value)}"

    @property
    def unit_spoken(self) -> str:
        """The unit as a screen reader should say it (:func:`spoken_unit`)."""
        return spoken_unit(self.unit)

    def to_json(self) -> dict:
        d = asdict(self)
        d["decimals"] = self.decimals
        d["unit_spoken"] = self.unit_spoken
        d["unit_one_spoken"] = spoken_unit(self.unit_one)
        d["choices"] = list(self.choices)
        d["choice_labels"] = {c: self.choice_label(c) for c in self.choices}
        return d


@dataclass(frozen=True)
class Group:
    """A titled group of controls on the page; a spec joins it through ``ParamSpec.group``.

    ``advanced`` groups are hidden in the page's minimal mode.
    """

    id: str
    title: str
    advanced: bool = False

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Readout:
    """A live number the page shows: the metric ``key``, its ``label`` and how to write it.

    shown = ``value * scale`` with ``decimals`` decimals, then the ``unit`` ("" for none).
    """

    key: str
    label: str
    unit: str = ""
    decimals: int = 3
    scale: float = 1.0

    def to_json(self) -> dict:
        return asdict(self)


def spec_named(specs: Iterable[ParamSpec], name: str) -> ParamSpec:
    """The spec called ``name``; ValueError naming the known ones otherwise."""
    specs = tuple(specs)
    for s in specs:
        if s.name == name:
            return s
    raise ValueError(f"unknown parameter {shown(name)}; known: {', '.join(sorted(s.name for s in specs))}")


def validate(specs: Iterable[ParamSpec], name: str, value: Any) -> Any:
    """Return ``value`` coerced to the parameter's type, or raise ValueError.

    Accepts strings (from URLs and the CLI) as well as native values.
    """
    s = spec_named(specs, name)
    name = _called(s)  # (messages name the setting as the page does: "Separation weight w_s")
    if s.kind == "bool":
        if isinstance(value, (bool, np.bool_)):  # numpy's too (a sweep over a boolean array)
            return bool(value)
        if isinstance(value, numbers.Real) and value in (0, 1):  # 0/1, numpy's integers included
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "on", "yes", "0", "false", "off", "no"):
            return value.strip().lower() in ("1", "true", "on", "yes")
        raise ValueError(f"{name} must be on/off (true/false), got {shown(value)}")
    if s.kind == "choice":
        v = value.strip() if isinstance(value, str) else None
        if v is not None and v not in s.choices:  # typed in another case: "Passage" is passage
            v = next((c for c in s.choices if c.lower() == v.lower()), v)
        if v not in s.choices:
            raise ValueError(f"{name} must be one of {', '.join(s.choices)}, got {shown(value)}")
        return v
    # numeric
    got = "nothing (it was empty)" if isinstance(value, str) and not value.strip() else shown(value)
    within = _within(s)
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a number {within}, got {got}")
    if s.kind == "int":
        v = as_int(value)  # integers stay integers: 2**63 - 1 or 9007199254740993 are exact
        if v is None:
            raise ValueError(f"{name} must be a whole number {within}, got {got}")
    else:
        try:
            v = float(value.strip()) if isinstance(value, str) else float(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{name} must be a number {within}, got {got}") from None
        if not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number {within}, got {got}")
    if (s.min is not None and (v <= s.min if s.above_min else v < s.min)) or (s.max is not None and v > s.max):
        raise ValueError(f"{name} must be {within}{(' ' + s.unit) if s.unit else ''}, got {got}")
    return v


_INT_TEXT = re.compile(r"^[+-]?[0-9]{1,40}(\.0*)?$")


def as_int(value: Any) -> int | None:
    """An exact integer from an int, an integral finite float or integer text; else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, numbers.Integral):  # int, and numpy's integers (np.arange sweeps)
        return int(value)
    if isinstance(value, numbers.Rational):  # Fraction: exact
        return int(value.numerator) if value.denominator == 1 else None
    if isinstance(value, numbers.Real) and not isinstance(value, str):  # float, np.float64
        try:
            value = float(value)
        except (OverflowError, ValueError):
            return None
        return int(value) if math.isfinite(value) and value == math.floor(value) else None
    if isinstance(value, str):
        t = value.strip()
        if _INT_TEXT.match(t):
            return int(t.split(".")[0])
        try:  # "1e3" is a whole number too
            f = float(t)
        except ValueError:
            return None
        return int(f) if math.isfinite(f) and f == math.floor(f) and abs(f) < 2**53 else None
    return None


def whole_number(value: Any) -> int | None:
    """A count given from Python (steps, seconds) as an int, or None when it is not a whole
    number; text is not one here (unlike a link's "5", which :func:`as_int` reads)."""
    return None if isinstance(value, str) else as_int(value)


def step_count(n: Any, name: str = "n", least: int = 0) -> int:
    """A number of steps given from Python: a whole number >= ``least`` (ValueError saying so;
    ``range(int(n))`` would quietly run 0 steps for -5 and 2 for 2.9)."""
    v = whole_number(n)
    if v is None or v < least:
        raise ValueError(f"{name} must be a whole number of steps, {least} or more, got {shown(n)}")
    return v


def listed(values: Any, name: str) -> list:
    """A list of values given from Python (samples, seeds): any iterable of them but text, which
    would be read character by character ("37" is not [3, 7]); ValueError otherwise."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a list of whole numbers, such as [3, 17], got {shown(values)}")
    return list(values)


def grouped(text: str) -> str:
    """A number's text with the digits before its point grouped in threes ("10,000",
    "1,234.5"), as the page's prose writes numbers; ui/controls.js grouped() is the same rule."""
    whole, point, rest = text.partition(".")
    return re.sub(r"\B(?=(\d{3})+$)", ",", whole) + point + rest


def shown(value: Any) -> str:
    """The value as a message shows it: never longer than 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def validate_many(specs: Iterable[ParamSpec], values: Mapping[str, Any]) -> dict:
    """Validate a mapping; all or nothing (raises on the first bad entry)."""
    specs = tuple(specs)
    return {k: validate(specs, k, v) for k, v in values.items()}


def defaults(specs: Iterable[ParamSpec]) -> dict:
    return {s.name: s.default for s in specs}


def clamp(specs: Iterable[ParamSpec], name: str, value: Any) -> tuple[Any, str | None]:
    """Lenient form for URL parameters: return (value, notice).

    Out-of-range numbers are clamped into range with a notice; anything else
    invalid returns (None, notice) so the caller ignores it.
    """
    specs = tuple(specs)
    try:
        return validate(specs, name, value), None
    except ValueError as exc:
        try:
            s = spec_named(specs, name)
        except ValueError:  # an unknown name: exc already says so
            return None, f"ignored: {exc}"
        if s.kind in ("float", "int"):
            try:
                v = float(value)
            except (TypeError, ValueError, OverflowError):
                return None, f"ignored: {exc}"
            if not math.isnan(v):  # (1e400 is infinite: out of range like 3000, not unreadable)
                inside = s.min <= v <= s.max
                v = min(max(v, s.min), s.max)
                if s.kind == "int":
                    v = math.floor(v + 0.5)  # halves up, as a reader rounds (round() gives 12 for 12.5)
                said = _called(s)
                said = said[:1].upper() + said[1:]  # it starts the sentence ("Sample was ...")
                value_said = _fmt(v) if s.identifier else grouped(_fmt(v))  # ("set to 2,000")
                if inside:  # in range but not a whole number
                    return v, f"{said} must be a whole number and was rounded to {value_said}"
                return v, f"{said} was out of range and was set to {value_said}"
        return None, f"ignored: {exc}"


def specs_to_json(specs: Iterable[ParamSpec]) -> list[dict]:
    return [s.to_json() for s in specs]


def _called(s: ParamSpec) -> str:
    """How a message names a setting: its label and its name, as the page and a link write them
    ("Separation weight w_s"); the label alone where it already ends with the name ("Speed v");
    the name alone where the label is the name ("sample", as Python and a link write it); the
    name in brackets where the label has it as a word ("Sample number (sample)", not "Sample
    number sample")."""
    label = (s.label or "").strip()
    if not label or label.lower() == s.name.lower():
        return s.name
    if label.endswith(" " + s.name):
        return label
    return f"{label} ({s.name})" if s.name.lower() in label.lower().split() else f"{label} {s.name}"


def _within(s: ParamSpec) -> str:
    """The allowed range: "in [1, 40]" ("in (0, 40]" when the minimum itself is refused), or
    "≥ 0" ("> 0") where there is no upper bound."""
    if s.max is None:
        return "" if s.min is None else f"{'>' if s.above_min else '≥'} {_fmt(s.min)}"
    if s.min is None:
        return f"≤ {_fmt(s.max)}"
    return f"in {'(' if s.above_min else '['}{_fmt(s.min)}, {_fmt(s.max)}]"


def _fmt(v: Any) -> str:
    if v is None:
        return "∞"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
