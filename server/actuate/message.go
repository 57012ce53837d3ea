package actuate

import (
	"context"
	"errors"
	"fmt"

	"pp-lsp/gates"
	"pp-lsp/orgast"
	"pp-lsp/server/internal/orgtext"
	"pp-lsp/server/workspace"
)

// message puts the answer into the node the user asked from, when an
// editor has that file open: a quote block at the end of the node's own
// text, offered as an edit the user confirms. Otherwise the answer is only
// shown.
func (a *Actuators) message(ctx context.Context, req Request) (Result, error) {
	text := req.Action.Typed().(gates.MessageArgs).Text
	shown := Result{OK: true, Summary: "answer shown", Shown: text}
	if req.File == "" || a.cfg.Files.Workspace == nil || a.paths.protectedFile(req.File) {
		// Asked from flightplans.org or journal.org: the answer is shown,
		// never written there.
		return shown, nil
	}
	d, open := a.cfg.Files.Workspace.OpenDocument(req.File)
	if !open {
		return shown, nil
	}
	cur := workspace.Current{Path: req.File, Text: d.Text, Open: true, Version: d.Version, Exists: true}
	f := orgast.Parse(cur.Text)
	line := min(max(req.Line, 0), f.Lines.LineCount()-1)
	off := f.Lines.LineRange(line).Start
	var at int
	title := "the file"
	if hi := f.NodeAt(off); hi >= 0 {
		h := &f.Headlines[hi]
		at = orgtext.ContentEnd(cur.Text, h.Line.Start, h.Section.End)
		title = h.Title
	} else {
		first := len(cur.Text)
		if len(f.Headlines) > 0 {
			first = f.Headlines[0].Line.Start
		}
		at = orgtext.ContentEnd(cur.Text, 0, first)
	}
	block := "#+begin_quote\n" + orgtext.Paragraph(text) + "#+end_quote\n"
	if at > 0 && cur.Text[at-1] != '\n' {
		block = "\n" + block
	}
	_, err := a.cfg.Files.Write(ctx, cur, []workspace.Change{{Start: at, End: at, NewText: block}},
		workspace.Meta{Label: "Passepartout's answer", Description: orgtext.Title(req.Question, 200), Confirm: true})
	if errors.Is(err, workspace.ErrNotApplied) {
		shown.OK = false
		shown.Summary = "the editor did not take the answer into the file"
		return shown, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("message: %w", err)
	}
	return Result{OK: true, Changed: []string{req.File}, Shown: text,
		Summary: fmt.Sprintf("answer offered to the editor, into %q (it asks you to confirm)", title)}, nil
}
