package relay

import (
	"net"
	"syscall"
)

// waitReadable returns when c has bytes to read (or its peer closed it), or
// with the error that ended the wait (the read deadline, a closed
// connection). It reads nothing: the socket is only peeked at.
func waitReadable(c net.Conn) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil // TLS: the read itself waits
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var b [1]byte
	return rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return err != syscall.EAGAIN && err != syscall.EINTR
	})
}
