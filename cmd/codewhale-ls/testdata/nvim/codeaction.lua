-- §3 quick fixes: the cursor on the diagnostic's line but outside its
-- range; the context is what Neovim 0.7's vim.lsp.buf.code_action sends.
local t = dofile(os.getenv('CWLS_LIB'))

t.run(function()
  local buf, diags = t.user_file('config.toml', function(d) return #d > 0 end)
  local target
  for _, d in ipairs(diags or {}) do
    if d.code == 'CW602' then target = d end
  end
  if not target then
    error('no CW602 published: ' .. vim.inspect(diags))
  end
  -- Column 0 of the line; the finding is the value further right.
  vim.api.nvim_win_set_cursor(0, { target.range.start.line + 1, 0 })
  local params = vim.lsp.util.make_range_params()
  params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf) }
  local actions = t.request(buf, 'textDocument/codeAction', params) or {}
  t.note('cursor', params.range.start)
  t.note('diagnostic_range', target.range)
  t.note('context_codes', t.codes(params.context.diagnostics))
  t.note('titles', vim.tbl_map(function(a) return a.title end, actions))
end)
