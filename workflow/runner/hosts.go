package runner

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// allowList is the runner's [http] allow_hosts: the hosts http steps may
// call. An entry is a host ("ci.example.com", "10.0.0.5", "[::1]"),
// optionally with a port ("ci.example.com:8443"), or a pattern: "*.example.com"
// (any name under example.com) or "*" (any host). A host named exactly is
// allowed whatever its address: the operator named it. A host a pattern
// admits must resolve to public addresses only; the address is checked
// where the connection is made, so a name that resolves differently the
// second time (DNS rebinding) is still refused.
type allowList struct {
	entries []hostEntry
}

type hostEntry struct {
	host    string // lower case; "*" or "*.suffix" for a pattern
	port    string // "" for any port
	pattern bool
}

// parseAllowList reads allow_hosts; a bad entry is an error naming it.
func parseAllowList(hosts []string) (allowList, error) {
	var l allowList
	for _, h := range hosts {
		e, err := parseHostEntry(h)
		if err != nil {
			return allowList{}, fmt.Errorf("http.allow_hosts: %q %v", h, err)
		}
		l.entries = append(l.entries, e)
	}
	return l, nil
}

func parseHostEntry(h string) (hostEntry, error) {
	if h == "" || strings.ContainsAny(h, "/ ?#@") {
		return hostEntry{}, fmt.Errorf("is not a host or host:port (e.g. ci.example.com, ci.example.com:8443, 10.0.0.5, *.example.com)")
	}
	host, port := strings.ToLower(h), ""
	if hp, p, err := net.SplitHostPort(host); err == nil {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return hostEntry{}, fmt.Errorf("has port %q: a port is 1-65535", p)
		}
		host, port = hp, p
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	e := hostEntry{host: host, port: port}
	switch {
	case host == "*":
		e.pattern = true
	case strings.HasPrefix(host, "*."):
		e.pattern = true
		if strings.Contains(host[2:], "*") || host[2:] == "" {
			return hostEntry{}, fmt.Errorf("is not a pattern: write *.example.com")
		}
	case strings.Contains(host, "*"):
		return hostEntry{}, fmt.Errorf("has a * inside: only a leading *. (any name under a domain) or * alone (any host)")
	}
	return e, nil
}

// admits says whether host:port (of a URL) may be called, and whether it is
// named exactly (then any address is allowed).
func (l allowList) admits(host, port string) (ok, exact bool) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, e := range l.entries {
		if e.port != "" && e.port != port {
			continue
		}
		switch {
		case !e.pattern && e.host == host:
			return true, true
		case e.host == "*", e.pattern && strings.HasSuffix(host, e.host[1:]):
			ok = true
		}
	}
	return ok, false
}

func (l allowList) String() string {
	if len(l.entries) == 0 {
		return "none"
	}
	var s []string
	for _, e := range l.entries {
		h := e.host
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		if e.port != "" {
			h += ":" + e.port
		}
		s = append(s, h)
	}
	return strings.Join(s, ", ")
}

// nonPublic names the kind of address a is when it is not a public
// unicast address ("" when it is).
func nonPublic(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "a link-local address"
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return "a reserved address"
		}
	}
	return ""
}

// reserved are non-public ranges netip has no predicate for: "this
// network", shared address space (CGNAT), benchmarking, and IPv4's
// reserved block.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

// refusedAddr is a dial refused for its address.
type refusedAddr struct {
	host string
	addr netip.Addr
	kind string
}

func (e *refusedAddr) Error() string {
	what := fmt.Sprintf("%s resolves to %s, %s", e.host, e.addr, e.kind)
	if a, err := netip.ParseAddr(e.host); err == nil && a.Unmap() == e.addr {
		what = fmt.Sprintf("%s is %s", e.host, e.kind)
	}
	return what + ": only a host listed in the runner's [http] allow_hosts by itself (not by a pattern like *) may reach one"
}

// dialer connects to the address a URL's host resolves to, checking each
// address it connects to (not only the name) unless the host is listed
// exactly.
func (l allowList) dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		_, exact := l.admits(host, port)
		d := net.Dialer{}
		if !exact {
			d.Control = func(_, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil {
					return err
				}
				if k := nonPublic(ap.Addr()); k != "" {
					return &refusedAddr{host: host, addr: ap.Addr().Unmap(), kind: k}
				}
				return nil
			}
		}
		return d.DialContext(ctx, network, addr)
	}
}
