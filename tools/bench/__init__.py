"""Benchmarks for the Swarm Lab engine.

Run ``python -m tools.bench [name ...] [options]`` from the repository root
(``make bench`` does this).  Each benchmark is a module ``tools/bench/<name>.py``
exposing ``main(argv) -> int`` that prints tables and writes JSON under
``dist/bench/``.  Benchmarks may use scipy; the engine (``app/swarmlab``) never does.
"""
