package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"pp-lsp/server/agent"
	"pp-lsp/server/bridge"
	"pp-lsp/server/lsp"
)

// runStdio is `pp-lsp --stdio [--tcp ADDR] [--config FILE]`: the language
// server on stdin and stdout (DESIGN §2) until the editor sends exit; with
// --tcp, the framed-TCP bridge too, serving the same memex and agent once
// the editor has said where the memex is. The listener is opened first,
// so that a busy or remote address fails at once, before any editor
// waits on the server.
func runStdio(ctx context.Context, c *cli, args []string) error {
	fs := newFlagSet("--stdio", "pp-lsp --stdio [--tcp ADDR] [--config FILE] [--log-level LEVEL]")
	stdio := fs.Bool("stdio", false, "speak the Language Server Protocol on stdin and stdout")
	addr := fs.String("tcp", "", "also serve the framed-TCP bridge on `HOST:PORT` (loopback only), sharing the memex")
	config := fs.String("config", "", "the configuration `FILE` (default $XDG_CONFIG_HOME/passepartout/config.json)")
	// Warnings and errors only by default: editors show the server's
	// stderr, and Neovim shows every line of it as an error.
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	if !*stdio {
		return usageErrorf("--tcp needs --stdio; the bridge alone is 'pp-lsp serve --tcp ADDR'")
	}
	if *config != "" {
		// Said here, once, rather than to the editor at initialize.
		if _, err := agent.ReadConfigFile(*config, false); err != nil {
			return &usageError{msg: err.Error()}
		}
	}

	var started func(context.Context, *agent.Agent) error
	if *addr != "" {
		const hint = "use 'pp-lsp serve --allow-remote' for that"
		if err := checkTCPAddr(*addr, false, hint); err != nil {
			return err
		}
		ln, err := bridge.Listen(ctx, *addr, false)
		if err != nil {
			return listenError(*addr, err, hint)
		}
		defer ln.Close()
		started = bridgeStarter(ln, c.getenv, log)
	}

	srv := lsp.New(lsp.Options{Getenv: c.getenv, ConfigFile: *config, Logger: log, Version: version, Started: started})
	// nil after shutdown and exit (status 0); lsp.ErrExitWithoutShutdown
	// otherwise, which run turns into status 1, as the specification asks.
	return srv.Serve(ctx, stdioConn{r: c.stdin, w: c.stdout})
}

// bridgeStarter starts the bridge on ln with the agent's backend once the
// language server has it: one memex for both protocols.
func bridgeStarter(ln net.Listener, getenv func(string) string, log *slog.Logger) func(context.Context, *agent.Agent) error {
	return func(ctx context.Context, a *agent.Agent) error {
		path, err := bridge.TokenPath(getenv)
		if err != nil {
			return fmt.Errorf("the bridge's token: %w", err)
		}
		token, _, err := bridge.LoadOrCreateToken(path)
		if err != nil {
			return fmt.Errorf("the bridge's token: %w", err)
		}
		srv, err := bridge.New(bridge.Config{Backend: a.Backend(), Token: token, Version: version, Logger: log})
		if err != nil {
			return fmt.Errorf("the bridge: %w", err)
		}
		go func() {
			if err := srv.Serve(ctx, ln); err != nil {
				log.Error("the bridge stopped", "err", err)
			}
		}()
		log.Info("serving the bridge beside the language server", "addr", ln.Addr().String())
		return nil
	}
}

// stdioConn joins stdin and stdout into the connection the server speaks
// on. Closing it closes stdout when it can; stdin is left to the process's
// exit (a blocked read on it cannot be interrupted).
type stdioConn struct {
	r io.Reader
	w io.Writer
}

func (s stdioConn) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdioConn) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s stdioConn) Close() error {
	if c, ok := s.w.(io.Closer); ok && s.w != os.Stderr {
		return c.Close()
	}
	return nil
}
