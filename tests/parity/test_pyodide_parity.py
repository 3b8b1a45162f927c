"""CPython against Pyodide: the engine gives the same numbers in the browser's runtime.

The vendored Pyodide 0.27.7 (+ its numpy 2.0.2 wheel) runs in Node.js through
tools/pyodide_node.mjs, with app/ mounted; the same script runs here under
CPython, and the outputs are compared.  One Pyodide boot serves all checks.
"""

from __future__ import annotations

import numpy as np
import pytest

from parity_runtimes import run_both


SCRIPT = r'''
import json, numpy as np
SWARM_STEPS = 3600
out = {}
from swarmlab import cells, space, metrics
rng = np.random.default_rng(5)
x = rng.random((700, 2)) * [160.0, 100.0]
box = space.Box(160.0, 100.0)
p = cells.neighbour_pairs(x, box, 10.0)
g = cells.neighbour_pairs(rng.random((4 * 64, 2)), space.Box(1.0, 1.0), 0.12, group=np.repeat(np.arange(4), 64))
j, r = cells.nearest_any(x, box)
out["cells"] = [p.i.tolist(), p.j.tolist(), p.r.tolist(), g.i.tolist(), g.j.tolist(), j.tolist(), r.tolist()]
# the unsorted and half forms (the fast paths: 1/L products, exact r^2 filter), their
# reductions, and positions outside the box (the division path), with the vectors
u = cells.neighbour_pairs(x, box, 10.0, sort=False)
h = cells.neighbour_pairs(x, box, 10.0, half=True)
w = 1.0 / (h.r * h.r + 1.0)
far = cells.neighbour_pairs(x + rng.integers(-3, 4, x.shape) * [160.0, 100.0], box, 10.0)
out["cells_forms"] = [p.dx.tolist(), p.dy.tolist(), u.i.tolist(), u.j.tolist(), u.dx.tolist(), u.r.tolist(),
                      h.i.tolist(), h.j.tolist(), h.dx.tolist(), h.dy.tolist(), h.r.tolist(),
                      h.sum_by_i((w * h.dx, w * h.dy), odd=True).tolist(), h.counts().tolist(),
                      far.i.tolist(), far.j.tolist(), far.dx.tolist(), far.dy.tolist(), far.r.tolist()]
from swarmlab import vicsek
out["vicsek_check"] = vicsek.run_check("batched")

from swarmlab.sessions import create
s = create("vicsek")
s.call("set", json.dumps({"name": "a", "value": 0.6}))
s.call("step", json.dumps({"n": 300}))
out["vicsek_frame"] = s.frame().astype(float).tolist()

# Lab 1: exact replay.  Runs straight on the model (not a session) so that the page's
# session protocol may change without touching this oracle.  A digest of the state
# every 60 steps locates the first divergence if there is one.
import hashlib
from swarmlab import swarm

def _digest(st):
    h = hashlib.sha256()
    for a in (st.ids, st.x, st.theta):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(repr((st.step, st.next_id, st.fallbacks, st.threat)).encode())
    return h.hexdigest()[:16]

def _swarm_run(values, steps, threats=(), turns=()):
    p = swarm.SwarmParams.from_values(values)
    st = swarm.initial_state(p)
    digests = [_digest(st)]
    threatened = avoiding = 0  # agent-steps that felt a threat / an obstacle (coverage)
    for k in range(steps):
        if k in threats:
            st = swarm.start_threat(st, threats[k])
        if k in turns:
            st = swarm.turn_one(st, turns[k])
        tp = swarm.threat_position(st)
        if tp is not None:
            threatened += int(np.count_nonzero(np.any(swarm.threat_push(st.x, st.u, tp) != 0, axis=1)))
        if k % 10 == 0 and p.obstacle != "none":
            push = swarm.obstacles.avoidance(st.x, st.u, p.v, swarm.obstacles.discs(p.obstacle), swarm.BOX)
            avoiding += int(np.count_nonzero(np.any(push != 0, axis=1)))
        st = swarm.step(st, p)
        if (k + 1) % 60 == 0:
            digests.append(_digest(st))
    nb = swarm.find_neighbours(st, p)
    return {"digests": digests, "x": st.x.tolist(), "theta": st.theta.tolist(), "ids": st.ids.tolist(),
            "step": st.step, "fallbacks": st.fallbacks, "metrics": swarm.measure(st, nb),
            "threatened": threatened, "avoiding": avoiding}

out["swarm_default"] = _swarm_run({}, SWARM_STEPS)
out["swarm_obstacle_threat"] = _swarm_run({"obstacle": "passage"}, SWARM_STEPS,
                                          threats={600: 0, 1800: 42, 3000: 7}, turns={900: 3})
# fast and noisy through the passage: the fallback projection runs too
out["swarm_nearest_fallback"] = _swarm_run({"mode": "nearest", "k": 7, "obstacle": "passage", "N": 300,
                                            "v": 25.0, "sigma": 60.0}, SWARM_STEPS // 3, threats={300: 5})

print("@@RESULT@@" + json.dumps(out))
'''


@pytest.fixture(scope="module")
def both():
    return run_both(SCRIPT)


def test_cell_list_is_identical(both):
    """The same pairs, order and distances from the cell list in both runtimes (wasm32 uses 32-bit indices)."""
    cpy, pyo = both
    assert pyo["cells"] == cpy["cells"]


def test_unsorted_and_half_pairs_are_identical(both):
    """The unsorted and half-pair outputs (their order, vectors and bincount sums) and the
    search over positions outside the box agree bit for bit."""
    cpy, pyo = both
    assert len(cpy["cells_forms"][6]) * 2 == len(cpy["cells"][0])
    assert pyo["cells_forms"] == cpy["cells_forms"]


def test_eight_seed_check_is_bit_identical(both):
    cpy, pyo = both
    assert pyo["vicsek_check"] == cpy["vicsek_check"]


def test_vicsek_live_stage_is_bit_identical(both):
    cpy, pyo = both
    assert pyo["vicsek_frame"] == cpy["vicsek_frame"]


SWARM_RUNS = ["swarm_default", "swarm_obstacle_threat", "swarm_nearest_fallback"]


@pytest.mark.parametrize("run", SWARM_RUNS)
def test_swarm_lab_replays_bit_identically(both, run):
    """Lab 1 in CPython (the CLI) equals Lab 1 in the page's Pyodide, bit for bit.

    default: 150 agents, noise on, 3,600 steps (60 model s).  obstacle_threat: the
    passage, three threats and a turn-one, 3,600 steps.  nearest_fallback: nearest-few
    mode, the passage at speed 25 and noise 60 (the fallback runs), 300 agents, 1,200 steps.  Before detmath was used everywhere
    these diverged from the first seconds (5e-12 at 10 s, the whole world by 37 s).
    """
    cpy, pyo = both
    a, b = cpy[run], pyo[run]
    first = next((k for k, (da, db) in enumerate(zip(a["digests"], b["digests"])) if da != db), None)
    if first is not None:
        worst = max(abs(p - q) for p, q in zip(np.ravel(a["x"]), np.ravel(b["x"])))
        pytest.fail(f"{run}: states differ from step {60 * first} on (first 60-step digest that differs); "
                    f"final positions differ by up to {worst:.3g} lengths")
    assert len(a["digests"]) == len(b["digests"]) > 1
    for key in ("x", "theta", "ids", "step", "fallbacks", "threatened", "avoiding"):
        assert a[key] == b[key], f"{run}: {key} differs"
    # The readouts are computed from the identical state but do not feed it back;
    # metrics.rotation_order still uses numpy's trig, so allow its last bits.
    assert a["metrics"].keys() == b["metrics"].keys()
    for name, value in a["metrics"].items():
        assert b["metrics"][name] == pytest.approx(value, rel=1e-12, abs=1e-15), name


def test_obstacle_run_exercises_the_fallback_and_threats(both):
    """The obstacle run really reaches the code paths it is meant to compare."""
    cpy, _ = both
    run = cpy["swarm_obstacle_threat"]
    assert run["threatened"] > 100 and run["avoiding"] > 100, run
    fast = cpy["swarm_nearest_fallback"]
    assert fast["fallbacks"] > 0 and fast["threatened"] > 0 and fast["step"] == 1200, fast
    assert cpy["swarm_default"]["step"] == 3600
