-- mesh for Neovim: starts the meshc language server (meshc-lsp, over stdio)
-- for mesh buffers, on Neovim 0.7 (vim.lsp.start_client and
-- vim.lsp.buf_attach_client) and on newer versions (vim.lsp.start).
--
--   require('mesh').setup()                             -- meshc-lsp from PATH
--   require('mesh').setup({ cmd = { '/path/to/meshc-lsp' } })

local M = {}

M.config = {
  -- The server's command line.
  cmd = { 'meshc-lsp' },
  -- The nearest directory holding one of these is the workspace root; without
  -- one, the file's own directory is.
  root_markers = { '.git', 'Cargo.toml' },
  -- Called as on_attach(client, bufnr) when the server attaches to a buffer.
  on_attach = nil,
  -- Extra fields for the client configuration (handlers, settings, ...).
  client = {},
}

-- Clients started on Neovim 0.7, by root directory, so that every buffer of a
-- workspace shares one server.
local clients_by_root = {}

local function path_exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

--- The workspace root of a file: the nearest ancestor holding a root marker.
function M.find_root(path, markers)
  markers = markers or M.config.root_markers
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while dir and dir ~= '' do
    for _, marker in ipairs(markers) do
      if path_exists(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return vim.fn.fnamemodify(path, ':p:h')
end

--- The client configuration for a buffer.
function M.client_config(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = M.find_root(name ~= '' and name or vim.fn.getcwd() .. '/untitled.mesh')
  local config = vim.tbl_deep_extend('force', {
    name = 'meshc-lsp',
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = {
      { uri = vim.uri_from_fname(root), name = root },
    },
    on_attach = M.config.on_attach,
  }, M.config.client or {})
  return config
end

--- Starts the server for a buffer (or reuses the one of its workspace) and
--- attaches it. Returns the client id, or nil when the server cannot start.
function M.start(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local config = M.client_config(bufnr)
  if vim.fn.executable(config.cmd[1]) ~= 1 then
    vim.notify(
      ('mesh: cannot start the language server: %s is not executable'):format(config.cmd[1]),
      vim.log.levels.WARN
    )
    return nil
  end

  if vim.lsp.start then
    -- Neovim 0.8+: reuses a client with the same name and root.
    return vim.lsp.start(config, { bufnr = bufnr })
  end

  -- Neovim 0.7.
  local id = clients_by_root[config.root_dir]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    id = vim.lsp.start_client(config)
    clients_by_root[config.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- Sets the plugin up: every mesh buffer gets the language server.
function M.setup(opts)
  -- Shallow: a list given in opts (cmd, root_markers) replaces the default.
  M.config = vim.tbl_extend('force', M.config, opts or {})
  local group = vim.api.nvim_create_augroup('mesh_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'mesh',
    callback = function(args)
      M.start(args.buf)
    end,
  })
  -- Buffers already open when setup runs.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == 'mesh' then
      M.start(buf)
    end
  end
end

--- Starts tree-sitter highlighting of a mesh buffer, when Neovim can load the
--- `mesh` parser (`parser/mesh.so` on the runtime path, as nvim-treesitter's
--- `:TSInstall mesh` or a hand-compiled parser puts it). Neovim 0.8 and newer:
--- `vim.treesitter.start`; Neovim 0.7, which has no `vim.treesitter.start`: the
--- highlighter API it has (`vim.treesitter.highlighter.new`). The queries come
--- from `queries/mesh/` on the runtime path. Returns true when highlighting
--- runs; without a parser, false, and the buffer is left as it was.
function M.start_treesitter(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local ts = vim.treesitter
  if ts.highlighter and ts.highlighter.active and ts.highlighter.active[bufnr] then
    return true -- already highlighted (by nvim-treesitter, or an earlier call)
  end
  local ok, parser = pcall(ts.get_parser, bufnr, 'mesh')
  if not ok or not parser then
    return false
  end
  if ts.start then
    return (pcall(ts.start, bufnr, 'mesh'))
  end
  return (pcall(ts.highlighter.new, parser))
end

--- Registers the tree-sitter parser with nvim-treesitter (when installed), so
--- `:TSInstall mesh` builds it from this repository's grammar.
---   require('mesh').register_treesitter('/path/to/meshc/grammar/tree-sitter-mesh')
function M.register_treesitter(grammar_dir)
  local ok, parsers = pcall(require, 'nvim-treesitter.parsers')
  if not ok then
    return false
  end
  local configs = parsers.get_parser_configs and parsers.get_parser_configs() or parsers
  configs.mesh = {
    install_info = {
      url = grammar_dir, -- nvim-treesitter's master branch
      path = grammar_dir, -- its main branch
      files = { 'src/parser.c' },
      branch = 'main',
      generate_requires_npm = false,
      requires_generate_from_grammar = false,
    },
    filetype = 'mesh',
  }
  return true
end

return M
