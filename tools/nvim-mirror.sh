#!/bin/sh
# nvim-mirror.sh publishes the Neovim plugin (editors/nvim) as a tree of
# its own, so that plugin managers that install a repository's root
# (lazy.nvim, packer, vim-plug, Neovim's packages) and luarocks find it:
# the branch nvim holds editors/nvim's history split off with
# `git subtree split` (the same commits each run, so each release's push
# is a fast-forward), and the tag nvim-vVERSION the release's state of it,
# the source of the rock (editors/nvim/codewhale.nvim-VERSION-1.rockspec).
# See docs/editors.md, "Neovim".
#
# usage: tools/nvim-mirror.sh [--push REMOTE] [--upload] [REF]
#   REF       the commit to publish (default HEAD), a release's tag
#   --push    push the branch nvim and the tag nvim-vVERSION to REMOTE;
#             never forced: a push that is not a fast-forward fails
#   --upload  then upload the rockspec to luarocks.org (needs luarocks
#             and LUAROCKS_API_KEY), for rocks.nvim's :Rocks install
# It prints the split commit. Needs the whole history (a shallow clone
# splits into other commits, which the branch would not fast-forward to).
set -eu

remote=
upload=
ref=HEAD
while [ $# -gt 0 ]; do
  case $1 in
    --push) [ $# -ge 2 ] || { echo "nvim-mirror: --push needs a remote" >&2; exit 2; }; remote=$2; shift 2 ;;
    --upload) upload=1; shift ;;
    -*) echo "nvim-mirror: unknown option $1 (usage: tools/nvim-mirror.sh [--push REMOTE] [--upload] [REF])" >&2; exit 2 ;;
    *) ref=$1; shift ;;
  esac
done
if [ -n "$upload" ] && [ -z "$remote" ]; then
  echo "nvim-mirror: --upload needs --push: luarocks.org fetches the rock's source from the pushed tag" >&2
  exit 2
fi

cd "$(git rev-parse --show-toplevel)"
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  echo "nvim-mirror: this clone is shallow; the split would not continue the branch nvim (fetch with --unshallow, or actions/checkout with fetch-depth: 0)" >&2
  exit 1
fi

# The plugin's version (one version for everything, lua/codewhale/version.lua).
version=$(git show "$ref:editors/nvim/lua/codewhale/version.lua" | sed -n "s/^return '\([^']*\)'[[:space:]]*\$/\1/p")
if [ -z "$version" ]; then
  echo "nvim-mirror: editors/nvim/lua/codewhale/version.lua at $ref returns no version" >&2
  exit 1
fi
rockspec=editors/nvim/codewhale.nvim-$version-1.rockspec
tag=nvim-v$version
if ! git show "$ref:$rockspec" | grep -q "^  tag = '$tag',\$"; then
  echo "nvim-mirror: $rockspec at $ref is missing or does not take its source from the tag $tag" >&2
  exit 1
fi

split=$(git subtree split -q --prefix=editors/nvim "$ref")
if [ -n "$remote" ]; then
  git push --quiet "$remote" "$split:refs/heads/nvim" "$split:refs/tags/$tag"
fi
if [ -n "$upload" ]; then
  if [ -z "${LUAROCKS_API_KEY:-}" ]; then
    echo "nvim-mirror: --upload needs LUAROCKS_API_KEY (luarocks.org, Settings, API keys)" >&2
    exit 1
  fi
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  git show "$ref:$rockspec" >"$dir/${rockspec##*/}"
  (cd "$dir" && luarocks upload --api-key="$LUAROCKS_API_KEY" "${rockspec##*/}")
fi
echo "$split"
