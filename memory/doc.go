// Package memory is the live memex: every Org file under the roots, parsed
// with orgast and indexed — nodes for files and headlines, IDs, links and
// backlinks, findings, Merkle hashes, tag inheritance and privacy — held
// as immutable snapshots, with embeddings, a vector index and a store that
// survives restarts.
//
// Invariant: a *Snapshot never changes. Readers hold one without locks for
// as long as they like; every change (a file read from disk, an editor
// buffer, embeddings arriving, a rollback) is made by one serialised
// writer into a new snapshot that shares every unchanged file and index
// shard with the one before, and is published atomically. The memex only
// mirrors what is on disk and in open editor buffers; it writes the user's
// Org files only to roll back a pass's own writes, atomically, and never
// behind an open buffer or over someone else's change.
//
// # Nodes and identity
//
// Node 0 of a file is the file itself (level 0; its #+TITLE: or file name;
// its file-level drawer's :ID:); node i+1 is orgast headline i. A node's
// identity (Node.Key) is its :ID:, or without one a synthetic key made of
// the file's path and the outline path (Node.SyntheticKey), which is never
// written anywhere. Tags are inherited as Org does with its defaults
// (every tag, #+FILETAGS: included); a node is private when it or an
// ancestor carries a privacy tag (DefaultPrivacyTags), compared without
// case, or its file's #+SETUPFILE: makes the file private (setup.go, by
// the gates' rule, internal/orgsetup). Private nodes are never embedded — their text never reaches an
// embedder that may be a remote service — and so are never anyone's
// neighbour.
//
// # Editing
//
// An edit of an open buffer costs what it changes, not the size of the
// file: orgast parses again only the top-level subtrees it touches, and
// the file's index keeps everything it knew about the nodes the edit did
// not touch — those before it as they were, those after it moved — and
// indexes again only the touched nodes, their ancestors and the file node
// (reindex). Vectors, lookup tables, link resolutions and what the
// file's findings learnt from the rest of the memex are carried over the
// same way. The result is always exactly what indexing the new text from
// scratch gives; the tests and a fuzz target hold the two to it.
//
// A buffer open outside the roots is a LooseFile: parsed and indexed by
// the same code, in no snapshot, its links resolved by the memex's own
// rules (Snapshot.ResolveLinkIn), so that a link means one thing in
// whatever file it is written.
//
// # Hashes
//
// Each node's Merkle hash covers its own bytes (its subtree minus its
// children's) and its children's hashes, in order; a file's is its file
// node's; a root's covers its files by relative path; the memex's covers
// the roots in order. No absolute path, time or map order enters: the same
// Org text gives the same root hash on any machine, and any byte moves it.
//
// # Embeddings and search
//
// Each node's embedding text is its title and the first 2 KiB of its body;
// vectors are stored by the text's hash and the embedder's ID, so unchanged
// text is never embedded twice, in this run or the next. New and changed
// nodes are queued and embedded in the background, with exponential
// backoff while the embedder fails; zero and non-finite vectors and
// vectors of another dimension are never stored. Vectors are kept once,
// in half precision; a nearest-neighbour query scans 512-bit sign
// signatures and scores a shortlist exactly (Snapshot.Nearest); a minimum
// score bounds the shortlist instead of widening it. The default embedder
// is memory/trigram.
//
// # Persistence
//
// With a data folder (DataDir), vectors and per-file hashes live in
// DataDir/memex/<roots key>/, written atomically through memory/store (a
// chromem-go export per shard for the vectors); a damaged or foreign file
// is set aside and rebuilt with a warning.
//
// # Sub-packages
//
// memory/trigram is the zero-dependency embedder; memory/store the atomic,
// checksummed files; memory/memexgen the memex generator for tests and
// benchmarks; memory/internal/vecmath the vector kernels.
package memory
