#!/usr/bin/env bash
# Installs Debian's chromium for the inspector end-to-end test, unless it is already there.
# Idempotent; needs root (CI runs as root). Playwright's own browser download is not used: it
# needs the internet, Debian's package only needs the apt mirror.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null || echo unknown version)"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y chromium
echo "chromium installed: $(/usr/bin/chromium --version)"
