-- nvim-approve-e2e.lua: approvals and edits through Neovim's LSP client.
--
-- Run by TestNeovimApprovals (approve_e2e_test.go):
--   nvim --headless -u NONE -i NONE -c 'luafile nvim-approve-e2e.lua'
-- with PP_LSP_PROGRAM, PP_LSP_NVIM and PP_LSP_MEMEX as for nvim-e2e.lua,
-- and a model that proposes `make count` (out/count.txt gets a line a
-- run) and answers "what is left". It prints one line per check, then
-- "E2E OK"; on failure "E2E FAIL …" and the LSP log, and exits 1.

local e2e = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/e2e-common.lua')
local memex, pp, say, wait, visit = e2e.memex, e2e.pp, e2e.say, e2e.wait, e2e.visit

local function disk(rel)
  local p = memex .. '/' .. rel
  if vim.fn.filereadable(p) == 0 then
    return ''
  end
  return table.concat(vim.fn.readfile(p, 'b'), '\n')
end

local function count(buf, pattern)
  local n = 0
  for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find(pattern) then
      n = n + 1
    end
  end
  return n
end

-- The messages the plugin shows.
local notes = {}
vim.notify = function(msg)
  table.insert(notes, msg)
end

local function ask(question)
  pp.last_result = nil
  pp.ask(question)
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  vim.cmd('only')
  return pp.last_result
end

local function run()
  -- A non-root user's default (root's is off).
  vim.o.modeline = true
  local client = visit('inbox.org')
  local inbox = vim.api.nvim_get_current_buf()
  say('FILED %s', ask('count it').outcome)

  -- The buffer of flightplans.org is unmodified: the next plan goes to
  -- disk and the buffer reloads.
  visit('flightplans.org')
  local plans = vim.api.nvim_get_current_buf()
  vim.cmd('buffer ' .. inbox)
  ask('count it again')
  wait('the buffer to reload', function() return count(plans, '^%* PLAN ') == 2 end)
  say('UNMODIFIED filed, reloaded: %s', tostring(not vim.api.nvim_buf_get_option(plans, 'modified')))
  vim.cmd('buffer ' .. plans)
  vim.cmd('edit')
  say('MODELINE obeyed: %s', tostring(vim.bo[plans].filetype == 'sh'))

  -- APPROVED typed into the buffer, unsaved: nothing runs for 3 s.
  vim.cmd('buffer ' .. plans)
  local lines = vim.api.nvim_buf_get_lines(plans, 0, -1, false)
  for i, l in ipairs(lines) do
    if l:find('^%* PLAN ') then
      vim.api.nvim_buf_set_lines(plans, i - 1, i, false, { (l:gsub('^%* PLAN ', '* APPROVED ')) })
      break
    end
  end
  vim.wait(3000, function() return false end, 50)
  say('UNSAVED ran: %s', tostring(vim.fn.filereadable(memex .. '/out/count.txt') == 1))
  -- Saved: it runs once, DONE on disk, the buffer reloaded.
  vim.cmd('write')
  wait('DONE on disk', function() return disk('flightplans.org'):find('\n%* DONE ') ~= nil end, 30000)
  wait('the buffer to reload', function() return count(plans, '^%* DONE ') == 1 end)
  vim.wait(1000, function() return false end, 50)
  say('SAVED ran %s', vim.trim(disk('out/count.txt')))
  say('DONE on disk: %s, buffer unmodified: %s', tostring(disk('flightplans.org'):find('\n%* DONE ') ~= nil),
    tostring(not vim.api.nvim_buf_get_option(plans, 'modified')))

  -- The plans list: a approves the plan of the line.
  pp.plans()
  local list = vim.api.nvim_get_current_buf()
  say('LIST %s', vim.api.nvim_buf_get_lines(list, 0, 1, false)[1])
  for i, l in ipairs(vim.api.nvim_buf_get_lines(list, 0, -1, false)) do
    if l:find('^PLAN ') then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
      break
    end
  end
  e2e.decide('a')
  say('LIST APPROVED %s', pp.last_plan_result and pp.last_plan_result.state or 'nothing')
  say('LIST shows DONE: %s', tostring(count(list, '^DONE ') == 2))
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('normal d')
  local shown = table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout plan'), 0, -1, false), '\n')
  say('DIFF shows the trace and the action: %s', tostring(shown:find('Verdict', 1, true) ~= nil and shown:find('make count', 1, true) ~= nil))
  say('DIFF shows the zero-width space: %s', tostring(vim.fn.strtrans(shown):find('vim<200b>:', 1, true) ~= nil))
  -- The JSON's "vim\u003a" reads "vim:" on the screen; the text is as written.
  do
    local view = vim.fn.bufwinid(vim.fn.bufnr('Passepartout plan'))
    vim.api.nvim_set_current_win(view)
    vim.api.nvim_win_set_height(view, 10)
    local row = vim.fn.search([[vim\\u003a]], 'w')
    say('ESCAPE written: %s', tostring(row > 0))
    vim.cmd('normal! zt')
    vim.api.nvim_win_set_cursor(view, { row + 1, 0 })
    vim.cmd('redraw!')
    local pos = vim.fn.win_screenpos(view)
    local seen = {}
    for col = pos[2], pos[2] + vim.api.nvim_win_get_width(view) - 1 do
      table.insert(seen, vim.fn.screenstring(pos[1], col))
    end
    seen = table.concat(seen)
    say('ESCAPE shown as the colon: %s', tostring(seen:find('vim: set ft=sh', 1, true) ~= nil and not seen:find('u003a', 1, true)))
  end
  vim.cmd('close')
  -- u asks the server to undo; whatever it answers is shown plainly.
  vim.api.nvim_set_current_win(vim.fn.bufwinid(list))
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local before = #notes
  e2e.decide('u')
  say('UNDO answered: %s', tostring(#notes > before))
  say('UNDO said %s', notes[#notes] or '')
  say('RAN twice in all: %s', tostring(disk('out/count.txt') == 'ran\nran\n' or disk('out/count.txt') == 'ran\nran'))
  vim.cmd('only')

  -- An answer stays in the Passepartout buffer; inserted only where asked.
  vim.cmd('buffer ' .. inbox)
  vim.fn.cursor(1, 1)
  vim.fn.search('^\\* NEXT Email Grace')
  local text = table.concat(vim.api.nvim_buf_get_lines(inbox, 0, -1, false), '\n')
  ask('what is left')
  vim.cmd('buffer ' .. inbox)
  say('ANSWER left the note alone: %s', tostring(text == table.concat(vim.api.nvim_buf_get_lines(inbox, 0, -1, false), '\n')))
  local at = pp.insert_answer()
  local now = table.concat(vim.api.nvim_buf_get_lines(inbox, 0, -1, false), '\n')
  say('INSERTED at line %d: %s', at.line + 1,
    tostring(now:find('#+begin_quote\nTwo things: the report and the slides.\n#+end_quote', 1, true) ~= nil))

  vim.lsp.stop_client(client.id)
  wait('the server to exit', function() return pp.exit_code ~= nil end, 10000)
  say('EXIT %d', pp.exit_code)
end

e2e.main(run, function()
  for _, n in ipairs(notes) do
    say('NOTE %s', n)
  end
end)
