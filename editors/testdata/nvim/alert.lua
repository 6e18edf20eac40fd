-- alert = 'desktop' (nvim_alert_test.go): with Neovim not focused, each
-- approval runs notify-send, here a fake in $CWLS_DIR/fakebin that
-- appends its arguments to $CWLS_DIR/notify-send.log and then does what
-- $CWLS_DIR/notify-mode says (ok: exit 0, fail: exit 1, hang: sleep).
-- What the plugin sends the terminal (the fallback) is recorded too.
-- Results: per case, the lines notify-send got and what the terminal got.
local t = dofile(os.getenv('CWLS_LIB'))
local api = vim.api

local dir = t.env.dir
local ws = dir .. '/ws'
local fakebin = dir .. '/fakebin'

-- What the plugin writes to the terminal: 0.12 sends it to the UI
-- (nvim_ui_send), 0.7 writes the UI's stderr.
local sent = ''
api.nvim_ui_send = function(s) sent = sent .. s end
local stderr = io.stderr
io.stderr = { write = function(_, s) sent = sent .. s end }

local function log_lines()
  local f = io.open(dir .. '/notify-send.log')
  if not f then
    return {}
  end
  local out = {}
  for line in f:lines() do
    table.insert(out, line)
  end
  f:close()
  return out
end

t.main(function()
  vim.opt.runtimepath:prepend(t.env.plugin)
  vim.cmd('runtime plugin/codewhale.lua')
  local cw = require('codewhale')
  cw.setup({ cmd = { t.env.bin, 'serve' }, alert = 'desktop', serve_repositories = false })
  vim.cmd('edit ' .. ws .. '/.codewhale/config.toml')
  t.must(10000, 'the client', function() return #cw.clients() > 0 end)
  vim.cmd('doautocmd FocusLost')
  local path = vim.env.PATH
  local cases = {}
  for _, mode in ipairs({ 'ok', 'fail', 'hang', 'missing' }) do
    vim.fn.writefile({ mode }, dir .. '/notify-mode')
    vim.env.PATH = mode == 'missing' and path or (fakebin .. ':' .. path)
    local before = #log_lines()
    sent = ''
    local alerts = cw._state.alerts or 0
    cw.authorize({ tool = 'bash', input = { command = 'cargo test <b>' .. mode .. '</b>' }, workspace = ws, callId = mode }, function() end)
    t.must(10000, 'the alert', function() return (cw._state.alerts or 0) > alerts end)
    if mode == 'missing' then
      t.must(1000, 'the fallback', function() return sent ~= '' end)
    elseif mode == 'ok' then
      t.must(5000, 'notify-send', function() return #log_lines() > before end)
      t.wait(500, function() return sent ~= '' end) -- nothing else is sent
    else
      -- fail: at its exit; hang: at the timeout (5 s), which ends it.
      t.must(10000, 'the fallback', function() return sent ~= '' end)
    end
    local lines = log_lines()
    cases[mode] = { notify_send = vim.list_slice(lines, before + 1), terminal = sent }
  end
  io.stderr = stderr
  t.note('cases', cases)
end)
