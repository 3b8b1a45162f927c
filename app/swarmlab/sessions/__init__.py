"""Per-lab sessions: the pure-Python objects the browser bridge drives.

``create(lab)`` imports ``swarmlab.sessions.<lab>`` and calls its ``make_session()``.
No registry to edit: adding a lab means adding a module.
"""

from __future__ import annotations

import importlib

from ..params import shown
from .base import Session

# The same list, in the same order, as the tabs of index.html (tests/unit/test_host.py checks).
LABS = ("swarm", "vicsek", "boids")


def create(lab: str) -> Session:
    if lab not in LABS:
        raise ValueError(f"unknown lab {shown(lab)}; choose one of {', '.join(LABS)}")
    module = importlib.import_module(f"{__name__}.{lab}")
    return module.make_session()
