-- User commands of codewhale.nvim; require('codewhale').setup{} starts
-- the client for Codewhale's files.
if vim.g.loaded_codewhale then
  return
end
vim.g.loaded_codewhale = true

local api = vim.api

-- Everything is loaded on first use: these only name the commands.
local function run(line) require('codewhale.commands').run(line) end

-- :Codewhale {subcommand}: status, explain, log [filters] (|:Codewhale|).
api.nvim_create_user_command('Codewhale', function(opts) run(opts.args) end, {
  nargs = '*',
  complete = function(arglead, cmdline, cursorpos)
    return require('codewhale.commands').complete(arglead, cmdline, cursorpos)
  end,
  desc = 'codewhale-ls: :Codewhale status | explain {tool} {argument} | log [filters]',
})

-- The commands before :Codewhale, kept as aliases of its subcommands.
api.nvim_create_user_command('CodewhaleStatus', function() run('status') end,
  { desc = 'codewhale-ls: posture, sandbox, files loaded, approvals waiting (:Codewhale status)' })

api.nvim_create_user_command('CodewhaleExplain', function(opts) run('explain ' .. opts.args) end, {
  nargs = '+',
  complete = function(arglead, cmdline, cursorpos)
    return require('codewhale.commands').complete(arglead, cmdline, cursorpos, 'explain')
  end,
  desc = 'codewhale-ls: how the nine layers judge a tool call (:Codewhale explain)',
})

api.nvim_create_user_command('CodewhaleLog', function(opts) run('log ' .. opts.args) end, {
  nargs = '*',
  complete = function(arglead, cmdline, cursorpos)
    return require('codewhale.commands').complete(arglead, cmdline, cursorpos, 'log')
  end,
  desc = 'codewhale-ls: the decision log, filtered (:Codewhale log)',
})

-- A prompt that arrives while Neovim is not focused is announced too.
local group = api.nvim_create_augroup('codewhale_focus', { clear = true })
api.nvim_create_autocmd('FocusLost', { group = group, callback = function() require('codewhale.state').focused = false end })
api.nvim_create_autocmd('FocusGained', { group = group, callback = function() require('codewhale.state').focused = true end })
