-- §3 CW005: where it sits, what it says, and what virtual text shows on
-- each line (Neovim 0.7 shows the last diagnostic of a line).
local t = dofile(os.getenv('CWLS_LIB'))

t.run(function()
  t.start({ root_dir = t.env.dir })
  local path = t.env.dir .. '/home/.codewhale/permissions.toml'
  local buf = t.open(path)
  local diags = t.diagnostics(path, function(d) return #d > 1 end)
  t.note('published', diags)
  -- What the virtual text handler displays, line by line.
  local shown = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    shown[tostring(d.lnum)] = d.message
  end
  t.note('virtual_text', shown)
end)
