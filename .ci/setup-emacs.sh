#!/usr/bin/env bash
# Sets up the Emacs editors/emacs_test.go runs the package in: Emacs 30
# (emacs-nox, Eglot built in), package-lint and lsp-mode from Debian
# (elpa-package-lint, elpa-lsp-mode), installed into the Debian sid root
# of the Neovim tests. .ci/run runs the setup scripts in name order, this
# one before setup-nvim.sh, so it runs setup-nvim.sh first to make the
# root (and tmux). Idempotent: a second run only checks what is there.
# Runs as root (or with sudo) on Debian with apt.
set -euo pipefail

sid_root="${CODEWHALE_NVIM_SID_ROOT:-/opt/codewhale-e2e/sid}"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

bash "$(dirname "$0")/setup-nvim.sh"

packages=(emacs-nox elpa-package-lint elpa-lsp-mode)
missing=()
for p in "${packages[@]}"; do
  # dpkg-query inside the root: is the package installed there? (The
  # single quotes keep ${Status} for dpkg-query's format.)
  # shellcheck disable=SC2016
  if ! $sudo chroot "$sid_root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  # A sid root made days ago has Release files past their Valid-Until
  # date; its packages are still the ones asked for.
  apt_opts=(-o Acquire::Check-Valid-Until=false -o Dpkg::Use-Pty=0)
  $sudo chroot "$sid_root" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update -qq
  $sudo chroot "$sid_root" env DEBIAN_FRONTEND=noninteractive \
    apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
$sudo chroot "$sid_root" /usr/bin/emacs --version | head -n 1
