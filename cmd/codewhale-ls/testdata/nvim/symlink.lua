-- §3 "Always allow in this repo" with permissions.toml a symlink (a
-- dotfiles or stow setup): answered through codewhale/approve.
local t = dofile(os.getenv('CWLS_LIB'))

t.run(function()
  local ws = t.env.dir .. '/ws'
  -- Choose "always" when it is offered: that is what must not break the
  -- link. Otherwise approve once.
  t.start({ root_dir = ws, approve = function(prompt)
    for _, c in ipairs(prompt.choices) do
      if c.id == 'always' then return { choice = 'always' } end
    end
    return { choice = 'once' }
  end })
  local buf = t.open(ws .. '/.codewhale/config.toml')
  t.note('decision', t.request(buf, 'codewhale/authorize', {
    tool = 'bash', input = { command = 'cargo test' }, workspace = ws,
  }))
  t.note('prompts', t.prompts)
end)
