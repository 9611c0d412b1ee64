// Package har reads and writes exchanges as HAR 1.2 files (the HTTP
// Archive format that browsers' developer tools, mitmproxy, k6 and
// Playwright write, and that API clients import). `plantcheck run` and
// `plantcheck proxy` write every exchange they make or see with --har,
// secrets hidden (hide.go); `plantcheck judge` reads a HAR back (read.go)
// and has the proxy judge its exchanges as it judges live ones.
//
// A body is written whole up to a bound (MaxBody, or the proxy's
// --max-judge when lower); a longer one is cut, and the cut is marked the way HAR
// says a body's size: content.size (or request.bodySize) is the body's
// length as sent, larger than the text kept, and a comment says so. The
// reader takes a body whose recorded text is shorter than its size, or
// whose comment says it was cut or truncated, for a cut body.
package har

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/internal/exchange"
)

// Version is the HAR version written.
const Version = "1.2"

// MaxBody bounds the bytes of a body written: a longer body is cut, and
// marked. It holds the size probe in three-byte characters (205 KiB) and
// its echo whole, so that `plantcheck judge` sees what the run saw; at
// 1 MiB, hiding secrets (about 25 ms a MiB) made `run --har` 13% slower.
const MaxBody = 256 << 10

// NoAnswer begins the comment of an exchange that got no answer the
// recording client could read, before the client's error.
const NoAnswer = "no answer: "

// CutComment begins the comment of a body written cut.
const CutComment = "plantcheck: body cut"

// Entry is one exchange.
type Entry struct {
	StartedDateTime string   `json:"startedDateTime"`
	Time            float64  `json:"time"`
	Request         Request  `json:"request"`
	Response        Response `json:"response"`
	Cache           struct{} `json:"cache"`
	Timings         Timings  `json:"timings"`
	Comment         string   `json:"comment,omitempty"`
}

// NameValue is a header, a cookie or a query parameter.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Request is an entry's request.
type Request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []NameValue `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	QueryString []NameValue `json:"queryString"`
	PostData    *PostData   `json:"postData,omitempty"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
}

// PostData is a request's body; one that is not UTF-8 is written in base64
// with Encoding "base64", as a response's (HAR 1.2 gives it no encoding).
type PostData struct {
	MimeType string      `json:"mimeType"`
	Text     *string     `json:"text,omitempty"`
	Params   []NameValue `json:"params,omitempty"`
	Encoding string      `json:"encoding,omitempty"`
	Comment  string      `json:"comment,omitempty"`
}

// Response is an entry's response.
type Response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []NameValue `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	Content     Content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
}

// Content is a response's body.
type Content struct {
	Size     int64   `json:"size"`
	MimeType string  `json:"mimeType"`
	Text     *string `json:"text,omitempty"`
	Encoding string  `json:"encoding,omitempty"`
	Comment  string  `json:"comment,omitempty"`
}

// Timings are an entry's times, in milliseconds (-1: not known).
type Timings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// Record is one exchange as a recording has it, with when it started and
// what only a recording says; NewEntry hides its secrets.
type Record struct {
	exchange.Exchange
	Started  time.Time
	NotKept  bool     // nothing of the bodies kept (BodyTotal, RespTotal: -1 unknown)
	Comment  string   // of the exchange as a whole (why no answer came)
	Redacted []string // the headers whose values the recording redacted
}

// NewEntry writes x as a HAR entry, every secret hidden by h; bodies are
// cut at max bytes.
func NewEntry(x Record, h *Hider, max int64) Entry {
	e := Entry{
		StartedDateTime: x.Started.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Time:            ms(x.Duration),
		Timings:         Timings{Send: 0, Wait: ms(x.Duration), Receive: 0},
		Comment:         h.String(x.Comment),
	}
	u := h.String(x.URL)
	e.Request = Request{
		Method: h.String(x.Method), URL: u, HTTPVersion: "HTTP/1.1",
		Cookies: []NameValue{}, Headers: headers(x.Header, h), QueryString: query(u),
		HeadersSize: -1, BodySize: bodySize(x.Body, x.BodyTotal, x.NotKept),
	}
	if !x.NotKept && (len(x.Body) > 0 || x.BodyTotal > 0 || x.BodyIncomplete != "") {
		p := &PostData{MimeType: h.String(x.Header.Get("Content-Type"))}
		e.Request.BodySize, p.Text, p.Encoding, p.Comment = body(h, x.Body, x.BodyTotal, max, x.BodyIncomplete)
		e.Request.PostData = p
	} else if x.NotKept {
		e.Request.Comment = "plantcheck: request body not kept"
	}
	e.Response = Response{
		Status: x.Status, StatusText: http.StatusText(x.Status), HTTPVersion: "HTTP/1.1",
		Cookies: []NameValue{}, Headers: headers(x.RespHeader, h), HeadersSize: -1,
		BodySize: bodySize(x.RespBody, x.RespTotal, x.NotKept),
	}
	c := &e.Response.Content
	*c = Content{Size: e.Response.BodySize, MimeType: h.String(x.RespHeader.Get("Content-Type"))}
	switch {
	case x.NotKept:
		c.Comment = "plantcheck: response body not kept"
	case x.Status != 0:
		c.Size, c.Text, c.Encoding, c.Comment = body(h, x.RespBody, x.RespTotal, max, x.RespIncomplete)
		e.Response.BodySize = c.Size
	}
	return e
}

// body writes the first max bytes of a body of total bytes, secrets hidden
// (those across the cut too): UTF-8 as text, else base64, with a comment
// when it is cut or incomplete; size is its length as sent, changed by as
// much as the hiding changed it.
func body(h *Hider, b []byte, total, max int64, incomplete string) (size int64, text *string, encoding, comment string) {
	total = bodySize(b, total, false)
	if limit := max + int64(h.margin()); int64(len(b)) > limit {
		b = b[:limit]
	}
	// One copy of the body, hidden and cut as a string, the file's text.
	t := h.String(string(b))
	size = total + int64(len(t)-len(b))
	if int64(len(t)) > max {
		t = t[:max]
	}
	switch {
	case int64(len(t)) < size:
		comment = fmt.Sprintf("%s: %d of %d bytes kept", CutComment, len(t), size)
	case incomplete != "":
		comment = CutComment + ": not read to its end"
	}
	if utf8.ValidString(t) {
		return size, &t, "", comment
	}
	t = base64.StdEncoding.EncodeToString([]byte(t))
	return size, &t, "base64", comment
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// bodySize is a body's length as sent; -1 when not known.
func bodySize(b []byte, total int64, notKept bool) int64 {
	switch {
	case total > 0:
		return max(total, int64(len(b)))
	case notKept:
		return -1
	}
	return int64(len(b))
}

// headers writes a header in a stable order, values hidden.
func headers(h http.Header, hd *Hider) []NameValue {
	out := []NameValue{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			out = append(out, NameValue{Name: hd.String(k), Value: hd.header(k, v)})
		}
	}
	return out
}

// query lists a URL's query parameters (the URL is hidden already).
func query(u string) []NameValue {
	out := []NameValue{}
	pu, err := url.Parse(u)
	if err != nil || pu.RawQuery == "" {
		return out
	}
	for _, kv := range strings.Split(pu.RawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		out = append(out, NameValue{Name: k, Value: v})
	}
	return out
}

// Writer writes a HAR file as its entries come (a proxy that runs for days
// keeps none in memory); Close ends the file. It is safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	n      int64
	err    error
	closed bool
}

// Create creates (or truncates) the HAR file at path and writes its head.
func Create(path, creator, version string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	head, _ := json.Marshal(map[string]string{"name": creator, "version": version})
	fmt.Fprintf(w.w, "{\"log\":{\"version\":%q,\"creator\":%s,\"entries\":[", Version, head)
	return w, nil
}

// Add writes one entry. A write that fails stops the file; Close says why.
func (w *Writer) Add(e Entry) {
	b, err := json.Marshal(e)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || w.closed {
		return
	}
	if err != nil {
		w.err = err
		return
	}
	if w.n > 0 {
		w.w.WriteByte(',')
	}
	w.w.WriteByte('\n')
	if _, err := w.w.Write(b); err != nil {
		w.err = err
		return
	}
	w.n++
}

// Close ends the file and closes it; it reports the first error of any
// write, and how many entries were written.
func (w *Writer) Close() (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.n, w.err
	}
	w.closed = true
	io.WriteString(w.w, "\n]}}\n")
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	return w.n, w.err
}
