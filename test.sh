#!/usr/bin/env bash
# The whole test suite: the Java tests (JUnit, via Maven) and the real-client tests
# (pyarrow reading what ./zaro writes, compared with tensorstore). Sets up its own Python
# virtual environment in .venv on first use.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import pyarrow, tensorstore, ml_dtypes, numpy, numcodecs, duckdb, pytest, xdist' 2>/dev/null; then
  echo "== setting up .venv (pyarrow, tensorstore, ml_dtypes, numcodecs, duckdb, pytest, pytest-xdist)"
  python3 -m venv .venv
  PIP_RETRIES=0 .venv/bin/pip install -q -r tests/python/requirements.txt
fi

echo "== Java tests (mvn verify)"
mvn -B -Dstyle.color=never verify
touch zaro-cli/target/.zaro-built

echo "== client tests (pytest)"
.venv/bin/python -m pytest tests/python -q -p no:cacheprovider -n 2
