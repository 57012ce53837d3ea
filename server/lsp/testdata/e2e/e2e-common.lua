-- e2e-common.lua: what every headless-Neovim end-to-end script shares.
--
-- Loaded first by nvim-e2e.lua, nvim-chat.lua, nvim-approve-e2e.lua and
-- undo-e2e.lua, which the Go tests run as
--   nvim --headless -u NONE -i NONE -c 'luafile SCRIPT'
-- with PP_LSP_PROGRAM (the binary built from this repository),
-- PP_LSP_NVIM (editors/nvim) and PP_LSP_MEMEX (a copy of
-- examples/memex). A script defines run() and ends with
-- e2e.main(run): one line per check, then "E2E OK"; on failure
-- "E2E FAIL …" and the LSP log, and exit 1.

local e2e = {}

e2e.memex = os.getenv('PP_LSP_MEMEX')
vim.opt.runtimepath:append(os.getenv('PP_LSP_NVIM'))
vim.cmd('filetype on')
vim.opt.swapfile = false

-- say writes one line; Neovim's own messages share stdout without line
-- ends, hence the leading one.
function e2e.say(fmt, ...)
  io.stdout:write('\n' .. string.format(fmt, ...) .. '\n')
end

function e2e.wait(what, cond, ms)
  if not vim.wait(ms or 30000, cond, 20) then
    error('timed out waiting for ' .. what)
  end
end

-- decide presses keys (a, A, r, u of the plans list or view), which
-- return at once, and waits for the server's answer if one is coming.
function e2e.decide(keys)
  local before = e2e.pp.plan_answers
  vim.cmd('normal ' .. keys)
  if e2e.pp.plans_running() then
    e2e.wait("the plan's answer", function() return e2e.pp.plan_answers > before end, 60000)
  end
end

e2e.pp = require('passepartout')
e2e.pp.setup({ cmd = { os.getenv('PP_LSP_PROGRAM'), '--stdio' }, roots = { e2e.memex } })

-- visit edits path (relative to the memex) and waits for its client.
function e2e.visit(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(e2e.memex .. '/' .. path))
  e2e.wait('the pp-lsp client of ' .. path, function()
    local c = e2e.pp.client(0)
    return c ~= nil and c.initialized
  end)
  return e2e.pp.client(0)
end

-- main runs run and reports; on failure it says what on_fail adds
-- first, then the LSP log.
function e2e.main(run, on_fail)
  local ok, err = pcall(run)
  if ok then
    e2e.say('E2E OK')
    vim.cmd('qall!')
    return
  end
  e2e.say('E2E FAIL %s', tostring(err))
  if on_fail then
    on_fail()
  end
  local log = vim.lsp.get_log_path()
  if vim.fn.filereadable(log) == 1 then
    e2e.say('--- lsp log\n%s', table.concat(vim.fn.readfile(log), '\n'))
  end
  vim.cmd('cquit 1')
end

return e2e
