package main

import (
	"context"
	"io"
	"os"

	"pp-lsp/server/agent"
	"pp-lsp/server/bridge"
	"pp-lsp/server/host"
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

	// One memex and agent, brought up by the language server from its
	// editor's settings, served by every front end: the language server
	// first (its editor ends the process), and with --tcp the bridge.
	h := host.New(log)
	srv := lsp.New(lsp.Options{Getenv: c.getenv, ConfigFile: *config, Logger: log, Version: version, Host: h, ManageMemory: true})
	fronts := []host.FrontEnd{srv.FrontEnd(stdioConn{r: c.stdin, w: c.stdout})}
	if *addr != "" {
		const hint = "use 'pp-lsp serve --allow-remote' for that"
		if err := checkTCPAddr(*addr, false, hint); err != nil {
			return err
		}
		bsrv, ln, err := bridge.Open(ctx, *addr, false, c.getenv, bridge.Config{Backend: bridge.ForHost(h), Version: version, Logger: log})
		if err != nil {
			return listenError(*addr, err, hint)
		}
		log.Info("serving the bridge beside the language server", "addr", ln.Addr().String())
		fronts = append(fronts, bridge.FrontEnd(bsrv, ln))
	}
	// nil after shutdown and exit (status 0); lsp.ErrExitWithoutShutdown
	// otherwise, which run turns into status 1, as the specification asks.
	return h.Run(ctx, fronts...)
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
