# Two commands set up a fresh machine: `make run` serves the platform, `make test` checks it.
# Everything is installed into .venv from the pinned requirements.lock.

SHELL := /bin/bash
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
HOST ?= 127.0.0.1
PORT ?= 8000
export DJANGO_SETTINGS_MODULE ?= config.settings.dev

# A Python >= 3.12 that really runs: $(PYTHON) if given, then python3.13 / python3.12 on
# PATH (pyenv shims of versions that are not selected fail and are skipped), then pyenv's.
define find_python
for candidate in "$(PYTHON)" python3.13 python3.12 \
    $$(ls -d "$${PYENV_ROOT:-$$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -rV); do \
  [ -n "$$candidate" ] || continue; \
  if "$$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
    echo "$$candidate"; exit 0; \
  fi; \
done; \
echo "No Python >= 3.12 found; set PYTHON=/path/to/python3.12" >&2; exit 1
endef

.PHONY: install run test test-browser lint format migrate seed lock clean deploy-check chromium \
  messages node lighthouse haproxy

$(VENV)/.installed: requirements.lock
	@set -e; python="$$($(find_python))"; \
	  echo "Using $$python ($$($$python --version))"; \
	  [ -x "$(PY)" ] || "$$python" -m venv "$(VENV)"
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	@touch $@

install: $(VENV)/.installed messages

# The website's translations (docs/website.md#languages): each committed locale/*/LC_MESSAGES
# catalog (.po) is compiled to the .mo file Django reads, by Babel's pybabel (a pinned
# dependency), so no GNU gettext is needed. The .mo files are not committed.
MESSAGES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/*.po))
messages: $(MESSAGES)

locale/%.mo: locale/%.po | $(VENV)/.installed
	$(BIN)/pybabel compile --statistics -i $< -o $@

migrate: install
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed_demo

# One background worker (webhook deliveries, email, alerts) runs beside the web server and
# stops with it. First the tasks a killed previous run left running are given back and the
# sweep enqueues deliveries left due (docs/deployment.md). Links in emails and the printed admin login name this server.
run: export SITE_URL ?= http://$(HOST):$(PORT)
run: seed
	@$(PY) manage.py demo_credentials
	@$(PY) manage.py tasks_recover --worker-id make-run
	@$(PY) manage.py webhooks_sweep
	@echo "Serving on http://$(HOST):$(PORT)/ (admin: http://$(HOST):$(PORT)/admin/), with one worker"
	@if [ -z "$$EMAIL_URL" ]; then echo "Emails are written as files under $${EMAIL_FILE_PATH:-var/mail}/ by the worker (EMAIL_URL sends them by SMTP: docs/email.md)"; \
	  else echo "Emails are sent through EMAIL_URL by the worker (docs/email.md)"; fi
	@$(PY) manage.py db_worker --no-reload --worker-id make-run & worker=$$!; \
	  trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	  $(PY) manage.py runserver $(HOST):$(PORT)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The production settings must pass Django's deployment checklist with a real-looking secret.
deploy-check: install
	DJANGO_SETTINGS_MODULE=config.settings.production ALLOWED_HOSTS=estate.example.com \
	  EMAIL_URL=smtp+tls://mailer:secret@mail.estate.example.com:587 \
	  SECRET_KEY="$$($(PY) -c 'import secrets; print(secrets.token_urlsafe(50))')" \
	  $(PY) manage.py check --deploy --fail-level WARNING

# Debian's package $(1) unless the shell test $(2) finds it: installed when this user may
# install packages (root, or sudo without a password); otherwise one line says what to run
# ($(3) is missing ...), and make stops. $(4) names it when it is installed.
define debian_package
$(2) && exit 0; \
  if [ "$$(id -u)" = 0 ]; then as_root=; \
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then as_root="sudo -n"; \
  else echo "$(3) is missing and this user cannot install it: run 'sudo apt-get install $(1)', then make test again" >&2; exit 1; fi; \
  echo "$(4) is missing; installing Debian's package"; \
  $$as_root env DEBIAN_FRONTEND=noninteractive $(APT_GET) update -q && \
  $$as_root env DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -q $(1)
endef

# The browser tests (tests/browser) drive Debian's chromium, installed here when it is
# missing. CHROMIUM and APT_GET are variables for the Makefile's test.
CHROMIUM ?= /usr/bin/chromium
APT_GET ?= apt-get
chromium:
	@$(call debian_package,chromium,[ -x "$(CHROMIUM)" ],$(CHROMIUM),Chromium)

# The website's audits (axe-core in the browser tests, Lighthouse) come from the npm registry,
# pinned by package-lock.json, installed into node_modules/ with the machine's npm.
node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm is missing: install Node.js 18 or newer (Debian: apt-get install nodejs npm)" >&2; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

node: node_modules/.installed

test: chromium haproxy node lint deploy-check
	DJANGO_SETTINGS_MODULE=config.settings.test $(PY) manage.py makemigrations --check --dry-run
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/pytest $(PYTEST_ARGS)

# Only the website's browser tests: headless Debian chromium driven by Playwright against a
# live server; screenshots land in artifacts/screenshots/.
test-browser: install chromium node
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/pytest -m browser tests/browser $(PYTEST_ARGS)

# Lighthouse's scores of the home, a search and a listing page in each language, as production
# serves them (gunicorn, WhiteNoise, S3 media): each category at least 98 (docs/website.md).
lighthouse: install chromium node
	$(PY) -m tests.lighthouse.run $(LIGHTHOUSE_ARGS)

# The bounded load test (docs/reliability.md): gunicorn + PostgreSQL + db_worker, 32 users,
# 2 minutes, reads and writes; needs a PostgreSQL server (LOAD_DATABASE_SERVER).
.PHONY: load-test bench bench-replay bench-matching bench-writes
load-test: install
	$(PY) -m tests.load.run $(LOAD_ARGS)

# The API benchmark (docs/performance.md): make bench SIZE=10000 (or 1000000); needs wrk
# (Debian's package) and a PostgreSQL server (BENCH_DATABASE_SERVER).
SIZE ?= 10000
bench: install
	@command -v wrk >/dev/null || { echo "wrk is missing; installing Debian's package"; \
	  apt-get install -y -q wrk >/dev/null; }
	$(PY) -m bench.run --size $(SIZE) $(BENCH_ARGS)

# What a request of each kind costs, replayed in-process after `make bench SIZE=...`:
# make bench-replay SIZE=1000000 REPLAY_ARGS="--kinds clusters list --rounds 2".
bench-replay: install
	$(PY) -m bench.replay --size $(SIZE) $(REPLAY_ARGS)

# The alerts' matching (docs/performance.md): one listing against SEARCHES saved searches.
SEARCHES ?= 100000
bench-matching: install
	$(PY) -m bench.matching --size $(SIZE) --searches $(SEARCHES)

# One listing's write with the triggers of the tables kept from the listings
# (docs/performance.md): a price change, a status change and a delete, all rolled back.
bench-writes: install
	$(PY) -m bench.writes --size $(SIZE)

# A streaming hot standby of the machine's PostgreSQL on port 5433 (docs/deployment.md, "Read
# replicas"): made, started or rebuilt as needed; `make replica-remove` drops it. As root.
.PHONY: replica replica-remove
replica: install
	$(PY) -m bench.replica
replica-remove: install
	$(PY) -m bench.replica --remove

# The platform as a cluster on this machine (docs/deployment.md, "A cluster on one machine"):
# a PostgreSQL primary and streaming standby of its own, Redis, an S3 server, two gunicorn web
# nodes behind HAProxy, two workers; the demo data on first start. `make cluster-stop` ends
# it. As root (Debian's PostgreSQL clusters); needs Debian's haproxy package.
.PHONY: cluster cluster-stop scale-test
cluster: install haproxy
	$(PY) -m bench.cluster start --seed
cluster-stop: install
	$(PY) -m bench.cluster stop

# The fault test (docs/reliability.md): the load test through HAProxy for about 3 minutes
# while a web node, a worker and the standby's replay fail; prints its figures.
scale-test: install haproxy
	$(PY) -m tests.load.scale $(SCALE_ARGS)

# HAProxy for the cluster and its configuration's test, installed when it is missing.
haproxy:
	@$(call debian_package,haproxy,command -v haproxy >/dev/null,haproxy,haproxy)

# Known vulnerabilities of the pinned dependencies (docs/reliability.md). pip-audit reads PyPI's
# advisory data from its per-release JSON API; --strict fails on any dependency it could not
# audit, so nothing passes unaudited. Where that API cannot be reached, both targets fail
# loudly (audit-reachable only asks whether it can be, for .ci/run).
.PHONY: audit audit-reachable
audit-reachable: install
	@version="$$($(PY) -c 'import importlib.metadata as m; print(m.version("pip-audit"))')"; \
	  curl -sfL -m 30 -o /dev/null "https://pypi.org/pypi/pip-audit/$$version/json" || { \
	    echo "AUDIT NOT POSSIBLE: PyPI's advisory service (https://pypi.org/pypi/<name>/<version>/json)"; \
	    echo "cannot be reached from this machine, so the pinned dependencies cannot be audited."; \
	    exit 1; } >&2

audit: audit-reachable
	$(BIN)/pip-audit -r requirements.lock --require-hashes --disable-pip --strict \
	  --progress-spinner off

# Re-pin every dependency for all supported Pythons (needs network access to PyPI).
lock: install
	$(PY) -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.12 \
	  --generate-hashes -o requirements.lock

clean:
	rm -rf $(VENV) node_modules .pytest_cache .ruff_cache artifacts
