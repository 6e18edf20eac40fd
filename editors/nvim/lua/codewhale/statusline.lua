-- The statusline component: the approvals waiting.
local state = require('codewhale.state')

local M = {}

-- get is for 'statusline' / lualine: the number of approvals waiting,
-- and whose they are, or '' when none.
---@return string
function M.get()
  local n = #state.queue
  if n == 0 then
    return ''
  end
  -- Other agents' calls (codewhale-ls hook AGENT) say whose they are.
  local agents, seen = {}, {}
  for _, e in ipairs(state.queue) do
    local a = e.prompt.agent
    if type(a) == 'string' and a ~= '' and not seen[a] then
      seen[a] = true
      table.insert(agents, a)
    end
  end
  local who = #agents > 0 and ' (' .. table.concat(agents, ', ') .. ')' or ''
  return string.format('CW: %d approval%s waiting%s', n, n == 1 and '' or 's', who)
end

return M
