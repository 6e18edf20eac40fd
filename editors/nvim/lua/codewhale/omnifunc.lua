-- 'omnifunc' completion that honours the server's textEdit ranges.
local util = require('codewhale.util')

local M = {}
local api = vim.api

-- byte_col is the byte column of an LSP position's character in line,
-- counted in the client's position encoding.
---@param line string
---@param character integer
---@param encoding string
---@return integer
local function byte_col(line, character, encoding)
  if encoding == 'utf-8' then
    return math.min(character, #line)
  end
  local units, i = 0, 1
  while i <= #line and units < character do
    local c = line:byte(i)
    local len = c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
    units = units + ((encoding ~= 'utf-32' and len == 4) and 2 or 1)
    i = i + len
  end
  return i - 1
end

local omni = { items = {} }

-- omnifunc is 'omnifunc' completion (<C-x><C-o>) that inserts each
-- item's textEdit.newText over the range the server gave: Neovim 0.7's
-- vim.lsp.omnifunc put newText at the start of the keyword instead, so
-- `approval_policy = "` completed to `""never"` (issue 15 point 13).
-- Set on attach where the buffer has no omnifunc.
---@param findstart integer 1: where the completed text starts; 0: the items
---@param base string
---@return integer|table[]
function M.omnifunc(findstart, base)
  if findstart == 1 then
    omni.items = {}
    local buf = api.nvim_get_current_buf()
    local client
    for _, c in ipairs(util.get_clients()) do
      if c.attached_buffers and c.attached_buffers[buf] then
        client = c
      end
    end
    local line = api.nvim_get_current_line()
    local col = api.nvim_win_get_cursor(0)[2]
    local keyword = vim.fn.match(line:sub(1, col), [[\k*$]])
    if not client then
      return -3 -- leave completion mode quietly
    end
    local enc = client.offset_encoding or 'utf-16'
    local params = vim.lsp.util.make_position_params(0, enc)
    local res
    if getmetatable(client) then
      res = client:request_sync('textDocument/completion', params, 2000, buf)
    else
      res = client.request_sync('textDocument/completion', params, 2000, buf)
    end
    local result = res and res.result
    local items = type(result) == 'table' and (result.items or result) or {}
    local start = keyword
    local found = {}
    for _, it in ipairs(items) do
      local te = it.textEdit
      local range = type(te) == 'table' and (te.range or te.insert)
      local s, word
      if range then
        s, word = byte_col(line, range.start.character, enc), te.newText
      else
        s, word = keyword, it.insertText or it.label
      end
      if type(word) == 'string' and s <= col then
        table.insert(found, { start = s, word = word, item = it })
        start = math.min(start, s)
      end
    end
    -- One start column for all: an item whose range starts later gets
    -- the text between the two in front of its newText.
    for _, f in ipairs(found) do
      local doc = f.item.documentation
      table.insert(omni.items, {
        word = line:sub(start + 1, f.start) .. f.word,
        abbr = f.item.label,
        menu = type(f.item.detail) == 'string' and f.item.detail or '',
        info = type(doc) == 'table' and doc.value or (type(doc) == 'string' and doc or ''),
        icase = 1,
        dup = 1,
      })
    end
    return start
  end
  local out = {}
  for _, it in ipairs(omni.items) do
    if it.word:sub(1, #base):lower() == base:lower() then
      table.insert(out, it)
    end
  end
  return out
end

return M
