#!/usr/bin/env bash
# The whole test suite: the Java tests (JUnit, via Maven) and the real-client tests
# (pyarrow reading what ./zaro writes, compared with tensorstore). Sets up its own Python
# virtual environment in .venv on first use.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import pyarrow, tensorstore, ml_dtypes, numpy, numcodecs, duckdb, pytest, xdist, pytest_timeout, xarray, dask, pandas, polars, matplotlib, setuptools, sys; sys.exit(tuple(map(int, setuptools.__version__.split(".")[:2])) < (70, 1))' 2>/dev/null; then
  echo "== setting up .venv (pyarrow, tensorstore, ml_dtypes, numcodecs, duckdb, pytest, pytest-xdist, pytest-timeout, xarray, dask, pandas, polars, matplotlib)"
  python3 -m venv .venv
  PIP_RETRIES=0 .venv/bin/pip install -q -r tests/python/requirements.txt
fi
# the Python client (clients/python), reinstalled each run so the tests see its current source;
# built with the .venv's setuptools (>=70.1 builds wheels itself: requirements.txt), offline
PIP_RETRIES=0 .venv/bin/pip install -q --no-deps --no-build-isolation ./clients/python

echo "== Java tests (mvn verify)"
if ! mvn -B -Dstyle.color=never verify; then
  # a test that timed out (pom.xml, test.timeout) left every thread's stack in its class's output
  for f in $(grep -l "will be interrupted" ./*/target/surefire-reports/*-output.txt 2>/dev/null || true); do
    echo "== thread dump of a test that timed out: $f"
    cat "$f"
  done
  exit 1
fi
touch zaro-cli/target/.zaro-built

# Arrow JS and playwright-core (tests/js, pinned by package-lock.json) for the Node client and
# browser explorer tests; without npm or the registry those tests skip and say why
if command -v npm >/dev/null && { [ ! -d tests/js/node_modules/apache-arrow ] \
    || [ ! -d tests/js/node_modules/playwright-core ]; }; then
  (cd tests/js && npm ci --no-audit --no-fund --loglevel=error) || echo "== npm ci failed: the Arrow JS and browser tests will skip"
fi

echo "== client tests (pytest)"
# a test still running after 10 minutes has hung: it fails, named, and its worker exits
# (pytest-timeout's thread method ends a wait inside a C++ call too; a signal would wait for it)
.venv/bin/python -m pytest tests/python -q -p no:cacheprovider -n 2 --timeout 600 --timeout-method thread
