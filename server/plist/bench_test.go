package plist

import "testing"

// typicalRequest is the size and shape of a request frame's payload.
const typicalRequest = `(:TYPE :REQUEST :META (:SOURCE :EMACS :SESSION-ID "s-1f3a" :REQUEST-ID 42) :PAYLOAD (:ACTION :ASK :TEXT "What is left to do on the \"bridge\" project?\nList it." :FILE "/home/me/notes/projects.org" :LINE 128) :DEPTH 0)`

func BenchmarkRead(b *testing.B) {
	data := []byte(typicalRequest)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	v, err := Read([]byte(typicalRequest))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = Append(buf[:0], v); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}
