package gates

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// corpusVerdictsFile holds, per record of the shared gate corpus, the
// verdict the stack gave it: id, verdict, gate, and a digest of the whole
// verdict (reason, trace, the action as the gates left it), the corpus
// root written as $ROOT.
const corpusVerdictsFile = "testdata/corpus_verdicts.txt"

// TestCorpusVerdictsUnchanged: every record of the shared gate corpus gets
// exactly the verdict, gate, reason, trace and resulting action it got
// when corpusVerdictsFile was written, checked twice over (in order, so
// each check's recycled memory and the environment's memo hold the
// previous record's, then in reverse order), so that a change made for
// speed is seen to change no answer. UPDATE_VERDICTS=1 rewrites the file
// (read the diff before committing: a changed verdict is a changed gate).
func TestCorpusVerdictsUnchanged(t *testing.T) {
	shared := testenv.SharedDir(t)
	corpus := readCorpus(t, filepath.Join(shared, "corpus", "gates"))
	stack, env := newCorpusEnv(t, shared)
	roots := []string{env.Roots()[0], env.World().Roots[0]}
	var recs []corpusRecord
	for _, rs := range corpus {
		recs = append(recs, rs...)
	}
	slices.SortFunc(recs, func(a, b corpusRecord) int { return strings.Compare(a.ID, b.ID) })

	ctx := context.Background()
	line := func(r corpusRecord) (string, string) {
		v := stack.CheckJSON(ctx, r.Action, env)
		full, err := json.Marshal(v)
		require.NoError(t, err)
		if v.Action != nil {
			full = append(full, v.Action.CanonicalJSON()...)
		}
		for _, root := range roots {
			full = []byte(strings.ReplaceAll(string(full), root, "$ROOT"))
		}
		sum := sha256.Sum256(full)
		return fmt.Sprintf("%s %s %s %s", r.ID, v.Verdict, v.Gate, hex.EncodeToString(sum[:8])), string(full)
	}
	got := make([]string, len(recs))
	fulls := make([]string, len(recs))
	for i, r := range recs {
		got[i], fulls[i] = line(r)
	}
	for i := len(recs) - 1; i >= 0; i-- {
		again, full := line(recs[i])
		assert.Equal(t, got[i], again, "%s checked again, in reverse order: %s", recs[i].ID, full)
	}

	if os.Getenv("UPDATE_VERDICTS") == "1" {
		require.NoError(t, os.WriteFile(corpusVerdictsFile, []byte(strings.Join(got, "\n")+"\n"), 0o644))
		return
	}
	fh, err := os.Open(corpusVerdictsFile)
	require.NoError(t, err)
	defer fh.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		id, _, _ := strings.Cut(sc.Text(), " ")
		want[id] = sc.Text()
	}
	require.NoError(t, sc.Err())
	assert.Len(t, want, len(recs), "records in %s", corpusVerdictsFile)
	changed := 0
	for i, r := range recs {
		if !assert.Equal(t, want[r.ID], got[i], "%s: %s", r.ID, fulls[i]) {
			changed++
		}
	}
	assert.Zero(t, changed, "verdicts changed")
}
