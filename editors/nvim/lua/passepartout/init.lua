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
--   :PassepartoutApproveAlways [ID] approve it and allow similar actions from now on
--   :PassepartoutUndo [ID]         undo the latest change an action made (again: redo)
--                                  (these four return at once and say how it
--                                  ended when the server answers)
--   :PassepartoutPlans             list the Flight Plans; on a plan's line <CR> opens it,
--                                  d shows it, a approves, A approves and allows similar
--                                  actions, r rejects, u undoes, g lists again
--   :PassepartoutSkills            list the skills, in the order they apply
--   :PassepartoutRunSkill {NAME}   run a skill (title or ID) now
--   :PassepartoutChats             the conversations, the latest first, in the quickfix list
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
-- The commands work from any buffer (the plugin's own buffers are not
-- files: pp-lsp never attaches to them, and their commands go to the
-- memex they came from); an error is one vim.notify message. When pp-lsp
-- attaches, 'omnifunc' completes [[id: links by partial title
-- (<C-x><C-o>) and buffer-local keys are set: gd, K, gr, <leader>rn,
-- <leader>ca, <leader>pc (context), <leader>pa (ask), <leader>pb
-- (backlinks); `keymaps = false` in setup sets none. :help passepartout
-- is the manual, :checkhealth passepartout the check, and
-- require('passepartout').lspconfig a server configuration for
-- nvim-lspconfig.
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
-- require('passepartout').configure({...})). From `settings` the server
-- takes neither roots, dataDir, configFile, providers nor the embedder
-- (give them in `init_options`), and its privacyTags only add to the tags
-- in force: an editor may take that section from a project's files.

local M = {}

M.config = {
  -- How long listing the plans, or a plan's description, may take (ms):
  -- quick, so Neovim waits for it, but never longer. Approving,
  -- rejecting and undoing never wait: they run while you work.
  list_timeout = 10000,
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
  -- Buffer-local keys set when pp-lsp attaches to an Org buffer; false
  -- turns them all off, false for one key turns that one off.
  keymaps = {
    definition = 'gd', -- follow the link at the cursor
    hover = 'K', -- what the link at the cursor points at; a plan's state
    references = 'gr', -- the backlinks of the node at the cursor
    rename = '<leader>rn', -- rename the ID (or the file link) everywhere
    code_action = '<leader>ca', -- add an :ID:, approve or reject a plan, link a mention
    context = '<leader>pc', -- :PassepartoutContext
    ask = '<leader>pa', -- :PassepartoutAsk, the question read from a prompt
    backlinks = '<leader>pb', -- :PassepartoutBacklinks
  },
  -- Echo the server's work (indexing the memex) as it goes; the latest is
  -- also require('passepartout').status(), for a statusline.
  progress = true,
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

-- The names a pp-lsp client goes by: this plugin's, and nvim-lspconfig's
-- (require('passepartout').lspconfig registered as `pp_lsp`).
local names = { ['pp-lsp'] = true, pp_lsp = true }

-- is_view tells the plugin's own buffers (context, answer, backlinks,
-- plans) and every other buffer that is no file: pp-lsp never attaches
-- to them.
local function is_view(bufnr)
  return vim.api.nvim_buf_get_option(bufnr, 'buftype') ~= ''
end

-- follow_end keeps the windows of buf at its end while text is added:
-- a window follows when its cursor was on the last line before.
local function follow_end(buf, last_before)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf then
      local row = vim.api.nvim_win_get_cursor(w)[1]
      if row >= last_before or w ~= vim.api.nvim_get_current_win() then
        vim.api.nvim_win_set_cursor(w, { vim.api.nvim_buf_line_count(buf), 0 })
      end
    end
  end
end

-- append adds lines to the end of a read-only view buffer; the first
-- joins the last line when join is true.
-- waiting is the namespace of the line that says a question waits for
-- the model's first word; the next text appended replaces it.
local waiting = vim.api.nvim_create_namespace('passepartout-waiting')

local function append(buf, lines, join)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, waiting, 0, -1)
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  if join then
    local last = vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1] or ''
    lines[1] = last .. lines[1]
    vim.api.nvim_buf_set_lines(buf, -2, -1, false, lines)
  else
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  follow_end(buf, n)
end

-- The server's own work (indexing), by token: its title; and the latest
-- line said about it (status()).
local works = {}
M.progress_line = nil

local function show_progress(token, v)
  if v.kind == 'begin' then
    works[token] = v.title or 'working'
  end
  local title = works[token] or 'working'
  local line = title
  if v.message and v.message ~= '' then
    line = line .. ': ' .. v.message
  end
  if v.percentage then
    line = line .. string.format(' (%d%%)', v.percentage)
  end
  if v.kind == 'end' then
    works[token] = nil
    if not (v.message and v.message ~= '') then
      line = title .. ': done'
    end
  end
  M.progress_line = line
  if M.config.progress then
    vim.api.nvim_echo({ { 'pp-lsp: ' .. line } }, false, {})
  end
end

-- status is the latest word of the server's work, for a statusline:
--   set statusline+=%{v:lua.require'passepartout'.status()}
function M.status()
  return M.progress_line and ('pp-lsp: ' .. M.progress_line) or ''
end

-- $/progress: an answer being streamed goes into its buffer; anything
-- else (the indexing of the memex) to Neovim's own handler, and echoed.
local function progress_handler(err, result, ctx, config)
  local s = result and streams[result.token]
  if s then
    local v = result.value or {}
    if v.kind == 'end' and s.ended then -- cancelled: its last word
      streams[result.token] = nil
    elseif v.kind == 'report' and type(v.message) == 'string' and not s.ended then
      append(s.buf, vim.split(v.message, '\n', { plain = true }), true)
    end
    return
  end
  local ret = vim.lsp.handlers['$/progress'](err, result, ctx, config)
  if result and type(result.value) == 'table' then
    show_progress(result.token, result.value)
  end
  return ret
end

-- The keys a buffer gets, by name in config.keymaps.
local key_actions = {
  definition = { function() vim.lsp.buf.definition() end, 'follow the link' },
  hover = { function() vim.lsp.buf.hover() end, 'what the link points at' },
  references = { function() vim.lsp.buf.references() end, 'backlinks' },
  rename = { function() vim.lsp.buf.rename() end, 'rename the ID everywhere' },
  code_action = { function() vim.lsp.buf.code_action() end, 'code actions' },
  context = { function() M.run(M.context) end, 'what the model would see' },
  ask = {
    function()
      vim.ui.input({ prompt = 'Ask Passepartout: ' }, function(q)
        if q and q:match('%S') then
          M.run(M.ask, q)
        end
      end)
    end,
    'ask a question',
  },
  backlinks = { function() M.run(M.backlinks) end, 'the backlinks split' },
}

-- set_keymaps gives bufnr the keys of config.keymaps.
local function set_keymaps(bufnr)
  local keys = M.config.keymaps
  if type(keys) ~= 'table' then
    return
  end
  for action, lhs in pairs(keys) do
    local a = key_actions[action]
    if a and type(lhs) == 'string' and lhs ~= '' then
      vim.keymap.set('n', lhs, a[1], { buffer = bufnr, desc = 'pp-lsp ' .. action .. ': ' .. a[2], silent = true })
    end
  end
end

-- on_attach is what the plugin does for a buffer pp-lsp attaches to:
-- completion through 'omnifunc' (<C-x><C-o>), the keys, the code lenses.
-- Call it from your own on_attach when you start pp-lsp through
-- nvim-lspconfig.
function M.on_attach(client, bufnr)
  vim.api.nvim_buf_set_option(bufnr, 'omnifunc', "v:lua.require'passepartout'.omnifunc")
  -- No [Scratch] [Preview] window left open after a completion.
  vim.api.nvim_create_autocmd('CompleteDone', {
    group = vim.api.nvim_create_augroup('passepartout_complete_' .. bufnr, { clear = true }),
    buffer = bufnr,
    callback = function()
      if vim.fn.pumvisible() == 0 then
        vim.cmd('silent! pclose')
      end
    end,
  })
  set_keymaps(bufnr)
  if M.config.codelens then
    M.enable_codelens(bufnr)
  end
end

-- reload serves passepartout/reload: the server wrote the file while its
-- buffer was unmodified (a plan filed, a plan's new state); the buffer
-- reads it again unless it was modified since, and a plans list or plan
-- view that shows is refreshed.
local function reload(params)
  local fname = params and params.uri and vim.uri_to_fname(params.uri)
  local b = fname and vim.fn.bufnr(fname) or -1
  if b ~= -1 and vim.api.nvim_buf_is_loaded(b) and not vim.api.nvim_buf_get_option(b, 'modified') then
    vim.api.nvim_buf_call(b, function()
      vim.cmd('silent! edit')
    end)
  end
  -- A plans list or plan view that shows follows.
  M.refresh_plan_views()
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
      -- Neovim 0.7 prints an edit's label ("Workspace edit Passepartout:
      -- undo of …") next to the server's own message about it, and two
      -- lines make a hit-enter prompt: the edit is applied without it.
      ['workspace/applyEdit'] = function(err, params, ctx, config)
        if params and params.label then
          params = vim.deepcopy(params)
          params.label = nil
        end
        return vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
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
      M.on_attach(client, bufnr)
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
      -- Neovim 0.7 never answers the requests of a client that is gone: a
      -- question still waiting ends here, saying so.
      vim.schedule(function()
        for token, s in pairs(streams) do
          if s.client == client_id and not s.ended then
            streams[token] = nil
            s.ended = true
            local why = string.format('Failed: pp-lsp stopped before answering (%s); ask again to start it.',
              (signal and signal ~= 0) and ('signal ' .. signal) or ('exit code ' .. tostring(code)))
            M.last_result = { outcome = 'error', error = why }
            append(s.buf, { '', why })
          end
        end
      end)
    end,
  }
end

-- attach starts (or reuses) the server for the buffer's memex; the
-- plugin's own buffers and other buffers that are no file are left alone.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == '' or is_view(bufnr) then
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

local function all_clients()
  local list = {}
  local every = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(every) do
    if names[c.name] and not c.is_stopped() then
      table.insert(list, c)
    end
  end
  return list
end

-- client returns the pp-lsp client for the buffer: the one attached to
-- it; for the plugin's own buffers, the one they were made by; else the
-- one whose memex holds the buffer's file, else the only one running.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local every = all_clients()
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if names[c.name] then
      return c
    end
  end
  local ok, id = pcall(vim.api.nvim_buf_get_var, bufnr, 'passepartout_client')
  if ok then
    local c = vim.lsp.get_client_by_id(id)
    if c and not c.is_stopped() then
      return c
    end
  end
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname ~= '' and not is_view(bufnr) then
    local dir = vim.fn.fnamemodify(fname, ':p:h')
    for _, c in ipairs(every) do
      local root = c.config.root_dir
      if root and (dir == root or dir:sub(1, #root + 1) == root .. '/') then
        return c
      end
    end
  end
  if #every == 1 then
    return every[1]
  end
end

-- served tells a buffer a pp-lsp client is attached to: an Org file the
-- server reads as a document.
local function served(bufnr)
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if names[c.name] then
      return true
    end
  end
  return false
end

local function need_client()
  local c = M.client(0)
  if not c and M.config.cmd and vim.bo.filetype == 'org' and not is_view(0)
      and vim.api.nvim_buf_get_name(0) ~= '' then
    -- An Org file whose server stopped (a crash, a kill): start it again,
    -- as opening the file did.
    M.attach(0)
    vim.wait(10000, function()
      local n = M.client(0)
      return n ~= nil and n.initialized == true
    end, 20)
    c = M.client(0)
  end
  if not c then
    if #all_clients() > 1 then
      error('pp-lsp: several memexes are open: run this from an Org file of the one you mean', 0)
    end
    error('pp-lsp: no pp-lsp server is running: open an Org file of your memex first', 0)
  end
  return c
end

-- run calls fn(...) and says its error, if any, through vim.notify: a
-- command ends in one message, never a traceback.
function M.run(fn, ...)
  local res = { pcall(fn, ...) }
  if not res[1] then
    local msg = tostring(res[2]):gsub('^pp%-lsp: ', '')
    notify(msg, vim.log.levels.ERROR)
    return nil
  end
  return unpack(res, 2)
end

-- place is the cursor as {uri, position} (UTF-16 columns); in one of the
-- plugin's buffers, the place it was made from.
local function place()
  local ok, from = pcall(vim.api.nvim_buf_get_var, 0, 'passepartout_place')
  if ok and type(from) == 'table' then
    return vim.deepcopy(from)
  end
  if is_view(0) then
    return vim.empty_dict()
  end
  local p = vim.lsp.util.make_position_params(0, 'utf-16')
  return { uri = p.textDocument.uri, position = p.position }
end

-- command runs a workspace/executeCommand synchronously and returns its
-- result (raises the server's error).
local function command(cmd, args, timeout)
  local c = need_client()
  local res = c.request_sync('workspace/executeCommand', { command = cmd, arguments = { args } }, timeout or 30000, vim.api.nvim_get_current_buf())
  if not res then
    error('pp-lsp: ' .. cmd .. ' timed out', 0)
  end
  if res.err then
    error('pp-lsp: ' .. (res.err.message or vim.inspect(res.err)), 0)
  end
  return res.result
end

-- view_buffer is the plugin's buffer of the name, made when missing: no
-- file (pp-lsp never attaches to it), hidden when its window closes, q
-- closes it; it remembers the client and the place it was made from.
local function view_buffer(title, filetype, from)
  local buf = vim.fn.bufnr('^' .. vim.fn.escape(title, '[]*?\\') .. '$')
  if buf == -1 then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, title)
    vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
    vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
    vim.api.nvim_buf_set_option(buf, 'swapfile', false)
    vim.api.nvim_buf_set_option(buf, 'modifiable', false)
    vim.keymap.set('n', 'q', '<cmd>close<CR>', { buffer = buf, silent = true, desc = 'close' })
  end
  if from then
    if from.client then
      vim.api.nvim_buf_set_var(buf, 'passepartout_client', from.client)
    end
    if from.place then
      vim.api.nvim_buf_set_var(buf, 'passepartout_place', from.place)
    end
  end
  if vim.api.nvim_buf_get_option(buf, 'filetype') ~= filetype then
    vim.api.nvim_buf_set_option(buf, 'filetype', filetype)
  end
  return buf
end

local function show(buf)
  if vim.fn.bufwinnr(buf) == -1 then
    vim.cmd('split')
    vim.api.nvim_win_set_buf(0, buf)
  end
end

local function scratch(title, lines, filetype, from)
  local buf = view_buffer(title, filetype or 'org', from)
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  show(buf)
  return buf
end

-- from is what a view made from the cursor remembers: the client and the
-- place.
local function from_here(c, args)
  return { client = c.id, place = args.uri and { uri = args.uri, position = args.position } or nil }
end

-- context shows what the model would see from the cursor, the cursor on
-- the foveal node, and returns the server's answer (DESIGN §5's JSON as a
-- table).
function M.context(budget)
  local c = need_client()
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
  local buf = scratch('Passepartout context', lines, 'org', from_here(c, args))
  -- The foveal node is the headline whose drawer says :FOVEAL: t.
  local row = 1
  for i, l in ipairs(lines) do
    if l:match('^%s*:FOVEAL:%s+t%s*$') then
      for j = i, 1, -1 do
        if lines[j]:match('^%*+%s') then
          row = j
          break
        end
      end
      break
    end
  end
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf then
      vim.api.nvim_win_set_cursor(w, { row, 0 })
      vim.api.nvim_win_call(w, function() vim.cmd('normal! zt') end)
    end
  end
  return view
end

-- figures is what an answer cost in tokens and the conversation it went
-- into, in one line (nil when it names neither); the note under it names
-- the model.
local function figures(result)
  if not result.model and not result.chat then
    return nil
  end
  local parts = {}
  if result.model then
    local u = result.usage or {}
    table.insert(parts, string.format('%d tokens in, %d out%s', u.prompt or 0, u.completion or 0,
      u.estimated and ' (estimated)' or ''))
  end
  if result.chat then
    table.insert(parts, 'chat: ' .. vim.fn.fnamemodify(vim.uri_to_fname(result.chat), ':~'))
  end
  return '— ' .. table.concat(parts, '; ')
end

-- outcome_words says how a question ended, from passepartout.ask's result.
local function outcome_words(r)
  local summary = (r.summary and r.summary ~= '') and (': ' .. r.summary) or ''
  if r.outcome == 'answered' then
    return 'Answered.'
  elseif r.outcome == 'filed' then
    return r.planUri and 'Plan filed — <CR> to open it' or ('Plan filed in flightplans.org: ' .. (r.planId or ''))
  elseif r.outcome == 'ran' then
    return 'Ran ' .. (r.tool or 'a tool') .. summary .. '.'
  elseif r.outcome == 'denied' then
    return string.format('Refused: %s was denied by the %s gate%s.', r.tool or 'the action', r.gate or '?',
      (r.reason and r.reason ~= '') and (' (' .. r.reason .. ')') or '')
  elseif r.outcome == 'cancelled' then
    return '[cancelled]'
  end
  return (r.outcome or 'ended'):gsub('^%l', string.upper) .. summary .. '.'
end

-- The filed plans an answer buffer names, by line: {uri, id}; <CR> there
-- opens flightplans.org on the plan.
local plan_links = {}

local function open_plan_at_cursor()
  local p = (plan_links[vim.api.nvim_get_current_buf()] or {})[vim.fn.line('.')]
  if not p then
    return false
  end
  vim.cmd('wincmd p')
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(p.uri)))
  local line = vim.fn.search('^\\s*:ID:\\s\\+' .. vim.fn.escape(p.id, '\\/.*$^~[]') .. '\\s*$', 'w')
  if line > 0 then
    vim.fn.search('^\\*\\+\\s', 'bW')
    -- The plan at the window's top: its action and diff below it show,
    -- not the plans before it.
    vim.cmd('normal! zt')
  end
  return true
end

-- note ends an answer in its buffer with one line saying how it ended.
local function end_note(s, text)
  if s.ended then
    return
  end
  s.ended = true
  append(s.buf, { '', text })
end

-- ask sends a question from the cursor; the answer streams into the
-- Passepartout buffer, whose windows follow it. Asked from a chat file
-- (under chats/), it continues that conversation; otherwise it starts one.
-- Asked from a buffer pp-lsp does not serve (a file that is no Org note
-- of the memex), the question goes without a place: the model sees the
-- memex's outline, no note at the fovea, and the answer buffer says so.
-- It returns the progress token.
function M.ask(question)
  local c = need_client()
  counter = counter + 1
  local token = string.format('pp-lsp-ask-%d-%d', uv.os_getpid(), counter)
  local args, aside = place(), nil
  if not is_view(0) and not served(0) then
    args = {}
    local name = vim.api.nvim_buf_get_name(0)
    aside = string.format('(%s is not a note of the memex: asked without the context at the cursor)',
      name == '' and 'this buffer' or vim.fn.fnamemodify(name, ':t'))
  end
  args.text = question
  local src = vim.api.nvim_get_current_buf()
  local buf = view_buffer('Passepartout', 'org', from_here(c, args))
  vim.keymap.set('n', '<CR>', function()
    if not open_plan_at_cursor() then
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'n', false)
    end
  end, { buffer = buf, silent = true, desc = 'open the plan named here' })
  local first = vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  local head = first and { '* ' .. question } or { '', '* ' .. question }
  if aside then
    table.insert(head, aside)
  end
  table.insert(head, '')
  vim.api.nvim_buf_set_lines(buf, first and 0 or -1, -1, false, head)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_extmark(buf, waiting, vim.api.nvim_buf_line_count(buf) - 1, 0,
    { virt_text = { { 'Waiting for the model…  :PassepartoutCancel cancels', 'Comment' } } })
  local s = { buf = buf, client = c.id }
  streams[token] = s
  M.last_token, M.last_result = token, nil
  c.request('workspace/executeCommand', { command = 'passepartout.ask', arguments = { args }, workDoneToken = token },
    function(err, result)
      streams[token] = nil
      if s.ended then -- cancelled: said already
        return
      end
      if err then
        M.last_result = { outcome = 'error', error = err.message }
        end_note(s, 'Failed: ' .. (err.message or 'no reason given'))
        return
      end
      M.last_result = result
      local line = figures(result)
      if line then
        append(buf, { '', line })
      end
      local note, model = outcome_words(result), result.model
      if model and model ~= '' then
        if result.outcome == 'answered' then
          note = 'Answered by ' .. model .. '.'
        else
          note = note .. ' (' .. model .. ')'
        end
      end
      if result.planId then
        notify('a Flight Plan waits for your approval in flightplans.org')
        if result.planUri then
          s.plan_line = vim.api.nvim_buf_line_count(buf) + 2
          plan_links[buf] = plan_links[buf] or {}
          plan_links[buf][s.plan_line] = { uri = result.planUri, id = result.planId }
        end
      end
      end_note(s, note)
    end, src)
  if vim.fn.bufwinnr(buf) == -1 then
    vim.cmd('split')
    vim.api.nvim_win_set_buf(0, buf)
    vim.cmd('wincmd p')
  end
  follow_end(buf, 0)
  return token
end

-- cancel stops the latest question, and says so in its buffer (Neovim
-- 0.7 drops the server's RequestCancelled answer).
function M.cancel()
  local token = M.last_token
  local s = token and streams[token]
  if not s then
    notify('no question is being answered')
    return false
  end
  local c = vim.lsp.get_client_by_id(s.client) or M.client(0)
  if c then
    c.notify('window/workDoneProgress/cancel', { token = token })
  end
  M.last_result = { outcome = 'cancelled' }
  end_note(s, '[cancelled]')
  return true
end

local function decided_words(run)
  local rule = run.rule and (' (from now on ' .. run.rule .. ' is allowed)') or ''
  local summary = run.summary or ''
  if summary == '' then
    summary = run.state or ''
  elseif run.state and summary:sub(1, #run.state) ~= run.state then
    summary = run.state .. ' — ' .. summary
  end
  return summary .. rule
end

-- decide_async is set below, by the plans list's keys it shares with.
local decide_async

local function decide(cmd, id, async)
  if async then
    return decide_async(cmd, id)
  end
  local args = id and id ~= '' and { id = id } or place()
  local run = command(cmd, args, 120000)
  notify(decided_words(run))
  return run
end

-- approve approves (and runs) the plan with the id, or the plan at the
-- cursor. With async (:PassepartoutApprove), it returns at once and says
-- how the plan ended when the server answers; without, it waits and
-- returns the server's answer.
function M.approve(id, async)
  return decide('passepartout.approve', id, async)
end

-- reject rejects the plan with the id, or the plan at the cursor.
function M.reject(id, async)
  return decide('passepartout.reject', id, async)
end

-- approve_always approves the plan and allows similar actions from now on
-- (the narrowest permission rule that would have allowed it goes into the
-- configuration file).
function M.approve_always(id, async)
  return decide('passepartout.approveAlways', id, async)
end

-- undo takes back the latest change an action made (or the one with the
-- id); undoing an undo redoes. The server says what it did
-- (window/showMessage): saying it again would stack the lines into a
-- hit-enter prompt.
function M.undo(id, async)
  if async then
    return decide_async('passepartout.undo', id)
  end
  local args = id and id ~= '' and { id = id } or vim.empty_dict()
  return command('passepartout.undo', args, 120000)
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
  local res = c.request_sync(method, params, M.config.list_timeout or 10000, 0)
  if not res then
    error(string.format('pp-lsp: the server did not answer in %d seconds: try again (g)', math.floor((M.config.list_timeout or 10000) / 1000)), 0)
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

-- plan_text is the plan's subtree in flightplans.org as the server reads
-- it: the buffer when it is loaded and modified, else the disk (which an
-- unmodified buffer may not have caught up with). The plan is found by
-- its :ID:, else at its line.
local function plan_text(p)
  local fname = vim.uri_to_fname(p.uri)
  local lines
  local b = vim.fn.bufnr(fname)
  if b ~= -1 and vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_option(b, 'modified') then
    lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  elseif vim.fn.filereadable(fname) == 1 then
    lines = vim.fn.readfile(fname)
  else
    lines = {}
  end
  local first = p.line
  local want = '^%s*:ID:%s+' .. vim.pesc(p.id or '') .. '%s*$'
  for i, l in ipairs(lines) do
    if p.id and l:find(want) then
      for j = i, 1, -1 do
        if lines[j]:match('^%* ') then
          first = j
          break
        end
      end
      break
    end
  end
  local out = {}
  for i = first, #lines do
    if i > first and lines[i]:match('^%* ') then
      break
    end
    table.insert(out, lines[i])
  end
  return out
end

-- list_line is how the list shows a plan.
local function list_line(p)
  return string.format('%-9s %-10s %s%s', p.state, p.tool, p.title, p.problem and ('  [' .. p.problem .. ']') or '')
end

-- The plan view ('d'): the plan as it was when shown, to be checked
-- against flightplans.org before a key acts on it.
local plan_view = { buf = nil, shown = nil }

-- view_lines are the lines of the plan view of p: the keys, the server's
-- verdict and gate trace (hover), then the plan as flightplans.org has it.
local function view_lines(p)
  local hover = plans_request('textDocument/hover', { textDocument = { uri = p.uri }, position = { line = p.line - 1, character = 0 } })
  local text = ''
  if hover and hover.contents then
    text = type(hover.contents) == 'string' and hover.contents or (hover.contents.value or '')
  end
  local out = { 'Flight Plan   a approve   A approve and allow similar   r reject   g show again   q close', '' }
  vim.list_extend(out, vim.split(text, '\n', { plain = true }))
  table.insert(out, '')
  vim.list_extend(out, plan_text(p))
  return out
end

-- The namespace of the JSON escapes shown as their characters.
local escapes_ns = vim.api.nvim_create_namespace('passepartout_json_escapes')

-- show_json_escapes shows each \uXXXX of the JSON blocks of buf as the
-- character it decodes to: pp-lsp writes a marker that would run code
-- when a file is opened ("vim:", "Local Variables:") inside a plan's JSON
-- with one character escaped ("vim\u003a"), which decodes the same, so the
-- action approved is the one filed. Only a printable ASCII character other
-- than " and \ is shown so (one that could hide the JSON's quoting, or a
-- control or invisible character, stays as written); the text is
-- unchanged, and the line under the cursor shows it as written
-- ('concealcursor' empty).
function M.show_json_escapes(buf)
  vim.api.nvim_buf_clear_namespace(buf, escapes_ns, 0, -1)
  local in_json = false
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if not in_json then
      in_json = line:match('^%s*#%+begin_src%s+json%s*$') ~= nil or line:match('^%s*```json%s*$') ~= nil
    elseif line:match('^%s*#%+end_src%s*$') or line:match('^%s*```%s*$') then
      in_json = false
    else
      for from, slashes, hex, to in line:gmatch('()(\\+)u(%x%x%x%x)()') do
        local code = tonumber(hex, 16)
        -- An odd run of backslashes ends in an escape; an even one is
        -- backslashes written, then a plain "u".
        if #slashes % 2 == 1 and code >= 0x20 and code <= 0x7e and code ~= 0x22 and code ~= 0x5c then
          vim.api.nvim_buf_set_extmark(buf, escapes_ns, i - 1, from - 1 + #slashes - 1,
            { end_col = to - 1, conceal = string.char(code), hl_group = 'Underlined' })
        end
      end
    end
  end
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    vim.wo[win].conceallevel = 2
    vim.wo[win].concealcursor = ''
  end
end

local function show_plan(p, note, quiet)
  local lines = view_lines(p)
  if note then
    lines[2] = note
  end
  local win = plan_view.buf and vim.fn.bufwinid(plan_view.buf) or -1
  local cursor = win ~= -1 and vim.api.nvim_win_get_cursor(win) or nil
  local buf
  if quiet then
    -- Filled anew where it is: no window opens, none is selected.
    buf = plan_view.buf
    vim.api.nvim_buf_set_option(buf, 'modifiable', true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  else
    buf = scratch('Passepartout plan', lines, 'markdown', { client = plans_list.client_id })
  end
  M.show_json_escapes(buf)
  plan_view.shown = { id = p.id, state = p.state, hash = p.hash, revision = p.revision, edited = p.edited, problem = p.problem, text = table.concat(plan_text(p), '\n') }
  if cursor then
    pcall(vim.api.nvim_win_set_cursor, vim.fn.bufwinid(buf), { math.min(cursor[1], #lines), 0 })
  end
  return buf
end

-- current is the plan with the id as the server lists it now (nil when
-- it is gone).
local function current(id)
  local plans = plans_request('workspace/executeCommand', { command = 'passepartout.plans', arguments = { vim.empty_dict() } })
  for _, p in ipairs(plans) do
    if p.id == id then
      return p
    end
  end
end

-- stale says how the plan changed since shown, or nil: a key acts only on
-- the plan the user saw. In the list: its line (state, title, problem);
-- in the plan view: its state and its whole text in flightplans.org.
local function stale(shown, now, whole)
  if not now then
    return 'it is gone from flightplans.org'
  end
  if now.state ~= shown.state then
    return 'it is ' .. now.state .. ' now'
  end
  if whole then
    if table.concat(plan_text(now), '\n') ~= shown.text then
      return 'its text changed'
    end
  elseif list_line(now) ~= list_line(shown) then
    return 'its line changed'
  end
end

-- refresh_plan_views lists the plans again in a list that shows, and
-- shows a plan view that shows again when its plan changed: when you go
-- back to either, and when pp-lsp wrote flightplans.org. (A key checks
-- again before it acts: see decide in M.plans.)
function M.refresh_plan_views()
  if plans_list.buf and vim.api.nvim_buf_is_valid(plans_list.buf) and vim.fn.bufwinid(plans_list.buf) ~= -1 then
    pcall(M.plans)
  end
  local shown = plan_view.shown
  if shown and plan_view.buf and vim.api.nvim_buf_is_valid(plan_view.buf) and vim.fn.bufwinid(plan_view.buf) ~= -1 then
    local ok, now = pcall(current, shown.id)
    if not ok then
      return
    end
    local why = stale(shown, now, true)
    if why and now then
      pcall(show_plan, now, 'Shown again: the plan changed since you saw it (' .. why .. ').')
    elseif why then
      local b = plan_view.buf
      vim.api.nvim_buf_set_option(b, 'modifiable', true)
      vim.api.nvim_buf_set_lines(b, 1, 2, false, { 'Stale: the plan changed since you saw it (' .. why .. '); the keys act on nothing here.' })
      vim.api.nvim_buf_set_option(b, 'modifiable', false)
      plan_view.shown = nil
    end
  end
end

-- running are the plans a key of the list or the view runs now: id to
-- what the key does. M.plan_answers counts the answers that came.
local running = {}
M.plan_answers = 0

-- plans_running says whether a key's command still runs.
function M.plans_running()
  return next(running) ~= nil
end

local command_words = {
  ['passepartout.approve'] = 'approve',
  ['passepartout.approveAlways'] = 'approve and allow similar',
  ['passepartout.reject'] = 'reject',
  ['passepartout.undo'] = 'undo',
}

-- shown_again fills the list, and the view if it shows the plan id, as
-- the server has them now, where they are: no window opens or is
-- selected, the cursors stay on their lines.
local function shown_again(id)
  local ok, plans = pcall(plans_request, 'workspace/executeCommand', { command = 'passepartout.plans', arguments = { vim.empty_dict() } })
  if not ok then
    return
  end
  if plans_list.buf and vim.api.nvim_buf_is_valid(plans_list.buf) then
    local lines, items = {}, {}
    for _, p in ipairs(plans) do
      table.insert(lines, list_line(p))
      items[#lines] = p
    end
    if #lines == 0 then
      lines = { 'No Flight Plans.' }
    end
    plans_list.items = items
    vim.api.nvim_buf_set_option(plans_list.buf, 'modifiable', true)
    vim.api.nvim_buf_set_lines(plans_list.buf, 0, -1, false, lines)
    vim.api.nvim_buf_set_option(plans_list.buf, 'modifiable', false)
  end
  if plan_view.shown and plan_view.shown.id == id and plan_view.buf and vim.api.nvim_buf_is_valid(plan_view.buf) then
    for _, p in ipairs(plans) do
      if p.id == id then
        pcall(show_plan, p, nil, true)
      end
    end
  end
end

-- point_plan_id is the :ID: of the Flight Plan headline the cursor is in,
-- or nil.
local function point_plan_id()
  local row = vim.fn.line('.')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local head = row
  while head >= 1 and not lines[head]:match('^%* ') do
    head = head - 1
  end
  if head < 1 then
    return nil
  end
  for i = head + 1, #lines do
    if lines[i]:match('^%*+ ') or lines[i]:match('^%s*:END:') then
      return nil
    end
    local id = lines[i]:match('^%s*:ID:%s+(%S+)')
    if id then
      return id
    end
  end
  return nil
end

-- decide_async runs cmd on the plan with the id, or the plan at the
-- cursor, with the arguments decide and M.undo send ({id} or the place),
-- and returns at once, as the plans list's keys do: Running… is said
-- now, and how it ended when the server answers (the list and the view,
-- if shown, are filled anew). A second command on a plan still running
-- does nothing and says so; so does a second undo while one runs.
decide_async = function(cmd, id)
  if id == '' then
    id = nil
  end
  local undo = cmd == 'passepartout.undo'
  local args = id and { id = id } or (undo and vim.empty_dict() or place())
  local key = id or (undo and 'undo' or point_plan_id())
  local words = command_words[cmd] or cmd
  if key and running[key] then
    error('pp-lsp: not done: ' .. running[key] .. ' of this plan is still running', 0)
  end
  local title = id or (undo and 'the latest change' or 'the plan at the cursor')
  local c = need_client()
  if key then
    running[key] = words
  end
  M.last_plan_result = nil
  local sent = c.request('workspace/executeCommand', { command = cmd, arguments = { args } }, function(err, run)
    if key then
      running[key] = nil
    end
    vim.schedule(function()
      shown_again(not undo and key or nil)
      if err then
        notify(words .. ' of ' .. title .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      elseif not undo then -- (the server says an undo, as in M.undo)
        notify(run and decided_words(run) or 'done')
      end
      M.last_plan_result = (not err) and run or nil
      M.plan_answers = M.plan_answers + 1
    end)
  end, 0)
  if not sent then
    if key then
      running[key] = nil
    end
    error('pp-lsp: the server is not running', 0)
  end
  notify('Running ' .. words .. ' of ' .. title .. '… (Neovim is free meanwhile)')
end

-- plans lists the Flight Plans in the list buffer and returns them.
function M.plans()
  if not (plans_list.buf and vim.api.nvim_buf_is_valid(plans_list.buf)) or vim.api.nvim_get_current_buf() ~= plans_list.buf then
    plans_list.client_id = need_client().id
  end
  local plans = plans_request('workspace/executeCommand', { command = 'passepartout.plans', arguments = { vim.empty_dict() } })
  local lines, items = {}, {}
  for _, p in ipairs(plans) do
    table.insert(lines, list_line(p))
    items[#lines] = p
  end
  if #lines == 0 then
    lines = { 'No Flight Plans.' }
  end
  plans_list.items = items
  local buf = view_buffer('Passepartout plans', 'passepartout-plans', { client = plans_list.client_id })
  local function key(b, lhs, fn)
    vim.api.nvim_buf_set_keymap(b, 'n', lhs, '', {
      noremap = true,
      callback = function()
        local ok, err = pcall(fn)
        if not ok then
          notify(tostring(err):gsub('^pp%-lsp: ', ''), vim.log.levels.ERROR)
        end
      end,
    })
  end
  -- decide runs cmd on the plan the user saw — the list's line, or the
  -- plan view — once the server's copy is checked to be that plan; a
  -- plan changed since is shown again instead, and nothing is decided.
  local function decide(cmd, in_view)
    return function()
      M.last_plan_result = nil
      local shown = in_view and plan_view.shown or plan_here()
      if not shown then
        error('pp-lsp: no Flight Plan is shown here', 0)
      end
      if running[shown.id] then
        error('pp-lsp: not done: ' .. running[shown.id] .. ' of this plan is still running', 0)
      end
      local now = current(shown.id)
      local why = cmd ~= 'passepartout.undo' and stale(shown, now, in_view)
      if why then
        M.plans()
        if in_view and now then
          show_plan(now, 'Shown again: the plan changed since you saw it (' .. why .. ').')
        end
        error('pp-lsp: not done: the plan changed since you saw it (' .. why .. '): look again', 0)
      end
      -- An approval names the action shown by its hash, and a plan with
      -- a diff the filing that diff was made for by its revision: the
      -- server runs the plan only if it still holds that action and is
      -- still that filing.
      local arg = { id = shown.id }
      if cmd == 'passepartout.approve' or cmd == 'passepartout.approveAlways' then
        if type(shown.hash) == 'string' then
          arg.hash = shown.hash
          if type(shown.revision) == 'string' then
            arg.revision = shown.revision
          end
        elseif shown.edited == true or type(shown.problem) == 'string' then
          error('pp-lsp: not done: the plan holds no action to approve (its block is not one): reject it, or fix it in flightplans.org', 0)
        end
      end
      -- The command runs while you work (a plan's command may take
      -- minutes): the key returns at once; the answer, when it comes, is
      -- said and the list and the view shown again where they are.
      local c = plans_list.client_id and vim.lsp.get_client_by_id(plans_list.client_id) or need_client()
      local id, words = shown.id, command_words[cmd] or cmd
      local title = shown.title or (now and now.title) or id
      running[id] = words
      local sent = c.request('workspace/executeCommand', { command = cmd, arguments = { arg } }, function(err, run)
        running[id] = nil
        vim.schedule(function()
          shown_again(id)
          if err then
            notify(words .. ' of ' .. title .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
          elseif cmd ~= 'passepartout.undo' then -- (the server says an undo, as in M.undo)
            notify((run and (run.summary or run.state)) or 'done')
          end
          M.last_plan_result = (not err) and run or nil
          M.plan_answers = M.plan_answers + 1
        end)
      end, 0)
      if not sent then
        running[id] = nil
        error('pp-lsp: the server is not running', 0)
      end
      notify('Running ' .. words .. ' of ' .. title .. '… (Neovim is free meanwhile)')
    end
  end
  if plans_list.buf ~= buf then
    plans_list.buf = buf
    vim.api.nvim_create_autocmd('BufEnter', { buffer = buf, callback = function() vim.schedule(M.refresh_plan_views) end })
    key(buf, 'a', decide('passepartout.approve'))
    key(buf, 'A', decide('passepartout.approveAlways'))
    key(buf, 'r', decide('passepartout.reject'))
    key(buf, 'u', decide('passepartout.undo'))
    key(buf, 'g', M.plans)
    key(buf, '<CR>', function()
      local p = plan_here()
      vim.cmd('wincmd p')
      vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(p.uri)))
      vim.api.nvim_win_set_cursor(0, { p.line, 0 })
    end)
    key(buf, 'd', function()
      local view = show_plan(plan_here())
      if plan_view.buf ~= view then
        plan_view.buf = view
        vim.api.nvim_create_autocmd('BufEnter', { buffer = view, callback = function() vim.schedule(M.refresh_plan_views) end })
        key(view, 'a', decide('passepartout.approve', true))
        key(view, 'A', decide('passepartout.approveAlways', true))
        key(view, 'r', decide('passepartout.reject', true))
        key(view, 'g', function()
          local now = plan_view.shown and current(plan_view.shown.id)
          if not now then
            error('pp-lsp: the plan is no longer in flightplans.org', 0)
          end
          show_plan(now)
        end)
      end
    end)
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  show(buf)
  return plans
end

-- skills lists the skills: in the order they apply, then those not used.
function M.skills()
  local skills = command('passepartout.skills', vim.empty_dict())
  local lines = {}
  for _, k in ipairs(skills) do
    local where = k.builtin and 'built in' or string.format('%s:%d', k.file, k.line)
    table.insert(lines, string.format('%-5s %4d  %s  (%s; trigger %s)', k.state, k.priority, k.title, where, k.trigger))
    if k.problem ~= '' then
      table.insert(lines, '      ' .. k.problem)
    end
  end
  if #lines == 0 then
    lines = { 'No skills: tag a headline :skill: to write one.' }
  end
  scratch('Passepartout skills', lines, 'text')
  return skills
end

-- run_skill runs the skill (title or ID) now; its writes wait as plans.
function M.run_skill(name)
  local res = command('passepartout.runSkill', { name = name })
  notify(res.skill .. ': ' .. res.summary)
  return res
end

-- chats lists the conversations, the latest asked first, in the quickfix
-- list (:cc N visits one; asking from it continues it), and returns them.
function M.chats()
  local chats = command('passepartout.chats', vim.empty_dict())
  local items = {}
  for _, c in ipairs(chats) do
    table.insert(items, { filename = vim.uri_to_fname(c.uri), lnum = 1,
      text = string.format('%s (%d turns, %s%s)', c.title, c.turns, c.last or 'none', c.private and ', private' or '') })
  end
  vim.fn.setqflist({}, ' ', { title = 'Passepartout chats', items = items })
  if #items == 0 then
    notify('no conversations yet; :PassepartoutAsk starts one')
  else
    vim.cmd('copen')
  end
  return chats
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
  local res = c.request_sync('workspace/willRenameFiles', params, 10000, vim.api.nvim_get_current_buf())
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

-- Completion through 'omnifunc' (set when pp-lsp attaches; <C-x><C-o>).
--
-- Neovim 0.7's vim.lsp.omnifunc keeps only the items whose inserted text
-- starts with the word before the cursor, so after "[[id:Headline scan"
-- it drops every item (each inserts an ID). This one asks the server,
-- starts the completion where the items' edits start (the typed title),
-- and keeps what the server's fuzzy match chose.

local omni = { items = {}, start = 0 }

local kinds = vim.lsp.protocol.CompletionItemKind

function M.omnifunc(findstart, base)
  if findstart == 1 then
    omni.items = {}
    local line = vim.api.nvim_get_current_line()
    local col = vim.api.nvim_win_get_cursor(0)[2]
    omni.start = vim.fn.match(line:sub(1, col), '\\k*$')
    local c = M.client(0)
    if not c then
      return -3
    end
    local params = vim.lsp.util.make_position_params(0, 'utf-16')
    local res = c.request_sync('textDocument/completion', params, 5000, vim.api.nvim_get_current_buf())
    local result = res and not res.err and res.result
    if not result then
      return -3
    end
    omni.items = result.items or result
    omni.line, omni.text = params.position.line, line
    local start
    for _, it in ipairs(omni.items) do
      local r = it.textEdit and it.textEdit.range
      if r and r.start.line == params.position.line then
        local b = vim.str_byteindex(line, r.start.character, true)
        start = start and math.min(start, b) or b
      end
    end
    omni.start = math.min(start or omni.start, col)
    return omni.start
  end
  local words = {}
  for _, it in ipairs(omni.items) do
    local te = it.textEdit
    local word = te and te.newText or it.insertText or it.label
    if te and te.range and te.range.start.line == omni.line then
      -- An edit starting after the completion's start keeps the text
      -- between the two.
      local b = vim.str_byteindex(omni.text, te.range.start.character, true)
      word = omni.text:sub(omni.start + 1, b) .. word
    end
    table.insert(words, {
      word = word,
      abbr = it.label,
      menu = it.detail or '',
      kind = kinds[it.kind] or '',
      icase = 1,
      dup = 1,
      empty = 1,
    })
  end
  return { words = words, refresh = 'always' }
end

-- An nvim-lspconfig server configuration of pp-lsp, for those who start
-- their servers through it:
--
--   require('lspconfig.configs').pp_lsp = require('passepartout').lspconfig
--   require('lspconfig').pp_lsp.setup({ init_options = { roots = { '~/org' } } })
--
-- The plugin's commands, keys and completion then work with that client
-- (its default on_attach is the plugin's; call
-- require('passepartout').on_attach(client, bufnr) from your own).
M.lspconfig = {
  default_config = {
    cmd = { 'pp-lsp', '--stdio' },
    filetypes = { 'org' },
    root_dir = function(fname)
      return root_for(fname)
    end,
    single_file_support = true,
    init_options = vim.empty_dict(),
    settings = { passepartout = vim.empty_dict() },
    handlers = { ['$/progress'] = progress_handler },
    -- (nvim-lspconfig attaches to no buffer whose buftype is nofile: the
    -- plugin's views are safe.)
    on_attach = function(client, bufnr)
      M.on_attach(client, bufnr)
    end,
  },
  docs = {
    description = [[
pp-lsp, Passepartout for Org: the outline, links followed across the memex,
backlinks, [[id: completion by title, diagnostics, renaming an ID everywhere,
code actions, and a gated agent (:PassepartoutAsk). See :help passepartout.]],
    default_config = { root_dir = [[the configured root holding the file, else the nearest .git folder, else the file's folder]] },
  },
}

-- Every command says its errors through vim.notify (M.run): one message,
-- never a traceback.
local function user_commands()
  local cmd = function(cname, fn, opts)
    vim.api.nvim_create_user_command(cname, function(o) M.run(fn, o) end, opts)
  end
  cmd('PassepartoutContext', function(o) M.context(tonumber(o.args)) end, { nargs = '?' })
  cmd('PassepartoutAsk', function(o) M.ask(o.args) end, { nargs = '+' })
  cmd('PassepartoutCancel', function() M.cancel() end, {})
  cmd('PassepartoutApprove', function(o) M.approve(o.args, true) end, { nargs = '?' })
  cmd('PassepartoutReject', function(o) M.reject(o.args, true) end, { nargs = '?' })
  cmd('PassepartoutApproveAlways', function(o) M.approve_always(o.args, true) end, { nargs = '?' })
  cmd('PassepartoutUndo', function(o) M.undo(o.args, true) end, { nargs = '?' })
  cmd('PassepartoutPlans', function() M.plans() end, {})
  cmd('PassepartoutChats', function() M.chats() end, {})
  cmd('PassepartoutSkills', function() M.skills() end, {})
  cmd('PassepartoutRunSkill', function(o) M.run_skill(o.args) end, { nargs = 1 })
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
