package trigram

import (
	"context"
	"strings"
	"testing"
)

func BenchmarkTrigram(b *testing.B) {
	text := strings.Repeat("Embedding search finds related notes by their vocabulary and names. ", 6)
	e := New()
	texts := make([]string, 256)
	for i := range texts {
		texts[i] = text
	}
	b.SetBytes(int64(len(text) * len(texts)))
	for b.Loop() {
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}
