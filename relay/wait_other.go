//go:build !linux

package relay

import "net"

// waitReadable returns at once where sockets cannot be peeked at here: the
// read that follows waits instead, on a goroutine that stays until a message
// arrives.
func waitReadable(net.Conn) error { return nil }
