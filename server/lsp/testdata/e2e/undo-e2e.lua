-- undo-e2e.lua: undo and approve-always from Neovim's LSP client, headless.
--
-- Run by TestNeovimUndoAndApproveAlways (e2e_undo_test.go) with the
-- environment of nvim-e2e.lua and PP_LSP_CONFIG. The model rewrites the
-- open inbox.org; M.undo puts the buffer back through the editor and again
-- redoes it; once the buffer changed, undo is refused naming the file. A
-- plan for `make count` is approved with M.approve_always. One line per
-- check, then "E2E OK".

local memex = os.getenv('PP_LSP_MEMEX')
vim.opt.runtimepath:append(os.getenv('PP_LSP_NVIM'))
vim.cmd('filetype on')
vim.opt.swapfile = false

local function say(fmt, ...)
  io.stdout:write('\n' .. string.format(fmt, ...) .. '\n')
end

local function wait(what, cond, ms)
  if not vim.wait(ms or 20000, cond, 20) then
    error('timed out waiting for ' .. what)
  end
end

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

local function disk(rel)
  return table.concat(vim.fn.readfile(memex .. '/' .. rel), '\n') .. '\n'
end

local function bool(x)
  return x and 'true' or 'false'
end

-- settle lets the client send the buffer's changes (debounced) and the
-- server read them.
local function settle()
  vim.wait(600, function() return false end, 20)
end

local pp = require('passepartout')
pp.setup({ cmd = { os.getenv('PP_LSP_PROGRAM'), '--stdio' }, roots = { memex } })

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(memex .. '/inbox.org'))
  wait('the client', function()
    local c = pp.client(0)
    return c ~= nil and c.initialized
  end)
  local inbox = vim.api.nvim_get_current_buf()
  local original = text(inbox)

  pp.ask('rewrite the inbox')
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  wait('the rewrite', function() return text(inbox):find('Rewritten by the model', 1, true) ~= nil end)
  settle()
  say('REWRITTEN buffer=%s disk-unchanged=%s', bool(text(inbox):find('Rewritten by the model', 1, true)), bool(disk('inbox.org') == original))

  local res = pp.undo()
  say('UNDO %s', res.summary)
  wait('the undo', function() return text(inbox) == original end)
  settle()
  say('UNDONE buffer=%s disk-unchanged=%s', bool(text(inbox) == original), bool(disk('inbox.org') == original))

  res = pp.undo()
  say('REDO %s', res.summary)
  wait('the redo', function() return text(inbox):find('Rewritten by the model', 1, true) ~= nil end)
  settle()

  vim.api.nvim_buf_set_lines(inbox, -1, -1, false, { '* Mine' })
  local typed = text(inbox)
  settle()
  local ok, err = pcall(pp.undo)
  say('REFUSED %s', bool(not ok and tostring(err):find('undo refused: inbox.org is not what', 1, true)))
  say('KEPT %s', bool(text(inbox) == typed))

  pp.last_result = nil
  pp.ask('count the notes')
  wait('the plan', function() return pp.last_result ~= nil end, 60000)
  local run = pp.approve_always(pp.last_result.planId)
  say('ALWAYS %s %s', run.state, run.rule)
  local config = table.concat(vim.fn.readfile(os.getenv('PP_LSP_CONFIG')), '\n')
  say('CONFIG %s', bool(config:find('"shell(make count)"', 1, true)))
  say('COUNTED %s', bool(vim.fn.filereadable(memex .. '/out/count.txt') == 1))
end

local ok, err = pcall(run)
if ok then
  say('E2E OK')
  vim.cmd('qall!')
else
  say('E2E FAIL %s', tostring(err))
  local log = vim.lsp.get_log_path()
  if vim.fn.filereadable(log) == 1 then
    say('--- lsp log\n%s', table.concat(vim.fn.readfile(log), '\n'))
  end
  vim.cmd('cquit 1')
end
