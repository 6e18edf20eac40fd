-- The commands: :Codewhale {subcommand} (status, explain, log), what
-- each shows, and the completion of its arguments. The old
-- :CodewhaleStatus, :CodewhaleExplain and :CodewhaleLog are aliases of
-- the subcommands (plugin/codewhale.lua).
local requests = require('codewhale.requests')
local util = require('codewhale.util')

local M = {}
local api = vim.api


-- scratch opens a read-only buffer of lines below the others.
---@param title string the buffer's name (codewhale://...)
---@param lines string[]
---@return integer buf
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

---@return string
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
-- used, where it came from, and the server's note. No release found or
-- named says so, rather than an empty word.
---@param c table|nil status.codewhale
---@return string
function M.codewhale_line(c)
  if type(c) ~= 'table' then
    return '-'
  end
  local release = c.release
  local source = str(c.source)
  if release == nil or release == vim.NIL or release == '' then
    release = source:sub(1, 10) == 'detecting:' and 'not known yet' or 'none found'
  end
  local line = string.format('%s (decides as %s; %s)', str(release), str(c.behaviour), source)
  -- "no Codewhale found" only repeats "none found".
  if c.note ~= nil and c.note ~= vim.NIL and c.note ~= '' and c.note ~= 'no Codewhale found' then
    line = line .. ': ' .. str(c.note)
  end
  return line
end

-- sandbox_text is the sandbox (status.sandbox, a Decision's sandbox) in
-- words: its type, the roots it lets be written and whether the network
-- is open.
---@param sb table|nil
---@return string
function M.sandbox_text(sb)
  if type(sb) ~= 'table' then
    return str(sb)
  end
  local parts = { str(sb.type) }
  if type(sb.writableRoots) == 'table' and #sb.writableRoots > 0 then
    table.insert(parts, 'writable: ' .. table.concat(vim.tbl_map(str, sb.writableRoots), ', '))
  end
  if sb.networkAccess == true then
    table.insert(parts, 'network on')
  elseif sb.networkAccess == false then
    table.insert(parts, 'network off')
  end
  return table.concat(parts, '; ')
end

-- status_lines is what :Codewhale status shows of a codewhale/status answer.
---@param s table
---@return string[]
function M.status_lines(s)
  local lines = {
    'codewhale-ls ' .. str(s.version) .. ' (this plugin ' .. require('codewhale.version') .. ')',
    'workspace:   ' .. str(s.workspace),
    'posture:     ' .. str(s.posture),
    'sandbox:     ' .. M.sandbox_text(s.sandbox),
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

-- status shows codewhale/status in a scratch buffer.
function M.status()
  requests.request('codewhale/status', nil, function(err, s)
    if err or type(s) ~= 'table' then
      return util.notify('status: ' .. str(err and err.message or 'no answer'), vim.log.levels.ERROR)
    end
    scratch('codewhale://status', M.status_lines(s))
  end)
end

local layer_names = { 'posture', 'admission', 'hooks', 'baseline', 'permissions', 'auto-review', 'repo-law', 'approval', 'sandbox' }

-- explain_lines shows the nine layers, the one that decided marked.
---@param req codewhale.AuthorizeRequest
---@param d codewhale.Decision
---@return string[]
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

-- explain_input is the input of tool for :Codewhale explain's argument:
-- a JSON object as given, else the tool's own field(s) (command for a
-- tool not listed).
---@param tool string
---@param arg string
---@return table|nil input, string|nil err
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
---@param tool string
---@param arg string
---@param cb fun(d: codewhale.Decision|nil, buf: integer|nil)|nil
function M.explain(tool, arg, cb)
  local client = requests.client_for(nil)
  local input, bad = M.explain_input(tool, arg)
  if not input then
    util.notify('explain: ' .. bad, vim.log.levels.ERROR)
    return cb and cb(nil)
  end
  local req = { tool = tool, input = input, workspace = client and client.config.root_dir }
  requests.request('codewhale/explain', req, function(err, d)
    if err or type(d) ~= 'table' then
      util.notify('explain: ' .. str(err and err.message or 'no answer'), vim.log.levels.ERROR)
      return cb and cb(nil)
    end
    local buf = scratch('codewhale://explain', M.explain_lines(req, d))
    if cb then
      cb(d, buf)
    end
  end)
end

-- log opens the decision log's view (logview.lua): the receipts the
-- filters select (`agent=codex decision=deny since=2h`), read by
-- `codewhale-ls log --json`.
---@param args string|nil
function M.log(args)
  require('codewhale.logview').open(args)
end

--- :Codewhale {subcommand} -----------------------------------------------

---@class codewhale.Subcommand
---@field desc string
---@field run fun(args: string) args: the text after the subcommand's name
---@field complete? fun(arglead: string, words: string[]): string[] words: the arguments before arglead

local function no_args(name, fn)
  return function(args)
    if args:match('%S') then
      return vim.notify('codewhale: :Codewhale ' .. name .. ' takes no argument', vim.log.levels.ERROR)
    end
    fn()
  end
end

---@param list string[]
---@param prefix string
---@return string[]
local function starting(list, prefix)
  return vim.tbl_filter(function(s) return s:sub(1, #prefix) == prefix end, list)
end

---@type table<string, codewhale.Subcommand>
M.subcommands = {
  status = {
    desc = 'posture, sandbox, files loaded, approvals waiting',
    run = no_args('status', function() M.status() end),
  },
  explain = {
    desc = 'how the nine layers judge a tool call: explain {tool} {argument}',
    run = function(args)
      local tool, arg = args:match('^(%S+)%s+(.+)$')
      if not tool then
        vim.notify('usage: :Codewhale explain {tool} {argument}, e.g. read_file .env, exec_shell git push, or {tool} {json}', vim.log.levels.ERROR)
        return
      end
      M.explain(tool, arg)
    end,
    -- The first argument is a tool: those whose field is known.
    complete = function(arglead, words)
      if #words > 0 then
        return {}
      end
      local tools = vim.tbl_keys(explain_fields)
      table.sort(tools)
      return starting(tools, arglead)
    end,
  },
  log = {
    desc = 'the decision log, filtered: log [since=2h] [agent=NAME] [decision=allow|ask|deny] [repo=DIR] [tool=NAME] [limit=N]',
    run = function(args) M.log(args) end,
    complete = function(arglead) return require('codewhale.logview').complete(arglead) end,
  },
}

-- names are the subcommands, sorted.
---@return string[]
function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

-- run runs `:Codewhale {line}`.
---@param line string the command's arguments: the subcommand, then its own
function M.run(line)
  local sub, rest = (line or ''):match('^%s*(%S*)%s*(.*)$')
  local cmd = M.subcommands[sub]
  if not cmd then
    local what = sub == '' and 'a subcommand is needed' or ('no subcommand ' .. sub)
    vim.notify('codewhale: ' .. what .. ': :Codewhale {' .. table.concat(M.names(), '|') .. '}', vim.log.levels.ERROR)
    return
  end
  cmd.run(rest)
end

-- complete is :Codewhale's completion (a 'complete' function, as 0.7
-- takes): the subcommands, then the subcommand's own arguments. sub, for
-- the old commands (:CodewhaleExplain), is the subcommand they stand for.
---@param arglead string the word being completed
---@param cmdline string
---@param cursorpos integer
---@param sub string|nil
---@return string[]
function M.complete(arglead, cmdline, cursorpos, sub)
  local words = {}
  for w in cmdline:sub(1, cursorpos):gmatch('%S+') do
    table.insert(words, w)
  end
  table.remove(words, 1) -- the command's name
  if arglead ~= '' then
    table.remove(words) -- arglead itself
  end
  if sub then
    table.insert(words, 1, sub)
  end
  if #words == 0 then
    return starting(M.names(), arglead)
  end
  local cmd = M.subcommands[words[1]]
  if cmd and cmd.complete then
    return cmd.complete(arglead, vim.list_slice(words, 2))
  end
  return {}
end

return M
