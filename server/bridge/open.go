package bridge

import (
	"context"
	"fmt"
	"net"
)

// Open does what serving on a TCP address needs before Serve, for `pp-lsp
// serve --tcp ADDR` and `pp-lsp --stdio --tcp ADDR` alike: it loads or
// creates the token at TokenPath(getenv), opens the listener on addr
// (loopback unless allowRemote; see Listen) and makes the Server from cfg with
// that token. The caller then runs srv.Serve(ctx, ln), which closes ln.
func Open(ctx context.Context, addr string, allowRemote bool, getenv func(string) string, cfg Config) (*Server, net.Listener, error) {
	path, err := TokenPath(getenv)
	if err != nil {
		return nil, nil, err
	}
	// The address first: a mistyped one should not leave a token behind.
	ln, err := Listen(ctx, addr, allowRemote)
	if err != nil {
		return nil, nil, fmt.Errorf("the bridge cannot listen: %w", err)
	}
	tok, created, err := LoadOrCreateToken(path)
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	cfg.Token = tok
	srv, err := New(cfg)
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	if created {
		srv.log.Info("bridge token created", "file", path)
	} else {
		srv.log.Info("bridge token in use", "file", path)
	}
	return srv, ln, nil
}
