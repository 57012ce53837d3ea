package agent

import (
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
