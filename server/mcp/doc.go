// Package mcp is pp-lsp as a Model Context Protocol server (DESIGN §16):
// the memex and the gated actions for other agents (Claude Code, Codex,
// gptel through mcp.el), on the official Go SDK with typed tool handlers.
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
// Every call's arguments are read by the tool's own decoder before the
// SDK's schema check (decodeArgs, as strict as the schema), so a mistake
// is a tool error of one sentence naming the argument; so is every other
// failure (an unknown or private ID — both "not found" —, a file outside
// the memex, an action that is no action). Every call is journalled with
// source "mcp" before it is answered: reads as "call" entries, actions as
// the agent journals a model's (proposal, plan, result).
//
// Speed (`go test -bench . ./server/mcp/`, 100,000 headlines in 1,000
// files, every node embedded; this 2-core machine shared with other
// builds, load average 3–5): memex_search's own work (Agent.Search) p50
// 2.6 ms, p99 9.9 ms, and 4.1 / 12.2 ms right after an edit; the whole
// tools/call round trip p50 6.7 ms, p99 34 ms, most of the difference the
// journal entry written (and fsynced, twice) before the answer — the
// journal's own BenchmarkAppend takes 1.7–5 ms; memex_context's view p50
// 4.6 ms (memory/foveal's BenchmarkView100k: p50 3.2, p99 11 ms) and its
// round trip p50 16 ms; tools/list p50 3.0 ms. The p99s move with the
// machine's load several-fold.
//
// Invariant: a client gets nothing the agent's own model could not — no
// private node in any result nor told apart from a missing one, no byte
// of a file outside the memex, no action but through the gates, sandbox,
// privacy filter and Flight Plans, and no way to approve its own plan —
// and no call is answered that was not journalled.
package mcp
