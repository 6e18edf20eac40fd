-- §3 shutdown: stop the client as Neovim does (shutdown, then exit; the
-- server's stdin stays open) and see how the process ends.
local t = dofile(os.getenv('CWLS_LIB'))

t.run(function()
  local client = t.start({ root_dir = t.env.dir })
  t.note('log_path', vim.lsp.get_log_path())
  local start = vim.loop.hrtime()
  client.stop()
  local exited = vim.wait(10000, function() return t.exit ~= nil end, 5)
  t.note('exit_ms', (vim.loop.hrtime() - start) / 1e6)
  t.note('exited', exited)
  t.note('exit', t.exit)
end)
