"""The PyScript bridge: the only module that imports ``pyscript`` or ``js``.

It exposes one small object to JavaScript as ``window.swarmlabBridge``:

    call(lab, method, args_json) -> str   JSON in, JSON out (session.op_<method>)
    frame(lab)                   -> ndarray float32 (a PyProxy in JS; read it with
                                    getBuffer("f32"), then release() and destroy())
    spec(lab)                    -> str   the lab's parameter specs as JSON
    reset_all()                  -> None  forget every session (used by tests)

Sessions are created lazily on first use, so a lab that is never opened costs nothing.
Boot progress and boot failures are reported to the page's boot supervisor
(``window.SwarmBoot`` in assets/js/boot.js).
"""

import sys
import traceback

from pyscript import window

boot = window.SwarmBoot
boot.stage("engine", "Starting the Swarm Lab engine…")

try:
    import numpy as np  # noqa: F401  (loaded by PyScript from the vendored wheel)
    from pyodide.ffi import create_proxy

    from swarmlab import __version__, sessions
except Exception as exc:  # pragma: no cover - exercised by the browser boot-failure test
    boot.fail(
        "the Swarm Lab engine could not be imported",
        "".join(traceback.format_exception(exc)),
        "Reload the page. If you host Swarm Lab, check that the whole app/ folder was deployed.",
    )
    raise


class Bridge:
    """Thin dispatcher from JavaScript to the per-lab sessions."""

    def __init__(self):
        self._sessions = {}

    def _session(self, lab):
        if lab not in self._sessions:
            self._sessions[lab] = sessions.create(lab)
        return self._sessions[lab]

    def call(self, lab, method, args_json="{}"):
        try:
            session = self._session(lab)
        except (ValueError, ImportError) as exc:
            import json

            return json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        return session.call(method, args_json)

    def frame(self, lab):
        return self._session(lab).frame()

    def spec(self, lab):
        return self._session(lab).spec_json()

    def reset_all(self):
        self._sessions.clear()

    def info(self):
        import json

        return json.dumps({
            "engine": __version__,
            "python": sys.version.split()[0],
            "numpy": np.__version__,
        })


_bridge = Bridge()
_proxy = create_proxy(_bridge)  # kept alive for the page's lifetime
window.swarmlabBridge = _proxy
boot.ready()
