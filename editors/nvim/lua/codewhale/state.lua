-- The plugin's state in this Neovim session, owned here and nowhere
-- else (none of it is kept in vim.g): the clients started by hand, the
-- approvals waiting, the decisions received, the authorize calls not
-- answered yet, the decision log's views and whether Neovim has the focus.

---@class codewhale.State
---@field clients table<string, integer> workspace root -> id of the client the plugin started for it (client.serve, client.attach)
---@field queue codewhale.Entry[] approvals waiting, oldest first; the first is on the screen
---@field decisions table[] codewhale/decision notifications received, the newest last (options.keep_decisions of them)
---@field inflight table<string, fun(reason: string)> authorize calls not answered yet: "clientid:n" -> their deny
---@field next_call integer the n of the last authorize call's key
---@field approval_mode string|nil how the last prompt arrived, for :checkhealth
---@field alerts integer|nil bells or notifications sent for prompts while unfocused
---@field log_views table<integer, codewhale.LogView> the decision log's views open: buffer -> view (logview.lua)
---@field focused boolean false from FocusLost until FocusGained (plugin/codewhale.lua)

---@type codewhale.State
local state = {
  clients = {},
  queue = {},
  decisions = {},
  inflight = {},
  next_call = 0,
  log_views = {},
  focused = true,
}

return state
