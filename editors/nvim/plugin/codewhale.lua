-- User commands of codewhale.nvim; require('codewhale').setup{} starts
-- the client for Codewhale's files.
if vim.g.loaded_codewhale then
  return
end
vim.g.loaded_codewhale = true

local api = vim.api

api.nvim_create_user_command('CodewhaleStatus', function() require('codewhale').status() end,
  { desc = 'codewhale-ls: posture, sandbox, files loaded, approvals waiting' })

api.nvim_create_user_command('CodewhaleExplain', function(opts)
  local tool, arg = opts.args:match('^(%S+)%s+(.+)$')
  if not tool then
    vim.notify('usage: :CodewhaleExplain {tool} {argument}, e.g. read_file .env, exec_shell git push, or {tool} {json}', vim.log.levels.ERROR)
    return
  end
  require('codewhale').explain(tool, arg)
end, { nargs = '+', desc = 'codewhale-ls: how the nine layers judge a tool call' })

api.nvim_create_user_command('CodewhaleLog', function() require('codewhale').log() end,
  { desc = 'codewhale-ls: the decision log' })

-- A prompt that arrives while Neovim is not focused is announced too.
local group = api.nvim_create_augroup('codewhale_focus', { clear = true })
api.nvim_create_autocmd('FocusLost', { group = group, callback = function() require('codewhale.state').focused = false end })
api.nvim_create_autocmd('FocusGained', { group = group, callback = function() require('codewhale.state').focused = true end })
