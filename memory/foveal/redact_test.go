package foveal

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
)

// TestViewRedacted: with a redactor, no secret of a note reaches the view,
// the words around it do, and the view stays within its budget at every
// budget, however many tokens the marks add (a short password's mark is
// longer than the password).
func TestViewRedacted(t *testing.T) {
	var b strings.Builder
	b.WriteString("#+title: Ops\n* Servers\nThe deploy key is AKIAZ5R2WQ7PLM3XK4TV and password: Tr0ub4dor&3x here.\n")
	for i := range 40 {
		fmt.Fprintf(&b, "** Host %d\n:PROPERTIES:\n:DB_PASSWORD: Xy7q%dPw9z\n:END:\npw=%d kept short, and the AKIA prefix in prose.\n", i, i, i)
	}
	root, snap := openMemex(t, map[string][]byte{"ops.org": []byte(b.String()), "other.org": []byte("* Other\nNothing secret: commit 3f2a9c1.\n")}, nil)
	r, err := NewRenderer(Options{Redact: gates.RedactSecrets})
	require.NoError(t, err)
	plain, err := NewRenderer(Options{})
	require.NoError(t, err)
	for _, budget := range []int{MinBudget, 100, 300, 1000, DefaultBudget} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			cur := Cursor{Path: filepath.Join(root, "ops.org"), Line: 2}
			v, err := r.View(context.Background(), snap, cur, budget)
			require.NoError(t, err)
			assert.LessOrEqual(t, v.Tokens, budget)
			assert.Equal(t, budget, v.Budget)
			assert.Equal(t, CountTokens(v.Text), v.Tokens)
			assert.NotContains(t, v.Text, "AKIAZ5R2WQ7PLM3XK4TV")
			assert.NotContains(t, v.Text, "Tr0ub4dor&3x")
			assert.NotRegexp(t, `Xy7q\d+Pw9z`, v.Text)
			assert.Empty(t, gates.FindSecrets(v.Text))
			if budget < 300 {
				return // no room for the foveal node's body
			}
			assert.Contains(t, v.Text, "The deploy key is [secret aws-access-key] and password: [secret password-or-code-written-out] here.")
			p, err := plain.View(context.Background(), snap, cur, budget)
			require.NoError(t, err)
			assert.Contains(t, p.Text, "AKIAZ5R2WQ7PLM3XK4TV", "without a redactor the view is the notes' text")
		})
	}
}

// BenchmarkViewCorpusRedacted renders views from random cursors of the
// public corpus as the agent does, through the gates' secret rules, and
// as BenchmarkViewCorpus does, without; it reports the latency and the
// share of views the rules changed (the corpus holds no real secret: each
// change is a shape the rules take for one).
func BenchmarkViewCorpusRedacted(b *testing.B) {
	ctx := context.Background()
	snap := openCorpus(b)
	cursors := randomCursors(snap, 2048, 3)
	for _, c := range []struct {
		name   string
		redact func(string) string
	}{{"plain", nil}, {"redacted", gates.RedactSecrets}} {
		b.Run(c.name, func(b *testing.B) {
			r, err := NewRenderer(Options{Redact: c.redact})
			require.NoError(b, err)
			var lat []time.Duration
			changed := 0
			runtime.GC()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				t := time.Now()
				v, err := r.View(ctx, snap, cursors[i%len(cursors)], 0)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
				if strings.Contains(v.Text, "[secret ") {
					changed++
				}
			}
			b.StopTimer()
			reportLatency(b, lat)
			b.ReportMetric(100*float64(changed)/float64(len(lat)), "changed-%")
		})
	}
}

// TestViewRedactedAlwaysFits: whatever the budget and the cursor, a view
// of notes dense with short secrets (each mark a few tokens more than
// what it replaced, in every node a smaller view still holds) comes to
// fit its budget with its secrets redacted — never "no view fits".
func TestViewRedactedAlwaysFits(t *testing.T) {
	files := map[string][]byte{}
	for f := range 6 {
		var b strings.Builder
		fmt.Fprintf(&b, "#+title: Hosts %d\n", f)
		for i := range 30 {
			fmt.Fprintf(&b, "* Host %d-%d\n:PROPERTIES:\n:DB_PASSWORD: Xy7q%dPw%dz\n:END:\npw=Q%dz%dK token=Zq8wX3rT%d gclid=CMqe0bP7gro%dCFQ\n** Notes %d\nsee [[file:hosts%d.org::*Host %d-%d][host]] and key: R2WQ7P%dLM3\n",
				f, i, i, f, i, f, i, f, i, (f+1)%6, f, (i+1)%30, i)
		}
		files[fmt.Sprintf("hosts%d.org", f)] = []byte(b.String())
	}
	root, snap := openMemex(t, files, nil)
	r, err := NewRenderer(Options{Redact: gates.RedactSecrets})
	require.NoError(t, err)
	for budget := MinBudget; budget <= 2000; budget += 37 {
		for line := 0; line < 210; line += 11 {
			cur := Cursor{Path: filepath.Join(root, fmt.Sprintf("hosts%d.org", line%6)), Line: line}
			v, err := r.View(context.Background(), snap, cur, budget)
			require.NoError(t, err, "budget %d, line %d", budget, line)
			assert.LessOrEqual(t, v.Tokens, budget)
			assert.Empty(t, gates.FindSecrets(v.Text))
		}
	}
}

// TestViewCutsNoSecretInTwo: where the budget ends inside the foveal
// node's body, its line is cut after a blank, never inside a word — so
// no piece of a secret the rules would not know from half of it is
// shown, whatever the budget; the words before it are.
func TestViewCutsNoSecretInTwo(t *testing.T) {
	const awsKey = "AKIAZ5R2WQ7PLM3XK4TV"
	body := "key " + awsKey + "/" + strings.Repeat("staging", 12) + " until rotated.\n"
	var b strings.Builder
	b.WriteString("* Deploy\n" + body)
	for i := range 30 {
		fmt.Fprintf(&b, "Line %d of the runbook, with words enough to be cut somewhere along the way.\n", i)
	}
	root, snap := openMemex(t, map[string][]byte{"ops.org": []byte(b.String())}, nil)
	r, err := NewRenderer(Options{Redact: gates.RedactSecrets})
	require.NoError(t, err)
	cut := 0
	for budget := MinBudget; budget <= 200; budget++ {
		v, err := r.View(context.Background(), snap, Cursor{Path: filepath.Join(root, "ops.org"), Line: 0}, budget)
		require.NoError(t, err)
		if strings.Contains(v.Text, "* Deploy") && !strings.Contains(v.Text, "until rotated") {
			cut++
		}
		for n := 4; n <= len(awsKey); n++ {
			require.NotContains(t, v.Text, awsKey[:n], "budget %d", budget)
		}
	}
	assert.Positive(t, cut, "some budget ends inside the key's line")
}
