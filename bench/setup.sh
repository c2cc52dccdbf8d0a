#!/usr/bin/env bash
# Everything the benchmark needs besides the repo's venv, installed outside the repo:
# - the peers from the npm registry, into $TABMCP_BENCH_PEERS (default ~/.cache/tabmcp-bench/peers),
#   pinned to the versions measured in docs/benchmarks.md unless PLAYWRIGHT_MCP_VERSION /
#   DEVTOOLS_MCP_VERSION say otherwise (e.g. "latest");
# - real documentation pages: Debian's python3.11-doc (/usr/share/doc/python3.11/html).
# Idempotent: what is already there is left alone.
set -euo pipefail

PEERS_DIR="${TABMCP_BENCH_PEERS:-$HOME/.cache/tabmcp-bench/peers}"
PLAYWRIGHT_MCP_VERSION="${PLAYWRIGHT_MCP_VERSION:-0.0.83}"
DEVTOOLS_MCP_VERSION="${DEVTOOLS_MCP_VERSION:-1.11.0}"
DOCS=/usr/share/doc/python3.11/html
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

need() { command -v "$1" >/dev/null 2>&1; }

if [ ! -f "$DOCS/library/functions.html" ]; then
  echo "bench/setup.sh: installing python3.11-doc (real pages to snapshot)" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3.11-doc >/dev/null
fi

if [ ! -x /usr/bin/chromium ]; then
  echo "bench/setup.sh: installing chromium" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

if ! need npm; then
  echo "bench/setup.sh: installing nodejs and npm" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi

installed() {  # installed PACKAGE VERSION: is exactly that version in the peers folder?
  local manifest="$PEERS_DIR/node_modules/$1/package.json"
  [ -f "$manifest" ] && [ "$2" != latest ] &&
    [ "$(node -p "require('$manifest').version")" = "$2" ]
}

if ! installed @playwright/mcp "$PLAYWRIGHT_MCP_VERSION" || ! installed chrome-devtools-mcp "$DEVTOOLS_MCP_VERSION"; then
  echo "bench/setup.sh: npm install of the peers into $PEERS_DIR" >&2
  mkdir -p "$PEERS_DIR"
  [ -f "$PEERS_DIR/package.json" ] || echo '{"name": "tabmcp-bench-peers", "private": true}' >"$PEERS_DIR/package.json"
  # Playwright MCP drives /usr/bin/chromium: no browser download of its own
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$PEERS_DIR" --no-audit --no-fund --loglevel=error \
    "@playwright/mcp@$PLAYWRIGHT_MCP_VERSION" "chrome-devtools-mcp@$DEVTOOLS_MCP_VERSION"
fi

echo "bench/setup.sh: peers in $PEERS_DIR:" \
  "@playwright/mcp $(node -p "require('$PEERS_DIR/node_modules/@playwright/mcp/package.json').version")," \
  "chrome-devtools-mcp $(node -p "require('$PEERS_DIR/node_modules/chrome-devtools-mcp/package.json').version")" >&2
