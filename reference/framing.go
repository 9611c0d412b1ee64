package reference

// The refusal of a request with two lengths: RFC 9112 section 6.1.
//
// A request with both Content-Length and Transfer-Encoding states its length
// twice. A proxy in front of this server may go by one and the server by the
// other. The bytes they disagree about can then hide a second request that
// the proxy never saw, which is request smuggling (RFC 9112 section 11.2).
// Section 6.1 lets a server refuse such a request, and requires it to close
// the connection after answering either way. This server refuses it with its
// one error response, a 400 with an Error record, and then closes.
//
// This can't be checked in a handler. net/http (as of Go 1.26) does not
// refuse such a request. For HTTP/1.1 it frames the body by Transfer-Encoding
// and deletes both fields from Request.Header. The handler then sees what it
// sees for a chunked request without Content-Length: TransferEncoding
// ["chunked"] and ContentLength -1. net/http also keeps the connection open
// and reads the next request from where the chunked body ended. For HTTP/1.0
// it ignores Transfer-Encoding, deletes it, and frames the body by
// Content-Length. Either way, no trace reaches the handler.
//
// So the check sits in front of net/http, on the connection. Serve wraps
// each connection in a guardConn. That collects each request's whole header
// section before net/http sees any of it, and looks for the two fields. A
// request with only one of them goes on unchanged, byte for byte. A request
// with both is not passed on at all: net/http sees the stream end just before
// it, answers the requests that came before, and closes the connection. The
// close is when guardConn sends the refusal. To know where each request ends
// (and so where the next header section starts), guardConn runs net/http's own
// request parser (http.ReadRequest) on the same bytes. Its framing therefore
// can't differ from the server's. When it can't frame a request either, it
// passes on what it has read and then ends the stream, so nothing after a
// request it couldn't frame is ever parsed as a request.
//
// The guard only covers servers started with Serve. A handler served in some
// other way is not protected, and it can't protect itself.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// refusalWriteTimeout bounds the writing of the refusal to a client
	// that does not read it.
	refusalWriteTimeout = 5 * time.Second
	// lingerTimeout is how long the connection is kept half-closed after
	// the refusal, reading what the client still sends (as net/http itself
	// waits 500ms after some errors): closing a socket with unread bytes
	// resets the connection, and the client could lose the refusal.
	lingerTimeout = 500 * time.Millisecond
)

// guard returns ln with each connection it accepts guarded against requests
// with both Content-Length and Transfer-Encoding. The guard holds a whole
// header section before net/http sees it. So its buffer is sized to hold the
// longest one srv accepts: MaxHeaderBytes, plus the 4096 bytes of slack
// net/http allows, plus up to 4096 that net/http may have read ahead before
// it starts counting.
func guard(ln net.Listener, srv *http.Server) net.Listener {
	limit := srv.MaxHeaderBytes
	if limit <= 0 {
		limit = http.DefaultMaxHeaderBytes
	}
	return guardListener{Listener: ln, bufSize: limit + 16<<10}
}

type guardListener struct {
	net.Listener
	bufSize int
}

func (l guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	g := &guardConn{Conn: c, scratch: make([]byte, 4<<10)}
	// Every byte read from the client is kept in raw until net/http has
	// read it. That way what net/http reads is exactly what the client sent.
	g.in = bufio.NewReaderSize(io.TeeReader(c, &g.raw), l.bufSize)
	return g, nil
}

// guardConn is a client connection as net/http sees it, through the guard.
// net/http never calls Read from two goroutines at once, so only the fields
// Close also uses need to be safe for concurrent use.
type guardConn struct {
	net.Conn
	in      *bufio.Reader // the client's bytes, as the guard frames them
	raw     bytes.Buffer  // bytes read from the client, not yet passed on
	body    io.Reader     // the current request's body; nil between requests
	scratch []byte        // where the guard reads bodies, to throw them away
	done    bool          // pass nothing more on: net/http sees the end

	refused   atomic.Bool // a request had both lengths: Close refuses it
	closeOnce sync.Once
	closeErr  error
}

// Read passes on to net/http the bytes the guard has framed. When there are
// none left, it frames the next bit of the stream.
func (g *guardConn) Read(p []byte) (int, error) {
	for {
		// raw holds the bytes read from the client. The last Buffered() of
		// them are still in `in`, not framed yet. The ones before are
		// framed.
		if framed := g.raw.Len() - g.in.Buffered(); framed > 0 {
			return g.raw.Read(p[:min(len(p), framed)])
		}
		if g.done {
			return 0, io.EOF
		}
		if err := g.frame(); err != nil {
			return 0, err
		}
	}
}

// frame goes one step further along the stream. That is either some of the
// current request's body or, between requests, the next header section.
func (g *guardConn) frame() error {
	if g.body != nil {
		_, err := g.body.Read(g.scratch)
		switch {
		case err == io.EOF:
			g.body = nil
		case err != nil:
			// A broken body (net/http can't read it either), a timeout or
			// a hang-up. The framing is lost, so nothing after it goes on.
			g.done = true
			return err
		}
		return nil
	}

	// An empty line before a request line is passed on as it is, a byte at
	// a time, so that endless ones are not piled up here. net/http skips a
	// few after a POST.
	b, err := g.in.Peek(1)
	if err != nil {
		return err
	}
	if b[0] == '\r' || b[0] == '\n' {
		g.in.Discard(1)
		return nil
	}

	// Wait for the whole header section, since none of it may go on
	// unchecked. Errors here (including the timeout net/http uses to cut
	// short its own wait for the next request) lose nothing: the bytes stay
	// in `in`.
	from := 0
	for {
		buf, _ := g.in.Peek(g.in.Buffered())
		if end := headerEnd(buf, from); end > 0 {
			return g.check(buf[:end])
		}
		if len(buf) == g.in.Size() {
			// Longer than net/http accepts. Pass it on so that net/http
			// answers 431 and closes the connection.
			g.in.Discard(len(buf))
			g.done = true
			return nil
		}
		from = max(len(buf)-2, 0)
		if _, err := g.in.Peek(len(buf) + 1); err != nil {
			return err
		}
	}
}

// check handles a complete header section, head, which is still in `in`.
// It refuses a request with both lengths. Any other request is read by
// net/http's own parser, which leaves `in` at the start of the body and
// returns a reader that stops where the server's will.
func (g *guardConn) check(head []byte) error {
	if hasBothLengths(head) {
		// None of it goes on. net/http sees the stream end here, answers
		// any requests before this one, and closes the connection. The
		// refusal goes out then, in Close.
		g.refused.Store(true)
		g.done = true
		return nil
	}
	before := g.in.Buffered()
	req, err := http.ReadRequest(g.in)
	if err != nil {
		// net/http rejects these same bytes (a plain-text 400) and closes
		// the connection. Pass on the header section, then nothing more.
		g.in.Discard(len(head) - (before - g.in.Buffered()))
		g.done = true
		return nil
	}
	g.body = req.Body
	return nil
}

// headerEnd returns the length of the header section at the start of b:
// up to and including the first empty line. Lines end with LF or CRLF, as
// net/http reads them. It returns 0 when b holds no empty line yet. from is
// where to start looking, so that an end already searched isn't searched
// again.
func headerEnd(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] != '\n' {
			continue
		}
		switch {
		case bytes.HasPrefix(b[i+1:], []byte("\n")):
			return i + 2
		case bytes.HasPrefix(b[i+1:], []byte("\r\n")):
			return i + 3
		}
	}
	return 0
}

// hasBothLengths reports whether a request's header section has both a
// Content-Length and a Transfer-Encoding field, whatever their values. It
// reads them with the header parser net/http uses, so field names match
// without regard to case. If the section is malformed, the fields before the
// fault count.
func hasBothLengths(head []byte) bool {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	if _, err := r.ReadLine(); err != nil { // the request line
		return false
	}
	h, _ := r.ReadMIMEHeader()
	_, length := h["Content-Length"]
	_, coding := h["Transfer-Encoding"]
	return length && coding
}

// Close sends the refusal if a request was refused, then closes the
// connection. net/http calls Close only after it has answered every request
// before the refused one, so the refusal comes after their responses.
func (g *guardConn) Close() error {
	g.closeOnce.Do(func() {
		if g.refused.Load() {
			g.Conn.SetWriteDeadline(time.Now().Add(refusalWriteTimeout))
			g.Conn.Write(refusal())
			if cw, ok := g.Conn.(interface{ CloseWrite() error }); ok {
				cw.CloseWrite()
				g.Conn.SetReadDeadline(time.Now().Add(lingerTimeout))
				io.Copy(io.Discard, g.Conn)
			}
		}
		g.closeErr = g.Conn.Close()
	})
	return g.closeErr
}

// CloseWrite passes on net/http's half-close to the client connection.
// Wrapping the connection would otherwise hide it from net/http.
func (g *guardConn) CloseWrite() error {
	if cw, ok := g.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// refusal is the whole HTTP response to a request with both lengths: a 400
// with an Error record, like every other 400 of this server, and
// "Connection: close". It is written here because no handler ever sees the
// request.
func refusal() []byte {
	row := errorTable[errAmbiguousFraming]
	body, _ := json.Marshal(errorRecord{
		Error:   row.code,
		Message: "The request has both Content-Length and Transfer-Encoding, so its length is ambiguous; it is refused and the connection closed.",
	})
	body = append(body, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nDate: %s\r\nConnection: close\r\n\r\n%s",
		row.status, http.StatusText(row.status), len(body), time.Now().UTC().Format(http.TimeFormat), body)
}
