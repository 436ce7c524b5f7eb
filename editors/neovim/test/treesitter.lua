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
  -- Day two (health, jobs, after, sep): forge.mesh's `pg` and `provision`.
  ['job'] = 'keyword',
  ['health'] = 'keyword',
  ['retries'] = 'keyword',
  ['after'] = 'keyword',
  ['sep'] = 'keyword',
  ['provision'] = 'label',
}
for text, capture in pairs(expected) do
  check(seen[text] and seen[text][capture], ('%q is not captured as @%s'):format(text, capture))
end
-- `#not-any-of?` keeps built-in type names out of @type.
check(not (seen['string'] and seen['string']['type']), '"string" captured as @type')

-- Highlighting starts as a user gets it: the plugin on the runtime path, the
-- parser where Neovim looks for it (parser/mesh.so on the runtime path, as
-- $MESH_SITE holds it), `filetype plugin on`, and a .mesh file opened. The
-- ftplugin starts the highlighter (vim.treesitter.start on 0.8+, the
-- highlighter API on 0.7); drawing the screen must then colour the file's
-- first line (a doc comment) and, with the highlighter stopped, not.
local highlighted = false
if vim.env.MESH_SITE and vim.env.MESH_SITE ~= '' then
  vim.opt.runtimepath:prepend(vim.env.MESH_SITE)
end
vim.opt.runtimepath:prepend(plugin)
vim.cmd('filetype plugin on')
vim.cmd('edit ' .. vim.fn.fnameescape(samples .. '/forge.mesh'))
local buf = vim.api.nvim_get_current_buf()
check(vim.bo[buf].filetype == 'mesh', 'forge.mesh did not get the mesh filetype')
check(vim.fn.getline(1):sub(1, 3) == '///', 'forge.mesh no longer starts with a doc comment')
local active = ts.highlighter and ts.highlighter.active and ts.highlighter.active[buf]
check(active ~= nil, 'no tree-sitter highlighter is attached to the mesh buffer')
check(vim.bo[buf].syntax == '', 'the regex syntax is still on: ' .. vim.bo[buf].syntax)
vim.cmd('redraw!')
local function first_line_attrs()
  local width = math.min(#vim.fn.getline(1), vim.o.columns)
  local coloured = 0
  for col = 1, width do
    if vim.fn.screenattr(1, col) ~= 0 then
      coloured = coloured + 1
    end
  end
  return coloured, width
end
local coloured, width = first_line_attrs()
check(coloured == width and width > 0,
  ('the doc comment on line 1 is drawn plain: %d of %d cells coloured'):format(coloured, width))
if active then
  if active.redraw_count ~= nil then -- Neovim 0.7's highlighter counts its redraws
    check(active.redraw_count > 0, 'the highlighter never drew')
  end
  -- The control: with the highlighter stopped, the same line is plain.
  if ts.stop then
    ts.stop(buf)
  else
    active:destroy()
  end
  vim.cmd('redraw!')
  local after = first_line_attrs()
  check(after == 0, ('line 1 is still coloured with the highlighter stopped (%d cells)'):format(after))
  highlighted = coloured == width and width > 0 and after == 0
end

if failures == 0 then
  say(('ok: queries compile and capture as expected on %d samples (Neovim %d.%d)'):format(
    #files, vim.version().major, vim.version().minor))
  say(('ok: highlighting started on a .mesh buffer (%s)'):format(
    highlighted and 'drawn by tree-sitter' or 'not drawn'))
  finish(0)
else
  finish(1)
end
