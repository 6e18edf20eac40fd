#!/usr/bin/env bash
# Installs the real agent CLIs whose pre-tool hook codewhale-ls answers, for
# the real-agent tests (agents/realagents, docs/agents.md "The real-agent
# test suite"). Pinned versions, from npm only (the only registry besides
# Debian's and Go's that CI reaches); each is driven offline against our fake
# model server (internal/fakemodel). Idempotent: when every pinned version is
# in place it only reads four package.json files.
#
# The CLIs land in $E2E/agents/node_modules/.bin; the tests find them there
# (or on PATH, or through CODEWHALE_AGENTS_BIN).
#
# Node: Claude Code 2.1.332 wants Node >= 22 and Debian 12's is older, so
# Node 24 is unpacked from npm into $E2E/node, the same place and version as
# .ci/setup-vscode.sh and .ci/setup-code-server.sh. The tests put $E2E/node/bin
# first on the agents' PATH themselves.
set -euo pipefail

E2E=/opt/codewhale-e2e
PREFIX=$E2E/agents
PKGS=(
  @anthropic-ai/claude-code@2.1.332
  @google/gemini-cli@0.61.0
  @openai/codex@0.169.1
  @github/copilot@1.0.102
)

# shellcheck source=node24.sh
source "$(dirname "$0")/node24.sh"
ensure_node24
echo "node $(node --version), npm $(npm --version)"

missing=()
for spec in "${PKGS[@]}"; do
  name=${spec%@*}
  want=${spec##*@}
  have=$(node -p "require('$PREFIX/node_modules/$name/package.json').version" 2>/dev/null || true)
  [ "$have" = "$want" ] || missing+=("$spec")
done
if [ ${#missing[@]} -gt 0 ]; then
  mkdir -p "$PREFIX"
  [ -f "$PREFIX/package.json" ] || echo '{"name":"codewhale-e2e-agents","private":true}' >"$PREFIX/package.json"
  # --save-exact keeps the pins in $PREFIX/package.json; the CLIs' native
  # binaries come as optional dependencies of the same packages.
  npm install --no-audit --no-fund --loglevel=error --save-exact --prefix "$PREFIX" "${missing[@]}"
fi
# The version check runs in a scratch home, so the CLIs leave no state in
# the real one.
scratch=$(mktemp -d)
for bin in claude gemini codex copilot; do
  printf '%s: %s\n' "$bin" "$(HOME=$scratch "$PREFIX/node_modules/.bin/$bin" --version 2>&1 | grep -v "^WARNING" | head -1)"
done
rm -rf "$scratch"
