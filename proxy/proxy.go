// Package proxy certifies a Plant Store deployment, and its clients, from
// the traffic that passes through it: a reverse proxy that forwards every
// exchange as it comes (the request's method, target, header values and
// body bytes; the response's status, header values and body bytes, nothing
// re-encoded, every body streamed), and judges each exchange of the
// document's operation by every rule of the catalog its traffic can show,
// with the judgements `plantcheck run` makes (package check, the validator
// of package spec). A service's violations and its clients' are counted
// apart; the rules traffic cannot show are listed as not judged, with the
// reason, never as passed. What it keeps of a body for judging is bounded,
// and so is every piece of evidence; no credential that passes through is
// ever printed or written.
//
// The proxy serves its clients with a lean HTTP/1.1 server of its own
// (leanserver.go) for the requests of a strict subset that come whole,
// and hands any other connection to net/http's server, which then serves
// it; both call the same Handler, and answer alike.
//
// What the proxy changes on the way, and only that: the hop-by-hop
// headers (Connection and the headers it names, Keep-Alive,
// Proxy-Connection, Upgrade, TE but "trailers") are dropped, as RFC 9110
// (7.6.1) requires of an intermediary; Host names the upstream, whose URL's
// path is put before each request's target; net/http writes header names in
// their canonical case (X-Api-Key for x-api-key; names are case-insensitive)
// and in its own order (the values of a repeated header keep theirs); a
// chunked body goes in chunks of the proxy's own size (the same bytes); a
// POST without a body is sent with Content-Length: 0; a request body of a
// declared length up to 64 KiB is read whole before it is forwarded (with
// its header, in one write), a longer one or one of unknown length streams;
// interim 1xx answers but 100 Continue are not passed on. Nothing is added:
// no Via, no X-Forwarded-For, no User-Agent or Accept-Encoding of Go's, no
// Date or sniffed Content-Type in the answer. Its own answers (the upstream
// cannot be reached, does not answer in time, or fails) are 502s marked
// with the header Plantcheck-Proxy, and never count as the service's; a
// client that goes away, or whose body breaks off, gets no answer at all.
package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plantcheck/plantcheck/spec"
)

// Defaults of Config.
const (
	// DefaultMaxJudge bounds the bytes of each body kept for judging.
	DefaultMaxJudge = 1 << 20
	// DefaultMaxJudgeTotal bounds the bytes kept of all the bodies in
	// flight at once.
	DefaultMaxJudgeTotal = 256 << 20
	// DefaultTimeout bounds the connection to the upstream and the wait
	// for its answer's header section.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxFailures is how many failures of each rule are kept as
	// evidence; the rest are counted.
	DefaultMaxFailures = 5
)

// MarkerHeader marks an answer the proxy made itself, never the service:
// its value says why (the Own* constants).
const MarkerHeader = "Plantcheck-Proxy"

// The proxy's own answers, each a 502 with MarkerHeader set to one of these.
const (
	// OwnUnreachable: the upstream refused the connection, or its name did
	// not resolve.
	OwnUnreachable = "upstream-unreachable"
	// OwnTimeout: the upstream did not connect, or did not begin its
	// answer, within the time limit.
	OwnTimeout = "upstream-timeout"
	// OwnFailed: the exchange with the upstream failed otherwise (it closed
	// the connection, or answered with something that is not HTTP).
	OwnFailed = "upstream-failed"
)

// Config configures a Handler.
type Config struct {
	// Upstream is the service's base URL (http or https). Required. A path
	// in it is put before every request's target.
	Upstream *url.URL
	// Validator judges requests and responses; nil means spec.Default().
	Validator *spec.Validator
	// MaxJudge bounds the bytes of each body kept for judging; 0 means
	// DefaultMaxJudge. A longer body is forwarded whole, and what needs it
	// is not judged.
	MaxJudge int64
	// MaxJudgeTotal bounds the bytes kept of every body in flight; 0 means
	// DefaultMaxJudgeTotal.
	MaxJudgeTotal int64
	// Timeout bounds the connection to the upstream and the wait for the
	// header section of its answer (a body may then stream for as long as
	// it lasts); 0 means DefaultTimeout. It is the default transport's.
	Timeout time.Duration
	// TLS configures the connections to an https upstream (certificate
	// authorities to trust, a client certificate); nil means the system's
	// authorities and no client certificate.
	TLS *tls.Config
	// Transport, when set, carries every exchange to the upstream; nil
	// means the proxy's own client (upstream.go) for the exchanges it
	// takes and NewTransport(Timeout, TLS) for the others. One given here
	// must neither decompress nor add headers (as http.Transport does
	// unless DisableCompression).
	Transport http.RoundTripper
	// MaxFailures is how many failures of each rule are kept as evidence;
	// 0 means DefaultMaxFailures.
	MaxFailures int
	// OnExchange, when set, is called once each exchange is over and
	// judged, from the goroutine that forwarded or judged it.
	OnExchange func(Exchange)
}

// Exchange is what the proxy saw of one exchange, without any evidence:
// for a caller that follows the traffic.
type Exchange struct {
	Method string
	// Target is the request-target as the client sent it, escaped to be
	// printed.
	Target string
	Status int
	// Own is the MarkerHeader value of an answer the proxy made itself; ""
	// when the upstream answered.
	Own string
	// Judged: the exchange is of the document's operation and was judged.
	Judged bool
	// Failed lists the server-side rules the exchange broke.
	Failed []string
	// Client: the request broke the document.
	Client bool
	// Unjudged says what of the exchange could not be judged, and why.
	Unjudged string
	Duration time.Duration
}

// Handler is the proxy: an http.Handler that forwards to the upstream and
// judges what passes. It is safe for concurrent use.
type Handler struct {
	upstream   *url.URL
	prefix     string
	validator  *spec.Validator
	fast       *fastPath
	transport  http.RoundTripper
	direct     *upstreamClient // nil when Config.Transport was given
	maxJudge   int64
	maxTotal   int64
	budget     atomic.Int64
	onExchange func(Exchange)
	tally      *tally
	secrets    secrets
	// inflight counts the exchanges being forwarded; queue holds those
	// waiting to be judged.
	inflight sync.WaitGroup
	queue    *judgeQueue
}

// New returns a Handler for cfg.
func New(cfg Config) (*Handler, error) {
	u := cfg.Upstream
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("proxy: the upstream must be an http or https URL with a host")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("proxy: the upstream URL must not carry credentials, a query or a fragment")
	}
	h := &Handler{
		upstream:   &url.URL{Scheme: u.Scheme, Host: u.Host},
		prefix:     strings.TrimSuffix(u.EscapedPath(), "/"),
		validator:  cfg.Validator,
		transport:  cfg.Transport,
		maxJudge:   cfg.MaxJudge,
		maxTotal:   cfg.MaxJudgeTotal,
		onExchange: cfg.OnExchange,
		queue:      newJudgeQueue(),
	}
	if h.validator == nil {
		v, err := spec.Default()
		if err != nil {
			return nil, fmt.Errorf("proxy: build the validator: %w", err)
		}
		h.validator = v
	}
	h.fast = newFastPath(h.validator)
	if h.maxJudge <= 0 {
		h.maxJudge = DefaultMaxJudge
	}
	if h.maxTotal <= 0 {
		h.maxTotal = DefaultMaxJudgeTotal
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if h.transport == nil {
		h.transport = NewTransport(timeout, cfg.TLS)
		var tlsConf *tls.Config // plain http
		if u.Scheme == "https" {
			tlsConf = cfg.TLS
			if tlsConf == nil {
				tlsConf = &tls.Config{MinVersion: tls.VersionTLS12}
			}
		}
		h.direct = newUpstreamClient(UpstreamAddr(u), u.Host, tlsConf, timeout)
	}
	maxFailures := cfg.MaxFailures
	if maxFailures <= 0 {
		maxFailures = DefaultMaxFailures
	}
	h.tally = newTally(maxFailures, h.maxJudge, u.Redacted(), timeout)
	return h, nil
}

// NewTransport returns the transport the proxy uses by default for the
// exchanges its own client does not take: HTTP/1.1 to the upstream (HTTP/2
// would change the headers' case and the framing), no decompression, no
// proxy from the environment, connections kept for reuse (up to 1024 idle),
// timeout bounding the connection and the wait for an answer's header
// section, and tlsConf (nil: the system's authorities) for https.
func NewTransport(timeout time.Duration, tlsConf *tls.Config) *http.Transport {
	return &http.Transport{
		TLSClientConfig:        tlsConf,
		DialContext:            (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		ExpectContinueTimeout:  time.Second,
		DisableCompression:     true,
		MaxIdleConns:           1024,
		MaxIdleConnsPerHost:    1024,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: maxResponseHeader,
		TLSNextProto:           map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
}

// clientFailed ends an exchange whose client went away, or whose body could
// not be read (it broke off, or its chunks are malformed): the exchange is
// counted, and its connection closed without an answer, since any answer
// would be the proxy's and not marked (or one for a request the upstream
// never had whole).
func (h *Handler) clientFailed() {
	h.tally.gone()
	panic(http.ErrAbortHandler)
}

// release gives back what an exchange held for judging.
func (h *Handler) release(reqCap, respCap *capture, whole []byte) {
	if reqCap != nil {
		reqCap.release()
	}
	if respCap != nil {
		respCap.release()
	}
	if whole != nil {
		h.budget.Add(-int64(len(whole)))
	}
}

// wholeMax bounds a request body read whole before it is forwarded; a
// longer one, or one of unknown length, streams.
const wholeMax = 64 << 10

// reserve takes n bytes of the budget of bodies kept, if it has them.
func (h *Handler) reserve(n int64) bool {
	if h.budget.Add(n) > h.maxTotal {
		h.budget.Add(-n)
		return false
	}
	return true
}

// exchange is one exchange as the judge reads it.
type exchange struct {
	method     string
	target     string      // the request-target as the client sent it
	to         *url.URL    // where it was forwarded
	header     http.Header // the request's header as forwarded
	chunked    bool
	reqBody    snapshot
	status     int
	respHeader http.Header
	respBody   snapshot
	duration   time.Duration

	// Once queued to be judged: the handler, the summary to complete, and
	// what the exchange holds, given back once judged.
	h               *Handler
	sum             Exchange
	reqCap, respCap *capture
	whole           []byte
}

// run judges a queued exchange, counts it, and gives back what it held.
func (x *exchange) run() { x.judge(false) }

// judge judges the exchange, counts it, and gives back what it held;
// shallow: only if the fast path can judge it whole (judgeInto), which it
// returns.
func (x *exchange) judge(shallow bool) bool {
	h := x.h
	o := outcomes.Get().(*outcome)
	defer outcomes.Put(o)
	if !h.judgeInto(o, x, nil, shallow) {
		return false
	}
	h.record(x, o, &x.sum)
	h.release(x.reqCap, x.respCap, x.whole)
	h.notify(x.sum)
	return true
}

// hopHeaders are the hop-by-hop headers (RFC 9110, 7.6.1), beside those
// Connection names.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Upgrade", "Te"}

// dropHopByHop removes the hop-by-hop headers, keeping "TE: trailers",
// which says the client reads trailers.
func dropHopByHop(h http.Header) {
	for _, v := range h["Connection"] {
		for _, name := range strings.Split(v, ",") {
			if name = textproto.TrimString(name); name != "" {
				h.Del(name)
			}
		}
	}
	trailers := false
	for _, v := range h["Te"] {
		for _, t := range strings.Split(v, ",") {
			trailers = trailers || strings.EqualFold(textproto.TrimString(t), "trailers")
		}
	}
	for _, k := range hopHeaders {
		delete(h, k)
	}
	if trailers {
		h["Te"] = []string{"trailers"}
	}
}

func hasHopByHop(h http.Header) bool {
	for _, k := range hopHeaders {
		if _, ok := h[k]; ok {
			return true
		}
	}
	return false
}

// copyBufs are the buffers a response body is copied through.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// ServeHTTP forwards one exchange, then judges it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.inflight.Add(1)
	defer h.inflight.Done()
	start := time.Now()
	doc := r.Method == opMethod && r.URL.Path == opPath
	x := &exchange{method: r.Method, target: r.RequestURI, chunked: len(r.TransferEncoding) > 0}

	// The header as forwarded: the client's, less what is hop-by-hop
	// (then a copy: the request's own is net/http's).
	header, own := r.Header, false
	switch {
	case header == nil:
		header, own = http.Header{}, true
	case hasHopByHop(header):
		header, own = header.Clone(), true
		dropHopByHop(header)
	}

	var reqCap, respCap *capture
	var whole []byte // a small body, read before it is forwarded
	var bodyFailed atomic.Bool
	// What the exchange holds is given back once it is judged, by the
	// goroutine that judges it, or here if it is not judged.
	handed := false
	defer func() {
		if !handed {
			h.release(reqCap, respCap, whole)
		}
	}()
	body := r.Body
	switch {
	case r.ContentLength == 0:
		body = nil
	case r.ContentLength > 0 && r.ContentLength <= wholeMax && r.Header.Get("Expect") == "" && h.reserve(r.ContentLength):
		// A small body of a declared length is read whole first, so that
		// it goes to the upstream with its header in one write (by the
		// lean client, upstream.go).
		whole = make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, whole); err != nil {
			h.clientFailed()
		}
		body = io.NopCloser(bytes.NewReader(whole))
	default:
		if doc {
			reqCap = newCapture(h.maxJudge, &h.budget, h.maxTotal, r.ContentLength)
		}
		body = &teeBody{rc: r.Body, cap: reqCap, failed: &bodyFailed}
	}
	to := h.target(r)
	x.to = to
	var resp *http.Response
	var err error
	if target, ok := leanTarget(to); ok && h.direct != nil && (body == nil || whole != nil) &&
		r.Header.Get("Expect") == "" && r.Method != http.MethodConnect {
		// One write and nothing to wait for: the lean client.
		resp, err = h.direct.do(r.Context(), &outgoing{method: r.Method, target: target, header: header, body: whole})
	} else {
		if _, ok := header["User-Agent"]; !ok {
			if !own {
				header = header.Clone()
			}
			header["User-Agent"] = []string{""} // net/http would send its own
		}
		out := (&http.Request{
			Method:           r.Method,
			URL:              to,
			Proto:            "HTTP/1.1",
			ProtoMajor:       1,
			ProtoMinor:       1,
			Header:           header,
			Body:             body,
			ContentLength:    r.ContentLength,
			TransferEncoding: r.TransferEncoding,
			Trailer:          r.Trailer,
			Host:             h.upstream.Host,
		}).WithContext(r.Context())
		if body == nil {
			out.Body = http.NoBody
		}
		resp, err = h.transport.RoundTrip(out)
	}
	x.header = header
	if err != nil {
		if r.Context().Err() != nil || bodyFailed.Load() {
			h.clientFailed()
		}
		kind := ownKind(err)
		writeOwn(w, kind)
		h.tally.own(kind)
		h.notify(Exchange{Method: r.Method, Target: safeTarget(x.target), Status: http.StatusBadGateway, Own: kind, Duration: time.Since(start)})
		return
	}
	defer resp.Body.Close()

	// The answer's header, as it came, less what is hop-by-hop; and
	// nothing that net/http would add of its own.
	dst := w.Header()
	dropHopByHop(resp.Header)
	for k, vs := range resp.Header {
		dst[k] = vs
	}
	if _, ok := resp.Header["Content-Type"]; !ok {
		dst["Content-Type"] = nil // no sniffing
	}
	if _, ok := resp.Header["Date"]; !ok {
		dst["Date"] = nil
	}
	if len(resp.Trailer) > 0 {
		names := make([]string, 0, len(resp.Trailer))
		for k := range resp.Trailer {
			names = append(names, k)
		}
		dst["Trailer"] = []string{strings.Join(names, ", ")}
	}
	w.WriteHeader(resp.StatusCode)

	if doc {
		respCap = newCapture(h.maxJudge, &h.budget, h.maxTotal, resp.ContentLength)
	}
	broke, gone := h.copyBody(w, resp, respCap)
	if broke == nil && !gone {
		for k, vs := range resp.Trailer {
			dst[k] = vs
		}
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush() // the whole answer reaches the client before it is judged
		}
	}
	x.status, x.respHeader, x.duration = resp.StatusCode, resp.Header, time.Since(start)

	sum := Exchange{Method: r.Method, Target: safeTarget(x.target), Status: resp.StatusCode, Duration: x.duration}
	switch {
	case !doc:
		h.tally.outside()
	case gone:
		h.tally.gone()
		sum.Unjudged = "the client went away before the answer ended"
	case broke != nil:
		h.tally.broken()
		sum.Unjudged = "the upstream's answer broke off"
	default:
		x.reqBody = snapshot{whole: true}
		if whole != nil {
			x.reqBody = snapshot{body: whole, total: int64(len(whole)), whole: int64(len(whole)) <= h.maxJudge}
			if !x.reqBody.whole {
				x.reqBody.why = "request body past " + sizeOf(h.maxJudge)
			}
		}
		if reqCap != nil {
			x.reqBody = reqCap.take("request body", h.maxJudge)
		}
		x.respBody = respCap.take("response body", h.maxJudge)
		// Judged at once when the fast path can (a couple of µs, a
		// shallow stack: most exchanges), otherwise off the exchange's
		// path (queue.go), so that the connection goes on to its next
		// request at once and its goroutine keeps a small stack.
		x.h, x.sum, x.reqCap, x.respCap, x.whole = h, sum, reqCap, respCap, whole
		handed = true
		if !x.judge(true) {
			h.queue.put(x)
		}
		return
	}
	h.notify(sum)
	if broke != nil {
		// The client must not take a cut answer for a whole one: end the
		// connection, as the upstream did.
		panic(http.ErrAbortHandler)
	}
}

// copyBody streams the answer's body to the client, keeping what c can
// hold, and flushing as it goes (an answer may never end) but when the
// whole of a sized body is written, which the handler's end then sends in
// one write. It returns the upstream's error if the body broke off, and
// gone if the client stopped reading.
func (h *Handler) copyBody(w http.ResponseWriter, resp *http.Response, c *capture) (broke error, gone bool) {
	fl, _ := w.(http.Flusher)
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	var written int64
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if c != nil {
				c.write(buf[:n])
			}
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil, true
			}
			written += int64(n)
			if fl != nil && (resp.ContentLength < 0 || written < resp.ContentLength) {
				fl.Flush()
			}
		}
		switch {
		case err == io.EOF:
			if c != nil {
				c.ended()
			}
			return nil, false
		case err != nil:
			return err, false
		}
	}
}

// target is the URL the request goes to: the upstream, its path prefix,
// then the request's target as the client wrote it (its escapes kept).
func (h *Handler) target(r *http.Request) *url.URL {
	u := &url.URL{Scheme: h.upstream.Scheme, Host: h.upstream.Host, RawQuery: r.URL.RawQuery, ForceQuery: r.URL.ForceQuery}
	raw := r.RequestURI
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		raw = raw[:i]
	}
	if !strings.HasPrefix(raw, "/") {
		raw = r.URL.EscapedPath() // absolute-form: the path alone
	}
	if p := h.prefix + raw; strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
		u.Opaque = p // written as it is: no escape changed
		return u
	}
	u.Path = h.prefix + r.URL.Path
	return u
}

// ownKind says why the upstream gave no answer.
func ownKind(err error) string {
	var ne net.Error
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return OwnTimeout
	case errors.As(err, &dns), errors.As(err, &op) && op.Op == "dial":
		return OwnUnreachable
	}
	return OwnFailed
}

// writeOwn answers for an upstream that gave no answer: a 502 marked as the
// proxy's own, with a JSON body that says why.
func writeOwn(w http.ResponseWriter, kind string) {
	msg := map[string]string{
		OwnUnreachable: "plantcheck proxy: the upstream cannot be reached",
		OwnTimeout:     "plantcheck proxy: the upstream did not answer in time",
		OwnFailed:      "plantcheck proxy: the exchange with the upstream failed",
	}[kind]
	body, _ := json.Marshal(struct {
		Error   int    `json:"error"`
		Message string `json:"message"`
	}{http.StatusBadGateway, msg})
	hd := w.Header()
	hd.Set(MarkerHeader, kind)
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusBadGateway)
	w.Write(append(body, '\n'))
}

func (h *Handler) notify(x Exchange) {
	if h.onExchange != nil {
		h.onExchange(x)
	}
}

// sizeOf writes a byte count for a reader.
func sizeOf(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// UpstreamAddr is the address (host:port) of an upstream URL's host, its
// scheme's port by default.
func UpstreamAddr(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
