package proxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTargetAsWritten: the request-target reaches the upstream byte for
// byte, escapes undecoded, a target that begins with "//" (which a URL
// would read as an authority) included.
func TestTargetAsWritten(t *testing.T) {
	cases := []struct {
		name, prefix, target, want string
	}{
		{"an authority-like path", "", "//evil.example/a%2Fb%41", "//evil.example/a%2Fb%41"},
		{"an authority-like path and a query", "", "//evil.example/a%2Fb%41?x=%2F&&y", "//evil.example/a%2Fb%41?x=%2F&&y"},
		{"three slashes", "", "///a%2f", "///a%2f"},
		{"escapes of unreserved bytes", "", "/pl%61nts/%2F%41", "/pl%61nts/%2F%41"},
		{"sub-delimiters and an empty query", "", "/a;b=c,d@e!$'()*+?", "/a;b=c,d@e!$'()*+?"},
		{"an authority-like path behind a prefix", "/api", "//evil.example/a%2Fb", "/api//evil.example/a%2Fb"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen := make(chan received, 1)
			up := upstreamOf(t, recorder(answer{status: 204}, seen))
			p := startProxy(t, up+tc.prefix, nil)
			resp, _ := rawExchange(t, p.addr, []byte("GET "+tc.target+" HTTP/1.1\r\nHost: x\r\n\r\n"), false)
			if resp.StatusCode != 204 {
				t.Fatalf("status %d (%s %q), want the upstream's 204", resp.StatusCode, MarkerHeader, resp.Header.Get(MarkerHeader))
			}
			if got := (<-seen).URI; got != tc.want {
				t.Errorf("the upstream got the target %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStatusBelow100: an upstream status below 100 is no HTTP status (RFC
// 9110, 15), and net/http's client takes it for a final answer: the client
// gets the proxy's own 502 at once (upstream-failed, not upstream-timeout
// after waiting on the upstream), never held against the service.
func TestStatusBelow100(t *testing.T) {
	for _, status := range []string{"099", "000", "001"} {
		t.Run(status, func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			up := upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				conn, buf, err := http.NewResponseController(w).Hijack()
				if err != nil {
					return
				}
				defer conn.Close()
				buf.WriteString("HTTP/1.1 " + status + " Odd\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
				buf.Flush()
				<-hold // the connection stays open: nothing to wait for
			}))
			p := startProxy(t, up, func(c *Config) { c.Timeout = 30 * time.Second })
			resp, body := post(t, p.url, "/plants", `{"id":1,"name":"Fern"}`, "Authorization", "Bearer tok", "Content-Type", "application/json")
			if resp.StatusCode != http.StatusBadGateway || resp.Header.Get(MarkerHeader) != OwnFailed {
				t.Errorf("status %d, %s %q (%s); want 502, %q", resp.StatusCode, MarkerHeader, resp.Header.Get(MarkerHeader), body, OwnFailed)
			}
			v := p.verdict(Options{})
			if v.Counts.ProxyAnswers[OwnFailed] != 1 || v.Counts.Judged != 0 || v.Counts.ServerViolations != 0 {
				t.Errorf("own %v, judged %d, violations %d; want one own answer, nothing held against the service", v.Counts.ProxyAnswers, v.Counts.Judged, v.Counts.ServerViolations)
			}
		})
	}
}

// TestClientLeaves: clients that read the head of an answer still
// streaming, then close their connections, end their exchanges: each
// upstream request is cancelled (its connection freed), the proxy stops
// within its grace with nothing to cut, and each exchange is counted as its
// client's leaving, not as the upstream breaking off.
func TestClientLeaves(t *testing.T) {
	const clients = 12
	var started, freed atomic.Int64
	allFreed := make(chan struct{})
	up := upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		started.Add(1)
		w.Header().Set("Content-Type", "application/json")
		rc := http.NewResponseController(w)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				if freed.Add(1) == clients {
					close(allFreed)
				}
				return
			case <-tick.C:
				io.WriteString(w, `[0]`)
				if rc.Flush() != nil {
					continue // the context says why
				}
			}
		}
	}))
	p := startProxy(t, up, nil)
	for range clients {
		conn, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(conn, "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: 22\r\n\r\n{\"id\":1,\"name\":\"Fern\"}")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("read the answer's head: %v", err)
		}
		if resp.StatusCode != 200 || resp.ContentLength != -1 {
			t.Fatalf("status %d, length %d; want a streaming 200", resp.StatusCode, resp.ContentLength)
		}
		conn.Close()
	}
	select {
	case <-allFreed:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d of %d upstream requests were cancelled once their clients left", freed.Load(), clients)
	}
	v := p.verdict(Options{}) // Serve returning ErrCut fails the test
	if v.Counts.ClientGone != clients || v.Counts.UpstreamBrokeOff != 0 || v.Counts.Judged != 0 || len(v.Counts.ProxyAnswers) != 0 {
		t.Errorf("gone %d, broken %d, judged %d, own %v; want %d exchanges whose clients left", v.Counts.ClientGone, v.Counts.UpstreamBrokeOff, v.Counts.Judged, v.Counts.ProxyAnswers, clients)
	}
	if started.Load() != clients {
		t.Errorf("the upstream saw %d requests, want %d", started.Load(), clients)
	}
}

// TestFramingConflicts: a request that carries both Content-Length and
// Transfer-Encoding is read by its chunks (net/http's server drops the
// Content-Length, and hides that it was there), forwarded chunked without
// it, and has its connection closed after the answer (RFC 9112, 6.1); so
// has a chunked request or one of HTTP/1.0 (where net/http's server drops
// a Transfer-Encoding), since the proxy cannot tell them apart. A request
// of a declared length alone keeps its connection.
func TestFramingConflicts(t *testing.T) {
	cases := []struct {
		name, req string
		closed    bool
	}{
		{"Content-Length and Transfer-Encoding", "POST /plants HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", true},
		{"Transfer-Encoding and Content-Length", "POST /plants HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n2\r\n{}\r\n0\r\n\r\n", true},
		{"chunked alone", "POST /plants HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", true},
		{"HTTP/1.0 keep-alive with both", "POST /plants HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}", true},
		{"Content-Length alone", "POST /plants HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", false},
		{"HTTP/1.0 keep-alive with Content-Length alone", "POST /plants HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen := make(chan received, 2)
			up := upstreamOf(t, recorder(answer{status: 200, header: [][2]string{{"Content-Type", "application/json"}}, body: []byte(`{"name":"x"}`)}, seen))
			p := startProxy(t, up, nil)
			conn, err := net.Dial("tcp", p.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(conn)
			io.WriteString(conn, tc.req)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("read the answer: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 || string(body) != `{"name":"x"}` {
				t.Fatalf("status %d, body %q, %v; want the upstream's answer", resp.StatusCode, body, err)
			}
			got := <-seen
			if string(got.Body) != "{}" {
				t.Errorf("the upstream got the body %q, want %q", got.Body, "{}")
			}
			if _, ok := got.Header["Content-Length"]; ok && got.TransferEncoding != nil {
				t.Errorf("the upstream got both Content-Length and Transfer-Encoding")
			}
			// A second request on the same connection: answered, or the
			// connection is closed.
			io.WriteString(conn, "GET /plants HTTP/1.1\r\nHost: x\r\n\r\n")
			_, err = http.ReadResponse(br, nil)
			closed := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || (err != nil && strings.Contains(err.Error(), "connection reset"))
			if err != nil && !closed {
				t.Fatalf("the second request: %v", err)
			}
			if closed != tc.closed || resp.Close != tc.closed {
				t.Errorf("connection closed %v (Connection: close %v), want %v", closed, resp.Close, tc.closed)
			}
		})
	}
}

// TestFramingAliases: a field whose name reads as Transfer-Encoding,
// Content-Length or Host once '_' is read as '-' never reaches the
// upstream (a server that maps both to one name, as CGI does, would take
// it for a second framing); other names with '_' do.
func TestFramingAliases(t *testing.T) {
	seen := make(chan received, 1)
	up := upstreamOf(t, recorder(answer{status: 204}, seen))
	p := startProxy(t, up, nil)
	rawExchange(t, p.addr, []byte("POST /plants HTTP/1.1\r\nHost: x\r\nTransfer_Encoding: chunked\r\ncontent_length: 99\r\nCONTENT_LENGTH: 7\r\n"+
		"Content_Length_Extra: 1\r\nX_Trace_Id: t-1\r\nContent-Length: 2\r\n\r\n{}"), false)
	got := <-seen
	names := make([]string, 0, len(got.Header))
	for k := range got.Header {
		names = append(names, k)
	}
	slices.Sort(names)
	if want := []string{"Content-Length", "Content_length_extra", "X_trace_id"}; !slices.Equal(names, want) {
		t.Errorf("the upstream got the fields %q, want %q", names, want)
	}
	if string(got.Body) != "{}" || got.ContentLength != 2 {
		t.Errorf("the upstream got %q of length %d, want %q of 2", got.Body, got.ContentLength, "{}")
	}
}
