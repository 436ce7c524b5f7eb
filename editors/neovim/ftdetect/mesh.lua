-- .mesh files are mesh. Neovim 0.8+ reads vim.filetype.add; 0.7 uses the
-- autocommand (its filetype.lua is off unless g:do_filetype_lua is set).
if vim.filetype and vim.filetype.add then
  vim.filetype.add({ extension = { mesh = 'mesh' } })
end
vim.cmd([[autocmd BufRead,BufNewFile *.mesh setfiletype mesh]])
