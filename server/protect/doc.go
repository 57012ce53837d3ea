// Package protect knows the protected places of DESIGN §8 — flightplans.org
// and journal.org in each root, the data, config and runtime folders, the
// configuration file — by their identity on disk, not by how a path spells
// them: symlinks resolved, ".." cleaned, names compared without regard to
// case, and a file with more than one link compared (os.SameFile) with every
// file of the protected places. It also holds the one rule for the server's
// own files in a root: flightplans.org and journal.org are used only when
// they are a regular file with a single link, the user's, that no other
// user may write (OwnFile, ReadOwnFile), so that a symlink into a synced
// folder or a hard link from a note can never carry a forged plan in or the
// server's writes out, and another local user's save never approves a plan.
//
// Invariant: Check refuses every path that reaches a protected place, by any
// spelling that exists on disk when it is called; a place that cannot be
// checked (a walk over its limit) is refused, never passed. Nothing here
// writes anything.
package protect
