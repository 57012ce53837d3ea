// Package agent is the pipeline of DESIGN §7: a signal from any source (the
// language server, the CLI, the bridge, the heartbeat, an action's own
// output) is perceived (normalised into one Signal), reasoned about (a
// prompt of identity, tools, foveal context, recent logs, mandates and the
// rejection trace; the provider cascade, streamed; the proposal parsed from
// JSON tool calls or a plist read without evaluation; the gates, at most
// three tries) and acted upon (an actuator per tool, or a Flight Plan that
// waits for a human), with every proposal, verdict, approval and result in
// the audit journal.
//
// Its API is plain data and knows no front end (api.go): the language
// server, the bridge, the CLI and MCP each turn their protocol's request
// into an AskRequest (or a plan's ID, a place for Context) and the
// AskResult, PlanRun, PlanInfo, ContextResult or Overview back into their
// protocol; what a question led to is summed up once, by Pass.Summary.
// A client that is itself an agent (MCP) reads the memex through Search,
// View, Node and Backlinks, which show only public nodes (memexapi.go),
// and acts only through Propose: its action meets the same gates,
// actuators, Flight Plans and journal as a model's, gated once (propose.go).
// The tools it offers, gates and runs are one registry, its stack's
// (gates.Tools).
//
// Beyond approving once (DESIGN §8 rev. 2): a file_write or memory_edit
// plan shows the diff of what it would change, made again with the gates
// when the file changed before it runs (preview.go); ApproveAlways adds
// the narrowest rule that would have allowed a plan to the configuration
// file and the live gates (always.go, allowrule.go); every change an
// action makes to files is a checkpoint that Undo takes back (undo.go).
//
// Invariant: nothing a model (or an agent through Propose) says runs unless the gates allowed that exact
// action, or a human approved that exact action (by its hash) in a Flight
// Plan and the gates, run again, did not deny it; neither can ever approve
// its own plan (the gates deny writing flightplans.org and journal.org, the
// actuators refuse it, and a command that touches flightplans.org has the
// change undone); a plan runs at most once across every process sharing the
// data directory; a signal deeper than MaxDepth is dropped; a failing or
// panicking pass rolls the memex back to the snapshot taken before its
// changes and never takes the caller down.
package agent
