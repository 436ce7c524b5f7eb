-- Headless check of the language server through Neovim's own client:
-- opens a temporary copy of a module whose env reads a secret, starts
-- meshc-lsp (the path in $MESHC_LSP) with this plugin's set-up, waits up to
-- 10 s for diagnostics, prints every one that arrived, and exits 0 only if
-- one with code E0302 arrived for that file.
--
-- Run by run.sh; works on Neovim 0.7 and newer.

local timeout_ms = tonumber(vim.env.MESH_LSP_TIMEOUT_MS or '') or 10000
local expected_code = 'E0302'

local function say(message)
  io.stdout:write(message .. '\n')
end

local function finish(status)
  io.stdout:flush()
  local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  for _, client in pairs(clients) do
    vim.lsp.stop_client(client.id, true)
  end
  if status == 0 then
    vim.cmd('qall!')
  else
    vim.cmd('cquit ' .. status)
  end
end

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local plugin = vim.fn.fnamemodify(here, ':h')

local server = vim.env.MESHC_LSP
if not server or server == '' then
  say('MESHC_LSP is not set: point it at the meshc-lsp binary')
  finish(2)
  return
end
-- A path (with a slash) is taken from the current directory; a bare name is
-- looked up on PATH.
if server:find('/', 1, true) then
  server = vim.fn.fnamemodify(server, ':p')
elseif vim.fn.exepath(server) ~= '' then
  server = vim.fn.exepath(server)
end
if vim.fn.executable(server) ~= 1 then
  say('MESHC_LSP=' .. server .. ' is not executable')
  finish(2)
  return
end

-- The plugin: filetype detection, buffer settings, the server's start-up.
vim.opt.runtimepath:prepend(plugin)
vim.cmd('filetype plugin on')
vim.lsp.set_log_level('warn')

-- Every diagnostic the server publishes, as it sent it.
local received = {}
local default_handler = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
  if result then
    for _, diagnostic in ipairs(result.diagnostics or {}) do
      table.insert(received, { uri = result.uri, diagnostic = diagnostic })
    end
  end
  return default_handler(err, result, ctx, config)
end

-- A temporary workspace holding a copy of the fixture.
local workspace = vim.fn.tempname()
vim.fn.mkdir(workspace, 'p')
vim.fn.mkdir(workspace .. '/.git', 'p') -- marks the workspace root
local file = workspace .. '/secret_into_env.mesh'
vim.fn.writefile(vim.fn.readfile(here .. '/fixtures/secret_into_env.mesh'), file)

local started = false
require('mesh').setup({
  cmd = { server },
  on_attach = function()
    started = true
  end,
})
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
say(('Neovim %s, filetype %q, server %s'):format(
  tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch,
  vim.bo[bufnr].filetype,
  server
))
if vim.bo[bufnr].filetype ~= 'mesh' then
  say('the .mesh file was not given the mesh filetype')
  finish(1)
  return
end

-- The server may spell the file's URI its own way (percent-encoding, a
-- resolved symlink): compare real paths.
local function real(path)
  return vim.loop.fs_realpath(path) or path
end
local real_file = real(file)

local function is_our_file(item_uri)
  local ok, name = pcall(vim.uri_to_fname, item_uri)
  return item_uri == uri or (ok and real(name) == real_file)
end

local function has_expected()
  for _, item in ipairs(received) do
    if is_our_file(item.uri) and tostring(item.diagnostic.code) == expected_code then
      return true
    end
  end
  return false
end

-- Wait for the expected code, then a moment more for the rest to arrive.
local found = vim.wait(timeout_ms, has_expected, 50)
if found then
  vim.wait(200)
end

say(('server attached: %s; diagnostics received: %d'):format(tostring(started), #received))
for _, item in ipairs(received) do
  local d = item.diagnostic
  local start = d.range and d.range.start or { line = -1, character = -1 }
  say(('  %s %s:%d:%d %s'):format(
    tostring(d.code),
    vim.uri_to_fname(item.uri):sub(#workspace + 2),
    start.line + 1,
    start.character + 1,
    (d.message or ''):gsub('\n', ' ')
  ))
end

if found then
  say('ok: ' .. expected_code .. ' arrived')
  finish(0)
else
  say(('FAILED: no %s diagnostic for %s within %d ms'):format(expected_code, file, timeout_ms))
  -- The log lives in run.sh's private state directory: show its end here.
  local log = vim.lsp.get_log_path()
  if vim.fn.filereadable(log) == 1 then
    say('end of the Neovim LSP log (' .. log .. '):')
    for _, line in ipairs(vim.list_slice(vim.fn.readfile(log), -40)) do
      say('  ' .. line)
    end
  end
  finish(1)
end
