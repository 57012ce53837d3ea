// Package vecmath holds the numeric kernels of the memex's vector index:
// dot products, normalisation, and sign signatures (sign random
// projection through a randomised Hadamard transform) whose Hamming
// distance estimates the angle between two vectors.
//
// Invariant: every function is pure and deterministic — the projection's
// random signs come from a fixed seed, so a vector's signature is the same
// on every run and machine — and none allocates on its hot path except
// where a result is returned.
package vecmath

import (
	"math"
	"math/bits"
)

// SigWords is the length of a signature in 64-bit words: 512 bits. (256
// bits measured recall@10 0.80 at a 1024 shortlist on 100k trigram
// vectors; 512 bits 0.95, and 0.995 at 4096.)
const SigWords = 8

// SigBits is the number of bits of a signature.
const SigBits = SigWords * 64

// Kernel computes dot products with the fastest code the CPU runs: AVX2
// with fused multiply-add (and F16C to widen half-precision vectors) on
// amd64 processors that have them (eight lanes, four accumulators),
// portable Go elsewhere. Sums are ordered differently
// in the two, so the last bits of a score may differ between machines;
// on one machine they never do.
type Kernel struct {
	avx2 bool
	// halves widens every binary16 value, for the portable half kernel.
	halves *[1 << 16]float32
}

// NewKernel detects the CPU's features once; keep the value. Without
// AVX2 it builds a 256 KB table for widening half-precision values.
func NewKernel() Kernel {
	k := Kernel{avx2: detectAVX2()}
	if !k.avx2 {
		k.halves = new([1 << 16]float32)
		for h := range k.halves {
			k.halves[h] = f16ToF32(uint16(h))
		}
	}
	return k
}

// Accelerated reports whether the kernel uses SIMD instructions.
func (k Kernel) Accelerated() bool { return k.avx2 }

// Dot returns the dot product of a and b (b at least as long as a).
func (k Kernel) Dot(a, b []float32) float32 { return k.dot(a, b) }

// Dot is the portable dot product of a and b (of equal length).
func Dot(a, b []float32) float32 { return dotGo(a, b) }

func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i]*b[i] + a[i+4]*b[i+4]
		s1 += a[i+1]*b[i+1] + a[i+5]*b[i+5]
		s2 += a[i+2]*b[i+2] + a[i+6]*b[i+6]
		s3 += a[i+3]*b[i+3] + a[i+7]*b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Check reports why v cannot be stored: empty, not finite, or all zeros
// (a zero vector has no direction; its cosine with anything is NaN).
func Check(v []float32) string {
	if len(v) == 0 {
		return "is empty"
	}
	zero := true
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return "holds a value that is not a finite number"
		}
		if x != 0 {
			zero = false
		}
	}
	if zero {
		return "is all zeros"
	}
	return ""
}

// IsUnit reports whether v's float64 magnitude is within 1e-6 of 1, the
// test chromem-go applies before it keeps a vector as given.
func IsUnit(v []float32) bool {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return math.Abs(math.Sqrt(ss)-1) < 1e-6
}

// Normalize returns v scaled to unit length, computed in float64, such
// that its float64 magnitude is within 1e-6 of 1 (what chromem-go checks
// before it keeps a vector as given instead of copying it). v must pass
// Check.
func Normalize(v []float32) []float32 {
	out := make([]float32, len(v))
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	for range 3 {
		var m float64
		for _, x := range out {
			m += float64(x) * float64(x)
		}
		m = math.Sqrt(m)
		if math.Abs(m-1) < 1e-7 {
			break
		}
		for i := range out {
			out[i] = float32(float64(out[i]) / m)
		}
	}
	return out
}

// Projector computes sign signatures for vectors of one dimension: the
// signs of the first SigBits coordinates of H·D₂·H·D₁·x, x zero-padded to
// a power of two, H the Walsh–Hadamard transform and Dᵢ fixed random sign
// flips (more rounds with other flips when the padded length is below
// SigBits). It rotates the space pseudo-randomly in O(n log n), so the
// signs are random hyperplane projections for any embedding, isotropic or
// not, and the Hamming distance between two signatures is about
// SigBits·θ/π for the angle θ between the vectors.
type Projector struct {
	dim, pad int
	flips    [][]float32 // 2 per round
	center   []float32
}

// NewProjector returns the projector for vectors of dimension dim.
func NewProjector(dim int) *Projector { return NewCenteredProjector(dim, nil) }

// NewCenteredProjector returns a projector that signs v − center: a
// component every vector shares (an embedder's calibration, a model's
// common direction) says nothing about which vectors are close, and left
// in it would decide most signs alike.
func NewCenteredProjector(dim int, center []float32) *Projector {
	pad := 1
	for pad < dim {
		pad <<= 1
	}
	rounds := max(1, (SigBits+pad-1)/pad)
	p := &Projector{dim: dim, pad: pad}
	if len(center) == dim {
		p.center = append([]float32(nil), center...)
	}
	state := uint64(0x6a09e667f3bcc909) // fixed: signatures are reproducible
	next := func() uint64 {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	for range 2 * rounds {
		f := make([]float32, pad)
		for i := range f {
			if next()&1 == 1 {
				f[i] = 1
			} else {
				f[i] = -1
			}
		}
		p.flips = append(p.flips, f)
	}
	return p
}

// Dim is the vector dimension the projector takes.
func (p *Projector) Dim() int { return p.dim }

// Signature writes v's signature into sig (SigWords words). scratch, if
// at least the padded length, avoids an allocation.
func (p *Projector) Signature(v []float32, sig []uint64, scratch []float32) {
	if len(scratch) < p.pad {
		scratch = make([]float32, p.pad)
	}
	buf := scratch[:p.pad]
	clear(sig[:SigWords])
	bit := 0
	for r := 0; r+1 < len(p.flips) && bit < SigBits; r += 2 {
		for i := range buf {
			buf[i] = 0
		}
		copy(buf, v)
		if p.center != nil {
			for i, c := range p.center {
				buf[i] -= c
			}
		}
		mul(buf, p.flips[r])
		fwht(buf)
		mul(buf, p.flips[r+1])
		fwht(buf)
		for i := 0; i < len(buf) && bit < SigBits; i++ {
			if buf[i] > 0 {
				sig[bit>>6] |= 1 << (bit & 63)
			}
			bit++
		}
	}
}

func mul(a, b []float32) {
	b = b[:len(a)]
	for i := range a {
		a[i] *= b[i]
	}
}

// fwht is the in-place, unnormalised fast Walsh–Hadamard transform (only
// signs are used, so the scale does not matter).
func fwht(a []float32) {
	for h := 1; h < len(a); h <<= 1 {
		for i := 0; i < len(a); i += h << 1 {
			x, y := a[i:i+h], a[i+h:i+2*h]
			for j := range x {
				u, v := x[j], y[j]
				x[j], y[j] = u+v, u-v
			}
		}
	}
}

// Hamming is the number of differing bits of two signatures.
func Hamming(a, b []uint64) int {
	a, b = a[:SigWords], b[:SigWords]
	return bits.OnesCount64(a[0]^b[0]) + bits.OnesCount64(a[1]^b[1]) +
		bits.OnesCount64(a[2]^b[2]) + bits.OnesCount64(a[3]^b[3]) +
		bits.OnesCount64(a[4]^b[4]) + bits.OnesCount64(a[5]^b[5]) +
		bits.OnesCount64(a[6]^b[6]) + bits.OnesCount64(a[7]^b[7])
}
