# The worker of the stack's floor page (pyscript-worker.html): import numpy, then answer.
import numpy  # noqa: F401
from polyscript import xworker


def _answer(event):
    xworker.postMessage("numpy imported")


xworker.onmessage = _answer
