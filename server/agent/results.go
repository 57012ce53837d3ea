package agent

import (
	"context"
	"fmt"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/server/actuate"
	"pp-lsp/server/journal"
	"pp-lsp/server/workspace"
)

// outputText is what the journal and a plan keep of a result: its
// warnings first (a protected file touched), then the output.
func outputText(res actuate.Result) string {
	var b strings.Builder
	for _, w := range res.Warnings {
		b.WriteString("WARNING: " + w + "\n")
	}
	b.WriteString(res.Output)
	return b.String()
}

// summaryOf says in one line what an action did or why it failed.
func summaryOf(res actuate.Result, err error) string {
	switch {
	case err != nil && res.Summary != "":
		return res.Summary + ": " + err.Error()
	case err != nil:
		return err.Error()
	}
	return res.Summary
}

// journalResult records what an action did.
func (a *Agent) journalResult(ctx context.Context, sig Signal, action gates.Action, planID string, res actuate.Result, err error) {
	status := "ok"
	if err != nil || !res.OK {
		status = "failed"
	}
	a.appendJournal(ctx, journal.Entry{
		Kind: journal.KindResult, Source: string(sig.Source), Session: sig.Session, RequestID: sig.RequestID,
		Tool: string(action.Tool), ActionHash: action.Hash(), PlanID: planID, Status: status,
		Title:   fmt.Sprintf("%s: %s", action.Tool, summaryOf(res, err)),
		Text:    outputText(res),
		Private: sig.LocalOnly,
	})
}

// restoreBuffer puts an editor buffer back to its text before a failed
// pass, through the editor (never behind it).
func (a *Agent) restoreBuffer(ctx context.Context, b memory.BufferRestore) {
	ws := a.files.Workspace
	if ws == nil {
		return
	}
	d, ok := ws.OpenDocument(b.Path)
	if !ok {
		return
	}
	if !b.Exists {
		a.log.WarnContext(ctx, "a failed pass created a file that is open in the editor: close it without saving", "file", b.Path)
		return
	}
	e := workspace.Edit{Path: b.Path, Open: true, Version: d.Version, Base: d.Text,
		Changes: []workspace.Change{{Start: 0, End: len(d.Text), NewText: string(b.Text)}},
		Label:   "Passepartout: undo a failed action"}
	if ok, err := ws.ApplyEdit(ctx, e); err != nil || !ok {
		a.log.ErrorContext(ctx, "the editor did not take back a failed pass's change", "file", b.Path, "err", err)
	}
}
