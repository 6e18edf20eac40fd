-- The approval card: a prompt's text (every field of the call's input,
-- whole), its choices with Deny first, the time left, and the keys that
-- answer it. Issue 15 is why it is built this way (doc/codewhale.txt,
-- |codewhale-approvals|):
--
--   * It takes the keyboard only in Normal mode, in an ordinary window:
--     while the user is in Insert, Replace, Visual, Command-line or
--     Operator-pending mode, or in another float, the card is on the
--     screen unfocused and reads no key, so text typed for a buffer or a
--     command line reaches it intact.
--   * Nothing answers it until it has been focused and untouched for
--     guard_ms; every key re-arms that guard. Approving is typing the
--     choice's code, three letters drawn at random for each prompt and
--     shown on the card; a wrong key drops what was typed and re-arms the
--     guard. So no run of ordinary typing can approve, and neither can a
--     key typed before the card was read.
--   * Every change is drawn at once (an explicit redraw: Neovim 0.7 does
--     not redraw from a timer by itself), the countdown ticks each second.
--   * The text is shown whole: wrapped, scrollable with keys that never
--     answer, opened at its first line, with the number of lines and what
--     is off screen said on the card, and its last line shown beside.
local M = {}

local api = vim.api

-- A card answers nothing until it has been focused and no key has been
-- typed for this long. A person needs about that long to read what the
-- card asks; a typist's keys come much faster, and each one restarts it.
M.guard_ms = 1000

-- Letters of the approval codes: none of the card's other keys (d q to
-- deny, j k g G to scroll) and no vowel, so a code is no English word.
local code_letters = 'bcfhmnprstvwxz'

--- Visible text ----------------------------------------------------------

-- Names of the invisible characters an attacker uses to hide or reorder
-- text (bidi controls, zero-width and unusual spaces).
local names = {
  [0x09] = 'TAB', [0x0D] = 'CR', [0x1B] = 'ESC', [0x7F] = 'DEL', [0xA0] = 'NBSP', [0xAD] = 'SHY',
  [0x061C] = 'ALM', [0x200B] = 'ZWSP', [0x200C] = 'ZWNJ', [0x200D] = 'ZWJ', [0x200E] = 'LRM',
  [0x200F] = 'RLM', [0x2028] = 'LSEP', [0x2029] = 'PSEP', [0x202A] = 'LRE', [0x202B] = 'RLE',
  [0x202C] = 'PDF', [0x202D] = 'LRO', [0x202E] = 'RLO', [0x2060] = 'WJ', [0x2066] = 'LRI',
  [0x2067] = 'RLI', [0x2068] = 'FSI', [0x2069] = 'PDI', [0xFEFF] = 'BOM',
}

-- invisible: characters a terminal draws as nothing, as a space, or that
-- change how the text around them is ordered.
local function invisible(cp)
  return cp < 0x20 or (cp >= 0x7F and cp <= 0xA0) or cp == 0xAD or cp == 0x034F or cp == 0x061C
    or cp == 0x115F or cp == 0x1160 or cp == 0x1680 or cp == 0x17B4 or cp == 0x17B5
    or (cp >= 0x180B and cp <= 0x180E) or (cp >= 0x2000 and cp <= 0x200F) or (cp >= 0x2028 and cp <= 0x202F)
    or (cp >= 0x205F and cp <= 0x206F) or cp == 0x3000 or cp == 0x3164 or (cp >= 0xFE00 and cp <= 0xFE0F)
    or cp == 0xFEFF or cp == 0xFFA0 or (cp >= 0xFFF0 and cp <= 0xFFFB) or (cp >= 0xE0000 and cp <= 0xE0FFF)
    or (cp >= 0x1D173 and cp <= 0x1D17A)
end

-- utf8_at decodes the character at byte i of s: its code point (nil for
-- a byte that starts no valid UTF-8 sequence) and its length.
local function utf8_at(s, i)
  local c = s:byte(i)
  if c < 0x80 then
    return c, 1
  end
  local n, cp, min
  if c >= 0xC2 and c <= 0xDF then
    n, cp, min = 2, c - 0xC0, 0x80
  elseif c >= 0xE0 and c <= 0xEF then
    n, cp, min = 3, c - 0xE0, 0x800
  elseif c >= 0xF0 and c <= 0xF4 then
    n, cp, min = 4, c - 0xF0, 0x10000
  else
    return nil, 1
  end
  for k = 1, n - 1 do
    local b = s:byte(i + k)
    if not b or b < 0x80 or b > 0xBF then
      return nil, 1
    end
    cp = cp * 64 + (b - 0x80)
  end
  if cp < min or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then
    return nil, 1
  end
  return cp, n
end

-- visible returns s with every invisible character, control byte and
-- invalid byte written as an escape between ⟪ and ⟫, as the server
-- writes them (docs/codewhale/contract.md §4), and how many it escaped.
-- The server sends its text escaped already; this is a second line of
-- defence, so that a server bug cannot hide or reorder what the card
-- shows. A newline is kept where keep_newlines is set (the text is then
-- split into lines), else it becomes ⏎.
function M.visible(s, keep_newlines)
  s = tostring(s)
  if not s:find('[%z\1-\31\127-\255]') then
    return s, 0
  end
  local out, n, i = {}, 0, 1
  while i <= #s do
    local cp, len = utf8_at(s, i)
    if cp == 0x0A then
      table.insert(out, keep_newlines and '\n' or '⏎')
    elseif cp == nil then
      n = n + 1
      table.insert(out, string.format('⟪0x%02X⟫', s:byte(i)))
    elseif invisible(cp) then
      n = n + 1
      local name = names[cp]
      if cp < 0x20 and not name then
        name = '^' .. string.char(cp + 64)
      end
      if cp < 0x80 then
        table.insert(out, '⟪' .. name .. '⟫')
      else
        table.insert(out, string.format('⟪%sU+%04X⟫', name and name .. ' ' or '', cp))
      end
    else
      table.insert(out, s:sub(i, i + len - 1))
    end
    i = i + len
  end
  return table.concat(out), n
end

local function field(v)
  if v == nil or v == vim.NIL then
    return nil
  end
  return (M.visible(v, false))
end

local function split(text)
  local lines = {}
  for line in (text:gsub('\n$', '') .. '\n'):gmatch('(.-)\n') do
    table.insert(lines, line)
  end
  return lines
end

--- Time ----------------------------------------------------------------

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

--- Text ------------------------------------------------------------------

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

-- title is a choice's title on one line.
function M.title(c)
  return field(c.title) or c.id
end

-- input_lines is one input field of the call, every line of it: a
-- heading that counts its lines, its escapes and the bytes the server
-- left out, then the text (already escaped by the server: ⏎ ends each
-- of its lines).
local function input_lines(inp, out)
  local text, extra = M.visible(type(inp.text) == 'string' and inp.text or '', true)
  local lines = split(text)
  local facts = { string.format('%d line%s', #lines, #lines == 1 and '' or 's') }
  local escaped = (tonumber(inp.escaped) or 0) + extra
  if escaped > 0 then
    table.insert(facts, string.format('%d invisible or non-ASCII character%s shown as ⟪…⟫', escaped, escaped == 1 and '' or 's'))
  end
  if (tonumber(inp.hidden) or 0) > 0 then
    table.insert(facts, string.format('%d bytes hidden in the middle', inp.hidden))
  end
  table.insert(out, string.format('%s (%s):', field(inp.field) or 'input', table.concat(facts, ', ')))
  for _, l in ipairs(lines) do
    table.insert(out, '  ' .. l)
  end
  return lines[#lines] or ''
end

-- lines is the card's text: what is asked (every input field, whole),
-- why, by which layer and rule, the rule "always" would save. It also
-- returns the last line of the first input field, which the card keeps
-- in view when the text is longer than the window.
function M.lines(prompt, waiting)
  local out = { 'Codewhale approval: ' .. (field(prompt.tool) or '?') }
  if field(prompt.agent) then
    out[1] = out[1] .. ' (asked by ' .. field(prompt.agent) .. ')'
  end
  local last
  if type(prompt.inputs) == 'table' and #prompt.inputs > 0 then
    for i, inp in ipairs(prompt.inputs) do
      if type(inp) == 'table' then
        local l = input_lines(inp, out)
        if i == 1 then
          last = l
        end
      end
    end
  else
    -- A server older than the inputs field: its summary and detail.
    for _, l in ipairs(split((M.visible(field(prompt.summary) and prompt.summary or '', true)))) do
      table.insert(out, '  ' .. l)
    end
    if field(prompt.detail) and prompt.detail ~= prompt.summary then
      for _, l in ipairs(split((M.visible(prompt.detail, true)))) do
        table.insert(out, '  ' .. l)
      end
    end
  end
  table.insert(out, 'Reason: ' .. (field(prompt.reason) or ''))
  local layer = 'Layer ' .. (field(prompt.layer) or '?')
  if field(prompt.rule) then
    layer = layer .. ', rule: ' .. field(prompt.rule)
  end
  table.insert(out, layer)
  if field(prompt.workspace) then
    table.insert(out, 'Workspace: ' .. field(prompt.workspace))
  end
  if field(prompt.codewhale) then
    table.insert(out, 'Rules of Codewhale ' .. field(prompt.codewhale))
  end
  for _, c in ipairs(M.choices(prompt)) do
    if c.id == 'always' and c.preview ~= nil and c.preview ~= vim.NIL then
      table.insert(out, '"' .. M.title(c) .. '" appends to permissions.toml:')
      for _, l in ipairs(split((M.visible(c.preview, true)))) do
        table.insert(out, '    ' .. l)
      end
    end
  end
  table.insert(out, 'Time: ' .. M.time_left(prompt))
  if waiting and waiting > 0 then
    table.insert(out, string.format('%d more waiting', waiting))
  end
  return out, last
end

-- one_line is the prompt in one line, for a picker's title: pickers put
-- it in a single-line field (telescope's handler failed on newlines).
function M.one_line(prompt)
  local s = 'Codewhale approval: ' .. (field(prompt.summary) or field(prompt.tool) or '?')
  if vim.fn.strchars(s) > 70 then
    s = vim.fn.strcharpart(s, 0, 69) .. '…'
  end
  return s .. ' (whole on the card)'
end

-- codes draws a code for every choice but Deny: three letters, the
-- first letter different for each choice, so what was typed so far
-- matches one choice at most.
local function random_letter()
  -- The system's random bytes (libuv), else Lua's generator; a byte
  -- below 252 keeps the 14 letters equally likely.
  local ok, b = pcall(vim.loop.random, 1)
  local n = ok and type(b) == 'string' and b:byte(1) or math.random(0, 251)
  if n >= 252 then
    return random_letter()
  end
  local k = n % #code_letters + 1
  return code_letters:sub(k, k)
end

local function draw_codes(choices)
  local used, codes = {}, {}
  for _, c in ipairs(choices) do
    if c.id ~= 'deny' then
      local code
      repeat
        code = random_letter() .. random_letter() .. random_letter()
      until not used[code:sub(1, 1)]
      used[code:sub(1, 1)] = true
      codes[c.id] = code
    end
  end
  return codes
end

--- The card ----------------------------------------------------------------

local Card = {}
Card.__index = Card
local cards = 0

-- The keys the card maps in its window: every printable ASCII key, the
-- control keys (so none of them switches the window's buffer or edits),
-- and the special keys people type. Any of them re-arms the guard.
local function card_keys()
  local keys = {}
  for c = 0x21, 0x7E do
    local k = string.char(c)
    if k == '<' then
      k = '<lt>'
    elseif k == '|' then
      k = '<Bar>'
    elseif k == '\\' then
      k = '<Bslash>'
    end
    table.insert(keys, { lhs = k, key = string.char(c) })
  end
  for c = string.byte('a'), string.byte('z') do
    table.insert(keys, { lhs = '<C-' .. string.char(c) .. '>', key = '^' .. string.char(c) })
  end
  for _, k in ipairs({ '<Space>', '<CR>', '<Esc>', '<BS>', '<Del>', '<Tab>', '<S-Tab>', '<Up>', '<Down>', '<Left>', '<Right>',
    '<PageUp>', '<PageDown>', '<Home>', '<End>', '<Insert>', '<C-]>', '<C-^>', '<C-@>', '<C-\\>', '<F1>', '<LeftMouse>',
    '<RightMouse>', '<MiddleMouse>', '<ScrollWheelUp>', '<ScrollWheelDown>' }) do
    table.insert(keys, { lhs = k, key = k })
  end
  return keys
end

-- Keys that scroll the text and never answer: what each does.
local scroll = {
  j = '\5', k = '\25', ['<Down>'] = '\5', ['<Up>'] = '\25', ['^e'] = '\5', ['^y'] = '\25',
  ['^d'] = '\4', ['^u'] = '\21', ['^f'] = '\6', ['^b'] = '\2', ['<PageDown>'] = '\6', ['<PageUp>'] = '\2',
  ['<ScrollWheelDown>'] = '\5', ['<ScrollWheelUp>'] = '\25', g = 'gg', G = 'G',
}

-- open puts prompt on the screen. opts:
--   waiting()        how many more prompts wait (shown on the card)
--   on_choice(c)     called once: a choice, or nil (dismissed, closed,
--                    withdrawn, the deadline): nil is a deny
--   picker           use vim.ui.select (a picker plugin) once the card may
--                    take the keyboard; the card stays beside it, and any
--                    choice but Deny still needs its code typed in the card
function M.open(prompt, opts)
  cards = cards + 1
  local self = setmetatable({
    prompt = prompt,
    choices = M.choices(prompt),
    on_choice = opts.on_choice,
    waiting = opts.waiting or function() return 0 end,
    use_picker = opts.picker,
    typed = '',
    armed = false,
    n = cards,
  }, Card)
  self.codes = draw_codes(self.choices)
  self.opened = vim.loop.now()
  self.buf = api.nvim_create_buf(false, true)
  self.footer_buf = api.nvim_create_buf(false, true)
  for _, b in ipairs({ self.buf, self.footer_buf }) do
    vim.bo[b].bufhidden = 'wipe'
    vim.bo[b].filetype = 'codewhale_approval'
  end
  self:fill_body()
  self:layout()
  self:map_keys()
  self.group = api.nvim_create_augroup('codewhale_card_' .. self.n, { clear = true })
  -- The moments the user may have come back to Normal mode in an
  -- ordinary window (ModeChanged is in 0.7 too; the others cover a
  -- Neovim without it).
  local events = { 'InsertLeave', 'CmdlineLeave', 'WinEnter', 'BufEnter', 'WinClosed', 'FocusGained', 'CmdwinLeave' }
  if vim.fn.exists('##ModeChanged') == 1 then
    table.insert(events, 'ModeChanged')
  end
  api.nvim_create_autocmd(events, { group = self.group, callback = function() self:soon() end })
  api.nvim_create_autocmd('CmdlineEnter', { group = self.group, callback = function()
    if self.away then
      self.away_in = true
    end
  end })
  api.nvim_create_autocmd('CmdlineLeave', { group = self.group, callback = function() self.away = nil end })
  api.nvim_create_autocmd('VimResized', { group = self.group, callback = function()
    if not self.done then
      self:layout()
      self:render()
    end
  end })
  -- Leaving the card (a split opened from it, a mouse click) gives the
  -- keys back; it takes them again as soon as it may, with a new guard.
  api.nvim_create_autocmd('WinLeave', {
    group = self.group,
    callback = function()
      if api.nvim_get_current_win() == self.win then
        self:unfocus()
      end
    end,
  })
  -- Closing the card's window any other way (:q, :close, :only) denies.
  for _, w in ipairs({ self.win, self.footer_win }) do
    api.nvim_create_autocmd('WinClosed', {
      group = self.group,
      pattern = tostring(w),
      callback = function() vim.schedule(function() self:finish(nil) end) end,
    })
  end
  -- The countdown ticks every second; the tick also retries the focus
  -- (a mode change no event reported).
  self.timer = vim.loop.new_timer()
  self.timer:start(1000, 1000, vim.schedule_wrap(function()
    self:try_focus()
    self:render()
  end))
  self:render()
  self:soon()
  return self
end

-- fill_body writes the card's text into its buffer.
function Card:fill_body()
  local lines, last = M.lines(self.prompt, nil)
  -- The time and "N more waiting" are on the footer, which is redrawn.
  if lines[#lines]:match('^Time: ') then
    table.remove(lines)
  end
  self.body_lines, self.last_line = lines, last
  vim.bo[self.buf].modifiable = true
  api.nvim_buf_set_lines(self.buf, 0, -1, false, lines)
  vim.bo[self.buf].modifiable = false
end

-- rows is how many screen rows lines take in a window width wide that
-- wraps with 'breakindent': a line's later rows are as indented as its
-- first, so they hold that much less.
local function rows(lines, width)
  local n = 0
  for _, l in ipairs(lines) do
    local w = api.nvim_strwidth(l)
    local indent = #l:match('^ *')
    n = n + 1 + math.ceil(math.max(0, w - width) / math.max(1, width - indent))
  end
  return n
end

function Card:footer_height()
  return #self.choices + 4
end

-- fit cuts s to width display cells; the footer's lines never wrap, so
-- that its height is fixed. keep_end keeps the end instead of the start.
local function fit(s, width, keep_end)
  if api.nvim_strwidth(s) <= width then
    return s
  end
  local n = vim.fn.strchars(s)
  if keep_end then
    local i = 0
    while api.nvim_strwidth('…' .. vim.fn.strcharpart(s, i)) > width do
      i = i + 1
    end
    return '…' .. vim.fn.strcharpart(s, i)
  end
  while n > 0 and api.nvim_strwidth(vim.fn.strcharpart(s, 0, n) .. '…') > width do
    n = n - 1
  end
  return vim.fn.strcharpart(s, 0, n) .. '…'
end

-- layout opens (or places) the card's two floats: the text, wrapped and
-- scrollable, and below it the footer with the choices, their codes and
-- the state, which never scrolls away.
function Card:layout()
  local columns, total = vim.o.columns, vim.o.lines - vim.o.cmdheight
  local width = 66
  for _, l in ipairs(self.body_lines) do
    width = math.max(width, api.nvim_strwidth(l) + 1)
  end
  width = math.min(width, math.max(20, columns - 4), 100)
  local fh = self:footer_height()
  -- Beside a picker the card takes the upper part of the screen.
  local room = self.use_picker and math.floor(total * 2 / 3) or total
  local max_body = math.max(3, room - fh - 5)
  local height = math.min(rows(self.body_lines, width), max_body)
  self.fits = rows(self.body_lines, width) <= height
  local row = self.use_picker and 0 or math.max(0, math.floor((total - height - fh - 4) / 2))
  local col = math.max(0, math.floor((columns - width - 2) / 2))
  local body = { relative = 'editor', row = row, col = col, width = width, height = height, style = 'minimal', border = 'rounded', zindex = 60 }
  local foot = { relative = 'editor', row = row + height + 2, col = col, width = width, height = fh, style = 'minimal', border = 'rounded', zindex = 60, focusable = false }
  if self.win and api.nvim_win_is_valid(self.win) then
    api.nvim_win_set_config(self.win, body)
    api.nvim_win_set_config(self.footer_win, foot)
  else
    self.win = api.nvim_open_win(self.buf, false, body)
    self.footer_win = api.nvim_open_win(self.footer_buf, false, foot)
  end
  self.width = width
  for _, w in ipairs({ self.win, self.footer_win }) do
    vim.wo[w].wrap = true
    vim.wo[w].linebreak = false
    vim.wo[w].list = false
    vim.wo[w].cursorline = false
  end
  vim.wo[self.win].breakindent = true
  -- A line taller than the window (a long command wraps over many rows)
  -- must scroll by rows: 'smoothscroll' (0.10+) makes <C-e> do that;
  -- without it j moves the cursor by rows (gj), and the cursor kept in
  -- the middle (scrolloff) scrolls the view.
  self.smooth = pcall(function() vim.wo[self.win].smoothscroll = true end)
  vim.wo[self.win].scrolloff = self.smooth and 0 or 999
  -- The text opens at its first line, whatever the user's cursor did.
  api.nvim_win_set_cursor(self.win, { 1, 0 })
  api.nvim_win_call(self.win, function() vim.cmd('normal! gg0') end)
end

function Card:map_keys()
  for _, k in ipairs(card_keys()) do
    api.nvim_buf_set_keymap(self.buf, 'n', k.lhs, '', { nowait = true, noremap = true, callback = function() self:key(k.key) end })
  end
end

-- soon retries the focus after the event that called it is over (the
-- mode an autocmd sees may still be the one being left).
function Card:soon()
  vim.schedule(function() self:try_focus() end)
end

-- may_focus: the user is in Normal mode in an ordinary window (or in the
-- card), not typing a command, an operator, a mapping or into another
-- float, and has not just sent the card away to type a command.
function Card:may_focus()
  local mode = api.nvim_get_mode()
  if mode.blocking or mode.mode ~= 'n' then
    return false
  end
  local cur = api.nvim_get_current_win()
  if cur == self.win then
    return true
  end
  if api.nvim_win_get_config(cur).relative ~= '' or vim.fn.getcmdwintype() ~= '' then
    return false
  end
  if self.away then
    -- ':' typed in the card: the keys are the command line's until it
    -- has been opened and closed (or, if it never opened, for 2 s).
    if self.away_in or vim.loop.now() - self.away < 2000 then
      return false
    end
    self.away = nil
  end
  return true
end

function Card:try_focus()
  if self.done or self.focused or self.in_picker then
    return
  end
  if not self:may_focus() then
    return
  end
  if self.use_picker and not self.picked then
    return self:open_picker()
  end
  self.previous = api.nvim_get_current_win()
  self.focused = true
  self:rearm()
  if api.nvim_get_current_win() ~= self.win then
    api.nvim_set_current_win(self.win)
  end
  self:render()
end

function Card:unfocus()
  if not self.focused then
    return
  end
  self.focused, self.typed = false, ''
  self:rearm()
  self:soon()
end

-- rearm starts the guard again: nothing answers the card until it has
-- been focused and untouched for guard_ms.
function Card:rearm()
  self.armed = false
  self.rearmed = vim.loop.now()
  if self.guard then
    self.guard:stop()
  else
    self.guard = vim.loop.new_timer()
  end
  if not self.focused then
    return
  end
  self.guard:start(M.guard_ms, 0, vim.schedule_wrap(function()
    if self.done or not self.focused then
      return
    end
    self.armed = true
    self.armed_at = vim.loop.now()
    self:render()
  end))
end

-- key handles one key typed in the card. Before the guard has run out,
-- every key only re-arms it. After it: d denies, q or <Esc> dismiss (a
-- deny too, which the server does not remember for the session); a code's
-- letters, typed in order, approve that choice; scrolling keys scroll
-- (and re-arm); any other key drops what was typed and re-arms.
function Card:key(k)
  if self.done then
    return
  end
  self.keys = (self.keys or 0) + 1
  local ready = self.armed
  local move = scroll[k]
  if move and not self.smooth then
    move = ({ ['\5'] = 'gj', ['\25'] = 'gk' })[move] or move
  end
  if move then
    api.nvim_win_call(self.win, function() vim.cmd('normal! ' .. move) end)
    self.typed = ''
    self:rearm()
    return self:render()
  end
  if k == ':' then
    -- A command line is the user's, typed in their own window: the card
    -- steps aside and comes back when it is closed.
    self.away, self.away_in = vim.loop.now(), false
    self.focused, self.typed = false, ''
    self:rearm()
    if self.previous and api.nvim_win_is_valid(self.previous) then
      api.nvim_set_current_win(self.previous)
    end
    api.nvim_feedkeys(':', 'n', false)
    return self:render()
  end
  if ready and self.typed == '' and k == 'd' then
    return self:finish(self.choices[1])
  end
  if ready and self.typed == '' and (k == 'q' or k == '<Esc>') then
    -- Dismissed: this call is denied, without Deny's memory of it.
    return self:finish(nil)
  end
  if ready or self.typed ~= '' then
    local so_far = self.typed .. k
    for _, c in ipairs(self.choices) do
      local code = self.codes[c.id]
      if code and code:sub(1, #so_far) == so_far then
        if so_far == code then
          return self:finish(c)
        end
        self.typed = so_far
        -- Typing a code is not "untouched": the guard re-arms, and the
        -- next letter is still taken because a code is under way.
        self:rearm()
        return self:render()
      end
    end
  end
  self.typed = ''
  self:rearm()
  self:render()
end

local function pad(s, n)
  return s .. string.rep(' ', math.max(1, n - api.nvim_strwidth(s)))
end

-- footer_lines: the choices and how to answer each, then the state.
function Card:footer_lines()
  local out = {}
  for _, c in ipairs(self.choices) do
    local how
    if c.id == 'deny' then
      how = 'd'
    else
      local code = self.codes[c.id]
      how = 'type ' .. code
      if self.typed ~= '' and code:sub(1, #self.typed) == self.typed then
        how = 'type ' .. self.typed:upper() .. code:sub(#self.typed + 1)
      end
    end
    local mark = (self.picked and self.picked.id == c.id) and '>' or ' '
    table.insert(out, mark .. pad(how, 11) .. M.title(c))
  end
  local state
  if self.in_picker then
    state = 'choose in the picker; any choice but Deny is then confirmed here'
  elseif not self.focused then
    state = 'not reading keys: it takes them when you are back in Normal mode'
  elseif not self.armed then
    state = string.format('keys ignored until you type nothing for %g s', M.guard_ms / 1000)
  elseif self.picked and self.picked.id ~= 'deny' then
    state = 'ready: type a code to confirm "' .. M.title(self.picked) .. '", d to deny'
  else
    state = 'ready: type a code to approve, d to deny, <Esc> or q to dismiss'
  end
  table.insert(out, state)
  local scroll_hint = ''
  if not self.fits then
    local top = vim.fn.line('w0', self.win)
    local bot = vim.fn.line('w$', self.win)
    scroll_hint = string.format('more than fits (lines %d-%d of %d): scroll with j k <C-d> <C-u> g G', top, bot, #self.body_lines)
  end
  local waiting = self.waiting()
  table.insert(out, M.time_left(self.prompt) .. (waiting > 0 and string.format(', %d more waiting', waiting) or ''))
  table.insert(out, scroll_hint)
  -- A text longer than the window: the end of its first field (the
  -- command), always in view.
  table.insert(out, (not self.fits and self.last_line) and ('ends: ' .. fit(self.last_line, self.width - 6, true)) or '')
  for i, l in ipairs(out) do
    out[i] = fit(l, self.width)
  end
  return out
end

function Card:render()
  if self.done or not api.nvim_buf_is_valid(self.footer_buf) then
    return
  end
  local lines = self:footer_lines()
  self.footer = lines
  vim.bo[self.footer_buf].modifiable = true
  api.nvim_buf_set_lines(self.footer_buf, 0, -1, false, lines)
  vim.bo[self.footer_buf].modifiable = false
  -- Neovim 0.7 draws nothing a timer changed until told to: what is on
  -- the screen is always the current state.
  pcall(vim.cmd, 'redraw')
end

-- all_lines is what the card shows: its text, then the footer.
function Card:all_lines()
  local out = vim.deepcopy(self.body_lines)
  vim.list_extend(out, self.footer or {})
  return out
end

--- Picker ------------------------------------------------------------------

-- open_picker hands the choice to vim.ui.select (a picker plugin the user
-- opted into): a one-line title, Deny first. Its floats are the card's to
-- close when the prompt ends, and no float the user opens later.
function Card:open_picker()
  self.in_picker = true
  local before = {}
  for _, w in ipairs(api.nvim_list_wins()) do
    before[w] = true
  end
  self.picker_wins = {}
  local function claim()
    for _, w in ipairs(api.nvim_list_wins()) do
      if not before[w] and w ~= self.win and w ~= self.footer_win and api.nvim_win_get_config(w).relative ~= '' then
        self.picker_wins[w] = true
      end
    end
  end
  self:render()
  local ok, err = pcall(vim.ui.select, self.choices, {
    prompt = M.one_line(self.prompt),
    kind = 'codewhale.approval',
    format_item = function(c) return M.title(c) end,
  }, function(choice)
    vim.schedule(function()
      if self.done then
        return -- withdrawn meanwhile: a late answer is ignored
      end
      self.in_picker = false
      self:close_picker()
      if choice == nil or choice.id == 'deny' then
        return self:finish(choice)
      end
      -- The picker's pick is not the deliberate act: the card's code is.
      self.picked = choice
      self:render()
      self:soon()
    end)
  end)
  if not ok then
    -- A picker that fails is a dismissal, and its frame is closed.
    vim.notify('codewhale: the picker failed (' .. tostring(err) .. '): denied', vim.log.levels.WARN)
    claim()
    return self:finish(nil)
  end
  claim()
  vim.schedule(claim)
end

function Card:close_picker()
  for w in pairs(self.picker_wins or {}) do
    if api.nvim_win_is_valid(w) then
      pcall(api.nvim_win_close, w, true)
    end
  end
  self.picker_wins = {}
end

--- End -----------------------------------------------------------------------

-- close takes the prompt off the screen; its answer is a dismissal.
function Card:close()
  self:finish(nil)
end

function Card:finish(choice)
  if self.done then
    return
  end
  self.done = true
  for _, t in ipairs({ self.timer, self.guard }) do
    if t then
      t:stop()
      t:close()
    end
  end
  pcall(api.nvim_del_augroup_by_id, self.group)
  self:close_picker()
  local was_current = api.nvim_get_current_win() == self.win
  for _, w in ipairs({ self.win, self.footer_win }) do
    if w and api.nvim_win_is_valid(w) then
      pcall(api.nvim_win_close, w, true)
    end
  end
  if was_current and self.previous and api.nvim_win_is_valid(self.previous) then
    pcall(api.nvim_set_current_win, self.previous)
  end
  pcall(vim.cmd, 'redraw')
  self.on_choice(choice)
end

return M
