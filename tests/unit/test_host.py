"""The engine host's message protocol (swarmlab.sessions.host), as the page drives it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from swarmlab import sessions
from swarmlab.sessions.host import Host

ROOT = Path(__file__).resolve().parents[2]


def ask(host, lab, *ops, frame=False):
    text, f = host.handle(json.dumps({"lab": lab, "ops": [list(op) for op in ops], "frame": frame}))
    return json.loads(text), f


def test_ops_run_in_order_and_a_bad_one_changes_nothing():
    h = Host()
    reply, _ = ask(h, "swarm", ["step", {"n": 3}], ["set", {"name": "R", "value": 999}], ["state", {}])
    ok, bad, state = reply["results"]
    assert ok["value"]["step"] == 3
    assert "R must be in" in bad["error"]
    assert state["value"]["step"] == 3 and state["value"]["params"]["R"] == 10
    assert all(r["ms"] >= 0 for r in reply["results"]) and reply["ms"] >= 0


@pytest.mark.parametrize("lab", sessions.LABS)
def test_the_frame_follows_the_published_layout(lab):
    h = Host()
    reply, frame = ask(h, lab, ["layout", {}], ["step", {"n": 2}], frame=True)
    lay = reply["results"][0]["value"]["frame"]
    assert frame.dtype == np.float32
    n = int(frame[lay["count"]])
    assert n > 0 and lay["offset"] == len(lay["header"]) and lay["stride"] == len(lay["fields"])
    assert frame.size == lay["offset"] + lay["blocks"] * n * lay["stride"]
    st, _ = ask(h, lab, ["state", {}])
    t = st["results"][0]["value"]["t"]
    assert frame[lay["clock"]] == np.float32(t)


def test_without_frame_no_frame_and_host_ops():
    h = Host()
    _, f = ask(h, "boids", ["state", {}])
    assert f is None
    reply, _ = ask(h, None, ["info", {}], ["labs", {}], ["nope", {}])
    info, labs, nope = reply["results"]
    assert info["value"]["numpy"] == np.__version__
    assert labs["value"] == list(sessions.LABS)
    assert "unknown host op" in nope["error"]


@pytest.mark.parametrize("request_text", [
    "not json", "[1, 2]", '{"lab": "nope", "ops": []}', '{"lab": "swarm", "ops": {"a": 1}}',
    '{"lab": 7, "ops": []}', "[" * 5000,
])
def test_bad_requests_are_answered_not_raised(request_text):
    text, f = Host().handle(request_text)
    assert "bad request" in json.loads(text)["error"] and f is None


@pytest.mark.parametrize("op", [
    ["step"], ["step", {"n": int("1" + "0" * 400)}], ["step", {"n": None}], ["step", [1]],
    [42, {}], "step", ["op_step", {}], ["__init__", {}], ["set", {"nme": "R"}],
])
def test_bad_ops_get_a_message(op):
    reply, _ = ask(Host(), "vicsek", op)
    r = reply["results"][0]
    assert ("error" in r) or ("value" in r)  # never a traceback
    if op in (["step", {"n": int("1" + "0" * 400)}], [42, {}], "step", ["op_step", {}], ["__init__", {}]):
        assert "error" in r


def test_the_lab_list_is_the_pages_tabs():
    """One list: the tabs of index.html (the shell reads them) name the engine's sessions."""
    html = (ROOT / "index.html").read_text(encoding="utf-8")
    tabs = re.findall(r'role="tab"[^>]*data-lab="([a-z]+)"', html)
    assert tuple(tabs) == sessions.LABS


def test_history_is_one_protocol_for_every_lab_that_keeps_one():
    h = Host()
    for lab in ("swarm", "boids", "vicsek"):
        reply, _ = ask(h, lab, ["step", {"n": 40}], ["history", {}])
        full = reply["results"][1]["value"]
        assert full["full"] is True and len(full["t"]) >= 2
        reply, _ = ask(h, lab, ["step", {"n": 40}], ["history", {"since": full["t"][-1], "version": full["version"]}])
        more = reply["results"][1]["value"]
        assert more["full"] is False and more["t"] and more["t"][0] > full["t"][-1]
        reply, _ = ask(h, lab, ["history", {"since": float("nan"), "version": 0}])
        assert "error" in reply["results"][0]


@pytest.mark.parametrize("lab", sessions.LABS)
def test_a_measure_has_one_name_in_its_readout_its_chart_and_its_table(lab):
    """The chart tables and the CSV show the history's labels: in Lab 2 P was "shared heading P"
    in its readout and plot but "order parameter P" in its table; in Lab 1 "rotation (milling)"
    and "share under 1.2 lengths" were "rotation order" and "very-close share (...)"."""
    s = sessions.create(lab)
    named = s.op_history()["labels"]
    display = s.op_layout()["display"]
    readouts = {r["key"]: r["label"] for r in display["readouts"] if r["key"] in named}
    assert readouts, display["readouts"]
    for key, label in readouts.items():
        assert label == named[key], (key, label, named[key])
    for chart in display.get("charts", []):
        for series in chart["series"]:
            assert named[series["key"]] in series["label"], (series, named[series["key"]])


@pytest.mark.parametrize("lab, not_loaded", [("swarm", {"swarmlab.boids", "swarmlab.vicsek"}),
                                             ("vicsek", {"swarmlab.boids", "swarmlab.swarm"}),
                                             ("boids", {"swarmlab.swarm", "swarmlab.vicsek"})])
def test_a_lab_imports_only_its_own_model(lab, not_loaded):
    """The host imports the shared modules; each lab's model is imported on its first use, so the
    page's first lab does not wait for the others' (Lab 1 imported Lab 3's model through
    describe.py's unit_headings).  In a fresh Python: a lab's session runs, steps and describes."""
    import subprocess
    import sys

    code = ("import json, sys\n"
            "from swarmlab.sessions.host import Host\n"
            f"Host().handle(json.dumps({{'lab': {lab!r}, 'ops': [['step', {{'n': 2}}], ['metrics', {{}}], "
            "['describe', {}]], 'frame': True}))\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('swarmlab'))))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT / "app", timeout=120)
    assert res.returncode == 0, res.stderr
    loaded = set(json.loads(res.stdout.splitlines()[-1]))
    assert f"swarmlab.sessions.{lab}" in loaded and not (loaded & not_loaded), sorted(loaded)


def test_each_lab_gives_the_other_name_of_p():
    """P is "whole-group agreement P" in the Swarm Lab (beside its local agreement) and "shared
    heading P" in Labs 2 and 3; the Swarm Lab's and Lab 2's texts give the other name
    (constants.p_elsewhere), taken from the other labs' own chart series, so the names cannot
    drift apart (a review found that nothing told a student they were one measure)."""
    h = Host()
    layout = {lab: ask(h, lab, ["layout", {}])[0]["results"][0]["value"] for lab in ("swarm", "vicsek", "boids")}
    p_label = {lab: {r["key"]: r["label"] for r in layout[lab]["display"]["readouts"]}["P"] for lab in layout}
    assert p_label["vicsek"] == p_label["boids"] != p_label["swarm"]
    assert layout["swarm"]["constants"]["p_elsewhere"] == p_label["vicsek"]
    assert layout["vicsek"]["constants"]["p_elsewhere"] == p_label["swarm"]
