package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"pp-lsp/internal/regfile"
	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// Document is the state of a file open in an editor: the buffer's text and
// the version the editor gave it.
type Document struct {
	Text    []byte
	Version int32
}

// Workspace is the editor side of the server, implemented by the language
// server. A nil Workspace means no editor is attached (the CLI, the bridge
// alone): every file is then read and written on disk.
type Workspace interface {
	// OpenDocument returns the buffer open on path (absolute, cleaned), and
	// false when no editor has it open.
	OpenDocument(path string) (Document, bool)
	// ApplyEdit asks the editor to apply edit (workspace/applyEdit) and
	// reports whether it did. An editor may refuse: the user declined a
	// change that needs confirmation, or the buffer moved past Version.
	ApplyEdit(ctx context.Context, edit Edit) (applied bool, err error)
}

// Notifier is implemented by a Workspace whose editor can be told about
// the writes that concern an open buffer (the language server: a
// notification its editor plugins act on, and a message for the user).
type Notifier interface {
	// Reload tells the editor that path, open in an unmodified buffer, was
	// written on disk (Meta.Reload): it reads the file again.
	Reload(path string)
	// AskToSave tells the user that the server changed the open,
	// modified buffer of path, and that the change is on disk only once
	// they save it; why says what changed.
	AskToSave(path, why string)
}

// ErrNotApplied is wrapped by Write's error when the editor refused an edit.
var ErrNotApplied = errors.New("the editor did not apply the edit")

// ErrChangedMeanwhile is wrapped by Write's error when the file on disk is no
// longer the text the edit was computed from.
var ErrChangedMeanwhile = errors.New("the file changed since it was read")

// Files reads and writes the user's files the way the invariant says: the
// buffer when one is open, the disk otherwise.
type Files struct {
	// Workspace is the attached editor, or nil.
	Workspace Workspace
}

// Current is a file's text as the user sees it now, and where it came from.
type Current struct {
	Path string
	Text []byte
	// Open reports that Text is an editor buffer at Version.
	Open    bool
	Version int32
	// Exists is false when the file is neither open nor on disk.
	Exists bool
	// Mode is the file's permission bits on disk (0 when unknown).
	Mode os.FileMode
}

// Read returns the current text of path: the open buffer's, else the
// disk's. A file that does not exist is not an error: Exists is false.
func (f Files) Read(path string) (Current, error) {
	return f.ReadChecked(path, nil)
}

// ReadChecked is Read, with check (when not nil) called on the very file
// opened on disk before anything is read from it: what is read is what was
// checked, whatever replaces the path meanwhile. A buffer is not checked.
func (f Files) ReadChecked(path string, check func(*os.File) error) (Current, error) {
	if f.Workspace != nil {
		if d, ok := f.Workspace.OpenDocument(path); ok {
			return Current{Path: path, Text: d.Text, Open: true, Version: d.Version, Exists: true}, nil
		}
	}
	// A regular file, judged by the file opened, opened without waiting:
	// a FIFO swapped in where a note was would hold the caller for ever.
	fd, fi, err := regfile.Open(path, true)
	if errors.Is(err, os.ErrNotExist) {
		return Current{Path: path}, nil
	}
	if err != nil {
		return Current{}, fmt.Errorf("reading %s: %w", path, err)
	}
	defer fd.Close()
	if check != nil {
		if err := check(fd); err != nil {
			return Current{}, err
		}
	}
	data, err := regfile.ReadAll(fd, MaxFileBytes)
	if err != nil {
		return Current{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return Current{Path: path, Text: data, Exists: true, Mode: fi.Mode().Perm()}, nil
}

// MaxFileBytes bounds a file Files reads from disk: the memex's own limit
// on an Org file, one constant for both.
const MaxFileBytes = memory.DefaultMaxFileBytes

// readDisk is the regular file at path as Read reads it: nil and
// os.ErrNotExist when there is none.
func readDisk(path string) ([]byte, error) {
	b, _, err := regfile.Read(path, true, MaxFileBytes)
	return b, err
}

// Meta describes a write: the change annotation an editor shows (Label,
// Description, and Confirm to ask the user before applying it), and, for a
// write on disk, the root that confines it (Root and Rel, relative to it;
// nil Root: the path as it is).
type Meta struct {
	Label, Description string
	Confirm            bool
	Root               *os.Root
	Rel                string
	// Reload: the caller read cur from disk although an editor has the
	// file open, having found its buffer unmodified (it holds what the
	// disk holds). The new text is written on disk — no edit for the
	// user to confirm — and the editor is told to reload it (Notifier).
	Reload bool
}

// Write changes the file cur was read from by changes (byte offsets into
// cur.Text): through the editor when cur came from an open buffer, else by
// an atomic write of the whole new text, after checking that the disk still
// holds cur.Text (or, for a file that did not exist, still does not). It
// returns the new text.
func (f Files) Write(ctx context.Context, cur Current, changes []Change, m Meta) ([]byte, error) {
	e := Edit{
		Path: cur.Path, Open: cur.Open, Version: cur.Version, Base: cur.Text, Changes: changes,
		Label: m.Label, Description: m.Description, NeedsConfirmation: m.Confirm,
	}
	text, err := e.Apply()
	if err != nil {
		return nil, err
	}
	if cur.Open && f.Workspace != nil {
		ok, err := f.Workspace.ApplyEdit(ctx, e)
		if err != nil {
			return nil, fmt.Errorf("asking the editor to change %s: %w", cur.Path, err)
		}
		if !ok {
			return nil, fmt.Errorf("changing %s: %w", cur.Path, ErrNotApplied)
		}
		return text, nil
	}
	if f.Workspace != nil && !m.Reload {
		// The file may have been opened since it was read: never write
		// behind a buffer.
		if _, open := f.Workspace.OpenDocument(cur.Path); open {
			return nil, fmt.Errorf("changing %s: it was opened in an editor meanwhile: %w", cur.Path, ErrChangedMeanwhile)
		}
	}
	disk, err := readDisk(cur.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if cur.Exists {
			return nil, fmt.Errorf("changing %s: it was deleted meanwhile: %w", cur.Path, ErrChangedMeanwhile)
		}
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", cur.Path, err)
	case !cur.Exists || !bytes.Equal(disk, cur.Text):
		return nil, fmt.Errorf("changing %s: %w", cur.Path, ErrChangedMeanwhile)
	}
	mode := cur.Mode
	if mode == 0 {
		mode = 0o644
	}
	if m.Root != nil {
		err = WriteFileIn(m.Root, m.Rel, text, mode)
	} else {
		err = WriteFile(cur.Path, text, mode)
	}
	if err != nil {
		return nil, err
	}
	if n, ok := f.Workspace.(Notifier); ok && m.Reload {
		n.Reload(cur.Path)
	}
	return text, nil
}

// Change replaces the bytes [Start, End) of a text with NewText.
type Change struct {
	Start, End int
	NewText    string
}

// Edit is a change to one file, in the terms an editor needs: the text it
// was computed from (Base, at Version when Open: the file is open in the
// editor) and the
// replacements in Base's byte offsets. Label and Description become the
// LSP change annotation; NeedsConfirmation asks the editor to let the user
// confirm it first.
type Edit struct {
	Path              string
	Open              bool
	Version           int32
	Base              []byte
	Changes           []Change
	Label             string
	Description       string
	NeedsConfirmation bool
}

// Apply returns Base with the changes made. Changes must lie within Base,
// and not overlap (they may be given in any order).
func (e Edit) Apply() ([]byte, error) {
	cs, err := e.Sorted()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(e.Base))
	prev := 0
	for _, c := range cs {
		out.Write(e.Base[prev:c.Start])
		out.WriteString(c.NewText)
		prev = c.End
	}
	out.Write(e.Base[prev:])
	return out.Bytes(), nil
}

// Sorted returns the changes in the order of their places in Base, or an
// error when one lies outside Base or two overlap. Their new text ends its
// lines as Base does (Emacs's reading of it, orgast.DetectEOL): the
// server's edits are made with LF, and an LF put into a file of CR LF
// lines makes Emacs read every CR as a character, one into a file of CR
// lines makes its lines one (a Flight Plan marked DONE there vanished). A
// change of the whole text is the text asked for, kept as it is.
func (e Edit) Sorted() ([]Change, error) {
	cs := append([]Change(nil), e.Changes...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Start < cs[j].Start })
	eol := orgast.DetectEOL(e.Base)
	prev := 0
	for i, c := range cs {
		if c.Start < prev || c.End < c.Start || c.End > len(e.Base) {
			return nil, fmt.Errorf("editing %s: the change [%d,%d) is outside the text or overlaps another", e.Path, c.Start, c.End)
		}
		if c.Start > 0 || c.End < len(e.Base) {
			cs[i].NewText = withLineEnds(c.NewText, eol)
		}
		prev = c.End
	}
	return cs, nil
}

// withLineEnds writes text's line ends as a file with the convention eol
// ends its lines: an LF without a CR before it as CR LF in a DOS file,
// every line end as CR in a Mac one.
func withLineEnds(text string, eol orgast.EOL) string {
	switch {
	case eol == orgast.EOLDOS && strings.Contains(text, "\n"):
		var b strings.Builder
		b.Grow(len(text) + strings.Count(text, "\n"))
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' && (i == 0 || text[i-1] != '\r') {
				b.WriteByte('\r')
			}
			b.WriteByte(text[i])
		}
		return b.String()
	case eol == orgast.EOLMac:
		return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\r"), "\n", "\r")
	}
	return text
}
