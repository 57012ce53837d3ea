// Package orgfeat holds the Org features every front end offers: where a
// link leads (LinkAt, Resolve, NodeAt), the text a hover shows (HoverAt,
// Preview), the edit that gives a node an :ID: (AddID), fuzzy matching
// (CompilePattern) and the headline index that workspace symbols and
// [[id: completion search (SymbolIndex). Each is one rule, over plain
// data: byte offsets into an orgast outline, memory nodes, strings. The
// language server converts positions and shapes the answers; the bridge,
// the command line and MCP take the same answers.
//
// A feature reads a Scope: one memex snapshot and the buffers open outside
// it (memory.LooseFile), which follow the memex's rules — a link in a
// buffer outside the memex leads where the same link in a memex file would.
//
// Invariant: pure functions of their inputs (a snapshot, outlines, an
// offset); nothing here reads or writes a file, speaks a protocol or knows
// an editor; offsets in are clamped, never trusted, and offsets out lie
// within the outline they name.
package orgfeat
