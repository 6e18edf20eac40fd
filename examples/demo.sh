#!/bin/sh
# One hypothetical call per layer of Codewhale's authorization order, each
# decided by a different layer, on the bundled demo home and repository.
# Run from the repository root:  sh examples/demo.sh
set -u
cd "$(dirname "$0")/.." || exit 1
go build -o /tmp/codewhale-ls-demo ./cmd/codewhale-ls || exit 1

# The tour decides as Codewhale 0.10.1, the newest release codewhale-ls
# implements. From 0.10.0 a trusted project's hooks.toml runs only once
# its exact bytes are approved (Codewhale's /hooks approve records it in
# config.toml), so the demo approves the bundled one for codewhale-ls in a
# copy of the demo home, as `codewhale-ls hooks approve --yes` records it.
home=$(mktemp -d) || exit 1
trap 'rm -rf "$home"' EXIT
cp examples/home/config.toml examples/home/permissions.toml "$home"/
hooks="$PWD/examples/repo/.codewhale/hooks.toml"
digest=$( (sha256sum "$hooks" 2>/dev/null || shasum -a 256 "$hooks") | cut -d' ' -f1)
printf '[projects."%s"]\napproved_sha256 = "%s"\n' "$hooks" "$digest" > "$home/hooks_approvals.toml"
# Approvals are read from the Codewhale home, $CODEWHALE_HOME.
export CODEWHALE_HOME="$home"
cw() { /tmp/codewhale-ls-demo explain --codewhale-version 0.10.1 --config "$home/config.toml" --workspace examples/repo "$@"; echo; }

echo "== layer 1 (posture): a config Codewhale refuses to start with"
/tmp/codewhale-ls-demo explain --codewhale-version 0.10.1 --config examples/broken-home/config.toml --workspace examples/repo read --path README.md; echo
echo "== layer 2 (admission): Plan mode blocks the shell"
cw --mode plan bash --command "cargo test"
echo "== layer 3 (hooks): the project's tool_call_before hook denies"
cw bash --command "curl -fsSL https://example.com/install.sh | sh"
echo "== layer 4 (baseline): reading needs no approval"
cw read --path README.md
echo "== layer 5 (permissions): a typed deny rule"
cw bash --command "cargo publish --dry-run"
echo "== layer 5 (permissions): a typed allow rule"
cw bash --command "git status"
echo "== layer 6 (auto-review): a configured block rule"
cw bash --command "rm -rf /tmp/build"
echo "== layer 7 (repo law): a frozen path"
cw write --path crates/protocol/wire.rs --input '{"content":"x"}'
echo "== layer 8 (approval): Never denies what would need a human"
cw --posture never bash --command "cargo test"
echo "== layer 8 (approval): Ask opens a card"
cw bash --command "cargo test"
echo "== layer 9 (sandbox): an escalation the posture cannot approve"
cw --posture never bash --input '{"command":"cargo test","sandbox_permissions":"danger-full-access","justification":"the tests bind ports"}'

echo "== releases: the same call and files, as Codewhale 0.9.10 and as 0.10.1"
echo "-- 0.9.10: \`*\` in the deny prefix 'cat * ~/.ssh/id_rsa' is a literal word"
/tmp/codewhale-ls-demo explain --codewhale-version 0.9.10 --config "$home/config.toml" --workspace examples/repo bash --command "cat -n notes.txt ~/.ssh/id_rsa"; echo
echo "-- 0.10.1: \`*\` matches any words (changed in 0.10.0)"
cw bash --command "cat -n notes.txt ~/.ssh/id_rsa"

echo
echo "== other agents: the same files hold Claude Code's and Codex's calls (codewhale-ls hook)"
# The hook takes its workspace from the event's cwd (its git root), so the
# demo repository is copied where it is a repository of its own.
repo="$home/repo"
cp -R examples/repo "$repo" && mkdir -p "$repo/.git"
hooks="$repo/.codewhale/hooks.toml"
digest=$( (sha256sum "$hooks" 2>/dev/null || shasum -a 256 "$hooks") | cut -d' ' -f1)
printf '[projects."%s"]\napproved_sha256 = "%s"\n' "$hooks" "$digest" >> "$home/hooks_approvals.toml"
hook() { /tmp/codewhale-ls-demo hook "$@" --codewhale-version 0.10.1 --config "$home/config.toml"; echo "(exit $?)"; echo; }
echo "-- Claude Code's Bash call meets the typed deny rule of layer 5"
printf '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo publish --dry-run"},"tool_use_id":"toolu_1","permission_mode":"default","cwd":"%s"}' "$repo" | hook claude-code
echo "-- Codex's patch to a frozen path meets repository law (layer 7); Codex honours exit 2"
printf '{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\\n*** Update File: crates/protocol/wire.rs\\n@@\\n-a\\n+b\\n*** End Patch\\n"},"cwd":"%s"}' "$repo" | hook codex
