-- §3 CW005: where it sits, what it says, and what virtual text shows on
-- each line (Neovim 0.7 shows the last diagnostic of a line).
local t = dofile(os.getenv('CWLS_LIB'))

t.run(function()
  local buf, diags = t.user_file('permissions.toml', function(d) return #d > 1 end)
  t.note('published', diags)
  -- What the virtual text handler displays, line by line.
  local shown = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    shown[tostring(d.lnum)] = d.message
  end
  t.note('virtual_text', shown)
end)
