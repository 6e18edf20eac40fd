#!/usr/bin/env bash
# Sets up the two Neovims editors/nvim_test.go runs the plugin in:
# Debian's own (0.7.2 on bookworm) and the newest Debian has (sid), the
# latter in a chroot made with debootstrap; and tmux and OpenSSH, for the
# tests that type into a terminal as a person does (Neovim, the approval
# console, the console over SSH), and zsh, fish and groff for the shell
# completions and the man page. Idempotent: a second run only
# checks what is there. Runs as root (or with sudo) on Debian with apt.
set -euo pipefail

sid_root="${CODEWHALE_NVIM_SID_ROOT:-/opt/codewhale-e2e/sid}"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

missing=()
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
# luarocks builds the Neovim plugin's rock as rocks.nvim installs it
# (editors/nvim_install_test.go).
command -v luarocks >/dev/null 2>&1 || missing+=(luarocks)
# The shells the generated completions run in (cmd/codewhale-ls
# completion_shells_test.go) and groff, which reads the man page.
command -v zsh >/dev/null 2>&1 || missing+=(zsh)
command -v fish >/dev/null 2>&1 || missing+=(fish)
command -v groff >/dev/null 2>&1 || missing+=(groff-base)
# The console over SSH (editors/console_ssh_test.go) runs an sshd of its
# own, on localhost, as the test's user; sshd is in /usr/sbin, which a
# user's PATH may lack.
sshd_installed=1
[ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 || { missing+=(openssh-server); sshd_installed=0; }
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ "$sshd_installed" = 0 ] && [ -d /run/systemd/system ]; then
  # The package starts a system SSH server where systemd runs; the
  # tests need none, and a machine that had none keeps having none.
  $sudo systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
fi
nvim --version | head -n 1

# mirror: the machine's apt mirror, shared with the release check.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

if [ ! -x "$sid_root/usr/bin/nvim" ]; then
  # A half-made root from an interrupted run is started again.
  $sudo rm -rf "$sid_root.partial"
  $sudo mkdir -p "$(dirname "$sid_root")"
  $sudo debootstrap --variant=minbase --include=neovim sid "$sid_root.partial" "$(mirror)" >/dev/null
  $sudo mv "$sid_root.partial" "$sid_root"
fi
$sudo chroot "$sid_root" /usr/bin/nvim --version | head -n 1
