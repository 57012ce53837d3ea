// Package flightplan reads and writes Flight Plans, the actions that wait
// for a human's approval in flightplans.org (DESIGN §8), and keeps the
// durable records that make an approved plan run at most once.
//
// A plan is a level-1 headline of flightplans.org, in the first root:
//
//	#+TITLE: Flight Plans
//	#+TODO: PLAN(p) APPROVED(a) | DONE(d) FAILED(f) REJECTED(r)
//	* PLAN Run `make test` in project/
//	:PROPERTIES:
//	:ID:          <uuid>
//	:CREATED:     [2026-11-21 Sat 20:40]
//	:TOOL:        shell
//	:GATE:        permissions
//	:ACTION_HASH: sha256:<hex of the canonical action JSON>
//	:END:
//	<explanation>
//	#+begin_src json
//	<the action, exactly what will run>
//	#+end_src
//
// The action that runs is the one in the src block, decoded again at
// approval. When the server files a plan it also writes a filing record in
// the data directory (dataDir/plans/<id>: the ID, the action's canonical
// hash, the gate, the time), sealed with the install's key (package seal).
// The record, not the file, says which plans are the server's: a plan with
// no record whose seal verifies for its very ID is foreign and never runs,
// whatever its keyword and :ACTION_HASH: say; a plan whose block no longer
// hashes to its record was edited, and is gated and filed afresh before
// anything of it can run. What happened to a plan is appended below its
// block as a list item (an edit, the result with its output in an example
// block).
//
// Invariant: an edit made here changes only the bytes it names — the TODO
// keyword, the headline's title, a property's value, an appended note — and
// every other byte of the file stays; a filing record verifies only for the
// plan ID, action hash, gate and time it was sealed with, under this
// install's key; a plan's run is claimed by creating its run record with
// O_EXCL in the data directory, under a flock(2) lock that excludes every
// other process, before anything runs, so a plan runs at most once however
// many editors approve it at the same moment. Plan IDs name files only once
// they parse as UUIDs.
package flightplan
