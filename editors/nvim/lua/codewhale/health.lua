-- :checkhealth codewhale
local M = {}

-- Neovim 0.10+ has vim.health.start/ok/...; 0.7 has require('health').
local function reporter()
  local h = vim.health
  if type(h) == 'table' and type(h.start) == 'function' then
    return h
  end
  local old = require('health')
  return { start = old.report_start, ok = old.report_ok, info = old.report_info, warn = old.report_warn, error = old.report_error }
end

function M.check()
  local h = reporter()
  local cw = require('codewhale')
  h.start('codewhale-ls binary')
  local bin = cw.options.cmd[1]
  local path = vim.fn.exepath(bin)
  if path == '' then
    h.error(bin .. ' not found', { 'go install github.com/codewhale-ls/codewhale-ls/cmd/codewhale-ls@latest', 'or set cmd in require("codewhale").setup{}' })
  else
    local out = vim.fn.system({ path, 'version' })
    local plugin = require('codewhale.version')
    local server = out:match('^codewhale%-ls (%S+)')
    if vim.v.shell_error == 0 and server ~= plugin then
      h.warn(string.format('%s is codewhale-ls %s, this plugin %s: install the same version of both', path, tostring(server), plugin))
    elseif vim.v.shell_error == 0 then
      h.ok(path .. ': ' .. vim.trim(out))
    else
      h.error(path .. ' version failed: ' .. vim.trim(out))
    end
  end

  h.start('server')
  local clients = cw.clients()
  if #clients == 0 then
    h.warn('not running: open a Codewhale policy file (.codewhale/config.toml, ~/.codewhale/permissions.toml, ...)')
  end
  for _, c in ipairs(clients) do
    h.ok(string.format('client %d running for %s', c.id, tostring(c.config.root_dir)))
    local res
    if getmetatable(c) then
      res = c:request_sync('codewhale/status', vim.NIL, 5000)
    else
      res = c.request_sync('codewhale/status', vim.NIL, 5000)
    end
    if not res or res.err or type(res.result) ~= 'table' then
      h.error('codewhale/status: ' .. vim.inspect(res and res.err or 'no answer'))
    else
      local s = res.result
      local commands = require('codewhale.commands')
      h.info(string.format('posture %s, sandbox %s, %s approval(s) waiting', tostring(s.posture), commands.sandbox_text(s.sandbox), tostring(s.pendingApprovals)))
      -- The home's own server lists no project files (the server leaves
      -- them out of its status).
      for _, f in ipairs(type(s.files) == 'table' and s.files or {}) do
        local line = string.format('%s: %s', tostring(f.path), tostring(f.state))
        if f.state == 'invalid' then
          h.warn(line)
        else
          h.ok(line)
        end
      end
    end
  end

  h.start('editor features')
  local f = cw.features()
  h.ok('client started with ' .. f.path)
  local mode = cw._state.approval_mode
  h.info(mode and ('approval prompts: ' .. mode) or 'approval prompts: none yet this session')
  if cw.options.ui_select ~= true then
    h.info("approvals use codewhale's own card (ui_select = true would hand the choice to a picker plugin)")
  elseif cw._builtin_select() then
    h.info("ui_select = true, but vim.ui.select is Neovim's built-in (a blocking inputlist): approvals use codewhale's own card")
  else
    h.info('ui_select = true: approvals go to the picker plugin that replaces vim.ui.select, the card beside it takes the code')
  end
end

return M
