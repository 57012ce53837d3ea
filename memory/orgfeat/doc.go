// Package orgfeat holds the Org features every front end offers: where a
// link leads (LinkAt, Resolve, NodeAt), the text a hover shows (HoverAt,
// Preview), the edit that gives a node an :ID: (AddID), fuzzy matching
// (CompilePattern) and the headline index that workspace symbols and
// [[id: completion search (SymbolIndex); and the notes org-roam users
// expect (DESIGN §14): aliases and refs (Aliases, Refs), the links that
// name a node by title or ref and the word index of the prose
// (NoteIndex), backlinks with context and their counts, unlinked
// references, what to create for a link that leads nowhere, daily notes,
// and the edits that keep links working when files move or headlines are
// retitled. Each is one rule, over plain
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
