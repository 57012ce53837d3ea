package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"pp-lsp/gates"
	"pp-lsp/memory"
)

// indexReport is what `pp-lsp index --json` prints: DESIGN §4's figures
// first, then the others memory counts.
type indexReport struct {
	Files               int           `json:"files"`
	Headlines           int           `json:"headlines"`
	IDs                 int           `json:"ids"`
	Links               int           `json:"links"`
	IDLinks             int           `json:"id_links"`
	BrokenIDLinks       int           `json:"broken_id_links"`
	DuplicateIDs        int           `json:"duplicate_ids"`
	RootHash            string        `json:"root_hash"`
	Nodes               int           `json:"nodes"`
	FileLinks           int           `json:"file_links"`
	BrokenFileLinks     int           `json:"broken_file_links"`
	BrokenInternalLinks int           `json:"broken_internal_links"`
	PrivateNodes        int           `json:"private_nodes"`
	Skipped             int           `json:"skipped"`
	SkippedFiles        int           `json:"skipped_files"`
	Roots               []string      `json:"roots"`
	Findings            []findingJSON `json:"findings,omitempty"`
}

// findingJSON is one finding, with a 1-based line as the CLI counts lines.
type findingJSON struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func runIndex(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp index [--json] [--findings] [--root DIR]..."
	fs := newFlagSet("index", usageLine)
	asJSON := fs.Bool("json", false, "print the figures as one JSON object")
	withFindings := fs.Bool("findings", false, "also list duplicate IDs, broken links and skipped files")
	roots := fs.rootFlag("")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("takes no operands, got %q (roots go after --root)", fs.Arg(0))
	}
	prog := newProgress(c.stderr)
	m, err := memory.Open(ctx, memory.Options{Roots: *roots, Home: gates.DefaultWorld(c.getenv, *roots).Home, Progress: prog.update, Logger: log})
	prog.finish()
	if err != nil {
		if errors.Is(err, memory.ErrRoot) {
			return err
		}
		return fmt.Errorf("cannot index the memex: %w", err)
	}
	defer m.Close(ctx)
	s := m.Snapshot()
	fg := s.Figures()
	rep := indexReport{
		Files: fg.Files, Headlines: fg.Headlines, IDs: fg.IDs, Links: fg.Links, IDLinks: fg.IDLinks,
		BrokenIDLinks: fg.BrokenIDLinks, DuplicateIDs: fg.DuplicateIDs, RootHash: fg.RootHash.String(),
		Nodes: fg.Nodes, FileLinks: fg.FileLinks, BrokenFileLinks: fg.BrokenFileLinks,
		BrokenInternalLinks: fg.BrokenInternalLinks, PrivateNodes: fg.PrivateNodes, Skipped: fg.Skipped, SkippedFiles: fg.SkippedFiles,
		Roots: s.Roots(),
	}
	if *withFindings {
		rep.Findings = []findingJSON{}
		for _, f := range s.Findings() {
			rep.Findings = append(rep.Findings, findingJSON{File: f.Path, Line: f.Line + 1, Code: f.Code, Message: f.Message})
		}
	}
	if *asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return fmt.Errorf("cannot encode the figures: %w", err)
		}
		_, err = fmt.Fprintf(c.stdout, "%s\n", b)
		return err
	}
	printIndexSummary(c.stdout, rep)
	return nil
}

func printIndexSummary(w io.Writer, r indexReport) {
	fmt.Fprintf(w, "%d Org files, %d headlines, %d IDs, %d links (%d id links, %d file links)\n",
		r.Files, r.Headlines, r.IDs, r.Links, r.IDLinks, r.FileLinks)
	fmt.Fprintf(w, "problems: %d broken id links, %d duplicate IDs, %d broken file links, %d broken internal links, %d files skipped\n",
		r.BrokenIDLinks, r.DuplicateIDs, r.BrokenFileLinks, r.BrokenInternalLinks, r.SkippedFiles)
	if r.Skipped > r.SkippedFiles {
		fmt.Fprintf(w, "unreadable folders: %d\n", r.Skipped-r.SkippedFiles)
	}
	if r.Skipped > 0 && r.Findings == nil {
		fmt.Fprintln(w, "(`pp-lsp index --findings` says which files and why)")
	}
	fmt.Fprintf(w, "private nodes: %d\nroot hash: %s\n", r.PrivateNodes, r.RootHash)
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%s:%d: %s: %s\n", f.File, f.Line, f.Code, f.Message)
	}
}

// progress shows "indexing N/M files" on stderr while a large memex is
// read: only when stderr is a terminal, at most five times a second, and
// erased when done, so scripts and logs never see it.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	last  time.Time
	shown bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.on = true
			p.last = time.Now() // nothing for the first 200ms: small memexes stay silent
		}
	}
	return p
}

func (p *progress) update(done, total int) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond && done < total {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\rindexing %d/%d files", done, total)
	p.shown = true
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
