package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"pp-lsp/memory"
	"pp-lsp/server/journal"
)

// checkJournal verifies the hash chain of every audit journal: the one
// under the first root (where the agent writes it) and every one whose
// head the data directory records. A broken chain names its first entry
// that does not match.
func checkJournal(ctx context.Context, d *doctorEnv) []checkLine {
	dataDir, _ := memory.DataDir(d.getenv)
	var paths []string
	if dataDir != "" {
		paths = journal.Known(dataDir)
	}
	first, err := filepath.Abs(filepath.Join(d.roots[0], journal.FileName))
	if err == nil && !slices.Contains(paths, first) {
		if _, ok := fileExists(first); ok {
			paths = append(paths, first)
		}
	}
	if len(paths) == 0 {
		return []checkLine{ok("journal", "none yet under %s; the first proposal starts it", absPath(d.roots[0]))}
	}
	slices.Sort(paths)
	var out []checkLine
	for _, p := range paths {
		subject := "journal " + p
		rep, err := journal.Verify(ctx, p, dataDir)
		switch {
		case err != nil:
			out = append(out, fail(subject, err.Error(), "make it readable"))
		case rep.Broken != nil:
			b := rep.Broken
			out = append(out, fail(subject, fmt.Sprintf("entry %d (line %d, %q) does not match: %s", b.Entry, b.Line, b.Title, b.Reason),
				"someone changed the past: compare it with a backup; the entries before it still verify"))
		case rep.Head == journal.HeadMismatch:
			out = append(out, fail(subject, rep.HeadProblem, "the journal or its head record was changed outside pp-lsp: compare the journal with a backup"))
		case rep.Unrecorded > 0:
			b := rep.FirstUnrecorded
			out = append(out, fail(subject, fmt.Sprintf("entry %d (line %d, %q) is unrecorded: %s", b.Entry, b.Line, b.Title, b.Reason),
				"pp-lsp did not write the entries after the recorded head: someone appended them; remove them after reading them"))
		case len(rep.Anomalies) > 0:
			a := rep.Anomalies[0]
			out = append(out, fail(subject, fmt.Sprintf("entry %d is unrecorded or was changed, as an append found on %s: %s (%d findings in all; the chain after it verifies)",
				a.Entry, a.Found.Format("2006-01-02 15:04"), a.What, len(rep.Anomalies)),
				"compare the journal with a backup; the finding stays recorded"))
		case rep.Head == journal.HeadOK:
			out = append(out, ok(subject, "%d entries, hash chain verified up to the recorded head", rep.Entries))
		case rep.Entries == 0:
			out = append(out, ok(subject, "none yet; the first proposal starts it"))
		case rep.HeadProblem != "":
			out = append(out, warn(subject, fmt.Sprintf("%d entries, hash chain verified; %s", rep.Entries, rep.HeadProblem),
				"if another data dir wrote it (the demo keeps its own; see PASSEPARTOUT_DATA_DIR), run doctor with that one"))
		default:
			out = append(out, warn(subject, fmt.Sprintf("%d entries, hash chain verified, but %s records no head for it, so removed or changed last entries would not show", rep.Entries, dataDir),
				"if another data dir wrote it (the demo keeps its own; see PASSEPARTOUT_DATA_DIR), run doctor with that one"))
		}
	}
	return out
}
