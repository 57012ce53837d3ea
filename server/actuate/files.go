package actuate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/orgast"
	"pp-lsp/server/protect"
	"pp-lsp/server/workspace"
)

// MaxRead bounds what file_read returns to the model.
const MaxRead = 256 << 10

// read returns the current text of a file: the editor's buffer when it is
// open under either of its names, else the disk's — of the very file
// opened, checked against the protected places once open.
func (a *Actuators) read(names ...string) (workspace.Current, error) {
	var last workspace.Current
	for _, n := range names {
		cur, err := a.cfg.Files.ReadChecked(n, func(f *os.File) error { return a.paths.places.CheckOpen(f, names[0]) })
		if err != nil {
			return cur, err
		}
		if cur.Open {
			return cur, nil
		}
		last = cur
	}
	return last, nil
}

// fileRead returns a file's text to the model: inside the roots, or, with
// a human's approval, anywhere. Whatever its name (an Emacs backup or
// auto-save, an Org archive hold the same notes), the private subtrees of
// its Org structure are left out, and a file that is private as a whole
// is refused: what is private never reaches a model. What remains still
// passes the privacy filter (Run), which finds private text copied into
// other files.
func (a *Actuators) fileRead(_ context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.FileReadArgs)
	abs, err := a.paths.abs(args.Path)
	if err != nil {
		return Result{}, fmt.Errorf("file_read: %w", err)
	}
	if err := a.paths.places.Check(abs); err != nil {
		return Result{}, fmt.Errorf("file_read: %w", err)
	}
	c := protect.Canonical(abs)
	if _, _, inside := a.paths.inRoot(c); !inside && req.Approval == nil {
		return Result{}, fmt.Errorf("file_read %s: reading outside the memex roots %w", args.Path, ErrNeedsApproval)
	}
	if fi, err := os.Stat(c); err == nil && fi.IsDir() {
		return Result{}, fmt.Errorf("file_read %s: it is a folder", args.Path)
	}
	cur, err := a.read(abs, c)
	if err != nil {
		return Result{}, fmt.Errorf("file_read: %w", err)
	}
	if !cur.Exists {
		return Result{}, fmt.Errorf("file_read %s: no such file", args.Path)
	}
	tags := memory.DefaultPrivacyTags()
	snap := a.newer(req.Snapshot)
	if snap != nil {
		tags = snap.PrivacyTags()
	}
	text, left, whole := withoutPrivate(c, cur.Text, tags, a.paths.home)
	if whole {
		return Result{}, fmt.Errorf("file_read %s: the whole file is private (a #+FILETAGS: line, its own or its #+SETUPFILE:'s, carries a privacy tag, or every note in it is private); it is never shown to a model", args.Path)
	}
	if snap != nil {
		if err := heldPrivate(snap, cur.Text, tags, a.paths.home, abs, c); err != nil {
			return Result{}, fmt.Errorf("file_read %s: %w", args.Path, err)
		}
	}
	note := ""
	if left > 0 {
		note = fmt.Sprintf(" (%d private subtrees left out)", left)
	}
	out := newCapture(MaxRead)
	out.Write([]byte(text))
	return Result{
		OK: true, Feedback: true,
		Output:  out.String(),
		Summary: fmt.Sprintf("read %d bytes of %s%s", len(text), args.Path, note),
	}, nil
}

// heldPrivate refuses a text read of a file (src, the editor's buffer or
// the disk's copy) when the memex holds the file otherwise: a file is
// private if either its buffer or its disk copy holds a private node, and
// the private subtrees of the copy not read cannot be found in src. So
// the file is refused when the memex holds it as private as a whole (a
// tag removed in an unsaved buffer while the disk holds the note as
// private makes it so: memory's diskcopy.go), or holds another text than
// src with a private node in it (a tag added in a buffer not saved).
func heldPrivate(snap *memory.Snapshot, src []byte, tags []string, home string, names ...string) error {
	for _, n := range names {
		f, ok := snap.File(n)
		if !ok {
			continue
		}
		if f.Private() {
			return errors.New("the memex holds it as private as a whole (its copy on disk or in an open editor buffer); it is never shown to a model")
		}
		held := f.Org().Src
		if bytes.Equal(held, src) {
			continue
		}
		if spans, _ := gates.PrivateSpansOf(n, held, tags, home); len(spans) > 0 {
			return errors.New("an open editor buffer and the disk hold different texts of it, and the one not read holds private notes; it is shown once they agree (saved)")
		}
		for d := range f.Descendants() {
			if d.Private() {
				return errors.New("an open editor buffer and the disk hold different texts of it, and the one not read holds private notes; it is shown once they agree (saved)")
			}
		}
	}
	return nil
}

// withoutPrivate cuts every private subtree out of src by the gates' one
// rule (gates.PrivateSpansOf: tags of any case, inherited, any #+FILETAGS:
// line, its #+SETUPFILE:'s); whole reports that the file at path is
// private as a whole, so nothing of it may be shown.
func withoutPrivate(path string, src []byte, tags []string, home string) (text string, left int, whole bool) {
	spans, whole := gates.PrivateSpansOf(path, src, tags, home)
	if whole {
		return "", 0, true
	}
	var b strings.Builder
	prev := 0
	for _, sp := range spans {
		b.Write(src[prev:sp.Start])
		prev = sp.End
	}
	b.Write(src[prev:])
	return b.String(), len(spans), false
}

// FileEdit is what a file action changes in one file: its text before
// (the editor's buffer when it is open, else the disk's; nothing when the
// file does not exist) and after.
type FileEdit struct {
	// Path is the file, canonical; Rel is it relative to its root.
	Path, Rel string
	// Existed reports that the file was there before.
	Existed       bool
	Before, After []byte
}

// Preview says what a file_write or memory_edit action would change now,
// without changing anything, by the very steps its run takes. ok is false
// for any other tool.
func (a *Actuators) Preview(action gates.Action) (e FileEdit, ok bool, err error) {
	switch action.Tool {
	case gates.ToolFileWrite:
		t, cur, err := a.fileWriteTarget(action)
		if err != nil {
			return FileEdit{}, true, err
		}
		return FileEdit{Path: t.c, Rel: t.rel, Existed: cur.Exists, Before: cur.Text, After: []byte(action.Typed().(gates.FileWriteArgs).Content)}, true, nil
	case gates.ToolMemoryEdit:
		t, cur, change, err := a.memoryEditTarget(action)
		if err != nil {
			return FileEdit{}, true, err
		}
		edit := workspace.Edit{Path: t.c, Base: cur.Text, Changes: []workspace.Change{change}}
		after, err := edit.Apply()
		if err != nil {
			return FileEdit{}, true, err
		}
		return FileEdit{Path: t.c, Rel: t.rel, Existed: true, Before: cur.Text, After: after}, true, nil
	}
	return FileEdit{}, false, nil
}

// Filter is what an action's output passes before anyone sees it: the
// text of private notes replaced by [private], then the secrets scrubbed
// by Config.Redact ([vault:NAME], [secret RULE]).
// snap is the memex as the caller checked it against the disk.
func (a *Actuators) Filter(snap *memory.Snapshot, s string) string { return a.filter(snap, s) }

// fileWriteTarget resolves where a file_write goes and reads what is there.
func (a *Actuators) fileWriteTarget(action gates.Action) (target, workspace.Current, error) {
	args := action.Typed().(gates.FileWriteArgs)
	t, err := a.paths.writable(args.Path)
	if err != nil {
		return target{}, workspace.Current{}, fmt.Errorf("file_write: %w", err)
	}
	cur, err := a.read(t.abs, t.c)
	if err != nil {
		return target{}, workspace.Current{}, fmt.Errorf("file_write: %w", err)
	}
	return t, cur, nil
}

// checkExpected refuses to change a file whose text is not the one a
// human approved the change of (Approval.Before).
func checkExpected(req Request, cur workspace.Current, rel string) error {
	if req.Approval == nil || req.Approval.Before == "" {
		return nil
	}
	if got := HashOf(cur.Exists, cur.Text); got != req.Approval.Before {
		return fmt.Errorf("%s: %s changed since the change was approved: %w", req.Action.Tool, rel, ErrTargetChanged)
	}
	return nil
}

// ErrTargetChanged is wrapped by the error of a file action run from a
// plan whose file no longer holds the text the plan's diff was made from.
var ErrTargetChanged = errors.New("the file is not what the approved diff was made from")

// HashOf names a file's text for Approval.Before: "absent" for a file
// that does not exist, else sha256 of its bytes.
func HashOf(exists bool, text []byte) string {
	if !exists {
		return "absent"
	}
	sum := sha256.Sum256(text)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fileWrite replaces a file's whole content, inside the roots: through the
// editor when the file is open, atomically on disk otherwise.
func (a *Actuators) fileWrite(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.FileWriteArgs)
	t, cur, err := a.fileWriteTarget(req.Action)
	if err != nil {
		return Result{}, err
	}
	if err := checkExpected(req, cur, t.rel); err != nil {
		return Result{}, err
	}
	edit := FileEdit{Path: t.c, Rel: t.rel, Existed: cur.Exists, Before: cur.Text, After: []byte(args.Content)}
	res := Result{OK: true, Changed: []string{t.c}, Edits: []FileEdit{edit}, Summary: fmt.Sprintf("wrote %d bytes to %s", len(args.Content), t.rel)}
	if cur.Open {
		_, err := a.cfg.Files.Write(ctx, cur, []workspace.Change{{Start: 0, End: len(cur.Text), NewText: args.Content}},
			workspace.Meta{Label: "Passepartout: write " + t.rel, Description: req.Action.Explanation})
		if err != nil {
			return Result{}, fmt.Errorf("file_write: %w", err)
		}
		res.Summary += " (through the editor)"
		return res, nil
	}
	dir, name, err := a.paths.openFolder(t)
	if err != nil {
		return Result{}, fmt.Errorf("file_write: %w", err)
	}
	defer dir.Close()
	if err := workspace.WriteFileIn(dir, name, []byte(args.Content), 0o644); err != nil {
		return Result{}, fmt.Errorf("file_write: %w", err)
	}
	a.reload(ctx, t.abs, t.c)
	return res, nil
}

// memoryEdit replaces the body of the node with the given :ID:, keeping
// every other byte of its file.
func (a *Actuators) memoryEdit(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.MemoryEditArgs)
	t, cur, change, err := a.memoryEditTarget(req.Action)
	if err != nil {
		return Result{}, err
	}
	if err := checkExpected(req, cur, t.rel); err != nil {
		return Result{}, err
	}
	var dir *os.Root
	var name string
	if !cur.Open {
		if dir, name, err = a.paths.openFolder(t); err != nil {
			return Result{}, fmt.Errorf("memory_edit: %w", err)
		}
		defer dir.Close()
	}
	after, err := a.cfg.Files.Write(ctx, cur, []workspace.Change{change},
		workspace.Meta{Label: "Passepartout: edit node " + args.ID, Description: req.Action.Explanation, Root: dir, Rel: name})
	if err != nil {
		return Result{}, fmt.Errorf("memory_edit: %w", err)
	}
	if !cur.Open {
		a.reload(ctx, t.abs, t.c)
	}
	edit := FileEdit{Path: t.c, Rel: t.rel, Existed: true, Before: cur.Text, After: after}
	return Result{OK: true, Changed: []string{t.c}, Edits: []FileEdit{edit},
		Summary: fmt.Sprintf("replaced the body of node %s in %s (%d bytes)", args.ID, t.rel, len(change.NewText))}, nil
}

// memoryEditTarget finds the node a memory_edit replaces the body of: its
// file, the file's current text and the change.
func (a *Actuators) memoryEditTarget(action gates.Action) (target, workspace.Current, workspace.Change, error) {
	args := action.Typed().(gates.MemoryEditArgs)
	fail := func(err error) (target, workspace.Current, workspace.Change, error) {
		return target{}, workspace.Current{}, workspace.Change{}, err
	}
	if a.cfg.Memex == nil {
		return fail(errors.New("memory_edit: there is no memex to find the node in"))
	}
	nodes := a.cfg.Memex.Snapshot().NodesByID(args.ID)
	switch len(nodes) {
	case 0:
		return fail(fmt.Errorf("memory_edit: no node has the :ID: %q", args.ID))
	case 1:
	default:
		return fail(fmt.Errorf("memory_edit: %d nodes carry the :ID: %q; which one is meant is not clear", len(nodes), args.ID))
	}
	content, err := bodyText(args.Content)
	if err != nil {
		return fail(fmt.Errorf("memory_edit %s: %w", args.ID, err))
	}
	t, err := a.paths.writable(nodes[0].Path())
	if err != nil {
		return fail(fmt.Errorf("memory_edit %s: %w", args.ID, err))
	}
	cur, err := a.read(t.abs, t.c)
	if err != nil {
		return fail(fmt.Errorf("memory_edit: %w", err))
	}
	f := orgast.Parse(cur.Text)
	var start, end int
	found := 0
	if id, ok := f.ID(); ok && id == args.ID {
		if start, end, err = fileBody(f); err != nil {
			return fail(fmt.Errorf("memory_edit %s: %w", args.ID, err))
		}
		found++
	}
	for i := range f.Headlines {
		h := &f.Headlines[i]
		if h.Drawer == nil {
			continue
		}
		if id, ok := h.Drawer.Get("ID"); ok && id == args.ID {
			start, end = headlineBody(cur.Text, h)
			found++
		}
	}
	if found != 1 {
		return fail(fmt.Errorf("memory_edit: the node %q is not (or not once) in %s as it is now", args.ID, t.rel))
	}
	if start > 0 && cur.Text[start-1] != '\n' && content != "" {
		content = "\n" + content
	}
	return t, cur, workspace.Change{Start: start, End: end, NewText: content}, nil
}

// Targets lists the files (canonical) a file_write or memory_edit action
// would write now — none for any other tool, or when it cannot write —
// so that its run is serialised with other writers of them.
func (a *Actuators) Targets(action gates.Action) []string {
	var t target
	var err error
	switch action.Tool {
	case gates.ToolFileWrite:
		t, err = a.paths.writable(action.Typed().(gates.FileWriteArgs).Path)
	case gates.ToolMemoryEdit:
		if a.cfg.Memex == nil {
			return nil
		}
		nodes := a.cfg.Memex.Snapshot().NodesByID(action.Typed().(gates.MemoryEditArgs).ID)
		if len(nodes) != 1 {
			return nil
		}
		t, err = a.paths.writable(nodes[0].Path())
	default:
		return nil
	}
	if err != nil {
		return nil
	}
	return []string{t.c}
}
