# Two commands do all the set-up on a fresh Debian machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
CHROMIUM := $(firstword $(wildcard /usr/bin/chromium /usr/bin/chromium-browser))
NPM := $(shell command -v npm)

.PHONY: setup chromium node editors widgets apps demo test lint clean bench bench-tasks bench-apps soak

$(BIN)/tabmcp: pyproject.toml setup.py
	@# Debian's own python3 needs python3-venv for `-m venv`; install it only when venv fails
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); $(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y python3-venv && $(PYTHON) -m venv $(VENV); }
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

chromium:
ifeq ($(CHROMIUM),)
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y chromium
endif

# npm installs the MCP Inspector for tests/integration/test_inspector_cli.py (into build/npm/, once)
node:
ifeq ($(NPM),)
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y nodejs npm
endif

setup: $(BIN)/tabmcp chromium node

# The code and rich-text editors the browser tests edit (CodeMirror 5 and 6, Monaco, Ace, ProseMirror), pinned
# by tests/fixtures/pages/editors/package-lock.json, installed once next to their pages, which load them
# (ES modules through an import map: no bundling); npm's cache serves a reinstall offline
EDITORS := tests/fixtures/pages/editors
$(EDITORS)/node_modules/.package-lock.json: $(EDITORS)/package.json $(EDITORS)/package-lock.json
	cd $(EDITORS) && npm ci --prefer-offline --no-audit --no-fund --loglevel=error

editors: node $(EDITORS)/node_modules/.package-lock.json

# The form widgets the browser tests fill (select2 with jQuery, Tom Select, Choices.js, flatpickr) and what their
# live search pages type into (a lunr index, Algolia Autocomplete over local items), pinned by
# tests/fixtures/pages/widgets/package-lock.json and installed the same way as the editors
WIDGETS := tests/fixtures/pages/widgets
$(WIDGETS)/node_modules/.package-lock.json: $(WIDGETS)/package.json $(WIDGETS)/package-lock.json
	cd $(WIDGETS) && npm ci --prefer-offline --no-audit --no-fund --loglevel=error

widgets: node $(WIDGETS)/node_modules/.package-lock.json

# The real open-source apps of bench/apps (an admin, a data browser, a wiki, a CMS, an issue tracker, a
# webmail, a docs site), each pinned by its own requirements.txt or package-lock.json and installed once
# into build/apps/NAME (a stamp of what the install uses skips an app already installed; the first
# install of all seven takes a few minutes); the live tests start them
apps: setup node
	$(BIN)/python -m bench.apps install

demo: setup
	$(BIN)/tabmcp demo

lint: setup
	$(BIN)/ruff check src tests introspectors bench

# The suite on PYTEST_WORKERS pytest-xdist processes, each test file whole on one worker (its module and
# package fixtures, browsers among them, built once); docs/decisions.md says why 3.
# Serially, in one process, for debugging: `make test PYTEST_WORKERS=0`; more pytest options: PYTEST_ARGS.
PYTEST_WORKERS ?= 3
PYTEST_ARGS ?=

test: setup lint editors widgets apps
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# On demand, not part of `make test`: every benchmark in bench/ (tabmcp, and the peers Playwright MCP and
# Chrome DevTools MCP), then docs/benchmarks.md with its charts in docs/benchmarks/ (bench/README.md)
bench: setup apps
	bash bench/setup.sh
	$(BIN)/python -m bench.all $(BENCH_ARGS)

# On demand: the scripted tasks on the demo sites, tabmcp's page tools against Playwright MCP (bench/README.md)
bench-tasks: setup
	bash bench/setup.sh
	$(BIN)/python -m bench.tasks $(BENCH_ARGS)

# On demand: the scripted tasks on the real apps of bench/apps, tabmcp's page tools against Playwright MCP
# (bench/README.md); part of `make bench` too
bench-apps: setup apps
	bash bench/setup.sh
	$(BIN)/python -m bench.app_tasks $(BENCH_ARGS)

# On demand: the soak, a long session on each driver for errors and memory growth (bench/soak.py);
# 4,000 navigations and 10,000 calls per driver by default, ~40 min on a busy 2-core box
soak: setup
	$(BIN)/python -m bench.soak $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build src/*.egg-info
