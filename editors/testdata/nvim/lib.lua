-- Shared by the scripts of editors/nvim_test.go. A script's body runs in
-- a coroutine that yields while it waits, so Neovim is back in its main
-- loop meanwhile and processes typed keys (nvim_input) as a user's: the
-- prompt's mappings fire as they would for a person. Results go to
-- $CWLS_OUT as JSON for the Go test to judge.
local M = dofile(os.getenv('CWLS_RESULTS'))
M.env.plugin = os.getenv('CWLS_PLUGIN')
M.env.case = os.getenv('CWLS_CASE')
local finish = M.write_and_quit

local body

-- float_count is how many floating windows are open (prompts, pickers,
-- the user's own).
function M.float_count()
  local n = 0
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      n = n + 1
    end
  end
  return n
end

-- wait yields until pred() holds or ms pass; it returns whether it held.
function M.wait(ms, pred)
  local co = coroutine.running()
  local deadline = vim.loop.now() + ms
  local timer = vim.loop.new_timer()
  timer:start(10, 10, function()
    vim.schedule(function()
      if timer:is_closing() then
        return
      end
      local ok, held = pcall(pred)
      if (ok and held) or vim.loop.now() >= deadline then
        timer:stop()
        timer:close()
        local resumed, err = coroutine.resume(co, ok and held)
        if not resumed then
          M.fail(debug.traceback(co, tostring(err)))
          finish()
        end
      end
    end)
  end)
  return coroutine.yield()
end

-- must waits like wait and fails the script when pred never holds.
function M.must(ms, what, pred)
  if not M.wait(ms, pred) then
    error('timed out waiting for ' .. what, 2)
  end
end

-- main runs fn as the script's body and writes the results when it ends
-- (or fails).
function M.main(fn)
  if vim.lsp.log and vim.lsp.log.set_level then
    vim.lsp.log.set_level('debug')
  else
    vim.lsp.set_log_level('debug')
  end
  body = coroutine.create(function()
    local ok, err = xpcall(fn, debug.traceback)
    if not ok then
      M.fail(tostring(err))
    end
    finish()
  end)
  local ok, err = coroutine.resume(body)
  if not ok then
    M.fail(tostring(err))
    finish()
  end
end

function M.ms_since(t0)
  return (vim.loop.hrtime() - t0) / 1e6
end

function M.lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

-- find_buf returns the buffer whose name ends with suffix.
function M.find_buf(suffix)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local n = vim.api.nvim_buf_get_name(b)
    if n:sub(-#suffix) == suffix then
      return b
    end
  end
end

return M
