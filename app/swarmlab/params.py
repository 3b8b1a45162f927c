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
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a model.

    kind : "float" | "int" | "bool" | "choice"
    For "choice", ``choices`` lists the allowed string values and min/max/step are unused.
    ``unit`` is shown next to the value ("" for dimensionless); ``display_scale``
    lets the page show e.g. radians as degrees (shown = value * display_scale) —
    by default values are shown as stored.
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
    group: str = ""
    advanced: bool = False

    def to_json(self) -> dict:
        d = asdict(self)
        d["choices"] = list(self.choices)
        return d


def validate(specs: Iterable[ParamSpec], name: str, value: Any) -> Any:
    """Return ``value`` coerced to the parameter's type, or raise ValueError.

    Accepts strings (from URLs and the CLI) as well as native values.
    """
    table = {s.name: s for s in specs}
    if name not in table:
        raise ValueError(f"unknown parameter {name!r}; known: {', '.join(sorted(table))}")
    s = table[name]
    if s.kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "on", "yes", "0", "false", "off", "no"):
            return value.strip().lower() in ("1", "true", "on", "yes")
        raise ValueError(f"{name} must be on/off (true/false), got {value!r}")
    if s.kind == "choice":
        v = str(value).strip()
        if v not in s.choices:
            raise ValueError(f"{name} must be one of {', '.join(s.choices)}, got {value!r}")
        return v
    # numeric
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number in [{_fmt(s.min)}, {_fmt(s.max)}], got {value!r}")
    try:
        v = float(value.strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [{_fmt(s.min)}, {_fmt(s.max)}], got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number in [{_fmt(s.min)}, {_fmt(s.max)}], got {value!r}")
    if s.kind == "int":
        if v != math.floor(v):
            raise ValueError(f"{name} must be a whole number in [{_fmt(s.min)}, {_fmt(s.max)}], got {value!r}")
        v = int(v)
    if (s.min is not None and v < s.min) or (s.max is not None and v > s.max):
        raise ValueError(f"{name} must be in [{_fmt(s.min)}, {_fmt(s.max)}]{(' ' + s.unit) if s.unit else ''}, got {value!r}")
    return v


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
        table = {s.name: s for s in specs}
        s = table.get(name)
        if s is not None and s.kind in ("float", "int"):
            try:
                v = float(value)
            except (TypeError, ValueError):
                return None, str(exc)
            if math.isfinite(v):
                v = min(max(v, s.min), s.max)
                if s.kind == "int":
                    v = int(round(v))
                return v, f"{name} was out of range and was set to {_fmt(v)}"
        return None, f"ignored: {exc}"


def specs_to_json(specs: Iterable[ParamSpec]) -> list[dict]:
    return [s.to_json() for s in specs]


def _fmt(v: Any) -> str:
    if v is None:
        return "?"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
