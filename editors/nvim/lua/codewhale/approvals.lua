-- The approvals queue: the server's prompts (codewhale/approvalRequested,
-- or codewhale/approve from a server that predates approvalsAsync), shown
-- one at a time with prompt.lua's card, oldest first, each answered once.
local alert = require('codewhale.alert')
local config = require('codewhale.config')
local prompt = require('codewhale.prompt')
local state = require('codewhale.state')
local util = require('codewhale.util')

local M = {}

---@class codewhale.Choice
---@field id string 'deny', 'once', 'session', 'always', ...
---@field title string|nil

---@class codewhale.Prompt the params of codewhale/approvalRequested (docs/codewhale/contract.md §4)
---@field id string
---@field tool string|nil
---@field summary string|nil
---@field reason string|nil
---@field layer integer|nil
---@field rule string|nil
---@field agent string|nil the agent whose call it is (codewhale-ls hook AGENT)
---@field deadline string|nil RFC 3339
---@field choices codewhale.Choice[]|nil

---@alias codewhale.Answer {choice: string}|userdata an answer, or vim.NIL: dismissed, a deny

---@class codewhale.Entry one approval in the queue
---@field prompt codewhale.Prompt
---@field client_id integer|nil
---@field reply fun(answer: codewhale.Answer)|nil sends the answer back the way it was asked
---@field card table|nil the card on the screen (prompt.open), once shown
---@field deadline_timer userdata|nil closes the entry at the deadline
---@field done boolean|nil answered
---@field answer codewhale.Answer|nil
---@field withdrawn boolean|nil the server stopped waiting: nothing is sent back

-- The built-in vim.ui.select is inputlist(), which blocks the editor and
-- reads keys typed for something else: it is never used for approvals.
-- A picker plugin that replaces it is, if the user opts in (ui_select).
---@return boolean
function M.builtin_select()
  local info = debug.getinfo(vim.ui.select, 'S')
  return info ~= nil and info.source:match('vim/ui%.lua$') ~= nil
end

local show_next

-- finish answers an entry once, removes it from the queue and shows the
-- next. answer is {choice = id} or vim.NIL (dismissed: a deny).
---@param entry codewhale.Entry
---@param answer codewhale.Answer
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
  util.redraw_status()
  vim.schedule(show_next)
end

---@param choice codewhale.Choice|nil
---@return codewhale.Answer
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
    picker = config.options.ui_select == true and not M.builtin_select(),
  })
end

-- withdraw ends the prompt id without an answer: the server stopped
-- waiting (or is gone, or the deadline passed), and its call is denied.
---@param id string
function M.withdraw(id)
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

-- withdraw_client ends every prompt of a client that exited: a server
-- gone without withdrawing its prompts leaves none up.
---@param client_id integer
function M.withdraw_client(client_id)
  for _, entry in ipairs(vim.deepcopy(state.queue)) do
    if entry.client_id == client_id then
      M.withdraw(entry.prompt.id)
    end
  end
end

-- The deadline closes the prompt even if the server's withdrawal is lost.
---@param entry codewhale.Entry
local function arm_deadline(entry)
  local at = prompt.deadline_epoch(entry.prompt.deadline)
  if not at then
    return
  end
  local ms = math.max(0, (at - os.time()) * 1000)
  entry.deadline_timer = vim.loop.new_timer()
  entry.deadline_timer:start(ms + 1000, 0, vim.schedule_wrap(function() M.withdraw(entry.prompt.id) end))
end

-- enqueue adds a prompt the server asks; reply(answer) sends the answer
-- back the way it was asked.
---@param p codewhale.Prompt
---@param client_id integer|nil
---@param reply fun(answer: codewhale.Answer)|nil
---@return codewhale.Entry
local function enqueue(p, client_id, reply)
  ---@type codewhale.Entry
  local entry = { prompt = p, client_id = client_id, reply = reply }
  table.insert(state.queue, entry)
  for _, e in ipairs(state.queue) do
    if e.card then
      e.card:render() -- "N more waiting"
    end
  end
  arm_deadline(entry)
  util.redraw_status()
  if state.focused == false then
    util.notify('an approval is waiting', vim.log.levels.WARN)
    alert.alert(p)
  end
  vim.schedule(show_next)
  return entry
end

-- approval_requested takes codewhale/approvalRequested, the server's
-- prompt when the client asked for approvalsAsync (always: see
-- client.config); the answer goes back as the request
-- codewhale/answerApproval. A handler that returns at once is the only
-- kind Neovim 0.7 has for a server request, so every Neovim uses this
-- one way, and the editor is never held while a prompt waits.
function M.approval_requested(_, p, ctx)
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
      util.client_request(client, 'codewhale/answerApproval', { id = p.id, choice = choice }, function(err)
        if err then
          -- The prompt stopped waiting first (deadline, cancel): denied.
          util.notify('too late: that prompt had already ended, and its call was denied', vim.log.levels.WARN)
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
function M.approve(_, p, ctx)
  if type(p) ~= 'table' or type(p.id) ~= 'string' then
    return vim.NIL
  end
  local co, main = coroutine.running()
  local yieldable = co ~= nil and not main and (coroutine.isyieldable == nil or coroutine.isyieldable())
  if not yieldable then
    state.approval_mode = 'denied: this codewhale-ls predates approvalsAsync and this Neovim cannot wait for an answer'
    util.notify('codewhale-ls asked with codewhale/approve, which this Neovim cannot answer later: denied; update codewhale-ls', vim.log.levels.ERROR)
    return vim.NIL
  end
  state.approval_mode = 'answered from a suspended coroutine (codewhale/approve; the editor stays usable)'
  local entry = enqueue(p, ctx and ctx.client_id, nil)
  entry.reply = function(answer)
    vim.schedule(function() coroutine.resume(co, answer) end)
  end
  return coroutine.yield()
end

-- approval_withdrawn takes codewhale/approvalWithdrawn.
function M.approval_withdrawn(_, params)
  if type(params) == 'table' and type(params.id) == 'string' then
    vim.schedule(function() M.withdraw(params.id) end)
  end
end

return M
