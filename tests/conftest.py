"""Shared pytest setup: make `app/` importable even without `pip install -e .`."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# With --import-mode=importlib, test folders are not put on sys.path; the shared
# helpers (tests/unit/oracles.py, tests/browser/browserlib.py, tests/parity/parity_runtimes.py)
# are imported by name.
for extra in (ROOT / "app", ROOT / "tests" / "unit", ROOT / "tests" / "browser", ROOT / "tests" / "parity",
              ROOT / "tools"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))
