package udiff

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkHunks: a 10,000-line file with every 100th line changed (the
// size of a long note rewritten by a model), and the same file with one
// line changed.
func BenchmarkHunks(b *testing.B) {
	var a, scattered, one strings.Builder
	for i := range 10000 {
		line := fmt.Sprintf("line %d of a long note, with some words in it\n", i)
		a.WriteString(line)
		switch {
		case i%100 == 0:
			scattered.WriteString("changed " + line)
		default:
			scattered.WriteString(line)
		}
		if i == 5000 {
			one.WriteString("changed " + line)
		} else {
			one.WriteString(line)
		}
	}
	for _, c := range []struct {
		name string
		b    string
	}{{"scattered", scattered.String()}, {"one-line", one.String()}} {
		b.Run(c.name, func(b *testing.B) {
			x, y := []byte(a.String()), []byte(c.b)
			b.SetBytes(int64(len(x) + len(y)))
			b.ReportAllocs()
			for b.Loop() {
				Hunks(x, y)
			}
		})
	}
}
