package relay

import "net"

// AddrKey is what per-address limits count a peer under, from its
// host:port: the IPv4 address, or the /64 network of an IPv6 address (one
// host usually holds a whole /64). X-Forwarded-For is never used, since any
// client can set it.
func AddrKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.To4() != nil {
		return host
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}
