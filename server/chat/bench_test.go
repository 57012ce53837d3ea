package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// longChat is a conversation of n turns of some 60 words each way, every
// fifth with an action.
func longChat(n int) []byte {
	var b strings.Builder
	b.WriteString(Header("a long conversation"))
	for i := range n {
		t := Turn{Question: fmt.Sprintf("question %d: %s", i, strings.Repeat("what about the garden ", 15)), Asked: asked,
			Model: "ollama:llama3.2", TokensIn: 1200 + i, TokensOut: 90, From: "/home/u/notes/garden.org", FromLine: i + 1,
			Answer: fmt.Sprintf("answer %d: %s", i, strings.Repeat("*water* the tomatoes daily ", 15))}
		if i%5 == 0 {
			t.Actions = []Action{{Verb: VerbRan, Tool: "file_read", Args: json.RawMessage(`{"path":"notes/garden.org"}`), Result: "read 2000 bytes"}}
		}
		b.WriteString("\n" + Render(t))
	}
	return []byte(b.String())
}

// BenchmarkPrompt200Turns is what a follow-up in a 200-turn conversation
// costs before the model is asked: the file parsed with orgast and its
// history built within the default budget.
func BenchmarkPrompt200Turns(b *testing.B) {
	src := longChat(200)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		c := Parse(src, []string{"private"})
		if len(c.History(DefaultBudget)) == 0 {
			b.Fatal("no history")
		}
	}
}

// BenchmarkHistory200Turns is the history alone, from a parsed file.
func BenchmarkHistory200Turns(b *testing.B) {
	c := Parse(longChat(200), nil)
	b.ReportAllocs()
	for b.Loop() {
		if len(c.History(DefaultBudget)) == 0 {
			b.Fatal("no history")
		}
	}
}

// BenchmarkAppendTurn appends one turn to a conversation on disk: read,
// render, temp file, fsync, rename, fsync of the folder.
func BenchmarkAppendTurn(b *testing.B) {
	root := b.TempDir()
	st, err := New(Config{Roots: []string{root}, LockDir: b.TempDir()})
	require.NoError(b, err)
	p, err := st.Create("bench", asked)
	require.NoError(b, err)
	turn := Turn{Question: "q", Asked: asked, Model: "ollama:m", TokensIn: 10, TokensOut: 5, Answer: strings.Repeat("word ", 60)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Append(context.Background(), p, turn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFollowUp200Turns is what a follow-up in a 200-turn
// conversation costs before the model is asked, as the server does it:
// the file read and parsed — the 199 turns parsed at the previous
// question kept, the one appended since parsed alone — and the history
// built.
func BenchmarkFollowUp200Turns(b *testing.B) {
	root := b.TempDir()
	st, err := New(Config{Roots: []string{root}, LockDir: b.TempDir()})
	require.NoError(b, err)
	p, err := st.Create("bench", asked)
	require.NoError(b, err)
	before := longChat(199)
	after := append(append([]byte(nil), before...), []byte("\n"+Render(Turn{Question: "one more", Asked: asked, Model: "ollama:m", Answer: strings.Repeat("word ", 60)}))...)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		require.NoError(b, os.WriteFile(p, before, 0o644))
		_, err = st.Load(p, nil)
		require.NoError(b, err)
		require.NoError(b, os.WriteFile(p, after, 0o644))
		b.StartTimer()
		c, err := st.Load(p, nil)
		if err != nil || len(c.Turns) != 200 || len(c.History(DefaultBudget)) == 0 {
			b.Fatal("no history", err)
		}
	}
}
