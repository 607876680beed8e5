package relay

import (
	"net"
	"os"
	"syscall"
	"time"
)

// Listener wraps the hub's TCP listener so that a connection from an
// address that holds all its pending slots (MaxPendingPerAddr) is closed as
// it is accepted: two system calls, before the HTTP server allocates
// anything or starts a goroutine for it. However fast one address
// re-dials, the hub then takes connections off the kernel's accept queue
// faster than it can fill it, so the queue does not overflow and another
// address's connection is accepted at once (an overflowing queue drops its
// SYN, which the client sends again only after 1 s, then 3 s, ...).
// Anything that is not a *net.TCPListener is returned as it is.
func (r *Relay) Listener(ln net.Listener) net.Listener {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return ln
	}
	// A listener's own RawConn cannot wait for readability: accept on a
	// non-blocking duplicate of its descriptor, which an os.File waits on.
	lrc, err := tl.SyscallConn()
	if err != nil {
		return ln
	}
	dup, derr := -1, error(nil)
	if err := lrc.Control(func(fd uintptr) { dup, derr = syscall.Dup(int(fd)) }); err != nil || derr != nil {
		return ln
	}
	syscall.CloseOnExec(dup)
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return ln
	}
	f := os.NewFile(uintptr(dup), "listener")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return ln
	}
	return &admitListener{TCPListener: tl, f: f, rc: rc, r: r}
}

// admitListener accepts with accept4(2) itself (see Listener).
type admitListener struct {
	*net.TCPListener
	f  *os.File // the duplicate descriptor accepted on
	rc syscall.RawConn
	r  *Relay
}

// Close closes the listener and its duplicate, which ends a waiting Accept.
func (l *admitListener) Close() error {
	l.f.Close()
	return l.TCPListener.Close()
}

// Accept returns the next connection from an address under its pending
// cap, closing the others as they come.
func (l *admitListener) Accept() (net.Conn, error) {
	for {
		var nfd int
		var aerr error
		err := l.rc.Read(func(fd uintptr) bool {
			for {
				var sa syscall.Sockaddr
				nfd, sa, aerr = syscall.Accept4(int(fd), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
				switch {
				case aerr == syscall.EAGAIN:
					return false // wait until the listener is readable
				case aerr == syscall.EINTR || aerr == syscall.ECONNABORTED:
					continue
				case aerr != nil:
					return true
				}
				if l.r.pending.atCap(AddrKey(sockaddrString(sa)), l.r.cfg.MaxPendingPerAddr) {
					syscall.Close(nfd) // refused before any work
					continue
				}
				return true
			}
		})
		if err != nil {
			return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: net.ErrClosed} // the listener is closed
		}
		if aerr != nil {
			return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", aerr)}
		}
		f := os.NewFile(uintptr(nfd), "")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			continue
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetKeepAlive(true)
			tc.SetKeepAlivePeriod(15 * time.Second)
		}
		return c, nil
	}
}

// sockaddrString is an accepted peer's address as host:port.
func sockaddrString(sa syscall.Sockaddr) string {
	switch a := sa.(type) {
	case *syscall.SockaddrInet4:
		return (&net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}).String()
	case *syscall.SockaddrInet6:
		return (&net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}).String()
	}
	return ""
}
