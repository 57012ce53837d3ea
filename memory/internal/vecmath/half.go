package vecmath

import "math"

// Half-precision storage. Vectors are kept as IEEE 754 binary16 values:
// half the memory of float32, and for unit vectors of dimension 256 a
// cosine moves by about 3e-5 (each component keeps 11 significant bits),
// far below the two decimals a similarity is ever shown with. Arithmetic
// is always in float32.

// ToHalf converts v to half precision, rounding to nearest even.
func ToHalf(v []float32) []uint16 {
	out := make([]uint16, len(v))
	for i, x := range v {
		out[i] = f32ToF16(x)
	}
	return out
}

// RoundHalf rounds v in place to the values half precision can hold, so
// that computing with v gives exactly what computing with FromHalf(ToHalf(v))
// would.
func RoundHalf(v []float32) {
	for i, x := range v {
		v[i] = f16ToF32(f32ToF16(x))
	}
}

// FromHalf converts h to float32 into dst (allocated when too short).
func FromHalf(h []uint16, dst []float32) []float32 {
	if cap(dst) < len(h) {
		dst = make([]float32, len(h))
	}
	dst = dst[:len(h)]
	for i, x := range h {
		dst[i] = f16ToF32(x)
	}
	return dst
}

// f32ToF16 rounds a float32 to the nearest binary16 (ties to even);
// overflow gives infinity, NaN stays NaN.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b >> 23) & 0xff)
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp > 127+15: // too large
		return sign | 0x7c00
	case exp >= 127-14: // normal half
		e := uint32(exp-127+15) << 10
		m := mant >> 13
		h := e | m
		round := mant & 0x1fff
		if round > 0x1000 || (round == 0x1000 && h&1 == 1) {
			h++ // may carry into the exponent, correctly
		}
		return sign | uint16(h)
	case exp >= 127-25: // subnormal half
		m := mant | 0x800000
		shift := uint32(126 - exp) // 14..24 bits dropped
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	return sign // underflow to zero
}

// f16ToF32 converts a binary16 to float32 exactly.
func f16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: normalise the mantissa.
	e := uint32(127 - 15 + 1)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}

// DotHalf returns the dot product of q (float32) and h (half precision,
// at least as long as q).
func (k Kernel) DotHalf(q []float32, h []uint16) float32 { return k.dotHalf(q, h) }

func (k Kernel) dotHalfTable(q []float32, h []uint16) float32 {
	if k.halves == nil {
		return dotHalfGo(q, h)
	}
	t := k.halves
	h = h[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * t[h[i]]
		s1 += q[i+1] * t[h[i+1]]
		s2 += q[i+2] * t[h[i+2]]
		s3 += q[i+3] * t[h[i+3]]
	}
	for ; i < len(q); i++ {
		s0 += q[i] * t[h[i]]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotHalfGo(q []float32, h []uint16) float32 {
	h = h[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * f16ToF32(h[i])
		s1 += q[i+1] * f16ToF32(h[i+1])
		s2 += q[i+2] * f16ToF32(h[i+2])
		s3 += q[i+3] * f16ToF32(h[i+3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * f16ToF32(h[i])
	}
	return (s0 + s1) + (s2 + s3)
}
