#!/usr/bin/env bash
# Debian's chromium for the web view's end-to-end tests (test/web/), driven by playwright-core — never a browser
# that a test tool downloads. Idempotent: does nothing when it is installed.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium: already installed"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "chromium: not root, cannot install Debian's chromium (the browser tests will fail)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
echo "chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo '(version unknown)')"
