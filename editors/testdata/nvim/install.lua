-- A user's init.lua (nvim -u) that installs the plugin the way a plugin
-- manager does, calls no setup{} (lazy.nvim's spec does, by its opts),
-- and enables the server the way Neovim 0.11+ documents it: vim.lsp.enable('codewhale_ls'), which reads the
-- plugin's lsp/codewhale_ls.lua from 'runtimepath'. CWLS_CASE says how
-- the plugin is installed (editors/nvim_install_test.go):
--   plain  editors/nvim on 'runtimepath', as a checkout or a package
--   rock   the rock `luarocks make` built into $CWLS_ROCKS, put on the
--          runtimepath as rocks.nvim does (lua/rocks/adapter.lua,
--          runtime.lua and loader.lua of rocks.nvim): the rock's
--          directory linked as site/pack/luarocks/opt/<rock> and
--          :packadd-ed, the tree's share/lua/5.1 on package.path and
--          linked as rocks_rtp/lua
--   lazy   lazy.nvim ($CWLS_LAZY) installing the branch nvim of the git
--          repository $CWLS_MIRROR, as its docs say for a repository
-- Then it opens the broken permissions.toml of $CODEWHALE_HOME and notes
-- what was found.
local t = dofile(os.getenv('CWLS_LIB'))
local case = t.env.case
local uv = vim.uv or vim.loop

-- codewhale-ls on PATH, as the install docs ask: no cmd is given. Neovim
-- started in a repository.
vim.env.PATH = t.env.dir .. '/bin:' .. vim.env.PATH
vim.cmd.cd(t.env.dir .. '/ws')

local data = vim.fn.stdpath('data')
if case == 'plain' then
  vim.opt.runtimepath:prepend(t.env.plugin)
elseif case == 'rock' then
  local rocks = os.getenv('CWLS_ROCKS')
  local rock = vim.fn.glob(rocks .. '/lib/luarocks/rocks-5.1/codewhale.nvim/*', true, true)[1]
  assert(rock, 'no codewhale.nvim rock in ' .. rocks)
  local site = data .. '/site/pack/luarocks/opt'
  vim.fn.mkdir(site, 'p')
  assert(uv.fs_symlink(rock, site .. '/codewhale.nvim'))
  local rtp_links = rocks .. '/rocks_rtp'
  vim.fn.mkdir(rtp_links, 'p')
  assert(uv.fs_symlink(rocks .. '/share/lua/5.1', rtp_links .. '/lua'))
  vim.opt.runtimepath:append(rtp_links)
  package.path = package.path .. ';' .. rocks .. '/share/lua/5.1/?.lua;' .. rocks .. '/share/lua/5.1/init.lua'
  vim.cmd('packadd codewhale.nvim')
elseif case == 'lazy' then
  vim.opt.runtimepath:prepend(os.getenv('CWLS_LAZY'))
  require('lazy').setup({
    -- The spec docs/editors.md gives, with the repository's URL a local
    -- clone's.
    spec = { { url = 'file://' .. os.getenv('CWLS_MIRROR'), name = 'codewhale-ls', branch = 'nvim', main = 'codewhale', opts = {} } },
    install = { missing = true },
    checker = { enabled = false },
    change_detection = { enabled = false },
    rocks = { enabled = false },
  })
else
  error('unknown CWLS_CASE ' .. tostring(case))
end

vim.lsp.enable('codewhale_ls')

local function body()
  t.note('command', vim.fn.exists(':Codewhale'))
  t.note('setup', pcall(vim.api.nvim_get_autocmds, { group = 'codewhale' }))
  local ok, cw = pcall(require, 'codewhale')
  t.note('version', ok and cw.version or tostring(cw))
  local files = {}
  for _, f in ipairs(vim.api.nvim_get_runtime_file('lsp/codewhale_ls.lua', true)) do
    table.insert(files, uv.fs_realpath(f) or f)
  end
  t.note('lsp_files', files)
  t.note('help', vim.fn.globpath(vim.o.runtimepath, 'doc/codewhale.txt', true, true))

  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('CODEWHALE_HOME') .. '/permissions.toml'))
  local buf = vim.api.nvim_get_current_buf()
  -- The server of the working directory's repository (setup{} serves
  -- it) lints this file too: wait for the client of its own workspace.
  t.must(30000, 'codewhale-ls to attach and publish diagnostics', function()
    return #vim.lsp.get_clients({ bufnr = buf, name = 'codewhale_ls' }) > 0 and #vim.diagnostic.get(buf) > 0
  end)
  local clients = {}
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = buf })) do
    table.insert(clients, { name = c.name, root = c.config.root_dir, cmd = c.config.cmd })
  end
  t.note('clients', clients)
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(diagnostics, { code = d.code, lnum = d.lnum, source = d.source })
  end
  t.note('diagnostics', diagnostics)
end

-- After startup, the plugins loaded, as for a user; scheduled, out of the
-- VimEnter autocommand, where :edit would not run the FileType ones.
vim.api.nvim_create_autocmd('VimEnter', {
  once = true,
  callback = function() vim.schedule(function() t.main(body) end) end,
})
