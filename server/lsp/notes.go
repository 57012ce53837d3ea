package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/memory"
	"pp-lsp/memory/orgfeat"
	"pp-lsp/orgast"
)

// The notes features of DESIGN §14: the backlinks view, unlinked
// references, daily notes, code lenses, document links, creating the
// node a link names, and the renames that keep links working. The rules
// are memory/orgfeat's; this file converts positions and shapes answers.

// The notes commands.
const (
	CommandBacklinks  = "passepartout.backlinks"
	CommandUnlinked   = "passepartout.unlinked"
	CommandDaily      = "passepartout.daily"
	CommandCreateNode = "passepartout.createNode"
)

// backlinkItem is one entry of passepartout.backlinks: the node holding
// the link, and where the link is.
type backlinkItem struct {
	ID      string         `json:"id"`
	Title   string         `json:"title"`
	URI     uri.URI        `json:"uri"`
	Range   protocol.Range `json:"range"`
	Context string         `json:"context"`
}

// mentionItem is one entry of passepartout.unlinked; Title is the node
// whose text holds the mention (beyond DESIGN §14's fields).
type mentionItem struct {
	Title   string         `json:"title"`
	URI     uri.URI        `json:"uri"`
	Range   protocol.Range `json:"range"`
	Context string         `json:"context"`
}

// nodeArg is the node a {uri, position} names (orgfeat.NodeAt: the
// target of a link there, else the node holding the place).
func (v *view) nodeArg(a placeArgs) (memory.Node, error) {
	f, err := v.fileArg(a.URI)
	if err != nil {
		return memory.Node{}, err
	}
	n, ok := orgfeat.NodeAt(v.scope(), f.fileNode(), offsetAt(f.org, a.Position))
	if !ok {
		return memory.Node{}, userErrorf("%s is not a file of the memex: it has no backlinks", filepath.Base(f.path))
	}
	return n, nil
}

// backlinks is passepartout.backlinks {uri, position}: every link
// landing on the node there, with the line around it.
func (s *Server) backlinks(_ context.Context, v *view, a placeArgs, _ protocol.ProgressToken) (any, error) {
	n, err := v.nodeArg(a)
	if err != nil {
		return nil, err
	}
	out := []backlinkItem{}
	for _, b := range orgfeat.Backlinks(v.scope(), n) {
		from := b.Site.From
		out = append(out, backlinkItem{ID: from.ID(), Title: from.Title(), URI: v.uriOf(from.Path()), Range: rangeAt(from.Org(), b.Range), Context: b.Context})
	}
	return out, nil
}

// unlinked is passepartout.unlinked {uri, position}: the mentions of the
// node's title or aliases that do not link to it.
func (s *Server) unlinked(_ context.Context, v *view, a placeArgs, _ protocol.ProgressToken) (any, error) {
	n, err := v.nodeArg(a)
	if err != nil {
		return nil, err
	}
	out := []mentionItem{}
	for _, m := range v.notes.Unlinked(v.snap, n) {
		org := m.File.Org()
		out = append(out, mentionItem{Title: m.In.Title(), URI: v.uriOf(m.File.Path()), Range: rangeAt(org, m.Range), Context: orgfeat.ContextLine(org, m.Range)})
	}
	return out, nil
}

// dailyArgs are passepartout.daily's: the day ("" today, "yesterday",
// "tomorrow", YYYY-MM-DD).
type dailyArgs struct {
	Date string `json:"date"`
}

// daily is passepartout.daily {date?}: the daily note of the day,
// daily/YYYY-MM-DD.org under the first root, made from the note template
// when missing. It answers {uri}.
func (s *Server) daily(_ context.Context, v *view, a dailyArgs, _ protocol.ProgressToken) (any, error) {
	day, err := orgfeat.ParseDay(a.Date, time.Now())
	if err != nil {
		return nil, userErrorf("%v", err)
	}
	if v.snap == nil || len(v.snap.Roots()) == 0 {
		return nil, userErrorf("the memex is not open: no root to keep daily notes in")
	}
	path := orgfeat.DailyPath(v.snap.Roots()[0], day)
	if _, err := os.Stat(path); err == nil {
		return map[string]uri.URI{"uri": v.uriOf(path)}, nil
	}
	if err := s.createNote(v, path, orgfeat.NoteText(v.settings.NoteTemplate, day.Format(time.DateOnly), uuid.NewString(), day)); err != nil {
		return nil, err
	}
	return map[string]uri.URI{"uri": v.uriOf(path)}, nil
}

// createNode is passepartout.createNode {uri, position}: the file an
// unresolved [[file:new.org]] link there names, made from the note
// template (with its ::*Heading); never over a file that exists. It
// answers {uri}.
func (s *Server) createNode(_ context.Context, v *view, a placeArgs, _ protocol.ProgressToken) (any, error) {
	f, err := v.fileArg(a.URI)
	if err != nil {
		return nil, err
	}
	i := orgfeat.LinkAt(f.org, offsetAt(f.org, a.Position))
	c, ok := orgfeat.CreationFor(v.scope(), f.fileNode(), i)
	switch {
	case !ok:
		return nil, userErrorf("no link here leads nowhere: nothing to create")
	case c.Why != "":
		return nil, userErrorf("%s", c.Why)
	case c.NewPath == "":
		return nil, userErrorf("the node this link names is a headline: use the code action, which adds it to its file")
	}
	text := orgfeat.NoteText(v.settings.NoteTemplate, c.Title, uuid.NewString(), time.Now())
	if c.Search != "" {
		text += "* " + c.Search + "\n"
	}
	if err := s.createNote(v, c.NewPath, text); err != nil {
		return nil, err
	}
	return map[string]uri.URI{"uri": v.uriOf(c.NewPath)}, nil
}

// createNote writes a new note at path, which must lie in a root of the
// memex, be an Org file and not a protected one, and must not exist (nor
// be open in the editor): the file is made with O_EXCL inside the root
// (os.Root: no symlink leads out of it), so nothing is ever overwritten.
// The memex reads it at once.
func (s *Server) createNote(v *view, path, text string) error {
	if v.snap == nil {
		return userErrorf("the memex is not open: pp-lsp makes notes only under its roots")
	}
	path = filepath.Clean(path)
	if !strings.EqualFold(filepath.Ext(path), ".org") {
		return userErrorf("%s is not an Org file (.org): pp-lsp makes only notes", filepath.Base(path))
	}
	if _, open := v.docs[path]; open {
		return userErrorf("%s is open in the editor: save it, or write the note there", path)
	}
	var root, rel string
	for _, r := range v.snap.Roots() {
		if q, err := filepath.Rel(r, path); err == nil && q != "." && !strings.HasPrefix(q, "..") && !filepath.IsAbs(q) {
			root, rel = r, q
			break
		}
	}
	if root == "" {
		return userErrorf("%s is outside the memex: pp-lsp makes notes only under its roots", path)
	}
	for _, h := range memory.ServerFiles() {
		if strings.EqualFold(rel, h) {
			return userErrorf("%s is pp-lsp's own file: it is never made as a note", rel)
		}
	}
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(seg, ".") {
			return userErrorf("%s lies in a hidden folder, which the memex does not read", rel)
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("opening the memex root %s: %w", root, err)
	}
	defer r.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("making the folder of %s: %w", path, err)
		}
	}
	fh, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return userErrorf("%s exists already: it is never overwritten", path)
	}
	if err != nil {
		return fmt.Errorf("making %s: %w", path, err)
	}
	if _, err := fh.WriteString(text); err != nil {
		fh.Close()
		r.Remove(rel)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if mx := s.memex(); mx != nil {
		if _, err := mx.ReloadFiles(s.bg, path); err != nil {
			s.log.Warn("the memex did not read the new note", "path", path, "err", err)
		}
	}
	return nil
}

// codeLens is an LSP CodeLens.
type codeLens struct {
	Range   protocol.Range `json:"range"`
	Command *command       `json:"command,omitempty"`
}

// codeLenses shows "N backlinks" above every headline with an :ID:, and
// at the top of a file with one; the lens opens the backlinks view.
func (s *Server) codeLenses(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(protocol.MethodTextDocumentCodeLens, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := []codeLens{}
	if !f.inMemex() {
		return out, nil
	}
	counts := orgfeat.BacklinkCounts(v.scope(), f.node)
	lens := func(k int, r orgast.Range) {
		n := counts[k]
		title := fmt.Sprintf("%d backlinks", n)
		if n == 1 {
			title = "1 backlink"
		}
		rg := rangeAt(f.org, r)
		arg := placeArgs{URI: string(f.uri), Position: rg.Start}
		out = append(out, codeLens{Range: rg, Command: &command{Title: title, Command: CommandBacklinks, Arguments: []any{arg}}})
	}
	if id, ok := f.org.ID(); ok && id != "" {
		lens(0, orgast.Range{})
	}
	for i := range f.org.Headlines {
		h := &f.org.Headlines[i]
		if id, ok := h.Drawer.Get("ID"); ok && id != "" {
			lens(i+1, h.Line)
		}
	}
	return out, nil
}

// documentLink is an LSP DocumentLink.
type documentLink struct {
	Range   protocol.Range `json:"range"`
	Target  string         `json:"target,omitempty"`
	Tooltip string         `json:"tooltip,omitempty"`
}

// documentLinks makes every link clickable: a link into the memex opens
// the file it lands in, at its line (file:///…#L12, the fragment both
// VS Code and Neovim read); an external one opens as written; a broken
// one is no link.
func (s *Server) documentLinks(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.DocumentLinkParams
	if err := decode(protocol.MethodTextDocumentDocumentLink, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := []documentLink{}
	sc := v.scope()
	file := f.fileNode()
	for i := range f.org.Links {
		l := &f.org.Links[i]
		dl := documentLink{Range: rangeAt(f.org, l.Range)}
		switch lt := strings.ToLower(l.Type); {
		case lt == "http" || lt == "https" || lt == "mailto" || lt == "ftp" || lt == "news" || lt == "irc" || lt == "doi":
			dl.Target = l.Raw
			if lt == "doi" {
				dl.Target = "https://doi.org/" + l.Path
			}
		default:
			t := orgfeat.Resolve(sc, file, i)
			loc, ok := v.targetLocation(t)
			if !ok {
				continue
			}
			dl.Target = string(loc.URI)
			if loc.Range.Start.Line > 0 {
				dl.Target += fmt.Sprintf("#L%d", loc.Range.Start.Line+1)
			}
			if t.Node.Valid() {
				dl.Tooltip = t.Node.Title()
			}
		}
		if dl.Target != "" {
			out = append(out, dl)
		}
	}
	return out, nil
}

// renameFilesParams are workspace/willRenameFiles' params.
type renameFilesParams struct {
	Files []struct {
		OldURI string `json:"oldUri"`
		NewURI string `json:"newUri"`
	} `json:"files"`
}

// willRenameFiles answers the edits that keep every file: link to the
// renamed files (and folders) working, and the relative links inside
// them; the editor applies them before it renames.
func (s *Server) willRenameFiles(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p renameFilesParams
	if err := decode("workspace/willRenameFiles", params, &p); err != nil {
		return nil, err
	}
	moves := orgfeat.Moves{}
	for _, f := range p.Files {
		ou, err1 := uri.Parse(f.OldURI)
		nu, err2 := uri.Parse(f.NewURI)
		if err1 != nil || err2 != nil {
			return nil, userErrorf("the rename of %q to %q names no files", f.OldURI, f.NewURI)
		}
		op, err1 := pathOf(ou)
		np, err2 := pathOf(nu)
		if err1 != nil || err2 != nil {
			continue
		}
		moves[op] = np
	}
	edits := orgfeat.RenameFileEdits(v.scope(), moves)
	if len(edits) == 0 {
		return nil, nil
	}
	return v.fileEdits(edits), nil
}

// fileEdits is a WorkspaceEdit of orgfeat's edits, one TextDocumentEdit
// per file (versioned when the file is open).
func (v *view) fileEdits(edits []orgfeat.FileEdit) protocol.WorkspaceEdit {
	byFile := map[string][]memory.TextEdit{}
	for _, e := range edits {
		byFile[e.Path] = append(byFile[e.Path], e.TextEdit)
	}
	var we protocol.WorkspaceEdit
	for _, path := range slices.Sorted(maps.Keys(byFile)) {
		f, err := v.fileAt(path, "")
		if err != nil {
			continue
		}
		es := byFile[path]
		slices.SortFunc(es, func(a, b memory.TextEdit) int { return cmp.Compare(a.Start, b.Start) })
		out := make([]protocol.TextEdit, len(es))
		for i, e := range es {
			out[i] = textEdit(f.org, e)
		}
		we = v.addEdits(we, f, out)
	}
	return we
}

// noteActions are the code actions of the notes at off: "Link this
// mention" on an unlinked reference, "Create a node for this link" on a
// link that leads nowhere.
func (s *Server) noteActions(v *view, f *orgFile, off int) []codeAction {
	var out []codeAction
	if i := orgfeat.LinkAt(f.org, off); i >= 0 {
		if c, ok := orgfeat.CreationFor(v.scope(), f.fileNode(), i); ok {
			a := codeAction{Title: "Create a node for this link", Kind: string(protocol.CodeActionKindQuickFix)}
			switch {
			case c.Why != "":
				a.Title = "Create a node for this link: not possible — " + c.Why
				a.Disabled = &disabledReason{Reason: c.Why}
			case c.Edit != nil:
				if tf, err := v.fileAt(c.EditPath, ""); err == nil {
					we := v.addEdits(protocol.WorkspaceEdit{}, tf, []protocol.TextEdit{textEdit(tf.org, *c.Edit)})
					a.Edit = &we
				}
			default:
				a.Title = "Create " + filepath.Base(c.NewPath) + " for this link"
				a.Command = &command{Title: a.Title, Command: CommandCreateNode, Arguments: []any{placeArgs{URI: string(f.uri), Position: positionAt(f.org, off)}}}
			}
			if a.Edit != nil || a.Command != nil || a.Disabled != nil {
				out = append(out, a)
			}
		}
		return out
	}
	if !f.inMemex() {
		return out
	}
	nodes, r := v.notes.MentionAt(v.snap, f.node, off)
	for _, n := range nodes {
		id, edits := n.ID(), []orgfeat.FileEdit(nil)
		if id == "" {
			id = uuid.NewString()
			e, ok := orgfeat.AddID(n.Org(), n.Headline(), id)
			if !ok {
				continue
			}
			edits = append(edits, orgfeat.FileEdit{Path: n.Path(), TextEdit: e})
		}
		text := string(f.org.Src[r.Start:r.End])
		edits = append(edits, orgfeat.FileEdit{Path: f.path, TextEdit: memory.TextEdit{Start: r.Start, End: r.End, Text: "[[id:" + id + "][" + text + "]]"}})
		we := v.fileEdits(edits)
		out = append(out, codeAction{Title: "Link this mention to " + n.Title(), Kind: string(protocol.CodeActionKindQuickFix), Edit: &we})
	}
	return out
}

// disabledReason is a code action's "disabled".
type disabledReason struct {
	Reason string `json:"reason"`
}

// dailyCompletions offers the daily note of "today", "yesterday" or
// "tomorrow" first when the [[id: query is one of those words (or begins
// one, three letters at least) and the note exists with an :ID:.
func (s *Server) dailyCompletions(v *view, query string) []orgfeat.IDMatch {
	q := strings.ToLower(strings.TrimSpace(query))
	if len(q) < 3 || v.snap == nil || len(v.snap.Roots()) == 0 {
		return nil
	}
	var out []orgfeat.IDMatch
	for _, word := range []string{"today", "yesterday", "tomorrow"} {
		if !strings.HasPrefix(word, q) {
			continue
		}
		day, _ := orgfeat.ParseDay(word, time.Now())
		path := orgfeat.DailyPath(v.snap.Roots()[0], day)
		n, ok := v.snap.File(path)
		if !ok || n.ID() == "" {
			continue
		}
		out = append(out, orgfeat.IDMatch{ID: n.ID(), Title: n.Title(), NodeTitle: n.Title(), Detail: word + "'s daily note · " + n.RelPath(), Path: path, Headline: -1})
	}
	return out
}
