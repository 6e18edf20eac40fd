-- The approval prompt: its text, its choices in the order shown (Deny
-- first), the time left, and the plugin's own floating picker, used
-- where Neovim's vim.ui.select is still its built-in (the blocking
-- inputlist) or where the answer must be read by the request handler
-- itself (no coroutine to suspend: Neovim 0.7).
local M = {}

local api = vim.api

-- Keys typed within this many milliseconds of a prompt appearing are
-- dropped, so a keystroke meant for the buffer (an <CR> at the end of a
-- line) cannot answer a prompt the user has not seen yet.
M.arm_ms = 400

-- deadline_epoch converts the server's RFC 3339 deadline to seconds since
-- the epoch; nil when it cannot be read (the prompt then shows no
-- countdown, and the server still enforces its deadline).
function M.deadline_epoch(deadline)
  if type(deadline) ~= 'string' then
    return nil
  end
  local y, mo, d, h, mi, s, rest = deadline:match('^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)(.*)$')
  if not y then
    return nil
  end
  rest = rest:gsub('^%.%d+', '')
  local offset = 0
  if rest ~= 'Z' and rest ~= 'z' then
    local sign, oh, om = rest:match('^([+-])(%d%d):(%d%d)$')
    if not sign then
      return nil
    end
    offset = (tonumber(oh) * 3600 + tonumber(om) * 60) * (sign == '-' and -1 or 1)
  end
  -- os.time reads a table as local time; the difference between the
  -- local and UTC readings of one instant turns it into UTC.
  local fields = { year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h), min = tonumber(mi), sec = tonumber(s) }
  local now = os.time()
  local utc_offset = os.time(os.date('*t', now)) - os.time(os.date('!*t', now))
  return os.time(fields) + utc_offset - offset
end

-- time_left says how long the prompt still waits and until when, in the
-- user's local time.
function M.time_left(prompt)
  local at = M.deadline_epoch(prompt.deadline)
  if not at then
    return 'deadline unknown'
  end
  local left = math.max(0, at - os.time())
  return string.format('%d:%02d left (until %s)', math.floor(left / 60), left % 60, os.date('%H:%M:%S', at))
end

-- choices returns the prompt's offered choices with Deny first and the
-- rest in the server's order. A prompt without a Deny choice still gets
-- one: denying is always possible.
function M.choices(prompt)
  local out, deny = {}, nil
  for _, c in ipairs(type(prompt.choices) == 'table' and prompt.choices or {}) do
    if type(c) == 'table' and type(c.id) == 'string' then
      if c.id == 'deny' then
        deny = c
      else
        table.insert(out, c)
      end
    end
  end
  table.insert(out, 1, deny or { id = 'deny', title = 'Deny' })
  return out
end

local function field(v)
  if v == nil or v == vim.NIL then
    return nil
  end
  return tostring(v)
end

local function split(text)
  local lines = {}
  for line in (text:gsub('\n$', '') .. '\n'):gmatch('(.-)\r?\n') do
    table.insert(lines, line)
  end
  return lines
end

-- lines is the prompt's text: what is asked, why, by which layer and
-- rule, the rule "always" would save, and the time left.
function M.lines(prompt, waiting)
  local out = { 'Codewhale approval: ' .. (field(prompt.tool) or '?') }
  if field(prompt.agent) then
    out[1] = out[1] .. ' (asked by ' .. prompt.agent .. ')'
  end
  for _, l in ipairs(split(field(prompt.summary) or '')) do
    table.insert(out, '  ' .. l)
  end
  if field(prompt.detail) and prompt.detail ~= prompt.summary then
    for _, l in ipairs(split(prompt.detail)) do
      table.insert(out, '  ' .. l)
    end
  end
  table.insert(out, 'Reason: ' .. (field(prompt.reason) or ''))
  local layer = 'Layer ' .. (field(prompt.layer) or '?')
  if field(prompt.rule) then
    layer = layer .. ', rule: ' .. prompt.rule
  end
  table.insert(out, layer)
  if field(prompt.workspace) then
    table.insert(out, 'Workspace: ' .. prompt.workspace)
  end
  if field(prompt.codewhale) then
    table.insert(out, 'Rules of Codewhale ' .. prompt.codewhale)
  end
  for _, c in ipairs(M.choices(prompt)) do
    if c.id == 'always' and field(c.preview) then
      table.insert(out, '"' .. (c.title or 'Always') .. '" appends to permissions.toml:')
      for _, l in ipairs(split(c.preview)) do
        table.insert(out, '    ' .. l)
      end
    end
  end
  table.insert(out, 'Time: ' .. M.time_left(prompt))
  if waiting and waiting > 0 then
    table.insert(out, string.format('%d more waiting', waiting))
  end
  return out
end

-- Picker is one open floating prompt. open shows it; the caller reads
-- keys into it (modal) or the float's own mappings do (focused).
local Picker = {}
Picker.__index = Picker

-- open shows prompt in a float; waiting() is how many more prompts wait.
-- on_choice(choice or nil) is called once:
-- nil for <Esc>, q, the float closed, or close() (withdrawn).
-- opts.focus: enter the float and answer through buffer mappings;
-- otherwise keys are fed through :key() by the caller.
function M.open(prompt, waiting, on_choice, opts)
  local self = setmetatable({ prompt = prompt, choices = M.choices(prompt), index = 1, on_choice = on_choice, waiting = waiting }, Picker)
  self.opened = vim.loop.now()
  self.buf = api.nvim_create_buf(false, true)
  vim.bo[self.buf].bufhidden = 'wipe'
  self:render()
  local width = 20
  for _, l in ipairs(self.lines) do
    width = math.max(width, api.nvim_strwidth(l) + 2)
  end
  width = math.min(width, math.max(20, vim.o.columns - 4))
  local height = math.min(#self.lines, math.max(3, vim.o.lines - 4))
  self.previous = api.nvim_get_current_win()
  self.win = api.nvim_open_win(self.buf, opts.focus and true or false, {
    relative = 'editor',
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = height,
    style = 'minimal',
    border = 'rounded',
    zindex = 250,
  })
  vim.wo[self.win].cursorline = true
  vim.wo[self.win].wrap = false
  self:place_cursor()
  if opts.focus then
    -- Typing in insert mode must not go on into the prompt.
    vim.cmd('stopinsert')
    local function map(lhs, fn)
      api.nvim_buf_set_keymap(self.buf, 'n', lhs, '', { nowait = true, noremap = true, callback = fn })
    end
    map('<CR>', function() self:key('\r') end)
    map('<Esc>', function() self:key('\27') end)
    map('q', function() self:key('q') end)
    map('j', function() self:key('j') end)
    map('k', function() self:key('k') end)
    map('<Down>', function() self:key('j') end)
    map('<Up>', function() self:key('k') end)
    map('y', function() self:key('y') end)
    -- While a choice waits for its y, every other key goes back to Deny,
    -- also the keys the prompt does not map.
    self.keys_ns = api.nvim_create_namespace('codewhale_prompt_keys_' .. tostring(self.buf))
    vim.on_key(function(key)
      if self.confirming and key ~= 'y' and api.nvim_get_current_win() == self.win then
        vim.schedule(function() self:back_to_deny() end)
      end
    end, self.keys_ns)
  end
  -- Closing the float any other way (:q, :close) is a dismissal.
  self.autocmd = api.nvim_create_autocmd('WinClosed', {
    pattern = tostring(self.win),
    once = true,
    callback = function() vim.schedule(function() self:finish(nil) end) end,
  })
  -- The countdown ticks every second.
  self.timer = vim.loop.new_timer()
  self.timer:start(1000, 1000, vim.schedule_wrap(function() self:render() end))
  return self
end

function Picker:render()
  if self.done or not api.nvim_buf_is_valid(self.buf) then
    return
  end
  local lines = M.lines(self.prompt, self.waiting())
  table.insert(lines, string.rep('-', 24))
  self.first_choice = #lines + 1
  for i, c in ipairs(self.choices) do
    table.insert(lines, (i == self.index and '> ' or '  ') .. (c.title or c.id))
  end
  if self.confirming then
    table.insert(lines, 'y: confirm "' .. (self.confirming.title or self.confirming.id) .. '"   any other key: back to Deny')
  else
    table.insert(lines, '<CR> choose   j/k move   <Esc> deny')
  end
  self.lines = lines
  vim.bo[self.buf].modifiable = true
  api.nvim_buf_set_lines(self.buf, 0, -1, false, lines)
  vim.bo[self.buf].modifiable = false
  self:place_cursor()
end

function Picker:place_cursor()
  if self.win and api.nvim_win_is_valid(self.win) then
    api.nvim_win_set_cursor(self.win, { self.first_choice + self.index - 1, 0 })
  end
end

-- key handles one key: j/k move, <CR> chooses, <Esc> or q dismisses.
-- A choice other than Deny takes <CR> and then y: keys meant for a
-- buffer (holding j to scroll, then <CR>; a word typed into insert mode)
-- must not approve anything, so after <CR> on such a choice any key but y
-- goes back to Deny. It returns true when the key was the picker's.
function Picker:key(k)
  if self.done then
    return false
  end
  if vim.loop.now() - self.opened < M.arm_ms then
    return true
  end
  if self.confirming then
    local choice = self.confirming
    if k == 'y' then
      self.confirming = nil
      self:finish(choice)
    else
      self:back_to_deny()
    end
    return true
  end
  if k == 'j' then
    self.index = math.min(#self.choices, self.index + 1)
    self:render()
  elseif k == 'k' then
    self.index = math.max(1, self.index - 1)
    self:render()
  elseif k == '\r' then
    local choice = self.choices[self.index]
    if choice.id == 'deny' then
      self:finish(choice)
    else
      self.confirming = choice
      self:render()
    end
  elseif k == '\27' or k == 'q' then
    self:finish(nil)
  else
    return false
  end
  return true
end

-- back_to_deny leaves a choice that waits for its y, back on Deny.
function Picker:back_to_deny()
  if self.done or not self.confirming then
    return
  end
  self.confirming = nil
  self.index = 1
  self:render()
end

-- close takes the prompt off the screen; its answer is a dismissal.
function Picker:close()
  self:finish(nil)
end

-- hide takes the prompt off the screen without answering it (another
-- prompt has to be answered first); the caller opens it again later.
function Picker:hide()
  self:finish(nil, true)
end

function Picker:finish(choice, unanswered)
  if self.done then
    return
  end
  self.done = true
  if self.timer then
    self.timer:stop()
    self.timer:close()
  end
  pcall(api.nvim_del_autocmd, self.autocmd)
  if self.keys_ns then
    vim.on_key(nil, self.keys_ns)
  end
  if self.win and api.nvim_win_is_valid(self.win) then
    api.nvim_win_close(self.win, true)
  end
  if self.previous and api.nvim_win_is_valid(self.previous) then
    pcall(api.nvim_set_current_win, self.previous)
  end
  if not unanswered then
    self.on_choice(choice)
  end
end

return M
