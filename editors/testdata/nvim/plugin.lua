-- The plugin as a user runs it: setup{}, a broken permissions.toml and
-- its quick fix, every answer to an approval prompt typed into the
-- prompt, the commands, :checkhealth and the help file.
-- CWLS_CASE=timeout instead lets one prompt pass its deadline.
local t = dofile(os.getenv('CWLS_LIB'))
local api = vim.api

local home = t.env.dir .. '/home/.codewhale'
local ws = t.env.dir .. '/ws'
local permissions = home .. '/permissions.toml'

local cw

-- head is the prompt on the screen.
local function head()
  for _, e in ipairs(cw._state.queue) do
    if e.card then
      return e
    end
  end
end

-- visible: the oldest prompt's card is on the screen.
local function visible()
  local e = head()
  return e and e.card and e.card.win and api.nvim_win_is_valid(e.card.win)
end

-- authorize sends a bash call and returns a table that gets .decision.
local function authorize(command)
  local call = { t0 = vim.loop.hrtime() }
  cw.authorize({ tool = 'bash', input = { command = command }, workspace = ws, callId = command }, function(d)
    call.decision = d
  end)
  return call
end

local function decided(call, what)
  t.must(20000, what .. ' decided', function() return call.decision ~= nil end)
  local d = call.decision
  return { decision = d.decision, layer = d.layer, reason = d.reason, choice = type(d.approval) == 'table' and d.approval.choice or nil }
end

-- answer types keys into the card the way a user would. First keys
-- meant for a buffer as it takes the keyboard (<CR>, j, y, and the
-- choice's own code right after another key): nothing is answered. Then,
-- once the card has been left untouched long enough to be armed, the
-- deliberate act: the choice's code, d for Deny, or <Esc>.
local function answer(choice_id)
  local e = head()
  t.must(10000, 'the card to take the keys', function() return e.card.focused end)
  local card = e.card
  local code = card.codes[choice_id] or card.codes.once
  local keys = (card.keys or 0) + 11
  api.nvim_input('<CR>jjj<CR>yy<CR>' .. code)
  t.must(5000, 'the stray keys to be handled', function() return e.done or (card.keys or 0) >= keys end)
  if e.done then
    error('keys meant for a buffer (<CR>jjj<CR>yy<CR> and a code) answered the prompt')
  end
  t.must(10000, 'the card to arm', function() return card.armed end)
  if choice_id == nil then
    api.nvim_input('<Esc>')
  elseif choice_id == 'deny' then
    api.nvim_input('d')
  elseif card.codes[choice_id] then
    api.nvim_input(card.codes[choice_id])
  else
    error('choice ' .. choice_id .. ' not offered: ' .. vim.inspect(card.choices))
  end
end

local function prompt_seen(call, name)
  t.must(10000, 'the prompt for ' .. name, visible)
  local e = head()
  local seen = {
    ms = t.ms_since(call.t0),
    choices = vim.tbl_map(function(c) return c.id end, e.card.choices),
    lines = e.card:all_lines(),
    statusline = cw.statusline(),
  }
  return seen
end

local function diagnostics_of(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(out, { code = code, lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col, message = d.message, severity = d.severity, source = d.source })
  end
  return out
end

local function has_code(buf, code)
  for _, d in ipairs(diagnostics_of(buf)) do
    if d.code == code then
      return d
    end
  end
end

-- quick_fix asks for the code actions of diagnostic d and applies the
-- one that fixes it.
local function quick_fix(buf, d)
  local client = cw.client_for(nil)
  local range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = range,
    context = { diagnostics = { { range = range, message = d.message, code = d.code, source = d.source, severity = d.severity } } },
  }
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000) or {}
  local actions = res[client.id] and res[client.id].result or {}
  for _, a in ipairs(actions) do
    if a.edit then
      vim.lsp.util.apply_workspace_edit(a.edit, 'utf-16')
      return a.title
    end
  end
  error('no quick fix with an edit: ' .. vim.inspect(actions))
end

local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  return api.nvim_get_current_buf()
end

local function scratch_lines(name)
  local buf
  t.must(10000, name, function()
    buf = t.find_buf(name)
    return buf ~= nil and #t.lines(buf) > 1
  end)
  local lines = t.lines(buf)
  vim.cmd('silent! bwipeout! ' .. buf)
  return lines
end

local function timeout_case()
  open(ws .. '/.codewhale/config.toml')
  t.must(10000, 'the client', function() return #cw.clients() > 0 end)
  -- With Neovim not focused, the prompt is announced as well.
  local notified = {}
  local notify = vim.notify
  vim.notify = function(msg, level)
    table.insert(notified, msg)
    return notify(msg, level)
  end
  vim.cmd('doautocmd FocusLost')
  local call = authorize('cargo test')
  t.note('prompt', prompt_seen(call, 'the call left to time out'))
  t.must(5000, 'the notification', function() return #notified > 0 end)
  t.note('notified', notified)
  t.note('alerts', cw._state.alerts or 0)
  -- The focus is the plugin's own state, not a global of the user's.
  local lost = { state = cw._state.focused, global = vim.g.codewhale_focused ~= nil }
  vim.cmd('doautocmd FocusGained')
  t.note('focus', { lost = lost, gained = cw._state.focused })
  vim.notify = notify
  t.note('floats_open', t.float_count())
  -- The editor goes on while the prompt waits: a request is answered.
  local status
  cw.request('codewhale/status', nil, function(err, s) status = err or s end)
  t.must(5000, 'codewhale/status while a prompt waits', function() return status ~= nil end)
  t.note('pending_while_waiting', status.pendingApprovals)
  t.note('codewhale', status.codewhale)
  t.note('hardening', status.hardening)
  t.note('decision', decided(call, 'the timed-out call'))
  t.must(5000, 'the prompt to close', function() return not visible() end)
  t.note('floats_after', t.float_count())
  t.note('queue_after', #cw._state.queue)
  t.note('statusline_after', cw.statusline())

  -- A picker plugin's prompt past its deadline: its window is closed
  -- (where the handler can wait for a picker plugin at all).
  do
    cw.options.ui_select = true
    local builtin = vim.ui.select
    local picker_win
    vim.ui.select = function()
      local b = api.nvim_create_buf(false, true)
      picker_win = api.nvim_open_win(b, true, { relative = 'editor', row = 1, col = 1, width = 20, height = 3 })
    end
    call = authorize('cargo run')
    t.must(10000, "the picker plugin's window", function() return picker_win ~= nil end)
    -- A float the user opens meanwhile (a hover, say) is not the picker's.
    vim.wait(100)
    local hover = api.nvim_open_win(api.nvim_create_buf(false, true), false, { relative = 'editor', row = 6, col = 1, width = 20, height = 2 })
    t.note('plugin_picker', decided(call, "the picker plugin's call"))
    t.must(5000, "the picker plugin's window to close", function() return not api.nvim_win_is_valid(picker_win) end)
    t.note('user_float_kept', api.nvim_win_is_valid(hover))
    pcall(api.nvim_win_close, hover, true)
    vim.ui.select = builtin
    cw.options.ui_select = false
  end

  -- The server gone while a prompt waits: the call is denied, the
  -- prompt closed.
  call = authorize('cargo bench')
  prompt_seen(call, 'the prompt of a server about to stop')
  vim.lsp.stop_client(cw.client_for(ws).id, true)
  t.note('stopped', decided(call, 'the call of a stopped server'))
  t.must(5000, 'the prompt to close', function() return not visible() end)
  t.note('floats_after_stop', t.float_count())
end

local function main_case()
  -- No server yet: an agent's call is denied by the plugin itself.
  local early = authorize('cargo test')
  t.note('no_server', decided(early, 'a call with no server'))
  -- Another agent's call (through `codewhale-ls hook`) names the agent.
  t.note('hook_prompt_lines', require('codewhale.prompt').lines({ id = 'x', tool = 'bash', summary = 'git push', reason = 'r', layer = 8,
    agent = 'codex', codewhale = '0.10.1', choices = {}, deadline = '2026-12-02T00:00:00Z' }, 0))
  -- Text a server failed to escape is escaped by the plugin: nothing
  -- can reorder or hide what the card shows.
  local P = require('codewhale.prompt')
  t.note('escaped', {
    visible = P.visible('a\u{202e}b\tc\u{200b}d\u{a0}e\255'),
    lines = P.lines({ id = 'y', tool = 'exec_shell', inputs = { { field = 'command', text = 'ls \u{2067}x\u{2069}\nrm -rf /', escaped = 0, hidden = 0 } },
      reason = 'r', layer = 8, choices = {}, deadline = '2026-12-02T00:00:00Z' }, 0),
  })
  table.insert(cw._state.queue, { prompt = { id = 'x', agent = 'codex' } })
  t.note('hook_statusline', cw.statusline())
  table.remove(cw._state.queue)

  -- helptags parses the help file; :help finds its tags.
  vim.cmd('helptags ' .. vim.fn.fnameescape(t.env.plugin .. '/doc'))
  vim.cmd('help codewhale-approvals')
  t.note('help', api.nvim_buf_get_name(0))
  vim.cmd('close')
  -- :help codewhale is the plugin's help, at its top.
  vim.cmd('help codewhale')
  t.note('help_top', { name = api.nvim_buf_get_name(0), line = api.nvim_get_current_line() })
  vim.cmd('close')

  -- A broken permissions.toml: diagnostics, then its quick fix.
  local t0 = vim.loop.hrtime()
  local pbuf = open(permissions)
  -- Every namespace that ever shows findings for it: one per client, or
  -- the user sees each finding twice.
  local namespaces = {}
  api.nvim_create_autocmd('DiagnosticChanged', { buffer = pbuf, callback = function()
    for _, d in ipairs(vim.diagnostic.get(pbuf)) do
      namespaces[tostring(d.namespace)] = true
    end
  end })
  t.must(10000, 'diagnostics of permissions.toml', function() return has_code(pbuf, 'CW208') end)
  t.note('open_to_diagnostics_ms', t.ms_since(t0))
  t.note('diagnostics', diagnostics_of(pbuf))
  t.note('fix_title', quick_fix(pbuf, has_code(pbuf, 'CW208')))
  t.note('fixed_lines', t.lines(pbuf))
  vim.cmd('write')
  t.must(10000, 'CW208 to clear', function() return not has_code(pbuf, 'CW208') end)

  -- Other TOML files are not Codewhale's: no client attaches.
  local other = open(ws .. '/Cargo.toml')
  local attached = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = other }) or vim.lsp.buf_get_clients(other)
  t.note('other_toml_clients', vim.tbl_count(attached))

  open(ws .. '/.codewhale/config.toml')
  t.must(10000, 'the workspace client', function() return cw.client_for(ws) and cw.client_for(ws).config.root_dir == ws end)
  t.note('clients', #cw.clients())

  -- Completion through the plugin's omnifunc inserts the server's
  -- textEdit over its range.
  do
    local buf = api.nvim_get_current_buf()
    api.nvim_buf_set_lines(buf, 0, -1, false, { 'approval_policy = "' })
    api.nvim_win_set_cursor(0, { 1, #'approval_policy = "' })
    local omnifunc = vim.bo[buf].omnifunc
    local line = api.nvim_get_current_line()
    local start = cw.omnifunc(1, '')
    local words = {}
    for _, it in ipairs(cw.omnifunc(0, line:sub(start + 1))) do
      table.insert(words, line:sub(1, start) .. it.word)
    end
    t.note('completion', { omnifunc = omnifunc, lines = words, start = start, line = line })
    vim.cmd('silent! edit!')
  end


  local answers = {}
  for _, case in ipairs({
    { name = 'once', command = 'cargo test', choice = 'once' },
    { name = 'deny', command = 'cargo build', choice = 'deny' },
    { name = 'esc', command = 'cargo check', choice = nil },
    { name = 'always', command = 'cargo fmt', choice = 'always' },
  }) do
    local call = authorize(case.command)
    local seen = prompt_seen(call, case.name)
    answer(case.choice)
    seen.result = decided(call, case.name)
    answers[case.name] = seen
  end
  -- A prompt that arrives in insert mode reads no key until the user
  -- leaves insert mode: what they type goes on into their buffer.
  do
    local before = api.nvim_get_current_buf()
    api.nvim_input('Go')
    t.must(5000, 'insert mode', function() return api.nvim_get_mode().mode == 'i' end)
    local call = authorize('cargo tree')
    t.must(10000, 'the card over insert mode', visible)
    api.nvim_input('let obj = 1;<CR>yield')
    t.must(5000, 'the typing', function() return vim.fn.getchar(1) == 0 and api.nvim_get_current_line() == 'yield' end)
    local seen = { mode = api.nvim_get_mode().mode, same_buffer = api.nvim_get_current_buf() == before, focused = head().card.focused }
    api.nvim_input('<Esc>')
    t.must(5000, 'the card to take the keys after insert mode', function() return head() and head().card.focused end)
    answer('deny')
    seen.result = decided(call, 'a prompt over insert mode')
    seen.typed = api.nvim_buf_get_lines(before, -3, -1, false)
    answers.from_insert = seen
    api.nvim_buf_call(before, function() vim.cmd('silent! edit!') end)
  end
  t.must(10000, 'permissions.toml reloaded with the new rule', function()
    return table.concat(t.lines(pbuf), '\n'):find('cargo fmt', 1, true) ~= nil
  end)
  t.note('reloaded_lines', t.lines(pbuf))
  t.note('permissions_modified_after_reload', api.nvim_buf_get_option(pbuf, 'modified'))

  -- A modified permissions.toml buffer is never reloaded under the user:
  -- the plugin warns instead, once it has looked at the buffer.
  api.nvim_buf_set_lines(pbuf, -1, -1, false, { '# unsaved' })
  local warned = false
  local notify = vim.notify
  vim.notify = function(msg, level)
    if tostring(msg):find('has unsaved changes: not reloaded', 1, true) then
      warned = true
    end
    return notify(msg, level)
  end
  local call = authorize('cargo clippy')
  prompt_seen(call, 'always with unsaved edits')
  answer('always')
  answers.always_unsaved = { result = decided(call, 'always with unsaved edits') }
  t.must(10000, 'the warning that the modified buffer was not reloaded', function() return warned end)
  vim.notify = notify
  t.note('unsaved_lines', t.lines(pbuf))
  vim.cmd('silent! edit!')

  -- Two prompts at once: one on the screen, the other waiting.
  local a, b = authorize('make a'), authorize('make b')
  t.must(10000, 'two prompts queued', function() return #cw._state.queue == 2 and visible() end)
  t.note('queued', { statusline = cw.statusline(), lines = head().card:all_lines(), floats = t.float_count() })
  answer('deny')
  t.must(20000, 'one of the two decided', function() return a.decision ~= nil or b.decision ~= nil end)
  t.must(10000, 'the other prompt', visible)
  answer('deny')
  decided(a, 'the first queued')
  decided(b, 'the second queued')

  -- A picker plugin's vim.ui.select, opted into (ui_select): it gets one
  -- line and Deny first, and its pick of "session" still needs the code
  -- typed in the card.
  local builtin = vim.ui.select
  local picked = {}
  vim.ui.select = function(items, opts, on_choice)
    picked.items = vim.tbl_map(function(c) return c.id end, items)
    picked.prompt = opts.prompt
    picked.kind = opts.kind
    for _, c in ipairs(items) do
      if c.id == 'session' then
        vim.defer_fn(function() on_choice(c, 1) end, 10)
      end
    end
  end
  cw.options.ui_select = true
  call = authorize('cargo doc')
  answers.session = prompt_seen(call, 'session')
  t.must(10000, 'the pick', function() return head() and head().card.picked ~= nil end)
  answers.session.picker = call.decision == nil and 'plugin, then the code' or 'plugin alone'
  answer('session')
  answers.session.result = decided(call, 'session')
  answers.session.picked = picked
  cw.options.ui_select = false
  vim.ui.select = builtin
  t.note('answers', answers)
  t.note('approval_mode', cw._state.approval_mode)
  t.note('features', cw.features().path)

  -- The workspace's server publishing the user's permissions.toml (it
  -- lints it too): shown only from the home's client, which owns it.
  do
    local other = cw.client_for(ws)
    local handler = (other.handlers and other.handlers['textDocument/publishDiagnostics'])
      or (other.config.handlers and other.config.handlers['textDocument/publishDiagnostics'])
      or vim.lsp.handlers['textDocument/publishDiagnostics']
    handler(nil, { uri = vim.uri_from_bufnr(pbuf), diagnostics = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 1 } },
      message = 'from the other server', code = 'CWOTHER', severity = 2, source = 'codewhale' } } },
      { client_id = other.id, method = 'textDocument/publishDiagnostics' }, {})
    t.note('other_server_diagnostics', has_code(pbuf, 'CWOTHER') ~= nil)
  end
  t.note('permissions_namespaces', vim.tbl_count(namespaces))

  vim.cmd('CodewhaleExplain read_file .env')
  t.note('explain_env', scratch_lines('codewhale://explain'))
  vim.cmd('CodewhaleExplain exec_shell cargo publish')
  t.note('explain', scratch_lines('codewhale://explain'))
  vim.cmd('CodewhaleStatus')
  t.note('status', scratch_lines('codewhale://status'))
  -- :Codewhale log is a view over `codewhale-ls log --json`
  -- (logview.lua), read in a job: its lines once read.
  local function log_view()
    t.must(20000, 'the log view to be read', function()
      local l = api.nvim_buf_get_lines(0, 3, 4, false)[1]
      return l ~= nil and not l:match('^Reading')
    end)
    return { name = api.nvim_buf_get_name(0), lines = t.lines(0) }
  end
  vim.cmd('CodewhaleLog')
  t.note('log', log_view())
  vim.cmd('close')
  -- :Codewhale {subcommand} does what the old commands do (they are
  -- its aliases), and completes its subcommands and explain's tools.
  vim.cmd('Codewhale explain read_file .env')
  t.note('sub_explain_env', scratch_lines('codewhale://explain'))
  vim.cmd('Codewhale status')
  t.note('sub_status', scratch_lines('codewhale://status'))
  -- What the status shows of a release none found and of a sandbox.
  t.note('status_render', cw.status_lines({ version = '0.1.0', workspace = '/w', posture = 'ask', pendingApprovals = 0, files = {},
    sandbox = { type = 'workspace-write', writableRoots = { '/w', '/tmp' }, networkAccess = false },
    codewhale = { release = '', behaviour = '0.10.1', source = 'default: no codewhale on PATH', note = 'no Codewhale found' } }))
  vim.cmd('Codewhale log decision=deny')
  t.note('sub_log', log_view())
  vim.cmd('close')
  local function complete(line) return vim.fn.getcompletion(line, 'cmdline') end
  t.note('sub_complete', {
    subs = complete('Codewhale '),
    st = complete('Codewhale st'),
    tools = complete('Codewhale explain rea'),
    second = complete('Codewhale explain read_file '),
    status = complete('Codewhale status '),
    old = complete('CodewhaleExplain rea'),
    commands = vim.fn.getcompletion('Codewhale', 'command'),
  })
  do
    local said = {}
    local notify = vim.notify
    vim.notify = function(msg) table.insert(said, msg) end
    vim.cmd('Codewhale')
    vim.cmd('Codewhale nope')
    vim.cmd('Codewhale explain read_file')
    vim.notify = notify
    t.note('sub_wrong', said)
  end
  vim.cmd('checkhealth codewhale')
  t.note('health', t.lines(0))
end

t.main(function()
  vim.opt.runtimepath:prepend(t.env.plugin)
  vim.cmd('runtime plugin/codewhale.lua')
  cw = require('codewhale')
  if t.env.case == 'timeout-start' then
    -- Neovim 0.8-0.10's way, in a Neovim that has it (0.12) but with
    -- vim.lsp.enable hidden, as those versions lack it.
    vim.lsp.enable = nil
  end
  local notified = {}
  if t.env.case == 'nobinary' then
    -- codewhale-ls missing: opening a policy file says so.
    local notify = vim.notify
    vim.notify = function(msg, level)
      table.insert(notified, msg)
      return notify(msg, level)
    end
    cw.setup({ cmd = { t.env.dir .. '/bin/not-there', 'serve' } })
    open(ws .. '/.codewhale/config.toml')
    t.must(5000, 'a word about the missing binary', function() return #notified > 0 end)
    t.note('notified', notified)
    -- The log view says what to do.
    vim.cmd('Codewhale log')
    t.must(5000, 'the log view to fail', function() return #t.lines(0) > 4 end)
    t.note('log_missing', t.lines(0))
    t.note('clients', #cw.clients())
    return
  end
  cw.setup({
    cmd = { t.env.bin, 'serve' },
    approval_timeout = t.env.case == 'main' and 120 or 2,
    -- Named, so that a codewhale installed on this machine changes nothing.
    codewhale_version = '0.10.1',
    -- Off here, so that the server is seen to take the option.
    hardening = false,
    -- The policy files' workspaces alone: nvim_repos_test.go serves
    -- repositories.
    serve_repositories = false,
  })
  t.note('features', cw.features().path)
  if t.env.case == 'nobinary' then
    return
  elseif t.env.case ~= 'main' then
    timeout_case()
  else
    main_case()
  end
end)
