-- nvim-chat.lua: a conversation held from Neovim's LSP client, headless.
--
-- Run by TestNeovimChat (e2e_chat_test.go) with the environment of
-- TestNeovim and a replay model that answers the two questions: a
-- question from a note starts a conversation; :PassepartoutAsk from the
-- chat file continues it, and the new turn lands in the open buffer;
-- :PassepartoutChats lists it; from a file that is no note of the memex
-- the question goes without a place. One line per check, then "E2E OK".

local e2e = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/e2e-common.lua')
local memex, pp, say, wait = e2e.memex, e2e.pp, e2e.say, e2e.wait

-- visit edits an absolute path (the chat file is found by its URI).
local function visit(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  wait('the pp-lsp client of ' .. path, function()
    local c = pp.client(0)
    return c ~= nil and c.initialized
  end)
  return pp.client(0)
end

local function ask(question)
  vim.cmd('PassepartoutAsk ' .. question)
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  return pp.last_result
end

local function run()
  local client = visit(memex .. '/projects/pp-lsp.org')
  vim.fn.cursor(1, 1)
  vim.fn.search('Gate every proposal')
  -- Until the model's first word, the answer buffer says it waits.
  vim.cmd('PassepartoutAsk What does the first question ask?')
  local function waiting()
    local ns = vim.api.nvim_get_namespaces()['passepartout-waiting']
    if not ns then
      return false
    end
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(vim.fn.bufnr('Passepartout'), ns, 0, -1, { details = true })) do
      for _, chunk in ipairs((m[4] or {}).virt_text or {}) do
        if chunk[1]:find('^Waiting for the model…  :PassepartoutCancel cancels') then
          return true
        end
      end
    end
    return false
  end
  say('WAITING said: %s', tostring(waiting()))
  wait('the answer', function() return pp.last_result ~= nil end, 60000)
  say('WAITING said after the answer: %s', tostring(waiting()))
  local first = pp.last_result
  local chat = vim.uri_to_fname(first.chat)
  say('ASK1 %s', first.status)
  say('CHAT1 %s', (chat:gsub('^' .. vim.pesc(memex) .. '/', ''):gsub('[^/]*$', '')))
  say('MODEL1 %s', first.model)
  local shown = table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout'), 0, -1, false), '\n')
  say('FIGURES shown: %s', tostring(shown:find('tokens in, %d+ out') ~= nil))
  vim.cmd('only')

  -- From inside the chat file, the same command continues it.
  visit(chat)
  vim.fn.cursor(vim.fn.line('$'), 1)
  local second = ask('And the second one?')
  say('ASK2 %s', second.status)
  say('SAME CHAT %s', tostring(vim.uri_to_fname(second.chat) == chat))
  say('ANSWER2 %s', second.text)
  local chatbuf = vim.fn.bufnr(chat)
  local function turns()
    local n = 0
    for _, l in ipairs(vim.api.nvim_buf_get_lines(chatbuf, 0, -1, false)) do
      if l:match('^%* ') then
        n = n + 1
      end
    end
    return n
  end
  wait('the second turn in the buffer', function() return turns() == 2 end)
  say('TURNS %d', turns())
  local text = table.concat(vim.api.nvim_buf_get_lines(chatbuf, 0, -1, false), '\n')
  say('SECOND ANSWER in the file: %s', tostring(text:find('The second answer.', 1, true) ~= nil))
  vim.cmd('only')
  local chats = pp.chats()
  say('CHATS %d, turns %d', #chats, chats[1].turns)

  -- From a file that is no note of the memex: asked without a place.
  local py = memex .. '/tool.py'
  vim.fn.writefile({ 'print("hi")' }, py)
  vim.cmd('edit ' .. vim.fn.fnameescape(py))
  local third = ask('A third, from elsewhere?')
  say('ASK3 %s: %s', third.status or third.outcome, third.text or third.error)
  -- And from a buffer with no file at all.
  vim.cmd('enew')
  local fourth = ask('A fourth, from no file?')
  say('ASK4 %s: %s', fourth.status or fourth.outcome, fourth.text or fourth.error)
  for _, l in ipairs(vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout'), 0, -1, false)) do
    local aside = l:match('^%(.-without the context')
    if aside then
      say('ASIDE %s', aside)
    end
  end

  -- An answer with a modeline: the chat file that holds it sets nothing
  -- when Neovim opens it ('modeline' is on for any user but root).
  vim.o.modeline = true
  local sixth = ask('A sixth, with settings?')
  visit(vim.uri_to_fname(sixth.chat))
  if vim.bo.textwidth == 0 then
    say('SETTINGS the chat file sets nothing')
  else
    say('SETTINGS the chat file set textwidth to %d', vim.bo.textwidth)
  end

  vim.lsp.stop_client(client.id)
  wait('the server to exit', function() return pp.exit_code ~= nil end, 10000)
  say('EXIT %d', pp.exit_code)
end

e2e.main(run)
