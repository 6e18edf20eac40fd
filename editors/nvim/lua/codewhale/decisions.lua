-- The server's decisions: codewhale/decision notifications kept for
-- :Codewhale log when the decision log is off, the permissions.toml
-- reloaded after an "always", and where the decision log is.
local config = require('codewhale.config')
local paths = require('codewhale.paths')
local state = require('codewhale.state')
local util = require('codewhale.util')

local M = {}
local api = vim.api

-- reload_permissions shows a rule "always" appended: a clean buffer of
-- that permissions.toml is reloaded, a modified one is left alone.
---@param path string|nil the permissions.toml written; nil: any
local function reload_permissions(path)
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) and paths.basename(api.nvim_buf_get_name(buf)) == 'permissions.toml'
      and (path == nil or paths.normalize(api.nvim_buf_get_name(buf)) == paths.normalize(path)) then
      if vim.bo[buf].modified then
        util.notify(api.nvim_buf_get_name(buf) .. ' has unsaved changes: not reloaded; the new rule is on disk', vim.log.levels.WARN)
      else
        api.nvim_buf_call(buf, function() vim.cmd('silent! edit') end)
      end
    end
  end
end

-- on_decision takes codewhale/decision.
function M.on_decision(_, d, ctx)
  if type(d) ~= 'table' then
    return
  end
  table.insert(state.decisions, d)
  while #state.decisions > config.options.keep_decisions do
    table.remove(state.decisions, 1)
  end
  if type(d.approval) == 'table' and d.approval.choice == 'always' then
    vim.schedule(function()
      local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
      if not client then
        return reload_permissions(nil)
      end
      util.client_request(client, 'codewhale/status', vim.NIL, function(err, status)
        reload_permissions(not err and type(status) == 'table' and status.permissionsPath or nil)
      end)
    end)
  end
end

-- log_path is where the server appends decisions; nil: no log.
---@return string|nil
function M.log_path()
  local opt = config.options.decision_log
  if opt == false then
    return nil
  end
  if type(opt) == 'string' then
    return opt
  end
  return paths.codewhale_home() .. '/codewhale-ls/decisions.jsonl'
end

return M
