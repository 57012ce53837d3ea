package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"pp-lsp/server/agent"
	"pp-lsp/server/bridge"
)

// runServe is `pp-lsp serve --tcp ADDR [--root DIR]... [--allow-remote]`:
// the framed-TCP daemon alone (DESIGN §2, §9), until SIGINT or SIGTERM.
func runServe(ctx context.Context, c *cli, args []string) error {
	fl := newFlagSet("serve", "pp-lsp serve --tcp ADDR [--root DIR]... [--allow-remote]", c.stderr)
	addr := fl.String("tcp", "", "HOST:PORT to listen on, loopback only unless --allow-remote (port 0 picks a free port)")
	var roots stringList
	fl.Var(&roots, "root", "a memex root directory (repeatable; default the current directory)")
	allowRemote := fl.Bool("allow-remote", false, "allow a non-loopback ADDR; clients still need the token, but nothing on the wire is encrypted")
	if err := parseFlags(fl, args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return usageErrorf("serve: unexpected argument %q", fl.Arg(0))
	}
	if *addr == "" {
		return usageErrorf("serve: --tcp ADDR is required, e.g. --tcp 127.0.0.1:7655")
	}
	if len(roots) == 0 {
		roots = stringList{"."}
	}
	for _, r := range roots {
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			return usageErrorf("serve: --root %s is not a directory", r)
		}
	}
	log := slog.New(slog.NewTextHandler(c.stderr, nil))
	a, err := agent.Open(ctx, agent.Setup{Roots: roots, Getenv: c.getenv, Logger: log, Serve: true})
	switch {
	case errors.Is(err, agent.ErrUsage):
		return &usageError{msg: "serve: " + err.Error()}
	case err != nil:
		return fmt.Errorf("serve: %w", err)
	}
	defer a.Close(context.WithoutCancel(ctx))

	srv, ln, err := bridge.Open(ctx, *addr, *allowRemote, c.getenv, bridge.Config{
		Backend: a.Backend(),
		Version: version,
		Logger:  log,
	})
	if errors.Is(err, bridge.ErrNotLoopback) {
		return usageErrorf("serve: %v (--allow-remote allows it)", err)
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	go a.Heartbeat(ctx)
	log.Info("serving the memex", "roots", []string(roots), "addr", ln.Addr().String())
	return srv.Serve(ctx, ln)
}
