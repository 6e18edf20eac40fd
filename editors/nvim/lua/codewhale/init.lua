-- codewhale.nvim: codewhale-ls for Neovim 0.7 and later. It attaches to
-- Codewhale's policy files by path, answers the server's approval
-- prompts (codewhale/approve) with a prompt that cannot be answered by
-- accident, and lets Lua agent plugins hold their tool calls to the same
-- policy (authorize). The Neovim API used is chosen by feature
-- detection, never by version string.
local paths = require('codewhale.paths')
local prompt = require('codewhale.prompt')

local M = {}
local api = vim.api

local name = 'codewhale_ls'

M.options = {
  cmd = { 'codewhale-ls', 'serve' },
  -- initializationOptions: nil leaves the server's default.
  config = nil,
  approval_timeout = nil,
  decision_log = nil,
  -- The Codewhale release to decide as ("0.10.1"); nil: the codewhale on
  -- the server's PATH, else the newest release codewhale-ls implements.
  codewhale_version = nil,
  -- Decisions kept in memory for :CodewhaleLog when no log file exists.
  keep_decisions = 200,
  -- true: approvals go to vim.ui.select where a picker plugin replaces it
  -- (the card stays beside it and still takes the code); false: always
  -- the plugin's own card.
  ui_select = false,
  -- When Neovim is not focused, a waiting approval: 'bell' rings the
  -- terminal's bell, 'notify' asks the terminal for a desktop
  -- notification (OSC 777), false does neither (a message is always shown).
  alert = 'bell',
}

local state = {
  clients = {}, -- root -> client id (start_client only)
  queue = {}, -- pending approvals, oldest first
  decisions = {},
  inflight = {}, -- authorize calls not answered yet: key -> deny function
  next_call = 0,
}
M._state = state

-- features reports which Neovim API this session uses.
function M.features()
  local lsp = vim.lsp
  local f = {}
  f.config = type(lsp.config) == 'table' and type(lsp.enable) == 'function'
  f.start = type(lsp.start) == 'function'
  f.start_client = type(lsp.start_client) == 'function'
  if f.config then
    f.path = 'vim.lsp.config'
  elseif f.start then
    f.path = 'vim.lsp.start'
  else
    f.path = 'vim.lsp.start_client'
  end
  return f
end

-- The built-in vim.ui.select is inputlist(), which blocks the editor and
-- reads keys typed for something else: it is never used for approvals.
-- A picker plugin that replaces it is, if the user opts in (ui_select).
local function builtin_select()
  local info = debug.getinfo(vim.ui.select, 'S')
  return info ~= nil and info.source:match('vim/ui%.lua$') ~= nil
end
M._builtin_select = builtin_select

local function client_request(client, method, params, handler, bufnr)
  if getmetatable(client) then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function get_clients()
  local list
  if type(vim.lsp.get_clients) == 'function' then
    list = vim.lsp.get_clients({ name = name })
  else
    list = vim.tbl_filter(function(c) return c.name == name end, vim.lsp.get_active_clients())
  end
  return list
end
M.clients = get_clients

local function notify(msg, level)
  vim.schedule(function() vim.notify('codewhale: ' .. msg, level or vim.log.levels.INFO) end)
end

local function redraw_status()
  vim.schedule(function() pcall(vim.cmd, 'redrawstatus!') end)
end

-- statusline is for 'statusline' / lualine: the number of approvals
-- waiting, or '' when none.
function M.statusline()
  local n = #state.queue
  if n == 0 then
    return ''
  end
  -- Other agents' calls (codewhale-ls hook AGENT) say whose they are.
  local agents, seen = {}, {}
  for _, e in ipairs(state.queue) do
    local a = e.prompt.agent
    if type(a) == 'string' and a ~= '' and not seen[a] then
      seen[a] = true
      table.insert(agents, a)
    end
  end
  local who = #agents > 0 and ' (' .. table.concat(agents, ', ') .. ')' or ''
  return string.format('CW: %d approval%s waiting%s', n, n == 1 and '' or 's', who)
end

--- Approvals ---------------------------------------------------------

local show_next
local publish_diagnostics, binary_found

-- alert tells a user whose terminal is not focused that an approval
-- waits (options.alert): the terminal bell, or a desktop notification
-- through the terminal (OSC 777, which many terminals and tmux pass on).
local function alert(p)
  local how = M.options.alert
  if how ~= 'bell' and how ~= 'notify' then
    return
  end
  state.alerts = (state.alerts or 0) + 1
  local seq = '\7'
  if how == 'notify' then
    local what = prompt.one_line(p):gsub('[%c;]', ' ')
    seq = '\27]777;notify;Codewhale approval;' .. what .. '\7'
  end
  -- 0.10+ runs the UI in another process: nvim_ui_send (0.12) reaches
  -- its terminal; before that the UI shares this process's stderr.
  if type(api.nvim_ui_send) == 'function' then
    pcall(api.nvim_ui_send, seq)
  else
    pcall(function() io.stderr:write(seq) end)
  end
end

-- finish answers an entry once, removes it from the queue and shows the
-- next. answer is {choice = id} or vim.NIL (dismissed: a deny).
local function finish(entry, answer)
  if entry.done then
    return
  end
  entry.done, entry.answer = true, answer
  if entry.deadline_timer then
    entry.deadline_timer:stop()
    entry.deadline_timer:close()
  end
  for i, e in ipairs(state.queue) do
    if e == entry then
      table.remove(state.queue, i)
      break
    end
  end
  if entry.reply then
    entry.reply(answer)
  end
  redraw_status()
  vim.schedule(show_next)
end

local function answer_of(choice)
  if choice and type(choice.id) == 'string' then
    return { choice = choice.id }
  end
  return vim.NIL
end

-- show_next puts the oldest prompt on the screen, one at a time: a
-- prompt is answered in the order asked, and the card says how many
-- more wait.
function show_next()
  local entry = state.queue[1]
  if not entry or entry.card then
    return
  end
  entry.card = prompt.open(entry.prompt, {
    waiting = function() return #state.queue - 1 end,
    on_choice = function(choice) finish(entry, answer_of(choice)) end,
    -- A picker only when the user opted in (ui_select) and one replaces
    -- the built-in (a blocking inputlist()).
    picker = M.options.ui_select == true and not builtin_select(),
  })
end

local function withdraw(id)
  for _, entry in ipairs(state.queue) do
    if entry.prompt.id == id then
      -- The server stopped waiting: nothing is sent back for it.
      entry.withdrawn = true
      if entry.card then
        entry.card:close()
      end
      finish(entry, vim.NIL)
      return
    end
  end
end

-- The deadline closes the prompt even if the server's withdrawal is lost.
local function arm_deadline(entry)
  local at = prompt.deadline_epoch(entry.prompt.deadline)
  if not at then
    return
  end
  local ms = math.max(0, (at - os.time()) * 1000)
  entry.deadline_timer = vim.loop.new_timer()
  entry.deadline_timer:start(ms + 1000, 0, vim.schedule_wrap(function() withdraw(entry.prompt.id) end))
end

-- enqueue adds a prompt the server asks; reply(answer) sends the answer
-- back the way it was asked.
local function enqueue(p, client_id, reply)
  local entry = { prompt = p, client_id = client_id, reply = reply }
  table.insert(state.queue, entry)
  for _, e in ipairs(state.queue) do
    if e.card then
      e.card:render() -- "N more waiting"
    end
  end
  arm_deadline(entry)
  redraw_status()
  if vim.g.codewhale_focused == false then
    notify('an approval is waiting', vim.log.levels.WARN)
    alert(p)
  end
  vim.schedule(show_next)
  return entry
end

-- approval_requested takes codewhale/approvalRequested, the server's
-- prompt when the client asked for approvalsAsync (always: see
-- client_config); the answer goes back as the request
-- codewhale/answerApproval. A handler that returns at once is the only
-- kind Neovim 0.7 has for a server request, so every Neovim uses this
-- one way, and the editor is never held while a prompt waits.
local function approval_requested(_, p, ctx)
  if type(p) ~= 'table' or type(p.id) ~= 'string' then
    return
  end
  local client_id = ctx and ctx.client_id
  state.approval_mode = 'asynchronous (codewhale/approvalRequested, answered by codewhale/answerApproval)'
  vim.schedule(function()
    local entry
    entry = enqueue(p, client_id, function(answer)
      local client = vim.lsp.get_client_by_id(client_id)
      if entry.withdrawn or not client then
        return -- withdrawn (the server no longer waits) or the server gone: the call is denied
      end
      local choice = answer ~= vim.NIL and answer.choice or vim.NIL
      client_request(client, 'codewhale/answerApproval', { id = p.id, choice = choice }, function(err)
        if err then
          -- The prompt stopped waiting first (deadline, cancel): denied.
          notify('too late: that prompt had already ended, and its call was denied', vim.log.levels.WARN)
        end
      end)
    end)
  end)
end

-- approve answers codewhale/approve, the request of a server that does
-- not know approvalsAsync. Where Neovim runs the handler in a coroutine
-- (0.12 does) it suspends until the user answers. Where it does not (0.7),
-- Neovim would send whatever the handler returns at once, and waiting
-- in a nested loop read keys the user meant for the editor (issue 15):
-- the call is denied and the user told to update codewhale-ls.
local function approve(_, p, ctx)
  if type(p) ~= 'table' or type(p.id) ~= 'string' then
    return vim.NIL
  end
  local co, main = coroutine.running()
  local yieldable = co ~= nil and not main and (coroutine.isyieldable == nil or coroutine.isyieldable())
  if not yieldable then
    state.approval_mode = 'denied: this codewhale-ls predates approvalsAsync and this Neovim cannot wait for an answer'
    notify('codewhale-ls asked with codewhale/approve, which this Neovim cannot answer later: denied; update codewhale-ls', vim.log.levels.ERROR)
    return vim.NIL
  end
  state.approval_mode = 'answered from a suspended coroutine (codewhale/approve; the editor stays usable)'
  local entry = enqueue(p, ctx and ctx.client_id, nil)
  entry.reply = function(answer)
    vim.schedule(function() coroutine.resume(co, answer) end)
  end
  return coroutine.yield()
end

--- Decisions ---------------------------------------------------------

-- reload_permissions shows a rule "always" appended: a clean buffer of
-- that permissions.toml is reloaded, a modified one is left alone.
local function reload_permissions(path)
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) and paths.basename(api.nvim_buf_get_name(buf)) == 'permissions.toml'
      and (path == nil or paths.normalize(api.nvim_buf_get_name(buf)) == paths.normalize(path)) then
      if vim.bo[buf].modified then
        notify(api.nvim_buf_get_name(buf) .. ' has unsaved changes: not reloaded; the new rule is on disk', vim.log.levels.WARN)
      else
        api.nvim_buf_call(buf, function() vim.cmd('silent! edit') end)
      end
    end
  end
end

local function on_decision(_, d, ctx)
  if type(d) ~= 'table' then
    return
  end
  table.insert(state.decisions, d)
  while #state.decisions > M.options.keep_decisions do
    table.remove(state.decisions, 1)
  end
  if type(d.approval) == 'table' and d.approval.choice == 'always' then
    vim.schedule(function()
      local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
      if not client then
        return reload_permissions(nil)
      end
      client_request(client, 'codewhale/status', vim.NIL, function(err, status)
        reload_permissions(not err and type(status) == 'table' and status.permissionsPath or nil)
      end)
    end)
  end
end

--- Client configuration ------------------------------------------------

local function deny_inflight(client_id)
  for key, deny in pairs(state.inflight) do
    if key:match('^' .. client_id .. ':') then
      deny('codewhale-ls exited before deciding')
    end
  end
end

-- publish_diagnostics shows a file's findings from one client only: the
-- one whose workspace owns the file (paths.root). The server of another
-- workspace lints the same file (the user's permissions.toml applies to
-- every workspace) and publishes it too, and Neovim would show each
-- finding once per client (issue 15 point 11).
function publish_diagnostics(err, result, ctx, config)
  if type(result) == 'table' and type(result.uri) == 'string' and ctx and ctx.client_id then
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    local owner = paths.root(vim.uri_to_fname(result.uri))
    local root = client and client.config and client.config.root_dir
    if owner and root and paths.normalize(owner) ~= paths.normalize(root) then
      for _, c in ipairs(get_clients()) do
        if c.config and c.config.root_dir and paths.normalize(c.config.root_dir) == paths.normalize(owner) then
          return -- the owner's client publishes it
        end
      end
    end
  end
  return vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, config)
end

-- binary_found tells, once, when the server cannot be started: 0.11+'s
-- vim.lsp.enable would otherwise fail without a word on opening a file.
local told_missing = false
function binary_found()
  local bin = M.options.cmd and M.options.cmd[1]
  if type(bin) == 'string' and vim.fn.executable(bin) == 1 then
    return true
  end
  if not told_missing then
    told_missing = true
    notify(tostring(bin) .. ' not found: install codewhale-ls (see :help codewhale-setup) or set cmd in setup{}; :checkhealth codewhale', vim.log.levels.ERROR)
  end
  return false
end

-- client_config is the configuration every code path starts the client
-- with (vim.lsp.config's lsp/codewhale_ls.lua returns it too).
function M.client_config()
  local init = { approvals = 'codewhale', approvalsAsync = true }
  init.config = M.options.config
  init.approvalTimeoutSeconds = M.options.approval_timeout
  init.decisionLog = M.options.decision_log
  init.codewhaleVersion = M.options.codewhale_version
  return {
    name = name,
    cmd = M.options.cmd,
    filetypes = { 'toml', 'json' },
    init_options = init,
    handlers = {
      ['codewhale/approve'] = approve,
      ['codewhale/approvalRequested'] = approval_requested,
      ['codewhale/approvalWithdrawn'] = function(_, params)
        if type(params) == 'table' and type(params.id) == 'string' then
          vim.schedule(function() withdraw(params.id) end)
        end
      end,
      ['codewhale/decision'] = on_decision,
      ['textDocument/publishDiagnostics'] = publish_diagnostics,
    },
    on_attach = function(_, bufnr)
      -- Neovim 0.7 sets no omnifunc, and its vim.lsp.omnifunc inserts
      -- newText at the keyword's start, not at the edit's range: ours
      -- honours the range. A buffer with an omnifunc keeps it.
      if vim.bo[bufnr].omnifunc == '' then
        vim.bo[bufnr].omnifunc = "v:lua.require'codewhale'.omnifunc"
      end
    end,
    on_exit = function(_, _, client_id)
      vim.schedule(function()
        deny_inflight(client_id)
        -- A server gone without withdrawing its prompts leaves none up.
        for _, entry in ipairs(vim.deepcopy(state.queue)) do
          if entry.client_id == client_id then
            withdraw(entry.prompt.id)
          end
        end
        for root, id in pairs(state.clients) do
          if id == client_id then
            state.clients[root] = nil
          end
        end
      end)
    end,
    -- vim.lsp.config (0.11+): attach only to Codewhale's files.
    root_dir = function(bufnr, on_dir)
      local root = paths.root(api.nvim_buf_get_name(bufnr))
      if root and binary_found() then
        on_dir(root)
      end
    end,
  }
end

-- attach starts (or reuses) the client of buf's workspace when buf is one
-- of Codewhale's files; other TOML and JSON buffers are left alone.
function M.attach(buf)
  buf = (buf == nil or buf == 0) and api.nvim_get_current_buf() or buf
  local root = paths.root(api.nvim_buf_get_name(buf))
  if not root or not binary_found() then
    return nil
  end
  local cfg = M.client_config()
  cfg.root_dir = root
  cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  local f = M.features()
  if f.start then
    return vim.lsp.start(cfg, { bufnr = buf })
  end
  local id = state.clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(cfg)
    state.clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(buf, id)
  end
  return id
end

--- Requests ------------------------------------------------------------

-- client_for returns the client of workspace, else of the current
-- buffer, else the only one running.
function M.client_for(workspace)
  local clients = get_clients()
  for _, c in ipairs(clients) do
    local root = c.config and c.config.root_dir
    if workspace and root and paths.normalize(root) == paths.normalize(workspace) then
      return c
    end
  end
  if workspace then
    -- The server judges the workspace: it denies one the editor did not
    -- open. Any client will do to ask.
    return clients[1]
  end
  local cur = api.nvim_get_current_buf()
  for _, c in ipairs(clients) do
    if c.attached_buffers and c.attached_buffers[cur] then
      return c
    end
  end
  return clients[1]
end

local function deny_decision(call, reason)
  return {
    decision = 'deny',
    layer = 0,
    layerName = 'editor',
    reason = reason,
    rule = vim.NIL,
    callId = type(call) == 'table' and call.callId or vim.NIL,
    trace = {},
    approval = vim.NIL,
  }
end

-- authorize asks codewhale-ls to decide call (an AuthorizeRequest) and
-- calls cb(decision) once with the final Decision: allow or deny. Any
-- failure (no server, a bad answer, the server gone) is a deny with
-- layer 0 ("editor") and the reason.
function M.authorize(call, cb)
  local answered = false
  local key
  local function done(d)
    if answered then
      return
    end
    answered = true
    if key then
      state.inflight[key] = nil
    end
    local ok, err = pcall(cb, d)
    if not ok then
      notify('authorize callback failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end
  if type(call) ~= 'table' then
    return done(deny_decision(nil, 'the call is not a table'))
  end
  local client = M.client_for(call.workspace)
  if not client then
    return done(deny_decision(call, 'codewhale-ls is not running: open a Codewhale policy file (.codewhale/config.toml, ~/.codewhale/permissions.toml) to start it'))
  end
  local req = vim.deepcopy(call)
  req.workspace = req.workspace or client.config.root_dir
  state.next_call = state.next_call + 1
  key = client.id .. ':' .. state.next_call
  state.inflight[key] = function(reason) done(deny_decision(call, reason)) end
  local ok, sent = pcall(client_request, client, 'codewhale/authorize', req, function(err, result)
    if err then
      return done(deny_decision(call, 'codewhale/authorize failed: ' .. tostring(err.message or vim.inspect(err))))
    end
    if type(result) ~= 'table' or (result.decision ~= 'allow' and result.decision ~= 'deny') then
      return done(deny_decision(call, 'codewhale/authorize answered without a final decision'))
    end
    done(result)
  end)
  if not ok or sent == false then
    done(deny_decision(call, 'codewhale/authorize could not be sent: ' .. tostring(ok and 'client stopped' or sent)))
  end
end

-- request sends method to the current client and calls cb(err, result).
function M.request(method, params, cb, workspace)
  local client = M.client_for(workspace)
  if not client then
    return cb({ message = 'codewhale-ls is not running' })
  end
  params = params or vim.NIL
  client_request(client, method, params, function(err, result) cb(err, result) end)
end

--- Completion ----------------------------------------------------------

-- byte_col is the byte column of an LSP position's character in line,
-- counted in the client's position encoding.
local function byte_col(line, character, encoding)
  if encoding == 'utf-8' then
    return math.min(character, #line)
  end
  local units, i = 0, 1
  while i <= #line and units < character do
    local c = line:byte(i)
    local len = c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
    units = units + ((encoding ~= 'utf-32' and len == 4) and 2 or 1)
    i = i + len
  end
  return i - 1
end

local omni = { items = {} }

-- omnifunc is 'omnifunc' completion (<C-x><C-o>) that inserts each
-- item's textEdit.newText over the range the server gave: Neovim 0.7's
-- vim.lsp.omnifunc put newText at the start of the keyword instead, so
-- `approval_policy = "` completed to `""never"` (issue 15 point 13).
-- Set on attach where the buffer has no omnifunc.
function M.omnifunc(findstart, base)
  if findstart == 1 then
    omni.items = {}
    local buf = api.nvim_get_current_buf()
    local client
    for _, c in ipairs(get_clients()) do
      if c.attached_buffers and c.attached_buffers[buf] then
        client = c
      end
    end
    local line = api.nvim_get_current_line()
    local col = api.nvim_win_get_cursor(0)[2]
    local keyword = vim.fn.match(line:sub(1, col), [[\k*$]])
    if not client then
      return -3 -- leave completion mode quietly
    end
    local enc = client.offset_encoding or 'utf-16'
    local params = vim.lsp.util.make_position_params(0, enc)
    local res
    if getmetatable(client) then
      res = client:request_sync('textDocument/completion', params, 2000, buf)
    else
      res = client.request_sync('textDocument/completion', params, 2000, buf)
    end
    local result = res and res.result
    local items = type(result) == 'table' and (result.items or result) or {}
    local start = keyword
    local found = {}
    for _, it in ipairs(items) do
      local te = it.textEdit
      local range = type(te) == 'table' and (te.range or te.insert)
      local s, word
      if range then
        s, word = byte_col(line, range.start.character, enc), te.newText
      else
        s, word = keyword, it.insertText or it.label
      end
      if type(word) == 'string' and s <= col then
        table.insert(found, { start = s, word = word, item = it })
        start = math.min(start, s)
      end
    end
    -- One start column for all: an item whose range starts later gets
    -- the text between the two in front of its newText.
    for _, f in ipairs(found) do
      local doc = f.item.documentation
      table.insert(omni.items, {
        word = line:sub(start + 1, f.start) .. f.word,
        abbr = f.item.label,
        menu = type(f.item.detail) == 'string' and f.item.detail or '',
        info = type(doc) == 'table' and doc.value or (type(doc) == 'string' and doc or ''),
        icase = 1,
        dup = 1,
      })
    end
    return start
  end
  local out = {}
  for _, it in ipairs(omni.items) do
    if it.word:sub(1, #base):lower() == base:lower() then
      table.insert(out, it)
    end
  end
  return out
end

--- Commands ------------------------------------------------------------

local function scratch(title, lines)
  vim.cmd('botright new')
  local buf = api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(api.nvim_buf_set_name, buf, title)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  return buf
end

local function str(v)
  if v == nil or v == vim.NIL then
    return '-'
  end
  if type(v) == 'table' then
    return vim.fn.json_encode(v)
  end
  return tostring(v)
end

-- codewhale_line is the Codewhale release the server decides as
-- (status.codewhale, contract.md §4): the release found, the behaviour
-- used, where it came from, and the server's note.
function M.codewhale_line(c)
  if type(c) ~= 'table' then
    return '-'
  end
  local line = string.format('%s (decides as %s; %s)', str(c.release), str(c.behaviour), str(c.source))
  if c.note ~= nil and c.note ~= vim.NIL and c.note ~= '' then
    line = line .. ': ' .. str(c.note)
  end
  return line
end

function M.status_lines(s)
  local lines = {
    'codewhale-ls ' .. str(s.version),
    'workspace:   ' .. str(s.workspace),
    'posture:     ' .. str(s.posture),
    'sandbox:     ' .. str(s.sandbox),
    'pending:     ' .. str(s.pendingApprovals),
    'codewhale:   ' .. M.codewhale_line(s.codewhale),
    'config:      ' .. str(s.configPath),
    'permissions: ' .. str(s.permissionsPath),
    'files:',
  }
  for _, f in ipairs(type(s.files) == 'table' and s.files or {}) do
    table.insert(lines, string.format('  %-8s %s', str(f.state), str(f.path)))
  end
  return lines
end

function M.status()
  M.request('codewhale/status', nil, function(err, s)
    if err or type(s) ~= 'table' then
      return notify('status: ' .. str(err and err.message or 'no answer'), vim.log.levels.ERROR)
    end
    scratch('codewhale://status', M.status_lines(s))
  end)
end

local layer_names = { 'posture', 'admission', 'hooks', 'baseline', 'permissions', 'auto-review', 'repo-law', 'approval', 'sandbox' }

-- explain_lines shows the nine layers, the one that decided marked.
function M.explain_lines(req, d)
  local lines = { string.format('%s %s in %s', req.tool, vim.fn.json_encode(req.input), str(req.workspace)),
    string.format('=> %s at layer %s (%s): %s', str(d.decision), str(d.layer), str(d.layerName), str(d.reason)) }
  if d.rule ~= nil and d.rule ~= vim.NIL then
    table.insert(lines, '   rule: ' .. str(d.rule))
  end
  local ran = {}
  for _, e in ipairs(type(d.trace) == 'table' and d.trace or {}) do
    ran[e.layer] = e
  end
  for i, lname in ipairs(layer_names) do
    local e = ran[i]
    local mark = (i == d.layer) and '=>' or '  '
    if e then
      table.insert(lines, string.format('%s %d %-12s %-8s %s', mark, i, lname, str(e.effect), str(e.detail)))
    else
      table.insert(lines, string.format('%s %d %-12s (not reached)', mark, i, lname))
    end
  end
  return lines
end

-- The field each of Codewhale's tools names its argument in, as the
-- gate reads them (docs/codewhale/pipeline.md, the adapter's fields;
-- gate/layer9_sandbox.go, gate/layer9_shellreads.go, gate/layer8_approval.go).
-- A tool of two fields takes its first word as the first field and the
-- rest as the second: `grep_files TODO src`.
local explain_fields = {
  exec_shell = { 'command' }, bash = { 'command' }, Bash = { 'command' }, task_shell_start = { 'command' },
  exec_shell_wait = { 'command' }, exec_shell_interact = { 'command' },
  read_file = { 'path' }, read = { 'path' }, write_file = { 'path' }, write = { 'path' },
  edit_file = { 'path' }, edit = { 'path' }, list_dir = { 'path' }, image_ocr = { 'path' }, read_media = { 'path' },
  grep_files = { 'pattern', 'path' }, file_search = { 'pattern', 'path' },
  fetch_url = { 'url' }, rlm_open = { 'url' }, web_search = { 'query' },
}
M.explain_fields = explain_fields

-- explain_input is the input of tool for :CodewhaleExplain's argument:
-- a JSON object as given, else the tool's own field(s) (command for a
-- tool not listed).
function M.explain_input(tool, arg)
  if arg:match('^%s*{') then
    local ok, v = pcall(vim.fn.json_decode, arg)
    if ok and type(v) == 'table' then
      return v
    end
    return nil, 'not a JSON object: ' .. arg
  end
  local fields = explain_fields[tool] or { 'command' }
  if #fields == 1 then
    return { [fields[1]] = arg }
  end
  local first, rest = arg:match('^(%S+)%s+(.+)$')
  if not first then
    return { [fields[1]] = arg }
  end
  return { [fields[1]] = first, [fields[2]] = rest }
end

-- explain shows how the policy judges tool with arg (see explain_input),
-- never prompting.
function M.explain(tool, arg, cb)
  local client = M.client_for(nil)
  local input, bad = M.explain_input(tool, arg)
  if not input then
    notify('explain: ' .. bad, vim.log.levels.ERROR)
    return cb and cb(nil)
  end
  local req = { tool = tool, input = input, workspace = client and client.config.root_dir }
  M.request('codewhale/explain', req, function(err, d)
    if err or type(d) ~= 'table' then
      notify('explain: ' .. str(err and err.message or 'no answer'), vim.log.levels.ERROR)
      return cb and cb(nil)
    end
    local buf = scratch('codewhale://explain', M.explain_lines(req, d))
    if cb then
      cb(d, buf)
    end
  end)
end

-- decision_log_path is where the server appends decisions.
function M.decision_log_path()
  local opt = M.options.decision_log
  if opt == false then
    return nil
  end
  if type(opt) == 'string' then
    return opt
  end
  return paths.codewhale_home() .. '/codewhale-ls/decisions.jsonl'
end

-- log opens the decision log, or, without one, the decisions received.
function M.log()
  local path = M.decision_log_path()
  if path and vim.loop.fs_stat(path) then
    vim.cmd('botright split ' .. vim.fn.fnameescape(path))
    vim.bo.readonly = true
    return
  end
  local lines = {}
  for _, d in ipairs(state.decisions) do
    table.insert(lines, vim.fn.json_encode(d))
  end
  scratch('codewhale://decisions', lines)
end

function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', M.options, opts or {})
  local f = M.features()
  local group = api.nvim_create_augroup('codewhale', { clear = true })
  if f.config then
    vim.lsp.config(name, M.client_config())
    vim.lsp.enable(name)
    -- vim.lsp.enable skips a server whose cmd is not executable, without
    -- a word: opening a policy file says so here.
    api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = { 'toml', 'json' },
      callback = function(args)
        if paths.root(api.nvim_buf_get_name(args.buf)) then
          binary_found()
        end
      end,
    })
    return
  end
  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = { 'toml', 'json' },
    callback = function(args) M.attach(args.buf) end,
  })
  -- Buffers opened before setup.
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      local ft = vim.bo[buf].filetype
      if ft == 'toml' or ft == 'json' then
        M.attach(buf)
      end
    end
  end
end

return M
