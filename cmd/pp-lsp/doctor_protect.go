package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"pp-lsp/memory"
	"pp-lsp/server/journal"
	"pp-lsp/server/protect"
)

// checkProtected reports the protected places (DESIGN §8): the data
// directory outside every root, its key sound, and flightplans.org and
// journal.org regular files of the server's own — in the current folder
// (the default root) and the root of every journal the data directory
// records.
func checkProtected(_ context.Context, c *cli) []checkLine {
	dataDir, _ := memory.DataDir(c.getenv)
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		roots = append(roots, wd)
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
		st := checkOK
		if f.Failed {
			st = checkFail
		}
		out = append(out, checkLine{st, f.Subject, f.Detail})
	}
	return out
}
