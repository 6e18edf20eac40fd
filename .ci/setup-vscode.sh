#!/usr/bin/env bash
# Prepares the VS Code extension's checks (editors/vscode_test.go): a Node
# new enough for its tools, and its npm dependencies. Idempotent; when all
# is in place it only compares two hashes.
#
# Node: @vscode/vsce 4.1.0 wants Node >= 22 and Debian 12's is older, so
# Node 24 is unpacked into /opt/codewhale-e2e/node (.ci/node24.sh, shared
# with the other setup scripts) and must come first on PATH:
#   export PATH=/opt/codewhale-e2e/node/bin:$PATH
set -euo pipefail
E2E=/opt/codewhale-e2e
# shellcheck source=node24.sh
source "$(dirname "$0")/node24.sh"
ensure_node24
cd "$(dirname "$0")/../editors/vscode"
echo "node $(node --version), npm $(npm --version)"

# npm ci only when a package-lock.json changed since the last install:
# the extension's, and its linter's in lint/ (a package of its own, as
# lint/package.json says).
for dir in . lint; do
  stamp=$dir/node_modules/.codewhale-lock.sha256
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" >"$stamp"
  fi
done
count_packages() { find "$1" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l; }
echo "editors/vscode: dependencies installed ($(count_packages node_modules) packages, $(count_packages lint/node_modules) for the linter)"
