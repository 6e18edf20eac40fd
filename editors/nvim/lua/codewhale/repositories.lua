-- Serving the approvals of every repository Neovim has open (issue 25,
-- |codewhale-repositories|): an agent's hook in a repository finds the
-- editor only if a server serves that workspace, and most repositories
-- have no .codewhale/ to open. So from VimEnter the plugin serves the
-- repository of the working directory, of every :cd, :tcd and :lcd after
-- it, and of every buffer of a file in another git work tree: one server
-- per repository (client.serve), kept until Neovim exits. A repository
-- without a policy file costs the idle server only: it lints nothing.
local client = require('codewhale.client')
local config = require('codewhale.config')
local paths = require('codewhale.paths')

local M = {}
local api = vim.api

-- serve starts (or finds) the server of root, after the current event:
-- starting a client runs no autocommand's work inside another's.
---@param root string|nil
local function serve(root)
  if root then
    vim.schedule(function() client.serve(root) end)
  end
end

-- serve_buffer serves the git work tree of buf's file; a file outside
-- any work tree adds none (the working directory's is served already).
---@param buf integer
local function serve_buffer(buf)
  if not api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= '' then
    return
  end
  local name = api.nvim_buf_get_name(buf)
  if name:sub(1, 1) == '/' then
    serve(paths.repository(paths.dirname(name), false))
  end
end

-- setup serves from now on (options.serve_repositories); it is called by
-- every setup{}, and a later setup{ serve_repositories = false } stops
-- serving new repositories (servers running go on until Neovim exits).
function M.setup()
  local group = api.nvim_create_augroup('codewhale_repositories', { clear = true })
  if config.options.serve_repositories == false then
    return
  end
  -- Before VimEnter nothing is started, so start-up is not slowed; at
  -- VimEnter the working directory's repository and those of the
  -- buffers opened from the command line are served.
  local function serve_all()
    serve(paths.repository(vim.fn.getcwd(), true))
    for _, buf in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(buf) then
        serve_buffer(buf)
      end
    end
  end
  if vim.v.vim_did_enter == 1 then
    serve_all()
  else
    api.nvim_create_autocmd('VimEnter', { group = group, once = true, callback = serve_all })
  end
  api.nvim_create_autocmd('DirChanged', {
    group = group,
    callback = function()
      if vim.v.vim_did_enter == 1 then
        -- v:event.cwd: the new directory, whatever the scope (global,
        -- tabpage, window).
        serve(paths.repository(vim.v.event.cwd, true))
      end
    end,
  })
  api.nvim_create_autocmd({ 'BufReadPost', 'BufEnter' }, {
    group = group,
    callback = function(args)
      if vim.v.vim_did_enter == 1 then
        serve_buffer(args.buf)
      end
    end,
  })
end

return M
