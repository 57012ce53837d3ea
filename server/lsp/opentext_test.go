package lsp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// TestDecodeOpenAsProtocol checks that didOpen's own decoder reads every
// params as the protocol package's decoder does — the same URI, version
// and text, or an error where it errs.
func TestDecodeOpenAsProtocol(t *testing.T) {
	const u = `"uri":"file:///tmp/n%20x.org"`
	for _, tc := range []struct {
		name, params string
		wantErr      bool
	}{
		{"plain", `{"textDocument":{` + u + `,"languageId":"org","version":3,"text":"* A\nbody\n"}}`, false},
		{"escapes", `{"textDocument":{` + u + `,"version":1,"text":"tab\there \"q\" back\\slash \/ \u00e9 \ud83d\ude00\r\n"}}`, false},
		{"raw unicode", `{"textDocument":{` + u + `,"version":1,"text":"日本語 😀 é"}}`, false},
		{"empty text", `{"textDocument":{` + u + `,"version":1,"text":""}}`, false},
		{"no text", `{"textDocument":{` + u + `,"version":1}}`, false},
		{"unknown members", `{"x":[1,{"y":2}],"textDocument":{"extra":null,` + u + `,"version":7,"text":"* B\n"}}`, false},
		{"duplicate text", `{"textDocument":{` + u + `,"version":1,"text":"first","text":"second"}}`, false},
		{"invalid UTF-8", "{\"textDocument\":{" + u + ",\"version\":1,\"text\":\"bad \xff byte\"}}", false},
		{"text not a string", `{"textDocument":{` + u + `,"version":1,"text":42}}`, true},
		{"text null", `{"textDocument":{` + u + `,"version":1,"text":null}}`, true},
		{"bad escape", `{"textDocument":{` + u + `,"version":1,"text":"\q"}}`, true},
		{"truncated", `{"textDocument":{` + u + `,"version":1,"text":"abc`, true},
		{"version a string", `{"textDocument":{` + u + `,"version":"1","text":"x"}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want protocol.DidOpenTextDocumentParams
			werr := decode(protocol.MethodTextDocumentDidOpen, []byte(tc.params), &want)
			got, err := decodeOpen([]byte(tc.params))
			if tc.wantErr {
				require.Error(t, werr, "the protocol's decoder errs")
				assert.Error(t, err)
				return
			}
			require.NoError(t, werr)
			require.NoError(t, err)
			assert.Equal(t, want.TextDocument.URI, got.uri)
			assert.Equal(t, want.TextDocument.Version, got.version)
			assert.Equal(t, want.TextDocument.Text, string(got.text))
			assert.NotNil(t, got.text)
		})
	}
}

// TestDecodeOpenAllocatesTheTextOnce checks that a large buffer's didOpen
// is decoded with about one copy of its text, not four or five.
func TestDecodeOpenAllocatesTheTextOnce(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "* Headline %d\nBody with \"quotes\", a tab\tand [[id:x-%d][a link]].\n", i, i)
	}
	text := b.String()
	params, err := protocol.Marshal(protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: "file:///tmp/big.org", LanguageID: "org", Version: 1, Text: text}})
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := decodeOpen(params)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Equal(t, text, string(got.text))
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(len(params))+64<<10, "one slice the size of the quoted text (%d bytes), allocated %d", len(params), allocated)
}
