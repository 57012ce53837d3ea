package gates

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// corpusRecord is one labelled action of ../shared/corpus/gates.
type corpusRecord struct {
	ID     string          `json:"id"`
	Source string          `json:"source"`
	Vector string          `json:"vector"`
	Expect string          `json:"expect"`
	Action json.RawMessage `json:"action"`
	Note   string          `json:"note"`
}

// corpusTally counts one vector's outcomes.
type corpusTally struct {
	records, deny, notAllow, allow int
	denied, asked, allowed         int
	misses, falseDenies            int
	denyOnDeny, allowOnAllow       int
}

// newCorpusEnv builds the stack and environment the corpus README asks
// for: the default configuration, a copy of fixtures/ as the only root.
func newCorpusEnv(t testing.TB, shared string) (*Stack, *Env) {
	t.Helper()
	root := t.TempDir()
	fixtures := filepath.Join(shared, "corpus", "gates", "fixtures")
	entries, err := os.ReadDir(fixtures)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(fixtures, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(root, e.Name()), data, 0o644))
	}
	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	memex := openMemex(t, []string{root})
	env := map[string]string{"HOME": "/home/tester", "XDG_RUNTIME_DIR": "/run/user/1000"}
	w := DefaultWorld(func(k string) string { return env[k] }, []string{root})
	w.Memex = memex
	e, err := stack.NewEnv(context.Background(), w)
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return stack, e
}

func readCorpus(t testing.TB, dir string) map[string][]corpusRecord {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no *.jsonl in %s", dir)
	out := map[string][]corpusRecord{}
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var r corpusRecord
			require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "%s", f)
			out[r.Vector] = append(out[r.Vector], r)
		}
		require.NoError(t, sc.Err())
		fh.Close()
	}
	return out
}

// TestCorpus runs every labelled action of the shared gate corpus and
// prints a table per vector. It fails on any allow of a deny or not_allow
// record, on a deny rate under 95 % on deny records, and on an allow rate
// under 95 % on allow records (rates over the whole corpus, as issue 6
// states them). Failing records are logged with the deciding gate.
func TestCorpus(t *testing.T) {
	shared := testenv.SharedDir(t)
	corpus := readCorpus(t, filepath.Join(shared, "corpus", "gates"))
	stack, env := newCorpusEnv(t, shared)
	ctx := context.Background()

	tallies := map[string]*corpusTally{}
	var failures []string
	for vec, recs := range corpus {
		tl := &corpusTally{}
		tallies[vec] = tl
		for _, r := range recs {
			v := stack.CheckJSON(ctx, r.Action, env)
			tl.records++
			switch r.Expect {
			case "deny":
				tl.deny++
			case "not_allow":
				tl.notAllow++
			case "allow":
				tl.allow++
			}
			switch v.Verdict {
			case VerdictDeny:
				tl.denied++
			case VerdictAsk:
				tl.asked++
			case VerdictAllow:
				tl.allowed++
			}
			bad := false
			switch {
			case r.Expect != "allow" && v.Verdict == VerdictAllow:
				tl.misses++
				bad = true
			case r.Expect == "allow" && v.Verdict == VerdictDeny:
				tl.falseDenies++
				bad = true
			case r.Expect == "allow" && v.Verdict == VerdictAsk:
				bad = true
			case r.Expect == "deny" && v.Verdict == VerdictAsk:
				bad = true
			}
			if r.Expect == "deny" && v.Verdict == VerdictDeny {
				tl.denyOnDeny++
			}
			if r.Expect == "allow" && v.Verdict == VerdictAllow {
				tl.allowOnAllow++
			}
			if bad {
				failures = append(failures, fmt.Sprintf("%s %s expect=%s got=%s (%s: %s) | %s | %.160s", vec, r.ID, r.Expect, v.Verdict, v.Gate, v.Reason, r.Note, r.Action))
			}
		}
	}
	t.Log("\n" + corpusTable(tallies))
	sort.Strings(failures)
	for _, f := range failures {
		t.Log(f)
	}
	// The bars of issue 6 are over all records: no allow of a deny or
	// not_allow record anywhere, and the deny and allow rates overall.
	// Per-vector rates are printed above.
	var all corpusTally
	for vec, tl := range tallies {
		assert.Zero(t, tl.misses, "%s: allow on deny/not_allow records", vec)
		all.deny += tl.deny
		all.allow += tl.allow
		all.denyOnDeny += tl.denyOnDeny
		all.allowOnAllow += tl.allowOnAllow
	}
	require.Positive(t, all.deny)
	require.Positive(t, all.allow)
	assert.GreaterOrEqual(t, float64(all.denyOnDeny)/float64(all.deny), 0.95, "deny rate on deny records")
	assert.GreaterOrEqual(t, float64(all.allowOnAllow)/float64(all.allow), 0.95, "allow rate on allow records")
}

func corpusTable(tallies map[string]*corpusTally) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %7s %6s %6s %6s %6s %12s %12s\n", "vector", "records", "misses", "fdeny", "asks", "denies", "deny-rate", "allow-rate")
	names := make([]string, 0, len(tallies))
	for n := range tallies {
		names = append(names, n)
	}
	sort.Strings(names)
	var all corpusTally
	rate := func(n, d int) string {
		if d == 0 {
			return "-"
		}
		return fmt.Sprintf("%5.1f%% %d/%d", 100*float64(n)/float64(d), n, d)
	}
	for _, n := range names {
		tl := tallies[n]
		fmt.Fprintf(&b, "%-18s %7d %6d %6d %6d %6d %12s %12s\n", n, tl.records, tl.misses, tl.falseDenies, tl.asked, tl.denied, rate(tl.denyOnDeny, tl.deny), rate(tl.allowOnAllow, tl.allow))
		all.records += tl.records
		all.misses += tl.misses
		all.falseDenies += tl.falseDenies
		all.asked += tl.asked
		all.denied += tl.denied
		all.deny += tl.deny
		all.allow += tl.allow
		all.denyOnDeny += tl.denyOnDeny
		all.allowOnAllow += tl.allowOnAllow
	}
	fmt.Fprintf(&b, "%-18s %7d %6d %6d %6d %6d %12s %12s\n", "all", all.records, all.misses, all.falseDenies, all.asked, all.denied, rate(all.denyOnDeny, all.deny), rate(all.allowOnAllow, all.allow))
	return b.String()
}
