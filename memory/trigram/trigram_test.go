package trigram

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestVectors checks the invariants: deterministic, unit length, the
// calibration component, zero for a featureless text, and the same result
// through every entry point.
func TestVectors(t *testing.T) {
	e := New()
	assert.Equal(t, "trigram:v3:256", e.ID())
	tests := []struct {
		name string
		text string
		zero bool
	}{
		{"prose", "Embedding search finds related notes by their vocabulary.", false},
		{"unicode", "Crème brûlée für Ärzte — 東京の天気", false},
		{"one word", "quokka", false},
		{"short digit words", "mp3 x86 utf8", false},
		{"empty", "", true},
		{"only punctuation", "!!! --- ???", true},
		{"only stop words and letters", "the a of x y", true},
		{"identifiers only", "6e17cd16-f81d-4b46-b88a-fce5e84e8907 3f9a", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := e.Vector(tt.text)
			require.Len(t, v, Dim)
			for _, x := range v {
				require.False(t, math.IsNaN(float64(x)) || math.IsInf(float64(x), 0))
			}
			if tt.zero {
				assert.Equal(t, make([]float32, Dim), v)
				return
			}
			assert.InDelta(t, 1, math.Sqrt(dot(v, v)), 1e-6)
			assert.InDelta(t, math.Sqrt(Bias2), v[0], 1e-7)
			assert.Equal(t, v, e.Vector(tt.text), "deterministic")
			vs, err := e.Embed(context.Background(), []string{tt.text, "other"})
			require.NoError(t, err)
			assert.Equal(t, v, vs[0])
			out := make([]float32, Dim)
			e.EmbedInto([]byte(tt.text), out, nil)
			assert.Equal(t, v, out)
		})
	}
}

// TestCalibration checks that the cosine of two vectors is exactly
// Bias2 + (1-Bias2)·(cosine of their features), so RawThreshold maps to 0.75.
func TestCalibration(t *testing.T) {
	assert.InDelta(t, 0.75, Bias2+(1-Bias2)*RawThreshold, 1e-12)
	e := New()
	a := e.Vector("soil moisture sensors in the garden")
	b := e.Vector("garden sensors for moisture")
	feat := func(v []float32) []float32 { return v[1:] }
	fa, fb := feat(a), feat(b)
	raw := dot(fa, fb) / math.Sqrt(dot(fa, fa)*dot(fb, fb))
	assert.InDelta(t, Bias2+(1-Bias2)*raw, dot(a, b), 1e-6)
	assert.Greater(t, raw, 0.3)
}

// TestEmbedCancelled stops on a done context.
func TestEmbedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New().Embed(ctx, make([]string, 1000))
	assert.ErrorIs(t, err, context.Canceled)
}
