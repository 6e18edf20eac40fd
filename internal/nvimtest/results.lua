-- The Lua half of nvimtest.ReadResults, shared by the real-Neovim test
-- scripts (cmd/codewhale-ls, editors): what a script notes and the errors
-- it meets, written as one JSON object to $CWLS_OUT. The Go test writes
-- this file beside the scripts and names it in $CWLS_RESULTS.
local M = { results = {}, errors = {} }

M.env = {
  bin = os.getenv('CWLS_BIN'),
  out = os.getenv('CWLS_OUT'),
  dir = os.getenv('CWLS_DIR'),
}

function M.note(key, value)
  M.results[key] = value
end

function M.fail(msg)
  table.insert(M.errors, msg)
end

-- write_and_quit writes the results and quits; every exit of a script
-- goes here.
function M.write_and_quit()
  M.results.errors = M.errors
  local f = assert(io.open(M.env.out, 'w'))
  f:write(vim.fn.json_encode(M.results))
  f:close()
  vim.cmd('qall!')
end

return M
