-- Telling a user whose Neovim is not focused that an approval waits
-- (options.alert, |codewhale-alert|): the terminal bell, a desktop
-- notification through the terminal (OSC 777, which many terminals pass
-- on), or libnotify's notify-send, falling back to the terminal's
-- escape and the bell where notify-send is missing, fails or hangs.
local config = require('codewhale.config')
local prompt = require('codewhale.prompt')
local state = require('codewhale.state')

local M = {}
local api = vim.api
local uv = vim.loop

local title = 'Codewhale approval'

-- send writes seq to Neovim's terminal: 0.10+ runs the UI in another
-- process, which nvim_ui_send (0.12) reaches; before that the UI shares
-- this process's stderr.
---@param seq string
local function send(seq)
  if type(api.nvim_ui_send) == 'function' then
    pcall(api.nvim_ui_send, seq)
  else
    pcall(function() io.stderr:write(seq) end)
  end
end

-- terminal_notification is OSC 777's notify: no control character or
-- ';' of the call may end it early or add a field.
---@param what string
---@return string
local function terminal_notification(what)
  return '\27]777;notify;' .. title .. ';' .. (what:gsub('[%c;]', ' ')) .. '\7'
end

-- notify_send_timeout_ms bounds a notify-send: it returns at once where
-- a notification daemon answers, but one whose D-Bus hangs must not stay.
local notify_send_timeout_ms = 5000

-- notify_send_job is the notify-send running, if any: at most one, owned
-- here, stopped at its timeout (and by Neovim when it exits).
local notify_send_job = nil

-- desktop runs notify-send without waiting for it; on_fail runs if it
-- cannot start, exits with an error or times out. It returns false,
-- having run nothing, where notify-send is missing or still running
-- for an earlier approval.
---@param what string
---@param on_fail fun()
---@return boolean started
local function desktop(what, on_fail)
  if notify_send_job or vim.fn.executable('notify-send') ~= 1 then
    return false
  end
  -- The body is markup to many notification daemons: the call is shown
  -- as text.
  local body = what:gsub('&', '&amp;'):gsub('<', '&lt;'):gsub('>', '&gt;')
  local timer = uv.new_timer()
  local ok, job = pcall(vim.fn.jobstart, { 'notify-send', '--app-name=Neovim', '--urgency=critical', title, body }, {
    on_exit = function(_, code)
      notify_send_job = nil
      if not timer:is_closing() then
        timer:close()
      end
      if code ~= 0 then
        on_fail()
      end
    end,
  })
  if not ok or type(job) ~= 'number' or job <= 0 then
    timer:close()
    return false
  end
  notify_send_job = job
  timer:start(notify_send_timeout_ms, 0, vim.schedule_wrap(function()
    if notify_send_job == job then
      vim.fn.jobstop(job) -- on_exit then falls back
    end
  end))
  return true
end

-- alert tells that the approval p waits, as options.alert says.
---@param p codewhale.Prompt
function M.alert(p)
  local how = config.options.alert
  if how ~= 'bell' and how ~= 'notify' and how ~= 'desktop' then
    return
  end
  state.alerts = (state.alerts or 0) + 1
  local what = prompt.one_line(p)
  if how == 'bell' then
    send('\7')
  elseif how == 'notify' then
    send(terminal_notification(what))
  else
    local function fallback() send(terminal_notification(what) .. '\7') end
    if not desktop(what, fallback) then
      fallback()
    end
  end
end

return M
