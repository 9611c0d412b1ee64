package client

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// Fault is how a connection failed before any byte of its answer came:
// what a retry on a fresh connection may cure, and what a failure names.
type Fault int

const (
	NoFault Fault = iota
	Refused       // the connection was refused
	Reset         // the target reset the connection
	Closed        // the target closed the connection with no answer
)

func (f Fault) String() string {
	return [...]string{"not a connection fault", "refused", "reset", "closed with no answer"}[f]
}

// FaultOf says which connection fault err is, from an exchange that got no
// status line (NoFault for anything else: a time limit, a name that does
// not resolve, TLS).
func FaultOf(err error) Fault {
	var ne net.Error
	switch {
	case err == nil, errors.As(err, &ne) && ne.Timeout():
		return NoFault
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED):
		return Reset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE),
		// net/http keeps this sentinel unexported (golang/go#19943): a
		// keep-alive connection the target closed as the request went.
		strings.HasSuffix(err.Error(), "http: server closed idle connection"),
		// net/http closes its side of a kept-alive connection when it reads
		// the target's close while it still writes the request (a body of a
		// megabyte on a connection closed after a 400): the write then
		// fails on a closed connection.
		errors.Is(err, net.ErrClosed):
		return Closed
	}
	return NoFault
}
