-- Which buffers are Codewhale's policy files, and the workspace each one
-- belongs to. Pure functions over paths (and the file system's stat), so
-- every Neovim from 0.7 on shares them: no vim.fs, which 0.7 lacks.
local M = {}

local uv = vim.loop

-- The file names Codewhale reads inside a .codewhale (or legacy .deepseek)
-- directory: the project overlay, hooks and constitution of a workspace,
-- and the user's config.toml and permissions.toml in ~/.codewhale.
local policy_names = {
  ['config.toml'] = true,
  ['permissions.toml'] = true,
  ['hooks.toml'] = true,
  ['constitution.json'] = true,
}
local policy_dirs = { ['.codewhale'] = true, ['.deepseek'] = true }

local function normalize(path)
  path = path:gsub('/+', '/')
  if #path > 1 then
    path = path:gsub('/$', '')
  end
  return path
end

local function dirname(path)
  local dir = path:match('^(.*)/[^/]*$')
  if dir == nil or dir == '' then
    return '/'
  end
  return dir
end

local function basename(path)
  return path:match('([^/]*)$')
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

-- git_root walks up from dir to the nearest directory holding .git.
local function git_root(dir)
  while true do
    if exists(dir .. '/.git') then
      return dir
    end
    local parent = dirname(dir)
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

-- codewhale_home is $CODEWHALE_HOME when set, else ~/.codewhale.
function M.codewhale_home()
  local home = os.getenv('CODEWHALE_HOME')
  if home and home ~= '' then
    return normalize(home)
  end
  return normalize((os.getenv('HOME') or '') .. '/.codewhale')
end

-- root returns the workspace of a policy file, or nil when path is not
-- one of Codewhale's files: for the config.toml or permissions.toml of
-- the Codewhale home ($CODEWHALE_HOME, ~/.codewhale, legacy ~/.deepseek),
-- the home's git root, else the home itself (never the user's home
-- directory, which would then be a workspace an agent could name); else
-- the directory holding the file's .codewhale/ (or .deepseek/).
function M.root(path)
  if type(path) ~= 'string' or path:sub(1, 1) ~= '/' then
    return nil
  end
  path = normalize(path)
  local name, dir = basename(path), dirname(path)
  if not policy_names[name] then
    return nil
  end
  local user = os.getenv('HOME') or ''
  local is_home = dir == M.codewhale_home() or (user ~= '' and dir == normalize(user .. '/.deepseek'))
  if is_home and (name == 'config.toml' or name == 'permissions.toml') then
    return git_root(dir) or dir
  end
  if policy_dirs[basename(dir)] then
    return dirname(dir)
  end
  return nil
end

-- repository is the workspace whose approvals Neovim serves for dir
-- (|codewhale-repositories|): its git work tree, else, when plain, dir
-- itself; never the user's home directory nor /, which would make every
-- file of the user one workspace an agent could name.
---@param dir string an absolute path
---@param plain boolean|nil a directory outside any work tree is its own
---@return string|nil
function M.repository(dir, plain)
  if type(dir) ~= 'string' or dir:sub(1, 1) ~= '/' then
    return nil
  end
  dir = normalize(dir)
  local root = git_root(dir) or (plain and dir or nil)
  local user = os.getenv('HOME') or ''
  if root == nil or root == '/' or (user ~= '' and root == normalize(user)) then
    return nil
  end
  return root
end

M.dirname = dirname
M.basename = basename
M.normalize = normalize

return M
