// Package seal keeps the per-install key, $PASSEPARTOUT_DATA_DIR/key, and
// seals the server's own records with it (HMAC-SHA256): the filing record of
// every Flight Plan and the journal's head. A record whose seal verifies was
// written by a pp-lsp of this install; anything else — a plan copied into
// flightplans.org, a record made up for another plan, a head rewritten after
// a forged journal entry — does not verify.
//
// The key is 32 random bytes, made once at the first start (written to a
// temp file, fsynced, and hard-linked into place, so that two processes
// starting at once end up with one key and neither reads a half-written
// one), readable by its owner only. A key that is a symlink, is readable by
// others, has the wrong size or belongs to someone else is refused. Nor is
// a data directory another local user could change used (CheckDir): ours
// is made 0700, and one of someone else's, a shared (sticky) folder such
// as /tmp, or one under a folder someone else owns or may write (without
// the sticky bit), is refused.
//
// Invariant: a seal depends on the key, a purpose (so that a seal made for
// one kind of record never verifies as another) and the exact bytes sealed;
// verification compares in constant time; the key is never logged, never
// part of an error, and never leaves this package.
package seal
