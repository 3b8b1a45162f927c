"""The PyScript bridge: the only module that imports ``pyscript``, ``polyscript`` or ``js``.

It moves the engine host's messages (``swarmlab.sessions.host``) between JavaScript
and Python, and nothing else.  It runs in one of two places:

* **In a Web Worker** (the normal case; ``assets/js/engine.js`` starts it with
  PyScript's ``PyWorker``).  The page posts ``{id, request, buffer}``; the reply is
  ``{id, reply, frame, length}``.  ``buffer`` is the page's previous frame array, handed
  back so that steady-state frames allocate nothing: the frame is copied into it when it
  is large enough, and it is transferred (not copied) both ways.  No SharedArrayBuffer
  and no special headers are needed, because the worker never touches the page.
* **On the main thread** (the single file opened from ``file://``, where browsers do
  not let a page start a worker that can load the runtime).  Then it publishes
  ``window.swarmlabBridge`` with ``handle(request) -> reply`` and
  ``frame_into(lab, buffer) -> length``, reports boot failures to the page's boot
  supervisor (``window.SwarmBoot``) and calls ``window.swarmlabBridgeReady()``.

Either way a Python error at import time is reported with its traceback.
"""

import traceback

import js

RUNNING_IN_WORKER = not hasattr(js, "document")  # PyScript's own test

if RUNNING_IN_WORKER:
    from polyscript import xworker

    try:
        from swarmlab.sessions.host import Host
        host = Host()
        boot_error = None
    except Exception as exc:  # exercised by the browser boot-failure test
        # Do not raise: the worker must still answer, so that the page can show this traceback.
        host, boot_error = None, "".join(traceback.format_exception(exc))

    def _copy_frame(frame, buffer):
        """The frame as a JS Float32Array, reusing ``buffer`` when it is large enough."""
        n = int(frame.size)
        if buffer is None or buffer.length < n:
            buffer = js.Float32Array.new(max(n, 64))
        if n:
            buffer.subarray(0, n).assign(frame)
        return buffer, n

    def _on_message(event):
        data = event.data
        reply = js.Object.new()
        reply.id = data.id
        if boot_error is not None:
            reply.crash = boot_error
            xworker.postMessage(reply)
            return
        try:
            text, frame = host.handle(data.request)
        except BaseException as exc:  # a bug in the engine (or a rule's KeyboardInterrupt): say so,
            reply.crash = "".join(traceback.format_exception(exc))  # and keep the worker alive
            xworker.postMessage(reply)
            return
        reply.reply = text
        transfer = []
        if frame is not None:
            buffer, n = _copy_frame(frame, data.buffer if data.buffer else None)
            reply.frame = buffer
            reply.length = n
            transfer.append(buffer.buffer)
        xworker.postMessage(reply, js.Array.new(*transfer) if transfer else js.Array.new())

    xworker.onmessage = _on_message
else:
    from pyscript import window

    boot = window.SwarmBoot
    boot.stage("engine", "Starting the Swarm Lab engine…")
    try:
        import numpy as np  # noqa: F401  (loaded by PyScript from the vendored wheel)
        from pyodide.ffi import create_proxy

        from swarmlab.sessions.host import Host
    except Exception as exc:  # pragma: no cover - exercised by the browser boot-failure test
        boot.fail(
            "the Swarm Lab engine could not be imported",
            "".join(traceback.format_exception(exc)),
            "Reload the page. If you host Swarm Lab, check that the whole app/ folder was deployed.",
        )
        raise

    class MainThreadBridge:
        """``window.swarmlabBridge`` for the main-thread engine (same protocol)."""

        def __init__(self):
            self.host = Host()
            self._frames = {}

        def handle(self, request):
            text, frame = self.host.handle(request)
            if frame is not None:
                import json

                self._frames[json.loads(request)["lab"]] = frame
            return text

        def frame_into(self, lab, buffer):
            """Copy the frame of the last request for ``lab`` into ``buffer``; returns its length
            (or -length when ``buffer`` is too small: call again with a larger one)."""
            frame = self._frames.get(lab)
            if frame is None:
                return 0
            n = int(frame.size)
            if buffer.length < n:
                return -n
            if n:
                buffer.subarray(0, n).assign(frame)
            return n

    window.swarmlabBridge = create_proxy(MainThreadBridge())  # kept alive for the page's lifetime
    window.swarmlabBridgeReady()  # assets/js/engine.js, MainThreadTransport
