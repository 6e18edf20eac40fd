-- Drives a Neovim in a tmux pane for the README's pictures: the
-- diagnostics of a broken permissions.toml, then an approval prompt. It
-- touches $CWLS_DIR/<step>.ready when the screen shows the step and waits
-- for $CWLS_DIR/<step>.taken (the Go test captured the pane).
local t = dofile(os.getenv('CWLS_LIB'))
local api = vim.api

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

-- show tells the test the screen is ready and waits until it was taken.
local function show(step)
  vim.cmd('redraw!')
  local f = assert(io.open(t.env.dir .. '/' .. step .. '.ready', 'w'))
  f:close()
  t.must(30000, step .. ' taken', function() return exists(t.env.dir .. '/' .. step .. '.taken') end)
end

t.main(function()
  vim.opt.runtimepath:prepend(t.env.plugin)
  vim.cmd('runtime plugin/codewhale.lua')
  if vim.fn.has('termguicolors') == 1 then
    vim.o.termguicolors = true
  end
  vim.o.statusline = "%f %= %{v:lua.require'codewhale'.statusline()} "
  vim.o.laststatus = 2
  vim.diagnostic.config({ virtual_text = true, signs = true, underline = true })
  local cw = require('codewhale')
  cw.setup({ cmd = { t.env.bin, 'serve' }, approval_timeout = 300 })

  vim.cmd('edit ' .. vim.fn.fnameescape(t.env.dir .. '/home/.codewhale/permissions.toml'))
  local buf = api.nvim_get_current_buf()
  t.must(10000, 'diagnostics', function() return #vim.diagnostic.get(buf) >= 2 end)
  api.nvim_win_set_cursor(0, { 3, 7 })
  -- No close events: the cursor move above must not close it.
  vim.diagnostic.open_float({ scope = 'line', close_events = {}, border = 'rounded' })
  show('diagnostics')

  vim.cmd('only')
  vim.cmd('edit ' .. vim.fn.fnameescape(t.env.dir .. '/ws/.codewhale/config.toml'))
  local ws = t.env.dir .. '/ws'
  t.must(10000, 'the workspace client', function()
    local c = cw.client_for(ws)
    return c and c.config.root_dir == ws
  end)
  local decided = false
  -- A command that hides a character and runs on over two lines: the card
  -- shows both as visible marks.
  cw.authorize({ tool = 'exec_shell', input = { command = 'git push --force\u{200b} origin main\ncargo publish' }, workspace = ws },
    function() decided = true end)
  t.must(10000, 'the card, armed', function()
    local e = cw._state.queue[1]
    return e and e.card and e.card.armed
  end)
  show('approval')
  api.nvim_input('<Esc>')
  t.must(10000, 'the answer', function() return decided end)
end)
