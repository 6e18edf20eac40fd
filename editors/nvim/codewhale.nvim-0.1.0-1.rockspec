-- codewhale.nvim as a rock, for rocks.nvim (`:Rocks install codewhale.nvim`)
-- and luarocks. Its version is the plugin's (lua/codewhale/version.lua,
-- one version for everything: a release renames this file with it).
--
-- The source is the plugin's own tree, the tag nvim-vVERSION that
-- tools/nvim-mirror.sh pushes with the branch nvim: the rock then holds
-- the plugin alone, with plugin/, doc/ and lsp/ at its root. rocks.nvim
-- links the rock's directory into site/pack/luarocks/opt and :packadds
-- it, so those are on 'runtimepath'; the Lua modules (lua/, found by
-- the builtin build) go to the tree's share/lua/5.1, which rocks.nvim
-- puts on package.path. From a checkout: cd editors/nvim && luarocks make.
rockspec_format = '3.0'
package = 'codewhale.nvim'
version = '0.1.0-1'

description = {
  summary = 'codewhale-ls for Neovim: Codewhale policy files and approval prompts',
  detailed = [[
Attaches codewhale-ls to Codewhale's policy files (diagnostics, fixes,
hover, completion), serves the approvals of every repository Neovim has
open with a prompt that cannot be answered by accident, and provides
:Codewhale status | explain | log. Needs the codewhale-ls binary.]],
  homepage = 'https://github.com/codewhale-ls/codewhale-ls',
  license = 'MIT',
  labels = { 'neovim', 'lsp' },
}

dependencies = {
  'lua >= 5.1',
}

source = {
  url = 'git+https://github.com/codewhale-ls/codewhale-ls.git',
  tag = 'nvim-v0.1.0',
}

build = {
  type = 'builtin',
  copy_directories = { 'doc', 'lsp', 'plugin' },
}
