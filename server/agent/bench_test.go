package agent

import (
	"context"
	"fmt"
	"testing"

	"pp-lsp/gates"
)

// BenchmarkPass is one whole pass that the model answers in words: the
// context, the prompt, the (replayed) answer streamed, the proposal parsed
// and gated, the journal appended, the message acted on. The model's own
// time is not in it: what is measured is the agent's overhead per pass.
func BenchmarkPass(b *testing.B) {
	cfg := gates.DefaultConfig()
	cfg.Limits.PerMinute, cfg.Limits.ToolPerMinute = 0, nil // the rate limit would deny a benchmark's pace
	stack, err := gates.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	fx := newFixture(b, map[string]string{"notes.org": notesOrg}, replay(b, `{"match":{},"repeat":true,"reply":{"text":"The answer."}}`),
		func(o *Options) { o.Stack = stack })
	req := AskRequest{File: fx.path("notes.org"), Line: 5, Text: "what is it?"}
	b.ResetTimer()
	for b.Loop() {
		out, err := fx.agent.Ask(context.Background(), req, nil)
		if err != nil || lastPass(out).Status != StatusAnswered {
			b.Fatalf("%v: %+v", err, lastPass(out))
		}
	}
}

// BenchmarkCommandCheckpoint is what undo adds to every shell or eval
// command: the memex read again before and after it (here 1,000 notes,
// none changed) and the two snapshots compared (orgChanges).
func BenchmarkCommandCheckpoint(b *testing.B) {
	files := map[string]string{}
	for i := range 1000 {
		files[fmt.Sprintf("notes/n%04d.org", i)] = fmt.Sprintf("* Note %d\nSome text of note %d.\n", i, i)
	}
	fx := newFixture(b, files, nil)
	action := gates.Build(gates.ShellArgs{Cmd: "ls notes", Cwd: "."}, "bench")
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		fx.agent.refreshFirst(ctx, action)
		if got := fx.agent.orgChanges(ctx, action, fx.mx.Snapshot()); len(got) != 0 {
			b.Fatalf("%d files changed", len(got))
		}
	}
}
