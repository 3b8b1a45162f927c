"""The command line: an unwritable output path fails at once, before any simulation."""

from __future__ import annotations

import importlib

import pytest

from swarmlab import cli


def _commands_with(option: str) -> list[str]:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return [name for name, p in sub.choices.items() if option in p._option_string_actions]


def _no_run(monkeypatch, calls):
    """Replace every command's run() so that a simulation that starts is recorded."""
    for name in cli.COMMANDS:
        module = importlib.import_module(f"swarmlab.commands.{name.replace('-', '_')}")
        monkeypatch.setattr(module, "run", lambda args, name=name: calls.append(name) or 0)


def test_every_csv_command_is_covered():
    assert {"swarm", "boids"} <= set(_commands_with("--csv"))


@pytest.mark.parametrize("bad, words", [
    ("/nonexistent/x.csv", "folder /nonexistent does not exist"),
    ("{tmp}", "that is a folder"),
    ("{tmp}/missing/deeper/x.csv", "does not exist"),
])
def test_bad_csv_path_fails_before_simulating(monkeypatch, capsys, tmp_path, bad, words):
    calls: list[str] = []
    _no_run(monkeypatch, calls)
    path = bad.format(tmp=tmp_path)
    commands = _commands_with("--csv")
    for name in commands:
        with pytest.raises(SystemExit) as exc:
            cli.main([name, "--csv", path])
        assert exc.value.code == 2, name
        err = capsys.readouterr().err
        assert words in err and "nothing was simulated" in err and path in err, err
    assert calls == []  # no command started its run


def test_good_paths_run_and_probe_leaves_nothing_behind(monkeypatch, tmp_path):
    calls: list[str] = []
    _no_run(monkeypatch, calls)
    new = tmp_path / "new.csv"
    old = tmp_path / "old.csv"
    old.write_text("previous\n")
    assert cli.main(["swarm", "--csv", str(new)]) == 0
    assert not new.exists()  # the probe removed the file it created (run() was replaced)
    assert cli.main(["boids", "--csv", str(old)]) == 0
    assert old.read_text() == "previous\n"
    assert cli.main(["swarm", "--csv", "-"]) == 0
    assert calls == ["swarm", "boids", "swarm"]


@pytest.mark.parametrize("name", ["vicsek", "vicsek-check"])
def test_commands_without_csv_reject_it_at_once(monkeypatch, capsys, name):
    calls: list[str] = []
    _no_run(monkeypatch, calls)
    with pytest.raises(SystemExit) as exc:
        cli.main([name, "--csv", "/nonexistent/x.csv"])
    assert exc.value.code == 2 and calls == []
    assert "unrecognized arguments" in capsys.readouterr().err


def test_swarm_run_keeps_results_if_the_file_vanishes(capsys, tmp_path, monkeypatch):
    """A write that fails after the run (the folder removed meanwhile) prints the CSV instead."""
    from swarmlab.commands import swarm as swarm_cmd

    folder = tmp_path / "gone"
    folder.mkdir()
    target = folder / "run.csv"
    real_run = swarm_cmd.run

    def run_then_break(args):
        folder.rmdir()
        return real_run(args)

    monkeypatch.setattr(swarm_cmd, "run", run_then_break)
    assert cli.main(["swarm", "--seconds", "0.5", "--csv", str(target)]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines()[0].startswith("time (s),whole-group agreement P"), out.out[:80]
    assert len(out.out.splitlines()) > 2  # the samples are all there
    assert "standard output instead" in out.err
