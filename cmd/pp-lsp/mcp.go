package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"pp-lsp/server/agent"
	"pp-lsp/server/host"
	"pp-lsp/server/mcp"
)

// runMCP is `pp-lsp mcp [--root DIR]... [--config FILE] [--rescan SECONDS]`: the Model Context Protocol on
// stdin and stdout (DESIGN §16) until the client closes stdin, or SIGINT
// or SIGTERM. The server answers at once; the memex is read in the
// background, as the language server reads it (the same set-up, data dir,
// journal and Flight Plans), and calls wait for it with progress.
func runMCP(ctx context.Context, c *cli, args []string) error {
	fs := newFlagSet("mcp", "pp-lsp mcp [--root DIR]... [--config FILE] [--rescan SECONDS]")
	roots := fs.rootFlag("")
	config := fs.String("config", "", "the configuration `FILE` (default $XDG_CONFIG_HOME/passepartout/config.json)")
	rescan := fs.Int("rescan", int(mcp.DefaultRescan/time.Second), "`SECONDS` between readings of the roots for what other programs changed")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	if *config != "" {
		if _, err := agent.ReadConfigFile(*config, false); err != nil {
			return &usageError{msg: err.Error()}
		}
	}
	if *rescan < 1 {
		return usageErrorf("--rescan: %d is not a number of seconds (1 or more)", *rescan)
	}
	for _, r := range *roots {
		switch fi, err := os.Stat(r); {
		case errors.Is(err, os.ErrNotExist):
			return usageErrorf("--root %s does not exist", r)
		case err != nil:
			return usageErrorf("--root %s cannot be read", r)
		case !fi.IsDir():
			return usageErrorf("--root %s is not a folder", r)
		}
	}
	h := host.New(log)
	var done, total atomic.Int64
	srv := mcp.New(mcp.Options{Host: h, Version: version, Logger: log, Rescan: time.Duration(*rescan) * time.Second,
		Progress: func() (int, int) { return int(done.Load()), int(total.Load()) }})
	go func() {
		setup := agent.Setup{Roots: *roots, ConfigFile: *config, Getenv: c.getenv, Logger: log, Serve: true,
			Progress: func(d, n int) { done.Store(int64(d)); total.Store(int64(n)) }}
		mx, err := agent.OpenMemex(ctx, setup)
		if err != nil {
			h.Up(nil, fmt.Errorf("pp-lsp could not open the memex: %w", err), nil)
			return
		}
		setup.Memex, setup.Progress = mx, nil
		a, err := agent.Open(ctx, setup)
		if err != nil {
			mx.Close(context.WithoutCancel(ctx))
			h.Up(nil, fmt.Errorf("pp-lsp could not start its agent: %w", err), nil)
			return
		}
		h.Up(a, nil, func(ctx context.Context) error {
			return errors.Join(a.Close(ctx), mx.Close(ctx))
		})
	}()
	return h.Run(ctx, srv.FrontEnd(mcp.Stdio(c.stdin, c.stdout)))
}
