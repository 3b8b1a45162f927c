"""The Lab 3 benchmark tool runs and writes its report (no timing thresholds)."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_writes_a_report(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("steps_boids", ROOT / "tools" / "bench" / "steps_boids.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "b.json"
    assert mod.main(["--warmup", "0.5", "--min-time", "0.01", "--populations", "80", "120", "--flocks", "3",
                     "--flock-steps", "5", "--rounds", "2", "--out", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["lab"] == "boids" and rep["dt_s"] == 0.025
    assert [r["N"] for r in rep["results"]] == [80, 120]
    for r in rep["results"]:
        assert r["steps"] >= 10 and r["steps_per_s"] > 0 and r["neighbours_per_boid"] > 0
    many = rep["flocks_together"]
    assert many["flocks"] == 3 and many["rounds"] == 2 and many["same_bits"] is True and many["ratio_median"] > 0
    printed = capsys.readouterr().out
    assert "steps/s" in printed and "3 flocks of 80 stepped together" in printed and "same bits: yes" in printed
