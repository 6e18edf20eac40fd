-- §3 workspace/didChangeWorkspaceFolders as Neovim 0.7 sends it
-- (vim.lsp.buf.add_workspace_folder: `removed` holds an empty object).
local t = dofile(os.getenv('CWLS_LIB'))

local function authorize(buf, workspace)
  return t.request(buf, 'codewhale/authorize', {
    tool = 'bash', input = { command = 'cargo test' }, workspace = workspace,
  })
end

t.run(function()
  local first, added, unknown = t.env.dir .. '/first', t.env.dir .. '/added', t.env.dir .. '/unknown'
  t.start({ root_dir = first, approve = function() return { choice = 'once' } end })
  local buf = t.open(first .. '/.codewhale/config.toml')
  vim.lsp.buf.add_workspace_folder(added)
  local overlay = added .. '/.codewhale/config.toml'
  t.note('added_codes', t.codes(t.diagnostics(overlay, function(d) return #d > 0 end)))
  t.note('added', authorize(buf, added))
  t.note('unknown', authorize(buf, unknown))
end)
