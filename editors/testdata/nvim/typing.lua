-- The plugin in a Neovim inside a tmux pane, typed into by the Go test
-- (nvim_keys_test.go) as a person types, with tmux send-keys, while
-- agents' asks arrive. The test asks by writing $CWLS_DIR/ask-<n>.json
-- ({command, tool, picker, float}); this script calls authorize for it and
-- appends what happens to $CWLS_DIR/events.jsonl, one JSON object a line:
-- shown (the card is on the screen, ms after the ask), focused (it takes
-- the keys), armed (its guard ran out; with the codes), decided. The file
-- $CWLS_DIR/done ends the run: the results are the buffer the user typed
-- into, :messages, and the floats left.
local t = dofile(os.getenv('CWLS_LIB'))
local api = vim.api

local dir = t.env.dir
local ws = dir .. '/ws'

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

local function emit(ev)
  local f = assert(io.open(dir .. '/events.jsonl', 'a'))
  f:write(vim.fn.json_encode(ev), '\n')
  f:close()
end

-- A telescope-ui-select style picker: a focused float in insert mode
-- whose first line is the prompt (nvim_buf_set_lines fails on a prompt
-- with newlines, as telescope's handler did), filtering the items by
-- what is typed; <CR> picks the first match.
local function fake_telescope(items, opts, on_choice)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, { opts.prompt, '' })
  local win = api.nvim_open_win(buf, true, { relative = 'editor', row = 18, col = 10, width = 70, height = 6, border = 'single' })
  local function shown(typed)
    local out = {}
    for _, it in ipairs(items) do
      local text = opts.format_item(it)
      if typed == '' or text:lower():find(typed:lower(), 1, true) then
        table.insert(out, it)
      end
    end
    return out
  end
  api.nvim_win_set_cursor(win, { 2, 0 })
  vim.cmd('startinsert')
  vim.keymap.set('i', '<CR>', function()
    local typed = api.nvim_buf_get_lines(buf, 1, 2, false)[1] or ''
    local first = shown(typed)[1]
    vim.cmd('stopinsert')
    api.nvim_win_close(win, true)
    emit({ event = 'picked', typed = typed, item = first and first.id or vim.NIL })
    on_choice(first)
  end, { buffer = buf })
end

t.main(function()
  vim.opt.runtimepath:prepend(t.env.plugin)
  vim.cmd('runtime plugin/codewhale.lua')
  vim.o.statusline = "%f %= %{v:lua.require'codewhale'.statusline()} "
  vim.o.laststatus = 2
  local cw = require('codewhale')
  cw.setup({ cmd = { t.env.bin, 'serve' }, approval_timeout = 60, codewhale_version = '0.10.1' })
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/.codewhale/config.toml'))
  t.must(10000, 'the workspace client', function()
    local c = cw.client_for(ws)
    return c and c.config.root_dir == ws
  end)
  -- The user's own file, where the typing goes.
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/src/main.rs'))
  local user_buf = api.nvim_get_current_buf()
  emit({ event = 'ready' })

  local n = 0
  local builtin_select = vim.ui.select
  while true do
    t.must(600000, 'an ask or the end', function()
      return exists(dir .. '/ask-' .. (n + 1) .. '.json') or exists(dir .. '/done')
    end)
    if exists(dir .. '/done') then
      break
    end
    n = n + 1
    local f = assert(io.open(dir .. '/ask-' .. n .. '.json'))
    local ask = vim.fn.json_decode(f:read('*a'))
    f:close()
    cw.options.ui_select = ask.picker == true
    vim.ui.select = ask.picker and fake_telescope or builtin_select
    local user_float
    if ask.float then
      -- A float the user is in (a hover, a completion menu's docs).
      local b = api.nvim_create_buf(false, true)
      api.nvim_buf_set_lines(b, 0, -1, false, { 'a float of the user' })
      user_float = api.nvim_open_win(b, true, { relative = 'editor', row = 2, col = 60, width = 30, height = 3, border = 'single' })
    end
    local t0 = vim.loop.hrtime()
    local decision
    cw.authorize({ tool = ask.tool or 'exec_shell', input = { command = ask.command }, workspace = ws, callId = 'ask-' .. n }, function(d)
      decision = d
    end)
    local card
    local seen = {}
    t.must(600000, 'ask ' .. n .. ' decided', function()
      local e = cw._state.queue[1]
      card = (e and e.card) or card
      if card and not seen.shown and card.win and api.nvim_win_is_valid(card.win) then
        seen.shown = true
        vim.cmd('redraw')
        emit({ event = 'shown', n = n, ms = t.ms_since(t0), mode = api.nvim_get_mode().mode })
      end
      if card and card.focused and not seen.focused then
        seen.focused = true
        emit({ event = 'focused', n = n, ms = t.ms_since(t0) })
      end
      if card and card.armed and not seen.armed then
        seen.armed = true
        emit({ event = 'armed', n = n, codes = card.codes, keys = card.keys or 0 })
      end
      if card and seen.armed and not card.armed then
        seen.armed = false -- a key re-armed the guard: armed is reported again
      end
      return decision ~= nil
    end)
    t.must(5000, 'the card to close', function() return not (card and api.nvim_win_is_valid(card.win)) end)
    if user_float and api.nvim_win_is_valid(user_float) then
      api.nvim_win_close(user_float, true)
    end
    vim.schedule(function() end)
    emit({ event = 'decided', n = n, decision = decision.decision,
      choice = type(decision.approval) == 'table' and decision.approval.choice or vim.NIL,
      reason = decision.reason, floats = t.float_count(), win_is_user = api.nvim_get_current_buf() == user_buf })
  end
  vim.ui.select = builtin_select
  t.note('user_lines', api.nvim_buf_get_lines(user_buf, 0, -1, false))
  t.note('messages', vim.fn.execute('messages'))
  t.note('floats', t.float_count())
end)
