"""Swarm Lab engine: collective-motion models in vectorised numpy.

The package runs unchanged under CPython (tests, benchmarks, batch experiments)
and under Pyodide in the browser.  It imports only numpy and the standard
library; the browser bridge lives outside it, in ``app/main.py``.

Modules
-------
space      periodic box, the one minimum-image displacement helper, wrapping
cells      cell-list ("grid binning") neighbour search returning flat pair arrays
params     parameter specs (name, default, range, unit, label) and validation
metrics    order parameters, spacing, history with event markers
swarm      Lab 1 model ("Swarm Lab")
vicsek     Lab 2 model ("Few turns, one direction")
boids      Lab 3 model ("Three rules")
sessions   per-lab session objects that the browser bridge drives
"""

__version__ = "0.1.0"
