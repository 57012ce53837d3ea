package protect

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/seal"
)

type world struct {
	base, root, data, config, configFile, runtime, outside string
	places                                                 Places
}

func newWorld(t *testing.T) *world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	w := &world{base: base, root: filepath.Join(base, "memex"), data: filepath.Join(base, "data"),
		config: filepath.Join(base, "config", "passepartout"), configFile: filepath.Join(base, "elsewhere", "my.json"),
		runtime: filepath.Join(base, "run", "passepartout"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{w.root + "/notes", w.data + "/plans", w.config, filepath.Dir(w.configFile), w.runtime, w.outside} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	for p, text := range map[string]string{
		w.root + "/flightplans.org": "#+TITLE: Flight Plans\n", w.root + "/journal.org": "#+TITLE: Audit Journal\n",
		w.root + "/notes/ok.org": "* ok\n", w.data + "/key": "k", w.data + "/plans/p": "record",
		w.config + "/config.json": "{}", w.configFile: "{}", w.runtime + "/token": "t", w.outside + "/x.txt": "x",
	} {
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	}
	w.places = Places{Roots: []string{w.root}, Private: []string{w.data, w.config, w.configFile, w.runtime}}
	return w
}

func TestCheckFindsProtectedPlacesByIdentity(t *testing.T) {
	w := newWorld(t)
	r := w.root
	require.NoError(t, os.Symlink(r+"/flightplans.org", r+"/notes/plans-link.org"))
	require.NoError(t, os.Link(r+"/journal.org", r+"/notes/journal-copy.org"))
	require.NoError(t, os.Link(w.data+"/key", r+"/notes/innocent.txt"))
	require.NoError(t, os.Symlink(w.data, r+"/notes/data-link"))
	require.NoError(t, os.Symlink(w.runtime+"/token", r+"/notes/token-link"))
	require.NoError(t, os.Link(w.outside+"/x.txt", r+"/notes/shared.txt"))
	for _, tc := range []struct {
		path, refused string // refused: the place named, "" for allowed
	}{
		{r + "/flightplans.org", "flightplans.org"},
		{r + "/FlightPlans.ORG", "flightplans.org"},
		{r + "/notes/../journal.org", "journal.org"},
		{r + "/notes/plans-link.org", "flightplans.org"},
		{r + "/notes/journal-copy.org", "journal.org"},
		{r + "/notes/innocent.txt", "data"},
		{r + "/notes/data-link/key", "data"},
		{r + "/notes/data-link/not-yet", "data"},
		{r + "/notes/token-link", "passepartout"},
		{w.data, "data"},
		{w.data + "/plans/p", "data"},
		{w.data + "/../data/key", "data"},
		{w.config + "/config.json", "passepartout"},
		{w.configFile, "my.json"},
		{w.runtime + "/token", "passepartout"},
		{r + "/notes/ok.org", ""},
		{r + "/notes/new.org", ""},
		{r + "/notes/shared.txt", ""},
		{w.outside + "/x.txt", ""},
	} {
		err := w.places.Check(tc.path)
		if tc.refused == "" {
			assert.NoError(t, err, tc.path)
			continue
		}
		if assert.ErrorIs(t, err, ErrProtected, tc.path) {
			assert.Contains(t, err.Error(), "is "+tc.refused, tc.path)
		}
	}
}

func TestASymlinkedFlightPlansFileProtectsItsTarget(t *testing.T) {
	w := newWorld(t)
	synced := filepath.Join(w.outside, "synced-plans.org")
	require.NoError(t, os.WriteFile(synced, []byte("* PLAN x\n"), 0o644))
	require.NoError(t, os.Remove(w.root+"/flightplans.org"))
	require.NoError(t, os.Symlink(synced, w.root+"/flightplans.org"))
	assert.ErrorIs(t, w.places.Check(synced), ErrProtected)
	require.NoError(t, os.Symlink(synced, w.root+"/notes/other.org"))
	assert.ErrorIs(t, w.places.Check(w.root+"/notes/other.org"), ErrProtected)
	assert.ErrorIs(t, OwnFile(w.root+"/flightplans.org"), ErrNotOwn)
}

func TestCheckOpenLooksAtWhatWasOpened(t *testing.T) {
	w := newWorld(t)
	// A symlink swapped in after a check: what was opened is the journal.
	f, err := os.Open(w.root + "/journal.org")
	require.NoError(t, err)
	defer f.Close()
	assert.ErrorIs(t, w.places.CheckOpen(f, w.root+"/notes/ok.org"), ErrProtected)
	g, err := os.Open(w.root + "/notes/ok.org")
	require.NoError(t, err)
	defer g.Close()
	assert.NoError(t, w.places.CheckOpen(g, w.root+"/notes/ok.org"))
}

func TestOwnFiles(t *testing.T) {
	w := newWorld(t)
	p := w.root + "/journal.org"
	b, ok, err := ReadOwnFile(p)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "#+TITLE: Audit Journal\n", string(b))
	_, ok, err = ReadOwnFile(w.root + "/missing.org")
	require.NoError(t, err)
	assert.False(t, ok)
	require.NoError(t, OwnFile(w.root+"/missing.org"))

	require.NoError(t, os.Link(p, w.outside+"/j.org"))
	assert.ErrorContains(t, OwnFile(p), "has 2 hard links")
	_, _, err = ReadOwnFile(p)
	assert.ErrorIs(t, err, ErrNotOwn)
	require.NoError(t, os.Remove(w.outside+"/j.org"))
	require.NoError(t, OwnFile(p))

	require.NoError(t, os.Remove(p))
	require.NoError(t, os.Symlink(w.outside+"/x.txt", p))
	assert.ErrorContains(t, OwnFile(p), "is a symlink (to "+w.outside+"/x.txt)")
	_, _, err = ReadOwnFile(p)
	assert.ErrorIs(t, err, ErrNotOwn)

	require.NoError(t, os.Remove(p))
	require.NoError(t, os.Mkdir(p, 0o700))
	assert.ErrorContains(t, OwnFile(p), "not a regular file")
}

func TestInsideAndDiagnose(t *testing.T) {
	w := newWorld(t)
	_, in := Inside(w.data, []string{w.root})
	assert.False(t, in)
	r, in := Inside(w.root+"/.pp-data", []string{w.outside, w.root})
	assert.True(t, in)
	assert.Equal(t, w.root, r)
	require.NoError(t, os.Symlink(w.root+"/notes", w.base+"/notes-link"))
	_, in = Inside(w.base+"/notes-link/data", []string{w.root})
	assert.True(t, in, "through a symlink")

	data := filepath.Join(w.base, "fresh-data")
	assert.Empty(t, Diagnose([]string{w.outside}, data), "nothing there yet, nothing to say")
	_, err := seal.LoadOrCreate(data)
	require.NoError(t, err)
	fs := Diagnose([]string{w.root}, data)
	assert.Len(t, fs, 4, "the data dir, its key, flightplans.org, journal.org")
	for _, f := range fs {
		assert.False(t, f.Failed, "%s: %s", f.Subject, f.Detail)
	}
	require.NoError(t, os.Link(w.root+"/flightplans.org", w.outside+"/fp.org"))
	require.NoError(t, os.Chmod(seal.Path(data), 0o644))
	failed := map[string]string{}
	require.NoError(t, os.Mkdir(w.root+"/data", 0o700))
	for _, f := range Diagnose([]string{w.root}, w.root+"/data") {
		if f.Failed {
			failed[f.Subject] = f.Detail
		}
	}
	assert.Contains(t, failed["data dir "+w.root+"/data"], "inside the memex root")
	assert.Contains(t, failed["flightplans.org "+w.root+"/flightplans.org"], "2 hard links")
	for _, f := range Diagnose(nil, data) {
		if f.Subject == "key "+seal.Path(data) {
			assert.True(t, f.Failed)
			assert.Contains(t, f.Detail, "has mode 0644")
		}
	}
}

// TestOwnFilesOnlyTheirUserWrites: a flightplans.org or journal.org that
// another user owns or may write is refused (they could approve a plan in
// it); the user's own, group-writable only by the user's own group, is
// not.
func TestOwnFilesOnlyTheirUserWrites(t *testing.T) {
	const other = 65534
	for _, tc := range []struct {
		name    string
		mode    os.FileMode
		uid     int // -1: ours
		gid     int // -1: ours
		refused string
	}{
		{"ours, 0644", 0o644, -1, -1, ""},
		{"ours, 0600", 0o600, -1, -1, ""},
		{"ours, 0664 with our own group", 0o664, -1, -1, ""},
		{"ours, writable by everyone", 0o666, -1, -1, "can be written by other users (mode 0666)"},
		{"ours, 0646", 0o646, -1, -1, "can be written by other users"},
		{"ours, 0664 with another group", 0o664, -1, other, "can be written by other users (mode 0664)"},
		{"another user's, 0644", 0o644, other, -1, "belongs to another user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if (tc.uid >= 0 || tc.gid >= 0) && os.Geteuid() != 0 {
				t.Skip("giving a file to another user needs root")
			}
			p := filepath.Join(t.TempDir(), "flightplans.org")
			require.NoError(t, os.WriteFile(p, []byte("#+TITLE: Flight Plans\n"), 0o600))
			require.NoError(t, os.Chmod(p, tc.mode))
			require.NoError(t, os.Lchown(p, tc.uid, tc.gid))
			err := OwnFile(p)
			_, _, rerr := ReadOwnFile(p)
			if tc.refused == "" {
				assert.NoError(t, err)
				assert.NoError(t, rerr)
				return
			}
			assert.ErrorContains(t, err, tc.refused)
			assert.ErrorIs(t, err, ErrNotOwn)
			assert.ErrorIs(t, rerr, ErrNotOwn)
		})
	}
}

// TestOnlyTheUserWrites: the configuration file is the user's or root's,
// and no one else may write it.
func TestOnlyTheUserWrites(t *testing.T) {
	const other = 65534
	for _, tc := range []struct {
		name    string
		mode    os.FileMode
		uid     int // -1: ours
		refused string
	}{
		{"ours, 0644", 0o644, -1, ""},
		{"ours, 0664 with our own group", 0o664, -1, ""},
		{"root's, 0644", 0o644, 0, ""},
		{"ours, writable by everyone", 0o666, -1, "can be written by other users (mode 0666)"},
		{"another user's", 0o644, other, "belongs to another user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.uid >= 0 && os.Geteuid() != 0 {
				t.Skip("giving a file to another user needs root")
			}
			p := filepath.Join(t.TempDir(), "config.json")
			require.NoError(t, os.WriteFile(p, []byte("{}"), 0o600))
			require.NoError(t, os.Chmod(p, tc.mode))
			require.NoError(t, os.Lchown(p, tc.uid, -1))
			fi, err := os.Stat(p)
			require.NoError(t, err)
			err = OnlyTheUserWrites(p, fi)
			if tc.refused == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.refused)
		})
	}
}
