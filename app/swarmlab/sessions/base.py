"""The session protocol shared by every lab.

The browser bridge (``app/main.py``) exposes exactly three calls to JavaScript:

* ``call(lab, method, args_json) -> str``  JSON in, JSON out.  It runs
  ``session.op_<method>(**args)``; only ``op_`` methods are reachable.
* ``frame(lab) -> numpy.ndarray``  the lab's float32 frame buffer, read by JS
  with ``getBuffer`` (zero copy) and then released.
* ``spec(lab) -> str``  the parameter specs as JSON.

Errors: a ``ValueError`` from an ``op_`` method is reported to JS as
``{"error": "<message>"}`` so bad input gives a clear message and changes
nothing.  Any other exception is a bug and propagates.

Every session implements at least ``op_reset``, ``op_set``, ``op_step``,
``op_metrics`` and ``op_state`` (see :class:`Session`), and runs identically
under CPython, which is how the tests drive it.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..params import ParamSpec, clamp, specs_to_json


class Session:
    """Base class.  Subclasses set ``lab`` and ``SPECS`` and implement the ops."""

    lab: str = ""
    SPECS: tuple[ParamSpec, ...] = ()

    # --- the bridge entry points -------------------------------------------------
    def call(self, method: str, args_json: str = "{}") -> str:
        fn = getattr(self, "op_" + method, None)
        if fn is None:
            return json.dumps({"error": f"{self.lab}: unknown method {method!r}"})
        try:
            args = json.loads(args_json) if args_json else {}
        except json.JSONDecodeError as exc:
            return json.dumps({"error": f"{self.lab}.{method}: arguments are not valid JSON ({exc})"})
        if not isinstance(args, dict):
            return json.dumps({"error": f"{self.lab}.{method}: arguments must be a JSON object"})
        try:
            result = fn(**args)
        except ValueError as exc:
            return json.dumps({"error": str(exc)})
        except TypeError as exc:  # wrong argument names from JS
            return json.dumps({"error": f"{self.lab}.{method}: {exc}"})
        return json.dumps(_jsonable(result), allow_nan=False)

    def spec_json(self) -> str:
        return json.dumps(specs_to_json(self.SPECS))

    def frame(self) -> np.ndarray:
        """Flat float32 array; layout documented by each lab."""
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
        values, notices = {}, []
        for key, raw in query.items():
            if key not in names:
                notices.append(f"ignored unknown setting {key!r}")
                continue
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
