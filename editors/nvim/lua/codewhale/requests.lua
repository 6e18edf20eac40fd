-- Requests to the server: which client answers, authorize (agent
-- plugins' tool calls decided by the same policy) and any other request.
local paths = require('codewhale.paths')
local state = require('codewhale.state')
local util = require('codewhale.util')

local M = {}
local api = vim.api

---@class codewhale.AuthorizeRequest (docs/codewhale/contract.md)
---@field tool string
---@field input table<string, any>
---@field workspace string|nil default: the client's workspace
---@field callId string|nil

---@class codewhale.Decision the server's final answer to codewhale/authorize
---@field decision 'allow'|'deny'
---@field layer integer 0 ("editor") when the editor denied it itself
---@field layerName string
---@field reason string
---@field rule string|userdata
---@field callId string|userdata
---@field trace table[]
---@field approval table|userdata

-- client_for returns the client of workspace, else of the current
-- buffer, else the only one running.
---@param workspace string|nil
---@return table|nil client
function M.client_for(workspace)
  local clients = util.get_clients()
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

---@return codewhale.Decision
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
---@param call codewhale.AuthorizeRequest
---@param cb fun(decision: codewhale.Decision)
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
      util.notify('authorize callback failed: ' .. tostring(err), vim.log.levels.ERROR)
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
  local ok, sent = pcall(util.client_request, client, 'codewhale/authorize', req, function(err, result)
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

-- deny_client denies the authorize calls of a client that exited.
---@param client_id integer
function M.deny_client(client_id)
  for key, deny in pairs(state.inflight) do
    if key:match('^' .. client_id .. ':') then
      deny('codewhale-ls exited before deciding')
    end
  end
end

-- request sends method to the client of workspace (client_for) and
-- calls cb(err, result).
---@param method string
---@param params any
---@param cb fun(err: table|nil, result: any)
---@param workspace string|nil
function M.request(method, params, cb, workspace)
  local client = M.client_for(workspace)
  if not client then
    return cb({ message = 'codewhale-ls is not running' })
  end
  params = params or vim.NIL
  util.client_request(client, method, params, function(err, result) cb(err, result) end)
end

return M
