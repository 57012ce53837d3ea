// Package journal is the audit journal, journal.org beside flightplans.org:
// one Org entry per proposal (with its verdict and gate trace), per Flight
// Plan filed, approved, rejected or edited, per result, and per read an
// MCP client made of the memex (a "call": what it asked, what it came to),
// appended only, each entry chained to the one before it by a hash.
//
// # The chain, exactly
//
// The file is split at every line that begins with the two bytes "* ": the
// bytes before the first such line are the header, and each entry runs from
// its "* " line up to the next one (or the end of the file), line ends
// included. Every entry carries, in its property drawer, the line
//
//	:PREV_HASH:   sha256:<64 lower-case hex digits>
//
// whose value is the SHA-256 of the bytes of the entry before it — for the
// first entry, of the header. Changing, inserting, reordering or removing
// any entry but the last breaks the link into the entry after it. The last
// entry has no successor, so each append also records the journal's head (the
// number of entries and the hash of the last one) in the data directory,
// under journal/heads/, sealed with the install's key (package seal); Verify
// checks the file against it, which also catches a truncated journal, and
// names every entry after the head as unrecorded: an entry appended with a
// correct :PREV_HASH: by anything but pp-lsp. An append that finds such
// entries (or the head's entry changed, or a head whose seal does not
// verify) records the finding in every head after it, so that the next
// append cannot make it disappear. journal.org must be a regular file with
// one link (package protect): a symlink or a second hard link is refused.
//
// Nothing a caller writes can add structure to an entry: titles are one
// line, free text goes into example blocks, escaped as Org escapes code.
//
// Invariant: the journal only ever grows. Appends are O_APPEND writes of one
// whole entry, made under an exclusive flock(2) on the journal file itself,
// so that appends from several processes never interleave and each one
// chains to the entry truly before it; nothing in this package rewrites or
// truncates the file; an entry is appended only when its head can be sealed
// (a data directory without the key refuses). Verify never changes anything
// and reads under the same lock.
package journal
