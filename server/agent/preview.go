package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/internal/udiff"
	"pp-lsp/server/actuate"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
	"pp-lsp/server/protect"
)

// planPreview is what a plan shows of what its action would change: the
// unified diff of a file_write or memory_edit (through the privacy filter:
// flightplans.org is in the memex, where a model may read it), the text
// it was made from (actuate.HashOf; sealed in the filing record), and the
// files a shell command writes.
type planPreview struct {
	diff, before string
	writes       []string
}

// preview computes a plan's preview of action now.
func (a *Agent) preview(ctx context.Context, action gates.Action) planPreview {
	var pv planPreview
	if action.Tool == gates.ToolShell {
		env, err := a.env(ctx, a.memex.Snapshot())
		if err != nil {
			return pv
		}
		defer env.Close()
		for _, w := range gates.ShellWrites(ctx, action, env) {
			pv.writes = append(pv.writes, a.shortName(w))
		}
		return pv
	}
	e, ok, err := a.acts.Preview(action)
	if !ok || err != nil {
		return pv
	}
	pv.before = actuate.HashOf(e.Existed, e.Before)
	pv.diff = fileDiff(e)
	// The current snapshot: a plan is filed after its question's Recheck
	// (the memex's snapshot descends from it), or at a plan's refiling,
	// and its diff is written for the user's editor, not a model.
	if a.acts.Filter(a.memex.Snapshot(), pv.diff) != pv.diff {
		// A diff with a line cut out is no diff: none is shown here.
		pv.diff = privateDiff
	}
	return pv
}

// maxPreview bounds the bytes a plan's diff is made from.
const maxPreview = 8 << 20

// privateDiff stands in a plan for a diff that would quote a private note
// or a secret: the hover, which only the user's editor sees, shows it.
const privateDiff = "(not shown here: the diff quotes a private note or a secret; hover over the plan's headline to see it)\n"

// fileDiff is the unified diff of a file edit, named as `diff -u a/… b/…`
// would name it (/dev/null for a file that is not there yet), or a line
// saying it is too large to show.
func fileDiff(e actuate.FileEdit) string {
	if len(e.Before)+len(e.After) > maxPreview {
		return fmt.Sprintf("(not shown: the file is too large to diff here, %d bytes before and %d after)\n", len(e.Before), len(e.After))
	}
	from := "a/" + e.Rel
	if !e.Existed {
		from = "/dev/null"
	}
	return udiff.Diff(from, "b/"+e.Rel, e.Before, e.After)
}

// shortName is a canonical path relative to the root holding it, or as it
// is when no root does.
func (a *Agent) shortName(c string) string {
	for _, r := range a.roots {
		if rel, err := filepath.Rel(protect.Canonical(r), c); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			if len(a.roots) > 1 && r != a.roots[0] {
				return c
			}
			return filepath.ToSlash(rel)
		}
	}
	return c
}

// targetChanged reports whether the file a plan's diff was made from
// holds other text now (a file_write or memory_edit filed with a diff).
func (a *Agent) targetChanged(action gates.Action, rec flightplan.FilingRecord) bool {
	if rec.Before == "" {
		return false
	}
	e, ok, err := a.acts.Preview(action)
	return ok && err == nil && actuate.HashOf(e.Existed, e.Before) != rec.Before
}

// staleApproval is, for a plan being filed afresh, the hash of its subtree
// as flightplans.org holds it on disk when that reads APPROVED: the
// approval was given to what the plan said before, and does not count.
func (a *Agent) staleApproval(id string) string {
	disk, ok, _ := protect.ReadOwnFile(a.plansPath)
	if !ok {
		return ""
	}
	if q, err := flightplan.Find(flightplan.Parse(disk), id); err == nil && q.State == flightplan.StateApproved {
		return journal.HashOf(q.Text(disk))
	}
	return ""
}

// PlanHover is the hover text over a plan's headline at the 0-based line:
// its state, gate trace, diff or written files and result
// (flightplan.Hover), and, for a file plan still to run whose file changed
// since its diff was made, the diff of what it would change now.
func (a *Agent) PlanHover(text []byte, line int) (string, bool) {
	h, ok := flightplan.Hover(text, line, a.store)
	if !ok {
		return h, ok
	}
	for _, p := range flightplan.Parse(text) {
		if p.Line != line || p.State.Final() || p.Action == nil {
			continue
		}
		rec, err := a.store.Filing(p.ID)
		if err != nil || rec.ActionHash != p.Action.Hash() {
			continue
		}
		changed := a.targetChanged(*p.Action, rec)
		if !changed && strings.TrimSpace(p.Diff) != strings.TrimSpace(privateDiff) {
			continue
		}
		e, ok, err := a.acts.Preview(*p.Action)
		if !ok || err != nil {
			continue
		}
		if changed {
			h += "\n**The file changed since this diff was made.** Approving it now does not run it: the plan is gated again and shows what it would change then, which is now:\n\n"
		} else {
			h += "\nThe diff (it quotes a private note, so only your editor shows it):\n\n"
		}
		h += flightplan.Fence("diff", fileDiff(e))
	}
	return h, true
}
