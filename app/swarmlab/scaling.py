""""Ten or ten thousand": why local rules scale (Lab 3, issue 17).

The experiment grows the flock from 10 to 10,000 boids while the world grows with it, so
the density, and hence each boid's neighbourhood, stays the same as in the default sky
(80 boids on 160 x 100 lengths: ``AREA_PER_BOID`` = 200 lengths^2 each).  The page then
measures, in the student's own browser, two costs per boid per step:

* the model's real step (one cell-list neighbour search, :mod:`swarmlab.cells`, then the
  three rules): about constant per boid, because each boid's work is a sum over its few
  neighbours and finding them costs only the cells next to its own;
* :func:`everyone_checks_everyone`: the same neighbours found the naive way, every boid
  measuring its distance to every other boid.  Per boid that is N - 1 distances, so the
  cost per boid grows in proportion to N (the total as N^2).  Only the search is timed
  for this curve, not the rules, so it flatters the naive way.  Above NAIVE_PAIRS / N
  boids only that many boids' checks are timed (each against all N): every boid does the
  same work, so the time per boid is the same, and the engine is not held for seconds
  (the whole search of 10,000 boids takes about 6 s in a browser, 50 times the sample).

Before a size is timed, WARM_UP_STEPS steps run untimed: the first steps of a new flock
also grow the search's scratch buffers, which made a first reading up to 4 times the rest.

Units: lengths, as in :mod:`swarmlab.boids`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from . import boids
from .params import ParamSpec, spec_named, validate
from .space import Box, displacement, norm

DEFAULT_POPULATION = spec_named(boids.SPECS, "population").default  # the default sky's flock
AREA_PER_BOID = boids.WORLD_WIDTH * boids.WORLD_HEIGHT / DEFAULT_POPULATION  # lengths^2: its density
SIZES = (10, 30, 100, 300, 1000, 3000, 10000)  # the experiment's populations (a log scale)
ASPECT_RANGE = (0.5, 2.0)  # width / height kept inside this, so 10,000 boids fit the world specs
BLOCK_ELEMENTS = 1 << 20  # pairs per block of the naive search (memory stays ~ 16 MiB)
NAIVE_PAIRS = 2_000_000  # pairs one timed run of the naive search checks, at most (rows x N)
MIN_TIMED_SECONDS = 0.05  # the naive search is repeated until it has run this long...
MAX_TIMED_RUNS = 5000  # ...or this many times (for 10 boids it takes microseconds)

SCALE_SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("n", DEFAULT_POPULATION, "Boids at the default density", kind="int", min=SIZES[0], max=SIZES[-1], step=1,
              help="The flock restarts with this many boids in a sky grown to keep the default density."),
)


def with_population(params: boids.Params, value) -> boids.Params:
    """``params`` with the population ``value``: the slider's range, or one of the experiment's
    sizes above it when the world is big enough for it at the default density (a link copied at
    10,000 boids carries its grown world).  The page's restart and the command line both take a
    population this way, so a link's run can be replayed from Python; ValueError names the bound."""
    slider = spec_named(boids.SPECS, "population")
    try:
        n = validate(boids.SPECS, "population", value)
    except ValueError as beyond_slider:
        try:
            n = validate(SCALE_SPECS, "n", value)
        except ValueError:
            raise ValueError(f"{beyond_slider}, or up to {SIZES[-1]:,} with a sky grown to match "
                             f"(at least {AREA_PER_BOID:g} square lengths a boid)") from None
    area = params.width * params.height
    if n > slider.max and area < 0.99 * n * AREA_PER_BOID:
        # (at the slider's world, 10,000 boids would have 125 times the neighbours)
        raise ValueError(f"{n:,} boids need the scaling experiment's sky of at least "
                         f"{n * AREA_PER_BOID:,.0f} square lengths; this one has {area:,.0f} "
                         f"(the population slider goes to {slider.max:,})")
    return replace(params, population=n)


TIMED_BOID_STEPS = 20_000  # a cost measurement times about this many boid-steps (coarse browser clocks)
TIMED_ROUNDS = 3  # ...in up to this many rounds, of which the fastest is the answer
COST_SPECS: tuple[ParamSpec, ...] = (  # the default: one step a round, the least timed_steps gives
    ParamSpec("steps", TIMED_ROUNDS, "Steps to time", kind="int", min=1, max=40, step=1),
)
WARM_UP_STEPS = 1  # steps run before the timed ones, untimed
# The panel's words: its title, the chart's axes and its two series (keyed as the boids session's
# op_cost answers), published by that session's display() with SCALE_SPECS' label for the slider.
CHART = {"id": "scaling", "title": "Ten or ten thousand", "x_label": "boids (log scale)",
         "y_label": "time per boid per step (µs)",
         "series": [{"key": "step_us", "label": "this model's step (cell list + rules)"},
                    {"key": "naive_us", "label": "everyone checks everyone (search only)"}]}


def timed_steps(n: int) -> int:
    """How many steps a cost measurement at ``n`` boids times when the page leaves it to the
    engine: about TIMED_BOID_STEPS boid-steps, at least one step per round (TIMED_ROUNDS),
    never more than COST_SPECS allows."""
    most = int(COST_SPECS[0].max)
    return max(TIMED_ROUNDS, min(most, round(TIMED_BOID_STEPS / max(1, int(n)))))


def naive_rows(n: int) -> int:
    """How many boids' checks one timed run of the naive search makes at ``n`` boids: all of
    them up to NAIVE_PAIRS pairs, else NAIVE_PAIRS // n (each of them checks all n)."""
    return max(1, min(int(n), NAIVE_PAIRS // max(1, int(n))))


def rounds(steps: int) -> list[int]:
    """``steps`` split into up to TIMED_ROUNDS rounds as equal as whole steps allow (none empty)."""
    k = max(1, min(TIMED_ROUNDS, int(steps)))
    return [steps // k + (1 if r < steps % k else 0) for r in range(k)]


def world_for(n: int, aspect: float) -> tuple[float, float]:
    """(width, height) in lengths of a world holding ``n`` boids at the default density with
    width/height = ``aspect`` (clamped to ASPECT_RANGE); rounded to 1/1000 length."""
    a = min(max(float(aspect), ASPECT_RANGE[0]), ASPECT_RANGE[1])
    width = math.sqrt(n * AREA_PER_BOID * a)
    return round(width, 3), round(n * AREA_PER_BOID / width, 3)


def everyone_checks_everyone(x: np.ndarray, box: Box, reach: float, rows: int | None = None) -> int:
    """The naive neighbour search: every boid measures the minimum-image distance to every
    other boid and keeps those within ``reach``.  Returns the number of ordered pairs
    (i, j), i != j, found: the same count as ``len(cells.neighbour_pairs(x, box, reach))``
    (tested), at N^2 work instead of about N.  x: (N, 2) positions in lengths.

    ``rows``: only the first ``rows`` boids check (each against all N), for timing a sample
    of the search (:func:`naive_rows`); the count is then their pairs (i < rows).
    Rows are taken in blocks of about BLOCK_ELEMENTS pairs, so memory stays bounded at any N.
    """
    n = len(x)
    m = n if rows is None else max(0, min(int(rows), n))
    if n < 2:
        return 0
    block_rows = max(1, BLOCK_ELEMENTS // n)
    found = 0
    for start in range(0, m, block_rows):
        block = x[start:min(start + block_rows, m)]
        r = norm(displacement(block[:, None, :], x[None, :, :], box))  # (rows, N): boid i to every j
        found += int(np.count_nonzero(r <= reach))
    return found - m  # every boid found itself at distance 0
