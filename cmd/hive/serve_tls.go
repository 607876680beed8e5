package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/ainb/hive/client/tlspin"
)

// serverTLS returns the hub's TLS configuration and pin from the flags, or
// nil for plain ws, which is refused on a non-loopback address unless
// --insecure-plaintext says a TLS proxy is in front.
func serverTLS(f serveFlags, d dataDir) (*tls.Config, string, error) {
	var cert tls.Certificate
	var pin string
	var err error
	switch {
	case f.tls != "" && f.tls != "self-signed":
		return nil, "", usageErrorf("--tls %q: the only value is self-signed (or give --tls-cert and --tls-key)", f.tls)
	case f.tls != "" && (f.tlsCert != "" || f.tlsKey != ""):
		return nil, "", usageErrorf("--tls self-signed and --tls-cert/--tls-key conflict: give one")
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return nil, "", usageErrorf("--tls-cert and --tls-key go together")
	case f.tls == "self-signed":
		cert, pin, err = tlspin.SelfSigned(string(d), tlspin.Hosts(f.addr, f.publicURLs), time.Now())
	case f.tlsCert != "":
		cert, pin, err = tlspin.LoadPair(f.tlsCert, f.tlsKey)
	default:
		if !loopback(f.addr) && !f.plaintext {
			return nil, "", usageErrorf("refusing plain ws on %s, which is not a loopback address: use --tls self-signed, --tls-cert/--tls-key, or --insecure-plaintext behind a TLS reverse proxy", f.addr)
		}
		return nil, "", nil
	}
	if err != nil {
		return nil, "", exitWith(exitUsage, fmt.Errorf("TLS: %w", err))
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, pin, nil
}

// loopback reports whether addr (host:port) listens on loopback only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
