#!/usr/bin/env bash
# Installs shellcheck for .ci/run's lint of the workflows and the CI
# scripts: actionlint runs it on every `run:` block of .github/workflows,
# and skips that check silently when shellcheck is missing (.ci/run fails
# instead). Debian's package; idempotent. Runs as root (or with sudo) on
# Debian with apt.
set -euo pipefail

if ! command -v shellcheck >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq shellcheck >/dev/null
fi
shellcheck --version | sed -n 2p
