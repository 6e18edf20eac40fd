#!/usr/bin/env bash
# Installs what .ci/run's release check needs besides Go (docs/release.md):
# rpm, to list the .rpm's files; debootstrap, for the clean Debian root
# the .deb is installed in; jq, to read the SBOMs. Idempotent. Runs as
# root (or with sudo) on Debian with apt.
set -euo pipefail
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
missing=()
command -v rpm >/dev/null 2>&1 || missing+=(rpm)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v jq >/dev/null 2>&1 || missing+=(jq)
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
rpm --version
