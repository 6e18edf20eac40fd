-- The decision log view, :Codewhale log [filters]: the receipts
-- `codewhale-ls log --json` reads (docs/codewhale/contract.md §4,
-- "Receipts"), one line each as the command's table has them: time,
-- agent, repository, decision, what, who decided, id. The server's
-- reader does the reading (the log and its rotated generations, lines
-- written before receipts, the filters), run as a job: the view never
-- waits for it, never reads more than max_output of it, and ends it with
-- the view or after job_timeout_ms. Every text is shown as the server
-- escaped it (⟪…⟫), and escaped again here where it was not
-- (prompt.visible): nothing in the log can hide or reorder what is shown.
local config = require('codewhale.config')
local decisions = require('codewhale.decisions')
local prompt = require('codewhale.prompt')
local state = require('codewhale.state')
local util = require('codewhale.util')

local M = {}
local api = vim.api

-- default_limit is how many receipts the view asks for without limit=.
M.default_limit = 200
-- max_output bounds what the view reads of the command's output: 200
-- receipts of a few KiB each fit many times over.
M.max_output = 16 * 1024 * 1024
-- max_stderr bounds what is kept of the command's error output.
M.max_stderr = 64 * 1024
-- job_timeout_ms ends a command that has not finished: reading a log of
-- a few generations takes well under a second.
M.job_timeout_ms = 30000

-- The filters, as `codewhale-ls log` takes them (its --flags).
local filter_keys = { 'since', 'agent', 'decision', 'repo', 'tool', 'limit' }
local is_filter = {}
for _, k in ipairs(filter_keys) do
  is_filter[k] = true
end
M.filter_keys = filter_keys

-- The columns as `codewhale-ls log` draws them (approvals/receiptlog,
-- table.go): TIME, AGENT, DECISION and ID of fixed width, REPO, WHAT and
-- DECIDED BY sharing the rest of the window (20, 40 and 40 in a hundred),
-- each keeping a readable minimum.
local fixed = { time = 19, agent = #'copilot-cli', decision = #'DECISION', id = 10 }
local gap = '  '

-- widths are the columns' widths for a window width cells wide.
---@param width integer
---@return table
function M.widths(width)
  local room = width - (fixed.time + fixed.agent + fixed.decision + fixed.id + 6 * #gap)
  local w = { time = fixed.time, agent = fixed.agent, decision = fixed.decision }
  w.repo = math.max(math.floor(room * 20 / 100), 10)
  w.what = math.max(math.floor(room * 40 / 100), 16)
  w.decider = math.max(room - w.repo - w.what, 16)
  return w
end

-- editor_agent names the agent of Codewhale's own calls in the editor,
-- whose receipts name none, as `codewhale-ls log` does (--agent
-- codewhale selects them).
local editor_agent = 'codewhale'

local ns = api.nvim_create_namespace('codewhale_log')

---@class codewhale.LogFilters
---@field since string|nil 2h, 2026-12-05 or an RFC 3339 time
---@field agent string|nil
---@field decision string|nil allow, ask or deny
---@field repo string|nil
---@field tool string|nil
---@field limit string|nil how many of the newest receipts

---@class codewhale.LogView
---@field buf integer
---@field filters codewhale.LogFilters
---@field rows table<integer, table> line number -> the receipt drawn there
---@field job integer|nil the command running for the view
---@field generation integer which run the view shows; a run superseded is ignored

-- text is v on one line, every invisible character an escape.
---@param v any
---@return string
local function text(v)
  if v == nil or v == vim.NIL then
    return ''
  end
  if type(v) == 'table' then
    v = vim.fn.json_encode(v)
  end
  return (prompt.visible(tostring(v), false))
end

--- Filters -----------------------------------------------------------------

-- parse_filters reads the filters of :Codewhale log and of `f`:
-- `agent=codex decision=deny since=2h`, also as the command's own flags
-- (`--agent codex`, `--agent=codex`).
---@param input string|nil
---@return codewhale.LogFilters|nil filters, string|nil err
function M.parse_filters(input)
  local words = {}
  for w in (input or ''):gmatch('%S+') do
    table.insert(words, w)
  end
  local filters, i = {}, 1
  while i <= #words do
    local w = words[i]
    local key, value = w:match('^%-%-(%a+)=(.*)$')
    if not key then
      key, value = w:match('^(%a+)=(.*)$')
    end
    if not key then
      key = w:match('^%-%-(%a+)$')
      if key then
        i = i + 1
        value = words[i]
      end
    end
    if not key or not is_filter[key] then
      return nil, string.format('not a filter: %s (filters: %s, as key=value, e.g. agent=codex decision=deny since=2h)',
        text(w), table.concat(filter_keys, '= ') .. '=')
    end
    if value == nil or value == '' then
      return nil, key .. '= needs a value, e.g. ' .. key .. '=' .. ({ since = '2h', agent = 'codex', decision = 'deny', repo = '.', tool = 'exec_shell', limit = '50' })[key]
    end
    if key == 'limit' and not value:match('^%d+$') then
      return nil, 'limit= is a number of receipts, not ' .. text(value)
    end
    filters[key] = value
    i = i + 1
  end
  return filters
end

-- filter_text is filters as parse_filters reads them back.
---@param filters codewhale.LogFilters
---@return string
function M.filter_text(filters)
  local parts = {}
  for _, k in ipairs(filter_keys) do
    if filters[k] then
      table.insert(parts, k .. '=' .. filters[k])
    end
  end
  return table.concat(parts, ' ')
end

-- program is the codewhale-ls the plugin starts as its server (cmd's
-- first word), which also reads the log.
---@return string|nil
local function program()
  local cmd = config.options.cmd
  return type(cmd) == 'table' and type(cmd[1]) == 'string' and cmd[1] or nil
end

-- file_args is `--file PATH` when setup{} names the decision log, so the
-- view reads the log the server writes.
---@return string[]
local function file_args()
  local opt = config.options.decision_log
  if type(opt) == 'string' then
    return { '--file', opt }
  end
  return {}
end

-- argv is the command that reads the receipts filters select.
---@param filters codewhale.LogFilters
---@return string[]
function M.argv(filters)
  local argv = { program() or 'codewhale-ls', 'log', '--json', '--limit', filters.limit or tostring(M.default_limit) }
  for _, k in ipairs(filter_keys) do
    local v = filters[k]
    if v and k ~= 'limit' then
      if k == 'repo' and v:sub(1, 1) == '~' then
        v = vim.fn.expand(v) -- no shell expands it for the command
      end
      vim.list_extend(argv, { '--' .. k, v })
    end
  end
  return vim.list_extend(argv, file_args())
end

--- Running the command ---------------------------------------------------

---@class codewhale.LogRun
---@field code integer the exit code; -1 when it could not start
---@field lines string[] its output, line by line
---@field stderr string
---@field cut boolean the output passed max_output: the rest was not read
---@field timed_out boolean

-- run_job runs argv and calls done(run) once, on the main loop, with
-- what it printed (at most max_output of it). It returns the job's id,
-- or nil when it could not start (done has then been called).
---@param argv string[]
---@param done fun(run: codewhale.LogRun)
---@return integer|nil
local function run_job(argv, done)
  local lines, partial, size = {}, '', 0
  local errs, errsize = {}, 0
  local r = { code = -1, lines = lines, stderr = '', cut = false, timed_out = false }
  local finished = false
  local function finish()
    if finished then
      return
    end
    finished = true
    if partial ~= '' then
      table.insert(lines, partial)
    end
    r.stderr = table.concat(errs, '\n')
    vim.schedule(function() done(r) end)
  end
  if vim.fn.executable(argv[1]) ~= 1 then
    table.insert(errs, argv[1] .. ' is not an executable program')
    finish()
    return nil
  end
  local ok, id = pcall(vim.fn.jobstart, argv, {
    on_stdout = function(job, data)
      if r.cut then
        return
      end
      for i, chunk in ipairs(data) do
        size = size + #chunk + 1
        if i == 1 then
          partial = partial .. chunk
        else
          table.insert(lines, partial)
          partial = chunk
        end
      end
      if size > M.max_output then
        -- The rest is not read: the line being read is dropped whole.
        r.cut, partial = true, ''
        vim.fn.jobstop(job)
      end
    end,
    on_stderr = function(_, data)
      for _, chunk in ipairs(data) do
        if errsize < M.max_stderr and chunk ~= '' then
          errsize = errsize + #chunk
          table.insert(errs, chunk)
        end
      end
    end,
    on_exit = function(_, code)
      r.code = code
      finish()
    end,
  })
  if not ok or type(id) ~= 'number' or id <= 0 then
    table.insert(errs, 'could not start ' .. table.concat(argv, ' ') .. (ok and '' or (': ' .. tostring(id))))
    finish()
    return nil
  end
  vim.defer_fn(function()
    if not finished then
      r.timed_out = true
      vim.fn.jobstop(id)
    end
  end, M.job_timeout_ms)
  return id
end

-- failure_lines say why the command failed and what to do.
---@param argv string[]
---@param r codewhale.LogRun
---@return string[]
local function failure_lines(argv, r)
  local lines = {}
  if r.timed_out then
    table.insert(lines, string.format('codewhale-ls log did not finish within %g s and was stopped.', M.job_timeout_ms / 1000))
  elseif r.code == -1 then
    table.insert(lines, 'codewhale-ls log could not run: ' .. text(r.stderr))
  else
    table.insert(lines, string.format('codewhale-ls log failed (exit %d):', r.code))
    for l in (r.stderr .. '\n'):gmatch('(.-)\n') do
      if l ~= '' and #lines < 12 then
        table.insert(lines, '  ' .. text(l))
      end
    end
  end
  table.insert(lines, '')
  local command = table.concat(vim.tbl_map(text, argv), ' ')
  if r.timed_out then
    table.insert(lines, 'What to do: read less (f: since=, limit=), or run `' .. command .. '` in a terminal to see what it waits for.')
  elseif r.code == -1 then
    table.insert(lines, 'What to do: install codewhale-ls (:help codewhale-setup) or set cmd in setup{} to its path; :checkhealth codewhale.')
  elseif r.code == 2 then
    table.insert(lines, 'What to do: the command refused its arguments (above): change the filters with f. If it does not know'
      .. ' the `log` command, this codewhale-ls is older than the plugin: install the same version of both (:checkhealth codewhale).')
  else
    table.insert(lines, 'What to do: run `' .. command .. '` in a terminal to see more; a codewhale-ls without the `log` command'
      .. ' is older than this plugin: install the same version of both (:checkhealth codewhale); ' .. text(argv[1])
      .. ' is the program of setup{ cmd }.')
  end
  return lines
end

--- Drawing -------------------------------------------------------------------

-- fit is s cut or padded to width screen cells; a cut ends in …, or,
-- from_start, starts with it (the end of a path names the repository).
---@param s string
---@param width integer
---@param from_start boolean|nil
---@return string
local function fit(s, width, from_start)
  local w = vim.fn.strdisplaywidth(s)
  if w <= width then
    return s .. string.rep(' ', width - w)
  end
  -- At most width characters (each a cell or more) of a text that may be
  -- kilobytes long, then one less until the … fits.
  local n = vim.fn.strchars(s)
  local cut = vim.fn.strcharpart(s, from_start and math.max(n - width, 0) or 0, width)
  while vim.fn.strdisplaywidth(cut) > width - 1 do
    local n = vim.fn.strchars(cut)
    cut = from_start and vim.fn.strcharpart(cut, 1, n - 1) or vim.fn.strcharpart(cut, 0, n - 1)
  end
  cut = from_start and ('…' .. cut) or (cut .. '…')
  return cut .. string.rep(' ', width - vim.fn.strdisplaywidth(cut))
end

-- local_time is an RFC 3339 time (the receipt's, in UTC) in the local
-- zone, as `codewhale-ls log` shows it; a time it cannot read is shown
-- as written.
---@param s any
---@return string
function M.local_time(s)
  if type(s) ~= 'string' then
    return '-'
  end
  local y, mo, d, h, mi, sec, rest = s:match('^(%d%d%d%d)-(%d%d)-(%d%d)T(%d%d):(%d%d):(%d%d)(.*)$')
  if not y then
    return text(s)
  end
  local zone = rest:gsub('^%.%d+', '')
  local offset = 0
  if zone ~= 'Z' then
    local sign, zh, zm = zone:match('^([+-])(%d%d):(%d%d)$')
    if not sign then
      return text(s)
    end
    offset = (tonumber(zh) * 3600 + tonumber(zm) * 60) * (sign == '+' and 1 or -1)
  end
  -- os.time reads the fields as local time: add the local zone's offset
  -- at that moment to get the seconds of the UTC time.
  local as_local = os.time({ year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h), min = tonumber(mi), sec = tonumber(sec), isdst = false })
  if not as_local then
    return text(s)
  end
  local epoch = as_local + (as_local - os.time(os.date('!*t', as_local))) - offset
  return os.date('%Y-%m-%d %H:%M:%S', epoch)
end

-- what is the call: its tool and its input's first field (or, in lines
-- written before receipts, the title the card showed).
---@param r table a receipt
---@return string
local function what(r)
  local parts = { text(r.tool) }
  if type(r.input) == 'table' and type(r.input[1]) == 'table' then
    table.insert(parts, text(r.input[1].text))
  elseif type(r.input) == 'table' and next(r.input) ~= nil then
    -- A codewhale/decision's input: its fields by name.
    local keys = vim.tbl_keys(r.input)
    table.sort(keys)
    table.insert(parts, text(r.input[keys[1]]))
  elseif r.shown ~= nil and r.shown ~= vim.NIL then
    table.insert(parts, text(r.shown))
  end
  return vim.trim(table.concat(parts, ' '))
end

-- decided_by is who decided: the receipt's own words (decider.summary),
-- else, for a line written before receipts, what it recorded, said as
-- `codewhale-ls log` says it.
---@param r table
---@return string
local function decided_by(r)
  if type(r.decider) == 'table' and text(r.decider.summary) ~= '' then
    return text(r.decider.summary)
  end
  local approval = type(r.approval) == 'table' and r.approval or nil
  if approval and approval.source == 'prompt' then
    return "a person's answer: " .. text(approval.choice)
  elseif approval then
    return 'a session grant (' .. text(approval.choice) .. ')'
  elseif text(r.rule) ~= '' then
    return string.format("layer %s (%s): the rule '%s'", text(r.layer), text(r.layerName), text(r.rule))
  end
  return string.format('layer %s (%s): %s', text(r.layer), text(r.layerName), text(r.reason))
end

-- repo is the repository with the home directory as ~.
---@param v any
---@return string
local function repo(v)
  if type(v) ~= 'string' or v == '' then
    return '-'
  end
  return text(vim.fn.fnamemodify(v, ':~'))
end

-- row is a receipt's line of the view, its columns widths (M.widths),
-- and the byte columns of its decision.
---@param r table
---@param w table
---@return string line, integer decision_start, integer decision_end
function M.row(r, w)
  local agent = text(r.agent) ~= '' and text(r.agent) or editor_agent
  local before = table.concat({ fit(M.local_time(r.time), w.time), fit(agent, w.agent), fit(repo(r.repo), w.repo, true) }, gap) .. gap
  local decision = text(r.decision)
  local line = before .. fit(decision, w.decision) .. gap .. fit(what(r), w.what) .. gap .. fit(decided_by(r), w.decider)
    .. gap .. (text(r.id) ~= '' and text(r.id) or '-')
  return (line:gsub('%s+$', '')), #before, #before + #decision
end

-- header is the columns' names, aligned as M.row aligns its cells.
---@param w table
---@return string
local function header(w)
  return (table.concat({ fit('TIME', w.time), fit('AGENT', w.agent), fit('REPO', w.repo),
    fit('DECISION', w.decision), fit('WHAT', w.what), fit('DECIDED BY', w.decider), 'ID' }, gap))
end

local decision_hl = { deny = 'CodewhaleLogDeny', allow = 'CodewhaleLogAllow', ask = 'CodewhaleLogAsk' }
vim.cmd('highlight default link CodewhaleLogDeny ErrorMsg')
vim.cmd('highlight default link CodewhaleLogAllow String')
vim.cmd('highlight default link CodewhaleLogAsk WarningMsg')
vim.cmd('highlight default link CodewhaleLogHeader Title')

---@param view codewhale.LogView
---@return string
local function source(view)
  local path = decisions.log_path()
  local filters = M.filter_text(view.filters)
  return string.format('%s%s', path and text(vim.fn.fnamemodify(path, ':~')) or 'no decision log',
    filters ~= '' and (' | filters: ' .. text(filters)) or ' | no filters')
end

local keys_line = '<CR> explain the receipt   f filter   r read again   q close'

-- draw shows lines in the view's buffer, receipts (line -> receipt) and
-- their decisions' highlights (line -> {from, to, group}), the cursor on
-- the newest.
---@param view codewhale.LogView
---@param lines string[]
---@param rows table<integer, table>|nil
---@param spans table<integer, table>|nil
local function draw(view, lines, rows, spans)
  local buf = view.buf
  if not api.nvim_buf_is_valid(buf) then
    return
  end
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  view.rows = rows or {}
  api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  api.nvim_buf_add_highlight(buf, ns, 'CodewhaleLogHeader', 0, 0, -1)
  for lnum, span in pairs(spans or {}) do
    api.nvim_buf_add_highlight(buf, ns, span[3], lnum - 1, span[1], span[2])
  end
  local last
  for lnum in pairs(view.rows) do
    if not last or lnum > last then
      last = lnum
    end
  end
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    -- Without receipts, the top: what happened and what to do.
    api.nvim_win_set_cursor(win, { last or 1, 0 })
  end
end

-- add_rows appends a line per receipt to lines, and returns which
-- receipt each line shows and its decision's highlight.
---@param lines string[]
---@param receipts table[]
---@param w table the columns' widths
---@return table<integer, table> rows, table<integer, table> spans
local function add_rows(lines, receipts, w)
  local rows, spans = {}, {}
  for _, rc in ipairs(receipts) do
    local line, from, to = M.row(rc, w)
    table.insert(lines, line)
    rows[#lines] = rc
    if decision_hl[rc.decision] then
      spans[#lines] = { from, to, decision_hl[rc.decision] }
    end
  end
  return rows, spans
end

-- view_width is the width of the view's window, else of the screen.
---@param view codewhale.LogView
---@return integer
local function view_width(view)
  local win = vim.fn.bufwinid(view.buf)
  return win ~= -1 and api.nvim_win_get_width(win) or vim.o.columns
end

-- show draws the receipts of a finished run.
---@param view codewhale.LogView
---@param argv string[]
---@param r codewhale.LogRun
local function show(view, argv, r)
  if r.timed_out or (r.code ~= 0 and not r.cut) then
    local lines = { 'Decision log: ' .. source(view), keys_line, '' }
    vim.list_extend(lines, failure_lines(argv, r))
    draw(view, lines)
    local first = lines[4] .. (lines[5] and lines[5] ~= '' and (' ' .. vim.trim(lines[5])) or '')
    util.notify(first .. ' (the log view says what to do)', vim.log.levels.ERROR)
    return
  end
  local receipts, notes = {}, {}
  for _, l in ipairs(r.lines) do
    if l ~= '' then
      local ok, v = pcall(vim.fn.json_decode, l)
      if ok and type(v) == 'table' then
        table.insert(receipts, v)
      elseif #notes < 5 then
        table.insert(notes, text(l))
      end
    end
  end
  local count = #receipts == 1 and '1 receipt' or (#receipts .. ' receipts')
  local lines = { string.format('Decision log: %s | %s, newest last', source(view), count), keys_line }
  if r.cut then
    table.insert(lines, string.format('The output passed %d MiB and was cut: narrow it with f (limit=, since=).', M.max_output / 1024 / 1024))
  end
  vim.list_extend(lines, notes)
  if #receipts == 0 then
    table.insert(lines, 'No receipt matches' .. (next(view.filters) and ' these filters: f changes them.' or ': no decision is logged yet.'))
  end
  table.insert(lines, '')
  local w = M.widths(view_width(view))
  table.insert(lines, header(w))
  draw(view, lines, add_rows(lines, receipts, w))
end

-- show_received draws the decisions this session received
-- (codewhale/decision), when setup{} turned the log off.
---@param view codewhale.LogView
local function show_received(view)
  local lines = { string.format('The decision log is off (decision_log = false in setup{}): the decisions this Neovim received (%d), newest last; filters need the log.', #state.decisions),
    keys_line, '' }
  local w = M.widths(view_width(view))
  table.insert(lines, header(w))
  draw(view, lines, add_rows(lines, state.decisions, w))
end

--- The view ------------------------------------------------------------------

-- refresh reads the receipts again with the view's filters; a run still
-- going for the view is stopped, its output would be stale.
---@param view codewhale.LogView
function M.refresh(view)
  if view.job then
    pcall(vim.fn.jobstop, view.job)
    view.job = nil
  end
  if config.options.decision_log == false then
    return show_received(view)
  end
  view.generation = view.generation + 1
  local generation = view.generation
  local argv = M.argv(view.filters)
  draw(view, { 'Decision log: ' .. source(view), keys_line, '', 'Reading… (' .. text(table.concat(argv, ' ')) .. ')' })
  view.job = run_job(argv, function(r)
    if generation ~= view.generation or not api.nvim_buf_is_valid(view.buf) then
      return
    end
    view.job = nil
    show(view, argv, r)
  end)
end

-- scratch_window opens a read-only buffer named name in a new window
-- below; q closes it.
---@param name string
---@return integer buf
local function scratch_window(name)
  vim.cmd('botright new')
  local buf = api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  vim.wo.wrap = false
  pcall(api.nvim_buf_set_name, buf, name)
  api.nvim_buf_set_keymap(buf, 'n', 'q', '', { nowait = true, noremap = true, desc = 'close', callback = function()
    if #api.nvim_list_wins() > 1 then
      api.nvim_win_close(0, false)
    else
      api.nvim_buf_delete(buf, { force = true })
    end
  end })
  return buf
end

-- explain opens `codewhale-ls log show ID` for the receipt under the
-- cursor in a window below: the decision layer by layer.
---@param view codewhale.LogView
function M.explain(view)
  local r = view.rows[api.nvim_win_get_cursor(0)[1]]
  if not r and view.job then
    return util.notify('still reading the log: <CR> once its receipts are shown', vim.log.levels.WARN)
  elseif not r then
    return util.notify('put the cursor on a receipt\'s line, then <CR>', vim.log.levels.WARN)
  end
  local id = r.id ~= nil and r.id ~= vim.NIL and tostring(r.id) or nil
  if not id then
    -- A line written before receipts (or a decision received with the
    -- log off) has no id for `log show`: what it holds is shown.
    local buf = scratch_window('codewhale://log/line')
    local lines = { 'This decision has no receipt id (logged before receipts, or received with the log off): what it holds.' }
    local ks = vim.tbl_keys(r)
    table.sort(ks)
    for _, k in ipairs(ks) do
      table.insert(lines, string.format('%-10s %s', k, text(r[k])))
    end
    vim.bo[buf].modifiable = true
    api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    return
  end
  local argv = vim.list_extend({ program() or 'codewhale-ls', 'log', 'show', id }, file_args())
  local buf = scratch_window('codewhale://log/' .. text(id))
  -- The explanation is long (the input, who decided, nine layers): most
  -- of the screen, the log's line of it still in sight above.
  api.nvim_win_set_height(0, math.max(10, math.floor(vim.o.lines * 0.6)))
  local function set(lines)
    if api.nvim_buf_is_valid(buf) then
      vim.bo[buf].modifiable = true
      api.nvim_buf_set_lines(buf, 0, -1, false, lines)
      vim.bo[buf].modifiable = false
    end
  end
  set({ 'Reading… (' .. text(table.concat(argv, ' ')) .. ')' })
  local job = run_job(argv, function(run)
    if run.timed_out or (run.code ~= 0 and not run.cut) then
      return set(failure_lines(argv, run))
    end
    local lines = vim.tbl_map(function(l) return text(l) end, run.lines)
    while #lines > 0 and lines[#lines] == '' do
      table.remove(lines)
    end
    set(lines)
  end)
  if job then
    api.nvim_create_autocmd('BufWipeout', { buffer = buf, once = true, callback = function() pcall(vim.fn.jobstop, job) end })
  end
end

-- filter asks for the view's filters (the current ones to edit); an
-- empty answer clears them, <Esc> leaves them.
---@param view codewhale.LogView
function M.filter(view)
  local cancelled = '\1cancelled'
  local ok, answer = pcall(vim.fn.input, { prompt = 'filter (since= agent= decision= repo= tool= limit=): ',
    default = M.filter_text(view.filters), cancelreturn = cancelled })
  if not ok or answer == cancelled then
    return
  end
  local filters, err = M.parse_filters(answer)
  if not filters then
    return util.notify(err, vim.log.levels.ERROR)
  end
  view.filters = filters
  M.refresh(view)
end

-- open shows the view with the filters text gives (:Codewhale log's
-- arguments), in the window of the view already open, else a new one.
---@param args string|nil
---@return codewhale.LogView|nil
function M.open(args)
  local filters, err = M.parse_filters(args)
  if not filters then
    util.notify(err, vim.log.levels.ERROR)
    return nil
  end
  for buf, view in pairs(state.log_views) do
    local win = api.nvim_buf_is_valid(buf) and vim.fn.bufwinid(buf) or -1
    if win ~= -1 then
      api.nvim_set_current_win(win)
      view.filters = filters
      M.refresh(view)
      return view
    end
  end
  local buf = scratch_window('codewhale://log')
  vim.bo[buf].filetype = 'codewhalelog'
  local view = { buf = buf, filters = filters, rows = {}, generation = 0 }
  state.log_views[buf] = view
  local function map(lhs, desc, fn)
    api.nvim_buf_set_keymap(buf, 'n', lhs, '', { nowait = true, noremap = true, desc = desc, callback = function() fn(view) end })
  end
  map('<CR>', 'explain the receipt (codewhale-ls log show)', M.explain)
  map('f', 'filter the receipts', M.filter)
  map('r', 'read the log again', M.refresh)
  api.nvim_create_autocmd('BufWipeout', { buffer = buf, once = true, callback = function()
    state.log_views[buf] = nil
    if view.job then
      pcall(vim.fn.jobstop, view.job)
      view.job = nil
    end
  end })
  M.refresh(view)
  return view
end

-- complete completes :Codewhale log's filters: their names, then
-- decision='s values.
---@param arglead string
---@return string[]
function M.complete(arglead)
  local key = arglead:match('^(%a+)=')
  local out = {}
  if key == 'decision' then
    for _, v in ipairs({ 'allow', 'ask', 'deny' }) do
      table.insert(out, 'decision=' .. v)
    end
  elseif not key then
    for _, k in ipairs(filter_keys) do
      table.insert(out, k .. '=')
    end
  end
  return vim.tbl_filter(function(s) return s:sub(1, #arglead) == arglead end, out)
end

return M
