-- nvim-stale-plan.lua: a plan view that no longer matches flightplans.org.
--
-- Run by TestNeovimStalePlanView (approve_e2e_test.go) with the approval
-- tests' model (it proposes `make count`). The plan is shown ('d' in the
-- plans list); elsewhere, its command is changed in flightplans.org on
-- disk; 'a' in the view, before anything refreshed it, must approve
-- nothing and show the plan again, changed; 'a' then approves what it
-- shows. One line per check, then "E2E OK".

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

local function shown()
  return table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout plan'), 0, -1, false), '\n')
end

local function run()
  visit('inbox.org')
  pp.last_result = nil
  pp.ask('count it')
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  say('FILED %s', pp.last_result.outcome)
  vim.cmd('only')
  pp.plans()
  vim.cmd('only')
  local list = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('normal d')
  local view = vim.fn.bufwinid(vim.fn.bufnr('Passepartout plan'))
  say('VIEW shows make count: %s', tostring(shown():find('"cmd": "make count"', 1, true) ~= nil))

  -- Elsewhere (another editor, a sync): the plan's command changes on disk.
  local text = disk('flightplans.org'):gsub('"cmd": "make count"', '"cmd": "make count; touch out/pwned.txt"')
  vim.fn.writefile(vim.split(text, '\n', { plain = true }), memex .. '/flightplans.org', 'b')

  -- a in the view, at once: nothing is approved, the plan is shown again.
  vim.fn.win_gotoid(view)
  local before = #notes
  e2e.decide('a')
  say('STALE approved: %s', tostring(pp.last_plan_result ~= nil))
  say('STALE said: %s', tostring((notes[before + 1] or ''):find('not done: the plan changed since you saw it', 1, true) ~= nil))
  say('STALE shown again with the change: %s', tostring(shown():find('touch out/pwned.txt', 1, true) ~= nil and shown():find('Shown again', 1, true) ~= nil))
  vim.wait(1000, function() return false end, 50)
  say('STALE ran: %s', tostring(vim.fn.filereadable(memex .. '/out/pwned.txt') == 1 or vim.fn.filereadable(memex .. '/out/count.txt') == 1))

  -- a again: the plan shown is approved — edited, the server gates it
  -- again and files it afresh (PLAN); the view follows; a runs it.
  vim.fn.win_gotoid(vim.fn.bufwinid(vim.fn.bufnr('Passepartout plan')))
  e2e.decide('a')
  say('APPROVED as shown: %s', pp.last_plan_result and pp.last_plan_result.state or 'nothing')
  vim.fn.win_gotoid(vim.fn.bufwinid(vim.fn.bufnr('Passepartout plan')))
  e2e.decide('a')
  say('APPROVED again: %s', pp.last_plan_result and pp.last_plan_result.state or 'nothing')
  say('RAN what was shown: %s', tostring(vim.fn.filereadable(memex .. '/out/pwned.txt') == 1))
  say('VIEW follows: %s', tostring(shown():find('DONE', 1, true) ~= nil))
  local _ = list

  -- A second plan, approved from the plans list while another process
  -- files it afresh between the client's check and the server's run: the
  -- approval carries the hash shown, and the server refuses it.
  pp.last_result = nil
  pp.ask('count it')
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  say('RACED filed %s', pp.last_result.outcome)
  vim.cmd('only')
  pp.plans()
  vim.cmd('only')
  for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if l:match('^PLAN ') then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
      break
    end
  end
  local client = pp.client(vim.fn.bufnr(memex .. '/inbox.org'))
  local request, refiled = client.request, false
  client.request = function(method, params, ...)
    if method == 'workspace/executeCommand' and params.command == 'passepartout.approve' then
      say('RACED sent its hash: %s', tostring(type(params.arguments[1].hash) == 'string' and params.arguments[1].hash:sub(1, 7) == 'sha256:'))
      local text = disk('flightplans.org'):gsub('"cmd": "make count"', '"cmd": "touch out/raced.txt"')
      text = text:gsub('\n%* PLAN ', '\n* APPROVED ')
      vim.fn.writefile(vim.split(text, '\n', { plain = true }), memex .. '/flightplans.org', 'b')
      vim.fn.system({ os.getenv('PP_LSP_PROGRAM'), 'plans', '--root', memex, '--run-approved' })
      refiled = vim.v.shell_error == 0
    end
    return request(method, params, ...)
  end
  local before = #notes
  pp.last_plan_result = nil
  e2e.decide('a')
  client.request = request
  say('RACED filed afresh elsewhere: %s', tostring(refiled and disk('flightplans.org'):find('\n* PLAN Run `touch out/raced.txt`', 1, true) ~= nil))
  local said = table.concat(vim.list_slice(notes, before + 1), '\n')
  say('RACED refused by the server: %s', tostring(said:find('was not approved: the plan changed since you saw it: look again', 1, true) ~= nil))
  vim.wait(1000, function() return false end, 50)
  say('RACED ran: %s', tostring(vim.fn.filereadable(memex .. '/out/raced.txt') == 1))

  -- A file plan, approved from the plans list while its file is edited
  -- and another process files it afresh — the same action, a new diff —
  -- after the client's check: the approval carries the revision shown
  -- beside the diff, and the server writes nothing over the edit.
  pp.last_result = nil
  pp.ask('rewrite the list')
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  say('DIFF filed %s', pp.last_result.outcome)
  vim.cmd('only')
  pp.plans()
  vim.cmd('only')
  for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if l:match('^PLAN ') and l:find('list.conf', 1, true) then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
      break
    end
  end
  local edited = "milk\neggs: the user's own line\n"
  client.request = function(method, params, ...)
    if method == 'workspace/executeCommand' and params.command == 'passepartout.approve' then
      local rev = params.arguments[1].revision
      say('DIFF sent its revision: %s', tostring(type(rev) == 'string' and rev:sub(1, 12) == 'hmac-sha256:'))
      vim.fn.writefile(vim.split(edited, '\n', { plain = true }), memex .. '/list.conf', 'b')
      local text = disk('flightplans.org'):gsub('\n%* PLAN Write', '\n* APPROVED Write')
      vim.fn.writefile(vim.split(text, '\n', { plain = true }), memex .. '/flightplans.org', 'b')
      vim.fn.system({ os.getenv('PP_LSP_PROGRAM'), 'plans', '--root', memex, '--run-approved' })
      refiled = vim.v.shell_error == 0
    end
    return request(method, params, ...)
  end
  refiled = false
  before = #notes
  pp.last_plan_result = nil
  e2e.decide('a')
  client.request = request
  say('DIFF filed afresh elsewhere: %s', tostring(refiled and disk('flightplans.org'):find('the file changed since the plan was filed', 1, true) ~= nil))
  said = table.concat(vim.list_slice(notes, before + 1), '\n')
  say('DIFF refused by the server: %s', tostring(said:find('was not approved: the plan changed since you saw it: look again', 1, true) ~= nil))
  vim.wait(1000, function() return false end, 50)
  say('DIFF the file kept the edit: %s', tostring(disk('list.conf') == edited))
  for _, n in ipairs(notes) do
    say('NOTE %s', n)
  end
  local client = pp.client(vim.fn.bufnr(memex .. '/inbox.org'))
  vim.lsp.stop_client(client.id)
  wait('the server to exit', function() return pp.exit_code ~= nil end, 10000)
  say('EXIT %d', pp.exit_code)
end

e2e.main(run)
