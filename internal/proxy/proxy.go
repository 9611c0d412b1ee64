// Package proxy certifies a Plant Store deployment, and its clients, from
// the traffic that passes through it: a reverse proxy that forwards every
// exchange as it comes (nothing re-encoded, every body streamed), and
// judges each exchange of the document's operation by every rule of the
// catalog its traffic can show, with the judgements `plantcheck run` makes.
// A service's violations and its clients' are counted apart; the rules
// traffic cannot show are listed as not judged, with the reason, never as
// passed. What it keeps of a body for judging is bounded, and so is every
// piece of evidence; no credential that passes through is ever printed or
// written.
//
// The proxy is net/http's, both ways: http.Server serves the clients, and
// httputil.ReverseProxy forwards through an http.Transport. Its hooks are
// the proxy's whole say: Rewrite puts the target as written and the
// upstream's Host on the request, ModifyResponse refuses an answer HTTP
// has no status for, ErrorHandler answers for an upstream that gave no
// answer; a tee on each body keeps what the judge needs (exchange.Capture), and
// the judge works off the exchange's path (queue.go). What it changes on
// the way, and only that (the hop-by-hop headers of RFC 9110, 7.6.1, and
// little else), is docs/proxy.md's "Transparency". Its own answers are
// 502s marked with the header Plantcheck-Proxy, and never count as the
// service's (but for an answer HTTP cannot frame, which is the service's,
// judged as `run` judges it); a client that goes away, or whose body
// breaks off, gets no answer at all, and its exchange with the upstream is
// cancelled.
package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// maxJudgeTotal bounds the bytes kept of all the bodies in flight at once,
// so that a thousand connections streaming megabytes cost no more.
const maxJudgeTotal = 256 << 20

// MarkerHeader marks the proxy's own answer (a 502), its value why: one of
// the Own* constants.
const MarkerHeader = "Plantcheck-Proxy"

const (
	OwnUnreachable = "upstream-unreachable" // refused the connection, or its name did not resolve
	OwnTimeout     = "upstream-timeout"     // did not connect or begin its answer in time
	OwnFailed      = "upstream-failed"      // closed the connection, or answered with no HTTP
)

// Config configures a Handler.
type Config struct {
	// Upstream is the service's base URL (http or https), required; its
	// path is put before every request's target.
	Upstream *url.URL
	// MaxJudge bounds the bytes of each body kept for judging (validated
	// positive); a longer body is forwarded whole, and not judged.
	MaxJudge int64
	// Timeout bounds the connection to the upstream and the wait for its
	// answer's header section (validated positive).
	Timeout time.Duration
	TLS     *tls.Config // nil: the system's authorities, no client certificate
	// Events, when set, gets an Event (a line of JSON) per failed judgement.
	Events io.Writer
	// HAR, when set, gets every exchange the upstream answered (writeHAR).
	HAR *har.Writer
}

// Handler is the proxy: an http.Handler that forwards to the upstream and
// judges what passes, safe for concurrent use.
type Handler struct {
	*judging
	upstream  *url.URL
	prefix    string
	transport *http.Transport
	forward   *httputil.ReverseProxy
	maxJudge  int64
	budget    exchange.Budget // bytes kept of the bodies in flight
	name      string          // the upstream as the verdict names it
	started   time.Time
	timeout   time.Duration
	inflight  sync.WaitGroup // the exchanges being forwarded
	queue     *judgeQueue
	har       *har.Writer
	metrics   *metrics
}

// New returns a Handler for cfg, validated by config.Proxy.Validate.
func New(cfg Config) (*Handler, error) {
	u := cfg.Upstream
	if u == nil {
		return nil, errors.New("proxy: no upstream")
	}
	j, err := newJudging()
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	h := &Handler{
		judging:  j,
		upstream: &url.URL{Scheme: u.Scheme, Host: u.Host},
		prefix:   strings.TrimSuffix(u.EscapedPath(), "/"),
		// HTTP/1.1 to the upstream (HTTP/2 would change the headers' case
		// and the framing), no decompression, no proxy from the
		// environment, connections kept for reuse.
		transport: &http.Transport{
			TLSClientConfig:        cfg.TLS,
			DialContext:            (&net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:    cfg.Timeout,
			ResponseHeaderTimeout:  cfg.Timeout,
			ExpectContinueTimeout:  time.Second,
			DisableCompression:     true,
			MaxIdleConns:           1024,
			MaxIdleConnsPerHost:    1024,
			IdleConnTimeout:        30 * time.Second,
			MaxResponseHeaderBytes: 1 << 20,
			TLSNextProto:           map[string]func(string, *tls.Conn) http.RoundTripper{},
		},
		maxJudge: cfg.MaxJudge,
		budget:   exchange.Budget{Max: maxJudgeTotal},
		name:     u.Redacted(),
		started:  time.Now(),
		timeout:  cfg.Timeout,
		queue:    newJudgeQueue(),
		har:      cfg.HAR,
	}
	h.forward = &httputil.ReverseProxy{
		Rewrite:        h.rewrite,
		Transport:      h.transport,
		ModifyResponse: checkAnswer,
		ErrorHandler:   h.noAnswer,
		BufferPool:     copyBufs{},
		// Its complaints (a body that broke off) are counted, not logged.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	if cfg.Events != nil {
		h.events = &eventLog{w: cfg.Events}
	}
	h.metrics = newMetrics(h)
	return h, nil
}

// Verdict is the verdict on what passed so far.
func (h *Handler) Verdict(opts Options) *verdict.Verdict {
	return h.verdict(opts, h.name, h.started, time.Now(), h.timeout.String(), h.maxJudge)
}

// copyBufs are the buffers an answer's body is copied through.
type copyBufs struct{}

var copyBufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (copyBufs) Get() []byte  { return *copyBufPool.Get().(*[]byte) }
func (copyBufs) Put(b []byte) { copyBufPool.Put(&b) }

// release gives back what an exchange held for judging.
func (h *Handler) release(x *flight) {
	x.reqCap.Release()
	x.respCap.Release()
	if x.whole != nil {
		h.budget.Give(int64(len(x.whole)))
	}
}

// wholeMax bounds a request body read whole before it is forwarded; a
// longer one, or one of unknown length, streams.
const wholeMax = 64 << 10

// wholeBody is a request body read whole before it is forwarded: rewrite
// hands its reader to the transport as it is, which then sends it in one
// write with the header (net/http's transport does so only for a reader it
// knows to be in memory, and the ReverseProxy wraps every body in one it
// does not know), so that the upstream reads the request at once.
type wholeBody struct{ io.ReadCloser }

// flight is one exchange: as it is forwarded, then as the judge reads it.
type flight struct {
	// Header is the request's as forwarded; Err an answer HTTP cannot
	// frame (judge.BrokenFraming), for which the client got the proxy's
	// own answer of kind own.
	exchange.Exchange
	own string
	// When it came, went upstream, had the upstream's header and gave the
	// client its header: the latency the proxy adds.
	start, sent, got, answered time.Time
	whole                      []byte // a small body, read before it is forwarded
	body                       exchange.Tee
	answer                     answerWriter
	counted                    bool // the proxy answered, or the client failed
	h                          *Handler
	reqCap, respCap            *exchange.Capture // given back once judged
}

// run judges a queued exchange, counts it, and gives back what it held.
func (x *flight) run() {
	x.h.count(&x.Exchange, nil, x.own)
	if x.h.har != nil {
		x.h.writeHAR(x, true)
	}
	x.h.release(x)
}

// hopHeaders are the hop-by-hop headers (RFC 9110, 7.6.1) that
// httputil.ReverseProxy drops, beside those Connection names: the judge
// reads the request as it was forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forwarded is a request's header as forwarded: h itself, or, when it has
// hop-by-hop headers, a copy without them, keeping "TE: trailers", which
// says the client reads trailers.
func forwarded(h http.Header) http.Header {
	if !slices.ContainsFunc(hopHeaders, func(k string) bool { _, ok := h[k]; return ok }) {
		return h
	}
	h = h.Clone()
	for _, v := range h["Connection"] {
		for _, name := range strings.Split(v, ",") {
			if name = textproto.TrimString(name); name != "" {
				h.Del(name)
			}
		}
	}
	trailers := httpguts.HeaderValuesContainsToken(h["Te"], "trailers")
	for _, k := range hopHeaders {
		delete(h, k)
	}
	if trailers {
		h["Te"] = []string{"trailers"}
	}
	return h
}

// framingNames are the fields that decide a request's framing and routing.
var framingNames = []string{"Transfer-Encoding", "Content-Length", "Host"}

// dropAliases removes the fields whose names read as a framing field once
// '_' is read as '-' (Transfer_Encoding): a server that maps both to one
// name (as CGI's HTTP_TRANSFER_ENCODING does) would take such a field for
// a second framing that the proxy never saw.
func dropAliases(h http.Header) {
	for k := range h {
		name := strings.ReplaceAll(k, "_", "-")
		if name != k && slices.ContainsFunc(framingNames, func(f string) bool { return strings.EqualFold(name, f) }) {
			delete(h, k)
		}
	}
}

// ServeHTTP forwards one exchange, then has it judged.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.inflight.Add(1)
	defer h.inflight.Done()
	x := &flight{h: h, Exchange: exchange.Exchange{Method: r.Method, Target: r.RequestURI, Chunked: len(r.TransferEncoding) > 0}, start: time.Now()}
	doc := r.Method == judge.OpMethod && r.URL.Path == judge.OpPath

	if r.Header == nil {
		r.Header = http.Header{}
	}
	dropAliases(r.Header)
	x.Header = forwarded(r.Header) // as the ReverseProxy forwards it

	// RFC 9112 (6.1): a request with both Content-Length and
	// Transfer-Encoding, or a Transfer-Encoding in HTTP/1.0, must have its
	// connection closed after the answer; net/http's server hides which
	// chunked or HTTP/1.0 request had both, so each has its connection
	// closed.
	x.answer = answerWriter{ResponseWriter: w, x: x, close: x.Chunked || !r.ProtoAtLeast(1, 1)}
	defer h.finish(x, r, doc)
	// For the ReverseProxy's hooks, which note when it goes upstream and back.
	r = r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x))
	if doc {
		x.respCap = exchange.NewCapture(h.maxJudge, &h.budget)
		x.answer.cap = x.respCap
	}
	switch {
	case r.ContentLength == 0:
	case r.ContentLength <= wholeMax && r.ContentLength > 0 && r.Header.Get("Expect") == "" && h.budget.Take(r.ContentLength):
		x.whole = make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, x.whole); err != nil {
			// No answer: it would be the proxy's, for a request the
			// upstream never had.
			x.counted = true
			h.tally.Gone()
			panic(http.ErrAbortHandler)
		}
		r.Body = wholeBody{io.NopCloser(bytes.NewReader(x.whole))}
	default:
		if doc {
			x.reqCap = exchange.NewCapture(h.maxJudge, &h.budget)
		}
		x.body = exchange.NewTee(r.Body, x.reqCap, r.ContentLength)
		r.Body = &x.body
	}
	h.forward.ServeHTTP(&x.answer, r)
}

// finish counts an exchange once forwarded, and queues it to be judged
// when it is of the document's operation and went through whole.
func (h *Handler) finish(x *flight, r *http.Request, doc bool) {
	p := recover()
	if p != nil && p != http.ErrAbortHandler {
		h.release(x)
		panic(p)
	}
	x.Status, x.Duration = x.answer.status, time.Since(x.start)
	if !x.sent.IsZero() && !x.got.IsZero() && !x.answered.IsZero() {
		h.metrics.added.Observe((x.sent.Sub(x.start) + x.answered.Sub(x.got)).Seconds())
	}
	// A reproduction goes straight to the upstream.
	to := h.target(r)
	x.URL, x.RespHeader = to.Scheme+"://"+to.Host+to.RequestURI(), x.answer.Header()
	switch {
	case x.counted:
	case !doc:
		h.tally.Outside()
		if h.har != nil && p == nil {
			h.writeHAR(x, false)
		}
	case p != nil && clientLeft(x, r):
		h.tally.Gone()
	case p != nil:
		h.tally.BrokeOff()
	default:
		x.respCap.End()
		if x.whole != nil {
			x.Body, x.BodyTotal = x.whole, int64(len(x.whole))
			if x.BodyTotal > h.maxJudge {
				x.BodyIncomplete = exchange.Past("request body", h.maxJudge)
			}
		}
		if x.reqCap != nil {
			x.Body, x.BodyTotal, x.BodyIncomplete = x.reqCap.Take("request body")
		}
		x.RespBody, x.RespTotal, x.RespIncomplete = x.respCap.Take("response body")
		if x.Err != nil {
			// What the client got is the proxy's; the service's answer
			// is the error.
			x.Status, x.RespHeader, x.RespBody, x.RespTotal, x.RespIncomplete = 0, nil, nil, 0, ""
		}
		// Judged off the exchange's path (queue.go), so that the
		// connection goes on to its next request at once.
		h.queue.put(x)
		return
	}
	h.release(x)
	if p != nil {
		// The ReverseProxy could not copy the answer whole (Go issue
		// 23643): the client must not take a cut answer for a whole one,
		// so its connection is closed.
		panic(p)
	}
}

// clientLeft reports whether an exchange failed on the client's side: it
// went away (its context is cancelled when its connection closes, which
// also cancels the exchange with the upstream), could not be written to,
// or its body broke off.
func clientLeft(x *flight, r *http.Request) bool {
	return r.Context().Err() != nil || x.answer.failed || x.body.Err() != nil
}

// exchangeKey is the context key of the exchange a request is forwarded
// for.
type exchangeKey struct{}

// rewrite puts the request as written on the way to the upstream.
func (h *Handler) rewrite(pr *httputil.ProxyRequest) {
	if x, ok := pr.In.Context().Value(exchangeKey{}).(*flight); ok {
		x.sent = time.Now()
	}
	pr.Out.URL = h.target(pr.In)
	pr.Out.Host = h.upstream.Host
	if b, ok := pr.In.Body.(wholeBody); ok {
		pr.Out.Body = b.ReadCloser
	}
	// Its copy of the trailer was taken before the body was read: the
	// request's own is filled once the body ends, then sent.
	pr.Out.Trailer = pr.In.Trailer
	// Rewrite's caller drops the client's forwarding headers, for a proxy
	// to set its own; this one sets none, and passes the client's as sent.
	for _, k := range forwardingHeaders {
		if v, ok := pr.In.Header[k]; ok {
			pr.Out.Header[k] = v
		}
	}
}

var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"}

// checkAnswer refuses an answer that cannot be passed on as it came.
func checkAnswer(resp *http.Response) error {
	if resp.Request != nil {
		if x, ok := resp.Request.Context().Value(exchangeKey{}).(*flight); ok {
			x.got = time.Now()
		}
	}
	if resp.StatusCode < 100 {
		// HTTP has no status below 100 (RFC 9110, 15), and net/http's
		// client takes one for a final answer.
		return errors.New("the upstream answered with a status below 100")
	}
	return nil
}

// noAnswer ends an exchange the upstream gave no answer to: a client that
// went away, or whose body could not be read, has its connection closed
// without an answer (any would be the proxy's, for a request the upstream
// never had whole); any other gets the proxy's own 502. An answer HTTP
// cannot frame is the service's all the same: judged as `run` judges it.
func (h *Handler) noAnswer(w http.ResponseWriter, r *http.Request, err error) {
	a := w.(*answerWriter) // ServeHTTP's
	x := a.x
	if clientLeft(x, r) {
		x.counted = true
		h.tally.Gone()
		panic(http.ErrAbortHandler)
	}
	kind := ownKind(err)
	if _, broken := judge.BrokenFraming(err); broken && a.cap != nil {
		x.Err, x.own, a.cap = err, kind, nil // the 502 is not the answer judged
	} else {
		x.counted = true
		h.tally.Own(kind)
	}
	writeOwn(w, kind)
}

// answerWriter is the client's writer as the ReverseProxy writes to it: it
// keeps the status and what cap holds of the body; lets no 100 Continue
// through (net/http's server sends its own once the upstream asks for the
// body); keeps net/http from adding a Date or a sniffed Content-Type; and
// closes the connection after the answer when close is set.
type answerWriter struct {
	http.ResponseWriter
	x      *flight
	cap    *exchange.Capture
	close  bool
	status int
	failed bool // a write to the client failed
}

func (a *answerWriter) WriteHeader(code int) {
	if code == http.StatusContinue {
		return
	}
	if code >= 200 && a.status == 0 {
		a.status = code
		a.x.answered = time.Now()
		hd := a.Header()
		for _, k := range []string{"Date", "Content-Type"} {
			if _, ok := hd[k]; !ok {
				hd[k] = nil
			}
		}
		if a.close {
			hd.Set("Connection", "close")
		}
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerWriter) Write(p []byte) (int, error) {
	if a.status == 0 {
		a.WriteHeader(http.StatusOK)
	}
	n, err := a.ResponseWriter.Write(p)
	if a.cap != nil {
		a.cap.Write(p[:n])
	}
	if err != nil {
		a.failed = true
	}
	return n, err
}

// Unwrap gives http.ResponseController the server's writer (to flush, and
// to take the connection of an upgrade).
func (a *answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

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
	p := h.prefix + raw
	switch {
	case strings.HasPrefix(p, "//"):
		// An opaque "//..." is written as an absolute URL (url.URL's
		// RequestURI puts the scheme before it); a path is written as its
		// RawPath when that is a valid escaping of it, which a target
		// net/http's server read always is but for bytes RFC 3986 has no
		// place for unescaped in a path (such as '{' or a byte past
		// ASCII), which are escaped.
		u.Path, u.RawPath = h.prefix+r.URL.Path, p
	case strings.HasPrefix(p, "/"):
		u.Opaque = p // written as it is: no escape changed
	default:
		u.Path = h.prefix + r.URL.Path
	}
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
	hd := w.Header()
	hd.Set(MarkerHeader, kind)
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintf(w, "{\"error\":%d,\"message\":%q}\n", http.StatusBadGateway, msg) // msg: plain ASCII, quoted alike in Go and JSON
}
