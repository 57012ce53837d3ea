-- undo-e2e.lua: undo and approve-always from Neovim's LSP client, headless.
--
-- Run by TestNeovimUndoAndApproveAlways (e2e_undo_test.go) with the
-- environment of nvim-e2e.lua and PP_LSP_CONFIG. The model rewrites the
-- open inbox.org; M.undo puts the buffer back through the editor and again
-- redoes it; once the buffer changed, undo is refused naming the file. A
-- plan for `make count` is approved with M.approve_always. One line per
-- check, then "E2E OK".

local e2e = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/e2e-common.lua')
local memex, pp, say, wait = e2e.memex, e2e.pp, e2e.say, e2e.wait

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

  -- The server says the undo (window/showMessage); the plugin must not
  -- say it again (two lines make a hit-enter prompt).
  local notified, notify = 0, vim.notify
  vim.notify = function(msg, ...)
    if tostring(msg):find('undo of', 1, true) then
      notified = notified + 1
    end
    return notify(msg, ...)
  end
  -- Nor may Neovim's own workspace/applyEdit handler print the edit's
  -- label ("Workspace edit Passepartout: undo of …").
  local printed, print0 = 0, _G.print
  _G.print = function(...)
    if table.concat(vim.tbl_map(tostring, { ... }), ' '):find('Workspace edit', 1, true) then
      printed = printed + 1
    end
    return print0(...)
  end
  local res = pp.undo()
  vim.notify = notify
  say('UNDO %s', res.summary)
  say('UNDO notified by the plugin too: %s', bool(notified > 0))
  wait('the undo', function() return text(inbox) == original end)
  _G.print = print0
  say('UNDO label printed too: %s', bool(printed > 0))
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

e2e.main(run)
