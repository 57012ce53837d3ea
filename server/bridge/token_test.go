package bridge

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

func TestTokenPath(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
		err  bool
	}{
		{"runtime dir", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "XDG_CACHE_HOME": "/c", "HOME": "/h"}, "/run/user/1000/passepartout/token", false},
		{"cache home when no runtime dir", map[string]string{"XDG_CACHE_HOME": "/c", "HOME": "/h"}, "/c/passepartout/token", false},
		{"home cache", map[string]string{"HOME": "/home/me"}, "/home/me/.cache/passepartout/token", false},
		{"relative runtime dir is ignored", map[string]string{"XDG_RUNTIME_DIR": "run", "HOME": "/h"}, "/h/.cache/passepartout/token", false},
		{"nothing", map[string]string{}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TokenPath(func(k string) string { return tt.env[k] })
			if tt.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLoadOrCreateToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run", "passepartout", "token")
	tok, created, err := LoadOrCreateToken(path)
	require.NoError(t, err)
	assert.True(t, created)
	assert.Len(t, tok, 2*tokenBytes)

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	dinfo, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), dinfo.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, tok+"\n", string(data))

	again, created, err := LoadOrCreateToken(path)
	require.NoError(t, err)
	assert.False(t, created, "a good token is kept, so running clients stay connected across restarts")
	assert.Equal(t, tok, again)

	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestLoadOrCreateTokenReplacesUntrustworthyFiles(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
	}{
		{"readable by others", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("ab", tokenBytes)), 0o644))
			require.NoError(t, os.Chmod(path, 0o644))
		}},
		{"not a token", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("hunter2\n"), 0o600))
		}},
		{"empty", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, nil, 0o600))
		}},
		{"a symlink", func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			require.NoError(t, os.WriteFile(target, []byte(strings.Repeat("ab", tokenBytes)), 0o600))
			require.NoError(t, os.Symlink(target, path))
		}},
		// Not waited on: the daemon would never start.
		{"a FIFO", func(t *testing.T, path string) { testenv.MakeFIFO(t, path) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "passepartout")
			require.NoError(t, os.MkdirAll(dir, 0o700))
			path := filepath.Join(dir, "token")
			tt.setup(t, path)
			var tok string
			var created bool
			err := testenv.Promptly(t, path, func() error {
				var err error
				tok, created, err = LoadOrCreateToken(path)
				return err
			})
			require.NoError(t, err)
			assert.True(t, created)
			assert.NotEqual(t, strings.Repeat("ab", tokenBytes), tok)
			info, err := os.Lstat(path)
			require.NoError(t, err)
			assert.True(t, info.Mode().IsRegular())
			assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
		})
	}
}

func TestLoadOrCreateTokenTightensItsDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "passepartout")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	_, _, err := LoadOrCreateToken(filepath.Join(dir, "token"))
	require.NoError(t, err)
	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())

	// A file where the directory should be is an error, not a silent fallback.
	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	_, _, err = LoadOrCreateToken(filepath.Join(blocked, "token"))
	assert.Error(t, err)
}

// TestLoadOrCreateTokenConcurrently: daemons starting at once agree on one token.
func TestLoadOrCreateTokenConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passepartout", "token")
	var wg sync.WaitGroup
	toks := make([]string, 8)
	for i := range toks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, _, err := LoadOrCreateToken(path)
			assert.NoError(t, err)
			toks[i] = tok
		}()
	}
	wg.Wait()
	for _, tok := range toks {
		assert.Equal(t, toks[0], tok)
	}
}

func TestTokenMatches(t *testing.T) {
	d := tokenDigest(testToken)
	assert.True(t, tokenMatches(d, testToken))
	assert.False(t, tokenMatches(d, testToken[:63]))
	assert.False(t, tokenMatches(d, ""))
	assert.False(t, tokenMatches(d, strings.ToUpper(testToken)))
}

func TestListen(t *testing.T) {
	tests := []struct {
		name        string
		addr        string
		allowRemote bool
		refused     bool
	}{
		{"IPv4 loopback", "127.0.0.1:0", false, false},
		{"localhost", "localhost:0", false, false},
		{"every interface", ":0", false, true},
		{"unspecified IPv4", "0.0.0.0:0", false, true},
		{"unspecified IPv6", "[::]:0", false, true},
		{"a LAN address", "192.0.2.10:0", false, true},
		{"every interface, allowed", ":0", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := Listen(context.Background(), tt.addr, tt.allowRemote)
			if tt.refused {
				assert.ErrorIs(t, err, ErrNotLoopback)
				return
			}
			require.NoError(t, err)
			defer ln.Close()
			if !tt.allowRemote {
				assert.True(t, ln.Addr().(*net.TCPAddr).IP.IsLoopback())
			}
		})
	}
	_, err := Listen(context.Background(), "no-port", false)
	assert.Error(t, err)
	assert.False(t, errors.Is(err, ErrNotLoopback))
}
