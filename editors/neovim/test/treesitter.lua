-- Headless check of the tree-sitter queries in Neovim's own query engine:
-- loads the parser built by treesitter.sh ($MESH_PARSER), parses the
-- grammar's samples, and checks that highlights, locals and folds compile and
-- capture what they should. Exits 0 on success. Works on Neovim 0.7 and newer.

local function say(message)
  io.stdout:write(message .. '\n')
end

local function finish(status)
  io.stdout:flush()
  vim.cmd(status == 0 and 'qall!' or ('cquit ' .. status))
end

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local plugin = vim.fn.fnamemodify(here, ':h')
local samples = vim.fn.fnamemodify(plugin, ':h:h') .. '/grammar/tree-sitter-mesh/test/samples'

local ts = vim.treesitter
local add_language = (ts.language and ts.language.add) and function(path)
  ts.language.add('mesh', { path = path })
end or function(path)
  ts.require_language('mesh', path)
end
local parse_query = (ts.query and ts.query.parse) or ts.parse_query

local ok, err = pcall(add_language, vim.env.MESH_PARSER)
if not ok then
  say('cannot load the parser ' .. tostring(vim.env.MESH_PARSER) .. ': ' .. tostring(err))
  finish(1)
  return
end

local failures = 0
local function check(condition, message)
  if not condition then
    failures = failures + 1
    say('FAILED: ' .. message)
  end
end

local queries = {}
for _, name in ipairs({ 'highlights', 'locals', 'folds' }) do
  local file = plugin .. '/queries/mesh/' .. name .. '.scm'
  local source = table.concat(vim.fn.readfile(file), '\n')
  local parsed, query = pcall(parse_query, 'mesh', source)
  check(parsed, name .. '.scm does not compile: ' .. tostring(query))
  queries[name] = parsed and query or nil
end

-- Captures of every node of every sample: text -> capture names.
local seen = {}
local files = vim.fn.glob(samples .. '/*.mesh', false, true)
check(#files >= 5, 'expected the grammar samples in ' .. samples)
for _, file in ipairs(files) do
  local lines = vim.fn.readfile(file)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local parser = ts.get_parser(buf, 'mesh')
  local root = parser:parse()[1]:root()
  check(not root:has_error(), vim.fn.fnamemodify(file, ':t') .. ' has a syntax error')
  if queries.highlights then
    for id, node in queries.highlights:iter_captures(root, buf, 0, -1) do
      local text = ts.get_node_text and ts.get_node_text(node, buf)
        or ts.query.get_node_text(node, buf)
      local name = queries.highlights.captures[id]
      seen[text] = seen[text] or {}
      seen[text][name] = true
    end
  end
  if queries.folds then
    local folds = 0
    for _ in queries.folds:iter_captures(root, buf, 0, -1) do
      folds = folds + 1
    end
    check(folds > 0, 'no folds in ' .. file)
  end
  vim.api.nvim_buf_delete(buf, { force = true })
end

local expected = {
  ['contract'] = 'keyword',
  ['requires'] = 'keyword',
  ['hostname'] = 'type.builtin',
  ['0o750'] = 'constant.numeric',
  ['true'] = 'constant.builtin.boolean',
  ['consumer'] = 'variable.builtin',
  ['${'] = 'punctuation.special',
  ['\\n'] = 'string.escape',
  ['/// The forge itself.'] = 'comment.documentation',
  ['FORGEJO__database__HOST'] = 'constant',
}
for text, capture in pairs(expected) do
  check(seen[text] and seen[text][capture], ('%q is not captured as @%s'):format(text, capture))
end
-- `#not-any-of?` keeps built-in type names out of @type.
check(not (seen['string'] and seen['string']['type']), '"string" captured as @type')

if failures == 0 then
  say(('ok: queries compile and capture as expected on %d samples (Neovim %d.%d)'):format(
    #files, vim.version().major, vim.version().minor))
  finish(0)
else
  finish(1)
end
