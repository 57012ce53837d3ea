package providers

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLive is the end-to-end check to run by hand against real servers:
//
//	PP_LSP_LIVE=1 PASSEPARTOUT_PROVIDERS='ollama:llama3.2,openai:MODEL@http://127.0.0.1:8080/v1' \
//	  go test ./providers -run TestLive -v
//
// For each configured provider it prints doctor's diagnosis, streams a plain
// answer piece by piece, then offers the message tool and prints the tool
// calls. It needs live models, so without PP_LSP_LIVE it is skipped (also
// under CI: no fresh machine has a model to ask).
func TestLive(t *testing.T) {
	if os.Getenv("PP_LSP_LIVE") == "" {
		t.Skip("PP_LSP_LIVE is unset: this test asks the live models of PASSEPARTOUT_PROVIDERS")
	}
	var cfg Config
	require.NoError(t, cfg.ApplyEnv(os.Getenv))
	require.NotEmpty(t, cfg.Providers, "set PASSEPARTOUT_PROVIDERS")
	opts := Options{Getenv: os.Getenv}
	for _, d := range Diagnose(testCtx(t), cfg, opts) {
		t.Logf("doctor: %-4s %s: %s", d.Status, d.Subject, d.Detail)
	}
	tm := Timeouts{FirstOutput: Duration(2 * time.Minute), Total: Duration(5 * time.Minute)}
	message := Tool{Name: "message", Description: "Say something to the user.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"explanation":{"type":"string"}},"required":["text","explanation"]}`)}
	for _, pc := range cfg.Providers {
		t.Run(pc.Name(), func(t *testing.T) {
			p, err := NewProvider(pc, tm, opts)
			require.NoError(t, err)

			s, err := p.Stream(testCtx(t), Request{MaxTokens: 200, Messages: []Message{{Role: RoleUser, Content: "Say hello in five words."}}})
			require.NoError(t, err)
			var pieces []string
			for ev, err := range s.Events() {
				require.NoError(t, err)
				if ev.Kind == EventText {
					pieces = append(pieces, ev.Text)
				}
			}
			resp := s.Response()
			t.Logf("plain: %q in %d pieces; first output after %s, whole in %s; usage %+v; stop %s (%s)",
				resp.Text, len(pieces), resp.FirstOutput, resp.Elapsed, resp.Usage, resp.StopReason, resp.RawStopReason)
			assert.NotEmpty(t, strings.TrimSpace(resp.Text))

			s, err = p.Stream(testCtx(t), Request{MaxTokens: 300, Tools: []Tool{message},
				System:   "You answer only by calling the message tool.",
				Messages: []Message{{Role: RoleUser, Content: "Use the message tool to greet me, with an explanation."}}})
			require.NoError(t, err)
			resp, err = s.Collect()
			require.NoError(t, err)
			for _, tc := range resp.ToolCalls {
				t.Logf("tool call %s %s(%s)", tc.ID, tc.Name, tc.Arguments)
			}
			t.Logf("text %q, stop %s (%s)", resp.Text, resp.StopReason, resp.RawStopReason)
		})
	}
}
