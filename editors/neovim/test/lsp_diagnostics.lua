-- Headless check of the language server through Neovim's own client:
-- opens a temporary copy of a module whose env reads a secret and misspells a
-- field, starts meshc-lsp (the path in $MESHC_LSP) with this plugin's set-up,
-- waits up to 10 s for diagnostics, prints every one that arrived and what
-- Neovim holds for the buffer (vim.diagnostic.get: what it shows), and exits 0
-- only if one with code E0302 arrived for that file and the did-you-mean hint
-- is among what Neovim shows (a Hint diagnostic, or the help in a message).
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

local function has_code()
  for _, item in ipairs(received) do
    if is_our_file(item.uri) and tostring(item.diagnostic.code) == expected_code then
      return true
    end
  end
  return false
end

-- The did-you-mean as Neovim shows it: among the buffer's diagnostics (what
-- the virtual text, signs and :lua vim.diagnostic.open_float() show), a Hint
-- whose message is the help, or any diagnostic whose message ends with it.
local hint_text = 'did you mean `host`?'
local function shown_hint()
  local in_message = nil
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if (d.message or ''):find(hint_text, 1, true) then
      if d.severity == vim.diagnostic.severity.HINT then
        return 'as a Hint diagnostic: ' .. d.message
      end
      in_message = in_message or ('in the message: ' .. d.message)
    end
  end
  return in_message
end

local function has_expected()
  return has_code() and shown_hint() ~= nil
end

-- Wait for the expected code and the hint, then a moment more for the rest.
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

-- The fixes offered with the cursor at the start of each diagnostic's line (as
-- `vim.lsp.buf.code_action()` asks), printed for the record; the server's own
-- tests assert them.
local function offers_code_actions()
  local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  for _, client in pairs(clients) do
    local caps = client.server_capabilities or {}
    if caps.codeActionProvider then
      return true
    end
  end
  return false
end
if found and offers_code_actions() then
  local lines_seen = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if not lines_seen[d.lnum] then
      lines_seen[d.lnum] = true
      local at = { line = d.lnum, character = 0 }
      local answers = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', {
        textDocument = { uri = uri },
        range = { start = at, ['end'] = at },
        context = { diagnostics = {} },
      }, 2000) or {}
      for _, answer in pairs(answers) do
        for _, action in ipairs(answer.result or {}) do
          say(('  code action on line %d: %s'):format(d.lnum + 1, action.title))
        end
      end
    end
  end
end

local severities = { 'ERROR', 'WARN', 'INFO', 'HINT' }
say('as Neovim shows them (vim.diagnostic.get):')
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  say(('  %d:%d %s %s'):format(d.lnum + 1, d.col + 1, severities[d.severity] or '?',
    (d.message or ''):gsub('\n', ' ')))
end

if found then
  say('ok: ' .. expected_code .. ' arrived')
  say('ok: the did-you-mean hint is shown, ' .. shown_hint())
  finish(0)
else
  if not has_code() then
    say(('FAILED: no %s diagnostic for %s within %d ms'):format(expected_code, file, timeout_ms))
  end
  if not shown_hint() then
    say(('FAILED: Neovim shows no %q for %s within %d ms'):format(hint_text, file, timeout_ms))
  end
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
