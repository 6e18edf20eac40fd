#!/usr/bin/env bash
# Installs the TOML tools `go run ./bench` compares `check` with (taplo and
# tombi, pinned, from npm) into /opt/codewhale-e2e/bench; then
#   PATH=/opt/codewhale-e2e/bench/node_modules/.bin:$PATH go run ./bench
# Needs Node (Debian's, or .ci/node24.sh's in /opt/codewhale-e2e/node).
set -euo pipefail
dir=/opt/codewhale-e2e/bench
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name":"codewhale-bench-tools","private":true}' >"$dir/package.json"
npm install --no-audit --no-fund --loglevel=error --save-exact --prefix "$dir" @taplo/cli@0.7.0 tombi@0.11.7
"$dir/node_modules/.bin/taplo" --version
"$dir/node_modules/.bin/tombi" --version
