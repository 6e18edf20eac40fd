-- codewhale.nvim: codewhale-ls for Neovim 0.7 and later. It attaches to
-- Codewhale's policy files by path, serves the approvals of every
-- repository Neovim has open, answers the server's approval
-- prompts (codewhale/approve) with a prompt that cannot be answered by
-- accident, and lets Lua agent plugins hold their tool calls to the same
-- policy (authorize). The Neovim API used is chosen by feature
-- detection, never by version string.
--
-- This module is the public API; the work is done by one module per
-- concern:
--   config      the options of setup{}
--   state       the session's state (the queue, the decisions, ...)
--   client      starting the client per Neovim version, its handlers
--   approvals   the queue of approval prompts and their answers
--   prompt      the approval card
--   decisions   codewhale/decision, the permissions.toml reload, where the log is
--   requests    authorize and other requests to the server
--   commands    :Codewhale {subcommand} and what each shows
--   logview     :Codewhale log, the decision log's receipts, filtered
--   statusline  the statusline component
--   omnifunc    'omnifunc' completion
--   paths       which files are Codewhale's, and their workspace
--   repositories  serving every repository Neovim has open
--   alert       telling a user away from Neovim that an approval waits
--   health      :checkhealth codewhale
--   version     the plugin's version, codewhale-ls's own
local approvals = require('codewhale.approvals')
local client = require('codewhale.client')
local commands = require('codewhale.commands')
local config = require('codewhale.config')
local decisions = require('codewhale.decisions')
local omnifunc = require('codewhale.omnifunc')
local repositories = require('codewhale.repositories')
local requests = require('codewhale.requests')
local state = require('codewhale.state')
local statusline = require('codewhale.statusline')
local util = require('codewhale.util')

---@class codewhale
---@field options codewhale.Options the options in use (config.options)
local M = {}

-- version is the plugin's version, the same as codewhale-ls's.
M.version = require('codewhale.version')

-- M.options is config.options, read and assigned through M: a table
-- setup{} replaces stays the one every module reads.
setmetatable(M, {
  __index = function(_, k)
    if k == 'options' then
      return config.options
    end
  end,
  __newindex = function(t, k, v)
    if k == 'options' then
      config.options = v
    else
      rawset(t, k, v)
    end
  end,
})

M._state = state
M._builtin_select = approvals.builtin_select

-- features reports which Neovim API this session uses.
---@return codewhale.Features
M.features = client.features

-- clients lists the running codewhale_ls clients.
---@return table[]
M.clients = util.get_clients

-- statusline is for 'statusline' / lualine: the number of approvals
-- waiting, or '' when none.
---@return string
M.statusline = statusline.get

-- client_config is the configuration every code path starts the client
-- with (vim.lsp.config's lsp/codewhale_ls.lua returns it too).
---@return table
M.client_config = client.config

-- attach starts (or reuses) the client of buf's workspace when buf is one
-- of Codewhale's files; other TOML and JSON buffers are left alone.
---@param buf integer|nil
---@return integer|nil client_id
M.attach = client.attach

-- client_for returns the client of workspace, else of the current
-- buffer, else the only one running.
---@param workspace string|nil
---@return table|nil
M.client_for = requests.client_for

-- authorize asks codewhale-ls to decide call (an AuthorizeRequest) and
-- calls cb(decision) once with the final Decision: allow or deny. Any
-- failure (no server, a bad answer, the server gone) is a deny with
-- layer 0 ("editor") and the reason.
---@param call codewhale.AuthorizeRequest
---@param cb fun(decision: codewhale.Decision)
M.authorize = requests.authorize

-- request sends method to the current client and calls cb(err, result).
---@param method string
---@param params any
---@param cb fun(err: table|nil, result: any)
---@param workspace string|nil
M.request = requests.request

-- omnifunc is 'omnifunc' completion that inserts each item's textEdit
-- over the range the server gave.
M.omnifunc = omnifunc.omnifunc

M.codewhale_line = commands.codewhale_line
M.status_lines = commands.status_lines
M.status = commands.status
M.explain_lines = commands.explain_lines
M.explain_fields = commands.explain_fields
M.explain_input = commands.explain_input
M.explain = commands.explain
M.log = commands.log

-- decision_log_path is where the server appends decisions.
---@return string|nil
M.decision_log_path = decisions.log_path

-- setup merges opts into the options and starts the client for
-- Codewhale's files and, from VimEnter, for every repository Neovim has
-- open (doc/codewhale.txt, |codewhale-setup|, |codewhale-repositories|).
---@param opts codewhale.SetupOptions|nil
function M.setup(opts)
  config.set(opts)
  client.setup()
  repositories.setup()
end

return M
