-- :checkhealth passepartout — is pp-lsp ready to serve this Neovim?
--
-- pp-lsp on PATH (the configured command) and its version, the Neovim
-- version, the configured memex roots, the running clients, and the
-- summary of `pp-lsp doctor` (each of its checks as ok, warning or error;
-- its check of the pp-lsp on PATH only as information when the plugin is
-- set up with a path to pp-lsp).

local M = {}

-- Neovim 0.7 has require('health'), 0.8 vim.health.report_*, 0.10
-- vim.health.* without the prefix.
local function reporter()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

-- run runs argv and returns its exit status and output lines.
local function run(argv)
  local out = vim.fn.systemlist(argv)
  return vim.v.shell_error, out
end

function M.check()
  local r = reporter()
  local pp = require('passepartout')
  local cmd = pp.config.cmd or { 'pp-lsp', '--stdio' }
  local exe = cmd[1]

  r.start('passepartout: Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 1 then
    r.ok('Neovim ' .. version)
  else
    r.error('Neovim ' .. version .. ': the plugin needs 0.7 or later')
  end

  r.start('passepartout: pp-lsp')
  local path = vim.fn.exepath(exe)
  if path == '' then
    r.error(exe .. ' is not on PATH', {
      'go install ./cmd/pp-lsp from the repository, and put $(go env GOPATH)/bin on PATH',
      "or give its path: require('passepartout').setup({ cmd = { '/path/to/pp-lsp', '--stdio' } })",
    })
    return
  end
  local status, out = run({ path, '--version' })
  if status == 0 and out[1] then
    r.ok(out[1] .. ' (' .. path .. ')')
  else
    r.error(path .. ' --version failed: ' .. table.concat(out, ' '))
  end

  r.start('passepartout: memex')
  local roots = pp.config.roots
  if not roots or #roots == 0 then
    r.info("no roots configured: each Org file's project (its .git folder, else its folder) is its memex")
  else
    for _, root in ipairs(roots) do
      local dir = vim.fn.fnamemodify(vim.fn.expand(root), ':p')
      if vim.fn.isdirectory(dir) == 1 then
        r.ok('root ' .. dir)
      else
        r.error('root ' .. dir .. ' is not a folder')
      end
    end
  end
  local running = 0
  local every = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(every) do
    if c.name == 'pp-lsp' or c.name == 'pp_lsp' then
      running = running + 1
      r.ok(string.format('client %d serves %s', c.id, c.config.root_dir or '?'))
    end
  end
  if running == 0 then
    r.info('no pp-lsp client is running (open an Org file to start one)')
  end

  r.start('passepartout: pp-lsp doctor')
  local argv = { path, 'doctor' }
  for _, root in ipairs(roots or {}) do
    table.insert(argv, '--root')
    table.insert(argv, vim.fn.fnamemodify(vim.fn.expand(root), ':p'))
  end
  local _, lines = run(argv)
  local said = false
  for _, line in ipairs(lines) do
    local state, text = line:match('^(%a+)%s+(.*)$')
    state = state and state:lower()
    if state and text:match('^editors:') and exe:find('/', 1, true) then
      -- doctor's editors check is of the pp-lsp on PATH: this Neovim is
      -- set up to start the one it names, which the check above found.
      r.info('this Neovim starts ' .. path .. ' as set up, not the pp-lsp on PATH; doctor says: ' .. text)
      said = true
    elseif state == 'ok' then
      r.ok(text)
      said = true
    elseif state == 'warn' then
      r.warn(text)
      said = true
    elseif state == 'fail' then
      r.error(text)
      said = true
    elseif line:match('^doctor:') then
      r.info(line)
      said = true
    end
  end
  if not said then
    r.error('pp-lsp doctor said nothing readable: ' .. table.concat(lines, ' '))
  end
end

return M
