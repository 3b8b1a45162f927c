"""The eight-seed check of Lab 2 (CheckRun) and the two CLI commands."""

from __future__ import annotations

import json

import numpy as np
import pytest

from swarmlab import cli, vicsek
from swarmlab.vicsek import CheckRun

SEEDS = [3, 17, 41, 73, 101, 211, 307, 499]


@pytest.fixture(scope="module")
def full_check():
    """The real check (1,000 + 500 updates, 16 replicas batched): run once per module."""
    return vicsek.run_check()


@pytest.fixture
def my_cli(monkeypatch):
    """swarmlab.cli.main with only this lab's commands registered (other labs may not exist yet)."""
    monkeypatch.setattr(cli, "COMMANDS", ("vicsek-check", "vicsek"))
    return cli.main


def test_check_seeds_are_fixed():
    assert list(vicsek.CHECK_SEEDS) == SEEDS
    assert (vicsek.CHECK_WARMUP, vicsek.CHECK_MEASURE) == (1000, 500)


def test_alignment_beats_random_for_every_seed(full_check):
    rows = full_check["seeds"]
    assert [r["seed"] for r in rows] == SEEDS
    for r in rows:
        assert r["a1"] > r["a0"] + 0.5, r
        assert 0.0 < r["a0"] < 0.25  # random kicks stay near the ~0.11 baseline
        assert 0.6 < r["a1"] <= 1.0
    a0 = [r["a0"] for r in rows]
    a1 = [r["a1"] for r in rows]
    assert full_check["mean"]["a0"] == pytest.approx(np.mean(a0), abs=1e-15)
    assert full_check["mean"]["a1"] == pytest.approx(np.mean(a1), abs=1e-15)
    assert full_check["range"] == {"a0": [min(a0), max(a0)], "a1": [min(a1), max(a1)]}


def test_check_matches_an_independent_single_run(full_check):
    # seed 3, a = 1, run alone: the mean of P over updates 1001..1500 is the same number
    ens = vicsek.Ensemble([(3, 1.0)])
    ens.run(1000)
    total = 0.0
    for _ in range(500):
        total += float(ens.step()[0])
    assert total / 500 == full_check["seeds"][0]["a1"]


def test_batched_equals_one_at_a_time_bit_for_bit():
    kw = dict(warmup=200, measure=100)
    assert vicsek.run_check("batched", **kw) == vicsek.run_check("serial", **kw)


@pytest.mark.parametrize("mode", ["batched", "serial"])
def test_chunked_check_equals_single_call(mode):
    kw = dict(warmup=30, measure=20)
    whole = vicsek.run_check(mode, **kw)
    run = CheckRun(mode, **kw)
    assert run.progress == 0.0 and not run.done
    with pytest.raises(ValueError):
        run.result()
    chunks = [7, 1, 13, 2, 40, 3]
    k = 0
    last = 0.0
    while not run.done:
        p = run.advance(chunks[k % len(chunks)])
        assert last < p <= 1.0
        last = p
        k += 1
    assert run.progress == 1.0
    assert run.advance(10) == 1.0  # extra work after the end is a no-op
    for bad in (2.5, -3, "4", float("nan")):  # int() would quietly run 2 or none
        with pytest.raises(ValueError, match="whole number of steps"):
            run.advance(bad)
    assert run.result() == whole
    assert run.total == (50 if mode == "batched" else 16 * 50)


def test_check_rejects_bad_mode():
    with pytest.raises(ValueError):
        CheckRun("parallel")


# ------------------------------------------------------------------ CLI
def test_cli_check_json(full_check, my_cli, capsys):
    assert my_cli(["vicsek-check", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"seeds", "mean", "range"}
    assert len(out["seeds"]) == 8 and [r["seed"] for r in out["seeds"]] == SEEDS
    assert all(set(r) == {"seed", "a0", "a1"} for r in out["seeds"])
    assert set(out["mean"]) == {"a0", "a1"} and set(out["range"]) == {"a0", "a1"}
    assert all(len(v) == 2 for v in out["range"].values())
    assert out == full_check  # repr floats: the JSON round-trips bit for bit


def test_cli_check_table(full_check, my_cli, capsys, monkeypatch):
    monkeypatch.setattr(vicsek, "run_check", lambda mode="batched", **kw: full_check)
    assert my_cli(["vicsek-check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [ln.split() for ln in lines if ln.split() and ln.split()[0].isdigit()]
    assert [int(r[0]) for r in rows] == SEEDS
    for r, ref in zip(rows, full_check["seeds"]):
        assert r[1] == f"{ref['a0']:.3f}" and r[2] == f"{ref['a1']:.3f}"
    mean = next(ln.split() for ln in lines if ln.split()[:1] == ["mean"])
    assert mean[1:] == [f"{full_check['mean']['a0']:.3f}", f"{full_check['mean']['a1']:.3f}"]
    assert any(ln.split()[:1] == ["range"] for ln in lines)


def test_cli_one_at_a_time_flag_selects_serial(my_cli, capsys, monkeypatch):
    seen = []

    def fake(mode="batched", **kw):
        seen.append(mode)
        return CheckRun(mode, warmup=5, measure=5).run()

    monkeypatch.setattr(vicsek, "run_check", fake)
    assert my_cli(["vicsek-check", "--one-at-a-time", "--json"]) == 0
    assert seen == ["serial"]
    assert len(json.loads(capsys.readouterr().out)["seeds"]) == 8


def test_cli_general_json(my_cli, capsys):
    args = ["vicsek", "--n", "120", "--box", "1.5", "--radius", "0.2", "--speed", "0.02",
            "--eta", "0.5", "--align", "1", "--warmup", "50", "--measure", "30", "--seed", "9", "--json"]
    assert my_cli(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"order_mean", "order_std"}
    params, _ = vicsek.general_params(n=120, box=1.5, radius=0.2, speed=0.02, eta=0.5, align=1)
    assert out == vicsek.run_general(params, 9, 50, 30)
    assert my_cli(args[:-1]) == 0
    assert "order parameter P: mean" in capsys.readouterr().out


def test_the_general_run_of_a_check_seed_prints_the_checks_mean_to_the_bit():
    """`vicsek --seed 3` at the defaults is the check's seed-3 run with a = 1, and
    `--align 0` its a = 0 run: both print the check's own means, bit for bit (they once
    differed in the last digit: an exact sum here, a sequential one in the check)."""
    check = vicsek.run_check(seeds=(3,))
    params, opts = vicsek.general_params(seed=3)
    assert (opts["warmup"], opts["measure"]) == (vicsek.CHECK_WARMUP, vicsek.CHECK_MEASURE)
    assert vicsek.run_general(params, **opts)["order_mean"] == check["seeds"][0]["a1"]
    params0, _ = vicsek.general_params(seed=3, align=0)
    assert vicsek.run_general(params0, **opts)["order_mean"] == check["seeds"][0]["a0"]


@pytest.mark.parametrize(
    "bad",
    [["--n", "0"], ["--n", "abc"], ["--eta", "nan"], ["--eta", "7"], ["--align", "-0.1"],
     ["--radius", "0.7"], ["--measure", "0"], ["--box", "inf"], ["--frobnicate", "1"]],
)
def test_cli_bad_option_exits_2(my_cli, capsys, bad):
    with pytest.raises(SystemExit) as exc:
        my_cli(["vicsek", "--warmup", "1", "--measure", "1", *bad])  # the bad value comes last and wins
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error" in err


def test_cli_help_documents_every_option(my_cli, capsys):
    with pytest.raises(SystemExit) as exc:
        my_cli(["vicsek", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for opt in ("--n", "--box", "--radius", "--speed", "--eta", "--align", "--warmup", "--measure", "--seed", "--json"):
        assert opt in text
    with pytest.raises(SystemExit):
        my_cli(["vicsek-check", "--help"])
    text = capsys.readouterr().out
    assert "--json" in text and "--one-at-a-time" in text


def test_the_checks_numbers_are_written_once_with_pythons_rounding():
    """check_shown writes every number of a result with three decimals, ties to even (0.0625 is
    0.062, as f"{x:.3f}"; JavaScript's toFixed writes 0.063): the page and the CLI show these."""
    from swarmlab.commands.vicsek_check import format_table
    result = {"seeds": [{"seed": 3, "a0": 0.0625, "a1": 0.1875}, {"seed": 17, "a0": 0.1234, "a1": 0.9}],
              "mean": {"a0": 0.09295, "a1": 0.54375}, "range": {"a0": [0.0625, 0.1234], "a1": [0.1875, 0.9]}}
    shown = vicsek.check_shown(result)
    assert shown["seeds"] == [{"seed": 3, "a0": "0.062", "a1": "0.188"}, {"seed": 17, "a0": "0.123", "a1": "0.900"}]
    assert shown["mean"] == {"a0": "0.093", "a1": "0.544"} and shown["range"]["a0"] == ["0.062", "0.123"]
    table = format_table(result)
    assert "     3      0.062      0.188" in table and "range  0.062-0.123  0.188-0.900" in table
    assert f"{len(vicsek.CHECK_SEEDS)}-seed check (Vicsek lab): {vicsek.TEACHING.n} agents" in table
