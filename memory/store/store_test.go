package store

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const kindTest Kind = "TEST"

func writeChunks(t *testing.T, path string, chunks ...[]byte) {
	t.Helper()
	require.NoError(t, Write(path, kindTest, 3, func(w io.Writer) error {
		for _, c := range chunks {
			if err := WriteChunk(w, c); err != nil {
				return err
			}
		}
		return nil
	}))
}

func readChunks(t *testing.T, path string) ([][]byte, error) {
	t.Helper()
	f, err := Open(path, kindTest, func(v uint32) bool { return v == 3 })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]byte
	c := NewChunks(f.Payload)
	for {
		b, err := c.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
}

// TestRoundTrip writes chunks and reads them back, replacing an older file.
func TestRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "x.st")
	writeChunks(t, p, []byte("old"))
	writeChunks(t, p, []byte("one"), nil, bytes.Repeat([]byte{7}, 1<<20))
	got, err := readChunks(t, p)
	require.NoError(t, err)
	assert.Equal(t, [][]byte{[]byte("one"), {}, bytes.Repeat([]byte{7}, 1<<20)}, got)
	entries, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")
}

// TestDamageIsDetected alters a good file in every way a crash, a disk or
// a stranger could, and checks each is refused with the right error.
func TestDamageIsDetected(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	writeChunks(t, good, []byte("payload one"), []byte("payload two"))
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	mod := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), data...)) }
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"magic only", []byte(Magic), ErrCorrupt},
		{"header only", data[:headerLen], ErrCorrupt},
		{"truncated", data[:len(data)-5], ErrCorrupt},
		{"appended", append(append([]byte(nil), data...), 'x'), ErrCorrupt},
		{"payload flipped", mod(func(b []byte) []byte { b[headerLen+3] ^= 1; return b }), ErrCorrupt},
		{"length altered", mod(func(b []byte) []byte { b[len(b)-trailerLen] ^= 1; return b }), ErrCorrupt},
		{"checksum flipped", mod(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), ErrCorrupt},
		{"foreign", []byte("#+title: an Org file, not a store\n* Heading\n"), ErrForeign},
		{"other kind", mod(func(b []byte) []byte { copy(b[8:12], "VECS"); return b }), ErrForeign},
		{"future version", mod(func(b []byte) []byte { b[12] = 4; return b }), ErrVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			require.NoError(t, os.WriteFile(p, tt.data, 0o600))
			_, err := readChunks(t, p)
			require.ErrorIs(t, err, tt.want)
			assert.True(t, IsDamaged(err))
		})
	}
	_, err = readChunks(t, filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.False(t, IsDamaged(err))
}

// TestChunkClaimsAreBounded: a chunk header claiming more than remains is
// corrupt, not an allocation of that size.
func TestChunkClaimsAreBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	require.NoError(t, Write(p, kindTest, 3, func(w io.Writer) error {
		_, err := w.Write([]byte{0xff, 0xff, 0xff, 0x0f, 1, 2, 3})
		return err
	}))
	_, err := readChunks(t, p)
	assert.ErrorIs(t, err, ErrCorrupt)
}

// TestFailedWriteLeavesOldFile: an error from the payload writer leaves
// the previous file and no temporary behind.
func TestFailedWriteLeavesOldFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	writeChunks(t, p, []byte("old"))
	err := Write(p, kindTest, 3, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("disk full")
	})
	require.Error(t, err)
	got, err := readChunks(t, p)
	require.NoError(t, err)
	assert.Equal(t, [][]byte{[]byte("old")}, got)
	entries, _ := os.ReadDir(filepath.Dir(p))
	assert.Len(t, entries, 1)
}

// TestStaleTempsAreRemoved: temporaries a killed writer left are cleaned
// by the next write once old enough, fresh ones are left to their writer.
func TestStaleTempsAreRemoved(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	old := p + ".tmp-111"
	fresh := p + ".tmp-222"
	require.NoError(t, os.WriteFile(old, []byte("x"), 0o600))
	require.NoError(t, os.WriteFile(fresh, []byte("x"), 0o600))
	past := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(old, past, past))
	writeChunks(t, p, []byte("new"))
	assert.NoFileExists(t, old)
	assert.FileExists(t, fresh)
}

// TestWriteFileAtomic keeps the mode of the file it replaces.
func TestWriteFileAtomic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "note.org")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o640))
	require.NoError(t, WriteFileAtomic(p, []byte("new"), 0o600))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "new", string(b))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
	entries, _ := os.ReadDir(filepath.Dir(p))
	assert.Len(t, entries, 1)
}

// FuzzOpen: any bytes given to Open yield a verified payload or an error,
// never a panic, and a payload only when it is the one a writer wrote.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good")
	require.NoError(f, Write(good, kindTest, 3, func(w io.Writer) error { return WriteChunk(w, []byte("hello")) }))
	data, err := os.ReadFile(good)
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(Magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f")
		require.NoError(t, os.WriteFile(p, b, 0o600))
		chunks, err := readChunks(t, p)
		if err != nil {
			return
		}
		// Verified: the payload hashes to its checksum; chunks must then
		// account for it exactly or have been refused.
		total := 0
		for _, c := range chunks {
			total += 4 + len(c)
		}
		assert.Equal(t, len(b)-headerLen-trailerLen, total)
	})
}
