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

// TestWithAttributesPassTheRedactorOfTheirRecord: a logger derived with
// With (and WithGroup) before the redactor is set — the providers', the
// gates', a connection's — passes its fixed values through the redactor
// as it is when each record is logged, nested in their groups as slog
// nests them; they used to be passed on as they were fixed.
func TestWithAttributesPassTheRedactorOfTheirRecord(t *testing.T) {
	const secret = "correct-horse-battery-staple-42"
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			r := NewLogRing(3)
			var next strings.Builder
			h := slog.Handler(slog.NewTextHandler(&next, nil))
			if format == "json" {
				h = slog.NewJSONHandler(&next, nil)
			}
			log := slog.New(r.Handler(h)).With("remote", secret).WithGroup("g").With("k", "the "+secret).WithGroup("empty")
			r.SetRedactor(func(s string) string { return strings.ReplaceAll(s, secret, "[vault:wifi]") })
			log.Info("a connection closed", "why", secret)
			log.Info("no values of its own")
			out := next.String()
			assert.NotContains(t, out, secret)
			if format == "text" {
				assert.Contains(t, out, `remote=[vault:wifi] g.k="the [vault:wifi]" g.empty.why=[vault:wifi]`)
				assert.Contains(t, out, `msg="no values of its own" remote=[vault:wifi] g.k="the [vault:wifi]"`+"\n")
			} else {
				assert.Contains(t, out, `"remote":"[vault:wifi]","g":{"k":"the [vault:wifi]","empty":{"why":"[vault:wifi]"}}`)
				assert.Contains(t, out, `"msg":"no values of its own","remote":"[vault:wifi]","g":{"k":"the [vault:wifi]"}}`)
			}
			for _, l := range r.Lines() {
				assert.NotContains(t, l, secret)
			}
		})
	}
}
