"""Hypothesis stateful tests: random sequences of page ops, with hostile arguments, on every
session.  Whatever arrives, each op answers a value or a clear error (never a traceback),
the reply is valid JSON, and the state stays finite and consistent with its frame."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from swarmlab.sessions.host import Host

HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.just(10**400), st.just(-(2**63)), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.just("1e999"), st.just("9007199254740993"),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
SMALL_N = st.integers(min_value=0, max_value=6)

OPS = {
    "swarm": {"set": ("name", "value"), "population": ("n", "by"), "select": ("x", "y", "index"),
              "turn_one": (), "threat": (), "restart_trial": ("trial",), "start_trial": ("trial", "sigma", "obstacle"),
              "continue": (), "link": (),
              "history": ("since", "version"), "selected": (), "metrics": (), "parse_query": ("query",)},
    "vicsek": {"set": ("name", "value"), "select": ("x", "y", "index"), "neighbours": ("i",), "link": (),
               "check_advance": ("updates",), "metrics": (), "parse_query": ("query",)},
    "boids": {"set": ("name", "value"), "preset": ("name",), "population": ("n",), "treat": ("x", "y", "on"),
              "resize": ("width", "height"), "parse_world": ("width", "height"), "history": ("since", "version"),
              "scale": ("n",), "cost": ("steps",), "link": (),
              "metrics": (), "parse_query": ("query",)},
}
NAMES = {"swarm": ["N", "R", "k", "mode", "sample", "sigma", "obstacle", "alignment", "w_s"],
         "vicsek": ["a"], "boids": ["k_sep", "population", "radius", "sample"]}


def machine_for(lab: str):
    class SessionMachine(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.host = Host()

        def ask(self, *ops, frame=False):
            text, f = self.host.handle(json.dumps({"lab": lab, "ops": [list(o) for o in ops], "frame": frame},
                                                  allow_nan=True))
            reply = json.loads(text)  # valid JSON (NaN never appears in a reply)
            for r in reply["results"]:
                assert ("value" in r) != ("error" in r), r
                if "error" in r:
                    assert isinstance(r["error"], str) and "Traceback" not in r["error"] and len(r["error"]) < 300
            return reply, f

        @rule(n=SMALL_N)
        def step(self, n):
            reply, _ = self.ask(["step", {"n": n}])
            assert "value" in reply["results"][0]

        @rule(op=st.sampled_from(sorted(OPS[lab])), data=st.data())
        def hostile_op(self, op, data):
            args = {}
            for a in OPS[lab][op]:
                if data.draw(st.booleans()):
                    if a == "name" and data.draw(st.booleans()):
                        args[a] = data.draw(st.sampled_from(NAMES[lab] if op == "set" else ["balanced", "cohesion"]))
                    else:
                        args[a] = data.draw(HOSTILE)
            self.ask([op, args])

        @rule(n=HOSTILE)
        def hostile_step(self, n):
            self.ask(["step", {"n": n}])

        @rule(garbage=HOSTILE)
        def hostile_request_shapes(self, garbage):
            self.ask(["step", garbage], [garbage], ["nope", {}])

        @invariant()
        def state_is_finite_and_matches_the_frame(self):
            reply, f = self.ask(["layout", {}], ["state", {}], frame=True)
            lay = reply["results"][0]["value"]["frame"]
            assert np.all(np.isfinite(f))
            n = int(f[lay["count"]])
            assert f.size == lay["offset"] + lay["blocks"] * n * lay["stride"]
            t = reply["results"][1]["value"]["t"]
            assert math.isfinite(t) and t >= 0

    SessionMachine.__name__ = f"{lab.title()}SessionMachine"
    return SessionMachine


# Deterministic (derandomize, no example database), so a failure here is a failure everywhere.
SETTINGS = settings(max_examples=60, stateful_step_count=12, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow], derandomize=True)

TestSwarmSession = machine_for("swarm").TestCase
TestSwarmSession.settings = SETTINGS
TestVicsekSession = machine_for("vicsek").TestCase
TestVicsekSession.settings = SETTINGS
TestBoidsSession = machine_for("boids").TestCase
TestBoidsSession.settings = SETTINGS
