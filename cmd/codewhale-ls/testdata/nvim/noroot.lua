-- §3 files outside a git repository, with no root (rootUri null, no
-- workspaceFolders): each project policy file opened gets diagnostics, and
-- codewhale/status shows the workspace.
local t = dofile(os.getenv('CWLS_LIB'))

t.run(function()
  t.start({})
  local project = t.env.dir .. '/project/.codewhale/'
  local codes, buf = {}, nil
  for _, name in ipairs({ 'config.toml', 'hooks.toml', 'constitution.json' }) do
    buf = t.open(project .. name)
    codes[name] = t.codes(t.diagnostics(project .. name, function(d) return #d > 0 end))
  end
  t.note('codes', codes)
  t.note('status', t.request(buf, 'codewhale/status', vim.NIL))
end)
