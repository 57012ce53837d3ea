package plist

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pp-lsp/internal/testenv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommonLispReadsWhatWePrint has SBCL read every printed value of the
// corpus and describe what it read; the description must read (with Read) as
// the value printed. `make test` installs SBCL with the editors; without it the
// test skips, except under CI=true where that is a failure.
//
// Two values are left out, by the documented limits of Common Lisp: the
// infinities and NaN (no syntax), and the symbols T and NIL (the booleans
// there). Floats are read with *read-default-float-format* double-float.
func TestCommonLispReadsWhatWePrint(t *testing.T) {
	sbcl := testenv.NeedCommand(t, "sbcl")
	var vals []any
	var texts []string
	for _, v := range corpus(t, 10000) {
		if !commonLispValue(v) {
			continue
		}
		b, err := Marshal(v)
		require.NoError(t, err)
		vals = append(vals, v)
		texts = append(texts, string(b))
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(in, frameRecords(texts), 0o600))
	script, err := filepath.Abs(filepath.Join("testdata", "sbcl-read.lisp"))
	require.NoError(t, err)
	msg, err := exec.Command(sbcl, "--script", script, in, out).CombinedOutput()
	require.NoError(t, err, "sbcl: %s", msg)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	records := unframeRecords(t, data)
	require.Len(t, records, len(texts))
	for i, r := range records {
		if !assert.True(t, strings.HasPrefix(r, "O"), "SBCL refused our print %q: %s", texts[i], r) {
			continue
		}
		got, err := Read([]byte(r[1:]))
		if assert.NoError(t, err, "SBCL described %q as %q", texts[i], r[1:]) {
			assert.True(t, equalValue(vals[i], got), "we printed %q, SBCL read %q = %#v, want %#v", texts[i], r[1:], got, vals[i])
		}
	}
	t.Logf("%d values read back alike by SBCL", len(texts))
}

// commonLispValue reports whether v has the same meaning to a Common Lisp reader.
func commonLispValue(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case Symbol:
		return x != "T" && x != "NIL"
	case List:
		for _, e := range x {
			if !commonLispValue(e) {
				return false
			}
		}
	}
	return true
}
