"""Several Lab 3 flocks stepped together (``boids.run_many``) give exactly the runs made one
at a time: the same positions, velocities and measures, bit for bit.

Why it can: the one neighbour search per step covers all flocks with a flock id per boid, and
the cell list sorts boids by (flock, cell) stably, so each flock's pairs keep the order its
own search gives them, and every per-boid ``np.bincount`` sum adds the same values in the same
order.  These tests are what makes that an engine fact rather than a hope: if a change to the
search or the rules broke it, the goal table (tests/unit/test_boids_behaviour.py) and the
rules' ideas (tests/unit/test_rules.py), which use ``run_many``, would no longer measure the
runs the page makes, and these would fail first.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from swarmlab import boids as B
from swarmlab import rules, rules_boids


def assert_same_runs(many, one_by_one):
    assert len(many) == len(one_by_one)
    for a, b in zip(many, one_by_one):
        assert np.array_equal(a.x, b.x) and np.array_equal(a.v, b.v)
        assert np.array_equal(a.ids, b.ids) and (a.steps, a.next_id) == (b.steps, b.next_id)


SETTINGS = [
    {},
    {"view": 360.0},  # everyone in view: the view test is skipped
    {"k_ali": 0.0, "view": 30.0},
    B.PRESETS["cohesion"],  # reach 60 lengths: a few big cells
    {"population": 7},  # a sparse sky
    {"population": 400, "width": 300.0, "height": 200.0},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v:g}" for k, v in s.items()) or "defaults")
def test_flocks_stepped_together_are_the_runs_made_one_by_one(settings):
    p = B.Params().with_values(**settings)
    first = B.initial_states(p, (1, 2, 3, 5))
    many = B.run_many(first, p, 160)
    assert_same_runs(many, [B.run(s, p, 160) for s in first])
    # and the flocks really differ (a run_many that copied one flock would fail above only by luck)
    assert not np.array_equal(many[0].x, many[1].x)
    # the states handed in are untouched (pure)
    assert_same_runs(first, B.initial_states(p, (1, 2, 3, 5)))


def test_a_world_smaller_than_twice_the_reach_and_positions_outside_it():
    """Reach 16 in a 30 x 20 world takes the cell list's other path (both directions searched
    on their own, cutoff >= half the box); a flock given outside the box is wrapped first."""
    p = B.Params(population=40, width=30.0, height=20.0)
    first = B.initial_states(p, (1, 2, 3))
    first[1] = replace(first[1], x=first[1].x + [30.0, -20.0])  # the same flock, one world over
    assert_same_runs(B.run_many(first, p, 60), [B.run(s, p, 60) for s in first])


@pytest.mark.parametrize("population", (2, 3))
def test_the_smallest_flocks(population):
    p = B.Params(population=population, width=10.0, height=10.0)
    first = B.initial_states(p, (1, 2, 3, 4))
    assert_same_runs(B.run_many(first, p, 200), [B.run(s, p, 200) for s in first])


def test_a_students_rule_and_the_treat_give_the_same_runs():
    p = B.Params()
    idea = rules_boids.IDEAS[0]
    rule = rules.load(idea.apply(rules_boids.KIND.source()), rules_boids.KIND)
    first = B.run_many(B.initial_states(p, (4, 6, 7)), p, 40)  # flocks already moving
    treat = B.Treat(True, 80.0, 50.0)
    many = B.run_many(first, p, 120, treat=treat, rule=rule)
    assert_same_runs(many, [B.run(s, p, 120, treat, rule) for s in first])


def test_states_at_different_times_keep_their_own_clocks():
    p = B.Params()
    a = B.run(B.initial_state(replace(p, sample=1)), p, 30)
    b = B.initial_state(replace(p, sample=2))
    many = B.run_many([a, b], p, 25)
    assert [s.steps for s in many] == [55, 25]
    assert_same_runs(many, [B.run(a, p, 25), B.run(b, p, 25)])


def test_one_flock_or_none():
    p = B.Params(sample=3)
    s = B.initial_state(p)
    assert_same_runs(B.run_many([s], p, 10), [B.run(s, p, 10)])
    assert B.run_many([], p, 10) == []


def test_flocks_of_different_sizes_are_refused_with_a_message():
    p = B.Params()
    small = B.initial_state(replace(p, population=10))
    with pytest.raises(ValueError, match="one population: flock 0 has 10 boids, flock 1 80"):
        B.run_many([small, B.initial_state(p)], p, 1)
    torn = replace(small, v=small.v[:9])  # velocities that do not match the positions
    with pytest.raises(ValueError, match=r"flock 1: positions \(10, 2\), velocities \(9, 2\)"):
        B.run_many([small, torn], p, 1)
    with pytest.raises(ValueError, match="whole number of steps"):
        B.run_many([small, small], p, -1)


def test_the_measures_over_many_samples_are_those_of_each_sample():
    """liveliness_many and cohesion_only_many (the goal table's parts: ``goal_rows``, which the
    goal table's test and the CLI use) equal their one-sample forms, which step one flock alone
    (short runs; tests/unit/test_boids_session.py compares a whole CLI row with ``goal_row``)."""
    p = B.Params()
    many = B.liveliness_many(p, [2, 8], seconds=6.0, start=2.0)
    assert many == [B.liveliness(replace(p, sample=k), 6.0, start=2.0) for k in (2, 8)]
    assert all(m["seconds"] == 5 for m in many) and many[0] != many[1]
    clumps = B.cohesion_only_many(p, [5, 1], seconds=3.0)
    assert clumps == [B.cohesion_only(replace(p, sample=k), 3.0) for k in (5, 1)]


def test_samples_and_seconds_are_checked_before_anything_runs():
    """A sample list is checked as Params checks a sample (1.5, True and NaN used to run
    samples 1, 1 and fail inside int()), and the liveliness measures need a whole number of
    seconds past their start (before, 30 s printed NaN and zero counts that read like a run
    with no splits and no turns)."""
    p = B.Params()
    assert [s.ids.size for s in B.initial_states(p, [np.int64(2), 3.0, "4"])] == [80, 80, 80]
    for bad in ([1.5, 2.7], [True], [float("nan")]):
        with pytest.raises(ValueError, match=re.escape("Sample number (sample) must be")):
            B.initial_states(p, bad)
        with pytest.raises(ValueError, match=re.escape("Sample number (sample) must be")):
            B.goal_rows(p, bad, 61)
    for seconds in (-5, 0, 2.6, 60, 60.5, "90", float("nan")):
        with pytest.raises(ValueError, match="whole number of model seconds after start = 60 s"):
            B.liveliness_many(p, [1], seconds=seconds)
    with pytest.raises(ValueError, match="after start = 2 s"):
        B.liveliness(p, seconds=2, start=2.0)


def test_a_failing_rule_says_its_shapes_are_of_the_stacked_flocks():
    """A rule that returns the wrong shape names the boids of all the flocks at once (320 for
    four flocks of 80); the message says that run_many stacked them, and keeps its line."""
    p = B.Params()
    wide = lambda i, j, d, r, v, p: np.zeros((len(v), 3))  # noqa: E731  (one column too many)
    with pytest.raises(rules.RuleError) as alone:
        B.run(B.initial_state(p), p, 1, rule=wide)
    with pytest.raises(rules.RuleError) as many:
        B.run_many(B.initial_states(p, (1, 2, 3, 4)), p, 1, rule=wide)
    assert "(320, 3)" in str(many.value) and "(80, 3)" in str(alone.value)
    assert str(many.value).endswith("(run_many calls the rule once a step with its 4 flocks of 80 boids stacked: 320 boids)")
    assert (many.value.line, many.value.kind) == (alone.value.line, alone.value.kind)


def test_a_long_rule_message_keeps_the_stacked_flocks_note():
    """The note is added to a message RuleError already clipped; clipped again as a whole it
    lost the note.  Now the rule's own words give way, and the note stays."""
    p = B.Params()
    loud = rules.load("def steering(i, j, d, r, v, p):\n    raise ValueError('x' * 5000)\n", rules_boids.KIND)
    with pytest.raises(rules.RuleError) as many:
        B.run_many(B.initial_states(p, (1, 2)), p, 1, rule=loud)
    text = str(many.value)
    assert text.endswith("(run_many calls the rule once a step with its 2 flocks of 80 boids stacked: 160 boids)")
    assert len(text) <= rules.MAX_MESSAGE_CHARS and "ValueError" in text
