//go:build !linux

package relay

import "net"

// Listener returns ln as it is: outside Linux the pending caps are applied
// by ConnState alone, after the HTTP server accepted the connection.
func (r *Relay) Listener(ln net.Listener) net.Listener { return ln }
