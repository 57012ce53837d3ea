package memory

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDataDir follows DESIGN §11: PASSEPARTOUT_DATA_DIR, else
// $XDG_DATA_HOME/passepartout, else ~/.local/share/passepartout.
func TestDataDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"explicit", map[string]string{EnvDataDir: "/srv/pp", "XDG_DATA_HOME": "/x", "HOME": "/h"}, "/srv/pp"},
		{"xdg", map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/h"}, "/x/passepartout"},
		{"relative xdg is ignored", map[string]string{"XDG_DATA_HOME": "rel", "HOME": "/h"}, "/h/.local/share/passepartout"},
		{"home", map[string]string{"HOME": "/h"}, "/h/.local/share/passepartout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DataDir(func(k string) string { return tt.env[k] })
			require.NoError(t, err)
			assert.Equal(t, filepath.FromSlash(tt.want), got)
		})
	}
}

// TestAutoSaveInterval reads MEMORY_AUTO_SAVE_INTERVAL in seconds.
func TestAutoSaveInterval(t *testing.T) {
	tests := []struct {
		v    string
		want time.Duration
		bad  bool
	}{
		{"", 300 * time.Second, false},
		{"60", time.Minute, false},
		{"0", 0, false},
		{"-1", 0, true},
		{"soon", 0, true},
	}
	for _, tt := range tests {
		got, err := AutoSaveInterval(func(string) string { return tt.v })
		if tt.bad {
			assert.Error(t, err, tt.v)
			assert.Contains(t, err.Error(), EnvAutoSave)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
	}
}
