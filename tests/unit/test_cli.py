"""The command line: an unwritable output path fails at once, before any simulation."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from swarmlab import cli
from swarmlab.sessions.swarm import SwarmSession


def _csv_times(text: str) -> list[float]:  # the sample rows (a marker row has empty metric cells)
    return [float(row.split(",")[0]) for row in text.splitlines()[1:] if row.split(",")[1]]


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


@pytest.mark.parametrize("name", ["swarm", "boids"])
def test_a_run_keeps_results_if_the_file_vanishes(capsys, tmp_path, monkeypatch, name):
    """A write that fails after the run (the folder removed meanwhile) prints the CSV instead."""
    swarm_cmd = importlib.import_module(f"swarmlab.commands.{name}")

    folder = tmp_path / "gone"
    folder.mkdir()
    target = folder / "run.csv"
    real_run = swarm_cmd.run

    def run_then_break(args):
        folder.rmdir()
        return real_run(args)

    monkeypatch.setattr(swarm_cmd, "run", run_then_break)
    assert cli.main([name, "--seconds", "0.5", "--csv", str(target)]) == 1
    out = capsys.readouterr()
    head = {"swarm": "time (s),whole-group agreement P", "boids": "time (s),shared heading P"}[name]
    assert out.out.splitlines()[0].startswith(head), out.out[:80]
    assert len(out.out.splitlines()) > 2  # the samples are all there
    assert "standard output instead" in out.err


def test_the_csv_never_replaces_the_rules_file(capsys, tmp_path):
    rules = tmp_path / "my_rules.py"
    code = (Path(cli.__file__).parent / "rules_boids.py").read_text(encoding="utf-8")
    rules.write_text(code, encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        cli.main(["boids", "--seconds", "0.1", "--rules", str(rules), "--csv", str(rules)])
    assert exc.value.code == 2
    assert "is the file given to --rules" in capsys.readouterr().err
    assert rules.read_text(encoding="utf-8") == code


def test_a_rule_that_fails_midway_keeps_the_samples_so_far(capsys, tmp_path):
    rules = tmp_path / "late.py"
    rules.write_text("calls = [0]\n"
                     "def steering(i, j, d, r, v, p):\n"
                     "    calls[0] += 1\n"
                     "    if calls[0] > 100:\n"
                     "        raise RuntimeError('boom')\n"
                     "    return np.zeros_like(v)\n", encoding="utf-8")
    target = tmp_path / "late.csv"
    assert cli.main(["boids", "--seconds", "10", "--rules", str(rules), "--csv", str(target)]) == 1
    err = capsys.readouterr().err
    assert "samples end at model time 2.5 s" in err and "boom" in err and str(target) in err, err
    rows = target.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("time (s),") and rows[-1].startswith("2.5,")  # 100 steps of 0.025 s
    # a rule broken from its first step has nothing to keep: a plain error, exit 2 (test_rules.py)


def test_ctrl_c_keeps_the_samples_so_far(capsys, tmp_path, monkeypatch):
    from swarmlab.sessions.swarm import SwarmSession
    real_step = SwarmSession.op_step
    calls = [0]

    def step_then_interrupt(self, n=1):
        calls[0] += 1
        if calls[0] > 1:
            raise KeyboardInterrupt
        return real_step(self, 70)  # 1.167 s: samples enough, the last one at 1 s

    monkeypatch.setattr(SwarmSession, "op_step", step_then_interrupt)
    target = tmp_path / "run.csv"
    assert cli.main(["swarm", "--seconds", "600", "--csv", str(target)]) == 130
    err = capsys.readouterr().err
    assert "interrupted (Ctrl-C)" in err and "samples end at model time 1 s" in err, err  # the last row's time
    assert _csv_times(target.read_text(encoding="utf-8")) == [0, 0.25, 0.5, 0.75, 1.0]
    calls[0] = 0  # and to standard output with --csv -
    assert cli.main(["swarm", "--seconds", "600", "--csv", "-"]) == 130
    out = capsys.readouterr()
    assert out.out.startswith("time (s),") and len(out.out.splitlines()) > 2 and "standard output" in out.err


@pytest.mark.parametrize("name", ["swarm", "boids"])
def test_the_sample_is_given_once(capsys, name):
    assert cli.main([name, "--seconds", "0.1", "--set", "sample=5"]) == 0
    assert f"{name} sample 5" in capsys.readouterr().out
    assert cli.main([name, "--seconds", "0.1", "--sample", "1e3"]) == 0
    assert f"{name} sample 1000" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main([name, "--seconds", "0.1", "--sample", "3", "--set", "sample=5"])
    assert "disagree" in capsys.readouterr().err


def test_a_trial_from_the_command_line_starts_as_the_page_starts_it(capsys):
    """--trial takes the defaults and the trial's settings, --set adds others (the same run as
    the page's trial link); a --set that contradicts the trial is refused, not run as the trial."""
    assert cli.main(["swarm", "--seconds", "0.5", "--trial", "passage", "--set", "sigma=20"]) == 0
    out = capsys.readouterr().out
    s = SwarmSession()
    s.op_start_trial("passage", sigma=20)
    s.op_step(30)
    assert "(trial passage)" in out and f"P={s.op_metrics()['P']:.3f}" in out
    with pytest.raises(SystemExit) as exc:
        cli.main(["swarm", "--seconds", "0.5", "--trial", "rules-matter", "--set", "alignment=on"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert "begins with separation off, alignment off, cohesion off; --set alignment=on contradicts it" in err


@pytest.mark.parametrize("name, short, step", [("swarm", "0.009", "1 steps"), ("boids", "0.02", "0.025 s")])
def test_a_run_shorter_than_one_step_is_refused(capsys, name, short, step):
    """Shorter than one step is refused, also when the nearest whole step is one (0.009 s would
    have run 1/60 s, nearly twice as long); from one step on the run is the nearest whole steps."""
    for seconds in ("0.001", short):
        with pytest.raises(SystemExit) as exc:
            cli.main([name, "--seconds", seconds])
        assert exc.value.code == 2 and "shorter than one step" in capsys.readouterr().err
    assert cli.main([name, "--seconds", {"swarm": "0.017", "boids": "0.026"}[name]]) == 0
    assert step in capsys.readouterr().out


def test_the_goal_table_needs_seconds_past_the_first_minute(capsys):
    """--samples measures from 60 s on, once a model second: 30 s used to print a table of NaN
    and failed goals, and exit 0."""
    for seconds in ("30", "60", "90.5"):
        with pytest.raises(SystemExit) as exc:
            cli.main(["boids", "--samples", "1,2", "--seconds", seconds])
        assert exc.value.code == 2
        assert "--seconds must be a whole number above 60" in capsys.readouterr().err


@pytest.mark.parametrize("one", [["--sample", "5"], ["--set", "sample=5"]])
def test_the_goal_table_refuses_a_single_sample_beside_its_list(capsys, one):
    """--samples with --sample 5 ran samples 1 and 2 and dropped the 5 without a word."""
    with pytest.raises(SystemExit) as exc:
        cli.main(["boids", "--samples", "1-2", "--seconds", "61"] + one)
    assert exc.value.code == 2
    assert "leave out --sample and --set sample=" in capsys.readouterr().err


def test_the_liveliness_line_needs_a_whole_second_after_the_first_minute(capsys):
    """The watch observes whole model seconds: a 60.5 s run has only t = 60 s and printed
    "liveliness 60-60.5 s ... splits=0, turns=0" as if measured; now it prints none, and a
    61.5 s run's line ends at 61 s, the last second it observed."""
    assert cli.main(["boids", "--seconds", "60.5"]) == 0
    assert "liveliness" not in capsys.readouterr().out
    assert cli.main(["boids", "--seconds", "61.5"]) == 0
    assert "liveliness 60-61 s" in capsys.readouterr().out


def test_the_presets_help_says_everything_a_preset_sets():
    """--preset cohesion also sets the cohesion range and the view; the help said "rule weights"."""
    from swarmlab import boids
    from swarmlab.commands import boids as command

    words = command.preset_words(boids.PRESETS["cohesion"])
    assert f"coh_radius={boids.COH_RADIUS_CLUMP:g}, view={boids.VIEW_CLUMP:g}" in words
    for name, values in boids.PRESETS.items():
        assert f"{name} ({command.preset_words(values)})" in " ".join(_help("boids").split())


def _help(name):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main([name, "--help"])
    return out.getvalue()


def test_the_help_example_of_one_clump_reads_one(capsys):
    """boids --help says that ``--preset cohesion --seconds 90`` reads one clump: the run prints
    its liveliness line (longer than 60 s) with one group at the end."""
    with pytest.raises(SystemExit):
        cli.main(["boids", "--help"])
    helped = capsys.readouterr().out
    assert "--preset cohesion --seconds 90: one" in " ".join(helped.split())
    assert "``" not in helped and "issue 13" not in helped  # plain words, no docstring marks
    assert cli.main(["boids", "--preset", "cohesion", "--seconds", "90"]) == 0
    assert "groups at the end=1" in capsys.readouterr().out


# --- a researcher's CSV: every sample, to the run's very end -------------------------------------
@pytest.mark.parametrize("name, seconds, last", [("boids", "0.1", 0.1), ("swarm", "1.1", 1.1)])
def test_the_csv_and_the_summary_end_where_the_run_ends(capsys, name, seconds, last):
    """A run whose length is not a whole number of 0.25 s samples still ends its CSV, and its
    summary's final values, at its last step (not at the sample before it)."""
    assert cli.main([name, "--seconds", seconds, "--csv", "-"]) == 0
    out = capsys.readouterr()
    times = _csv_times(out.out)
    assert times[-1] == pytest.approx(last) and times[-2] < last, times
    assert f"{seconds} s" in out.err  # the summary (on stderr with --csv -) names the same end
    if name == "boids":  # its "final P" is the last row's
        final = out.out.splitlines()[-1].split(",")[1]
        assert f"final P={float(final):.3f}" in out.err


@pytest.mark.parametrize("name", ["swarm", "boids"])
def test_a_long_run_keeps_every_sample(capsys, monkeypatch, name):
    """The page thins its history at about 2,400 samples (its memory); a batch keeps every
    0.25 s sample however long it runs.  Here the page's capacity is made 4 samples."""
    from swarmlab import metrics

    real = metrics.History.__init__
    monkeypatch.setattr(metrics.History, "__init__",
                        lambda self, *a, **k: real(self, *a, **{**k, "capacity": 4}))
    assert cli.main([name, "--seconds", "3", "--csv", "-"]) == 0
    times = _csv_times(capsys.readouterr().out)
    assert times == pytest.approx([0.25 * k for k in range(13)])


# --- rules files to start from, and the Vicsek command's late failures ----------------------------
def test_the_rules_templates_run_as_the_built_in_rules(capsys, tmp_path, monkeypatch):
    """--rules-template prints the built-in rule as a file that --rules loads as it is, with
    the built-in rule's very results."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["boids", "--rules-template"]) == 0
    (tmp_path / "my_rules.py").write_text(capsys.readouterr().out, encoding="utf-8")
    assert cli.main(["boids", "--seconds", "1", "--csv", "mine.csv", "--rules", "my_rules.py"]) == 0
    assert cli.main(["boids", "--seconds", "1", "--csv", "theirs.csv"]) == 0
    assert (tmp_path / "mine.csv").read_text() == (tmp_path / "theirs.csv").read_text()
    capsys.readouterr()
    assert cli.main(["vicsek", "--rules-template"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# Swarm Lab: the built-in turn() rule") and "def turn(i, j, d, r, theta, a, kick):" in text
    # the kicks' range follows --eta (it used to say [-0.35, 0.35) whatever --eta was)
    assert "uniform in [-eta/2, eta/2)" in text
    (tmp_path / "my_turn.py").write_text(text, encoding="utf-8")
    short = ["vicsek", "--warmup", "5", "--measure", "5", "--json"]
    assert cli.main(short + ["--rules", "my_turn.py"]) == 0
    mine = capsys.readouterr().out
    assert cli.main(short) == 0
    assert mine == capsys.readouterr().out


def test_the_templates_suggest_one_file_per_lab(capsys):
    """Following both labs' help must not write one lab's rule over the other's."""
    assert cli.main(["vicsek", "--rules-template"]) == 0
    assert "--rules my_turn.py" in capsys.readouterr().out.splitlines()[0]
    assert cli.main(["boids", "--rules-template"]) == 0
    assert "--rules my_rules.py" in capsys.readouterr().out.splitlines()[0]
    for name, file in (("vicsek", "my_turn.py"), ("boids", "my_rules.py")):
        with pytest.raises(SystemExit):
            cli.main([name, "--help"])
        assert f"--rules-template > {file}" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("name, rule", [
    ("boids", "def steering(i, j, d, r, v, p):\n    while True:\n        pass\n"),
    ("vicsek", "def turn(i, j, d, r, theta, a, kick):\n    while True:\n        pass\n"),
])
def test_time_limit_sets_how_long_a_rule_may_run(capsys, tmp_path, name, rule):
    """--time-limit is the rule's limit (the page's 2 s by default); a stopped rule's message
    says how to allow it more; 0 runs the rule untraced, with no limit."""
    path = tmp_path / "loop.py"
    path.write_text(rule, encoding="utf-8")
    short = ["--seconds", "0.1"] if name == "boids" else ["--warmup", "2", "--measure", "2"]
    with pytest.raises(SystemExit) as exc:
        cli.main([name, *short, "--rules", str(path), "--time-limit", "0.05"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert "more than 0.05 s" in err and "line 3" in err and "--time-limit S lets each call run longer" in err, err
    for bad in ("-1", "nan", "inf", "soon"):
        with pytest.raises(SystemExit) as exc:
            cli.main([name, *short, "--rules", str(path), "--time-limit", bad])
        assert exc.value.code == 2 and "--time-limit" in capsys.readouterr().err
    # 0: no tracer while the rule runs (a rule that loops in Python runs at full speed)
    seen = tmp_path / "trace.txt"
    args = "i, j, d, r, v, p" if name == "boids" else "i, j, d, r, theta, a, kick"
    out = "np.zeros_like(v)" if name == "boids" else "theta + kick"
    path.write_text(f"import sys\ndef {rule.split('(')[0][4:]}({args}):\n"
                    f"    open({str(seen)!r}, 'a').write(repr(sys.gettrace()) + '\\n')\n"
                    f"    return {out}\n", encoding="utf-8")
    for limit, traced in (("0", False), ("5", True)):
        seen.write_text("")
        assert cli.main([name, *short, "--rules", str(path), "--time-limit", limit]) == 0
        calls = seen.read_text().split()
        assert calls and all((c != "None") == traced for c in calls), (limit, calls[:3])
    capsys.readouterr()


def test_a_vicsek_rule_that_fails_late_says_at_which_update(capsys, tmp_path):
    rules = tmp_path / "late.py"
    rules.write_text("calls = [0]\n"
                     "def turn(i, j, d, r, theta, a, kick):\n"
                     "    calls[0] += 1\n"
                     "    if calls[0] > 30:\n"
                     "        raise RuntimeError('boom')\n"
                     "    return theta + kick\n", encoding="utf-8")
    assert cli.main(["vicsek", "--rules", str(rules), "--warmup", "20", "--measure", "20"]) == 1
    err = capsys.readouterr().err
    assert "stopped at update 31 of 40" in err and "line 5" in err and "boom" in err, err


def test_ctrl_c_in_a_command_without_samples_is_a_plain_message(capsys, monkeypatch):
    from swarmlab import vicsek

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(vicsek, "run_general", interrupted)
    assert cli.main(["vicsek"]) == 130
    err = capsys.readouterr().err
    assert "interrupted (Ctrl-C)" in err and "Traceback" not in err


def test_a_reader_that_stops_early_gets_no_traceback():
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "swarmlab", "boids", "--seconds", "1", "--csv", "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # a reader that is gone before the CSV comes, as after `| head -0`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1 and "Traceback" not in err and "Exception" not in err, err


def test_a_researchers_bad_input_is_named_plainly(capsys, tmp_path):
    """From an outside review of the researchers' section: a rule's error names its file (a
    syntax error did, a run-time error did not); a rules file that is not UTF-8 says so, as a
    rules error; a sample listed twice in --samples is refused (it counted as two replicates in
    the goal table); Lab 1's summary says "with the defaults" only when N is the default too."""
    broken = tmp_path / "bad_zero.py"
    broken.write_text("def steering(i, j, d, r, v, p):\n    return 1 / 0\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        cli.main(["boids", "--seconds", "1", "--rules", str(broken)])
    assert exc.value.code == 2
    assert f"error: {broken}: ZeroDivisionError on line 2: division by zero" in capsys.readouterr().err
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# r\xe9gle\ndef steering(i, j, d, r, v, p):\n    return v * 0\n")
    with pytest.raises(SystemExit):
        cli.main(["boids", "--seconds", "1", "--rules", str(latin)])
    err = capsys.readouterr().err
    assert "it is not UTF-8 text" in err and err.count(str(latin)) == 1, err
    with pytest.raises(SystemExit):
        cli.main(["boids", "--samples", "1,3,1-2", "--seconds", "61"])
    assert "names sample 1 more than once" in capsys.readouterr().err
    assert cli.main(["swarm", "--seconds", "0.25", "--set", "N=20"]) == 0
    assert capsys.readouterr().out.startswith("swarm sample 42: ")
    assert cli.main(["swarm", "--seconds", "0.25"]) == 0
    assert capsys.readouterr().out.startswith("swarm sample 42 with the defaults: ")


def test_a_setting_given_twice_with_two_values_is_refused(capsys):
    """--set k_sep=0 --set k_sep=2 once ran k_sep=2 without a word; the same value twice is fine."""
    from swarmlab.commands import parse_sets

    assert parse_sets(["N=20", "N=20"]) == {"N": "20"}
    with pytest.raises(ValueError, match="k_sep=0 and --set k_sep=2 disagree"):
        parse_sets(["k_sep=0", "k_sep=2"])
    with pytest.raises(SystemExit):
        cli.main(["boids", "--seconds", "0.1", "--set", "k_sep=0", "--set", "k_sep=2"])
    assert "disagree" in capsys.readouterr().err
    from swarmlab import swarm

    with pytest.raises(ValueError, match="N is given twice"):
        swarm.SwarmParams.from_values({"N": 300}, N=200)
    assert swarm.SwarmParams.from_values({"N": 300}, N=300).N == 300


def test_goal_table_check_exits_1_when_a_goal_reads_no(capsys):
    """--samples printed 'NO' and exited 0, so a script could not tell; --check makes it 1.
    One sample for 61 s cannot show three splits, so that goal reads NO here."""
    assert cli.main(["boids", "--samples", "1", "--seconds", "61"]) == 0
    plain = capsys.readouterr().out
    assert cli.main(["boids", "--samples", "1", "--seconds", "61", "--check"]) == 1
    checked = capsys.readouterr().out
    assert checked == plain and "splits >= 3: NO" in checked.splitlines()[-1]
    with pytest.raises(SystemExit):
        cli.main(["boids", "--seconds", "1", "--check"])
    assert "give --samples too" in capsys.readouterr().err


def test_a_field_of_view_past_360_degrees_is_refused_from_python():
    """Params(view=720) ran silently as 360: a wider view means nothing."""
    from swarmlab import boids

    with pytest.raises(ValueError, match="Field of view must be in"):
        boids.Params(view=720)
    assert boids.Params(view=360).view == 360 and boids.Params(max_force=1e9).max_force == 1e9


def test_a_link_from_the_scaling_experiment_replays_from_the_command_line(capsys, tmp_path):
    """A page link may carry up to 10,000 boids with their grown sky (world=); the command line
    refused that population (the slider's 2,000), so a researcher could not replay such a run.
    Both now take a population the same way (scaling.with_population), and give the same run."""
    from swarmlab.sessions.boids import BoidsSession

    target = tmp_path / "big.csv"
    assert cli.main(["boids", "--set", "width=1000", "--set", "height=1000", "--set", "population=5000",
                     "--seconds", "0.1", "--csv", str(target)]) == 0
    assert "N=5000" in capsys.readouterr().out
    page = BoidsSession()
    page.op_reset(population=5000, width=1000, height=1000)
    page.op_step(n=4)  # 0.1 s
    last = target.read_text().strip().split("\n")[-1].split(",")
    assert float(last[1]) == page.op_metrics()["P"], (last, page.op_metrics())
    # in the slider's sky it is refused, as the page refuses it, with the bound named
    with pytest.raises(SystemExit):
        cli.main(["boids", "--set", "population=5000", "--seconds", "0.1"])
    assert "5,000 boids need the scaling experiment's sky" in capsys.readouterr().err
