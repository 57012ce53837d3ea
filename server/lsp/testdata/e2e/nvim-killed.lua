-- nvim-killed.lua: the server stops while a question waits, headless.
--
-- Run by TestNeovimServerStops (e2e_chat_test.go) with a replay model that
-- takes seconds to say its first word: the question is asked, the server
-- is stopped (as a crash or a kill would), and the answer buffer must end
-- the question saying so, not wait forever. One line per check, then
-- "E2E OK".

local e2e = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/e2e-common.lua')
local pp, say, wait = e2e.pp, e2e.say, e2e.wait

local function run()
  local client = e2e.visit('projects/pp-lsp.org')
  local note = vim.api.nvim_get_current_buf()
  vim.cmd('PassepartoutAsk A slow one?')
  client.stop(true)
  wait('the question to end', function() return pp.last_result ~= nil end, 20000)
  say('ENDED %s: %s', pp.last_result.outcome, pp.last_result.error)
  local lines = vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout'), -2, -1, false)
  say('BUFFER ends %s', lines[1])
  -- Asked again from the note, the question starts the server again.
  vim.fn.win_gotoid(vim.fn.bufwinid(note))
  pp.last_result = nil
  vim.cmd('PassepartoutAsk Again?')
  local again = pp.client(0)
  say('RESTARTED %s', tostring(again ~= nil and again.id ~= client.id and again.initialized == true))
  pp.cancel()
end

e2e.main(run)
