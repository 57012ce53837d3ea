package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"pp-lsp/memory"
	"pp-lsp/server/journal"
)

// checkJournal verifies the hash chain of every audit journal: the one in
// the current folder (the default root) and every one whose head the data
// directory records. A broken chain names its first entry that does not
// match. Where there is no journal yet there is nothing to check, and no
// line is printed (the data directory itself is another check's concern).
func checkJournal(ctx context.Context, c *cli) []checkLine {
	dataDir, _ := memory.DataDir(c.getenv)
	var paths []string
	if dataDir != "" {
		paths = journal.Known(dataDir)
	}
	if wd, err := os.Getwd(); err == nil {
		p := filepath.Join(wd, journal.FileName)
		if _, err := os.Stat(p); err == nil && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var out []checkLine
	for _, p := range paths {
		rep, err := journal.Verify(ctx, p, dataDir)
		switch {
		case err != nil:
			out = append(out, checkLine{checkFail, "journal " + p, err.Error()})
		case rep.Broken != nil:
			b := rep.Broken
			out = append(out, checkLine{checkFail, "journal " + p, fmt.Sprintf("entry %d (line %d, %q) does not match: %s", b.Entry, b.Line, b.Title, b.Reason)})
		case rep.Head == journal.HeadMismatch:
			out = append(out, checkLine{checkFail, "journal " + p, rep.HeadProblem})
		case rep.Unrecorded > 0:
			b := rep.FirstUnrecorded
			out = append(out, checkLine{checkFail, "journal " + p, fmt.Sprintf("entry %d (line %d, %q) is unrecorded: %s", b.Entry, b.Line, b.Title, b.Reason)})
		case len(rep.Anomalies) > 0:
			a := rep.Anomalies[0]
			out = append(out, checkLine{checkFail, "journal " + p, fmt.Sprintf("entry %d is unrecorded or was changed, as an append found on %s: %s (%d findings in all; the chain after it verifies)",
				a.Entry, a.Found.Format("2006-01-02 15:04"), a.What, len(rep.Anomalies))})
		case rep.Head == journal.HeadOK:
			out = append(out, checkLine{checkOK, "journal " + p, fmt.Sprintf("%d entries, hash chain verified up to the recorded head", rep.Entries)})
		case rep.HeadProblem != "":
			out = append(out, checkLine{checkWarn, "journal " + p, fmt.Sprintf("%d entries, hash chain verified; %s", rep.Entries, rep.HeadProblem)})
		default:
			out = append(out, checkLine{checkWarn, "journal " + p, fmt.Sprintf("%d entries, hash chain verified; no head is recorded in %s, so removed or changed last entries would not show", rep.Entries, dataDir)})
		}
	}
	return out
}
