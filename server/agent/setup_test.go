package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/actuate/sandbox"
)

// TestOneSourceOfPrivacyTags: the privacy tags of the "gates" section, or
// the editor's override, are the tags the memex hides too — one list for the
// context and the gates.
func TestOneSourceOfPrivacyTags(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "n.org"), []byte("* Offer :confidential:\nNinety two thousand.\n* Salary :payroll:\nSixty.\n* Public\nHello.\n"), 0o644))
	home := t.TempDir()
	cfg := filepath.Join(home, "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"gates":{"privacy":{"tags":["confidential"]}}}`), 0o600))
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }

	private := func(s Setup) map[string]bool {
		mx, err := OpenMemex(context.Background(), s)
		require.NoError(t, err)
		defer mx.Close(context.Background())
		out := map[string]bool{}
		for n := range mx.Snapshot().Nodes() {
			if !n.IsFile() {
				out[n.Title()] = n.Private()
			}
		}
		return out
	}
	fromFile := private(Setup{Roots: []string{root}, ConfigFile: cfg, Getenv: getenv})
	assert.Equal(t, map[string]bool{"Offer": true, "Salary": false, "Public": false}, fromFile)

	overridden := private(Setup{Roots: []string{root}, ConfigFile: cfg, Getenv: getenv, PrivacyTags: []string{"payroll"}})
	assert.Equal(t, map[string]bool{"Offer": false, "Salary": true, "Public": false}, overridden)

	a, err := Open(context.Background(), Setup{Roots: []string{root}, ConfigFile: cfg, Getenv: getenv})
	require.NoError(t, err)
	defer a.Close(context.Background())
	n, ok := a.memex.Snapshot().NodeAt(filepath.Join(root, "n.org"), 0)
	require.True(t, ok)
	assert.True(t, n.Private(), "the memex Open opens hides the configured tag")
}

// TestTheSandboxSetting: the "agent" section names the mode, the
// environment overrides it, and a value that is none of the three is an
// error naming where it came from.
func TestTheSandboxSetting(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"agent":{"sandbox":"best-effort","sandbox_max_processes":64}}`), 0o600))
	open := func(env map[string]string) (*Agent, error) {
		env["HOME"] = home
		return Open(context.Background(), Setup{Roots: []string{root}, ConfigFile: cfg, Getenv: func(k string) string { return env[k] }})
	}
	a, err := open(map[string]string{})
	require.NoError(t, err)
	assert.Equal(t, sandbox.BestEffort, a.Sandbox().Mode())
	a.Close(context.Background())

	a, err = open(map[string]string{sandbox.EnvMode: "off"})
	require.NoError(t, err)
	assert.Equal(t, sandbox.Off, a.Sandbox().Mode(), "the environment wins over the file")
	a.Close(context.Background())

	_, err = open(map[string]string{sandbox.EnvMode: "loose"})
	require.ErrorIs(t, err, ErrUsage)
	assert.ErrorContains(t, err, `PASSEPARTOUT_SANDBOX: the sandbox setting "loose" is none of required, best-effort, off`)

	_, err = ParseConfig([]byte(`{"sandbox":"strict"}`))
	assert.ErrorContains(t, err, `the sandbox setting "strict" is none of`)
	_, err = ParseConfig([]byte(`{"sandbox_cpu_seconds":-1}`))
	assert.ErrorContains(t, err, "must be positive")
}

// TestTheEditorCanOnlyTightenTheSandbox: the editor's setting (a
// project's, which a hostile note may have written) never loosens what the
// file and the environment say.
func TestTheEditorCanOnlyTightenTheSandbox(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"agent":{"sandbox":"best-effort"}}`), 0o600))
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	for _, tc := range []struct {
		editor string
		want   sandbox.Mode
	}{
		{"off", sandbox.BestEffort},
		{"best-effort", sandbox.BestEffort},
		{"required", sandbox.Required},
	} {
		a, err := Open(context.Background(), Setup{Roots: []string{root}, ConfigFile: cfg, Getenv: getenv, Sandbox: tc.editor})
		require.NoError(t, err, tc.editor)
		assert.Equal(t, tc.want, a.Sandbox().Mode(), "the editor says %s", tc.editor)
		a.Close(context.Background())
	}
	_, err := Open(context.Background(), Setup{Roots: []string{root}, ConfigFile: cfg, Getenv: getenv, Sandbox: "loose"})
	assert.ErrorContains(t, err, `the editor's sandbox setting: the sandbox setting "loose" is none of`)
}
