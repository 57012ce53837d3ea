package lsp

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPaceLoad: a process that manages its memory collects at
// loadGCPercent while loading, and at its own pace again once restored
// (twice restored, once counted); GOGC set, or memory not managed, leave
// the pace alone.
func TestPaceLoad(t *testing.T) {
	const own = 137 // a pace no default has
	tests := []struct {
		name   string
		manage bool
		gogc   string
		during int
	}{
		{"managed", true, "", loadGCPercent},
		{"GOGC set", true, "80", own},
		{"not managed", false, "", own},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := debug.SetGCPercent(own)
			defer debug.SetGCPercent(old)
			s := &Server{opts: Options{ManageMemory: tt.manage}, getenv: func(k string) string {
				if k == "GOGC" {
					return tt.gogc
				}
				return ""
			}}
			restore := s.paceLoad()
			assert.Equal(t, tt.during, debug.SetGCPercent(tt.during), "the pace while loading")
			restore()
			assert.Equal(t, own, debug.SetGCPercent(own), "the pace once restored")
			debug.SetGCPercent(12)
			restore()
			assert.Equal(t, 12, debug.SetGCPercent(own), "a second restore changes nothing")
		})
	}
}
