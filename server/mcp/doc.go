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
// A client's calls are bounded: MaxRunning run at once, the others wait
// for a turn, and a call beyond MaxInFlight running or waiting is refused
// at once (a tool error, journalled) — the SDK reads every message as it
// comes and runs each call in a goroutine of its own, so a client sending
// calls faster than they end would otherwise grow the process without
// limit.
//
// Speed (`go test -bench 'Search100k|Context100k|Stdio100k|ToolsList'
// ./server/mcp/`: 100,000 headlines in 1,000 files, every node embedded).
// This 2-core machine is shared with other builds, whose load moves the
// p99s several-fold, so each figure also comes as CPU time per call
// (cpu-p50/cpu-p99), which load moves much less. At the quietest it got
// (load average 2–3.5), client and server in one process over the SDK's
// in-memory transports: memex_search's round trip p50 3.0–3.1 ms, p99
// 6.2–10.8 ms (the process's CPU, client's and server's, 3.0–3.2 / 9.6–10.5
// ms; at a load of 5 to 11 the p99 was 12–47 ms), Agent.Search alone 2.2–2.9
// / 3.7–5.7 ms; memex_context's round trip p50 4.3–5.0 ms, p99 11.4–17 ms
// (CPU 4.4–5.1 / 7.8–11.5 ms; 20–145 ms loaded), Agent.View alone 2.5–3.0 /
// 5.2–7.2 ms; a call's journal entry (Agent.Record) 0.04 / 0.11–0.16 ms
// (0.9 / 1.8 ms, 1.7–5 ms loaded, when it was fsynced twice); the view's
// JSON 0.02 / 0.05 ms; tools/list p50 1.7–2.2 ms. With the server a child
// process on stdio (BenchmarkStdio100k, as Claude Code runs it, with its
// rescan every 5 s): memex_search p50 4.3–5.3 ms, p99 11–15 ms (the server's
// CPU 4.4–5.3 / 10.5–11.8 ms); memex_context p50 6.3–7.8 ms, p99 15–22 ms
// (CPU 5.7–7.4 / 11–21 ms: the rescan, which reads the journal grown by
// every call back into the memex and embeds its entries, is in that p99;
// without it 10.8 ms). Before this (the journal fsynced twice per call, the
// SDK's typed handlers), at a load of 0.2–2: memex_search p50 6.8 ms, p99
// 10.8 ms; memex_context 6.5 / 17.4 ms. What the round trip adds to the
// work is now mostly the SDK's: each of its JSON decodings (about ten a
// call, client and server) makes a decoder whose buffer is at least 32
// KiB, 0.45–0.65 MB of garbage a call, so a collection of the memex's 170
// MB live heap comes every 300 or so calls and the calls it overlaps are
// in the p99.
//
// Invariant: a client gets nothing the agent's own model could not — no
// private node in any result nor told apart from a missing one, no byte
// of a file outside the memex, no action but through the gates, sandbox,
// privacy filter and Flight Plans, and no way to approve its own plan —
// and no call is answered that was not journalled.
package mcp
