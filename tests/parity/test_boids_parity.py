"""Lab 3 replays exactly in CPython: the default boids run is bit-identical in Pyodide.

The vendored Pyodide 0.27.7 (+ its numpy 2.0.2 wheel) runs in Node.js through
tools/pyodide_node.mjs with app/ mounted; the same script runs here under CPython.
Boids are chaotic (a one-ulp difference grows until the whole flock differs within
a minute), so this only passes if every operation on the state is IEEE-exact:
no libm sin/cos/atan2/hypot, deterministic reductions (issue 16, defect 7).

The default run: 3,600 steps (90 model s) through the session the page drives,
compared as float64 bit patterns every 600 steps, plus a shorter run that uses the
treat, an all-round view and a live population change.
"""

from __future__ import annotations

import pytest

from parity_runtimes import run_both


SCRIPT = r'''
import json, numpy as np
from swarmlab.sessions import create

def bits(s):
    st = s.state
    return {"t": st.t, "steps": st.steps,
            "x": st.x.view(np.uint64).tolist(), "v": st.v.view(np.uint64).tolist()}

out = {"numpy": np.__version__, "default": []}
s = create("boids")
for _ in range(6):                      # 6 x 600 = 3,600 steps = 90 model s
    s.call("step", json.dumps({"n": 600}))
    out["default"].append(bits(s))
out["metrics"] = json.loads(s.call("metrics"))

s = create("boids")
s.call("reset", json.dumps({"sample": 7, "view": 360, "population": 120}))
s.call("step", json.dumps({"n": 200}))
s.call("treat", json.dumps({"x": 40.0, "y": 30.0, "on": True}))
s.call("step", json.dumps({"n": 200}))
s.call("treat", json.dumps({"x": 40.0, "y": 30.0, "on": False}))
s.call("population", json.dumps({"n": 150}))
s.call("preset", json.dumps({"name": "cohesion"}))
s.call("step", json.dumps({"n": 200}))
out["mixed"] = bits(s)
print("@@RESULT@@" + json.dumps(out))
'''


@pytest.fixture(scope="module")
def both():
    return run_both(SCRIPT)


def test_it_really_is_two_runtimes(both):
    cpy, pyo = both
    assert pyo["numpy"] == "2.0.2"
    assert len(cpy["default"]) == len(pyo["default"]) == 6


def test_default_run_is_bit_identical_for_3600_steps(both):
    cpy, pyo = both
    for a, b in zip(cpy["default"], pyo["default"]):
        assert (a["steps"], a["t"]) == (b["steps"], b["t"])
        assert a["x"] == b["x"], f"positions differ at step {a['steps']}"
        assert a["v"] == b["v"], f"velocities differ at step {a['steps']}"
    assert cpy["default"][-1]["steps"] == 3600
    assert cpy["metrics"] == pyo["metrics"]


def test_treat_view_population_and_preset_run_is_bit_identical(both):
    cpy, pyo = both
    assert cpy["mixed"] == pyo["mixed"]
