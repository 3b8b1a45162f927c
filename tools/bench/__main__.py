"""Dispatch ``python -m tools.bench [name ...] [options]``.

Leading arguments that do not start with ``-`` name benchmarks (modules
``tools/bench/<name>.py`` with ``main(argv)``); everything from the first option
on is passed to each of them.  With no name, every benchmark in BENCHES runs.
"""

from __future__ import annotations

import importlib
import os
import sys

BENCHES = ("neighbours", "peers", "allocator", "mesa_peer", "steps_swarm", "steps_vicsek", "steps_boids", "browser", "worker", "two_workers", "lighthouse")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    names: list[str] = []
    while argv and not argv[0].startswith("-"):
        names.append(argv.pop(0))
    if names in ([], ["all"]):
        names = list(BENCHES)
    # the engine lives in app/; make it importable when run from a checkout
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    app = os.path.join(root, "app")
    if os.path.isdir(app) and app not in sys.path:
        sys.path.insert(0, app)
    status = 0
    for name in names:
        try:
            mod = importlib.import_module(f"tools.bench.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"tools.bench.{name}":
                raise
            print(f"unknown benchmark {name!r}; available: {', '.join(BENCHES)}", file=sys.stderr)
            return 2
        print(f"== bench: {name} ==", flush=True)
        status = max(status, int(mod.main(argv) or 0))
    return status


if __name__ == "__main__":
    sys.exit(main())
