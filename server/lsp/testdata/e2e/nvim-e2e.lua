-- nvim-e2e.lua: drive pp-lsp from Neovim's LSP client, headless.
--
-- Run by TestNeovim (e2e_test.go):
--   nvim --headless -u NONE -i NONE -c 'luafile nvim-e2e.lua'
-- with PP_LSP_PROGRAM (the binary built from this repository),
-- PP_LSP_NVIM (editors/nvim) and PP_LSP_MEMEX (a copy of
-- examples/memex). It prints one line per check, then "E2E OK"; on
-- failure "E2E FAIL …" and the LSP log, and exits 1.

local e2e = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/e2e-common.lua')
local memex, pp, say, wait, visit = e2e.memex, e2e.pp, e2e.say, e2e.wait, e2e.visit

local function rel(path)
  return (path:gsub('^' .. vim.pesc(memex) .. '/', ''))
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

  -- What attaching sets: completion through omnifunc, the keys; the
  -- indexing said as it went.
  say('OMNIFUNC %s', vim.bo.omnifunc)
  local keys = {}
  for _, lhs in ipairs({ 'gd', 'K', 'gr', '<leader>rn', '<leader>ca', '<leader>pc', '<leader>pa' }) do
    local m = vim.fn.maparg(lhs, 'n', false, true)
    table.insert(keys, lhs .. '=' .. tostring(m.buffer == 1))
  end
  say('KEYMAPS %s', table.concat(keys, ' '))
  wait('the indexing progress', function() return pp.progress_line ~= nil end)
  say('PROGRESS %s', (pp.progress_line:gsub(':.*', '')))

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

  -- The same by keys, as a person types it: <C-x><C-o> after part of a
  -- title (Neovim 0.7's own omnifunc offers nothing there).
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'Also [[id:Headline scan' })
  vim.fn.cursor(vim.api.nvim_buf_line_count(0), 1)
  local chosen
  vim.api.nvim_create_autocmd('CompleteDone', {
    once = true,
    callback = function() chosen = vim.v.completed_item.abbr end,
  })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('A<C-x><C-o><C-y><Esc>', true, false, true), 'xt', false)
  say('OMNI chose %s', tostring(chosen))
  say('OMNI COMPLETED %s', vim.fn.getline('$'))
  say('PREVIEW windows %d', #vim.tbl_filter(function(w) return vim.api.nvim_win_get_option(w, 'previewwindow') end, vim.api.nvim_list_wins()))

  -- What the model would see from a place.
  visit('projects/pp-lsp.org')
  vim.fn.cursor(1, 1)
  vim.fn.search('Gate every proposal')
  local view = pp.context()
  say('CONTEXT foveal=%s tokens<=budget=%s', view.foveal.title, tostring(view.tokens <= view.budget))
  local shown = table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout context'), 0, -1, false), '\n')
  say('CONTEXT buffer shows the node: %s', tostring(shown:find('Gate every proposal', 1, true) ~= nil))
  say('CONTEXT cursor on the node: %s', tostring(vim.api.nvim_get_current_line():find('Gate every proposal', 1, true) ~= nil))
  say('CONTEXT buftype %s', vim.bo.buftype)
  -- A command from the context buffer goes to the memex's client; an
  -- error is one message, not a traceback.
  local said = {}
  local notify = vim.notify
  vim.notify = function(msg, level) table.insert(said, { msg = msg, level = level }) end
  -- (The command returns at once saying it runs; the refusal is said
  -- when the server answers.)
  local answers = pp.plan_answers or 0
  local ok = pcall(vim.cmd, 'PassepartoutApprove no-such-plan')
  wait('the refusal', function() return (pp.plan_answers or 0) > answers end, 10000)
  vim.notify = notify
  say('FROM VIEW error notified: %s %s', tostring(ok and #said == 2 and said[2].level == vim.log.levels.ERROR),
    said[2] and said[2].msg or 'nothing')
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
  local abuf = vim.fn.bufnr('Passepartout')
  local awin = vim.fn.bufwinid(abuf)
  say('ANSWER window at its end: %s', tostring(vim.api.nvim_win_get_cursor(awin)[1] == vim.api.nvim_buf_line_count(abuf)))
  say('ANSWER buftype %s', vim.api.nvim_buf_get_option(abuf, 'buftype'))
  local alast = vim.api.nvim_buf_get_lines(abuf, -2, -1, false)[1]
  say('ANSWER says answered by the model: %s', tostring(alast:match('^Answered by replay:.*demo%-replay%.jsonl%.$') ~= nil))
  local n = 0
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == 'pp-lsp' then
      n = n + 1
    end
  end
  say('CLIENTS after the views %d', n)
  vim.cmd('only')

  -- A request the gates file as a Flight Plan, approved from Neovim.
  visit('inbox.org')
  vim.fn.cursor(1, 1)
  pp.ask('Make a dated copy of my inbox')
  wait('the plan', function() return pp.last_result ~= nil end, 60000)
  say('PLANNED %s %s', pp.last_result.outcome, tostring(pp.last_result.planId ~= nil))
  -- The answer says so in words; <CR> there opens the plan.
  local abuf = vim.fn.bufnr('Passepartout')
  local alines = vim.api.nvim_buf_get_lines(abuf, 0, -1, false)
  say('ANSWER ends %s', (alines[#alines]:gsub(' %(replay:.*%)$', ' (replay)')))
  vim.api.nvim_set_current_win(vim.fn.bufwinid(abuf))
  vim.fn.cursor(#alines, 1)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  say('PLAN OPENED %s on its plan: %s', vim.fn.expand('%:t'),
    tostring(vim.fn.search(':ID:\\s\\+' .. pp.last_result.planId, 'nW') > 0 and vim.fn.getline('.'):match('^%* PLAN ') ~= nil))
  say('PLAN OPENED at the window top: %s', tostring(vim.fn.line('w0') == vim.fn.line('.')))
  vim.cmd('bwipeout')
  vim.cmd('only')
  local run = pp.approve(pp.last_result.planId)
  say('APPROVED %s', run.state)
  say('RAN %s', tostring(vim.fn.filereadable(memex .. '/notes/archive/inbox-2026-11-21.org') == 1))
  local plans = table.concat(vim.fn.readfile(memex .. '/flightplans.org'), '\n')
  say('PLANS FILE says DONE: %s', tostring(plans:find('\n%* DONE ') ~= nil))

  -- The journal has entries now (the proposals above); completion never
  -- offers them.
  visit('inbox.org')
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'x [[id:proposal shell' })
  local jp = { textDocument = { uri = vim.uri_from_bufnr(0) },
    position = { line = vim.api.nvim_buf_line_count(0) - 1, character = #'x [[id:proposal shell' } }
  local jlist = request('textDocument/completion', jp)
  local journal = 0
  for _, item in ipairs(jlist.items or jlist) do
    if (item.detail or ''):find('journal.org', 1, true) or item.label:find('^%[%d') then
      journal = journal + 1
    end
  end
  say('JOURNAL written: %s offered: %d', tostring(vim.fn.filereadable(memex .. '/journal.org') == 1), journal)
  vim.cmd('silent! undo')

  -- A question cancelled: the answer says so.
  visit('projects/pp-lsp.org')
  pp.ask('What is left to do here?')
  pp.cancel()
  local lines = vim.api.nvim_buf_get_lines(vim.fn.bufnr('Passepartout'), 0, -1, false)
  say('CANCEL mark %s', lines[#lines])
  vim.cmd('only')

  -- Help, health, the nvim-lspconfig table.
  vim.cmd('help passepartout')
  say('HELP %s %s', vim.fn.expand('%:t'), vim.bo.buftype)
  vim.cmd('close')
  vim.cmd('checkhealth passepartout')
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  say('HEALTH pp-lsp found: %s', tostring(health:find('OK: pp-lsp ', 1, true) ~= nil))
  say('HEALTH doctor ran: %s', tostring(health:find('doctor: %d+ checks') ~= nil))
  say('HEALTH no module error: %s', tostring(not health:find('No healthcheck found', 1, true)))
  say('HEALTH no PATH warning with a path set up: %s', tostring(not health:find('WARNING: editors:', 1, true)))
  vim.cmd('bwipeout')
  local lc = pp.lspconfig.default_config
  say('LSPCONFIG %s %s root=memex:%s', lc.filetypes[1], lc.cmd[1], tostring(lc.root_dir(memex .. '/inbox.org') == memex))
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
  -- The server's stderr (lsp.log's [ERROR] "stderr" lines) has only
  -- warnings and errors: no line of information.
  local stderr, other = 0, 0
  for _, l in ipairs(vim.fn.readfile(vim.lsp.get_log_path())) do
    if l:find('"stderr"', 1, true) then
      stderr = stderr + 1
      if not (l:find(': warning: ', 1, true) or l:find(': error: ', 1, true)) then
        other = other + 1
        say('STDERR says %s', l)
      end
    end
  end
  say('STDERR lines other than warnings and errors %d', other)

  -- The nvim-lspconfig table starts a working client, as nvim-lspconfig
  -- would: its default_config, the user's cmd, the name pp_lsp; the
  -- plugin's commands and completion work with it.
  vim.api.nvim_create_augroup('passepartout', { clear = true })
  local cfg = vim.tbl_extend('force', pp.lspconfig.default_config,
    { name = 'pp_lsp', cmd = { os.getenv('PP_LSP_PROGRAM'), '--stdio' } })
  cfg.root_dir = cfg.root_dir(memex .. '/projects/thesis.org')
  cfg.workspace_folders = { { uri = vim.uri_from_fname(cfg.root_dir), name = cfg.root_dir } }
  local id = vim.lsp.start_client(cfg)
  vim.cmd('edit ' .. vim.fn.fnameescape(memex .. '/projects/thesis.org'))
  vim.lsp.buf_attach_client(0, id)
  wait('the lspconfig client', function()
    local c = vim.lsp.get_client_by_id(id)
    return c ~= nil and c.initialized and vim.bo.omnifunc ~= ''
  end)
  vim.fn.cursor(1, 1)
  vim.fn.search('^\\* ')
  local lname, lomni = pp.client(0).name, vim.bo.omnifunc
  local lview = pp.context()
  say('LSPCONFIG client %s omnifunc %s context from it: %s', lname, lomni,
    tostring(type(lview.tokens) == 'number' and lview.tokens > 0))
  vim.lsp.stop_client(id)
  wait('the lspconfig client to stop', function() return vim.lsp.get_client_by_id(id) == nil end, 10000)
end

e2e.main(run)
