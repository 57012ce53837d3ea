package journal

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"pp-lsp/gates"
)

// bigJournal writes a journal of n entries, as appends would.
func bigJournal(b *testing.B, n int) (string, string) {
	b.Helper()
	dir, data := b.TempDir(), b.TempDir()
	p := filepath.Join(dir, FileName)
	j := Open(p, data, mustKey(b, data))
	v := &gates.Verdict{Verdict: "allow", Gate: "permissions", Reason: "allowed by shell(ls:*)",
		Trace: []gates.TraceEntry{{Gate: "permissions", Priority: 600, Result: "passed"}, {Gate: "validator", Priority: 95, Result: "passed"}}}
	for i := range n {
		if _, err := j.Append(context.Background(), Entry{Kind: KindProposal, Title: fmt.Sprintf("shell %d", i), Verdict: v,
			Action: []byte(`{"tool":"shell","args":{"cmd":"ls notes","cwd":"."},"explanation":"look"}`)}); err != nil {
			b.Fatal(err)
		}
	}
	return p, data
}

func BenchmarkAppend(b *testing.B) {
	p, data := bigJournal(b, 2000)
	j := Open(p, data, mustKey(b, data))
	b.ResetTimer()
	for b.Loop() {
		if _, err := j.Append(context.Background(), Entry{Kind: KindResult, Title: "shell: exit status 0", Text: "a.org\nb.org\n"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	p, data := bigJournal(b, 2000)
	b.ResetTimer()
	for b.Loop() {
		rep, err := Verify(context.Background(), p, data)
		if err != nil || !rep.OK() {
			b.Fatal(err, rep.Broken)
		}
	}
}

// BenchmarkAppendDeferred: an entry written as a read's is (its fsyncs left
// to the timer, which this loop outruns most of the time).
func BenchmarkAppendDeferred(b *testing.B) {
	p, data := bigJournal(b, 2000)
	j := Open(p, data, mustKey(b, data))
	b.ResetTimer()
	for b.Loop() {
		if _, err := j.AppendDeferred(context.Background(), Entry{Kind: KindCall, Title: `memex_search {"query":"garden"}: 10 hits`}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := j.Close(); err != nil {
		b.Fatal(err)
	}
}
