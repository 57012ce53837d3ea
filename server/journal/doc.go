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
// # Durable and deferred entries
//
// Append is durable: the entry is fsynced, and its head written to a temp
// file, fsynced, renamed into place and its folder fsynced, before Append
// returns — what must be on record before it takes effect (a proposal and
// its verdict, a plan, an approval, a result) uses it. AppendDeferred is
// for entries that record a read (an MCP client's search or view), which
// changes nothing: the entry is written and chained and its head recorded
// (the head overwritten in place with one write) before it returns, so
// that every reader, every other process's append and Verify see it at
// once; the fsyncs follow within SyncDelay (250 ms), or with the next
// Append, Sync or Close, whichever comes first — Close is called when the
// server stops, so a clean stop leaves everything synced and Verify OK.
//
// After a crash: a process killed (SIGKILL, OOM) loses nothing it wrote,
// deferred or not — the kernel has the bytes. Each append first records a
// head that names the entry it is about to write (its hash, as Next,
// sealed), so that if it dies between writing the entry and recording it,
// Verify knows that entry for pp-lsp's (Report.Interrupted, counted as
// recorded) and the next append records it, rather than calling it an
// entry someone else appended; any other entry there is unrecorded, as
// before (TestADeferredAppenderKilled,
// TestAnInterruptedAppendIsToldFromAForeignEntry); an older pp-lsp, which
// does not know Next, would take such a head for a forged one. An
// operating-system crash or power loss may lose the deferred entries (and
// heads) of the last SyncDelay: the file may then end before the entry the head names, which
// Verify reports as entries removed from its end (a truncation, which it
// cannot tell from one), or, with a head older than the file, as
// unrecorded entries. No durable entry is ever lost that way: each one's
// fsync covers every entry before it.
//
// Nothing a caller writes can add structure to an entry: titles are one
// line, free text goes into example blocks, escaped as Org escapes code.
//
// Invariant: the journal only ever grows, and an entry written by Append is
// on disk (fsynced, head sealed and fsynced) before Append returns. Appends
// are O_APPEND writes of one whole entry, made under an exclusive flock(2)
// on the journal file itself, so that appends from several processes never
// interleave and each one chains to the entry truly before it; nothing in this package rewrites or
// truncates the file; an entry is appended only when its head can be sealed
// (a data directory without the key refuses). Verify never changes anything
// and reads under the same lock.
package journal
