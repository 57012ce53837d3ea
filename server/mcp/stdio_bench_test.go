package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/server/agent"
	"pp-lsp/server/host"
)

// serveChild is the test binary as `pp-lsp mcp --root ROOT` serving its
// stdin and stdout, in the environment the fixtures make (env(DIR)), as
// cmd/pp-lsp's mcp.go sets it up (the host's heartbeat, the rescan of the
// roots every 5 s): args DIR ROOT. The agent comes up once every node is
// embedded and what that left is collected.
func serveChild(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "want DIR ROOT")
		return 2
	}
	e := env(args[0])
	ctx := context.Background()
	setup := agent.Setup{Roots: []string{args[1]}, Getenv: func(k string) string { return e[k] }, Serve: true}
	h := host.New(nil)
	go func() {
		mx, err := agent.OpenMemex(ctx, setup)
		if err != nil {
			h.Up(nil, err, nil)
			return
		}
		setup.Memex = mx
		a, err := agent.Open(ctx, setup)
		if err == nil {
			err = mx.WaitEmbedded(ctx)
		}
		if err != nil {
			mx.Close(ctx)
			h.Up(nil, err, nil)
			return
		}
		runtime.GC()
		h.Up(a, nil, func(ctx context.Context) error { return errors.Join(a.Close(ctx), mx.Close(ctx)) })
	}()
	if err := h.Run(ctx, New(Options{Host: h, Version: "bench"}).FrontEnd(Stdio(os.Stdin, os.Stdout))); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// threadsCPU is the CPU time the threads of process pid have used so far
// (their schedstat, in nanoseconds; 0 if it cannot be read).
func threadsCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(n)
		}
	}
	return sum
}

// BenchmarkStdio100k: memex_search and memex_context on the 100k memex as
// a client in another process sees them, as Claude Code or Codex run
// `pp-lsp mcp`: the server is a child process (serveChild) on the stdio
// transport, and only its own garbage is its collector's. The queries and
// places are those of BenchmarkSearch100k and BenchmarkContext100k; the
// CPU figures are the server process's.
func BenchmarkStdio100k(b *testing.B) {
	ctx := context.Background()
	g := generate100k(b)
	dir, err := filepath.EvalSymlinks(b.TempDir())
	require.NoError(b, err)
	root := filepath.Join(dir, "memex")
	require.NoError(b, g.WriteDir(root))
	require.NoError(b, os.MkdirAll(filepath.Join(dir, "home"), 0o755))

	// The queries and places, from the memex read without its vectors.
	mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
	require.NoError(b, err)
	snap := mx.Snapshot()
	qs, places := queries(snap, 512), placesIn(snap, 512)
	require.NoError(b, mx.Close(ctx))
	snap, mx = nil, nil
	runtime.GC()

	cmd := testenv.ChildCommand(b, "mcp-server", nil, dir, root)
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(b, err)
	b.Cleanup(func() { cs.Close() })
	// The first call waits for the server's memex.
	require.NoError(b, callErr(cs.CallTool(ctx, &sdk.CallToolParams{Name: "memex_search", Arguments: map[string]any{"query": qs[0]}})))

	server := func() time.Duration { return threadsCPU(cmd.Process.Pid) }
	b.Run("search", func(b *testing.B) {
		measureCPU(b, server, func(i int) error {
			return callErr(cs.CallTool(ctx, &sdk.CallToolParams{Name: "memex_search", Arguments: map[string]any{"query": qs[i%len(qs)]}}))
		})
	})
	b.Run("context", func(b *testing.B) {
		measureCPU(b, server, func(i int) error {
			p := places[i%len(places)]
			return callErr(cs.CallTool(ctx, &sdk.CallToolParams{Name: "memex_context", Arguments: map[string]any{"file": p.file, "line": p.line}}))
		})
	})
}
