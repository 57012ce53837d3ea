// Package lsp is the language server of pp-lsp (`pp-lsp --stdio`): the
// memex served to editors — eglot, Neovim, any LSP client — over the
// Language Server Protocol, with the agent behind its commands.
//
// Invariant: the client's notifications are applied in the order sent,
// each before the next message is read, so a request sees every change
// sent before it; a request reads one immutable view (a memex snapshot
// and the open buffers) taken when it arrived, and a change makes a new
// one. No message a client sends — unknown, malformed, cancelled,
// "params": null, not JSON, not a request, a batch — closes the connection
// or takes the server down: the transport answers what is not a valid
// message, and a panic in a handler fails only its request. The server
// never calls the client from its read loop, so no request of its own can
// deadlock. An open buffer's text always wins over its file
// on disk, and the server writes no file behind one. The server parses no
// Org: outlines come from orgast, everything across files from memory.
//
// # Transport
//
// Serve speaks LSP's Content-Length framing through package transport,
// which answers a malformed message with a JSON-RPC error (-32700 or
// -32600) and reads on, in bounded memory, where jsonrpc2's own stream ends
// the connection. Messages are served by go.lsp.dev/jsonrpc2 v1 with the
// server's own dispatch rather than protocol.NewServer, whose concurrent
// dispatch, notification errors and cancellation code DESIGN §10 records
// as wrong for us (see dispatch.go). Positions are UTF-16 (the only
// encoding eglot and Neovim speak), converted by orgast's line index,
// which counts lines and columns as the editor that decoded the file.
//
// # Session
//
// initialize answers at once; the memex is indexed in the background,
// with $/progress (begin, reports with percentages, end) when the client
// shows progress. Requests that need the memex wait for it; buffers opened
// meanwhile are served as loose files (memory.LooseFile) and handed to the memex when
// it is ready. The memex roots are, in order of precedence, the setting
// "roots", the workspace folders, rootUri, rootPath, the working
// directory. shutdown saves the memex's store; exit then ends Serve, which
// returns nil, or ErrExitWithoutShutdown when the session ended without
// shutdown (the process exits 1, as the specification asks).
//
// # Settings
//
// One schema (Settings), three sources, each overriding the fields it
// sets: initializationOptions, the section "passepartout" of
// workspace/configuration (asked after initialized and on every
// didChangeConfiguration, when the client answers it), and the settings
// pushed by workspace/didChangeConfiguration (as {"passepartout": {…}} or
// the section itself). They override the environment variables of DESIGN
// §11 they name, which override the configuration file.
//
//	{
//	  "roots":             ["~/org"],             // the memex (default: the workspace folders)
//	  "privacyTags":       ["@personal", "private"],
//	  "budget":            4000,                  // CONTEXT_BUDGET: the context's tokens
//	  "semanticThreshold": 0.75,                  // CONTEXT_SEMANTIC_THRESHOLD
//	  "dataDir":           "~/.local/share/passepartout", // PASSEPARTOUT_DATA_DIR
//	  "configFile":        "~/.config/passepartout/config.json",
//	  "providers":         "ollama:qwen3@http://127.0.0.1:11434", // PASSEPARTOUT_PROVIDERS
//	  "embeddingProvider": "trigram",             // EMBEDDING_PROVIDER (and embeddingModel, embeddingBaseUrl)
//	  "assistant":         "Passepartout",        // MEMEX_ASSISTANT
//	  "heartbeatInterval": 60,                    // HEARTBEAT_INTERVAL, seconds
//	  "rescanInterval":    5,                     // seconds between disk rescans when the client cannot watch
//	  "maxSymbols":        200,                   // the most workspace/symbol answers
//	  "applyEditTimeout":  30,                    // seconds the server waits for an answer to workspace/applyEdit
//	  "noteTemplate":      ":PROPERTIES:\n:ID: ${id}\n:END:\n#+title: ${title}\n"
//	}
//
// workspace/configuration and didChangeConfiguration are the project's
// settings, which an editor may take from a file in the memex that anyone
// could have written (eglot applies eglot-workspace-configuration from
// .dir-locals.el without asking): they may set only budget,
// semanticThreshold, rescanInterval, maxSymbols, chatBudget and
// applyEditTimeout; privacyTags only add to the tags in force, sandbox can
// only be made stricter, and the rest — roots, dataDir, configFile,
// providers, the embedding settings, assistant, heartbeatInterval,
// noteTemplate, chatDir — is ignored, whatever its value, with a warning
// (window/showMessage) said once, and after the indexing's last word
// ("indexed N files") so that an editor with one echo area shows it.
//
// roots, dataDir, configFile, providers, the embedding settings, assistant
// and heartbeatInterval are read when the memex opens (give them in
// initializationOptions); privacyTags, budget, semanticThreshold,
// rescanInterval, maxSymbols and applyEditTimeout take effect whenever they change. An
// unknown key is reported with window/logMessage and ignored; a value of
// the wrong type for a key the source may set is shown with
// window/showMessage ("must be a whole number, not a string") and the
// source ignored.
//
// # Features
//
// documentSymbol (the outline tree; TODO keyword, priority and tags as the
// detail), workspace/symbol (every headline, fuzzy, ranked), definition
// (id:, file: with ::*heading, ::#custom-id and ::NNN, [[*Heading]],
// [[#custom-id]], [[target]]), references (backlinks; a file's own ID from
// its drawer or title), hover (the link's target or the node: title,
// place, ID, backlinks, first lines; a Flight Plan's gate trace),
// completion ([[id: by title, inserting the ID; [[* and [[#; tags; TODO
// keywords), diagnostics (duplicate IDs, broken links and searches,
// malformed drawers, Flight Plans' state; for the changed file at once,
// then for the files the change affects), foldingRange (subtrees,
// drawers, blocks), prepareRename and rename of an ID (one WorkspaceEdit
// over the memex, versioned for open buffers), code actions (an :ID: for
// the headline or file; Approve and Reject on a Flight Plan; Link this
// mention; Create a node for this link), codeLens ("N backlinks" on every
// node with an :ID:), documentLink (every link, resolved through the
// memex), workspace/willRenameFiles (the file: links to renamed files and
// folders), and rename of a headline's title with its [[*Title]] and
// ::*Title links (orgfeat.RenameTitleEdits). Files
// changed outside the editor are read again on workspace/didChangeWatchedFiles
// (registered dynamically for **/*.org when the client can watch; a
// change of a path not ending in .org is a folder's, and the whole memex
// is compared with the disk), by a rescan every rescanInterval seconds
// when it cannot, and on didSave.
//
// # Commands (workspace/executeCommand; one argument, an object)
//
//	passepartout.context  {uri, position, budget?} → DESIGN §5's JSON (memory/foveal's View);
//	                      "text" is exactly what the model would see. The editor
//	                      commands show it in a read-only Org buffer.
//	passepartout.ask      {uri?, position?, text, chat?, noChat?} → {status, text, chat, model,
//	                      usage: {prompt, completion, estimated?}, outcome (= status), tool,
//	                      verdict, gate, reason, planId, summary, passes, tries}; the question
//	                      continues the conversation "chat" names or the chat file it is asked
//	                      from, else starts one (DESIGN §13); the answer streams as $/progress
//	                      reports (their messages concatenated) on the request's workDoneToken,
//	                      or a token of the server's; $/cancelRequest or
//	                      window/workDoneProgress/cancel stop it (RequestCancelled).
//	passepartout.approve  {id, hash?, revision?} or {uri, position, hash?, revision?} in flightplans.org → {id, title, state, ran, summary, output};
//	                      hash is the hash of the action the user saw ("sha256:…", as the plans
//	                      list and the code actions give it): the plan runs only if it still
//	                      holds that action, else the error "the plan changed since you saw it:
//	                      look again" and nothing runs (checked under the plans lock, as it runs).
//	                      Without it: by place, the hash of the action at that place in the
//	                      editor's buffer; by id alone, unchecked (DESIGN §8's older contract).
//	                      revision is, for a plan with a diff (file_write, memory_edit), its
//	                      :REVISION: ("hmac-sha256:…", as the plans list and the code actions
//	                      give it): the filing its diff was made for. A plan filed afresh
//	                      because its file changed keeps its hash but not its revision, so the
//	                      approval of the older diff runs nothing: refused the same way, and
//	                      journalled (kind "refused"). By place without it: the revision there
//	passepartout.reject   {id} or {uri, position} (a hash is ignored: rejecting runs nothing)
//	passepartout.approveAlways the same, and adds the narrowest permission rule that would
//	                      have allowed the action to the configuration file (→ also "rule");
//	                      refused for eval, http, send and actions the dispatcher flagged
//	passepartout.undo     {id?} → {undone, change, summary}: the latest change an action made
//	                      (or the one with id, or the latest of the plan with id), taken back (open buffers through workspace/applyEdit)
//	                      when every file still holds what it wrote; {list: true} → the changes
//	passepartout.addId    {uri, position} → {id}: the node gets an :ID: through workspace/applyEdit
//	passepartout.plans    {} → the Flight Plans: [{id, state, tool, created, title, gate, line,
//	                      edited, hash?, revision?, problem?, uri}] (uri: flightplans.org's; hash:
//	                      of the action its block holds; revision: :REVISION: beside its diff;
//	                      both to send back with an approval)
//	passepartout.backlinks {uri, position} → [{id, title, uri, range, context}]: the links
//	                      landing on the node there (id, file, internal, [[roam:…]] and
//	                      :ROAM_REFS: links), with the line around each
//	passepartout.unlinked {uri, position} → [{uri, range, context}]: mentions of its title
//	                      or aliases that do not link to it (orgfeat.NoteIndex.Unlinked)
//	passepartout.daily    {date?} → {uri} of daily/YYYY-MM-DD.org under the first root,
//	                      made from the noteTemplate setting when missing
//	passepartout.createNode {uri, position} → {uri}: the Org file an unresolved
//	                      [[file:…]] link there names, made (never over one that exists)
//	passepartout.skills   {} → the skills (pp-lsp skills --json): in the order they
//	                      apply, then those not used, with why
//	passepartout.runSkill {name} → {skill, status, summary, planId?}: the skill (ID or
//	                      title) runs now as a background pass; its SCHEDULED: stays
//	passepartout.chats    {} → [{uri, title, turns, last, model, private}]: the
//	                      conversations, the latest asked first
//	passepartout.insertAnswer {uri, position} → {uri, line, endLine, where}: the last
//	                      answer of this session as a quote block below the line there
//	                      (an answer is never written into a note otherwise)
//
// The agent (server/agent) is opened on the same memex, with the server as
// its workspace.Workspace: it reads open buffers through OpenDocument and
// changes them with workspace/applyEdit (its change annotation asking for
// confirmation where the edit does), waiting for the editor's didChange.
// didSave of flightplans.org and its changes on disk tell the agent at once
// (NotifyPlansChanged) — didChange never does: only a saved APPROVED is an
// approval. The memex and the agent are the server's host's (package
// host, Options.Host): published there once up, they are shared with the
// process's other front ends (`pp-lsp --stdio --tcp ADDR`: the bridge),
// the host runs the agent's heartbeat, and at shutdown the server has the
// host stop the others and close the agent and save the memex.
package lsp
