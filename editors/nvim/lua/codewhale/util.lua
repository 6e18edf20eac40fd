-- Small helpers every module of codewhale.nvim uses: messages, the
-- statusline's redraw and the LSP client calls that differ between
-- Neovim versions (feature detection, never a version string).
local M = {}

-- name is the client's name (and lsp/codewhale_ls.lua's).
M.name = 'codewhale_ls'

---@param msg string
---@param level integer|nil a vim.log.levels value; INFO by default
function M.notify(msg, level)
  vim.schedule(function() vim.notify('codewhale: ' .. msg, level or vim.log.levels.INFO) end)
end

function M.redraw_status()
  vim.schedule(function() pcall(vim.cmd, 'redrawstatus!') end)
end

-- client_request is client:request on 0.11+ (a method), client.request
-- before (a field).
---@param client table a vim.lsp client
---@param method string
---@param params any
---@param handler fun(err: table|nil, result: any)
---@param bufnr integer|nil
---@return boolean sent, integer|nil request_id
function M.client_request(client, method, params, handler, bufnr)
  if getmetatable(client) then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

-- get_clients lists the running codewhale_ls clients.
---@return table[] clients
function M.get_clients()
  if type(vim.lsp.get_clients) == 'function' then
    return vim.lsp.get_clients({ name = M.name })
  end
  return vim.tbl_filter(function(c) return c.name == M.name end, vim.lsp.get_active_clients())
end

return M
