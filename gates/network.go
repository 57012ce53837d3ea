package gates

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// metadataHosts serve cloud instance credentials.
var metadataHosts = map[string]bool{
	"metadata.google.internal": true, "metadata": true, "metadata.goog": true, "instance-data": true,
	"instance-data.ec2.internal": true, "metadata.azure.com": true, "metadata.tencentyun.com": true,
}

// badHost says whether a host name or address must never be contacted:
// control characters or encoded bytes in it (parsers disagree on those),
// cloud metadata services, and the link-local range they live in.
func badHost(h string) (string, bool) {
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	for _, r := range h {
		if r < 0x20 || r == 0x7f || r == ' ' {
			return "a control character in the host name", true
		}
	}
	if strings.Contains(h, "%") {
		return "a percent-encoded byte in the host name", true
	}
	if strings.Contains(h, `\`) {
		return "a backslash in the host name", true
	}
	if metadataHosts[strings.ToLower(h)] {
		return "a cloud metadata service (instance credentials)", true
	}
	if ip, ok := looseIP(h); ok {
		switch {
		case ip.Is4() && ip.As4()[0] == 169 && ip.As4()[1] == 254:
			return "a link-local address (cloud metadata, instance credentials)", true
		case ip == netip.MustParseAddr("fd00:ec2::254") || ip == netip.MustParseAddr("100.100.100.200") || ip == netip.MustParseAddr("192.0.0.192"):
			return "a cloud metadata service (instance credentials)", true
		case ip.Is4In6() && ip.Unmap().As4()[0] == 169 && ip.Unmap().As4()[1] == 254:
			return "a link-local address (cloud metadata, instance credentials)", true
		}
	}
	return "", false
}

// looseIP parses an address the way inet_aton does too: 2852039166,
// 0xA9FEA9FE and 0251.0376.0251.0376 all name 169.254.169.254.
func looseIP(h string) (netip.Addr, bool) {
	if !strings.Contains(h, ":") && !looseIPBytes(h) {
		// A host name (example.com): no address, strict (which needs
		// a ':' or only digits and dots) or loose, is spelled so. Said
		// without building the two parsers' errors.
		return netip.Addr{}, false
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip, true
	}
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 0, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint32
	switch len(nums) {
	case 1:
		v = uint32(nums[0])
	case 2:
		v = uint32(nums[0])<<24 | uint32(nums[1]&0xffffff)
	case 3:
		v = uint32(nums[0])<<24 | uint32(nums[1]&0xff)<<16 | uint32(nums[2]&0xffff)
	case 4:
		v = uint32(nums[0])<<24 | uint32(nums[1]&0xff)<<16 | uint32(nums[2]&0xff)<<8 | uint32(nums[3]&0xff)
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b), true
}

// looseIPBytes says whether h holds only bytes an address looseIP parses
// without a ':' can hold: digits, dots, and what strconv.ParseUint in
// base 0 reads (hex digits, the 0x, 0o and 0b prefixes, underscores).
func looseIPBytes(h string) bool {
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		case c == '.', c == '_', c == 'x', c == 'X', c == 'o', c == 'O':
		default:
			return false
		}
	}
	return true
}

// urlDenies lists what makes a URL unacceptable: a scheme other than http
// or https, credentials in it, a bad host.
func (e *Env) urlDenies(raw string) []string {
	var out []string
	for _, r := range raw {
		if r < 0x20 || r == 0x7f {
			return []string{"a control character in the URL"}
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return []string{fmt.Sprintf("not a valid URL (%v)", err)}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "file":
		l := e.locate(u.Path, ".")
		if l.class == pathCredential {
			return []string{"a file:// URL to " + u.Path + ": " + l.why}
		}
		return []string{"a file:// URL reads local files, not the network"}
	default:
		return []string{fmt.Sprintf("the %q scheme is not http or https", u.Scheme)}
	}
	if u.User != nil {
		if _, hasPass := u.User.Password(); hasPass {
			out = append(out, "credentials are embedded in the URL")
		}
	}
	h := u.Hostname()
	if h == "" {
		out = append(out, "the URL has no host")
	} else if why, bad := badHost(h); bad {
		out = append(out, h+": "+why)
	}
	if strings.Contains(strings.ToLower(u.Host), "%00") || strings.Contains(strings.ToLower(raw), "%00") && strings.Contains(strings.ToLower(u.Host), "%") {
		out = append(out, "an encoded NUL in the host")
	}
	return out
}

// hostAllowed matches a host against the egress allowlist ("example.com",
// "*.example.com" — the wildcard does not match the bare domain).
func hostAllowed(allow []string, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, p := range allow {
		p = strings.ToLower(p)
		if strings.HasPrefix(p, "*.") {
			if strings.HasSuffix(host, p[1:]) {
				return true
			}
		} else if host == p {
			return true
		}
	}
	return false
}

// loopbackOrPrivate reports hosts on this machine or its network: reaching
// them is reaching services that trust their neighbours.
func loopbackOrPrivate(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	if ip == nil {
		if a, ok := looseIP(h); ok {
			ip = net.IP(a.AsSlice())
		}
	}
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast())
}

// httpVector judges the http tool: the URL, the egress allowlist, and the
// method (anything but a read needs approval even on an allowed host).
func (d *dispatcher) httpVector(_ context.Context, method, raw string, env *Env) Result {
	if denies := env.urlDenies(raw); len(denies) > 0 {
		return Denied("http: " + strings.Join(denies, "; "))
	}
	u, _ := url.Parse(raw)
	host := u.Hostname()
	method = strings.ToUpper(strings.TrimSpace(method))
	if loopbackOrPrivate(host) {
		return Asked(fmt.Sprintf("http %s reaches %s, a service on this machine or its network", method, host))
	}
	if !hostAllowed(d.cfg.Network.Allow, host) {
		if d.cfg.Network.Default == "deny" {
			return Denied(fmt.Sprintf("http: %s is not in the egress allowlist", host))
		}
		return Asked(fmt.Sprintf("http %s to %s, which is not in the egress allowlist", method, host))
	}
	switch method {
	case "GET", "HEAD", "OPTIONS":
		return Passed("")
	}
	return Asked(fmt.Sprintf("http %s changes something on %s", method, host))
}
