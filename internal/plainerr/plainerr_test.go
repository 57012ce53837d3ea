package plainerr

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goisms are fragments of Go's own error texts that a person should never
// have to read.
var goisms = []string{"open ", "stat ", "invalid character", "json: cannot", "json: unknown", "Go struct", "Go value", "parse error", "unmarshal"}

func assertPlain(t *testing.T, msg string) {
	t.Helper()
	for _, g := range goisms {
		assert.NotContains(t, msg, g)
	}
	assert.NotContains(t, msg, "\n")
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.json")
	locked := filepath.Join(dir, "locked.json")
	require.NoError(t, os.WriteFile(locked, []byte("{}"), 0o000))
	notDir := filepath.Join(locked, "x.json")

	cases := []struct {
		name, path, want string
	}{
		{"missing", missing, "cannot read the configuration file " + missing + ": it does not exist"},
		{"a folder", dir, "cannot read the configuration file " + dir + ": it is a folder, not a file"},
		{"a file as a folder", notDir, "cannot read the configuration file " + notDir + ": a part of its path is a file, not a folder"},
	}
	if os.Geteuid() != 0 { // root reads anything
		cases = append(cases, struct{ name, path, want string }{"unreadable", locked, "cannot read the configuration file " + locked + ": permission is denied"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := os.ReadFile(tc.path)
			require.Error(t, err)
			got := File("read", "the configuration file", tc.path, err)
			assert.Equal(t, tc.want, got.Error())
			assertPlain(t, got.Error())
			var pe *fs.PathError
			assert.True(t, errors.As(got, &pe), "the OS error stays in the chain")
		})
	}
	assert.True(t, errors.Is(File("read", "", missing, fs.ErrNotExist), fs.ErrNotExist))
	assert.Nil(t, File("read", "x", "y", nil))
}

func TestJSON(t *testing.T) {
	type section struct {
		Default string   `json:"default"`
		Limit   int      `json:"limit"`
		Tags    []string `json:"tags"`
	}
	type config struct {
		Gates section `json:"gates"`
	}
	cases := []struct {
		name, data, want string
	}{
		{"bad literal", `{"x": nul}`, `is not valid JSON: line 1, column 10: unexpected '}'`},
		{"bad word", "{\n  \"gates\": oops\n}", `is not valid JSON: line 2, column 12: unexpected 'o'`},
		{"cut short", `{"gates": {`, `is not valid JSON: it ends before its value does`},
		{"empty", ``, `is not valid JSON: it ends before its value does`},
		{"not UTF-8 where a value starts", "{\"a\": \xff}", `is not valid JSON: line 1, column 7: unexpected bytes that are not UTF-8`},
		{"a string for an object", `{"gates": "deny"}`, `does not fit: line 1: "gates" must be an object, not a string`},
		{"a number for a string", `{"gates": {"default": 3}}`, `does not fit: line 1: "gates.default" must be a string, not a number`},
		{"a fraction for a whole number", `{"gates": {"limit": 1.5}}`, `"gates.limit" must be a whole number, not a number 1.5`},
		{"an object for an array", `{"gates": {"tags": {}}}`, `"gates.tags" must be an array, not an object`},
		{"the top is an array", `[1]`, `does not fit: line 1: the value must be an object, not an array`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c config
			err := json.Unmarshal([]byte(tc.data), &c)
			require.Error(t, err)
			got := JSON("the configuration file /c.json", []byte(tc.data), err)
			assert.True(t, strings.HasPrefix(got.Error(), "the configuration file /c.json "), got.Error())
			assert.Contains(t, got.Error(), tc.want)
			assertPlain(t, got.Error())
			assert.ErrorIs(t, got, err)
		})
	}
	dec := json.NewDecoder(strings.NewReader(`{"gates": {"nope": 1}}`))
	dec.DisallowUnknownFields()
	var c config
	err := dec.Decode(&c)
	require.Error(t, err)
	assert.Equal(t, `the file does not fit: unknown field "nope"`, JSON("the file", nil, err).Error())
}
