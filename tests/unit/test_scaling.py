"""Lab 3's "ten or ten thousand" (issue 17): the naive search finds exactly the cell list's
neighbours, the world grows to keep the density, and the session's scale/cost ops."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from swarmlab import boids as B
from swarmlab import cells, scaling
from swarmlab.sessions import create
from swarmlab.space import Box


@pytest.mark.parametrize("n, reach", [(3, 5.0), (50, 16.0), (400, 16.0), (400, 40.0), (1500, 4.0)])
def test_everyone_checks_everyone_finds_the_cell_lists_pairs(n, reach):
    rng = np.random.default_rng(n)
    box = Box(160.0, 100.0)
    x = rng.random((n, 2)) * box.size
    x[:3] = [[0.5, 0.5], [159.5, 99.5], [80.0, 0.2]]  # neighbours across the wrapped edges
    assert scaling.everyone_checks_everyone(x, box, reach) == len(cells.neighbour_pairs(x, box, reach))


@pytest.mark.parametrize("rows", [0, 1, 37, 300, 400])
def test_a_sample_of_rows_finds_those_boids_pairs(rows):
    """Timing a sample: the first ``rows`` boids check everyone, and find exactly their pairs."""
    rng = np.random.default_rng(3)
    box = Box(100.0, 100.0)
    x = rng.random((300, 2)) * 100.0
    pairs = cells.neighbour_pairs(x, box, 12.0)
    assert scaling.everyone_checks_everyone(x, box, 12.0, rows) == int(np.count_nonzero(pairs.i < rows))
    assert [scaling.naive_rows(n) for n in (10, 1000, 1414, 1415, 3000, 10000)] == [10, 1000, 1414, 1413, 666, 200]


def test_everyone_checks_everyone_in_blocks(monkeypatch):
    """Blocks of a few rows give the same count as one block."""
    rng = np.random.default_rng(7)
    box = Box(100.0, 100.0)
    x = rng.random((300, 2)) * 100.0
    whole = scaling.everyone_checks_everyone(x, box, 12.0)
    monkeypatch.setattr(scaling, "BLOCK_ELEMENTS", 1000)
    assert scaling.everyone_checks_everyone(x, box, 12.0) == whole > 0


@pytest.mark.parametrize("n", scaling.SIZES)
@pytest.mark.parametrize("aspect", [0.3, 0.9, 1.6, 5.0])
def test_world_keeps_the_default_density(n, aspect):
    w, h = scaling.world_for(n, aspect)
    assert n / (w * h) == pytest.approx(80 / (B.WORLD_WIDTH * B.WORLD_HEIGHT), rel=1e-4)
    assert w / h == pytest.approx(min(max(aspect, 0.5), 2.0), rel=1e-4)
    B.Params().with_values(width=w, height=h)  # inside the world specs, even at 10,000


def test_scale_restarts_at_the_same_density_and_keeps_the_settings():
    s = create("boids")
    s.op_set("k_ali", 0.5)
    s.op_step(40)
    aspect = s.params.width / s.params.height
    out = s.op_scale(3000)
    assert out["N"] == 3000 and out["t"] == 0.0 and out["params"]["population"] == 3000
    assert out["params"]["k_ali"] == 0.5
    w, h = out["world"]["width"], out["world"]["height"]
    assert w / h == pytest.approx(aspect, rel=1e-3) and 3000 / (w * h) == pytest.approx(80 / 16000, rel=1e-3)
    # each boid's neighbourhood is the same at any size: about pi R^2 / 200 boids within the
    # alignment range R at the random start (Poisson), at 100 boids as at 3,000
    means = []
    for n in (100, 3000):
        s.op_scale(n)
        means.append(len(cells.neighbour_pairs(s.state.x, s.params.box, s.params.radius)) / n)
    expected = math.pi * s.params.radius ** 2 / scaling.AREA_PER_BOID
    assert all(abs(m - expected) < 0.25 * expected for m in means), (means, expected)
    s.op_step(2)  # and it runs
    assert np.isfinite(s.frame()).all()


@pytest.mark.parametrize("bad", [9, 10001, "many", None, 2.5, float("nan")])
def test_scale_refuses_bad_sizes_and_changes_nothing(bad):
    s = create("boids")
    before = s.op_state()
    with pytest.raises(ValueError, match="n"):
        s.op_scale(bad)
    assert s.op_state() == before


def test_cost_times_real_steps_and_the_naive_search():
    s = create("boids")
    s.op_scale(100)
    out = s.op_cost(3)
    warm = scaling.WARM_UP_STEPS
    assert out["n"] == 100 and s.state.steps == warm + 3  # untimed warm-up steps first
    assert out["step_us"] > 0 and out["naive_us"] > 0
    with pytest.raises(ValueError):
        s.op_cost(0)
    # left to the engine: about 20,000 boid-steps, at least a step per round, at most 40
    s.op_cost()
    assert s.state.steps == 2 * warm + 3 + scaling.timed_steps(100) == 2 * warm + 3 + 40
    assert [scaling.timed_steps(n) for n in (10, 500, 1000, 3000, 10000, 100000)] == [40, 40, 20, 7, 3, 3]
    # the panel's chart plots what cost answers, under the session's words
    words = s.display()["scaling"]
    assert [x["key"] for x in words["series"]] == [k for k in out if k not in ("n", "settings")]
    assert words["slider"] == scaling.SCALE_SPECS[0].label and words["title"] and words["y_label"]


def test_a_costs_settings_change_with_the_rules_not_with_the_size():
    """The page starts its chart again when the settings a cost was measured under change."""
    s = create("boids")
    s.op_scale(100)
    first = s.op_cost(3)["settings"]
    s.op_scale(300)
    assert s.op_cost(3)["settings"] == first  # another size, the same settings
    s.op_set("k_coh", 0.5)
    changed = s.op_cost(3)["settings"]
    assert changed != first and "k_coh=0.5" in changed
    original = s.op_rules_source()["original"]
    s.op_rules(original)  # a student's rule, even the same code
    mine = s.op_cost(3)["settings"]
    assert mine != changed
    s.op_rules(original.replace("return allocate([p.k_sep", "return allocate([2 * p.k_sep"))
    assert s.op_cost(3)["settings"] != mine  # another rule of the student's


def test_the_naive_cost_is_per_boid_of_the_sample(monkeypatch):
    """At 3,000 boids the naive search times 666 boids' checks; its cost per boid divides by them."""
    s = create("boids")
    s.op_scale(3000)
    seen = []
    monkeypatch.setattr(scaling, "everyone_checks_everyone", lambda x, box, reach, rows=None: seen.append(rows))
    monkeypatch.setattr(sys.modules[type(s).__module__], "_seconds_per_run", lambda run, seconds, most: (run(), 0.5)[1])
    out = s.op_cost(3)
    assert seen and set(seen) == {scaling.naive_rows(3000)} == {666}
    assert out["naive_us"] == pytest.approx(0.5 / 666 * 1e6)


def test_a_scaled_run_snapshots_and_restores_exactly():
    """The rules panel restores the last good second after a stalled rule: that must work for a
    flock the scaling experiment made bigger than the population slider allows."""
    s = create("boids")
    s.op_scale(3000)
    s.op_step(3)
    snap = s.op_snapshot()
    x = s.state.x.copy()
    s.op_step(5)
    s.op_restore(snap)
    assert s.state.n == 3000 and np.array_equal(s.state.x, x) and s.params.population == 3000


def test_a_cost_is_the_fastest_of_its_rounds(monkeypatch):
    """The timed steps are shared by up to TIMED_ROUNDS rounds (all of them run: the model
    advances by exactly the steps asked), and the answer is the fastest round's time per step."""
    assert scaling.rounds(40) == [14, 13, 13] and scaling.rounds(2) == [1, 1] and scaling.rounds(1) == [1]
    assert all(sum(scaling.rounds(k)) == k for k in range(1, 41))
    s = create("boids")
    s.op_scale(100)
    # the untimed warm-up (slowest of all: a new flock's first step), then per round: a busy
    # first round, then a quiet one
    seconds = iter([5.0, 0.9, 0.1, 0.5])
    monkeypatch.setattr(type(s), "_advance", lambda self, k, reuse=True: (self._run(k, reuse), next(seconds) * k)[1])
    out = s.op_cost(3)
    assert out["step_us"] == pytest.approx(0.1 / 100 * 1e6)
    assert s.state.steps == scaling.WARM_UP_STEPS + 3
