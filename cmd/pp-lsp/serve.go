package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"

	"pp-lsp/server/agent"
	"pp-lsp/server/bridge"
	"pp-lsp/server/host"
)

// runServe is `pp-lsp serve --tcp ADDR [--root DIR]... [--allow-remote]`:
// the framed-TCP daemon alone (DESIGN §2, §9), until SIGINT or SIGTERM.
// Once it listens it says where, on stderr: with port 0 that line is the
// only place the port is told.
func runServe(ctx context.Context, c *cli, args []string) error {
	fs := newFlagSet("serve", "pp-lsp serve --tcp ADDR [--root DIR]... [--allow-remote]")
	addr := fs.String("tcp", "", "`HOST:PORT` to listen on, loopback only unless --allow-remote (port 0 picks a free port)")
	roots := fs.rootFlag("")
	allowRemote := fs.Bool("allow-remote", false, "allow a non-loopback ADDR; clients still need the token, but nothing on the wire is encrypted")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	if *addr == "" {
		return usageErrorf("--tcp ADDR is required, e.g. --tcp 127.0.0.1:7655")
	}
	if err := checkTCPAddr(*addr, *allowRemote, remoteHint); err != nil {
		return err
	}
	a, err := agent.Open(ctx, agent.Setup{Roots: *roots, Getenv: c.getenv, Logger: log, Serve: true})
	if err != nil {
		return err
	}
	// The bridge is the one front end; the host runs the agent's
	// heartbeat and closes the agent when the bridge stops.
	h := host.New(log)
	h.Up(a, nil, a.Close)
	srv, ln, err := bridge.Open(ctx, *addr, *allowRemote, c.getenv, bridge.Config{
		Backend: bridge.ForHost(h),
		Version: version,
		Logger:  log,
	})
	if err != nil {
		h.Close(context.WithoutCancel(ctx))
		return listenError(*addr, err, remoteHint)
	}
	token, _ := bridge.TokenPath(c.getenv)
	fmt.Fprintf(c.stderr, "pp-lsp serve: serving %s on %s (clients read the token from %s)\n", rootList(*roots), ln.Addr(), token)
	return h.Run(ctx, bridge.FrontEnd(srv, ln))
}

// remoteHint is what serve's errors say about a non-loopback address.
const remoteHint = "--allow-remote allows it"

// checkTCPAddr checks a --tcp value before anything is opened: HOST:PORT
// with a port number, and, unless allowRemote, a literal address on
// loopback (a host name is resolved, and checked, by bridge.Listen).
func checkTCPAddr(addr string, allowRemote bool, hint string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("--tcp: %q is not HOST:PORT, e.g. 127.0.0.1:7655", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return usageErrorf("--tcp: %q has no port number from 0 to 65535 after the colon", addr)
	}
	if strings.ContainsAny(host, " /") {
		return usageErrorf("--tcp: %q is not HOST:PORT, e.g. 127.0.0.1:7655", addr)
	}
	if ip := net.ParseIP(host); !allowRemote && (host == "" || ip != nil && !ip.IsLoopback()) {
		return listenError(addr, bridge.ErrNotLoopback, hint)
	}
	return nil
}

// listenError words a failure to listen on addr. An address that is not
// this machine's, or not loopback, is bad input; a port in use is a
// failed operation.
func listenError(addr string, err error, remoteHint string) error {
	var dns *net.DNSError
	switch {
	case errors.Is(err, bridge.ErrNotLoopback):
		host, _, _ := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			return usageErrorf("--tcp: %s listens on every interface, not only this machine's loopback (%s)", addr, remoteHint)
		}
		return usageErrorf("--tcp: %s is not on this machine's loopback (%s)", addr, remoteHint)
	case errors.As(err, &dns):
		return usageErrorf("--tcp: cannot listen on %s: the host %q is not known", addr, dns.Name)
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("cannot listen on %s: the port is in use (another pp-lsp serve?); pick another port, or 0 for any free one", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return usageErrorf("--tcp: cannot listen on %s: that is not an address of this machine", addr)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("cannot listen on %s: permission is denied (ports below 1024 need privileges)", addr)
	}
	return fmt.Errorf("cannot listen on %s: %w", addr, err)
}
