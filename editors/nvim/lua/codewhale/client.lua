-- Starting the client, the way the running Neovim can, found by feature
-- detection: for a policy file vim.lsp.config and vim.lsp.enable (0.11+),
-- else vim.lsp.start (0.8+), else vim.lsp.start_client with
-- vim.lsp.buf_attach_client (0.7); for a repository with no file
-- attached, vim.lsp.start with attach = false (0.11+), else
-- vim.lsp.start_client. One client per workspace whichever way started it.
local approvals = require('codewhale.approvals')
local config = require('codewhale.config')
local decisions = require('codewhale.decisions')
local paths = require('codewhale.paths')
local requests = require('codewhale.requests')
local state = require('codewhale.state')
local util = require('codewhale.util')

local M = {}
local api = vim.api

---@class codewhale.Features
---@field config boolean vim.lsp.config and vim.lsp.enable exist (0.11+)
---@field start boolean vim.lsp.start exists (0.8+)
---@field start_client boolean vim.lsp.start_client exists
---@field path 'vim.lsp.config'|'vim.lsp.start'|'vim.lsp.start_client' the way this session starts the client

-- features reports which Neovim API this session uses.
---@return codewhale.Features
function M.features()
  local lsp = vim.lsp
  local f = {}
  f.config = type(lsp.config) == 'table' and type(lsp.enable) == 'function'
  f.start = type(lsp.start) == 'function'
  f.start_client = type(lsp.start_client) == 'function'
  if f.config then
    f.path = 'vim.lsp.config'
  elseif f.start then
    f.path = 'vim.lsp.start'
  else
    f.path = 'vim.lsp.start_client'
  end
  return f
end

-- publish_diagnostics shows a file's findings from one client only: the
-- one whose workspace owns the file (paths.root). The server of another
-- workspace lints the same file (the user's permissions.toml applies to
-- every workspace) and publishes it too, and Neovim would show each
-- finding once per client (issue 15 point 11).
local function publish_diagnostics(err, result, ctx, cfg)
  if type(result) == 'table' and type(result.uri) == 'string' and ctx and ctx.client_id then
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    local owner = paths.root(vim.uri_to_fname(result.uri))
    local root = client and client.config and client.config.root_dir
    if owner and root and paths.normalize(owner) ~= paths.normalize(root) then
      for _, c in ipairs(util.get_clients()) do
        if c.config and c.config.root_dir and paths.normalize(c.config.root_dir) == paths.normalize(owner) then
          return -- the owner's client publishes it
        end
      end
    end
  end
  return vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, cfg)
end

-- binary_found tells, once, when the server cannot be started: 0.11+'s
-- vim.lsp.enable would otherwise fail without a word on opening a file.
local told_missing = false
---@return boolean
function M.binary_found()
  local bin = config.options.cmd and config.options.cmd[1]
  if type(bin) == 'string' and vim.fn.executable(bin) == 1 then
    return true
  end
  if not told_missing then
    told_missing = true
    util.notify(tostring(bin) .. ' not found: install codewhale-ls (see :help codewhale-setup) or set cmd in setup{}; :checkhealth codewhale', vim.log.levels.ERROR)
  end
  return false
end

-- config is the configuration every code path starts the client with
-- (vim.lsp.config's lsp/codewhale_ls.lua returns it too).
---@return table
function M.config()
  local o = config.options
  local init = { approvals = 'codewhale', approvalsAsync = true }
  init.config = o.config
  init.approvalTimeoutSeconds = o.approval_timeout
  init.decisionLog = o.decision_log
  init.codewhaleVersion = o.codewhale_version
  if o.hardening == false then
    init.hardening = false
  end
  -- Only false is sent: unset, the user's settings.toml decides.
  if o.log_inputs == false then
    init.logInputs = false
  end
  return {
    name = util.name,
    cmd = o.cmd,
    filetypes = { 'toml', 'json' },
    init_options = init,
    handlers = {
      ['codewhale/approve'] = approvals.approve,
      ['codewhale/approvalRequested'] = approvals.approval_requested,
      ['codewhale/approvalWithdrawn'] = approvals.approval_withdrawn,
      ['codewhale/decision'] = decisions.on_decision,
      ['textDocument/publishDiagnostics'] = publish_diagnostics,
    },
    on_attach = function(_, bufnr)
      -- Neovim 0.7 sets no omnifunc, and its vim.lsp.omnifunc inserts
      -- newText at the keyword's start, not at the edit's range: ours
      -- honours the range. A buffer with an omnifunc keeps it.
      if vim.bo[bufnr].omnifunc == '' then
        vim.bo[bufnr].omnifunc = "v:lua.require'codewhale'.omnifunc"
      end
    end,
    on_exit = function(_, _, client_id)
      vim.schedule(function()
        requests.deny_client(client_id)
        approvals.withdraw_client(client_id)
        for root, id in pairs(state.clients) do
          if id == client_id then
            state.clients[root] = nil
          end
        end
      end)
    end,
    -- vim.lsp.config (0.11+): attach only to Codewhale's files.
    root_dir = function(bufnr, on_dir)
      local root = paths.root(api.nvim_buf_get_name(bufnr))
      if root and M.binary_found() then
        on_dir(root)
      end
    end,
  }
end

-- workspace_config is the client's configuration for the workspace root.
---@param root string
---@return table
local function workspace_config(root)
  local cfg = M.config()
  cfg.root_dir = root
  cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  return cfg
end

-- running returns the id of the client serving workspace root, whichever
-- way it was started: by serve (state.clients, which also holds a client
-- 0.7 has not initialized yet and so does not list) or by
-- vim.lsp.enable on opening a policy file (0.11+).
---@param root string a normalized path
---@return integer|nil
local function running(root)
  local id = state.clients[root]
  if id and vim.lsp.get_client_by_id(id) then
    return id
  end
  for _, c in ipairs(util.get_clients()) do
    local dir = c.config and c.config.root_dir
    if type(dir) == 'string' and paths.normalize(dir) == root then
      return c.id
    end
  end
  return nil
end

-- serve returns the client of workspace root, starting its server when
-- none runs: one server per workspace, shared by its policy files and by
-- the approvals of its repository (|codewhale-repositories|). A client
-- started here is attached to no buffer; 0.11+'s vim.lsp.enable reuses it
-- for the workspace's policy files (same name, same workspace folder).
---@param root string
---@return integer|nil client_id
function M.serve(root)
  root = paths.normalize(root)
  local id = running(root)
  if id or not M.binary_found() then
    return id
  end
  local cfg = workspace_config(root)
  if M.features().config then
    -- vim.lsp.start_client is deprecated there (a warning on use).
    id = vim.lsp.start(cfg, { attach = false })
  else
    id = vim.lsp.start_client(cfg)
  end
  state.clients[root] = id
  return id
end

-- attach starts (or reuses) the client of buf's workspace when buf is one
-- of Codewhale's files; other TOML and JSON buffers are left alone.
---@param buf integer|nil 0 or nil: the current buffer
---@return integer|nil client_id
function M.attach(buf)
  buf = (buf == nil or buf == 0) and api.nvim_get_current_buf() or buf
  local root = paths.root(api.nvim_buf_get_name(buf))
  if not root or not M.binary_found() then
    return nil
  end
  if M.features().start then
    -- 0.8-0.10: vim.lsp.start reuses the client serve started (same
    -- name and root_dir); serve finds the one started here by its id.
    local id = vim.lsp.start(workspace_config(root), { bufnr = buf })
    state.clients[root] = id
    return id
  end
  local id = M.serve(root)
  if id then
    vim.lsp.buf_attach_client(buf, id)
  end
  return id
end

-- setup starts the client for Codewhale's files from now on, and for
-- those already open.
function M.setup()
  local f = M.features()
  local group = api.nvim_create_augroup('codewhale', { clear = true })
  if f.config then
    vim.lsp.config(util.name, M.config())
    vim.lsp.enable(util.name)
    -- vim.lsp.enable skips a server whose cmd is not executable, without
    -- a word: opening a policy file says so here.
    api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = { 'toml', 'json' },
      callback = function(args)
        if paths.root(api.nvim_buf_get_name(args.buf)) then
          M.binary_found()
        end
      end,
    })
    return
  end
  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = { 'toml', 'json' },
    callback = function(args) M.attach(args.buf) end,
  })
  -- Buffers opened before setup.
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      local ft = vim.bo[buf].filetype
      if ft == 'toml' or ft == 'json' then
        M.attach(buf)
      end
    end
  end
end

return M
