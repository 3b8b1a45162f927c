"""The peers bench measures the step it claims to: the plain-JS grid and naive peers and the
page's own function on the ordered pairs take the same step as swarmlab.boids.step from the same state.

(The bench broke silently once when Lab 3's rules changed under it; this keeps the peers
in step with the model.  It compares results, never times.)
"""

import pytest

from tools.bench import peers

@pytest.mark.parametrize("overrides", [{}, *peers.VARIANTS], ids=["defaults", "all-round", "narrow"])
def test_peers_take_the_same_step(overrides):
    eq = peers.equivalence(log=lambda *a: None, overrides=overrides)
    assert eq["ok"], eq
    assert set(eq) >= {"floor_rel", "js_grid_rel", "js_naive_rel"}


def test_peer_parameters_come_from_the_engine():
    from swarmlab import boids

    p = peers._params_json({"view": 120.0})
    assert p["cos_half"] == boids.cos_half_view(120.0)
    assert p["radius"] == boids.RADIUS and p["v_max"] == boids.V_MAX and p["DT"] == boids.DT
