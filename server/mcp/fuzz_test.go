package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaFor resolves the JSON Schema the SDK infers for In (as AddTool does).
func schemaFor[In any](t testing.TB) *jsonschema.Resolved {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{})
	require.NoError(t, err)
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	require.NoError(t, err)
	return r
}

// decoders are every tool's argument decoder, with the schema the SDK
// checks the same arguments against.
func decoders(t testing.TB) []struct {
	name   string
	decode func(json.RawMessage) error
	schema *jsonschema.Resolved
} {
	type entry = struct {
		name   string
		decode func(json.RawMessage) error
		schema *jsonschema.Resolved
	}
	return []entry{
		{"memex_search", checker[SearchArgs]("memex_search"), schemaFor[SearchArgs](t)},
		{"memex_context", checker[ContextArgs]("memex_context"), schemaFor[ContextArgs](t)},
		{"node_read", checker[IDArgs]("node_read"), schemaFor[IDArgs](t)},
		{"propose_action", checker[ProposeArgs]("propose_action"), schemaFor[ProposeArgs](t)},
		{"plans_list", checker[NoArgs]("plans_list"), schemaFor[NoArgs](t)},
	}
}

// FuzzDecodeArgs: any bytes as any tool's arguments are read without a
// panic; what is refused is refused in one sentence naming the tool; what
// is accepted, the SDK's schema accepts too (so its own wording is never
// what a client gets).
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `"x"`, `5`, `{"query":"garden"}`, `{"query":"a","k":3}`, `{"query":"a","k":1.5}`,
		`{"query":"a","k":1e2}`, `{"query":"a","k":-1}`, `{"query":"a","k":99999999999}`, `{"query":null}`, `{"query":"a","query":"b"}`,
		`{"Query":"a"}`, `{"file":"notes.org","line":3,"budget":500}`, `{"id":"proj"}`, `{"id":"\u0000"}`, `{"id":"\xff"}`,
		`{"action":{"tool":"shell","args":{"cmd":"ls"}}}`, `{"action":"ls"}`, `{"action":null}`, `{"action":[]}`,
		`{"x":1}`, `{"query":"a"} trailing`, `{"query":"a",}`, `{"k":3}`, ` {"id" : "a" } `, `{"id":"a","":1}`,
	} {
		f.Add([]byte(s))
	}
	tools := decoders(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, tl := range tools {
			err := tl.decode(raw)
			if err != nil {
				msg := sentence(err.Error())
				assert.NotContains(t, msg, "\n")
				assert.True(t, strings.Contains(msg, tl.name), "%q names the tool %s", msg, tl.name)
				assert.Less(t, len(msg), 400)
				continue
			}
			in := map[string]any{}
			if len(strings.Trim(string(raw), " \t\r\n")) > 0 {
				require.NoError(t, json.Unmarshal(raw, &in), "accepted arguments are a JSON object")
			}
			assert.NoError(t, tl.schema.Validate(in), "%s accepted %q, so its schema must", tl.name, raw)
		}
	})
}

// TestDecodeArgsAgreesWithTheSchema: valid arguments pass both; the
// mistakes a client makes are refused by both, in our words.
func TestDecodeArgsAgreesWithTheSchema(t *testing.T) {
	cases := []struct {
		tool  string
		args  string
		valid bool
	}{
		{"memex_search", `{"query":"garden"}`, true},
		{"memex_search", `{"query":"garden","k":5}`, true},
		{"memex_search", `{}`, false},
		{"memex_search", `{"query":5}`, false},
		{"memex_search", `{"query":"a","extra":true}`, false},
		{"memex_context", `{"file":"a.org","line":2}`, true},
		{"memex_context", `{"file":"a.org","line":"2"}`, false},
		{"node_read", `{"id":"x"}`, true},
		{"node_read", `{"id":["x"]}`, false},
		{"propose_action", `{"action":{}}`, true},
		{"propose_action", `{"action":"rm"}`, false},
		{"plans_list", `{}`, true},
		{"plans_list", ``, true},
		{"plans_list", `{"all":true}`, false},
	}
	tools := decoders(t)
	for _, c := range cases {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			for _, tl := range tools {
				if tl.name != c.tool {
					continue
				}
				err := tl.decode(json.RawMessage(c.args))
				in := map[string]any{}
				if c.args != "" {
					require.NoError(t, json.Unmarshal([]byte(c.args), &in))
				}
				serr := tl.schema.Validate(in)
				if c.valid {
					assert.NoError(t, err)
					assert.NoError(t, serr)
				} else {
					assert.Error(t, err)
					assert.Error(t, serr, "the schema refuses it too")
				}
			}
		})
	}
}

// FuzzToolCalls: any JSON as the arguments of any reading tool, through
// the SDK's client and server and the whole handler over a real memex:
// never a protocol error for an object, never a panic, an error always one
// sentence, no private text in any answer. (propose_action's arguments
// are FuzzDecodeArgs's; the action inside them is the gates' fuzzers'.)
func FuzzToolCalls(f *testing.F) {
	for _, s := range []string{
		`{"query":"garden"}`, `{"query":"harbour master confidential","k":100}`, `{"file":"notes.org","line":4}`,
		`{"file":"../../etc/passwd","line":1}`, `{"file":"notes.org","line":3,"budget":1}`, `{"id":"diary"}`,
		`{"id":"file:/etc/passwd"}`, `{}`, `{"k":-5,"query":"*"}`, `{"query":"\u0000"}`,
	} {
		f.Add(byte(0), []byte(s))
	}
	fx := newFixture(f)
	names := []string{"memex_search", "memex_context", "node_read", "backlinks", "plans_list"}
	f.Fuzz(func(t *testing.T, which byte, raw []byte) {
		if !json.Valid(raw) {
			return // the client cannot send it
		}
		name := names[int(which)%len(names)]
		res, err := fx.client.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(raw)})
		if strings.HasPrefix(strings.Trim(string(raw), " \t\r\n"), "{") {
			require.NoError(t, err, "%s %s", name, raw)
		}
		if err != nil {
			return
		}
		msg := text(res)
		assert.NotContains(t, msg, "confidential")
		assert.NotContains(t, msg, "combination")
		if res.IsError {
			assert.NotContains(t, msg, "\n")
			assert.True(t, strings.HasSuffix(msg, "."), "%q", msg)
		}
	})
}

func TestSentence(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "The call failed.",
		"no node here":              "No node here.",
		"memex_search needs it":     "memex_search needs it.",
		"é.org is not a file":       "É.org is not a file.",
		"two\nlines  and   spaces.": "Two lines and spaces.",
		"is it?":                    "Is it?",
	} {
		assert.Equal(t, want, sentence(in), "%q", in)
	}
}
