package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Most exchanges go to the upstream through a client of the proxy's own, a
// lean HTTP/1.1 client over pooled keep-alive connections, on the handler's
// goroutine: it writes the request's head as net/http's Request.Write does
// (which http.Transport uses; TestRequestHead compares the bytes), and
// reads the answer with net/http's own reader (ReadResponse, which handles
// every framing, 1xx answers and trailers). http.Transport does the same
// work on two more goroutines a connection, with a hand-off each way for
// every exchange, and copies the request twice over; on a proxy whose
// every exchange is small that costs a large share of its CPU.
//
// It takes the exchanges whose request it can send in one write: no body,
// or a body read whole beforehand, without Expect: 100-continue (so no
// trailers either), and not CONNECT. The others (streamed or chunked
// bodies, Expect) go through http.Transport, which waits for a 100
// Continue and sends a body while it reads the answer.

// upstreamClient is the proxy's own client to one upstream.
type upstreamClient struct {
	addr    string      // host:port
	tls     *tls.Config // nil: plain http
	timeout time.Duration
	dialer  net.Dialer
	// hostLine is the request's Host field, as Request.Write writes it.
	hostLine string

	mu   sync.Mutex
	idle []*upConn // most recently used last
}

// maxIdleConns bounds the connections kept idle for reuse; idleConnTimeout
// is how long one may idle before it is closed rather than reused.
const (
	maxIdleConns    = 1024
	idleConnTimeout = 30 * time.Second
	// max1xx bounds the interim answers read before the final one.
	max1xx = 5
)

// upConn is one connection to the upstream.
type upConn struct {
	conn   net.Conn
	raw    net.Conn // the TCP connection under TLS, to look at while idle
	lim    limitedReader
	br     *bufio.Reader
	bw     *bufio.Writer
	idleAt time.Time
}

// limitedReader bounds what is read of an answer's header section, as
// http.Transport does (MaxResponseHeaderBytes); n < 0: no bound.
type limitedReader struct {
	r io.Reader
	n int64
}

// errHeaderTooLarge: the upstream's header section went past the bound.
var errHeaderTooLarge = errors.New("the upstream's answer has a header section past 1 MiB")

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return l.r.Read(p)
	}
	if l.n == 0 {
		return 0, errHeaderTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// newUpstreamClient returns a client to the upstream at addr, whose Host
// field is host.
func newUpstreamClient(addr, host string, tlsConf *tls.Config, timeout time.Duration) *upstreamClient {
	return &upstreamClient{
		addr: addr, tls: tlsConf, timeout: timeout,
		dialer:   net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second},
		hostLine: hostLine(host),
	}
}

// hostLine is the Host field Request.Write writes for host (cleaned: an
// international name in punycode, an IPv6 zone removed, an invalid host
// left out), taken from its own output.
func hostLine(host string) string {
	var b bytes.Buffer
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/"}, Host: host, Header: http.Header{"User-Agent": {""}}}
	if req.Write(&b) != nil {
		return "Host: \r\n"
	}
	_, rest, _ := strings.Cut(b.String(), "\r\n")
	line, _, _ := strings.Cut(rest, "\r\n")
	return line + "\r\n"
}

// outgoing is a request as the lean client sends it: its body, if any,
// in memory.
type outgoing struct {
	method string
	target string // the request-target, as Request.Write would write the URL's
	header http.Header
	body   []byte
}

// headExcluded are the fields Request.Write writes apart from the others,
// or not at all.
var headExcluded = map[string]bool{"Host": true, "User-Agent": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true}

// writeHead writes the request's head as Request.Write writes that of an
// http.Request with the same method, URL, Host, header (a User-Agent of
// the header's, none when it has none) and body: the request line, Host,
// User-Agent (the first, when not empty), Content-Length, then the other
// fields sorted by name, each value with its line breaks made spaces and
// its edges trimmed.
func (u *upstreamClient) writeHead(w *bufio.Writer, o *outgoing) {
	w.WriteString(o.method)
	w.WriteByte(' ')
	w.WriteString(o.target)
	w.WriteString(" HTTP/1.1\r\n")
	w.WriteString(u.hostLine)
	if ua := o.header["User-Agent"]; len(ua) > 0 && ua[0] != "" {
		writeField(w, "User-Agent", ua[0])
	}
	// A length of 0 is sent for the methods many servers expect one of.
	if len(o.body) > 0 || o.method == http.MethodPost || o.method == http.MethodPut || o.method == http.MethodPatch {
		w.WriteString("Content-Length: ")
		w.WriteString(strconv.Itoa(len(o.body)))
		w.WriteString("\r\n")
	}
	writeFields(w, o.header, headExcluded)
	w.WriteString("\r\n")
}

// writeFields writes the fields of h but those named in skip, as net/http
// writes a header: sorted by name, a name that is no token left out.
func writeFields(w *bufio.Writer, h http.Header, skip map[string]bool) {
	var stack [24]string
	keys := stack[:0]
	for k := range h {
		if !skip[k] && validFieldName(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			writeField(w, k, v)
		}
	}
}

// writeField writes one field line, its value as net/http writes it.
func writeField(w *bufio.Writer, name, value string) {
	w.WriteString(name)
	w.WriteString(": ")
	w.WriteString(headerValue(value))
	w.WriteString("\r\n")
}

// headerValue is a field value as net/http writes it: line breaks made
// spaces, white space trimmed from its edges.
func headerValue(v string) string {
	if strings.ContainsAny(v, "\r\n") {
		v = strings.NewReplacer("\n", " ", "\r", " ").Replace(v)
	}
	return textproto.TrimString(v)
}

// validFieldName reports whether k is a token (RFC 9110, 5.1), as
// net/http requires of a field name it writes.
func validFieldName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// leanTarget is the request-target the lean client may send, and whether
// it may: none with a control byte, as Request.Write refuses.
func leanTarget(u *url.URL) (string, bool) {
	t := u.RequestURI()
	for i := 0; i < len(t); i++ {
		if t[i] < ' ' || t[i] == 0x7f {
			return "", false
		}
	}
	return t, true
}

// readRequests are what ReadResponse is told of the request an answer is
// to: only its method counts, and of methods only HEAD (an answer without
// a body) and CONNECT (which the lean client does not send).
var (
	headRequest  = &http.Request{Method: http.MethodHead}
	otherRequest = &http.Request{Method: http.MethodPost}
)

// get returns an idle connection that is still open, or dials one.
func (u *upstreamClient) get(ctx context.Context) (*upConn, error) {
	for {
		u.mu.Lock()
		n := len(u.idle)
		if n == 0 {
			u.mu.Unlock()
			break
		}
		c := u.idle[n-1]
		u.idle[n-1] = nil
		u.idle = u.idle[:n-1]
		u.mu.Unlock()
		if time.Since(c.idleAt) < idleConnTimeout && stillOpen(c.raw) {
			return c, nil
		}
		c.conn.Close()
	}
	return u.dial(ctx)
}

func (u *upstreamClient) dial(ctx context.Context) (*upConn, error) {
	raw, err := u.dialer.DialContext(ctx, "tcp", u.addr)
	if err != nil {
		return nil, err
	}
	conn := raw
	if u.tls != nil {
		conf := u.tls.Clone()
		if conf.ServerName == "" {
			host, _, _ := net.SplitHostPort(u.addr)
			conf.ServerName = host
		}
		conf.NextProtos = []string{"http/1.1"}
		tc := tls.Client(raw, conf)
		hctx, cancel := context.WithTimeout(ctx, u.timeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			raw.Close()
			return nil, err
		}
		if p := tc.ConnectionState().NegotiatedProtocol; p != "" && p != "http/1.1" {
			raw.Close()
			return nil, fmt.Errorf("the upstream chose the protocol %q", p)
		}
		conn = tc
	}
	c := &upConn{conn: conn, raw: raw}
	c.lim.r = conn
	c.lim.n = -1
	c.br = bufio.NewReaderSize(&c.lim, 4<<10)
	c.bw = bufio.NewWriterSize(conn, 4<<10)
	return c, nil
}

// put keeps a connection for reuse.
func (u *upstreamClient) put(c *upConn) {
	c.idleAt = time.Now()
	u.mu.Lock()
	if len(u.idle) < maxIdleConns {
		u.idle = append(u.idle, c)
		c = nil
	}
	u.mu.Unlock()
	if c != nil {
		c.conn.Close()
	}
}

// CloseIdleConnections closes the connections kept for reuse.
func (u *upstreamClient) CloseIdleConnections() {
	u.mu.Lock()
	idle := u.idle
	u.idle = nil
	u.mu.Unlock()
	for _, c := range idle {
		c.conn.Close()
	}
}

// longAgo is a deadline in the past: it ends a blocked read or write.
var longAgo = time.Unix(1, 0)

// RoundTrip sends req, whose body (if any) is in memory, and returns the
// answer, whose body streams from the connection: reading it to its end
// gives the connection back for reuse, closing it before then closes the
// connection.
//
// The time limit bounds the request's write and the wait for the answer's
// header section. A body already read whole with its header (most are:
// one packet) needs nothing more; a body still to come then streams for as
// long as it lasts, and the request's context, should it end (the client
// went away, the proxy stops), ends it. A client that goes away while the
// upstream has not yet answered is not waited for: the exchange ends with
// the answer or the time limit, and counts as one whose client went away.
func (u *upstreamClient) do(ctx context.Context, o *outgoing) (*http.Response, error) {
	c, err := u.get(ctx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*http.Response, error) {
		c.conn.Close()
		return nil, err
	}
	c.conn.SetDeadline(time.Now().Add(u.timeout))
	u.writeHead(c.bw, o)
	c.bw.Write(o.body)
	werr := c.bw.Flush()
	req := otherRequest
	if o.method == http.MethodHead {
		req = headRequest
	}
	var resp *http.Response
	c.lim.n = maxResponseHeader
	for n1xx := 0; ; n1xx++ {
		resp, err = http.ReadResponse(c.br, req)
		switch {
		case err != nil && werr != nil:
			return fail(werr)
		case err != nil:
			return fail(err)
		case resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols:
		case n1xx == max1xx:
			return fail(errors.New("the upstream sent too many interim answers"))
		default:
			resp.Body.Close()
			continue // an interim answer: not passed on
		}
		break
	}
	c.lim.n = -1
	resp.Request = nil // not the request sent: only its method was told
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	// The upstream may answer before it has read the whole request (and
	// then close): the answer counts, the connection is not reused.
	b := &upBody{rc: resp.Body, c: c, u: u, reuse: werr == nil && !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols}
	if resp.Body != http.NoBody && (resp.ContentLength < 0 || int64(c.br.Buffered()) < resp.ContentLength) {
		c.conn.SetDeadline(time.Time{})
		b.stop = context.AfterFunc(ctx, func() { c.conn.SetDeadline(longAgo) })
	}
	resp.Body = b
	return resp, nil
}

// maxResponseHeader bounds an answer's header section, as
// NewTransport's MaxResponseHeaderBytes does.
const maxResponseHeader = 1 << 20

// upBody is an answer's body: read to its end, it gives its connection back
// for reuse; closed before, it closes the connection (reading on to the end
// could take for ever).
type upBody struct {
	rc    io.ReadCloser
	c     *upConn
	u     *upstreamClient
	stop  func() bool // nil when the body was read whole with the header
	reuse bool
	eof   bool
	done  bool
}

func (b *upBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, errors.New("read on a closed body")
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil:
		b.reuse = false
	}
	return n, err
}

func (b *upBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	// A body read to its end, on a connection the upstream keeps open and
	// that holds nothing more, and whose exchange the context did not
	// end, is reused.
	if (b.stop == nil || b.stop()) && b.eof && b.reuse && b.c.br.Buffered() == 0 {
		b.u.put(b.c)
		return nil
	}
	return b.c.conn.Close()
}
