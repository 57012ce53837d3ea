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
// Speed (`go test -bench 'Search100k|Context100k|Stdio100k|ToolsList'
// ./server/mcp/`: 100,000 headlines in 1,000 files, every node embedded).
// This 2-core machine is shared with other builds, whose load (a load
// average of 5 to 11 while these were measured) moves the p99s
// several-fold, so each figure also comes as CPU time per call
// (cpu-p50/cpu-p99), which load moves much less. In one process over the
// SDK's in-memory transports, at a load of about 5: memex_search's round
// trip p50 3.3 ms, p99 12.5–16.5 ms (the process's CPU, client's and
// server's, 3.3 / 9–9.4 ms), its own work (Agent.Search) 2.4 / 4.7 ms;
// memex_context's round trip p50 4.4–4.7 ms, p99 20–29 ms (CPU 4.4–4.7 /
// 9.4–12.4 ms), the view (Agent.View) 2.4 / 3.3 ms at its quietest; a
// call's journal entry (Agent.Record) 0.04 / 0.11–0.16 ms (it was 0.9 /
// 1.8 ms with its two fsyncs, 1.7–5 ms loaded); the view's JSON 0.02 /
// 0.05 ms; tools/list p50 1.9 ms. With the server a child process on stdio
// (BenchmarkStdio100k, as Claude Code runs it, the rescan every 5 s
// included; load 9–11): memex_search p50 3.2–4.3 ms, the server's CPU 3.5–3.9
// / 7–9 ms a call; memex_context p50 4.7–6.0 ms, CPU 4.2–5.1 / 8.7–13 ms.
// What the round trip adds to the work is mostly the SDK's: each of its
// JSON decodings (about ten a call, client and server) makes a decoder
// whose buffer is at least 32 KiB, 0.45–0.65 MB of garbage a call, so a
// collection of the memex's 170 MB live heap comes every 300 or so calls
// and the calls it overlaps are in the p99 (in one process, GOGC=300 gave
// memex_search a p99 of 8.3–9.4 ms at a load of 3.5–5.4); the rescan's
// reading of the grown journal is in it too.
//
// Invariant: a client gets nothing the agent's own model could not — no
// private node in any result nor told apart from a missing one, no byte
// of a file outside the memex, no action but through the gates, sandbox,
// privacy filter and Flight Plans, and no way to approve its own plan —
// and no call is answered that was not journalled.
package mcp
