package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// ErrNotLoopback is matched (errors.Is) when an address would listen beyond
// this machine and remote listening was not asked for.
var ErrNotLoopback = errors.New("not a loopback address")

// Listen opens the daemon's TCP listener on addr (host:port; port 0 picks a
// free one). Unless allowRemote is set, addr must stay on this machine: an
// empty host (every interface) or a non-loopback IP is refused before
// binding, and a host name is refused after binding if it resolved to a
// non-loopback address. Token auth protects the protocol either way, but
// nothing on the wire is encrypted, so remote listening is opt-in.
func Listen(ctx context.Context, addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("the address %q is not HOST:PORT: %w", addr, err)
	}
	if !allowRemote {
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			return nil, fmt.Errorf("the address %q listens on every interface; give a loopback host (127.0.0.1:PORT) or allow remote clients explicitly: %w", addr, ErrNotLoopback)
		}
		if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
			return nil, fmt.Errorf("the address %q is not on this machine's loopback; allow remote clients explicitly to use it: %w", addr, ErrNotLoopback)
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	if !allowRemote {
		if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
			ln.Close()
			return nil, fmt.Errorf("the host in %q resolved to %s, which is not loopback; allow remote clients explicitly to use it: %w", addr, ln.Addr(), ErrNotLoopback)
		}
	}
	return ln, nil
}
