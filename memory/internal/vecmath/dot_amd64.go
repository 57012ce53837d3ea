//go:build amd64

package vecmath

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func dotHalfAVX2(q *float32, h *uint16, n int) float32

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func xgetbv0() (eax, edx uint32)

// detectAVX2 reports AVX2, FMA and F16C, with the OS saving the YMM
// registers.
func detectAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx, f16c = 1 << 12, 1 << 27, 1 << 28, 1 << 29
	if c1&fma == 0 || c1&osxsave == 0 || c1&avx == 0 || c1&f16c == 0 {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}

func (k Kernel) dot(a, b []float32) float32 {
	if !k.avx2 || len(a) < 8 {
		return dotGo(a, b)
	}
	b = b[:len(a)]
	n := len(a) &^ 7
	s := dotAVX2(&a[0], &b[0], n)
	for i := n; i < len(a); i++ {
		s += a[i] * b[i]
	}
	return s
}

func (k Kernel) dotHalf(q []float32, h []uint16) float32 {
	if !k.avx2 || len(q) < 8 {
		return k.dotHalfTable(q, h)
	}
	h = h[:len(q)]
	n := len(q) &^ 7
	s := dotHalfAVX2(&q[0], &h[0], n)
	for i := n; i < len(q); i++ {
		s += q[i] * f16ToF32(h[i])
	}
	return s
}
