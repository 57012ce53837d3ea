package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randVec(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestKernelDot checks the accelerated dot product against a float64
// reference for every length around the kernel's block sizes.
func TestKernelDot(t *testing.T) {
	k := NewKernel()
	t.Logf("accelerated: %v", k.Accelerated())
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 80 {
		a, b := randVec(rng, n), randVec(rng, n+3)
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		tol := 1e-4 * (1 + math.Sqrt(float64(n)))
		assert.InDelta(t, want, float64(k.Dot(a, b)), tol, "n=%d", n)
		assert.InDelta(t, want, float64(Dot(a, b[:n])), tol, "n=%d portable", n)
	}
}

// TestSignatureAngle checks that signature Hamming distances track the
// angle between vectors: identical vectors agree in every bit, opposite
// ones in none, and closer pairs differ in fewer bits than farther ones.
func TestSignatureAngle(t *testing.T) {
	for _, dim := range []int{64, 256, 300, 768} {
		p := NewProjector(dim)
		rng := rand.New(rand.NewPCG(uint64(dim), 3))
		x := Normalize(randVec(rng, dim))
		neg := make([]float32, dim)
		for i := range x {
			neg[i] = -x[i]
		}
		sig := func(v []float32) []uint64 {
			s := make([]uint64, SigWords)
			p.Signature(v, s, nil)
			return s
		}
		sx := sig(x)
		require.Equal(t, 0, Hamming(sx, sig(x)), "dim %d", dim)
		assert.Greater(t, Hamming(sx, sig(neg)), SigBits*9/10, "dim %d: opposite vectors", dim)
		near, far := 0, 0
		for range 50 {
			noise := randVec(rng, dim)
			a := make([]float32, dim)
			b := make([]float32, dim)
			for i := range a {
				a[i] = x[i] + 0.02*noise[i]
				b[i] = x[i] + 0.2*noise[i]
			}
			near += Hamming(sx, sig(a))
			far += Hamming(sx, sig(b))
		}
		assert.Less(t, near, far, "dim %d", dim)
	}
}

// TestCheckAndNormalize covers the vectors the store must refuse, and the
// unit length chromem-go checks before it keeps a vector as given.
func TestCheckAndNormalize(t *testing.T) {
	tests := []struct {
		name string
		v    []float32
		bad  bool
	}{
		{"empty", nil, true},
		{"zero", make([]float32, 8), true},
		{"nan", []float32{1, float32(math.NaN())}, true},
		{"inf", []float32{float32(math.Inf(1)), 0}, true},
		{"fine", []float32{3, 4}, false},
		{"tiny", []float32{1e-30, 1e-30, 1e-30}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why := Check(tt.v)
			if tt.bad {
				assert.NotEmpty(t, why)
				return
			}
			require.Empty(t, why)
			u := Normalize(tt.v)
			var ss float64
			for _, x := range u {
				ss += float64(x) * float64(x)
			}
			assert.InDelta(t, 1, math.Sqrt(ss), 1e-6)
		})
	}
}

func BenchmarkDot256(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := randVec(rng, 256), randVec(rng, 256)
	k := NewKernel()
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			k.Dot(x, y)
		}
	})
	b.Run("portable", func(b *testing.B) {
		for b.Loop() {
			Dot(x, y)
		}
	})
}

// TestHalfConversion checks binary16 rounding against exhaustive decoding:
// every half value round-trips, and float32 values round to the nearest
// half (ties to even), including subnormals, infinities and NaN.
func TestHalfConversion(t *testing.T) {
	for h := range 1 << 16 {
		f := f16ToF32(uint16(h))
		if math.IsNaN(float64(f)) {
			assert.True(t, math.IsNaN(float64(f16ToF32(f32ToF16(f)))))
			continue
		}
		require.Equal(t, uint16(h), f32ToF16(f), "half %#04x", h)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		x := float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-30)))
		h := f32ToF16(x)
		got := float64(f16ToF32(h))
		// No other half is closer.
		for _, d := range []int{-1, 1} {
			other := float64(f16ToF32(uint16(int(h) + d)))
			if math.IsInf(other, 0) || math.IsNaN(other) || (h&0x7fff == 0 && d < 0) {
				continue
			}
			assert.LessOrEqual(t, math.Abs(got-float64(x)), math.Abs(other-float64(x)), "x=%g", x)
		}
	}
	assert.Equal(t, uint16(0x7c00), f32ToF16(float32(math.Inf(1))))
	assert.Equal(t, uint16(0x7c00), f32ToF16(1e6))
	assert.Equal(t, uint16(0x3c00), f32ToF16(1))
}

// TestDotHalf checks the half-precision kernels against float64.
func TestDotHalf(t *testing.T) {
	k := NewKernel()
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 80 {
		q, v := randVec(rng, n), randVec(rng, n)
		h := ToHalf(v)
		var want float64
		for i := range q {
			want += float64(q[i]) * float64(f16ToF32(h[i]))
		}
		tol := 1e-4 * (1 + math.Sqrt(float64(n)))
		assert.InDelta(t, want, float64(k.DotHalf(q, h)), tol, "n=%d", n)
		assert.InDelta(t, want, float64(dotHalfGo(q, h)), tol, "n=%d portable", n)
	}
}

func BenchmarkDotHalf256(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	q, h := randVec(rng, 256), ToHalf(randVec(rng, 256))
	k := NewKernel()
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			k.DotHalf(q, h)
		}
	})
	b.Run("portable", func(b *testing.B) {
		for b.Loop() {
			dotHalfGo(q, h)
		}
	})
}
