package main

import (
	"context"
	"path/filepath"
	"slices"

	"pp-lsp/memory"
	"pp-lsp/server/journal"
	"pp-lsp/server/protect"
)

// checkProtected reports the protected places (DESIGN §8): the data
// directory outside every root, its key sound, and flightplans.org and
// journal.org regular files of the server's own — in the first root and
// the root of every journal the data directory records.
func checkProtected(_ context.Context, d *doctorEnv) []checkLine {
	dataDir, _ := memory.DataDir(d.getenv)
	var roots []string
	if first, err := filepath.Abs(d.roots[0]); err == nil {
		roots = append(roots, first)
	}
	if dataDir != "" {
		for _, j := range journal.Known(dataDir) {
			if r := filepath.Dir(j); !slices.Contains(roots, r) {
				roots = append(roots, r)
			}
		}
	}
	var out []checkLine
	for _, f := range protect.Diagnose(roots, dataDir) {
		if f.Failed {
			out = append(out, fail(f.Subject, f.Detail, f.Fix))
			continue
		}
		out = append(out, ok(f.Subject, "%s", f.Detail))
	}
	return out
}
