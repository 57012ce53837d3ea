package lsp

import (
	"cmp"
	"context"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// Diagnostics are published by one goroutine, from the newest view, in
// this order: the files just changed (at once: typing gets its answer
// first), every file once the memex is indexed, the files a change
// ripples into (their links to an ID that appeared or vanished, their
// share of a duplicate ID), and, a moment after the typing stops, every
// open buffer again (links by heading text into a changed file). A file's
// diagnostics are sent only when they differ from what the client has, or
// when an open buffer reached a new version.

// diagnoser schedules and publishes diagnostics.
type diagnoser struct {
	s    *Server
	wake chan struct{}
	seed maphash.Seed

	mu       sync.Mutex
	now      map[string]bool
	ripples  []ripple
	all      bool
	sweepDue time.Time

	// published is what the client holds: a hash of the diagnostics and
	// the version they were computed for (run's goroutine only).
	published map[string]publication
}

// ripple is a change to path whose effect on other files is still to be
// found: before is the memex before it (nil: nothing to compare).
type ripple struct {
	path   string
	before *memory.Snapshot
}

type publication struct {
	hash    uint64
	version int32
}

// sweepDelay is how long after the last change every open buffer is
// checked again.
const sweepDelay = 300 * time.Millisecond

func newDiagnoser(s *Server) *diagnoser {
	return &diagnoser{s: s, wake: make(chan struct{}, 1), seed: maphash.MakeSeed(), now: map[string]bool{}, published: map[string]publication{}}
}

// changed schedules path at once and the files its change ripples into.
func (d *diagnoser) changed(path string, before *memory.Snapshot) {
	d.mu.Lock()
	d.now[path] = true
	// The oldest snapshot of a path covers every change since: only it
	// is kept, so a burst of edits holds one old text, not one per edit.
	if before != nil && !slices.ContainsFunc(d.ripples, func(r ripple) bool { return r.path == path }) {
		d.ripples = append(d.ripples, ripple{path, before})
	}
	d.sweepDue = time.Now().Add(sweepDelay)
	d.mu.Unlock()
	d.poke()
}

// everything schedules every file of the memex and every open buffer.
func (d *diagnoser) everything() {
	d.mu.Lock()
	d.all = true
	d.mu.Unlock()
	d.poke()
}

func (d *diagnoser) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run publishes until ctx ends.
func (d *diagnoser) run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-timer.C:
		}
		d.mu.Lock()
		now, ripples, all, due := d.now, d.ripples, d.all, d.sweepDue
		d.now, d.ripples, d.all = map[string]bool{}, nil, false
		sweep := !due.IsZero() && !time.Now().Before(due)
		if sweep {
			d.sweepDue = time.Time{}
		}
		d.mu.Unlock()
		if !due.IsZero() && !sweep {
			timer.Reset(time.Until(due))
		}

		// What the ripples need of their snapshots is taken now, and the
		// snapshots let go: during a burst of edits to a large buffer they
		// would keep its older versions alive while the diagnostics are
		// computed (issue 23).
		was := rippleBefore(ripples)
		ripples = nil
		v := d.s.view()
		done := map[string]bool{}
		publish := func(path string) {
			if !done[path] && ctx.Err() == nil {
				done[path] = true
				d.publish(v, path)
			}
		}
		for _, p := range slices.Sorted(maps.Keys(now)) {
			publish(p)
		}
		if all && v.snap != nil {
			for f := range v.snap.Files() {
				publish(f.Path())
			}
		}
		if all || sweep {
			for _, p := range slices.Sorted(maps.Keys(v.docs)) {
				publish(p)
			}
		}
		if v.snap != nil {
			for _, p := range rippleFiles(v.snap, was) {
				publish(p)
			}
		}
	}
}

// rippleState is what a ripple needs of the snapshot before its
// change: whether the file was in the memex, and the IDs it carried.
type rippleState struct {
	existed bool
	ids     map[string]bool
}

// rippleBefore takes from each path's oldest snapshot (which covers
// every change since) what rippleFiles compares.
func rippleBefore(ripples []ripple) map[string]rippleState {
	out := map[string]rippleState{}
	for _, r := range ripples {
		if _, ok := out[r.path]; !ok {
			out[r.path] = rippleState{existed: hasFile(r.before, r.path), ids: fileIDs(r.before, r.path)}
		}
	}
	return out
}

// rippleFiles are the files other than the changed ones whose
// diagnostics a change may have moved: those linking to an ID the change
// made appear or vanish, and those carrying such an ID too; when the
// file appeared or vanished, those linking to it. They are looked up in
// after: a file whose own links or IDs changed since is scheduled by its
// own change.
func rippleFiles(after *memory.Snapshot, was map[string]rippleState) []string {
	out := map[string]bool{}
	for path, before := range was {
		is := fileIDs(after, path)
		for id := range before.ids {
			if !is[id] {
				idFiles(after, id, out)
			}
		}
		for id := range is {
			if !before.ids[id] {
				idFiles(after, id, out)
			}
		}
		if before.existed != hasFile(after, path) {
			for _, l := range after.FileLinksTo(path) {
				out[l.From.Path()] = true
			}
		}
	}
	for path := range was {
		delete(out, path)
	}
	return slices.Sorted(maps.Keys(out))
}

func hasFile(s *memory.Snapshot, path string) bool {
	_, ok := s.File(path)
	return ok
}

// fileIDs are the IDs the file at path carries.
func fileIDs(s *memory.Snapshot, path string) map[string]bool {
	ids := map[string]bool{}
	f, ok := s.File(path)
	if !ok {
		return ids
	}
	if id := f.ID(); id != "" {
		ids[id] = true
	}
	for n := range f.Descendants() {
		if id := n.ID(); id != "" {
			ids[id] = true
		}
	}
	return ids
}

// idFiles adds the files carrying id and those with an id link to it.
func idFiles(s *memory.Snapshot, id string, out map[string]bool) {
	for _, n := range s.NodesByID(id) {
		out[n.Path()] = true
	}
	for _, l := range s.IDLinks(id) {
		out[l.From.Path()] = true
	}
}

// diagnostic is an LSP Diagnostic.
type diagnostic struct {
	Range              protocol.Range `json:"range"`
	Severity           int            `json:"severity"`
	Code               string         `json:"code,omitempty"`
	Source             string         `json:"source"`
	Message            string         `json:"message"`
	RelatedInformation []relatedInfo  `json:"relatedInformation,omitempty"`
}

type relatedInfo struct {
	Location protocol.Location `json:"location"`
	Message  string            `json:"message"`
}

type publishParams struct {
	URI         uri.URI      `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

// publish sends the diagnostics of path when the client's are stale.
func (d *diagnoser) publish(v *view, path string) {
	diags, version := v.diagnostics(path)
	var h maphash.Hash
	h.SetSeed(d.seed)
	for _, g := range diags {
		fmt.Fprintf(&h, "%v|%d|%s|%s|%d\x00", g.Range, g.Severity, g.Code, g.Message, len(g.RelatedInformation))
	}
	pub := publication{hash: h.Sum64()}
	if version != nil {
		pub.version = *version
	}
	old, had := d.published[path]
	if had && old == pub {
		return
	}
	if !had && len(diags) == 0 && version == nil {
		return // nothing was said about it, and there is nothing to say
	}
	d.published[path] = pub
	if diags == nil {
		diags = []diagnostic{}
	}
	d.s.notify(protocol.MethodTextDocumentPublishDiagnostics, publishParams{URI: v.uriOf(path), Version: version, Diagnostics: diags})
}

// diagnostics computes the diagnostics of path: the outline's problems
// (malformed drawers…), the memex's findings (duplicate IDs, broken
// links), the problems of the skills written there and, on the Flight
// Plans file, each plan's state and gate trace.
// version is the open buffer's (nil for a file on disk).
func (v *view) diagnostics(path string) ([]diagnostic, *int32) {
	f, err := v.fileAt(path, "")
	if err != nil {
		return nil, nil
	}
	var version *int32
	if f.doc != nil {
		version = new(f.doc.version)
	}
	var out []diagnostic
	more := 0 // findings past maxDiagnostics, counted, not described
	for _, p := range f.org.Problems {
		out = append(out, diagnostic{Range: rangeAt(f.org, p.Range), Severity: int(p.Severity), Code: p.Code, Source: "pp-lsp", Message: p.Message})
	}
	switch {
	case f.inMemex():
		findings, n := v.snap.FileFindingsN(path, maxDiagnostics)
		more = n
		for _, fd := range findings {
			g := diagnostic{Range: rangeAt(f.org, fd.Range), Severity: int(fd.Severity), Code: fd.Code, Source: "pp-lsp", Message: fd.Message}
			if v.client.relatedInformation {
				for _, r := range fd.Related {
					if loc, ok := v.location(r.Path, r.Range); ok {
						g.RelatedInformation = append(g.RelatedInformation, relatedInfo{Location: loc, Message: "the same ID here"})
					}
				}
			}
			out = append(out, g)
		}
		out = append(out, skillDiagnostics(v, f, path)...)
	case v.snap != nil:
		// A buffer outside the memex: its id links are still checked
		// against the memex.
		for _, l := range f.org.Links {
			if strings.EqualFold(l.Type, "id") && !v.snap.HasID(l.Path) {
				out = append(out, diagnostic{Range: rangeAt(f.org, l.Range), Severity: int(orgast.SeverityWarning), Code: memory.CodeBrokenIDLink, Source: "pp-lsp",
					Message: fmt.Sprintf("no node in the memex carries the ID %s", l.Path)})
			}
		}
	}
	if v.agent != nil && v.agent.IsPlansFile(path) {
		for _, pd := range v.agent.PlanDiagnostics(f.org.Src) {
			out = append(out, diagnostic{Range: rangeAt(f.org, pd.Range), Severity: int(pd.Severity), Code: "flight-plan", Source: "pp-lsp", Message: pd.Message})
		}
	}
	slices.SortStableFunc(out, func(a, b diagnostic) int {
		return cmp.Or(cmp.Compare(a.Range.Start.Line, b.Range.Start.Line), cmp.Compare(a.Range.Start.Character, b.Range.Start.Character))
	})
	return capDiagnostics(out, more), version
}

// maxDiagnostics is the most diagnostics published for one file; the
// rest are summed up in one more (CodeMoreDiagnostics).
const maxDiagnostics = 1000

// CodeMoreDiagnostics is the code of the diagnostic that stands for those
// of a file past maxDiagnostics.
const CodeMoreDiagnostics = "more-diagnostics"

// capDiagnostics keeps the first maxDiagnostics of a file's diagnostics
// (in position order) and sums up the rest in one, at the first left out:
// a file with 150,000 broken links costs its client what a screenful does.
// more are the memex's findings past them, all broken links (counted by
// FileFindingsN, never described).
func capDiagnostics(out []diagnostic, more int) []diagnostic {
	if len(out) <= maxDiagnostics && more == 0 {
		return out
	}
	rest := out[min(len(out), maxDiagnostics):]
	severity, links, ids := int(memory.SeverityWarning), true, true
	if more == 0 {
		severity = rest[0].Severity
	}
	for _, g := range rest {
		severity = min(severity, g.Severity)
		switch g.Code {
		case memory.CodeBrokenIDLink, memory.CodeBrokenFileLink, memory.CodeBrokenSearch, memory.CodeBrokenInternalLink:
			ids = false
		case memory.CodeDuplicateID:
			links = false
		default:
			links, ids = false, false
		}
	}
	what := "diagnostics"
	switch {
	case links:
		what = "broken links"
	case ids:
		what = "duplicate IDs"
	}
	at := out[len(out)-1].Range
	if len(rest) > 0 {
		at = rest[0].Range
	}
	summary := diagnostic{Range: at, Severity: severity, Code: CodeMoreDiagnostics, Source: "pp-lsp",
		Message: fmt.Sprintf("… and %s more %s in this file (only the first %s are listed)", groupThousands(len(rest)+more), what, groupThousands(maxDiagnostics))}
	return append(out[:len(out)-len(rest):len(out)-len(rest)], summary)
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// location is the LSP location of a span of a file of the memex.
func (v *view) location(path string, r orgast.Range) (protocol.Location, bool) {
	f, err := v.fileAt(path, "")
	if err != nil {
		return protocol.Location{}, false
	}
	return protocol.Location{URI: f.uri, Range: rangeAt(f.org, r)}, true
}
