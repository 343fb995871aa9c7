#!/usr/bin/env bash
# Install what the tests need, then run the linters and the tests: the Python test extras (with the Oxigraph
# server binary, ruff, mypy and import-linter),
# Debian's Chromium for the browser tests, Debian's Virtuoso for the external-store tests and jemalloc
# for the query workers' allocator (each installed when missing and running as root; elsewhere those
# tests skip, except under CI=true where they fail). Extra arguments go to pytest.
#
# Virtuoso: the tests run their own virtuoso-t (tests/engines.py: own virtuoso.ini, database and free
# 127.0.0.1 ports, stopped by PID); the package's system service is neither needed nor used.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-noto-cjk)
command -v virtuoso-t >/dev/null 2>&1 || missing+=(virtuoso-opensource)
compgen -G '/usr/lib/*/libjemalloc.so.2' >/dev/null || compgen -G '/usr/lib*/libjemalloc.so.2' >/dev/null \
  || missing+=(libjemalloc2)
if [ "${#missing[@]}" -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# --upgrade --upgrade-strategy eager: the newest versions the dependency ranges allow, as a fresh install gets them,
# not whatever an earlier install left on this machine (a green run must not hang on an old library)
python -m pip install -q --upgrade --upgrade-strategy eager -e '.[test]'
# The contracts the project adopts: ruff (configured rules), mypy on src/, import-linter's layers.
python -m ruff check src tests benchmarks scripts
python -m mypy
lint-imports
python -m pytest "$@"
