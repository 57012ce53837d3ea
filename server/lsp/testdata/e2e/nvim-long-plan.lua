-- nvim-long-plan.lua: a plan that runs long, approved from the plans list.
--
-- Run by TestNeovimLongPlan (approve_e2e_test.go): the model proposes
-- `make slow`, which sleeps 12 s and then adds a line to out/slow.txt.
-- 'a' on its line returns at once saying it runs; a timer keeps ticking
-- and a second 'a' says it still runs and sends nothing; when the server
-- answers, DONE is said and the list shows it, where it was. One line
-- per check, then "E2E OK".

local e2e = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/e2e-common.lua')
local memex, pp, say, wait, visit = e2e.memex, e2e.pp, e2e.say, e2e.wait, e2e.visit

local notes = {}
vim.notify = function(msg)
  table.insert(notes, msg)
end

local function disk(rel)
  local p = memex .. '/' .. rel
  return vim.fn.filereadable(p) == 1 and table.concat(vim.fn.readfile(p, 'b'), '\n') or ''
end

local function run()
  visit('inbox.org')
  pp.last_result = nil
  pp.ask('take it slow')
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  say('FILED %s', pp.last_result.outcome)
  vim.cmd('only')
  pp.plans()
  vim.cmd('only')
  local list, line = vim.api.nvim_get_current_win(), nil
  for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if l:match('^PLAN ') and l:find('make slow', 1, true) then
      line = i
      vim.api.nvim_win_set_cursor(0, { i, 0 })
    end
  end
  local client = pp.client(vim.fn.bufnr(memex .. '/inbox.org'))
  local request, sent = client.request, 0
  client.request = function(method, params, ...)
    if method == 'workspace/executeCommand' and params.command == 'passepartout.approve' then
      sent = sent + 1
    end
    return request(method, params, ...)
  end
  local ticks = 0
  local timer = vim.loop.new_timer()
  timer:start(500, 500, vim.schedule_wrap(function() ticks = ticks + 1 end))
  local answers = pp.plan_answers or 0
  local start = vim.loop.hrtime()
  vim.cmd('normal a')
  say('KEY returned at once: %s', tostring((vim.loop.hrtime() - start) / 1e9 < 2))
  say('KEY said: %s', notes[#notes] or '')
  say('KEY says it runs: %s', tostring((notes[#notes] or ''):find('^pp%-lsp: Running approve') ~= nil))
  vim.cmd('normal a')
  say('AGAIN says still running: %s', tostring((notes[#notes] or ''):find('still running', 1, true) ~= nil))
  wait("the plan's answer", function() return (pp.plan_answers or 0) > answers end, 60000)
  timer:stop()
  timer:close()
  client.request = request
  say('TOOK longer than 10 s: %s', tostring((vim.loop.hrtime() - start) / 1e9 > 10))
  say('TICKED while it ran: %s', tostring(ticks >= 15))
  say('ANSWER %s', pp.last_plan_result and pp.last_plan_result.state or 'nothing')
  say('SAID DONE: %s', tostring((notes[#notes] or ''):find('DONE', 1, true) ~= nil))
  local timed_out = false
  for _, n in ipairs(notes) do
    if n:lower():find('timed out', 1, true) then
      timed_out = true
    end
  end
  say('SAID Timed out: %s', tostring(timed_out))
  say('SENT once: %s', tostring(sent == 1))
  local done = false
  for _, l in ipairs(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(list), 0, -1, false)) do
    if l:match('^DONE ') and l:find('make slow', 1, true) then
      done = true
    end
  end
  say('LIST shows DONE: %s', tostring(done))
  say('LIST kept: %s', tostring(vim.api.nvim_get_current_win() == list and vim.api.nvim_win_get_cursor(list)[1] == line and #vim.api.nvim_list_wins() == 1))
  say('RAN once: %s', tostring(disk('out/slow.txt') == 'ran\n' or disk('out/slow.txt') == 'ran'))
  for _, n in ipairs(notes) do
    say('NOTE %s', n)
  end

  -- The same at the cursor: :PassepartoutApprove in flightplans.org, on
  -- a second `make slow` plan.
  vim.cmd('edit ' .. vim.fn.fnameescape(memex .. '/inbox.org'))
  pp.last_result = nil
  pp.ask('take it slow again')
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  local plan = pp.last_result.planId
  say('POINT filed %s', tostring(type(plan) == 'string'))
  vim.cmd('only')
  visit('flightplans.org')
  vim.cmd('only')
  for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if l:find(plan, 1, true) and l:match('^:ID:') then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
    end
  end
  notes, sent, ticks = {}, 0, 0
  client.request = function(method, params, ...)
    if method == 'workspace/executeCommand' and params.command == 'passepartout.approve' then
      sent = sent + 1
    end
    return request(method, params, ...)
  end
  timer = vim.loop.new_timer()
  timer:start(500, 500, vim.schedule_wrap(function() ticks = ticks + 1 end))
  answers = pp.plan_answers or 0
  start = vim.loop.hrtime()
  local ok, err = pcall(vim.cmd, 'PassepartoutApprove')
  say('POINT returned at once: %s', tostring((vim.loop.hrtime() - start) / 1e9 < 2))
  say('POINT said: %s', ok and (notes[#notes] or '') or tostring(err))
  say('POINT says it runs: %s', tostring(ok and (notes[#notes] or ''):find('^pp%-lsp: Running approve') ~= nil))
  ok, err = pcall(vim.cmd, 'PassepartoutApprove')
  -- (the command says its error: pp-lsp's commands do)
  local again = ok and (notes[#notes] or '') or tostring(err)
  say('POINT again says still running: %s', tostring(again:find('still running', 1, true) ~= nil))
  wait("the plan's answer", function() return (pp.plan_answers or 0) > answers end, 60000)
  timer:stop()
  timer:close()
  client.request = request
  say('POINT took longer than 10 s: %s', tostring((vim.loop.hrtime() - start) / 1e9 > 10))
  say('POINT ticked while it ran: %s', tostring(ticks >= 15))
  say('POINT answer %s', pp.last_plan_result and pp.last_plan_result.state or 'nothing')
  say('POINT said DONE: %s', tostring((notes[#notes] or ''):find('DONE', 1, true) ~= nil))
  timed_out = false
  for _, n in ipairs(notes) do
    if n:lower():find('timed out', 1, true) then
      timed_out = true
    end
  end
  say('POINT said Timed out: %s', tostring(timed_out))
  say('POINT sent once: %s', tostring(sent == 1))
  local slow = disk('out/slow.txt')
  say('POINT ran once more: %s', tostring(slow == 'ran\nran\n' or slow == 'ran\nran'))
  for _, n in ipairs(notes) do
    say('NOTE %s', n)
  end
  vim.lsp.stop_client(client.id)
  wait('the server to exit', function() return pp.exit_code ~= nil end, 10000)
  say('EXIT %d', pp.exit_code)
end

e2e.main(run)
