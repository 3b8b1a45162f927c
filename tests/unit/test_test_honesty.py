"""The browser tests' waits can fail.

Playwright's ``wait_for_function`` polls a predicate and stops at the first truthy answer,
without awaiting it: a predicate that returns a promise (an ``async`` function, a ``.then``
chain, a call to the engine) passes at once, whatever the promise later resolves to
(microsoft/playwright#29132).  Such a wait waits for nothing, and the assertions after it race
the page.  ``browserlib.wait_async`` awaits each answer; this test keeps the others out.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

# What makes a predicate's answer a promise (the engine's calls all return one).
PROMISE_MARKS = ("async ", "await ", ".then(", "engine.call(", "engine.batch(", "new Promise(")


def promise_waits(src: str, name: str = "<test>") -> list[str]:
    """``file:line`` of each ``.wait_for_function(...)`` in `src` whose predicate (a string, or
    an f-string whose literal parts are read) returns a promise."""
    found = []
    for node in ast.walk(ast.parse(src, name)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "wait_for_function"):
            continue
        pred = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "expression"), None)
        if pred is None:
            continue
        text = " ".join(c.value for c in ast.walk(pred)
                        if isinstance(c, ast.Constant) and isinstance(c.value, str))
        if any(mark in text for mark in PROMISE_MARKS):
            found.append(f"{name}:{node.lineno}")
    return found


def test_no_browser_test_waits_on_a_promise():
    bad = [hit for path in sorted(TESTS.rglob("*.py"))
           for hit in promise_waits(path.read_text(), str(path.relative_to(TESTS)))]
    assert not bad, f"wait_for_function with a promise passes at once; use browserlib.wait_async: {bad}"


def test_the_scan_sees_each_form_of_a_promise_wait():
    forms = [
        'page.wait_for_function("async () => (await window.swarmlab.engine.call(\'swarm\', \'state\')).t > 5")',
        'page.wait_for_function("() => window.swarmlab.engine.call(\'vicsek\', \'describe\')"\n'
        '                       ".then((d) => d.text.includes(\'x\'))")',
        'app.wait_for_function(f"(t) => window.swarmlab.engine.call(lab, \'state\').then((s) => s.t > {t})")',
        'frame.wait_for_function(expression="() => new Promise((r) => setTimeout(r, 9))")',
    ]
    for src in forms:
        assert promise_waits(src), src
    fine = 'page.wait_for_function("() => document.body.dataset.ready === \'1\'", timeout=5_000)'
    assert promise_waits(fine) == []
