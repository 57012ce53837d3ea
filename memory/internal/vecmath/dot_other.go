//go:build !amd64

package vecmath

func detectAVX2() bool { return false }

func (k Kernel) dot(a, b []float32) float32 { return dotGo(a, b) }

func (k Kernel) dotHalf(q []float32, h []uint16) float32 { return k.dotHalfTable(q, h) }
