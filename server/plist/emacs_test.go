package plist

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// emacsResult is what the real Emacs made of one text: OK with its prin1 of
// the value read, or not OK with the error.
type emacsResult struct {
	OK   bool
	Text string
}

// frameRecords frames texts as on the wire: 6 hex digits of length, then the text.
func frameRecords(texts []string) []byte {
	var b []byte
	for _, s := range texts {
		b = fmt.Appendf(b, "%06X", len(s))
		b = append(b, s...)
	}
	return b
}

// unframeRecords undoes frameRecords.
func unframeRecords(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	for len(data) > 0 {
		require.GreaterOrEqual(t, len(data), 6, "a record header is cut off")
		n, err := strconv.ParseUint(string(data[:6]), 16, 32)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(data), 6+int(n), "a record is cut off")
		out = append(out, string(data[6:6+n]))
		data = data[6+n:]
	}
	return out
}

// emacsRead has the real Emacs read every text (one emacs process for all).
func emacsRead(t *testing.T, texts []string) []emacsResult {
	t.Helper()
	emacs := testenv.NeedCommand(t, "emacs")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(in, frameRecords(texts), 0o600))
	script, err := filepath.Abs(filepath.Join("testdata", "emacs-read.el"))
	require.NoError(t, err)
	cmd := exec.Command(emacs, "--batch", "-Q", "-l", script, in, out)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "emacs: %s", msg)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	records := unframeRecords(t, data)
	require.Len(t, records, len(texts))
	res := make([]emacsResult, len(records))
	for i, r := range records {
		res[i] = emacsResult{OK: strings.HasPrefix(r, "O"), Text: r[1:]}
	}
	return res
}

// TestEmacsReadsWhatWePrint: Emacs reads every printed value of the corpus
// and prints it back; reading Emacs's text gives the value we printed.
func TestEmacsReadsWhatWePrint(t *testing.T) {
	vals := corpus(t, 10000)
	texts := make([]string, len(vals))
	for i, v := range vals {
		b, err := Marshal(v)
		require.NoError(t, err)
		texts[i] = string(b)
	}
	for i, r := range emacsRead(t, texts) {
		if !assert.True(t, r.OK, "Emacs refused our print %q of %#v: %s", texts[i], vals[i], r.Text) {
			continue
		}
		got, err := Read([]byte(r.Text))
		if assert.NoError(t, err, "Emacs printed %q for our %q", r.Text, texts[i]) {
			assert.True(t, equalValue(vals[i], got), "we printed %q, Emacs printed back %q, which reads as %#v, want %#v", texts[i], r.Text, got, vals[i])
		}
	}
}

// TestEmacsAgreesWithReader reads the grammar tables and thousands of random
// texts both with Read and with the real Emacs: whatever Read accepts, Emacs
// reads to the same value; whatever Read refuses that Emacs accepts is one of
// the deliberate refusals.
func TestEmacsAgreesWithReader(t *testing.T) {
	// The errors for texts that Emacs accepts but the protocol refuses on
	// purpose (see the package documentation).
	deliberateRefusals := []string{
		"#-syntax", "quote (')", "backquote", "comma", "vectors", "character syntax", "dotted pairs",
		"raw byte", `\x needs at least one hex digit`, "surrogate", "modifier escapes", `\N{U+X}`,
		"keyword needs a name", "above U+10FFFF",
	}
	var texts []string
	for _, c := range readValueCases() {
		texts = append(texts, c.in)
	}
	for _, c := range readErrorCases() {
		if !strings.Contains(c.msg, "UTF-8") { // Emacs would see other characters
			texts = append(texts, c.in)
		}
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	for range 20000 {
		texts = append(texts, randomToken(rng))
	}
	for range 10000 {
		texts = append(texts, randomStringLiteral(rng))
	}
	for range 5000 {
		texts = append(texts, "("+randomToken(rng)+" "+randomStringLiteral(rng)+" "+randomToken(rng)+")")
	}
	results := emacsRead(t, texts)
	accepted, refused, stricter := 0, 0, 0
	for i, r := range results {
		v, err := Read([]byte(texts[i]))
		switch {
		case err == nil:
			accepted++
			if !assert.True(t, r.OK, "we read %q as %#v, Emacs refuses it: %s", texts[i], v, r.Text) {
				continue
			}
			got, rerr := Read([]byte(r.Text))
			if assert.NoError(t, rerr, "Emacs printed %q for %q", r.Text, texts[i]) {
				assert.True(t, equalValue(v, got), "%q: we read %#v, Emacs read %q = %#v", texts[i], v, r.Text, got)
			}
		case r.OK:
			stricter++
			deliberate := false
			for _, d := range deliberateRefusals {
				deliberate = deliberate || strings.Contains(err.Error(), d)
			}
			assert.True(t, deliberate, "%q: Emacs reads %q, we refuse it: %v", texts[i], r.Text, err)
		default:
			refused++
		}
	}
	t.Logf("%d texts: %d read alike, %d refused by both, %d refused by design where Emacs reads them", len(texts), accepted, refused, stricter)
}

// randomToken builds a text from pieces that exercise the number, symbol and
// keyword rules and the characters with a meaning of their own.
func randomToken(rng *rand.Rand) string {
	pieces := []string{
		"0", "1", "9", "12", "+", "-", ".", "e", "E", "e+", "e-", "INF", "NaN", "inf", "x", "a", "Z", ":",
		`\`, `\1`, `\.`, `\:`, " ", "\t", "\u00a0", "(", ")", `"`, "'", ";", "#", "?", "|", "[", "]", ",", "`",
		"é", "_", "/", "t", "nil", "\n",
	}
	var b strings.Builder
	for i := 1 + rng.IntN(6); i > 0; i-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// randomStringLiteral builds a string literal from escapes, valid and not.
func randomStringLiteral(rng *rand.Rand) string {
	pieces := []string{
		`\n`, `\t`, `\a`, `\e`, `\s`, `\s-`, `\d`, `\x41`, `\x`, `\xe9`, `\x100`, `\x1F600`, `\x110000`, `\xd800`,
		`\u00e9`, `\u00E`, `\ud800`, `\U0001F600`, `\U00110000`, `\N{U+41}`, `\N{U+D800}`, `\N{SPACE}`,
		`\C-a`, `\^a`, `\M-a`, `\S-a`, `\101`, `\351`, `\400`, `\0`, `\8`, `\ `, "\\\n", "\\\r", `\"`, `\\`,
		`\q`, `\é`, "a", "g", "7", "é", "😀", "\n", " ", "}", "{",
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := rng.IntN(5); i > 0; i-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	b.WriteByte('"')
	return b.String()
}
