-- A user's init.lua (nvim -u), for the tests that start Neovim as a
-- person does, on a file of a repository (nvim_repos_test.go): the plugin
-- from $CWLS_PLUGIN set up with the server $CWLS_BIN, nothing else;
-- CWLS_SERVE_REPOSITORIES=0 sets serve_repositories = false, and
-- CWLS_SETUP adds options as a Lua table's text.
vim.opt.runtimepath:prepend(os.getenv('CWLS_PLUGIN'))
local opts = { cmd = { os.getenv('CWLS_BIN'), 'serve' } }
if os.getenv('CWLS_SERVE_REPOSITORIES') == '0' then
  opts.serve_repositories = false
end
local extra = os.getenv('CWLS_SETUP')
if extra and extra ~= '' then
  opts = vim.tbl_extend('force', opts, assert(loadstring('return ' .. extra))())
end
require('codewhale').setup(opts)

-- :CwState writes the codewhale_ls clients running to $CWLS_DIR/state.json
-- (whole, then renamed): each one's workspace and the files attached.
vim.api.nvim_create_user_command('CwState', function()
  local clients = {}
  for _, c in ipairs(require('codewhale').clients()) do
    local files = {}
    for buf in pairs(c.attached_buffers or {}) do
      table.insert(files, vim.api.nvim_buf_get_name(buf))
    end
    table.insert(clients, { id = c.id, root = c.config.root_dir, files = files })
  end
  local dir = os.getenv('CWLS_DIR')
  vim.fn.writefile({ vim.fn.json_encode({ clients = clients }) }, dir .. '/state.tmp')
  vim.loop.fs_rename(dir .. '/state.tmp', dir .. '/state.json')
end, {})
