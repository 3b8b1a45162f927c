"""Lab 1 uses IEEE-exact operations only on every path that feeds the state.

numpy's and libm's sin, cos, arctan2, hypot, log and exp round differently between builds
(x86-64 CPython against Pyodide's wasm32), and the flock is chaotic, so one such call
anywhere in a step makes the page and the CLI drift apart.  Here they are all replaced by
functions that raise, and every kind of step and intervention still runs.
(The bit-for-bit comparison with Pyodide itself is tests/parity/test_pyodide_parity.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from swarmlab import swarm
from libm_guard import forbid_libm


@pytest.fixture
def no_libm(monkeypatch):
    forbid_libm(monkeypatch, "the Lab 1 state")


@pytest.mark.parametrize("values", [
    {},
    {"obstacle": "passage", "v": 25.0, "sigma": 60.0},
    {"obstacle": "circle", "mode": "nearest", "k": 5, "start": "scattered"},
    {"separation": False, "cohesion": False, "R": 40.0},
])
def test_steps_and_interventions_use_no_libm(no_libm, values):
    p = swarm.SwarmParams.from_values(values)
    st = swarm.initial_state(p)  # placement (cluster discs) and headings
    st = swarm.advance(st, p, 60)
    st = swarm.start_threat(st, 0)
    st = swarm.turn_one(st, 3)
    st = swarm.advance(st, p, 60)
    st = swarm.set_population(st, p.N + 25, p.obstacle)  # added agents: placement again
    st, _ = swarm.place_obstacle(st, "passage")  # the fallback projection
    st = swarm.advance(st, p.with_values(obstacle="passage"), 30)
    assert st.step == 150 and st.n == p.N + 25 and st.threat is not None
    assert np.isfinite(st.x).all() and np.isfinite(st.theta).all()


def test_the_guard_itself_catches_a_libm_call(no_libm):
    with pytest.raises(AssertionError, match="np.hypot"):
        np.hypot(3.0, 4.0)
