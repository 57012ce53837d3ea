package actuate

import (
	"context"
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
	if a.cfg.Memex != nil {
		tags = a.cfg.Memex.Snapshot().PrivacyTags()
	}
	text, left, whole := withoutPrivate(cur.Text, tags)
	if whole {
		return Result{}, fmt.Errorf("file_read %s: the whole file is private (a #+FILETAGS: line carries a privacy tag, or every note in it is private); it is never shown to a model", args.Path)
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

// withoutPrivate cuts every private subtree out of src by the gates' one
// rule (gates.PrivateSpans: tags of any case, inherited, any #+FILETAGS:
// line); whole reports that the file is private as a whole, so nothing of
// it may be shown.
func withoutPrivate(src []byte, tags []string) (text string, left int, whole bool) {
	spans, whole := gates.PrivateSpans(src, tags)
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

// fileWrite replaces a file's whole content, inside the roots: through the
// editor when the file is open, atomically on disk otherwise.
func (a *Actuators) fileWrite(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.FileWriteArgs)
	t, err := a.paths.writable(args.Path)
	if err != nil {
		return Result{}, fmt.Errorf("file_write: %w", err)
	}
	cur, err := a.read(t.abs, t.c)
	if err != nil {
		return Result{}, fmt.Errorf("file_write: %w", err)
	}
	res := Result{OK: true, Changed: []string{t.c}, Summary: fmt.Sprintf("wrote %d bytes to %s", len(args.Content), t.rel)}
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
	if a.cfg.Memex == nil {
		return Result{}, errors.New("memory_edit: there is no memex to find the node in")
	}
	nodes := a.cfg.Memex.Snapshot().NodesByID(args.ID)
	switch len(nodes) {
	case 0:
		return Result{}, fmt.Errorf("memory_edit: no node has the :ID: %q", args.ID)
	case 1:
	default:
		return Result{}, fmt.Errorf("memory_edit: %d nodes carry the :ID: %q; which one is meant is not clear", len(nodes), args.ID)
	}
	content, err := bodyText(args.Content)
	if err != nil {
		return Result{}, fmt.Errorf("memory_edit %s: %w", args.ID, err)
	}
	t, err := a.paths.writable(nodes[0].Path())
	if err != nil {
		return Result{}, fmt.Errorf("memory_edit %s: %w", args.ID, err)
	}
	cur, err := a.read(t.abs, t.c)
	if err != nil {
		return Result{}, fmt.Errorf("memory_edit: %w", err)
	}
	f := orgast.Parse(cur.Text)
	var start, end int
	found := 0
	if id, ok := f.ID(); ok && id == args.ID {
		if start, end, err = fileBody(f); err != nil {
			return Result{}, fmt.Errorf("memory_edit %s: %w", args.ID, err)
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
		return Result{}, fmt.Errorf("memory_edit: the node %q is not (or not once) in %s as it is now", args.ID, t.rel)
	}
	if start > 0 && cur.Text[start-1] != '\n' && content != "" {
		content = "\n" + content
	}
	var dir *os.Root
	var name string
	if !cur.Open {
		if dir, name, err = a.paths.openFolder(t); err != nil {
			return Result{}, fmt.Errorf("memory_edit: %w", err)
		}
		defer dir.Close()
	}
	_, err = a.cfg.Files.Write(ctx, cur, []workspace.Change{{Start: start, End: end, NewText: content}},
		workspace.Meta{Label: "Passepartout: edit node " + args.ID, Description: req.Action.Explanation, Root: dir, Rel: name})
	if err != nil {
		return Result{}, fmt.Errorf("memory_edit: %w", err)
	}
	if !cur.Open {
		a.reload(ctx, t.abs, t.c)
	}
	return Result{OK: true, Changed: []string{t.c}, Summary: fmt.Sprintf("replaced the body of node %s in %s (%d bytes)", args.ID, t.rel, len(content))}, nil
}
