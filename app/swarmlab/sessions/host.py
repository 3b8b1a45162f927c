"""The engine host: every lab's session behind one message protocol.

The page talks to the engine with one kind of message, whether the engine runs in
a Web Worker (the normal case) or on the page's main thread (the single file from
``file://``).  ``app/main.py`` only moves these messages; everything else is here,
in plain Python, so CPython tests drive exactly what the browser drives.

Request (JSON text)::

    {"lab": "swarm",                        # which session (created on first use)
     "ops": [["step", {"n": 3}],            # run in order, each session.op_<name>(**args)
             ["selected", {}]],
     "frame": true}                         # also return the frame buffer afterwards

Reply (JSON text)::

    {"results": [{"value": ..., "ms": 0.9} | {"error": "message", "ms": 0.0}, ...],
     "ms": 1.84}                            # engine time of each op and of the request

An op that fails with bad input (``ValueError``) gets ``{"error": ...}``, changes
nothing, and the later ops of the request still run.  Any other exception is a bug:
it propagates, and the page reports that the engine stopped.

The frame (``frame(lab)``, float32) is moved separately: the worker transfers it as
an ArrayBuffer, the main-thread bridge hands over a buffer view.  Its layout is the
session's :class:`~swarmlab.sessions.base.FrameLayout` (``op_layout``).

Host-level requests use ``"lab": null`` with the ops ``info`` (versions) and
``labs`` (the lab list the page shows).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Callable

import numpy as np

from . import LABS, create
from ..params import shown
from .base import Session, _jsonable
from .. import __version__


class Host:
    """One page's sessions, created lazily (a lab that is never opened costs nothing)."""

    def __init__(self, factory: Callable[[str], Session] = create) -> None:
        self._factory = factory
        self._sessions: dict[str, Session] = {}

    def session(self, lab: str) -> Session:
        if lab not in self._sessions:
            self._sessions[lab] = self._factory(lab)
        return self._sessions[lab]

    # --- the protocol ------------------------------------------------------------------
    def handle(self, request_json: str) -> tuple[str, np.ndarray | None]:
        """One request in, (reply JSON, frame or None) out."""
        t0 = time.perf_counter()
        try:
            request = json.loads(request_json)
            if not isinstance(request, dict):
                raise ValueError("a request must be a JSON object")
            lab, ops = request.get("lab"), request.get("ops", [])
            if not isinstance(ops, list):
                raise ValueError("ops must be a list of [name, args]")
            target = self._host_ops() if lab is None else self.session(_lab_name(lab))
        except (ValueError, RecursionError) as exc:
            reply = {"results": [], "error": f"bad request: {exc}"}
            return json.dumps(reply), None
        results = [self._run(target, op) for op in ops]
        frame = target.frame() if lab is not None and request.get("frame") else None
        ms = (time.perf_counter() - t0) * 1000.0
        return json.dumps({"results": results, "ms": round(ms, 3)}, allow_nan=False), frame

    def frame(self, lab: str) -> np.ndarray:
        return self.session(_lab_name(lab)).frame()

    @staticmethod
    def _run(target: Any, op: Any) -> dict:
        if not (isinstance(op, list) and 1 <= len(op) <= 2 and isinstance(op[0], str)):
            return {"error": f"an op must be [name, args], got {str(op)[:80]!r}"}
        name, args = op[0], (op[1] if len(op) == 2 else {})
        t0 = time.perf_counter()
        try:
            out = {"value": _jsonable(target.dispatch(name, args))}
        except ValueError as exc:
            out = {"error": str(exc)}
        out["ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
        return out

    def _host_ops(self) -> "_HostOps":
        return _HostOps()


class _HostOps:
    """The ops of ``"lab": null``."""

    def dispatch(self, name: str, args: Any) -> Any:
        if name == "info":
            return {"engine": __version__, "python": sys.version.split()[0], "numpy": np.__version__}
        if name == "labs":
            return list(LABS)
        raise ValueError(f"unknown host op {shown(name)}; known: info, labs")


def _lab_name(lab: Any) -> str:
    if not isinstance(lab, str) or lab not in LABS:
        raise ValueError(f"unknown lab {str(lab)[:40]!r}; choose one of {', '.join(LABS)}")
    return lab
