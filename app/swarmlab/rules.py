"""Rules a student can read and rewrite: load Python source as a model's rule function.

Lab 3's steering (``rules_boids.steering``) and Lab 2's turn (``rules_vicsek.turn``) are
ordinary functions in ordinary modules, and the engine calls them every step.  The page
shows their source (:func:`source_of`); a student edits it, and :func:`load` compiles the
edited text into a new function that the engine then calls in the same place, with the
same arguments.  A rule function's text is the real code the model runs: it is never a
copy kept for display.

What :func:`load` does with a student's text
--------------------------------------------
* compiles it under the file name :data:`FILENAME` ("<your rules>"), so a SyntaxError or a
  traceback names the student's own line numbers (:class:`RuleError` carries ``line``);
* executes it in a fresh namespace holding exactly the names the built-in rule's module
  sees (numpy as ``np``, the helpers, the constants), and nothing of the page: the code runs
  in the engine's worker, which has no DOM to reach;
* looks up the function by its name (``steering`` or ``turn``) and returns a
  :class:`Rule`.

A loaded rule is then tried on the current state (:meth:`RuleKind.check`) before a
session swaps it in; at every later step its result is checked again (shape, numeric type,
finite values: NaN and inf are rejected with a message that says which and how many).
The sessions keep the last rule that worked; a rule that fails is never half-applied.

Time limit: :func:`call_limited` runs a rule under a tracer (``sys.settrace`` with opcode
events, only inside the student's frames) that raises :class:`RuleTimeout` once the rule has
run for longer than its limit, so ``while True: pass`` stops itself in Python, even where
the engine runs on the page's main thread (the single file).  The cost: a rule written as
a Python loop runs about 20 times slower than untraced (measured in CPython 3.11: 1.28 s
against 0.06 s for a million-step loop); a vectorised rule executes only a few hundred
opcodes a step and does not notice.  A loop inside one
numpy or builtin call (``sum(range(10**12))``) cannot be interrupted that way; there the
page's engine watchdog (assets/js/engine.js) terminates the worker and restores the last
good state.  The limit belongs to the loaded rule (``load(..., time_limit=)``): the page
keeps :data:`TIME_LIMIT_S`; a batch run from Python may raise it, or pass None for no limit
and no tracer (the CLI's ``--time-limit``), since a slow but correct rule must not fail with
the machine's load.

Only the standard library and numpy are imported here.
"""

from __future__ import annotations

import inspect
import sys
import time
import traceback
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

import numpy as np

from . import cells

FILENAME = "<your rules>"  # the name tracebacks give to a student's code
MAX_SOURCE_CHARS = 20_000  # a rule module is a page of code, not a program
TIME_LIMIT_S = 2.0  # one call of a student's rule; beyond it the rule is stopped
MAX_MESSAGE_CHARS = 600  # a rule's message, cut as the page cuts its notices


class RuleError(ValueError):
    """A rule that cannot be used, with the student's line number when there is one.

    A ValueError, so a session op that raises it reports ``{"error": message}`` and
    changes nothing (sessions/base.py).
    """

    def __init__(self, message: str, line: int | None = None, kind: str = "error"):
        if len(message) > MAX_MESSAGE_CHARS:  # a student's exception may carry megabytes of text
            message = message[:MAX_MESSAGE_CHARS - 1] + "…"
        super().__init__(message)
        self.line = line
        self.kind = kind  # "syntax", "exception", "result", "timeout", "missing"
        self.update = 0  # a run that failed part-way: the step or update that failed (from 1)

    def to_json(self) -> dict:
        return {"message": str(self), "line": self.line, "kind": self.kind}


class RuleTimeout(Exception):
    """Raised inside a student's frame when the rule has run past its time limit."""


# ------------------------------------------------------------------------ shared helpers
def sum_by(i: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per-boid sums of per-pair values: ``out[a] = sum over pairs p with i[p] = a of values[p]``.

    i      : (M,) int    the first boid of each pair
    values : (M,) or (M, k)
    n      : number of boids -> (n,) or (n, k)

    ``np.bincount`` adds in pair order (a sequential loop), so the bits depend only on
    that order: the same pairs in the same order give the same sums everywhere.  The
    engine's one reducer, :func:`cells.sum_by_i`, under the name the student's code uses.
    """
    i = np.asarray(i).astype(np.intp, copy=False)  # bincount wants the native index type
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        return cells.sum_by_i(i, values, n)
    return np.stack([cells.sum_by_i(i, values[:, k], n) for k in range(values.shape[1])], axis=1)


def count_by(i: np.ndarray, n: int) -> np.ndarray:
    """(n,) how many pairs each boid is the first of (its neighbour count)."""
    return np.bincount(np.asarray(i).astype(np.intp, copy=False), minlength=n)


def mean_by(i: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per-boid means of per-pair values (0 for a boid with no pair), shapes as :func:`sum_by`."""
    inv = 1.0 / np.maximum(count_by(i, n), 1)
    s = sum_by(i, values, n)
    return s * (inv[:, None] if s.ndim == 2 else inv)


# ------------------------------------------------------------------------ rule kinds
@dataclass(frozen=True)
class RuleKind:
    """What one lab's rule is: its function name, the module it lives in, its result.

    name    : the function the student's code must define ("steering", "turn")
    module  : the module holding the built-in rule; the names in its ``__all__`` are the
              namespace a student's code runs in
    result  : words for the result ("accelerations (N, 2)")
    columns : 2 for (N, 2) results, 0 for (N,)
    """

    name: str
    module: ModuleType
    result: str
    columns: int

    @property
    def builtin(self) -> Callable:
        return getattr(self.module, self.name)

    @property
    def ideas(self) -> tuple:
        """The module's ``IDEAS`` (rules.Idea edits of its source), if it has any."""
        return tuple(getattr(self.module, "IDEAS", ()))

    def source(self) -> str:
        """The built-in rule function's source text (what the page shows and edits)."""
        return source_of(self.builtin)

    def panel(self) -> dict[str, str]:
        """The "Rules in Python" panel's words, from the module: ``PANEL_TITLE`` (its heading),
        ``PANEL_INTRO`` (what the function is) and ``PANEL_HELP`` (what it gets and returns)."""
        return {"title": getattr(self.module, "PANEL_TITLE", "Rules in Python"),
                "intro": getattr(self.module, "PANEL_INTRO", ""),
                "help": getattr(self.module, "PANEL_HELP", f"Return {self.result}.")}

    def helpers(self) -> list[str]:
        """The names a student's code may use besides the rule itself, as the page lists them:
        a function with its parameters ("sum_by(i, values, n)"), a constant with its value
        ("EPS = 1.0"), numpy as "np (numpy)".  In the module's ``__all__`` order."""
        out = []
        for name in self.module.__all__:
            if name == self.name:
                continue
            obj = getattr(self.module, name)
            if inspect.ismodule(obj):
                out.append(f"{name} ({obj.__name__})")
            elif callable(obj):
                params = inspect.signature(obj).parameters.values()
                out.append(f"{name}({', '.join(str(q.replace(annotation=q.empty)) for q in params)})")
            else:
                out.append(f"{name} = {obj!r}")
        return out

    def namespace(self) -> dict:
        """A fresh namespace for a student's code: the names the built-in rule sees."""
        ns = {k: getattr(self.module, k) for k in self.module.__all__ if k != self.name}
        ns["__name__"] = "your_rules"
        ns["__builtins__"] = __builtins__
        return ns

    def check(self, out: Any, n: int) -> np.ndarray:
        """The rule's result as float64 of the right shape, or RuleError naming the problem."""
        want = (n, self.columns) if self.columns else (n,)
        shape_words = f"({n}, {self.columns})" if self.columns else f"({n},)"
        if out is None:
            raise RuleError(f"{self.name} returned nothing (None); it must return {self.result}, "
                            f"an array of shape {shape_words}", kind="result")
        try:
            arr = np.asarray(out)
        except Exception as exc:  # a ragged list, say
            raise RuleError(f"{self.name} returned something that is not an array ({exc})", kind="result") from None
        if arr.dtype.kind not in "fiu":
            raise RuleError(f"{self.name} returned an array of {arr.dtype} values; "
                            f"it must hold real numbers", kind="result")
        if arr.shape != want:
            raise RuleError(f"{self.name} returned shape {arr.shape}; it must return {self.result}, "
                            f"shape {shape_words}", kind="result")
        arr = arr.astype(np.float64, copy=False)
        bad = ~np.isfinite(arr)
        if bad.any():
            nan = int(np.count_nonzero(np.isnan(arr)))
            inf = int(np.count_nonzero(bad)) - nan
            what = " and ".join(w for w in (f"{nan} NaN" if nan else "", f"{inf} infinite" if inf else "") if w)
            rows = np.flatnonzero(bad.reshape(n, -1).any(axis=1))
            raise RuleError(f"{self.name} returned {what} value{'s' if nan + inf > 1 else ''} "
                            f"(first at row {int(rows[0])}); every value must be a finite number. "
                            f"A division by a distance or a count that can be 0 is the usual cause", kind="result")
        return arr


@dataclass(frozen=True)
class Idea:
    """An edit of a built-in rule for the page's "Ideas to try".

    name   : short id;  title : the button's words;  look : what to watch for (tested)
    edits  : (old, new) pairs of source text, each ``old`` found exactly once
    """

    name: str
    title: str
    look: str
    edits: tuple[tuple[str, str], ...]

    def apply(self, source: str) -> str:
        for old, new in self.edits:
            if source.count(old) != 1:
                raise ValueError(f"idea {self.name!r}: {old!r} is not once in the rule's source")
            source = source.replace(old, new)
        return source

    def to_json(self, source: str) -> dict:
        return {"name": self.name, "title": self.title, "look": self.look, "code": self.apply(source)}


@dataclass(frozen=True)
class Rule:
    """A rule function and where it came from.

    fn     : the function the engine calls
    code   : its source text (the built-in's own source for the original)
    kind   : its RuleKind
    user   : False for the built-in rule
    time_limit : seconds one call of a student's rule may run (None: no limit, no tracer)
    """

    fn: Callable
    code: str
    kind: RuleKind
    user: bool = False
    time_limit: float | None = TIME_LIMIT_S

    def __call__(self, *args) -> np.ndarray:
        if not self.user:
            return self.fn(*args)
        n = len(args[4])  # the boids' velocities / the agents' headings: one row per agent
        # the student's code sees the model's arrays read-only: "v[:] = 0" or "theta *= 2" is an
        # error on its line (the rule is refused), not a change to the run behind the engine's back
        out = self.kind.check(call_limited(self.fn, tuple(read_only(a) for a in args), self.time_limit), n)
        return out if not isinstance(out, np.ndarray) or out.flags.writeable else out.copy()


def read_only(a: Any) -> Any:
    """A read-only view of an array (no copy); anything else as it is.  Every rule, loaded or
    a plain function from Python, gets its arrays this way: a step stays pure."""
    if not isinstance(a, np.ndarray):
        return a
    view = a.view()
    view.flags.writeable = False
    return view


def builtin(kind: RuleKind) -> Rule:
    return Rule(kind.builtin, kind.source(), kind, user=False)


def template(kind: RuleKind, run: str) -> str:
    """A rules file to start from: the built-in rule's source (what the page's panel shows)
    under a comment that says how to run it and which names it has without importing them.
    :func:`load_file` runs it as it is, with the built-in rule's very results."""
    return (f"# Swarm Lab: the built-in {kind.name}() rule, to edit.  Run it with: {run}\n"
            f"# Also there without an import: {', '.join(kind.helpers())}\n\n" + kind.source())


def source_of(fn: Callable) -> str:
    """A function's source, dedented (inspect.getsource)."""
    return inspect.cleandoc("\n" + inspect.getsource(fn)) + "\n"


def load(code: Any, kind: RuleKind, time_limit: float | None = TIME_LIMIT_S) -> Rule:
    """Compile a student's text into a :class:`Rule` (not yet tried on a state).

    RuleError (with ``line``) for: not text, too long, a SyntaxError, an exception while
    the module's top level runs, or no function called ``kind.name``.  ``time_limit``:
    seconds for the module's top level and for each later call of the rule (None: none).
    """
    time_limit = _time_limit(time_limit)
    if not isinstance(code, str):
        raise RuleError("the rules must be Python source text", kind="syntax")
    if len(code) > MAX_SOURCE_CHARS:
        raise RuleError(f"the rules are {len(code)} characters long; keep them under {MAX_SOURCE_CHARS}",
                        kind="syntax")
    try:
        compiled = compile(code, FILENAME, "exec")
    except SyntaxError as exc:
        line = exc.lineno
        where = f"line {line}: " if line else ""
        raise RuleError(f"SyntaxError on {where}{exc.msg}", line=line, kind="syntax") from None
    except ValueError as exc:  # e.g. a NUL character in the source
        raise RuleError(f"the rules cannot be compiled: {exc}", kind="syntax") from None
    ns = kind.namespace()
    try:
        call_limited(lambda: exec(compiled, ns), (), time_limit)
    except RuleError:
        raise
    except Exception as exc:
        raise explain(exc, "while your code was being loaded") from None
    fn = ns.get(kind.name)
    if not callable(fn):
        raise RuleError(f"your code must define a function called {kind.name}(...)", kind="missing")
    return Rule(fn, code, kind, user=True, time_limit=time_limit)


def _time_limit(value: Any) -> float | None:
    """A rule's time limit: a number of seconds above 0, or None or 0 for no limit (as the command
    line's ``--time-limit 0``); ValueError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 <= value < float("inf")):
        raise ValueError(f"a rule's time limit must be a number of seconds above 0 (or 0 or None for no limit), "
                         f"got {value!r}")
    return float(value) or None  # 0: no limit


def load_file(path: str, kind: RuleKind, time_limit: float | None = TIME_LIMIT_S) -> Rule:
    """:func:`load` of a file's text (the CLI's ``--rules FILE``; a notebook's rule module).

    The module may hold more than the rule (imports, helper functions); names the built-in
    rule's module provides (``np``, ``sum_by``, ...) are there without importing them.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            code = fh.read()
    except OSError as exc:
        raise RuleError(f"cannot read the rules file {path!r}: {exc.strerror or exc}", kind="missing") from None
    except UnicodeDecodeError as exc:  # Latin-1 text, a binary file
        raise RuleError(f"cannot read the rules file {path!r}: it is not UTF-8 text (byte {exc.start} is "
                        f"{exc.object[exc.start:exc.start + 1]!r}); save it as UTF-8", kind="missing") from None
    try:
        return load(code, kind, time_limit)
    except RuleError as exc:
        raise RuleError(f"{path}: {exc}", exc.line, exc.kind) from None


def call_limited(fn: Callable, args: tuple, limit: float | None = TIME_LIMIT_S) -> Any:
    """``fn(*args)``, stopped with RuleError if the student's own lines run past ``limit`` s.

    The tracer only follows frames compiled from :data:`FILENAME` (the student's code),
    so the engine's own functions and numpy run at full speed.  Any exception from the
    student's code comes back as a RuleError naming the line.  ``limit=None``: no tracer
    and no limit (exceptions are still explained).
    """
    deadline = time.perf_counter() + (limit or 0.0)
    events = 0

    def local(frame, event, arg):
        nonlocal events
        events += 1
        if not events & 255 and time.perf_counter() > deadline:  # the clock every 256 events
            raise RuleTimeout(frame.f_lineno)
        return local

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != FILENAME:
            return None
        # every opcode, not only every line: "while True: pass" never starts a new line
        frame.f_trace_opcodes = True
        return local

    previous = sys.gettrace()
    if limit is not None:
        sys.settrace(tracer)
    try:
        with np.errstate(all="ignore"):  # NaN and inf are reported by RuleKind.check, not warned
            return fn(*args)
    except RuleTimeout as exc:
        line = exc.args[0]
        raise RuleError(f"your rule ran for more than {limit:g} s and was stopped on line {line} "
                        f"(an endless loop?)", line=line, kind="timeout") from None
    except RuleError:
        raise
    except KeyboardInterrupt as exc:
        # Ctrl-C at a terminal stops the whole run (the command line keeps its samples); in the
        # browser nobody can press it, so there it is a rule's own `raise`, a broken rule
        if sys.platform != "emscripten":
            raise
        raise explain(exc) from None
    except BaseException as exc:
        # (SystemExit and any other BaseException too: sys.exit() in a rule is a broken rule, not
        # the end of the engine)
        raise explain(exc) from None
    finally:
        if limit is not None:
            sys.settrace(previous)


# Said after "No module named ..." in the browser, whose Python is trimmed to load fast
# (tools/compile_runtime.py: the standard library the labs reach, numpy without f2py and
# numpy.testing); on a computer the same rule runs with the whole of Python.
BROWSER_MODULE_HINT = ("the browser's Python carries only the modules the labs use, so that the page loads "
                       "fast; the same rule runs in Python on a computer, with python -m swarmlab and "
                       "--rules your_rule.py")


def _left_out_here(exc: BaseException) -> bool:
    """A module of Python's standard library or of numpy that this Python lacks: one the
    browser's trimmed runtime left out (a typo, or a package nobody ships, gets no hint)."""
    name = getattr(exc, "name", None) or ""
    top = name.split(".")[0]
    return isinstance(exc, ModuleNotFoundError) and (top in sys.stdlib_module_names or top == "numpy")


def explain(exc: BaseException, when: str = "", browser: bool | None = None) -> RuleError:
    """A RuleError for an exception raised inside the student's code, with its line.

    ``browser`` (default: running under Pyodide): a module of the standard library or numpy
    that the page's Python does not carry is said to be left out on purpose, with where the
    rule runs whole (BROWSER_MODULE_HINT).
    """
    line = _student_line(exc.__traceback__)
    where = f" on line {line}" if line else ""
    when = f" {when}" if when else ""
    hint = ""
    if (sys.platform == "emscripten" if browser is None else browser) and _left_out_here(exc):
        hint = f" ({BROWSER_MODULE_HINT})"
    return RuleError(f"{type(exc).__name__}{where}{when}: {exc}{hint}", line=line, kind="exception")


def _student_line(tb) -> int | None:
    """The line of the innermost frame of the student's code in a traceback."""
    line = None
    for frame, lineno in traceback.walk_tb(tb):
        if frame.f_code.co_filename == FILENAME:
            line = lineno
    return line
