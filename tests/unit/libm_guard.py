"""Make numpy's and libm's transcendental functions raise, for the exact-replay tests.

Their last bits differ between CPython's and Pyodide's builds, so any of them on a path that
feeds a chaotic state breaks bit-identical replay; ``detmath`` and plain IEEE arithmetic do not.
"""
import math

import numpy as np

FORBIDDEN_NP = ("sin", "cos", "tan", "arctan2", "arctan", "arcsin", "arccos", "hypot", "log", "log1p", "exp",
                "expm1", "power", "einsum")
FORBIDDEN_MATH = ("sin", "cos", "tan", "atan2", "atan", "hypot", "log", "exp", "pow")


def forbid_libm(monkeypatch, what: str) -> None:
    """Every forbidden function raises, naming ``what`` (e.g. "the Lab 1 state")."""
    def forbid(name):
        def raiser(*args, **kwargs):
            raise AssertionError(f"{name} was called on a path that feeds {what}")
        return raiser

    for name in FORBIDDEN_NP:
        monkeypatch.setattr(np, name, forbid(f"np.{name}"))
    monkeypatch.setattr(np.linalg, "norm", forbid("np.linalg.norm"))
    for name in FORBIDDEN_MATH:
        monkeypatch.setattr(math, name, forbid(f"math.{name}"))
