"""A placeholder session that proves the JS -> Python -> canvas loop.

Random walkers in the unit square, drawn by ``assets/js/labs/placeholder.js``
for any lab whose page module is not available.  Frame layout: [x0, y0, x1, y1, ...].
"""

from __future__ import annotations

import numpy as np

from ..params import ParamSpec, validate
from ..space import Box, wrap
from .base import Session


class DemoSession(Session):
    lab = "demo"
    SPECS = (ParamSpec("n", 200, "Walkers", kind="int", min=1, max=5000, step=1),)

    def __init__(self):
        self.op_reset()

    def op_reset(self, n=200, seed=0):
        n = validate(self.SPECS, "n", n)
        self.rng = np.random.default_rng(seed)
        self.box = Box(1.0, 1.0)
        self.x = self.rng.random((n, 2))
        self.t = 0
        return self.op_state()

    def op_step(self, n=1):
        for _ in range(int(n)):
            self.x = wrap(self.x + 0.004 * self.rng.standard_normal(self.x.shape), self.box)
            self.t += 1
        return {"t": self.t}

    def op_state(self):
        return {"t": self.t, "n": int(self.x.shape[0])}

    def op_metrics(self):
        return self.op_state()

    def op_set(self, name, value):
        return self.op_reset(**{name: value})

    def frame(self):
        return np.ascontiguousarray(self.x, dtype=np.float32).ravel()


def make_session() -> DemoSession:
    return DemoSession()
