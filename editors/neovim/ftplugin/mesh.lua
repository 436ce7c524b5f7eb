-- Buffer settings for mesh files.
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1

vim.bo.commentstring = '// %s'
-- `///` doc comments first, so `gq` and new lines keep the right leader.
vim.bo.comments = ':///,://'
vim.bo.formatoptions = vim.bo.formatoptions:gsub('t', '') .. 'croql'
vim.bo.expandtab = true
vim.bo.shiftwidth = 2
vim.bo.softtabstop = 2
vim.bo.autoindent = true
-- Indent after `{` and `[`, back on `}`: enough for mesh's blocks.
vim.bo.smartindent = true
-- Identifiers may hold inner hyphens: `forge-staging`.
vim.opt_local.iskeyword:append('-')
vim.bo.suffixesadd = '.mesh'

-- Tree-sitter highlighting when the `mesh` parser is installed (Neovim 0.7 and
-- newer); `vim.g.mesh_treesitter = false` leaves it to you.
if vim.g.mesh_treesitter ~= false then
  pcall(function()
    require('mesh').start_treesitter(0)
  end)
end

vim.b.undo_ftplugin = 'setlocal commentstring< comments< formatoptions< expandtab< autoindent< smartindent< '
  .. 'shiftwidth< softtabstop< iskeyword< suffixesadd<'
