//go:build !linux

package relay

import (
	"net"
	"syscall"
)

// sockWriter writes without waiting on Linux only: elsewhere rawSocket
// reports no socket, and every batch takes writeSlow's path.
type sockWriter struct{}

func newSockWriter() *sockWriter { return &sockWriter{} }

func rawSocket(net.Conn) syscall.RawConn { return nil }

func (w *sockWriter) write(syscall.RawConn, [][]byte) (int, error) {
	return 0, nil
}
