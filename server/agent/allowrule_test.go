package agent

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithAllowRuleKeepsEveryOtherByte(t *testing.T) {
	const rule = `shell(make "x")`
	q := `"shell(make \"x\")"`
	for _, tc := range []struct{ name, src, want, err string }{
		{"no file", "", `{"gates": {"permissions": {"allow": [` + q + "]}}}\n", ""},
		{"empty object", "{}\n", `{"gates": {"permissions": {"allow": [` + q + "]}}}\n", ""},
		{"other sections", "{\n  \"providers\": {\"x\": 1}\n}\n", "{\n  \"providers\": {\"x\": 1}, \"gates\": {\"permissions\": {\"allow\": [" + q + "]}}\n}\n", ""},
		{"gates without permissions", `{"gates": {"default": "ask"}, "agent": {}}`, `{"gates": {"default": "ask", "permissions": {"allow": [` + q + `]}}, "agent": {}}`, ""},
		{"permissions without allow", `{"gates": {"permissions": {"deny": ["eval"]}}}`, `{"gates": {"permissions": {"deny": ["eval"], "allow": [` + q + `]}}}`, ""},
		{"empty allow", `{"gates":{"permissions":{"allow":[ ]}}}`, `{"gates":{"permissions":{"allow":[` + q + ` ]}}}`, ""},
		{"allow with rules, comments kept as strings, odd spacing",
			"{ \"gates\" : { \"permissions\" : { \"allow\" : [\n    \"shell(ls:*)\",\n    \"file_write(a/**)\"\n  ] } } }\n",
			"{ \"gates\" : { \"permissions\" : { \"allow\" : [\n    \"shell(ls:*)\",\n    \"file_write(a/**)\", " + q + "\n  ] } } }\n", ""},
		{"a list at the top", `[]`, "", "not a JSON object"},
		{"allow is not a list", `{"gates": {"permissions": {"allow": "x"}}}`, "", "not a list"},
		{"broken", `{"gates": {`, "", "EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withAllowRule([]byte(tc.src), rule)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
			var v struct {
				Gates struct {
					Permissions struct{ Allow []string }
				}
			}
			require.NoError(t, json.Unmarshal(got, &v))
			assert.Equal(t, rule, v.Gates.Permissions.Allow[len(v.Gates.Permissions.Allow)-1])
		})
	}
}

// FuzzWithAllowRule holds the configuration edit to its promise on any
// bytes: an error, or valid JSON that is the input with one run of bytes
// inserted, whose allow list ends with the rule whenever the input's was
// a list of strings.
func FuzzWithAllowRule(f *testing.F) {
	for _, s := range []string{"", "{}", `{"gates":{"permissions":{"allow":["a"]}}}`, `{"gates":{"x":1},"gates2":[]}`, `[1]`, `{"gates":`, `{"a":"\u0067ates"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const rule = "shell(make test)"
		out, err := withAllowRule(src, rule)
		if err != nil {
			return
		}
		require.True(t, json.Valid(out))
		if len(bytes.TrimSpace(src)) == 0 {
			return
		}
		i := 0
		for i < len(src) && src[i] == out[i] {
			i++
		}
		n := len(out) - len(src)
		require.Positive(t, n)
		require.Equal(t, string(src[i:]), string(out[i+n:]), "one run of bytes inserted, the rest kept")
		var in, got struct {
			Gates struct {
				Permissions struct{ Allow []string }
			}
		}
		if json.Unmarshal(src, &in) != nil || json.Unmarshal(out, &got) != nil {
			return
		}
		if bytes.Count(src, []byte(`"gates"`)) == 1 && bytes.Count(src, []byte(`"permissions"`)) <= 1 && bytes.Count(src, []byte(`"allow"`)) <= 1 {
			assert.Equal(t, append(in.Gates.Permissions.Allow, rule), got.Gates.Permissions.Allow)
		}
	})
}
