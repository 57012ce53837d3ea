package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/orgfeat"
	"pp-lsp/server/internal/orgtext"
	"pp-lsp/server/journal"
	"pp-lsp/server/protect"
	"pp-lsp/server/skills"
)

// needsModel reports whether running k asks a model: every skill but the
// Gardener.
func needsModel(k *skills.Skill) bool { return !k.Is(skills.Gardener) }

// dailyNote is today's daily note (relative to the first root, and its
// text as it is now, or the text a new one starts with).
func (a *Agent) dailyNote(day time.Time) (rel, text string, err error) {
	path := orgfeat.DailyPath(a.roots[0], day)
	cur, err := a.files.Read(path)
	if err != nil {
		return "", "", err
	}
	text = string(cur.Text)
	if !cur.Exists {
		text = orgfeat.NoteText("", day.Format(time.DateOnly), uuid.NewString(), day)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	rel, _ = filepath.Rel(a.roots[0], path)
	return filepath.ToSlash(rel), text, nil
}

// runGardener is the Gardener: no model. Its report, as a section
// appended to today's daily note, is proposed as a file_write and gated as
// a background action (so filed as a Flight Plan), journalled like a
// model's proposal.
func (a *Agent) runGardener(ctx context.Context, k *skills.Skill, sig Signal) ([]Pass, error) {
	p := Pass{Sensor: SensorSchedule, Skills: []string{k.Title}}
	// Its report goes into a public note that models read later: made
	// from the memex as the disk holds it now.
	snap, err := a.fresh(ctx)
	if err != nil {
		return nil, err
	}
	now := a.now()
	g := skills.Tend(snap, now, func(path string) (time.Time, bool) {
		fi, err := os.Stat(path)
		if err != nil {
			return time.Time{}, false
		}
		return fi.ModTime(), true
	})
	rel, text, err := a.dailyNote(now)
	if err != nil {
		p.Status, p.Err = StatusFailed, err
		return []Pass{p}, nil
	}
	action := gates.NewAction(gates.ToolFileWrite,
		fmt.Sprintf("The Gardener's report for %s: %d findings, %d orphans, %d stale TODOs.", now.Format(time.DateOnly), len(g.Findings), len(g.Orphans), len(g.Stale)),
		map[string]string{"path": rel, "content": text + g.Org(a.roots[0], now)})
	env, err := a.env(ctx, snap, backgroundNarrowing)
	if err != nil {
		p.Status, p.Err = StatusFailed, err
		return []Pass{p}, nil
	}
	defer env.Close()
	v := a.gates().Check(ctx, action, env)
	t := Try{N: 1, Proposal: string(action.CanonicalJSON()), Action: &action, Verdict: v}
	p.Tries, p.Verdict, p.Provider = []Try{t}, v, "gardener"
	if err := a.journalProposal(ctx, sig, t, proposal{action: action}, p.Skills); err != nil {
		p.Status, p.Err = StatusFailed, fmt.Errorf("nothing was done: %w", err)
		return []Pass{p}, nil
	}
	if v.Verdict == gates.VerdictDeny {
		p.Status = StatusDenied
		return []Pass{p}, nil
	}
	// A background write always asks (backgroundNarrowing): the report
	// waits for the user as a Flight Plan.
	p.Action = &action
	id, err := a.file(ctx, sig, action, v, filedNarrowing{skills: []string{k.Key}, rules: []gates.Narrowing{backgroundNarrowing}})
	if err != nil {
		p.Status, p.Err = StatusFailed, err
		return []Pass{p}, nil
	}
	p.Status, p.PlanID = StatusFiled, id
	return []Pass{p}, nil
}

// maxScribeMaterial bounds what the Scribe hands the model.
const maxScribeMaterial = 24 << 10

// scribeText is the Scribe's question: the daily note to append to, and
// yesterday's conversations (the chat files of that day, their nodes
// before the first private one) and journal entries (their headlines),
// through the vault's redaction.
func (a *Agent) scribeText(snap *memory.Snapshot) (string, error) {
	now := a.now()
	yesterday := now.AddDate(0, 0, -1).Format(time.DateOnly)
	rel, _, err := a.dailyNote(now)
	if err != nil {
		return "", err
	}
	var chats strings.Builder
	for file := range snap.Files() {
		base := filepath.Base(file.Path())
		if file.Private() || !a.chats.InDir(file.Path()) || !strings.HasPrefix(base, yesterday) {
			continue
		}
		fmt.Fprintf(&chats, "** %s (%s)\n", orgtext.Title(file.Title(), 200), file.RelPath())
		for n := range file.Descendants() {
			if n.Private() {
				// A follow-up of a conversation with a private part went
				// to a model that saw it, and its answer may quote it:
				// nothing at or after the first private node is handed
				// over (the turns before it are as they were).
				break
			}
			h := n.OrgHeadline()
			src := n.Org().Src
			body := strings.TrimSpace(string(src[h.Section.Start:h.Section.End]))
			fmt.Fprintf(&chats, "*** %s\n%s\n", orgtext.Title(n.Title(), 200), orgtext.Paragraph(body))
		}
	}
	var entries strings.Builder
	// Read as the server's own file: not through a symlink (another file's
	// lines would reach the model), never waiting on a FIFO, bounded.
	if b, ok, err := protect.ReadOwnFile(a.journal.Path()); ok && err == nil {
		for _, h := range a.publicEntries(snap, journal.Headlines(b)) {
			if strings.HasPrefix(h.Line, "["+yesterday) {
				entries.WriteString("- " + h.Line + "\n")
			}
		}
	}
	material := fmt.Sprintf("YESTERDAY'S CONVERSATIONS (%s):\n%s\nYESTERDAY'S JOURNAL ENTRIES:\n%s", yesterday, orNone(chats.String()), orNone(entries.String()))
	material = orgtext.Cut(a.redact(material), maxScribeMaterial)
	return fmt.Sprintf("Run your skill %q now: distil yesterday into a summary for the daily note %s.\n\n%s", skills.Scribe, rel, material), nil
}

// publicEntries are the journal's entries a model may be handed: none of
// a private conversation's pass (:PRIVATE: t), none naming a plan one
// filed, and a conversation's turn only while its file is in the memex
// and holds nothing private — its name is its first question's words,
// and a conversation made private after the turn was journalled is as
// private as one that always was.
func (a *Agent) publicEntries(snap *memory.Snapshot, hs []journal.Headline) []journal.Headline {
	private := map[string]bool{}
	for _, h := range hs {
		if h.PlanID == "" {
			continue
		}
		if h.Private {
			private[h.PlanID] = true
		} else if _, seen := private[h.PlanID]; !seen {
			private[h.PlanID] = a.privatePlan(h.PlanID)
		}
	}
	tags := snap.PrivacyTags()
	// A conversation's file is judged once, however many of its turns
	// the journal holds.
	publicChat := map[string]bool{}
	public := func(path string) bool {
		if pub, ok := publicChat[path]; ok {
			return pub
		}
		f, ok := snap.File(path)
		pub := ok && !f.Private()
		if pub {
			spans, _ := gates.PrivateSpans(f.Text(), tags)
			pub = len(spans) == 0
		}
		publicChat[path] = pub
		return pub
	}
	var out []journal.Headline
	for _, h := range hs {
		if h.Private || private[h.PlanID] {
			continue
		}
		if h.Kind == journal.KindTurn && !public(strings.TrimSpace(h.Text)) {
			continue
		}
		out = append(out, h)
	}
	return out
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)\n"
	}
	return s
}
