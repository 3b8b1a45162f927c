"""One validation path for every parameter: clear errors, nothing half-applied."""

import json
import math
import re

import numpy as np
import pytest

from swarmlab.params import ParamSpec, clamp, defaults, specs_to_json, validate, validate_many
from swarmlab.sessions.base import Session

SPECS = (
    ParamSpec("speed", 10.0, "Speed", min=1, max=30, step=0.5, unit="lengths/s"),
    ParamSpec("k", 7, "Neighbours", kind="int", min=1, max=20, step=1),
    ParamSpec("align_on", True, "Alignment", kind="bool"),
    ParamSpec("mode", "range", "Mode", kind="choice", choices=("range", "nearest")),
)


@pytest.mark.parametrize("name,raw,want", [
    ("speed", 12, 12.0), ("speed", "12.5", 12.5), ("k", "3", 3), ("k", 4.0, 4),
    ("align_on", "off", False), ("align_on", True, True), ("align_on", 1, True),
    ("mode", "nearest", "nearest"),
])
def test_valid_values_are_coerced(name, raw, want):
    got = validate(SPECS, name, raw)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("name,raw,fragment", [
    ("speed", float("nan"), "finite"), ("speed", math.inf, "finite"), ("speed", "fast", "number"),
    ("speed", 31, "[1, 30]"), ("speed", True, "number"), ("k", 2.5, "whole"), ("k", 0, "[1, 20]"),
    ("align_on", "maybe", "on/off"), ("mode", "swarm", "range, nearest"), ("nope", 1, "unknown parameter"),
    ("speed", None, "number"),
])
def test_invalid_values_name_the_parameter_and_range(name, raw, fragment):
    with pytest.raises(ValueError) as exc:
        validate(SPECS, name, raw)
    assert name in str(exc.value) and fragment in str(exc.value)


def test_validate_many_is_all_or_nothing():
    with pytest.raises(ValueError):
        validate_many(SPECS, {"speed": 5, "k": -1})
    assert validate_many(SPECS, {"speed": 5, "k": 2}) == {"speed": 5.0, "k": 2}


def test_clamp_for_urls():
    assert clamp(SPECS, "speed", "99") == (30, "Speed was out of range and was set to 30")
    v, note = clamp(SPECS, "speed", "nan")
    assert v is None and "ignored" in note
    assert clamp(SPECS, "k", "5") == (5, None)
    # in range but not whole: rounded, and said so (not "out of range")
    assert clamp(SPECS, "k", "4.6") == (5, "Neighbours k must be a whole number and was rounded to 5")
    # text that is no number at all is ignored, and the note says so as the others do
    assert clamp(SPECS, "k", "abc") == (None, "ignored: Neighbours k must be a whole number in [1, 20], got 'abc'")


def test_link_values_read_as_a_person_typed_them():
    """An outside review of typed addresses: messages name a setting by its label as well as
    its name; halves round up (round() gave 12 for 12.5 but 8 for 7.5); an infinite number is
    out of range like any other, not unreadable; an empty box says it was empty; a choice
    typed in capitals is that choice."""
    assert clamp(SPECS, "k", "4.5") == (5, "Neighbours k must be a whole number and was rounded to 5")
    assert clamp(SPECS, "k", "7.5")[0] == 8 and clamp(SPECS, "k", "12.5")[0] == 13
    assert clamp(SPECS, "speed", "1e400") == (30, "Speed was out of range and was set to 30")
    assert clamp(SPECS, "speed", "-Infinity") == (1, "Speed was out of range and was set to 1")
    assert clamp(SPECS, "k", "")[1] == "ignored: Neighbours k must be a whole number in [1, 20], got nothing (it was empty)"
    assert clamp(SPECS, "mode", "Nearest") == ("nearest", None)
    assert clamp(SPECS, "mode", " RANGE ") == ("range", None)
    assert clamp(SPECS, "speed", "nan")[0] is None  # NaN is no number: ignored
    # a name that is a word of its label is given in brackets ("Sample number sample" read as a slip)
    from swarmlab import boids
    assert clamp(boids.SPECS, "sample", "-5") == (0, "Sample number (sample) was out of range and was set to 0")
    # a message starts with a capital even where it names a setting by its name alone, and a
    # quantity is written as the page writes it (a sample number as typed)
    from swarmlab import swarm
    assert clamp(swarm.SPECS, "sample", "-5") == (0, "Sample was out of range and was set to 0")
    assert clamp(swarm.SPECS, "N", "1e9") == (2000, "Population N was out of range and was set to 2,000")


def test_a_link_setting_typed_in_another_case_is_that_setting():
    from swarmlab.sessions.swarm import SwarmSession

    got = SwarmSession().op_parse_query({"n": "300", "SIGMA": "20", "zz": "1"})
    assert got["values"] == {"N": 300, "sigma": 20.0}
    assert got["notices"] == ["ignored unknown setting 'zz'"]
    got = SwarmSession().op_parse_query({"n": "300", "N": "200"})  # the exact name wins
    assert got["values"] == {"N": 200} and got["notices"] == ["ignored 'n': N is given too"]


def test_specs_json_round_trip():
    rows = json.loads(json.dumps(specs_to_json(SPECS)))
    assert [r["name"] for r in rows] == ["speed", "k", "align_on", "mode"]
    assert rows[0]["unit"] == "lengths/s" and rows[3]["choices"] == ["range", "nearest"]
    assert defaults(SPECS)["k"] == 7


class Toy(Session):
    lab = "toy"
    SPECS = SPECS

    def __init__(self):
        self.speed = 10.0

    def op_set(self, name, value):
        v = validate(self.SPECS, name, value)
        self.speed = v
        return {"speed": self.speed}


def test_session_call_reports_errors_and_keeps_state():
    s = Toy()
    assert json.loads(s.call("set", json.dumps({"name": "speed", "value": 3}))) == {"speed": 3.0}
    out = json.loads(s.call("set", json.dumps({"name": "speed", "value": "NaN"})))
    assert "speed" in out["error"] and s.speed == 3.0
    assert "unknown method" in json.loads(s.call("explode"))["error"]
    assert "not valid JSON" in json.loads(s.call("set", "{oops"))["error"]
    assert "error" in json.loads(s.call("set", json.dumps({"nam": "speed"})))


def test_parse_query_clamps_and_reports():
    s = Toy()
    out = s.op_parse_query({"speed": "100", "k": "3", "mode": "bogus", "colour": "red"})
    assert out["values"] == {"speed": 30, "k": 3}
    assert len(out["notices"]) == 3


def test_specs_carry_what_the_page_shows():
    """Choice labels, groups and readouts are data the page reads (no JS copy)."""
    from swarmlab import swarm
    from swarmlab.params import Group, Readout
    from swarmlab.sessions.swarm import SwarmSession

    obstacle = swarm.SPEC_BY_NAME["obstacle"].to_json()
    assert obstacle["choice_labels"] == {"none": "none", "circle": "a circle", "passage": "a narrow passage"}
    assert swarm.SPEC_BY_NAME["obstacle"].shown("passage") == "a narrow passage"
    # a number has its step's decimals, in Python and in the spec the page's controls read
    assert swarm.SPEC_BY_NAME["R"].shown(12.0) == "12.0 lengths"  # step 0.5
    assert swarm.SPEC_BY_NAME["sigma"].shown(15.0) == "15 °/√s"  # step 1
    assert [ParamSpec("x", 1.0, "X", step=st).decimals for st in (0.05, 0.01, 0.1, 0.5, 5.0, 1e-6)] == [2, 2, 1, 1, 0, 4]
    assert swarm.SPEC_BY_NAME["R"].to_json()["decimals"] == 1
    assert swarm.SPEC_BY_NAME["N"].shown(80) == "80 animals" and swarm.SPEC_BY_NAME["N"].decimals == 0
    # a value off the step (from a link or Python) is written in full, never rounded to the step
    assert swarm.SPEC_BY_NAME["R"].shown(10.25) == "10.25 lengths"
    assert swarm.SPEC_BY_NAME["sigma"].shown(12.5) == "12.5 °/√s"
    assert swarm.SPEC_BY_NAME["alignment"].shown(False) == "off"
    # a choice without labels shows its value; labels must match the choices one to one
    plain = ParamSpec("m", "a", "M", kind="choice", choices=("a", "b"))
    assert plain.to_json()["choice_labels"] == {"a": "a", "b": "b"}
    with pytest.raises(ValueError, match="one to one"):
        ParamSpec("m", "a", "M", kind="choice", choices=("a", "b"), choice_labels=("A",))
    display = SwarmSession().op_layout()["display"]
    groups = [g["id"] for g in display["groups"]]
    # every spec is in a published group, and the groups are read in the specs' order
    assert {s.group for s in swarm.SPECS} <= set(groups)
    assert Group("x", "X").to_json() == {"id": "x", "title": "X", "advanced": False}
    assert Readout("P", "p").to_json()["decimals"] == 3
    keys = [r["key"] for r in display["readouts"]]
    assert set(keys) <= set(swarm.measure(SwarmSession().state, SwarmSession()._neighbourhood()))
    # labels that quote a constant are written from it
    assert f"{swarm.VERY_CLOSE:g} lengths" in display["readouts"][keys.index("very_close")]["label"]


def test_every_unit_a_control_shows_is_said_in_words():
    """A slider's aria-valuetext reads its unit from the spec's ``unit_spoken`` (controls.js),
    so no lab's unit is read as symbols ("slash", "superscript two", "square root")."""
    from swarmlab import sessions
    from swarmlab.params import spoken_unit

    assert spoken_unit("lengths/s²") == "lengths per second squared"
    assert spoken_unit("°/√s") == "degrees per root second"
    assert spoken_unit("/ s") == "per second"
    assert spoken_unit("rad") == "radians" and spoken_unit("") == "" and spoken_unit("animals") == "animals"
    seen = set()
    for lab in ("swarm", "vicsek", "boids"):
        session = sessions.create(lab)
        rows = session.op_spec() + [r for r in session.op_layout()["display"].values()
                                    if isinstance(r, dict) and "unit_spoken" in r]
        for row in rows:
            seen.add(row["unit"])
            assert row["unit_spoken"] == spoken_unit(row["unit"])
            assert not set(row["unit_spoken"]) & set("/²√°%"), (lab, row["name"], row["unit_spoken"])
    assert {"lengths/s²", "°/√s", "/ s", "°"} <= seen  # the rate control (display) too
    # one of a whole number takes the singular: "1 animal" (it read "1 animals"), in Python and
    # in the spec the page's controls read
    from swarmlab import swarm
    pop = swarm.SPEC_BY_NAME["N"]
    assert (pop.shown(1), pop.shown(2), pop.marker(1)) == ("1 animal", "2 animals", "population 1 animal")
    assert {k: pop.to_json()[k] for k in ("unit", "unit_one", "unit_one_spoken")} == \
        {"unit": "animals", "unit_one": "animal", "unit_one_spoken": "animal"}
    assert ParamSpec("x", 1.0, "X", unit="lengths", unit_one="length").shown(1.0) == "1 lengths"  # a float: its unit


def test_values_group_their_digits_as_the_page_writes_them():
    """"10,000 boids" on a marker or notice, as on the slider and readout (ui/controls.js), and
    params.grouped agrees with the page's grouped() on every case of tests/shared/grouped.json."""
    import json
    from pathlib import Path

    from swarmlab import boids
    from swarmlab.params import grouped, spec_named

    pop = spec_named(boids.SPECS, "population")
    assert pop.shown(10_000) == "10,000 boids" and pop.shown(80) == "80 boids"
    assert pop.marker(2000).endswith("2,000 boids"), pop.marker(2000)
    assert ParamSpec("t", 1.0, "T", step=0.1, unit="s").shown(1234.5) == "1,234.5 s"
    assert ParamSpec("t", 1.0, "T", step=0.1).shown(12345.25) == "12,345.25"  # off the step: in full
    # a number that names something is written as typed: "Sample 1000 will be used", "seed 123456"
    from swarmlab import swarm, vicsek
    assert spec_named(boids.SPECS, "sample").shown(123456) == "123456"
    assert swarm.SPEC_BY_NAME["sample"].restart_notice(1000).count("1000") == 1
    assert spec_named(vicsek.GENERAL_SPECS, "seed").to_json()["identifier"] is True
    assert not pop.identifier and pop.to_json()["identifier"] is False
    cases = json.loads((Path(__file__).parents[1] / "shared" / "grouped.json").read_text())["cases"]
    assert len(cases) > 10
    for text, want in cases:
        assert grouped(text) == want, text


def test_python_values_are_checked_where_they_enter():
    """From Python as from the page: Params(...) checks every value (sizes may exceed the
    sliders), numpy's integers are whole numbers, and step counts are whole and >= 0."""
    import math

    import numpy as np

    from swarmlab import boids, swarm, vicsek

    for bad, words in [(dict(view=math.nan), "view must be a finite number"), (dict(radius=-1), "radius must be ≥ 0 lengths, got -1"),
                       (dict(population=-5), "population must be ≥ 2 boids, got -5"), (dict(k_sep="x"), "k_sep must be a number"),
                       (dict(max_force=-1.0), "max_force must be ≥ 0 lengths/s²")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            boids.Params(**bad)
    p = boids.Params(population=np.int64(100_000), width=3000, height="2000", k_sep="1.25")
    assert (p.population, p.width, p.height, p.k_sep) == (100_000, 3000.0, 2000.0, 1.25)
    assert type(p.population) is int and type(p.k_sep) is float
    assert boids.Params(max_force=1e9, radius=0.0).max_force == 1e9  # beyond the sliders: allowed
    with pytest.raises(ValueError, match=re.escape("Sample number (sample) must be")):  # but only samples the page can replay
        boids.Params(sample=2**64 + 42)
    from fractions import Fraction

    from swarmlab.params import as_int
    assert (as_int(Fraction(6, 2)), as_int(Fraction(2**60 + 1)), as_int(Fraction(1, 3)), as_int(Fraction(10**400))) == \
        (3, 2**60 + 1, None, 10**400)
    assert swarm.SwarmParams.from_values(N=np.int64(5)).N == 5
    assert boids.Params().with_values(population=np.arange(98, 101)[-1]).population == 100
    # on/off from numpy (a sweep over a boolean array): numpy's bools, and its 0/1 integers as
    # Python's are; a numpy bool is no number, as a Python bool is not
    on = swarm.SwarmParams.from_values(alignment=np.bool_(False), cohesion=np.True_, separation=np.int64(0))
    assert (on.alignment, on.cohesion, on.separation) == (False, True, False)
    assert type(on.cohesion) is bool
    with pytest.raises(ValueError, match="alignment must be on/off"):
        swarm.SwarmParams.from_values(alignment=np.int64(2))
    for name in ("N", "R"):
        with pytest.raises(ValueError, match=f"{name} must be a number"):
            swarm.SwarmParams.from_values(**{name: np.True_})
    s, sp = swarm.initial_state(swarm.SwarmParams.from_values()), swarm.SwarmParams.from_values()
    for n in (-5, 2.9, "10", math.nan):
        with pytest.raises(ValueError, match="whole number of steps"):
            swarm.advance(s, sp, n)
    assert swarm.advance(s, sp, np.int64(2)).step == 2
    with pytest.raises(ValueError, match="whole number of steps"):
        boids.run(boids.initial_state(boids.Params()), boids.Params(), -3)
    with pytest.raises(ValueError, match="measure must be a whole number of steps, 1 or more"):
        vicsek.run_general(vicsek.general_params()[0], 1, 10, 0)
    # a plain function as a rule, from Python, gets the checks a loaded rule file gets
    with pytest.raises(ValueError, match="steering returned 160 NaN values"):
        boids.step(boids.initial_state(boids.Params()), boids.Params(), rule=lambda i, j, d, r, v, p: v * np.nan)


def test_swarm_params_made_directly_or_by_replace_are_checked_like_boids_params():
    """SwarmParams(...) and dataclasses.replace check every value as boids.Params does: NaN,
    words and negative values are refused (a NaN noise once switched the noise off silently);
    sizes beyond the sliders are allowed (the benchmarks run 10,000 animals)."""
    import dataclasses

    from swarmlab import swarm

    p = swarm.SwarmParams.from_values()
    for bad, words in [(dict(sigma=math.nan), "sigma must be a finite number ≥ 0, got nan"),
                       (dict(R=-3), "R must be > 0 lengths, got -3"), (dict(N="lots"), "N must be a whole number ≥ 1"),
                       (dict(R=0), "R must be > 0 lengths, got 0"),  # cohesion divides by R: all NaN a step later
                       (dict(N=0), "N must be ≥ 1"), (dict(mode="x"), "mode must be one of range, nearest"),
                       (dict(separation="maybe"), "separation must be on/off"), (dict(sample=-1), "sample must be in [0, ")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            dataclasses.replace(p, **bad)
    big = dataclasses.replace(p, N=10_000, R=60, sigma="0.5")
    assert (big.N, big.R, big.sigma) == (10_000, 60.0, 0.5)
    tiny = dataclasses.replace(p, R=1e-6, v=0)  # any positive range, and animals that stand still
    assert np.isfinite(swarm.advance(swarm.initial_state(tiny), tiny, 3).theta).all()
    with pytest.raises(ValueError, match=re.escape("R must be in [1, 40] lengths")):
        p.with_values(R=60)  # the sliders' ranges, as the page's


def test_a_refused_minimum_is_said_as_an_open_bound():
    """above_min: the minimum itself is refused, and the message's range says so, with or
    without an upper bound."""
    for spec, words in ((ParamSpec("R", 1.0, "R", min=0.0), "R must be > 0, got 0"),
                        (ParamSpec("R", 1.0, "R", min=0.0, max=5.0), "R must be in (0, 5], got 0")):
        spec = ParamSpec(**{**spec.__dict__, "above_min": True})
        with pytest.raises(ValueError, match=re.escape(words)):
            validate([spec], "R", 0)
        assert validate([spec], "R", 1e-9) == 1e-9
