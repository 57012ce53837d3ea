// Package workspace is how the server changes the user's files: through the
// editor when a file is open in one (an Edit with byte offsets, which the
// language server sends as its workspace/applyEdit), and otherwise on
// disk, atomically. A caller that found an open buffer unmodified (it holds
// the disk's text) may write on disk instead (Meta.Reload); the editor is
// then told to reload the file (Notifier), and asked to save a buffer the
// server changed.
//
// Invariant: nothing here ever writes behind an open buffer but with
// Meta.Reload, and only over the very text the caller read; a write on
// disk either leaves the old file whole or puts the new one whole in its
// place (temp file in the same folder, fsync, rename, fsync of the folder),
// keeping the file's permissions. An edit only changes the bytes its changes
// name; every other byte of the file stays as it was.
package workspace
