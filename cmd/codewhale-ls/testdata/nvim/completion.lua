-- §3 completion: accept an item as Neovim 0.7's own completion does
-- (vim.lsp.omnifunc computes where the word starts and calls complete();
-- accepting replaces from there to the cursor with the item's word), and
-- as a client that applies the item's textEdit does.
local t = dofile(os.getenv('CWLS_LIB'))

t.run(function()
  local dir = t.env.dir
  t.start({ root_dir = dir })
  local cases = {
    { name = 'unclosed quote', file = 'permissions.toml', before = '[[rules]]\ntool = "exec_shell"\n', line = 'action = "', label = '"deny"' },
    { name = 'after equals', file = 'permissions.toml', before = '[[rules]]\ntool = "exec_shell"\n', line = 'action = ', label = '"deny"' },
    { name = 'dash in the word', file = 'config.toml', keep = true, line = 'approval_policy = "on-', label = '"on-request"' },
  }
  local out = {}
  for _, c in ipairs(cases) do
    local path = t.env.dir .. '/home/.codewhale/' .. c.file
    local buf = t.open(path)
    local lines = c.keep and vim.fn.readfile(path) or vim.split(c.before, '\n', true)
    if c.keep then table.insert(lines, c.line) else lines[#lines] = c.line end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.wo.virtualedit = 'onemore'
    local row = #lines
    vim.api.nvim_win_set_cursor(0, { row, #c.line })
    vim.bo[buf].omnifunc = 'v:lua.vim.lsp.omnifunc'

    -- Neovim's omnifunc, with complete() captured: it runs only in
    -- insert mode, which a headless script cannot hold.
    local started, items
    local real_mode, real_complete = vim.fn.mode, vim.fn.complete
    vim.fn.mode = function() return 'i' end
    vim.fn.complete = function(col, matches) started, items = col, matches end
    local ok, err = pcall(vim.lsp.omnifunc, 1, '')
    vim.wait(10000, function() return items ~= nil end, 10)
    vim.fn.mode, vim.fn.complete = real_mode, real_complete
    if not ok then error(err) end

    local result = { name = c.name }
    local item
    for _, m in ipairs(items or {}) do
      if m.abbr == c.label then item = m end
    end
    if item then
      local line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
      -- complete(col, ...) replaces from byte col (1-based) to the cursor.
      result.omnifunc = line:sub(1, started - 1) .. item.word .. line:sub(#c.line + 1)
      local ci = item.user_data.nvim.lsp.completion_item
      if ci.textEdit then
        local scratch = vim.api.nvim_create_buf(false, true)
        vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
        vim.lsp.util.apply_text_edits({ ci.textEdit }, scratch, 'utf-16')
        result.text_edit = vim.api.nvim_buf_get_lines(scratch, row - 1, row, false)[1]
      end
    else
      result.labels = vim.tbl_map(function(m) return m.abbr end, items or {})
    end
    table.insert(out, result)
    vim.cmd('bwipeout!')
  end
  t.note('completion', out)
end)
