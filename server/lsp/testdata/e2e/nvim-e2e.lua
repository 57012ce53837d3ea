-- nvim-e2e.lua: drive pp-lsp from Neovim's LSP client, headless.
--
-- Run by TestNeovim (e2e_test.go):
--   nvim --headless -u NONE -i NONE -c 'luafile nvim-e2e.lua'
-- with PP_LSP_PROGRAM (the binary built from this repository),
-- PP_LSP_NVIM (editors/nvim) and PP_LSP_MEMEX (a copy of
-- examples/memex). It prints one line per check, then "E2E OK"; on
-- failure "E2E FAIL …" and the LSP log, and exits 1.

local memex = os.getenv('PP_LSP_MEMEX')
vim.opt.runtimepath:append(os.getenv('PP_LSP_NVIM'))
vim.cmd('filetype on')
vim.opt.swapfile = false

-- say writes one line; Neovim's own messages share stdout without line
-- ends, hence the leading one.
local function say(fmt, ...)
  io.stdout:write('\n' .. string.format(fmt, ...) .. '\n')
end

local function rel(path)
  return (path:gsub('^' .. vim.pesc(memex) .. '/', ''))
end

local function wait(what, cond, ms)
  if not vim.wait(ms or 20000, cond, 20) then
    error('timed out waiting for ' .. what)
  end
end

local pp = require('passepartout')
pp.setup({ cmd = { os.getenv('PP_LSP_PROGRAM'), '--stdio' }, roots = { memex } })

local function visit(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(memex .. '/' .. path))
  wait('the pp-lsp client of ' .. path, function()
    local c = pp.client(0)
    return c ~= nil and c.initialized
  end)
  return pp.client(0)
end

local function request(method, params)
  local res = vim.lsp.buf_request_sync(0, method, params, 20000)
  for _, r in pairs(res or {}) do
    if r.err then
      error(method .. ': ' .. vim.inspect(r.err))
    end
    return r.result
  end
  error(method .. ': no answer')
end

local function run()
  local client = visit('projects/pp-lsp.org')
  say('SERVER %s', client.name)

  -- The outline.
  local function walk(syms)
    for _, s in ipairs(syms or {}) do
      say('OUTLINE %s', s.name)
      walk(s.children)
    end
  end
  walk(request('textDocument/documentSymbol', { textDocument = vim.lsp.util.make_text_document_params() }))

  -- Jump to an id link's target.
  vim.fn.cursor(1, 1)
  vim.fn.search('\\[\\[id:399e95ab')
  vim.cmd('normal! 6l')
  local locs = request('textDocument/definition', vim.lsp.util.make_position_params(0, 'utf-16'))
  vim.lsp.util.jump_to_location(locs[1], 'utf-16')
  say('DEFINITION %s:%d %s', rel(vim.api.nvim_buf_get_name(0)), vim.fn.line('.'), vim.fn.getline('.'))

  -- Backlinks of that file's own ID (cursor on its title).
  visit('notes/embedding-search.org')
  vim.fn.cursor(1, 1)
  vim.fn.search('#+title:')
  local params = vim.lsp.util.make_position_params(0, 'utf-16')
  params.context = { includeDeclaration = false }
  for _, l in ipairs(request('textDocument/references', params)) do
    say('REFERENCE %s:%d', rel(vim.uri_to_fname(l.uri)), l.range.start.line + 1)
  end

  -- The code lens above the file.
  wait('the code lenses', function() return #(vim.lsp.codelens.get(0) or {}) > 0 end)
  local lenses = vim.lsp.codelens.get(0)
  table.sort(lenses, function(a, b) return a.range.start.line < b.range.start.line end)
  say('LENS %s', lenses[1].command.title)

  -- The backlinks split of the file's node, then of the headline the
  -- cursor moves to (it follows the cursor).
  vim.fn.cursor(1, 1)
  vim.fn.search('#+title:')
  local answer = pp.backlinks()
  say('BACKLINKS %d', #answer.backlinks)
  local view = vim.fn.bufnr('Passepartout backlinks')
  local lines = vim.api.nvim_buf_get_lines(view, 0, -1, false)
  say('VIEW %s', lines[1])
  say('VIEW shows pp-lsp.org: %s', tostring(table.concat(lines, '\n'):find('pp-lsp.org:9', 1, true) ~= nil))
  say('VIEW side window: %s', tostring(vim.fn.bufwinnr(view) ~= -1 and vim.fn.winwidth(vim.fn.bufwinnr(view)) < vim.o.columns))
  vim.fn.search('^\\* Cosine similarity')
  vim.cmd('doautocmd CursorMoved')
  wait('the split to follow', function()
    return (vim.api.nvim_buf_get_lines(view, 0, 1, false)[1] or '') == 'Cosine similarity'
  end)
  say('FOLLOWED %s', vim.api.nvim_buf_get_lines(view, 0, 1, false)[1])
  -- <CR> on an entry visits it.
  vim.fn.cursor(1, 1)
  vim.fn.search('#+title:')
  pp.backlinks()
  local win = vim.fn.bufwinid(view)
  vim.api.nvim_set_current_win(win)
  vim.fn.search('pp-lsp.org:9')
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  say('VISITED %s:%d', rel(vim.api.nvim_buf_get_name(0)), vim.fn.line('.'))
  vim.cmd('only')

  -- A daily note, made when missing.
  local daily = pp.daily('2026-11-21')
  say('DAILY %s %s', rel(daily), (vim.fn.getline(vim.fn.search('^#+title:', 'n')):gsub('^#%+title: ', '')))

  -- A file renamed: the file: link to it in index.org follows.
  visit('areas/health.org')
  pp.rename_file(memex .. '/areas/wellbeing.org')
  local index = table.concat(vim.fn.readfile(memex .. '/index.org'), '\n')
  say('RENAMED index.org links areas/wellbeing.org: %s old file gone: %s',
    tostring(index:find('[[file:areas/wellbeing.org]', 1, true) ~= nil),
    tostring(vim.fn.filereadable(memex .. '/areas/health.org') == 0))

  -- Complete an ID by title; the chosen item's edit inserts the ID.
  visit('inbox.org')
  local last = vim.api.nvim_buf_line_count(0)
  vim.api.nvim_buf_set_lines(0, last, last, false, { 'See [[id:Headline scan' })
  vim.fn.cursor(last + 1, 1)
  vim.cmd('normal! $')
  local p = vim.lsp.util.make_position_params(0, 'utf-16')
  p.position.character = p.position.character + 1 -- after the last character
  local list = request('textDocument/completion', p)
  local pick
  for _, item in ipairs(list.items or list) do
    say('CANDIDATE %s', item.label)
    if item.label == 'Headline scanner' then
      pick = item
    end
  end
  assert(pick, 'no completion for the headline')
  vim.lsp.util.apply_text_edits({ pick.textEdit }, 0, 'utf-16')
  say('COMPLETED %s', vim.fn.getline(last + 1))

  -- What the model would see from a place.
  visit('projects/pp-lsp.org')
  vim.fn.cursor(1, 1)
  vim.fn.search('Gate every proposal')
  local view = pp.context()
  say('CONTEXT foveal=%s tokens<=budget=%s', view.foveal.title, tostring(view.tokens <= view.budget))
  local shown = table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout context'), 0, -1, false), '\n')
  say('CONTEXT buffer shows the node: %s', tostring(shown:find('Gate every proposal', 1, true) ~= nil))
  vim.cmd('only')

  -- A question answered by the replay model, the answer streamed.
  visit('projects/pp-lsp.org')
  vim.fn.cursor(1, 1)
  vim.fn.search('Gate every proposal')
  pp.ask('What is left to do here?')
  wait('the answer', function() return pp.last_result ~= nil end)
  say('ASK %s', pp.last_result.outcome)
  local answer = table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout'), 0, -1, false), '\n')
  say('STREAMED %s', tostring(answer:find('Two things are open', 1, true) ~= nil))
  vim.cmd('only')

  -- A request the gates file as a Flight Plan, approved from Neovim.
  visit('inbox.org')
  vim.fn.cursor(1, 1)
  pp.ask('Make a dated copy of my inbox')
  wait('the plan', function() return pp.last_result ~= nil end, 60000)
  say('PLANNED %s %s', pp.last_result.outcome, tostring(pp.last_result.planId ~= nil))
  vim.cmd('only')
  local run = pp.approve(pp.last_result.planId)
  say('APPROVED %s', run.state)
  say('RAN %s', tostring(vim.fn.filereadable(memex .. '/notes/archive/inbox-2026-11-21.org') == 1))
  local plans = table.concat(vim.fn.readfile(memex .. '/flightplans.org'), '\n')
  say('PLANS FILE says DONE: %s', tostring(plans:find('\n%* DONE ') ~= nil))

  -- The Gardener run now, and the skills in the order they apply (the
  -- list opens in a scratch split, which no server serves).
  say('RAN SKILL %s', pp.run_skill('Gardener').status)
  local titles = {}
  for _, k in ipairs(pp.skills()) do
    table.insert(titles, k.title)
  end
  say('SKILLS %s', table.concat(titles, ', '))

  -- A clean end: shutdown, exit, status 0.
  vim.lsp.stop_client(client.id)
  wait('the server to exit', function() return pp.exit_code ~= nil end, 10000)
  say('EXIT %d', pp.exit_code)
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
