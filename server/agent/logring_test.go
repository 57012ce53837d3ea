package agent

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLogRing(t *testing.T) {
	r := NewLogRing(3)
	r.SetRedactor(func(s string) string { return strings.ReplaceAll(s, "hunter2", "[vault:pw]") })
	var next strings.Builder
	log := slog.New(r.Handler(slog.NewTextHandler(&next, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.Debug("not kept")
	for i := range 5 {
		log.With("n", i).WithGroup("g").Info("line", "pw", "hunter2")
	}
	lines := r.Lines()
	assert.Len(t, lines, 3)
	for i, l := range lines {
		assert.Contains(t, l, fmt.Sprintf("INFO line n=%d g.pw=[vault:pw]", i+2))
		assert.NotContains(t, l, "hunter2")
	}
	assert.Contains(t, next.String(), "not kept", "every record is passed on")
	assert.Empty(t, NewLogRing(0).Lines())
}
