package agent

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/providers"
	"pp-lsp/providers/providertest"
	"pp-lsp/server/journal"
)

// fixture is an agent over a memex in a temp folder, with real gates, a
// real memex and real files; only the model is scripted (the replay
// provider or a providertest loopback server).
type fixture struct {
	root, home, data string
	env              map[string]string
	mx               *memory.Memex
	agent            *Agent
	stack            *gates.Stack
}

type fixtureOption func(*Options)

func newFixture(t testing.TB, files map[string]string, provider providers.Provider, opts ...fixtureOption) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	fx := &fixture{root: filepath.Join(base, "memex"), home: filepath.Join(base, "home"), data: filepath.Join(base, "data")}
	for _, d := range []string{fx.root, fx.home, fx.data} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	for name, text := range files {
		p := filepath.Join(fx.root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	fx.env = map[string]string{
		"HOME": fx.home, "XDG_CONFIG_HOME": filepath.Join(fx.home, ".config"), "PASSEPARTOUT_DATA_DIR": fx.data,
		"PATH": os.Getenv("PATH"), "LANG": "C.UTF-8",
	}
	getenv := func(k string) string { return fx.env[k] }
	ctx := context.Background()
	fx.mx, err = memory.Open(ctx, memory.Options{Roots: []string{fx.root}})
	require.NoError(t, err)
	t.Cleanup(func() { fx.mx.Close(ctx) })
	fx.stack, err = gates.New(gates.DefaultConfig())
	require.NoError(t, err)
	o := Options{
		Roots: []string{fx.root}, Stack: fx.stack, World: gates.DefaultWorld(getenv, []string{fx.root}),
		Provider: provider, Memex: fx.mx, DataDir: fx.data, Getenv: getenv,
	}
	for _, f := range opts {
		f(&o)
	}
	fx.agent, err = New(o)
	require.NoError(t, err)
	return fx
}

// replay loads a transcript (JSON lines) as the provider.
func replay(t testing.TB, lines ...string) providers.Provider {
	t.Helper()
	p := filepath.Join(t.TempDir(), "transcript.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	r, err := providers.LoadReplay(p, providers.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return r
}

// openAI is a provider speaking to a providertest server in the OpenAI
// format, with the answers queued.
func openAI(t *testing.T, answers ...providertest.Answer) (providers.Provider, *providertest.Server) {
	t.Helper()
	var replies []providertest.Reply
	for _, a := range answers {
		replies = append(replies, providertest.Reply{Frames: providertest.OpenAIFrames(a)})
	}
	srv := providertest.NewServer(t, replies...)
	p, err := providers.NewProvider(providers.ProviderConfig{Kind: providers.ProviderOpenAI, Model: "test", BaseURL: srv.URL}, providers.Timeouts{}, providers.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return p, srv
}

func (fx *fixture) path(name string) string { return filepath.Join(fx.root, name) }

func (fx *fixture) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(fx.path(name))
	require.NoError(t, err)
	return string(b)
}

func (fx *fixture) write(t *testing.T, name, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(fx.path(name), []byte(text), 0o644))
	_, err := fx.mx.ReloadFiles(context.Background(), fx.path(name))
	require.NoError(t, err)
}

// ask runs one question from file:line (1-based) and returns the outcome
// and what was streamed.
func (fx *fixture) ask(t *testing.T, file string, line int, text string) (AskResult, string, error) {
	t.Helper()
	var mu sync.Mutex
	var b strings.Builder
	out, err := fx.agent.Ask(context.Background(), AskRequest{Source: SourceCLI, File: fx.path(file), Line: line - 1, Text: text}, func(s string) error {
		mu.Lock()
		defer mu.Unlock()
		b.WriteString(s)
		return nil
	})
	return out, b.String(), err
}

// verifyJournal checks the journal's chain and returns its entries' kinds.
// verifyJournal checks the journal's chain and returns the kinds of its
// entries after the first, which records the agent's start.
func (fx *fixture) verifyJournal(t *testing.T) []string {
	t.Helper()
	rep, err := journal.Verify(context.Background(), fx.path(journal.FileName), fx.data)
	require.NoError(t, err)
	require.True(t, rep.OK(), "journal: %+v", rep.Broken)
	var kinds []string
	for _, l := range strings.Split(fx.read(t, journal.FileName), "\n") {
		if k, ok := strings.CutPrefix(l, ":KIND:"); ok {
			kinds = append(kinds, strings.TrimSpace(k))
		}
	}
	require.NotEmpty(t, kinds)
	require.Equal(t, string(journal.KindStart), kinds[0], "every start is journalled first")
	return kinds[1:]
}

// lastPass is the last pass of a result (the zero Pass when there was
// none).
func lastPass(res AskResult) Pass {
	if len(res.Passes) == 0 {
		return Pass{}
	}
	return res.Passes[len(res.Passes)-1]
}

// providersFor is an OpenAI-format provider at url.
func providersFor(url string) (providers.Provider, error) {
	return providers.NewProvider(providers.ProviderConfig{Kind: providers.ProviderOpenAI, Model: "test", BaseURL: url}, providers.Timeouts{}, providers.Options{Logger: slog.New(slog.DiscardHandler)})
}
