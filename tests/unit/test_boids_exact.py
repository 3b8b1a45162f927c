"""Lab 3 uses IEEE-exact operations only on every path that feeds the state (issue 16, defect 7).

numpy's and libm's sin, cos, arctan2, hypot, log and exp round differently between builds
(x86-64 CPython against Pyodide's wasm32), and a flock is chaotic, so one such call
anywhere in a step makes the page and the CLI drift apart within a minute.  Here they
are all replaced by functions that raise, and every kind of step and intervention
still runs (the readouts, e.g. P, may use libm: they never feed the state).  (The bit-for-bit comparison with Pyodide itself is
tests/parity/test_boids_parity.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from swarmlab import boids as B
from libm_guard import forbid_libm


@pytest.fixture
def no_libm(monkeypatch):
    forbid_libm(monkeypatch, "the Lab 3 state")


@pytest.mark.parametrize("values", [
    {},
    {"view": 360.0, "population": 150, "k_ali": 2.5},
    {"view": 90.0, "sep_radius": 12.0, "coh_radius": 2.0, "max_force": 40.0, "v_min": 0.5, "v_max": 30.0},
    {"k_sep": 0.0, "k_ali": 0.0},
])
def test_steps_and_interventions_use_no_libm(no_libm, values):
    p = B.Params(sample=9).with_values(**values)
    st = B.initial_state(p)  # birth headings (detmath.sincos)
    st = B.run(st, p, 40)
    st = B.run(st, p, 40, B.Treat(True, 30.0, 20.0))  # the treat
    st = B.resize_population(st, p.population + 30, p)  # newly born boids
    st = B.rescale_world(st, p.box, B.Params(width=120.0, height=140.0).box)
    st = B.run(st, p.with_values(width=120.0, height=140.0, population=p.population + 30), 40)
    assert st.steps == 120 and st.n == p.population + 30
    assert np.isfinite(st.x).all() and np.isfinite(st.v).all()


def test_the_guard_itself_catches_a_libm_call(no_libm):
    with pytest.raises(AssertionError, match="np.hypot"):
        np.hypot(3.0, 4.0)
