// Package mcp is pp-lsp as a Model Context Protocol server (DESIGN §16):
// the memex and the gated actions for other agents (Claude Code, Codex,
// gptel through mcp.el), on the official Go SDK: the read tools are
// registered with the schemas the SDK derives from their Go structs and a
// handler that decodes the arguments and encodes the result once
// (addRead); propose_action is a typed tool handler.
// Like the bridge, it is a front end: each tool converts its arguments
// into the agent's plain-data API (server/agent: Search, View, Node,
// Backlinks, Propose, Plans, Record) and the answer into its result; it
// knows nothing of Org, the gates or the journal.
//
// Tools: memex_search {query, k?}, memex_context {file, line, budget?},
// node_read {id}, backlinks {id}, propose_action {action}, plans_list {}.
// Results come as structuredContent with the same JSON as text; a list
// comes wrapped in an object ({"hits": […]}, {"backlinks": […]},
// {"plans": […]}), since MCP's structuredContent is an object (the
// TypeScript SDK refuses any other). memex_context's line is 1-based, as
// the hits' lines are. There are no org:// resources: every read goes
// through a tool, so that each is journalled and privacy-filtered the one
// way, and there is no way to approve a plan.
//
// Every call's arguments are read by the tool's own decoder first
// (decodeArgs, as strict as the schema; the SDK checks propose_action's
// against the schema after it, the read tools' no further), so a mistake
// is a tool error of one sentence naming the argument; so is every other
// failure (an unknown or private ID — both "not found" —, a file outside
// the memex, an action that is no action). Every call is journalled with
// source "mcp" before it is answered: actions as the agent journals a
// model's (proposal, plan, result), durably; reads as "call" entries,
// written, chained and recorded in the journal's head before the answer,
// and fsynced within 250 ms or with the next durable entry, or when the
// server stops (journal.AppendDeferred: a read changes nothing, and two
// fsyncs took most of a search's round trip).
//
// Speed (`go test -bench 'Search100k|Context100k|ToolsList'
// ./server/mcp/`: 100,000 headlines in 1,000 files, every node embedded,
// over the SDK's in-memory transports; this 2-core machine is shared with
// other builds, whose load moves the p99s several-fold, so each figure
// also comes as the process's CPU time per call, cpu-p50/cpu-p99, which
// load moves much less). At a load average of about 5: memex_search's
// round trip p50 3.3 ms, p99 12.5–16.5 ms (cpu 3.3 / 9–9.4 ms), its own
// work (Agent.Search) 2.4 / 4.7 ms; memex_context's round trip p50 4.4–4.7
// ms, p99 20–29 ms (cpu 4.4–4.7 / 9.4–12.4 ms), the view (Agent.View) 2.4 /
// 3.3 ms at its quietest; the journal entry of a call (Agent.Record) 0.04 /
// 0.11–0.16 ms (it was 0.9 / 1.8 ms with its two fsyncs, 1.7–5 ms loaded);
// the view's JSON 0.02 / 0.05 ms. What the round trip adds to the work is
// the SDK's: each of its JSON decodings (about ten a call, client and
// server) allocates a decoder buffer of at least 32 KiB, 0.45–0.65 MB of
// garbage a call, so a collection of the memex's 170 MB live heap comes
// every 300 or so calls and the calls it overlaps make the p99 (with
// GOGC=300 the round trip's p99 was 8.3–9.4 ms for memex_search at a load
// of 3.5–5.4). tools/list p50 1.9 ms.
//
// Invariant: a client gets nothing the agent's own model could not — no
// private node in any result nor told apart from a missing one, no byte
// of a file outside the memex, no action but through the gates, sandbox,
// privacy filter and Flight Plans, and no way to approve its own plan —
// and no call is answered that was not journalled.
package mcp
