-- The options of setup{} (doc/codewhale.txt, |codewhale-setup-options|):
-- their defaults and the values in use. Every module reads them here.
local M = {}

---@class codewhale.Options
---@field cmd string[] the server command
---@field config string|nil path of the user config.toml (initializationOptions.config); nil: the server's default
---@field approval_timeout integer|nil seconds a prompt waits; nil: the server's default
---@field decision_log string|false|nil path of the decision log, false for none, nil: the server's default
---@field codewhale_version string|nil the Codewhale release to decide as ("0.10.1"); nil: the codewhale on the server's PATH, else the newest release codewhale-ls implements
---@field hardening boolean false: Codewhale's decision alone, the hardening layer (which only tightens, docs/hardening.md) off
---@field log_inputs boolean|nil false: the receipts of the decisions made here keep no input (initializationOptions.logInputs); nil: the server's settings.toml decides (log_inputs, default true)
---@field keep_decisions integer decisions kept in memory for :Codewhale log when decision_log is false
---@field ui_select boolean true: approvals go to vim.ui.select where a picker plugin replaces it (the card stays beside it and still takes the code); false: always the plugin's own card
---@field alert 'bell'|'notify'|'desktop'|false when Neovim is not focused, a waiting approval: 'bell' rings the terminal's bell, 'notify' asks the terminal for a desktop notification (OSC 777), 'desktop' runs notify-send (else OSC 777 and the bell), false does none of them (a message is always shown)
---@field serve_repositories boolean true: serve the approvals of the working directory's repository and of every buffer's (|codewhale-repositories|); false: only of the workspaces of the policy files opened

---@class codewhale.SetupOptions: codewhale.Options
---@field cmd? string[]
---@field hardening? boolean
---@field keep_decisions? integer
---@field ui_select? boolean
---@field alert? 'bell'|'notify'|'desktop'|false
---@field serve_repositories? boolean

---@type codewhale.Options
M.options = {
  cmd = { 'codewhale-ls', 'serve' },
  config = nil,
  approval_timeout = nil,
  decision_log = nil,
  codewhale_version = nil,
  hardening = true,
  log_inputs = nil,
  keep_decisions = 200,
  ui_select = false,
  alert = 'bell',
  serve_repositories = true,
}

-- set merges opts into the options in use: a later setup{} changes only
-- what it names.
---@param opts codewhale.SetupOptions|nil
function M.set(opts)
  M.options = vim.tbl_deep_extend('force', M.options, opts or {})
end

return M
