# Swarm Lab — two commands do everything:
#   make run    vendor the runtime (verified), then serve the app and print its URL
#   make test   create .venv, install test deps, vendor, ensure a Chromium, run all tests
# Also: make bench, make dist, make offline, make clean.
# With a Python 3.12 ($PYTHON_BUILD, python3.12 on PATH or pyenv) the vendor step py-compiles
# the runtime in .venv-build (pyodide-build) for a boot about twice as fast; without one it
# uses the official files and says so (nothing fails).

PYTHON ?= python3
PORT ?= 8000
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
MESA_STAMP := $(VENV)/.mesa-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
CHROMIUM ?= $(shell command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null)
PYTEST_ARGS ?=

.PHONY: run serve vendor test unit browser bench dist offline clean venv chromium help node-dev lighthouse-dev pyodide-test-dist pyodide engines mesa-extra

help:
	@echo "make run      serve the app on http://127.0.0.1:$(PORT)/ (vendors the runtime first)"
	@echo "make test     set everything up and run unit + browser tests"
	@echo "make bench    benchmarks (ratios measured side by side)"
	@echo "make dist     static site in dist/site;  make offline  single file dist/swarm-lab.html"
	@echo "make clean    remove generated files"

run: vendor
	@$(PYTHON) tools/pyfiles.py
	@$(PYTHON) tools/serve.py --port $(PORT)

serve: run

vendor:
	@$(PYTHON) tools/vendor.py

$(STAMP): pyproject.toml
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	@$(VPY) -m pip install -q --disable-pip-version-check --upgrade pip
	@$(VPY) -m pip install -q --disable-pip-version-check -e '.[test,bench]'
	@rm -f $(VENV)/.installed-*
	@touch $@

venv: $(STAMP)

# The optional bench extra (Mesa, for tools/bench/mesa_peer.py): make bench only, so make test
# neither needs nor installs it.  If it cannot be installed, mesa_peer says so and skips.
$(MESA_STAMP): $(STAMP)
	@if $(VPY) -m pip install -q --disable-pip-version-check -e '.[test,bench,mesa]'; then \
	  rm -f $(VENV)/.mesa-*; touch $@; \
	else echo "bench: the optional Mesa extra did not install; mesa_peer will skip"; fi

mesa-extra: $(MESA_STAMP)

# Use a system Chromium when there is one ($$CHROMIUM, /usr/bin/chromium); otherwise
# let Playwright download its own (the ordinary route on a developer's machine).
chromium: venv
	@if [ -n "$(CHROMIUM)" ] && [ -x "$(CHROMIUM)" ]; then \
	  echo "chromium: using $(CHROMIUM)"; \
	else \
	  echo "chromium: no system Chromium found; running playwright install chromium"; \
	  $(VPY) -m playwright install chromium; \
	fi

# Dev-only npm packages (puppeteer-core drives Firefox ESR in tests/engines); vendor.py's
# `npm ci` installs them too, this catches a node_modules made before they were added.
# Lighthouse for make bench only, with its own package.json and lock (make test does not need it).
lighthouse-dev:
	@test -x tools/bench/lighthouse/node_modules/.bin/lighthouse || npm ci --prefix tools/bench/lighthouse --ignore-scripts --no-audit --no-fund

node-dev:
	@test -d node_modules/puppeteer-core -a -d node_modules/axe-core || npm ci --ignore-scripts --no-audit --no-fund

# The Pyodide dist folder of tests/pyodide (tests/pyodide/conftest.py also builds it on demand).
pyodide-test-dist: venv vendor node-dev
	@$(VPY) tools/pyodide_test_dist.py

# The engine inside Pyodide (Node and Chromium) / Firefox ESR and WebKitGTK, on their own.
pyodide: pyodide-test-dist chromium
	CHROMIUM=$(CHROMIUM) $(VPY) -m pytest tests/pyodide tests/parity -q $(PYTEST_ARGS)

engines: venv vendor node-dev
	@$(VPY) tools/pyfiles.py
	$(VPY) -m pytest tests/engines -q $(PYTEST_ARGS)

unit: venv vendor
	@$(VPY) tools/pyfiles.py
	node --test tests/js
	$(VPY) -m pytest tests/unit -q $(PYTEST_ARGS)

browser: venv vendor chromium
	@$(VPY) tools/pyfiles.py
	CHROMIUM=$(CHROMIUM) $(VPY) -m pytest tests/browser -q $(PYTEST_ARGS)

# The suite runs in $(JOBS) processes (pytest-xdist; each test file stays in one process, so a
# file's browser and server are started once), except the tests marked `serial`, which measure
# the page's own timing (frame gaps, stalls, blocking time) and so run alone afterwards.
# tests/pyodide runs in its own pytest: pytest-pyodide drives Playwright from its own event
# loop, which cannot share a session with the browser tests' sync Playwright.
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; [ $$n -lt 2 ] && n=2; echo $$n)
test: venv vendor chromium node-dev pyodide-test-dist
	@$(VPY) tools/pyfiles.py
	node --test tests/js
	CHROMIUM=$(CHROMIUM) $(VPY) -m pytest -q -n $(JOBS) --dist loadfile -m "not serial" --durations=15 --ignore=tests/pyodide $(PYTEST_ARGS)
	CHROMIUM=$(CHROMIUM) $(VPY) -m pytest -q -m serial --ignore=tests/pyodide $(PYTEST_ARGS)
	CHROMIUM=$(CHROMIUM) $(VPY) -m pytest -q tests/pyodide $(PYTEST_ARGS)

bench: venv mesa-extra vendor chromium dist offline lighthouse-dev
	@mkdir -p dist/bench
	CHROMIUM=$(CHROMIUM) $(VPY) -m tools.bench

dist: vendor
	@$(PYTHON) tools/pyfiles.py
	@$(PYTHON) tools/build_dist.py

offline: vendor
	@$(PYTHON) tools/pyfiles.py
	@$(PYTHON) tools/build_offline.py

clean:
	rm -rf assets/vendor assets/vendor.tmp dist node_modules $(VENV) .venv-build .pytest_cache tests/browser/screenshots
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
