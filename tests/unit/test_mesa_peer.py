"""The Mesa peer benchmark (tools/bench/mesa_peer.py): its density / neighbour match,
its one-line exit without Mesa, and its own-process protocol.  No timing thresholds."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "app"))

from swarmlab import boids, swarm  # noqa: E402
from swarmlab.space import Box  # noqa: E402


def _load(file: str, name: str | None = None):
    spec = importlib.util.spec_from_file_location(name or file, ROOT / "tools" / "bench" / f"{file}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


mp = _load("mesa_peer")


def test_expected_neighbours_is_density_times_disc_area():
    # 999 others on 160 x 100 = 16,000 lengths^2, disc of radius 10: 999 * 100 pi / 16000
    assert mp.expected_neighbours(1000, 160.0, 100.0, 10.0) == pytest.approx(19.6153, abs=1e-4)
    assert mp.expected_neighbours(1000, 100.0, 100.0, 10.0) == pytest.approx(31.3845, abs=1e-4)
    with pytest.raises(ValueError):
        mp.expected_neighbours(1000, 160.0, 100.0, 60.0)  # more than half the box: not a disc


def test_mesa_gets_lab1s_world_range_and_personal_space():
    m = mp.mesa_match(1000)
    kw = m["kwargs"]
    assert (kw["width"], kw["height"]) == (swarm.BOX.width, swarm.BOX.height) == (160.0, 100.0)
    assert kw["vision"] == swarm.SwarmParams.from_values().R == 10.0
    assert kw["separation"] == swarm.PERSONAL == 3.2
    assert kw["population_size"] == 1000
    # each side's expectation from its own parameters: equal, 19.6 others within R
    assert m["neighbours"]["mesa"] == m["neighbours"]["lab1"] == pytest.approx(19.6153, abs=1e-4)
    # another Lab 1 range gives Mesa that vision
    assert mp.mesa_match(500, radius=7.5)["kwargs"]["vision"] == 7.5


def test_measured_neighbours_agree_with_the_expectation_on_uniform_agents():
    """The count the bench prints (cell list, minimum image) is right: uniform agents in
    Mesa's matched world, and Lab 1's own scattered start, give about 19.6 within R."""
    rng = np.random.default_rng(7)
    x = rng.random((1000, 2)) * np.array([160.0, 100.0])
    brute = np.abs(x[:, None, :] - x[None, :, :])
    brute = np.minimum(brute, np.array([160.0, 100.0]) - brute)
    r = np.sqrt((brute ** 2).sum(axis=-1))
    want = float(((r <= 10.0).sum() - 1000) / 1000)  # brute force, self excluded
    assert mp.measured_neighbours(x, Box(160.0, 100.0), 10.0) == want
    assert want == pytest.approx(mp.expected_neighbours(1000, 160.0, 100.0, 10.0), rel=0.05)
    lab = mp.SwarmLab(1000)
    assert lab.p.start == "scattered" and lab.state.n == 1000
    assert mp.measured_neighbours(lab.positions(), lab.box, lab.radius) == pytest.approx(19.6, rel=0.05)


def test_lab3_reference_keeps_its_default_density():
    d = boids.Params()
    assert mp.world_for_density(d.population, d.population / (d.width * d.height), 1.6) == pytest.approx((160.0, 100.0))
    p = mp.lab3_params(1000)
    assert p.population == 1000
    assert p.population / (p.width * p.height) == pytest.approx(d.population / (d.width * d.height))
    assert p.width / p.height == pytest.approx(d.width / d.height)
    assert p.width == pytest.approx(160.0 * math.sqrt(1000 / 80))


def test_without_mesa_the_bench_prints_one_line_and_exits_0(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "mesa", None)  # import mesa -> ImportError
    out = tmp_path / "m.json"
    assert mp.main(["--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert printed.out.splitlines() == [mp.MISSING] and printed.err == ""
    assert "Mesa is not installed" in mp.MISSING
    assert not out.exists()


def test_own_process_child_prints_one_block(capsys):
    assert mp.main(["--child", "search", "--n", "300", "--steps", "2"]) == 0
    wall, cpu, before, after = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert wall > 0 and cpu >= 0
    assert before == after > 0  # the search does not move the agents


def test_bench_is_registered():
    assert "mesa_peer" in _load("__main__", "bench_dispatch").BENCHES


def test_no_rules_row_is_lab1s_step_with_the_rules_and_noise_off():
    """The bench's bound 'if the three rules cost nothing': the same start and search as the
    swarmlab row, no rule weighted and no noise, so its agents only turn for obstacles."""
    full, bare = mp.SwarmLab(300), mp.NoRules(300)
    assert (bare.p.ws, bare.p.wa, bare.p.wc, bare.p.sigma) == (0.0, 0.0, 0.0, 0.0)
    assert (full.p.ws, full.p.wa, full.p.wc) != (0.0, 0.0, 0.0) and full.p.sigma > 0
    assert np.array_equal(bare.positions(), full.positions())  # the same start
    bare.step()
    assert np.abs(bare.state.theta - full.state.theta).max() < 1e-12  # nothing turned it: no rule, no noise
    full.step()
    assert np.abs(bare.state.theta - full.state.theta).max() > 1e-3
    assert mp.NoRules in mp.METHODS and mp.BLOCK["no-rules"] > 0 and mp.QUICK_BLOCK["no-rules"] > 0
