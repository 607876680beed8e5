package relay

import (
	"net"
	"syscall"
	"unsafe"
)

// maxIovecs is the most buffers one writev takes (the kernel's IOV_MAX).
const maxIovecs = 1024

// sockWriter makes writev calls that never wait for the socket: one per
// goroutine that writes (the fan-out's, each pool writer's), so that a write
// allocates nothing.
type sockWriter struct {
	iov   []syscall.Iovec
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool // w.writev, bound once
}

func newSockWriter() *sockWriter {
	w := &sockWriter{}
	w.fn = w.writev
	return w
}

// rawSocket is the socket under c for writes that do not wait, or nil (TLS).
func rawSocket(c net.Conn) syscall.RawConn {
	tcp, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tcp.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

func (w *sockWriter) writev(fd uintptr) bool {
	for {
		r, _, e := syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&w.iov[0])), uintptr(len(w.iov)))
		if e == syscall.EINTR {
			continue
		}
		w.n, w.errno = int(r), e
		return true // done either way: never wait for room
	}
}

// write writes what the socket takes of bufs at once and returns how many
// bytes that was: fewer than len(bufs) holds when its send buffer is full.
// It never waits and never sets a deadline.
func (w *sockWriter) write(rc syscall.RawConn, bufs [][]byte) (int, error) {
	total := 0
	defer func() { clear(w.iov[:cap(w.iov)]) }() // keep no frame alive
	for len(bufs) > 0 {
		w.iov = w.iov[:0]
		want := 0
		k := min(len(bufs), maxIovecs)
		for _, b := range bufs[:k] {
			if len(b) == 0 {
				continue
			}
			v := syscall.Iovec{Base: &b[0]}
			v.SetLen(len(b))
			w.iov = append(w.iov, v)
			want += len(b)
		}
		bufs = bufs[k:]
		if want == 0 {
			continue
		}
		if err := rc.Write(w.fn); err != nil {
			return total, err
		}
		switch w.errno {
		case 0:
		case syscall.EAGAIN:
			return total, nil
		default:
			return total, w.errno
		}
		total += w.n
		if w.n < want {
			return total, nil
		}
	}
	return total, nil
}
