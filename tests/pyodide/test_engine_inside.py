"""The engine inside Pyodide itself (pytest-pyodide ``@run_in_pyodide``, Node and Chromium).

What runs where: the test function here runs in CPython; each ``@run_in_pyodide``
helper's body runs inside Pyodide 0.27.7 + numpy 2.0.2 (wasm32), the runtime the page
uses, with the current ``app/swarmlab`` unpacked by the ``engine`` fixture.

* the index dtype contract (``np.intp`` is int32 there);
* the cell list against the brute-force oracle, bit for bit, inside Pyodide;
* unit-test files run unchanged inside Pyodide (cell-list and metrics oracles among them);
* one step of each model in Pyodide equals the same step in CPython, bit for bit.
"""

from __future__ import annotations

import pickle
from dataclasses import fields, is_dataclass, replace

import numpy as np
import pytest
from pytest_pyodide import run_in_pyodide

from pyodide_test_dist import INSIDE_TESTS  # tools/ is on sys.path (tests/conftest.py)


# --- the index dtype contract ------------------------------------------------------------------
@run_in_pyodide(packages=["numpy"])
def _dtype_contract(selenium):
    import numpy as np

    from swarmlab import cells, metrics, space

    assert np.dtype(np.intp).itemsize == 4  # wasm32: indices are 32-bit
    # the fact behind the contract: numpy on wasm32 refuses int64 indices here
    refused = []
    for name, call in (("bincount", lambda a: np.bincount(a)), ("repeat", lambda a: np.repeat([1.0, 2.0], a)),
                       ("take", lambda a: np.take(np.arange(3.0), a))):
        try:
            call(np.array([1, 1], dtype=np.int64))
        except TypeError:
            refused.append(name)
    rng = np.random.default_rng(3)
    box = space.Box(30.0, 20.0)
    x = rng.random((400, 2)) * [30.0, 20.0]
    p = cells.neighbour_pairs(x, box, 2.5)
    q = cells.neighbour_pairs(x, box, 2.5, sort=False)
    g = cells.neighbour_pairs(x, box, 2.5, group=np.repeat(np.arange(4), 100))
    j, r = cells.nearest_any(x, box)
    jq, _ = cells.nearest_any(x, box, query=np.array([3, 5, 7], dtype=np.int64))
    labels = metrics.group_labels(p)
    u = np.stack([np.cos(rng.random(400)), np.sin(rng.random(400))], axis=1)
    kn = cells.k_nearest(cells.in_field_of_view(p, u, 2.0), 3)
    dtypes = {"i": p.i.dtype, "j": p.j.dtype, "unsorted_i": q.i.dtype, "group_i": g.i.dtype, "group_j": g.j.dtype,
              "nearest_j": j.dtype, "query_j": jq.dtype, "labels": labels.dtype, "knn_i": kn.i.dtype}
    # the indices work where int64 would not
    assert np.bincount(p.i, minlength=p.n).sum() == len(p)
    assert np.take(x[:, 0], p.j).shape == (len(p),)
    return refused, {k: str(v) for k, v in dtypes.items()}, str(np.dtype(np.intp)), len(p)


def test_index_dtype_contract_is_intp(engine):
    refused, dtypes, intp, npairs = _dtype_contract(engine)
    assert intp == "int32"
    assert npairs > 1000
    assert refused == ["bincount", "repeat", "take"], refused
    assert dtypes == {k: "int32" for k in dtypes}, dtypes


# --- the cell-list oracle, inside Pyodide -------------------------------------------------------
@run_in_pyodide(packages=["numpy"])
def _cell_list_oracle(selenium):
    import numpy as np

    import oracles
    from swarmlab import cells, space

    def same(a, b):
        return (a.n == b.n and np.array_equal(a.i, b.i) and np.array_equal(a.j, b.j)
                and np.array_equal(a.d.view(np.int64), b.d.view(np.int64))
                and np.array_equal(a.r.view(np.int64), b.r.view(np.int64)))

    rng = np.random.default_rng(11)
    checked = 0
    for box, n, cutoffs in ((space.Box(160.0, 100.0), 600, (3.2, 10.0, 40.0)), (space.Box(1.0, 1.0), 300, (0.12, 0.5)),
                            (space.Box(3.0, 2.0), 200, (0.3, 1.0, 1.5))):
        x = rng.random((n, 2)) * [box.width, box.height]
        x[:5] = x[5:10]  # coincident agents
        x[10, 0] = 0.0  # on the edge
        for cutoff in cutoffs:
            for group in (None, rng.integers(0, 3, n)):
                got = cells.neighbour_pairs(x, box, cutoff, group)
                want = oracles.neighbour_pairs(x, box, cutoff, group)
                assert same(got, want), (box, cutoff, group is None)
                checked += 1
            u = np.stack([np.cos(rng.random(n) * 6.28), np.sin(rng.random(n) * 6.28)], axis=1)
            fov = cells.in_field_of_view(got, u, 2.356194490192345)
            assert same(fov, oracles.in_field_of_view(want, u, 2.356194490192345))
            for half in (2.356194490192345, 0.0):  # half pairs in view: the ordered pairs in view, bit for bit
                h = cells.neighbour_pairs(x, box, cutoff, sort=False, half=True)
                assert same(cells.in_field_of_view(h, u, half),
                            cells.in_field_of_view(cells.neighbour_pairs(x, box, cutoff, sort=False), u, half))
            assert same(cells.k_nearest(fov, 7), oracles.k_nearest(fov, 7))
        j, r = cells.nearest_any(x, box)
        jo, ro = oracles.nearest_any(x, box)
        assert np.array_equal(j, jo) and np.array_equal(r.view(np.int64), ro.view(np.int64))
    return checked


def test_cell_list_equals_brute_force_inside_pyodide(engine):
    assert _cell_list_oracle(engine) == 16


# --- unit-test files, unchanged, inside Pyodide -------------------------------------------------
@run_in_pyodide(packages=["numpy", "pytest"])
def _pytest_inside(selenium, name):
    import contextlib
    import io

    import pytest

    ini = "/tmp/src/pytest.ini"
    with open(ini, "w") as f:
        f.write("[pytest]\naddopts = -q --import-mode=importlib -p no:cacheprovider -p no:faulthandler\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = pytest.main(["-c", ini, "--rootdir=/tmp/src", "--capture=sys", f"/tmp/src/tests/unit/{name}"])
    return int(code), out.getvalue()


@pytest.mark.parametrize("name", INSIDE_TESTS)
def test_unit_file_passes_inside_pyodide(engine, name):
    """E.g. test_cells.py (the cell-list oracle and the dtype contract) and test_metrics.py
    (the metrics oracles) pass under wasm32 numpy exactly as they do in CPython."""
    code, text = _pytest_inside(engine, name)
    summary = [line for line in text.splitlines() if " passed" in line or " failed" in line or "error" in line]
    assert code == 0, text[-6000:]
    assert summary and " passed" in summary[-1] and "failed" not in summary[-1], text[-2000:]


# --- one step of each model: Pyodide against CPython --------------------------------------------
def _swarm_case():
    from swarmlab import swarm

    p = swarm.SwarmParams.from_values(obstacle="passage", v=25.0, sigma=60.0)
    st = swarm.advance(swarm.initial_state(p), p, 90)
    st = swarm.start_threat(st, 3)
    return "swarm", replace(st), p, ()  # replace(): no cached unit vectors travel along


def _swarm_nearest_case():
    from swarmlab import swarm

    p = swarm.SwarmParams.from_values(mode="nearest", k=5, N=400)
    return "swarm", replace(swarm.advance(swarm.initial_state(p), p, 30)), p, ()


def _vicsek_case():
    from swarmlab import vicsek

    st, kicks = vicsek.start_state(7)
    xi = 2.0 * np.random.default_rng(1).random(st.theta.shape) - 1.0  # kicks in [-1, 1)
    return "vicsek", st, vicsek.TEACHING, (xi,)


def _boids_case():
    from swarmlab import boids

    p = boids.Params()
    st = boids.run(boids.initial_state(p), p, 30)
    return "boids", st, p, (boids.Treat(True, 40.0, 30.0),)  # the step with the treat held


CASES = {"swarm": _swarm_case, "swarm_nearest": _swarm_nearest_case, "vicsek": _vicsek_case, "boids": _boids_case}
#: cases whose step is built from IEEE-exact operations only, so Pyodide must give the same bits
#: (all of them: Lab 3 too since issue 16's defect 7, see tests/unit/test_boids_exact.py).
EXACT = {"swarm", "swarm_nearest", "vicsek", "boids"}


@run_in_pyodide(packages=["numpy"])
def _step_inside(selenium, blob):
    import importlib
    import pickle

    name, state, params, args = pickle.loads(blob)
    return pickle.dumps(importlib.import_module(f"swarmlab.{name}").step(state, params, *args))


def _arrays(obj) -> dict:
    items = {f.name: getattr(obj, f.name) for f in fields(obj)} if is_dataclass(obj) else vars(obj)
    return {k: v for k, v in items.items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("case", list(CASES))
def test_one_step_in_pyodide_equals_cpython(engine, case):
    module, state, params, args = CASES[case]()
    import importlib

    want = importlib.import_module(f"swarmlab.{module}").step(state, params, *args)
    got = pickle.loads(_step_inside(engine, pickle.dumps((module, state, params, args))))
    a, b = _arrays(want), _arrays(got)
    assert a.keys() == b.keys() and a, (a.keys(), b.keys())
    for key in a:
        assert a[key].dtype == b[key].dtype or a[key].dtype.kind == b[key].dtype.kind == "i", key
        assert a[key].shape == b[key].shape, key
        if a[key].dtype.kind == "f" and case in EXACT:
            assert np.array_equal(a[key].view(np.uint64), b[key].view(np.uint64)), (
                f"{case}.{key}: differs by up to {np.max(np.abs(a[key] - b[key])):.3g}")
        elif a[key].dtype.kind == "f":  # one step: the last bits only
            assert np.allclose(a[key], b[key], rtol=1e-13, atol=1e-13), (case, key, np.max(np.abs(a[key] - b[key])))
        else:
            assert np.array_equal(a[key], b[key]), key
