-- passepartout: pp-lsp, Passepartout for Org, in Neovim.
--
-- pp-lsp serves your Org files as a language server: the outline
-- (document symbols), links followed across the memex (definition),
-- backlinks (references), completion of [[id: links by title, of tags
-- and TODO keywords, diagnostics (duplicate IDs, broken links, malformed
-- drawers), folding ranges, renaming an ID everywhere, code actions (an
-- :ID: for the headline at the cursor; Approve and Reject on a Flight
-- Plan). This module starts it for the `org` filetype — with
-- vim.lsp.start on Neovim 0.8 and later, with vim.lsp.start_client and an
-- autocommand on 0.7 — and adds the commands Neovim has no name for:
--
--   :PassepartoutContext [BUDGET]  what the model would see from the cursor
--   :PassepartoutAsk {question}    a question to the model, answer streamed
--   :PassepartoutCancel            stop the question being answered
--   :PassepartoutApprove [ID]      approve the Flight Plan at the cursor (runs it)
--   :PassepartoutReject [ID]       reject the Flight Plan at the cursor
--   :PassepartoutPlans             list the Flight Plans; on a plan's line <CR> opens it,
--                                  d shows it, a approves, A approves and allows similar
--                                  actions, r rejects, u undoes, g lists again
--   :PassepartoutAddId             give the headline at the cursor an :ID:
--   :PassepartoutInsertAnswer      the last answer, below the cursor's line
--   :PassepartoutBacklinks         the backlinks and unlinked references of the
--                                  node at the cursor, in a side split that
--                                  follows the cursor (<CR> visits an entry)
--   :PassepartoutDaily [DATE]      the daily note of DATE (YYYY-MM-DD, yesterday,
--                                  tomorrow; today by default), made when missing
--   :PassepartoutCreateNode        make the file an unresolved [[file:…]] link names
--   :PassepartoutRenameFile {NEW}  rename the file, fixing the file: links to it
--
-- Headlines and files with an :ID: show "N backlinks" as a code lens
-- (`codelens = false` in setup turns it off); running the lens
-- (vim.lsp.codelens.run()) opens the backlinks split.
--
-- Set-up (init.lua), with the plugin's folder on 'runtimepath':
--
--   require('passepartout').setup({
--     roots = { '~/org' },                 -- the memex (default: the file's project)
--     init_options = { privacyTags = { '@personal', 'private' } },
--   })
--
-- `init_options` and `settings` take the keys of pp-lsp's settings schema
-- (roots, privacyTags, budget, semanticThreshold, dataDir, configFile,
-- providers, embeddingProvider, embeddingModel, embeddingBaseUrl,
-- assistant, heartbeatInterval, rescanInterval, maxSymbols, noteTemplate,
-- applyEditTimeout); `settings`
-- may change while the server runs (send them with
-- require('passepartout').configure({...})).

local M = {}

M.config = {
  -- The command that starts the server.
  cmd = { 'pp-lsp', '--stdio' },
  -- The memex folders; nil lets each file's project (its .git folder, else
  -- its own folder) be the memex.
  roots = nil,
  -- initializationOptions, read when the server starts.
  init_options = {},
  -- The "passepartout" settings section, read whenever it changes.
  settings = {},
  -- Passed to the client: on_attach(client, bufnr), capabilities, …
  on_attach = nil,
  capabilities = nil,
  -- Show "N backlinks" code lenses above headlines and files with an :ID:.
  codelens = true,
}

local name = 'pp-lsp'

-- The Neovim 0.7 clients, by root (0.8's vim.lsp.start reuses its own).
local clients = {}

-- The answers streaming, by progress token: { buf = answer buffer }.
local streams = {}

-- The last question's token and result.
M.last_token, M.last_result = nil, nil

local uv = vim.loop
local counter = 0

local function notify(msg, level)
  vim.notify('pp-lsp: ' .. msg, level or vim.log.levels.INFO)
end

local function expand(path)
  return (vim.fn.fnamemodify(vim.fn.expand(path), ':p'):gsub('/$', ''))
end

-- The memex root of a file: the configured root holding it, else the
-- nearest folder with a .git, else its own folder.
local function root_for(fname)
  local dir = vim.fn.fnamemodify(fname, ':p:h')
  for _, r in ipairs(M.config.roots or {}) do
    local root = expand(r)
    if dir == root or dir:sub(1, #root + 1) == root .. '/' then
      return root
    end
  end
  local git = vim.fn.finddir('.git', dir .. ';')
  if git ~= '' then
    return vim.fn.fnamemodify(git, ':p:h:h')
  end
  return dir
end

local function init_options()
  local opts = vim.deepcopy(M.config.init_options or {})
  if M.config.roots and opts.roots == nil then
    opts.roots = vim.tbl_map(expand, M.config.roots)
  end
  if next(opts) == nil then
    return vim.empty_dict()
  end
  return opts
end

-- $/progress: an answer being streamed goes into its buffer; anything
-- else goes to Neovim's own handler (the indexing of the memex).
local function progress_handler(err, result, ctx, config)
  local s = result and streams[result.token]
  if s then
    local v = result.value or {}
    if v.kind == 'report' and type(v.message) == 'string' and vim.api.nvim_buf_is_valid(s.buf) then
      local lines = vim.api.nvim_buf_get_lines(s.buf, -2, -1, false)
      local parts = vim.split(v.message, '\n', { plain = true })
      parts[1] = (lines[1] or '') .. parts[1]
      vim.api.nvim_buf_set_option(s.buf, 'modifiable', true)
      vim.api.nvim_buf_set_lines(s.buf, -2, -1, false, parts)
      vim.api.nvim_buf_set_option(s.buf, 'modifiable', false)
    end
    return
  end
  return vim.lsp.handlers['$/progress'](err, result, ctx, config)
end

-- reload serves passepartout/reload: the server wrote the file while its
-- buffer was unmodified (a plan filed, a plan's new state); the buffer
-- reads it again unless it was modified since.
local function reload(params)
  local fname = params and params.uri and vim.uri_to_fname(params.uri)
  local b = fname and vim.fn.bufnr(fname) or -1
  if b == -1 or not vim.api.nvim_buf_is_loaded(b) or vim.api.nvim_buf_get_option(b, 'modified') then
    return
  end
  vim.api.nvim_buf_call(b, function()
    vim.cmd('silent! edit')
  end)
end

local function client_config(root)
  local settings = M.config.settings or {}
  return {
    name = name,
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = init_options(),
    settings = { passepartout = settings },
    capabilities = M.config.capabilities,
    handlers = {
      ['$/progress'] = progress_handler,
      ['passepartout/reload'] = function(_, params)
        vim.schedule(function() reload(params) end)
      end,
    },
    on_init = function(client)
      -- Neovim 0.7 neither pushes its settings nor says it can be asked
      -- for them: push them once.
      if next(settings) ~= nil then
        client.notify('workspace/didChangeConfiguration', { settings = { passepartout = settings } })
      end
    end,
    on_attach = function(client, bufnr)
      if M.config.codelens then
        M.enable_codelens(bufnr)
      end
      if M.config.on_attach then
        M.config.on_attach(client, bufnr)
      end
    end,
    on_exit = function(code, signal, client_id)
      M.exit_code, M.exit_signal = code, signal
      for root, id in pairs(clients) do
        if id == client_id then
          clients[root] = nil
        end
      end
    end,
  }
end

-- attach starts (or reuses) the server for the buffer's memex.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == '' then
    return
  end
  local root = root_for(fname)
  if vim.lsp.start then -- Neovim 0.8+
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
      return
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- client returns the pp-lsp client of the buffer.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = name })[1]
  end
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == name then
      return c
    end
  end
end

local function need_client()
  local c = M.client(0)
  if not c then
    error('pp-lsp: no pp-lsp server for this buffer (is its filetype org?)', 0)
  end
  return c
end

-- place is the cursor as {uri, position} (UTF-16 columns).
local function place()
  local p = vim.lsp.util.make_position_params(0, 'utf-16')
  return { uri = p.textDocument.uri, position = p.position }
end

-- command runs a workspace/executeCommand synchronously and returns its
-- result (raises the server's error).
local function command(cmd, args, timeout)
  local c = need_client()
  local res = c.request_sync('workspace/executeCommand', { command = cmd, arguments = { args } }, timeout or 30000, 0)
  if not res then
    error('pp-lsp: ' .. cmd .. ' timed out', 0)
  end
  if res.err then
    error('pp-lsp: ' .. (res.err.message or vim.inspect(res.err)), 0)
  end
  return res.result
end

local function scratch(title, lines, filetype)
  local buf = vim.fn.bufnr(title)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, title)
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'filetype', filetype or 'org')
  if vim.fn.bufwinnr(buf) == -1 then
    vim.cmd('split')
    vim.api.nvim_win_set_buf(0, buf)
  end
  return buf
end

-- context shows what the model would see from the cursor, and returns the
-- server's answer (DESIGN §5's JSON as a table).
function M.context(budget)
  local args = place()
  if budget then
    args.budget = budget
  end
  local view = command('passepartout.context', args)
  local n = view.nodes or {}
  local head = string.format('# %d tokens of %d (the whole memex: %d) · %d in full, %d outline, %d titles, %d folded, %d private',
    view.tokens, view.budget, view.full_tokens, n.full or 0, n.outline or 0, n.title_only or 0, n.folded or 0, n.private or 0)
  local lines = vim.split(view.text or '', '\n', { plain = true })
  table.insert(lines, 1, head)
  scratch('Passepartout context', lines, 'org')
  return view
end

-- ask sends a question from the cursor; the answer streams into the
-- Passepartout buffer. It returns the progress token.
function M.ask(question)
  local c = need_client()
  counter = counter + 1
  local token = string.format('pp-lsp-ask-%d-%d', uv.os_getpid(), counter)
  local args = place()
  args.text = question
  local src = vim.api.nvim_get_current_buf()
  local buf = vim.fn.bufnr('Passepartout')
  if buf == -1 then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, 'Passepartout')
    vim.api.nvim_buf_set_option(buf, 'filetype', 'org')
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '* ' .. question, '' })
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  streams[token] = { buf = buf }
  M.last_token, M.last_result = token, nil
  c.request('workspace/executeCommand', { command = 'passepartout.ask', arguments = { args }, workDoneToken = token },
    function(err, result)
      streams[token] = nil
      local note
      if err then
        note = '[' .. (err.message or 'failed') .. ']'
        M.last_result = { outcome = 'error', error = err.message }
      else
        M.last_result = result
        note = '[' .. result.outcome
        if result.tool then
          note = note .. ': ' .. result.tool .. ', ' .. (result.verdict or '') .. ' by ' .. (result.gate or '')
        end
        if result.planId then
          note = note .. '; Flight Plan ' .. result.planId .. ' waits for your approval'
          notify('a Flight Plan waits for your approval in flightplans.org')
        end
        note = note .. ']'
      end
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_set_option(buf, 'modifiable', true)
        vim.api.nvim_buf_set_lines(buf, -1, -1, false, { note })
        vim.api.nvim_buf_set_option(buf, 'modifiable', false)
      end
    end, src)
  if vim.fn.bufwinnr(buf) == -1 then
    vim.cmd('split')
    vim.api.nvim_win_set_buf(0, buf)
    vim.cmd('wincmd p')
  end
  return token
end

-- cancel stops the latest question.
function M.cancel()
  local c = M.client(0)
  if c and M.last_token then
    c.notify('window/workDoneProgress/cancel', { token = M.last_token })
  end
end

local function decide(cmd, id)
  local args = id and id ~= '' and { id = id } or place()
  local run = command(cmd, args, 120000)
  notify(run.state .. ' — ' .. (run.summary or ''))
  return run
end

-- approve approves (and runs) the plan with the id, or the plan at the cursor.
function M.approve(id)
  return decide('passepartout.approve', id)
end

-- reject rejects the plan with the id, or the plan at the cursor.
function M.reject(id)
  return decide('passepartout.reject', id)
end

-- The Flight Plans list: a buffer whose keys act on the plan of the line.
-- <CR> opens it in flightplans.org, d shows its verdict, gate trace and
-- action, a approves it (it runs), A approves it and allows similar
-- actions, r rejects it, u undoes what it changed, g lists again, q
-- closes. The list remembers the client it came from: its keys work from
-- its own buffer, which no server is attached to.
local plans_list = { buf = nil, client_id = nil, items = {} }

-- plans_request sends a request to the list's client and returns its
-- result; the server's error is raised as it said it.
local function plans_request(method, params)
  local c = plans_list.client_id and vim.lsp.get_client_by_id(plans_list.client_id) or need_client()
  plans_list.client_id = c.id
  local res = c.request_sync(method, params, 120000, 0)
  if not res then
    error('pp-lsp: ' .. method .. ' timed out', 0)
  end
  if res.err then
    error('pp-lsp: ' .. (res.err.message or vim.inspect(res.err)), 0)
  end
  return res.result
end

local function plan_here()
  local p = plans_list.items[vim.fn.line('.')]
  if not p then
    error('pp-lsp: no Flight Plan on this line', 0)
  end
  return p
end

-- plan_text is the plan's subtree in flightplans.org (the buffer when
-- loaded, else the disk).
local function plan_text(p)
  local fname = vim.uri_to_fname(p.uri)
  local lines
  local b = vim.fn.bufnr(fname)
  if b ~= -1 and vim.api.nvim_buf_is_loaded(b) then
    lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  else
    lines = vim.fn.readfile(fname)
  end
  local out = {}
  for i = p.line, #lines do
    if i > p.line and lines[i]:match('^%* ') then
      break
    end
    table.insert(out, lines[i])
  end
  return out
end

-- plans lists the Flight Plans in the list buffer and returns them.
function M.plans()
  if not (plans_list.buf and vim.api.nvim_buf_is_valid(plans_list.buf)) or vim.api.nvim_get_current_buf() ~= plans_list.buf then
    plans_list.client_id = need_client().id
  end
  local plans = plans_request('workspace/executeCommand', { command = 'passepartout.plans', arguments = { vim.empty_dict() } })
  local lines, items = {}, {}
  for _, p in ipairs(plans) do
    table.insert(lines, string.format('%-9s %-10s %s%s', p.state, p.tool, p.title, p.problem and ('  [' .. p.problem .. ']') or ''))
    items[#lines] = p
  end
  if #lines == 0 then
    lines = { 'No Flight Plans.' }
  end
  plans_list.items = items
  local buf = plans_list.buf
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, 'Passepartout plans')
    vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
    vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
    vim.api.nvim_buf_set_option(buf, 'swapfile', false)
    vim.api.nvim_buf_set_option(buf, 'filetype', 'passepartout-plans')
    plans_list.buf = buf
    local function key(lhs, fn)
      vim.api.nvim_buf_set_keymap(buf, 'n', lhs, '', {
        noremap = true,
        callback = function()
          local ok, err = pcall(fn)
          if not ok then
            notify(tostring(err):gsub('^pp%-lsp: ', ''), vim.log.levels.ERROR)
          end
        end,
      })
    end
    local function decide(cmd)
      return function()
        local p = plan_here()
        local ok, run = pcall(plans_request, 'workspace/executeCommand', { command = cmd, arguments = { { id = p.id } } })
        M.plans()
        if not ok then
          error(run, 0)
        end
        notify((run and (run.summary or run.state)) or 'done')
        M.last_plan_result = run
      end
    end
    key('a', decide('passepartout.approve'))
    key('A', decide('passepartout.approveAlways'))
    key('r', decide('passepartout.reject'))
    key('u', decide('passepartout.undo'))
    key('g', M.plans)
    key('<CR>', function()
      local p = plan_here()
      vim.cmd('wincmd p')
      vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(p.uri)))
      vim.api.nvim_win_set_cursor(0, { p.line, 0 })
    end)
    key('d', function()
      local p = plan_here()
      local hover = plans_request('textDocument/hover', { textDocument = { uri = p.uri }, position = { line = p.line - 1, character = 0 } })
      local text = ''
      if hover and hover.contents then
        text = type(hover.contents) == 'string' and hover.contents or (hover.contents.value or '')
      end
      local out = vim.split(text, '\n', { plain = true })
      table.insert(out, '')
      vim.list_extend(out, plan_text(p))
      local b = vim.fn.bufnr('Passepartout plan')
      if b == -1 then
        b = vim.api.nvim_create_buf(false, true)
        vim.api.nvim_buf_set_name(b, 'Passepartout plan')
        vim.api.nvim_buf_set_option(b, 'buftype', 'nofile')
        vim.api.nvim_buf_set_option(b, 'filetype', 'markdown')
      end
      vim.api.nvim_buf_set_option(b, 'modifiable', true)
      vim.api.nvim_buf_set_lines(b, 0, -1, false, out)
      vim.api.nvim_buf_set_option(b, 'modifiable', false)
      vim.cmd('split')
      vim.api.nvim_win_set_buf(0, b)
    end)
    vim.api.nvim_buf_set_keymap(buf, 'n', 'q', '<cmd>close<CR>', { noremap = true })
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  if vim.fn.bufwinnr(buf) == -1 then
    vim.cmd('split')
    vim.api.nvim_win_set_buf(0, buf)
  end
  return plans
end

-- add_id gives the headline at the cursor an :ID: and returns it.
function M.add_id()
  local res = command('passepartout.addId', place())
  notify(':ID: ' .. res.id)
  return res.id
end

-- Answers stay in the Passepartout buffer: one goes into a note only
-- when the user asks, with insert_answer.

-- insert_answer puts the last answer below the cursor's line as a quote
-- block and returns the server's answer ({uri, line, endLine, where}).
function M.insert_answer()
  local res = command('passepartout.insertAnswer', place())
  notify(string.format('the answer is on lines %d-%d', res.line + 1, res.endLine + 1))
  return res
end

-- Notes: the backlinks split, daily notes, code lenses.

-- The backlinks split: its buffer, and the node it shows ({buf, line}).
local backlinks = { buf = nil, source = nil, timer = nil }

-- node_line is the line of the headline holding the cursor (0 before the
-- first one: the file's own node).
local function node_line()
  local line = vim.fn.search('^\\*\\+\\s', 'bcnW')
  return line
end

local function node_title(buf, line)
  if line == 0 then
    for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, 50, false)) do
      local t = l:match('^#%+[tT][iI][tT][lL][eE]:%s*(.-)%s*$')
      if t then
        return t
      end
    end
    return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':t:r')
  end
  local h = vim.api.nvim_buf_get_lines(buf, line - 1, line, false)[1] or ''
  return (h:gsub('^%*+%s+', ''):gsub('%s+:[%w_@#%%:]+:%s*$', ''))
end

local function backlinks_window()
  if backlinks.buf and vim.api.nvim_buf_is_valid(backlinks.buf) then
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_buf(w) == backlinks.buf then
        return w
      end
    end
  end
end

-- visit opens an entry's place in the window the split was opened from.
local function visit(entry)
  local fname = vim.uri_to_fname(entry.uri)
  local target = backlinks.from_win
  if not (target and vim.api.nvim_win_is_valid(target)) then
    vim.cmd('wincmd p')
    target = vim.api.nvim_get_current_win()
  end
  vim.api.nvim_set_current_win(target)
  vim.cmd('edit ' .. vim.fn.fnameescape(fname))
  vim.api.nvim_win_set_cursor(0, { entry.range.start.line + 1, 0 })
end

-- show_backlinks fills the split with what the server answered.
local function show_backlinks(title, links, mentions)
  local buf = backlinks.buf
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, 'Passepartout backlinks')
    vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
    vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
    vim.api.nvim_buf_set_option(buf, 'swapfile', false)
    vim.api.nvim_buf_set_option(buf, 'filetype', 'passepartout-backlinks')
    backlinks.buf = buf
    vim.api.nvim_buf_set_keymap(buf, 'n', '<CR>', '', {
      noremap = true,
      callback = function()
        local e = backlinks.entries[vim.fn.line('.')]
        if e then
          visit(e)
        end
      end,
    })
    vim.api.nvim_buf_set_keymap(buf, 'n', 'q', '<cmd>close<CR>', { noremap = true })
  end
  local lines, entries = { title, '', string.format('Backlinks (%d)', #links) }, {}
  local function add(label, e)
    table.insert(lines, string.format('  %s  %s:%d', label, vim.fn.fnamemodify(vim.uri_to_fname(e.uri), ':t'), e.range.start.line + 1))
    entries[#lines] = e
    table.insert(lines, '      ' .. (e.context or ''))
    entries[#lines] = e
  end
  for _, b in ipairs(links) do
    add(b.title, b)
  end
  if #links == 0 then
    table.insert(lines, '  none')
  end
  table.insert(lines, '')
  table.insert(lines, string.format('Unlinked references (%d)', #mentions))
  for _, m in ipairs(mentions) do
    add(m.title or 'mention', m)
  end
  if #mentions == 0 then
    table.insert(lines, '  none')
  end
  backlinks.entries = entries
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  if not backlinks_window() then
    local from = vim.api.nvim_get_current_win()
    vim.cmd('botright vsplit')
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_win_set_width(0, math.max(40, math.floor(vim.o.columns / 3)))
    vim.api.nvim_win_set_option(0, 'wrap', true)
    vim.api.nvim_win_set_option(0, 'linebreak', true)
    vim.api.nvim_win_set_option(0, 'number', false)
    vim.api.nvim_set_current_win(from)
  end
  return buf
end

-- backlinks shows the backlinks and unlinked references of the node at
-- args ({uri, position}; the cursor's by default) in the side split,
-- which then follows the cursor from node to node. It returns the
-- server's two answers.
function M.backlinks(args)
  args = args or place()
  local links = command('passepartout.backlinks', args)
  local mentions = command('passepartout.unlinked', args)
  local src = vim.api.nvim_get_current_buf()
  local line = node_line()
  if args.position and vim.uri_to_bufnr(args.uri) == src then
    line = args.position.line + 1
    if not (vim.api.nvim_buf_get_lines(src, line - 1, line, false)[1] or ''):match('^%*+%s') then
      line = 0
    end
  end
  backlinks.source = { buf = src, line = line }
  backlinks.from_win = vim.api.nvim_get_current_win()
  show_backlinks(node_title(src, line), links, mentions)
  return { backlinks = links, unlinked = mentions }
end

-- follow refreshes the split when the cursor has moved to another node.
local function follow()
  if not backlinks_window() or not M.client(0) then
    return
  end
  local here = { buf = vim.api.nvim_get_current_buf(), line = node_line() }
  local s = backlinks.source
  if s and s.buf == here.buf and s.line == here.line then
    return
  end
  if backlinks.timer then
    backlinks.timer:stop()
  end
  backlinks.timer = vim.defer_fn(function()
    backlinks.timer = nil
    if vim.api.nvim_get_current_buf() == here.buf and node_line() == here.line then
      pcall(M.backlinks)
    end
  end, 300)
end

-- daily visits the daily note of the day (YYYY-MM-DD, yesterday,
-- tomorrow; today when empty), made when missing; it returns its path.
function M.daily(date)
  local args = (date and date ~= '') and { date = date } or vim.empty_dict()
  local res = command('passepartout.daily', args)
  local fname = vim.uri_to_fname(res.uri)
  vim.cmd('edit ' .. vim.fn.fnameescape(fname))
  return fname
end

-- create_node makes the file the [[file:…]] link at the cursor names and
-- visits it; it returns its path.
function M.create_node()
  local res = command('passepartout.createNode', place())
  local fname = vim.uri_to_fname(res.uri)
  vim.cmd('edit ' .. vim.fn.fnameescape(fname))
  return fname
end

-- rename_file renames the buffer's file to new, after the edits the
-- server answers for workspace/willRenameFiles (the file: links to it,
-- its own relative links) are applied and written; it returns the new
-- path.
function M.rename_file(new)
  local c = need_client()
  local old = vim.api.nvim_buf_get_name(0)
  new = vim.fn.fnamemodify(vim.fn.expand(new), ':p')
  if vim.fn.isdirectory(new) == 1 then
    new = new:gsub('/$', '') .. '/' .. vim.fn.fnamemodify(old, ':t')
  end
  if vim.loop.fs_stat(new) then
    error('pp-lsp: ' .. new .. ' exists already', 0)
  end
  local params = { files = { { oldUri = vim.uri_from_fname(old), newUri = vim.uri_from_fname(new) } } }
  local res = c.request_sync('workspace/willRenameFiles', params, 10000, 0)
  if res and res.err then
    error('pp-lsp: ' .. (res.err.message or vim.inspect(res.err)), 0)
  end
  if res and res.result then
    vim.lsp.util.apply_workspace_edit(res.result, 'utf-16')
  end
  vim.cmd('silent! wall')
  vim.fn.mkdir(vim.fn.fnamemodify(new, ':h'), 'p')
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd('silent saveas ' .. vim.fn.fnameescape(new))
  os.remove(old)
  local stale = vim.fn.bufnr(old)
  if stale ~= -1 and stale ~= buf then
    vim.api.nvim_buf_delete(stale, { force = true })
  end
  return new
end

-- enable_codelens shows the code lenses of the buffer and keeps them
-- current.
function M.enable_codelens(bufnr)
  local group = vim.api.nvim_create_augroup('passepartout_codelens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'CursorHold', 'InsertLeave', 'BufWritePost' }, {
    group = group,
    buffer = bufnr,
    callback = function() vim.lsp.codelens.refresh() end,
  })
  vim.api.nvim_buf_call(bufnr, function() vim.lsp.codelens.refresh() end)
end

-- A code lens runs here: it opens the backlinks split at its node.
vim.lsp.commands['passepartout.backlinks'] = function(cmd)
  M.backlinks(cmd.arguments and cmd.arguments[1])
end

-- configure sends new settings (the "passepartout" section) to the server.
function M.configure(settings)
  M.config.settings = vim.tbl_deep_extend('force', M.config.settings or {}, settings)
  local c = M.client(0)
  if c then
    c.notify('workspace/didChangeConfiguration', { settings = { passepartout = M.config.settings } })
  end
end

local function user_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd('PassepartoutContext', function(o) M.context(tonumber(o.args)) end, { nargs = '?' })
  cmd('PassepartoutAsk', function(o) M.ask(o.args) end, { nargs = '+' })
  cmd('PassepartoutCancel', function() M.cancel() end, {})
  cmd('PassepartoutApprove', function(o) M.approve(o.args) end, { nargs = '?' })
  cmd('PassepartoutReject', function(o) M.reject(o.args) end, { nargs = '?' })
  cmd('PassepartoutPlans', function() M.plans() end, {})
  cmd('PassepartoutAddId', function() M.add_id() end, {})
  cmd('PassepartoutInsertAnswer', function() M.insert_answer() end, {})
  cmd('PassepartoutBacklinks', function() M.backlinks() end, {})
  cmd('PassepartoutDaily', function(o) M.daily(o.args) end, { nargs = '?' })
  cmd('PassepartoutCreateNode', function() M.create_node() end, {})
  cmd('PassepartoutRenameFile', function(o) M.rename_file(o.args) end, { nargs = 1, complete = 'file' })
end

-- setup configures the plugin and starts pp-lsp for every org buffer.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  local group = vim.api.nvim_create_augroup('passepartout', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'org',
    callback = function(ev) M.attach(ev.buf) end,
  })
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'BufEnter' }, {
    group = group,
    pattern = '*.org',
    callback = follow,
  })
  user_commands()
  -- Buffers already open.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_option(b, 'filetype') == 'org' then
      M.attach(b)
    end
  end
end

return M
