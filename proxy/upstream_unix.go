//go:build unix

package proxy

import (
	"net"
	"syscall"
)

// stillOpen reports whether an idle connection is still open and quiet: the
// upstream has neither closed it nor sent anything on it (an HTTP/1.1
// server sends nothing unasked; what it sends while the connection idles is
// a close, or a TLS alert before one). It peeks at the socket without
// waiting, so it costs one system call and reads nothing.
func stillOpen(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && open
}
