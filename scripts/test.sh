#!/usr/bin/env bash
# Install what the tests need, then run them: the Python test extras, and Debian's Chromium for the
# browser tests (installed when missing and running as root; elsewhere the browser tests skip, except
# under CI=true where they fail). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
fi
python -m pip install -q -e '.[test]'
python -m pytest "$@"
