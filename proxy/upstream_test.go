package proxy

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRequestHead: the lean client writes each request as net/http's
// Request.Write writes it (which http.Transport uses), byte for byte: the
// same request line, Host, User-Agent (none when the client sent none),
// Content-Length, fields in the same order, values cleaned alike.
func TestRequestHead(t *testing.T) {
	cases := []struct {
		name, method, host, target string
		header                     http.Header
		body                       string
	}{
		{"a create", "POST", "127.0.0.1:8080", "/plants", http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}, `{"id":1,"name":"Fern"}`},
		{"a user agent, repeated fields", "POST", "plants.example", "/api/v1/plants?x=%2F&y", http.Header{
			"User-Agent": {"curl/8.5.0", "second"}, "X-Multi": {"b", "a"}, "Accept": {"*/*"}, "A-First": {"1"},
		}, "{}"},
		{"an empty user agent", "POST", "h", "/plants", http.Header{"User-Agent": {""}}, "x"},
		{"a user agent of blanks", "POST", "h", "/plants", http.Header{"User-Agent": {" \t "}}, "x"},
		{"values with white space at their edges", "POST", "h", "/plants", http.Header{"X-Spaces": {"  a  b\t", "\tc "}}, ""},
		{"fields net/http writes apart or not", "POST", "h", "/plants", http.Header{
			"Content-Length": {"99"}, "Host": {"other"}, "Transfer-Encoding": {"chunked"}, "Trailer": {"X"},
		}, "abc"},
		{"names net/http does not write", "POST", "h", "/plants", http.Header{"Bad Name": {"x"}, "": {"y"}, "Good": {"z"}}, ""},
		{"GET without a body", "GET", "h", "/plants", http.Header{"Accept": {"application/json"}}, ""},
		{"HEAD", "HEAD", "h", "/", nil, ""},
		{"DELETE without a body", "DELETE", "h", "/plants/1", nil, ""},
		{"PUT and PATCH without a body", "PATCH", "h", "/plants", nil, ""},
		{"OPTIONS", "OPTIONS", "h", "/plants", nil, ""},
		{"an international host", "POST", "bücher.example:8443", "/plants", nil, "{}"},
		{"an IPv6 host with a zone", "POST", "[fe80::1%25eth0]:8080", "/plants", nil, "{}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			to, err := url.Parse("http://" + tc.host + tc.target)
			if err != nil {
				t.Fatal(err)
			}
			to.Opaque = to.EscapedPath()
			u := newUpstreamClient("127.0.0.1:1", to.Host, nil, DefaultTimeout)
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			target, ok := leanTarget(to)
			if !ok {
				t.Fatalf("leanTarget(%q) refused", to)
			}
			var got bytes.Buffer
			w := bufio.NewWriter(&got)
			u.writeHead(w, &outgoing{method: tc.method, target: target, header: tc.header, body: body})
			w.Write(body)
			w.Flush()

			h := tc.header.Clone()
			if h == nil {
				h = http.Header{}
			}
			if _, ok := h["User-Agent"]; !ok {
				h["User-Agent"] = []string{""}
			}
			req := &http.Request{Method: tc.method, URL: to, Host: to.Host, Header: h, Body: http.NoBody, ContentLength: int64(len(body))}
			if body != nil {
				req.Body = io.NopCloser(bytes.NewReader(body))
			}
			var want bytes.Buffer
			if err := req.Write(&want); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("the lean client writes\n%q\nRequest.Write writes\n%q", got.String(), want.String())
			}
		})
	}
	for _, bad := range []string{"/a\x00b", "/a\x7f", "/a\nb"} {
		if _, ok := leanTarget(&url.URL{Opaque: bad}); ok {
			t.Errorf("leanTarget takes %q, which Request.Write refuses", bad)
		}
	}
	if !strings.HasPrefix(hostLine("bücher.example"), "Host: xn--") {
		t.Errorf("hostLine of an international name = %q, want punycode", hostLine("bücher.example"))
	}
}

// TestUpstreamConnections: the lean client's connections to the upstream
// are reused while the upstream keeps them; one it closed while idle, or
// closes after each answer, is never used again; an answer whose header
// section is past the bound is the proxy's own 502. Each request is a
// valid create, answered 200.
func TestUpstreamConnections(t *testing.T) {
	var conns atomic.Int32
	serve := func(t *testing.T, idle time.Duration, close bool) string {
		srv := &http.Server{
			IdleTimeout: idle,
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if close {
					w.Header().Set("Connection", "close")
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"name":"Fern"}`)
			}),
			ConnState: func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			},
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String()
	}
	cases := []struct {
		name      string
		idle      time.Duration // the upstream's idle timeout
		close     bool          // the upstream closes after each answer
		pause     time.Duration // between requests
		wantConns int32
	}{
		{"kept open: one connection", time.Minute, false, 0, 1},
		{"closed while idle: a new one each time", 20 * time.Millisecond, false, 100 * time.Millisecond, 3},
		{"Connection: close: a new one each time", time.Minute, true, 0, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conns.Store(0)
			p := startProxy(t, serve(t, tc.idle, tc.close), nil)
			for i := range 3 {
				time.Sleep(tc.pause)
				resp, body := valid(`{"id":`+strconv.Itoa(i+1)+`,"name":"Fern"}`).send(t, p.url)
				if resp.StatusCode != 200 || resp.Header.Get(MarkerHeader) != "" {
					t.Fatalf("request %d: status %d, %s %q: %s", i+1, resp.StatusCode, MarkerHeader, resp.Header.Get(MarkerHeader), body)
				}
			}
			if got := conns.Load(); got != tc.wantConns {
				t.Errorf("the upstream saw %d connections, want %d", got, tc.wantConns)
			}
		})
	}

	t.Run("a header section past the bound", func(t *testing.T) {
		big := upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Big", strings.Repeat("a", maxResponseHeader+1))
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"name":"Fern"}`)
		}))
		p := startProxy(t, big, nil)
		resp, _ := valid(`{"id":1,"name":"Fern"}`).send(t, p.url)
		if resp.StatusCode != http.StatusBadGateway || resp.Header.Get(MarkerHeader) != OwnFailed {
			t.Errorf("status %d, %s %q; want 502, %s", resp.StatusCode, MarkerHeader, resp.Header.Get(MarkerHeader), OwnFailed)
		}
	})
}
