package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The proxy's own server for the common case, beside net/http's. Most
// exchanges through a proxy are small requests, each whole in one packet,
// and on such traffic net/http's server spends as much CPU as the rest of
// the proxy: a context, a goroutine and a background read on every
// request, three deadlines, a header map built field by field, a response
// writer that sniffs and dates. The lean server reads each request into a
// buffer of its own, takes those of a strict subset of HTTP/1.1 that are
// whole in it (leanhead.go) and serves them with the same Handler, through
// a response writer that frames the answer as net/http would (a
// Content-Length when the length is known, chunks otherwise), in one write
// when it can.
//
// Any other request (one outside the subset, one longer than the buffer,
// anything malformed) hands its connection over to net/http, with the bytes
// read so far: net/http reads them again from the start and serves that
// connection from then on. So the subset only has to be taken right, never
// refused right; FuzzLeanHead and TestLeanMatchesNetHTTP hold it to
// net/http.

// leanBufSize is the buffer each lean connection reads into: a request
// whose head and body do not fit goes to net/http.
const leanBufSize = 8 << 10

var (
	leanBufs    = sync.Pool{New: func() any { b := make([]byte, leanBufSize); return &b }}
	leanWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 4<<10) }}
	leanBodies  = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}
)

// leanServer serves a listener's connections: each by itself while its
// requests are of the subset, then through srv.
type leanServer struct {
	h       *Handler
	srv     *http.Server // the connections handed over
	handoff *connListener

	mu      sync.Mutex
	conns   map[*leanConn]struct{}
	closing bool
	wg      sync.WaitGroup // the lean connections alive
}

func newLeanServer(h *Handler, srv *http.Server, addr net.Addr) *leanServer {
	return &leanServer{
		h:       h,
		srv:     srv,
		handoff: &connListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})},
		conns:   map[*leanConn]struct{}{},
	}
}

// serve accepts connections on ln until it is closed; it returns
// http.ErrServerClosed after a shutdown, as http.Server.Serve does.
func (s *leanServer) serve(ln net.Listener) error {
	handed := make(chan error, 1)
	go func() { handed <- s.srv.Serve(s.handoff) }()
	defer func() { <-handed }()
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return http.ErrServerClosed
			}
			var te interface{ Temporary() bool }
			if errors.As(err, &te) && te.Temporary() {
				// Out of descriptors, say: wait, as net/http does.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			s.handoff.Close()
			return err
		}
		delay = 0
		lc := &leanConn{s: s, c: c, idle: true, remote: c.RemoteAddr().String()}
		lc.ctx, lc.cancel = context.WithCancel(context.Background())
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			c.Close()
			continue
		}
		s.conns[lc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go lc.serve()
	}
}

// shutdown stops accepting, closes the idle connections, and waits until
// every exchange in flight has ended, or ctx does.
func (s *leanServer) shutdown(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	s.closing = true
	for lc := range s.conns {
		if lc.idle {
			lc.c.Close()
		}
	}
	s.mu.Unlock()
	ln.Close()
	s.handoff.Close()
	handed := make(chan error, 1)
	go func() { handed <- s.srv.Shutdown(ctx) }()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		<-handed
		return ctx.Err()
	}
	return <-handed
}

func (s *leanServer) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// close closes every connection at once.
func (s *leanServer) close() {
	s.srv.Close()
	s.mu.Lock()
	s.closing = true
	for lc := range s.conns {
		lc.cancel()
		lc.c.Close()
	}
	s.mu.Unlock()
}

// leanConn is one connection the lean server serves.
type leanConn struct {
	s          *leanServer
	c          net.Conn
	ctx        context.Context
	cancel     context.CancelFunc
	buf        []byte
	bufp       *[]byte
	start, end int  // the bytes read and not yet served
	idle       bool // waiting for a whole request; guarded by s.mu
	body       leanBody
	w          leanWriter
	remote     string // the client's address, as net/http gives it
}

// setIdle marks the connection idle or busy; false means the server is
// closing, and the connection must end.
func (lc *leanConn) setIdle(idle bool) bool {
	lc.s.mu.Lock()
	defer lc.s.mu.Unlock()
	lc.idle = idle
	return !lc.s.closing
}

func (lc *leanConn) finish() {
	lc.cancel()
	if lc.bufp != nil {
		leanBufs.Put(lc.bufp)
		lc.bufp, lc.buf = nil, nil
	}
	lc.s.mu.Lock()
	delete(lc.s.conns, lc)
	lc.s.mu.Unlock()
	lc.s.wg.Done()
}

// fill reads more of the connection into the buffer.
func (lc *leanConn) fill() bool {
	if lc.start > 0 && lc.end == len(lc.buf) {
		lc.end = copy(lc.buf, lc.buf[lc.start:lc.end])
		lc.start = 0
	}
	n, err := lc.c.Read(lc.buf[lc.end:])
	lc.end += n
	return err == nil || n > 0
}

func (lc *leanConn) serve() {
	defer lc.finish()
	lc.bufp = leanBufs.Get().(*[]byte)
	lc.buf = *lc.bufp
	for first := true; ; first = false {
		if lc.start == lc.end {
			// Wait for the next request: the first within the header
			// time, as net/http does; the others within the idle time.
			lc.start, lc.end = 0, 0
			wait := idleTimeout
			if first {
				wait = readHeaderTimeout
			}
			lc.c.SetReadDeadline(time.Now().Add(wait))
			if !lc.fill() {
				lc.c.Close()
				return
			}
		}
		hd, st := readLeanHead(lc.buf[lc.start:lc.end])
		for waited := false; st == headMore; {
			if lc.start == 0 && lc.end == len(lc.buf) {
				break // longer than the buffer: net/http's
			}
			if !waited {
				// A head begun: it must end within the header time.
				lc.c.SetReadDeadline(time.Now().Add(readHeaderTimeout))
				waited = true
			}
			if !lc.fill() {
				lc.c.Close()
				return
			}
			hd, st = readLeanHead(lc.buf[lc.start:lc.end])
		}
		need := hd.size + int(hd.contentLength)
		if st != headTaken || need > len(lc.buf) {
			lc.handOff()
			return
		}
		if lc.end-lc.start < need {
			// The body is to come: as net/http, no time limit.
			lc.c.SetReadDeadline(time.Time{})
			for lc.end-lc.start < need {
				if !lc.fill() {
					lc.s.h.tally.gone() // as the handler counts a body that breaks off
					lc.c.Close()
					return
				}
			}
		}
		if !lc.setIdle(false) {
			lc.c.Close()
			return
		}
		keep := lc.exchange(&hd, lc.buf[lc.start+hd.size:lc.start+need])
		lc.start += need
		if !keep || !lc.setIdle(true) {
			lc.c.Close()
			return
		}
	}
}

// exchange serves one request; it returns whether the connection may go on.
func (lc *leanConn) exchange(hd *leanHead, body []byte) (keep bool) {
	r := &http.Request{
		Method:        hd.method,
		URL:           hd.url,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        hd.header,
		ContentLength: hd.contentLength,
		Host:          hd.host,
		RemoteAddr:    lc.remote,
		RequestURI:    hd.target,
		Close:         hd.close,
		Body:          http.NoBody,
	}
	if len(body) > 0 {
		lc.body.reset(body)
		r.Body = &lc.body
		defer lc.body.detach()
	}
	r = r.WithContext(lc.ctx)
	w := &lc.w
	w.reset(lc.c, r.Method, hd.close, lc.s)
	defer w.release()
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				const size = 64 << 10
				buf := make([]byte, size)
				buf = buf[:runtime.Stack(buf, false)]
				lc.s.srv.ErrorLog.Printf("panic serving %v: %v\n%s", r.RemoteAddr, p, buf)
			}
			w.abort()
			keep = false
		}
	}()
	lc.s.h.ServeHTTP(w, r)
	return w.finish()
}

// handOff gives the connection, and what was read of it, to net/http.
func (lc *leanConn) handOff() {
	pre := append([]byte(nil), lc.buf[lc.start:lc.end]...)
	lc.c.SetReadDeadline(time.Time{})
	if !lc.s.handoff.deliver(&prefixConn{Conn: lc.c, pre: pre}) {
		lc.c.Close()
	}
}

// prefixConn is a connection whose first bytes were already read: they are
// read again first.
type prefixConn struct {
	net.Conn
	pre []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.pre) > 0 {
		n := copy(b, p.pre)
		p.pre = p.pre[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// CloseWrite lets net/http half-close the connection, as it does a TCP one.
func (p *prefixConn) CloseWrite() error {
	if cw, ok := p.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// connListener is the listener net/http serves the handed-over
// connections from.
type connListener struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }

// deliver hands c to net/http; false when it no longer takes any.
func (l *connListener) deliver(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

// leanBody is a request body already in the connection's buffer. Once the
// exchange is over it is detached: a read then fails, since the buffer
// goes on to the next request (a transport may read a body after its
// answer came).
type leanBody struct {
	mu   sync.Mutex
	b    []byte
	done bool
}

func (b *leanBody) reset(p []byte) {
	b.mu.Lock()
	b.b, b.done = p, false
	b.mu.Unlock()
}

func (b *leanBody) detach() {
	b.mu.Lock()
	b.b, b.done = nil, true
	b.mu.Unlock()
}

func (b *leanBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return 0, errors.New("read on a finished request's body")
	}
	if len(b.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.b)
	b.b = b.b[n:]
	return n, nil
}

func (b *leanBody) Close() error { return nil }

// leanWriter is the lean server's http.ResponseWriter. It frames the answer
// as net/http's does: the handler's fields sorted by name, a Content-Length
// the handler set, or one counted when the whole body was written before
// anything was flushed, chunks otherwise (with the trailers the handler
// declared); no body for HEAD, 1xx, 204 and 304. Unlike net/http's, it adds
// no Date and sniffs no Content-Type (the proxy asks net/http for neither).
type leanWriter struct {
	bw        *bufio.Writer
	header    http.Header
	method    string
	status    int
	close     bool // Connection: close
	wrote     bool // WriteHeader was called
	committed bool // the head is written
	noBody    bool
	chunked   bool
	length    int64 // the declared length; -1 none
	written   int64
	body      *[]byte // what was written before the head
	trailers  []string
	err       error
	srv       *leanServer // whose closing ends the connection
}

func (w *leanWriter) reset(c io.Writer, method string, close bool, srv *leanServer) {
	if w.header == nil {
		w.header = make(http.Header, 8)
	}
	clear(w.header)
	*w = leanWriter{header: w.header, method: method, close: close, length: -1, srv: srv}
	w.bw = leanWriters.Get().(*bufio.Writer)
	w.bw.Reset(c)
	w.body = leanBodies.Get().(*[]byte)
}

func (w *leanWriter) release() {
	if w.bw != nil {
		w.bw.Reset(nil)
		leanWriters.Put(w.bw)
		w.bw = nil
	}
	if w.body != nil {
		*w.body = (*w.body)[:0]
		leanBodies.Put(w.body)
		w.body = nil
	}
	w.trailers = nil
}

func (w *leanWriter) Header() http.Header { return w.header }

func (w *leanWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	w.wrote = true
	w.status = code
	w.noBody = w.method == http.MethodHead || (code >= 100 && code < 200) || code == http.StatusNoContent || code == http.StatusNotModified
}

func (w *leanWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.noBody {
		return len(p), nil
	}
	if !w.committed {
		if len(*w.body)+len(p) <= cap(*w.body) {
			*w.body = append(*w.body, p...)
			return len(p), nil
		}
		w.commit(false)
	}
	return w.writeBody(p)
}

// writeBody writes body bytes after the head.
func (w *leanWriter) writeBody(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, w.err
	}
	if w.length >= 0 && w.written+int64(len(p)) > w.length {
		return 0, http.ErrContentLength
	}
	if w.chunked {
		w.bw.WriteString(strconv.FormatInt(int64(len(p)), 16))
		w.bw.WriteString("\r\n")
	}
	n, err := w.bw.Write(p)
	if w.chunked && err == nil {
		_, err = w.bw.WriteString("\r\n")
	}
	w.written += int64(n)
	if err != nil {
		w.err = err
	}
	return n, err
}

// Flush sends what was written.
func (w *leanWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if !w.committed {
		w.commit(false)
	}
	if err := w.bw.Flush(); err != nil && w.err == nil {
		w.err = err
	}
}

// leanOwnFields are the fields the lean writer writes itself, whatever the
// handler set.
var leanOwnFields = map[string]bool{"Connection": true}

// commit writes the head, then what of the body waited for it; final: the
// handler has ended, so a body not yet flushed is whole.
func (w *leanWriter) commit(final bool) {
	w.committed = true
	h := w.header
	delete(h, "Transfer-Encoding")
	if vs := h["Content-Length"]; len(vs) > 0 {
		n, err := strconv.ParseInt(vs[0], 10, 64)
		if err == nil && n >= 0 && len(vs) == 1 {
			w.length = n
		} else {
			delete(h, "Content-Length")
		}
	}
	for _, v := range h["Trailer"] {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				w.trailers = append(w.trailers, http.CanonicalHeaderKey(k))
			}
		}
	}
	var extra string
	switch {
	case w.noBody:
	case w.length >= 0:
	case final && len(w.trailers) == 0:
		w.length = int64(len(*w.body))
		extra = "Content-Length: " + strconv.Itoa(len(*w.body)) + "\r\n"
	default:
		w.chunked = true
		extra = "Transfer-Encoding: chunked\r\n"
	}

	bw := w.bw
	bw.WriteString("HTTP/1.1 ")
	bw.WriteString(strconv.Itoa(w.status))
	bw.WriteByte(' ')
	if text := http.StatusText(w.status); text != "" {
		bw.WriteString(text)
	} else {
		bw.WriteString("status code ")
		bw.WriteString(strconv.Itoa(w.status))
	}
	bw.WriteString("\r\n")
	writeFields(bw, h, leanOwnFields)
	if !w.close && w.srv != nil && w.srv.isClosing() {
		w.close = true // the server stops: this is the connection's last answer
	}
	// net/http's order: its own Content-Length, Connection, then
	// Transfer-Encoding, after the handler's fields.
	if !w.chunked {
		bw.WriteString(extra)
	}
	if w.close {
		bw.WriteString("Connection: close\r\n")
	}
	if w.chunked {
		bw.WriteString(extra)
	}
	bw.WriteString("\r\n")
	if len(*w.body) > 0 {
		w.writeBody(*w.body)
		*w.body = (*w.body)[:0]
	}
}

// finish ends the answer once the handler has returned; it returns whether
// the connection may carry another exchange.
func (w *leanWriter) finish() bool {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if !w.committed {
		w.commit(true)
	}
	if w.chunked {
		w.bw.WriteString("0\r\n")
		for _, k := range w.trailers {
			for _, v := range w.header[k] {
				writeField(w.bw, k, v)
			}
		}
		w.bw.WriteString("\r\n")
	}
	if err := w.bw.Flush(); err != nil {
		return false
	}
	// A body shorter than its declared length leaves the client waiting
	// for the rest: the connection must end.
	short := !w.noBody && w.length >= 0 && w.written != w.length
	return w.err == nil && !w.close && !short
}

// abort ends an answer the handler gave up on: what was written goes out,
// and the connection is then closed (by the caller), so that a client
// cannot take a cut answer for a whole one.
func (w *leanWriter) abort() {
	if w.committed {
		w.bw.Flush()
	}
}
