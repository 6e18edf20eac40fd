-- Shared by the scripts of nvim_test.go: start codewhale-ls with
-- vim.lsp.start_client (no plugin), wait for what a test needs with
-- bounded waits, and write the results as JSON for the Go test.
local M = dofile(os.getenv('CWLS_RESULTS'))
M.published, M.prompts = {}, {}
M.finish = M.write_and_quit

-- run calls body, recording an error instead of dying without results.
function M.run(body)
  if type(vim.lsp.start_client) ~= 'function' then
    M.fail('this Neovim has no vim.lsp.start_client')
    M.finish()
    return
  end
  vim.lsp.set_log_level('debug')
  local ok, err = xpcall(body, debug.traceback)
  if not ok then
    M.fail(tostring(err))
  end
  M.finish()
end

-- start starts the server. opts: root_dir, workspace_folders, approve (the
-- codewhale/approve answer function).
function M.start(opts)
  opts = opts or {}
  local handlers = {
    ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
      M.published[vim.uri_to_fname(result.uri)] = result.diagnostics
      return vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, config)
    end,
  }
  if opts.approve then
    handlers['codewhale/approve'] = function(_, prompt)
      table.insert(M.prompts, prompt)
      return opts.approve(prompt)
    end
  end
  M.client_id = vim.lsp.start_client({
    name = 'codewhale-ls',
    cmd = { M.env.bin, 'serve', '--stdio' },
    root_dir = opts.root_dir,
    workspace_folders = opts.workspace_folders,
    init_options = { approvals = 'codewhale' },
    handlers = handlers,
    on_exit = function(code, signal)
      M.exit = { code = code, signal = signal }
    end,
  })
  if not M.client_id then
    error('start_client failed')
  end
  if not vim.wait(10000, function()
    local c = vim.lsp.get_client_by_id(M.client_id)
    return c and c.initialized
  end, 10) then
    error('the server did not initialize')
  end
  return vim.lsp.get_client_by_id(M.client_id)
end

-- open edits path in a new buffer attached to the client.
function M.open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, M.client_id)
  return buf
end

-- diagnostics waits until the server published for path (and pred, if
-- given, holds) and returns them.
function M.diagnostics(path, pred)
  vim.wait(10000, function()
    local d = M.published[path]
    return d ~= nil and (pred == nil or pred(d))
  end, 10)
  return M.published[path]
end

-- request sends a request and waits for its answer.
function M.request(buf, method, params)
  local res = vim.lsp.buf_request_sync(buf, method, params, 10000)
  if not res or not res[M.client_id] then
    error(method .. ': no answer')
  end
  if res[M.client_id].err then
    error(method .. ': ' .. vim.inspect(res[M.client_id].err))
  end
  return res[M.client_id].result
end

-- user_file starts the server, opens a file of the user's codewhale home
-- and waits for its diagnostics to hold pred.
function M.user_file(name, pred)
  M.start({ root_dir = M.env.dir })
  local path = M.env.dir .. '/home/.codewhale/' .. name
  local buf = M.open(path)
  return buf, M.diagnostics(path, pred)
end

function M.codes(diagnostics)
  local out = {}
  for _, d in ipairs(diagnostics or {}) do
    table.insert(out, d.code)
  end
  table.sort(out)
  return out
end

return M
