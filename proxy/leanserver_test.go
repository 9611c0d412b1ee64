package proxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// shapes is an upstream that answers in the shape its path names.
func shapes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		h := w.Header()
		h["Date"] = nil
		h.Set("X-Seen-Pragma", r.Header.Get("Pragma"))
		switch r.URL.Path {
		case "/length":
			h.Set("Content-Type", "application/json")
			h.Set("Content-Length", "16")
			w.Write([]byte(`{"name":"fern"}` + "\n"))
		case "/chunked":
			h.Set("Content-Type", "text/plain")
			w.Write([]byte("one "))
			w.(http.Flusher).Flush()
			w.Write([]byte("two"))
		case "/trailer":
			h.Set("Trailer", "X-Sum")
			w.Write([]byte("body"))
			w.(http.Flusher).Flush()
			h.Set("X-Sum", "4")
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/notmodified":
			h.Set("Etag", `"v1"`)
			w.WriteHeader(http.StatusNotModified)
		case "/empty":
			h.Set("Content-Length", "0")
		case "/odd":
			w.WriteHeader(599)
			w.Write([]byte("odd"))
		case "/big":
			h.Set("Content-Length", "100000")
			w.Write([]byte(strings.Repeat("b", 100000)))
		case "/close":
			h.Set("Connection", "close")
			w.Write([]byte("bye"))
		case "/multi":
			h.Add("Set-Cookie", "a=1")
			h.Add("Set-Cookie", "b=2")
			h.Add("X-Zed", "z")
			h.Add("X-Alpha", "a")
			w.Write([]byte("multi"))
		}
	})
}

// dialProxy opens a connection to addr, closed when the test ends, with a
// reader of its answers.
func dialProxy(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn, bufio.NewReader(conn)
}

// exchangeOn writes raw to conn and reads the answer whole.
func exchangeOn(t *testing.T, conn net.Conn, br *bufio.Reader, raw, method string) (*http.Response, []byte) {
	t.Helper()
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("read the answer to %q: %v", raw, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the body of the answer to %q: %v", raw, err)
	}
	return resp, body
}

// TestLeanMatchesNetHTTP sends each request as the lean server takes it and
// as net/http does (a Pragma field puts it outside the lean subset), and
// requires the same answer: status, fields, framing, body and trailers,
// byte for byte where the upstream's chunks do not decide.
func TestLeanMatchesNetHTTP(t *testing.T) {
	p := startProxy(t, upstreamOf(t, shapes()), nil)
	cases := []struct{ method, path, extra string }{
		{"POST", "/length", "Content-Length: 2\r\n\r\n{}"},
		{"GET", "/length", "\r\n"},
		{"HEAD", "/length", "\r\n"},
		{"GET", "/chunked", "\r\n"},
		{"GET", "/trailer", "\r\n"},
		{"GET", "/nocontent", "\r\n"},
		{"GET", "/notmodified", "\r\n"},
		{"GET", "/empty", "\r\n"},
		{"GET", "/odd", "\r\n"},
		{"GET", "/big", "\r\n"},
		{"GET", "/close", "\r\n"},
		{"GET", "/multi", "\r\n"},
		{"GET", "/length", "Connection: close\r\n\r\n"},
		{"GET", "/missing", "\r\n"},
	}
	for _, c := range cases {
		t.Run(c.method+c.path+fmt.Sprint(len(c.extra)), func(t *testing.T) {
			type answer struct {
				status           int
				header, trailer  http.Header
				body             string
				length           int64
				transferEncoding []string
				close, closed    bool
				raw              string
			}
			get := func(pragma string) answer {
				conn, _ := dialProxy(t, p.addr)
				var got strings.Builder
				br := bufio.NewReader(io.TeeReader(conn, &got))
				raw := c.method + " " + c.path + " HTTP/1.1\r\nHost: plants.test\r\n" + pragma + c.extra
				resp, body := exchangeOn(t, conn, br, raw, c.method)
				resp.Header.Del("X-Seen-Pragma")
				a := answer{resp.StatusCode, resp.Header, resp.Trailer, string(body), resp.ContentLength, resp.TransferEncoding, resp.Close, false, ""}
				// Whether the connection goes on: closed at once, or open.
				conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
				_, err := br.ReadByte()
				a.closed = errors.Is(err, io.EOF)
				// The bytes, but where chunks may fall otherwise from run
				// to run.
				if len(resp.TransferEncoding) == 0 {
					a.raw = strings.Replace(got.String(), "X-Seen-Pragma: "+strings.TrimSuffix(strings.TrimPrefix(pragma, "Pragma: "), "\r\n")+"\r\n", "", 1)
				}
				return a
			}
			lean, std := get(""), get("Pragma: x\r\n")
			if !reflect.DeepEqual(lean, std) {
				t.Errorf("the lean server answers\n  %+v\nnet/http answers\n  %+v", lean, std)
			}
		})
	}
}

// TestLeanConnection follows one connection: requests in a row and
// pipelined on the lean server, then one outside its subset hands the
// connection to net/http, which serves the rest; every answer in order.
func TestLeanConnection(t *testing.T) {
	p := startProxy(t, upstreamOf(t, shapes()), nil)
	conn, br := dialProxy(t, p.addr)
	get := func(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n" }
	// In a row, then two at once (pipelined), then a chunked request.
	for _, path := range []string{"/length", "/chunked"} {
		if _, body := exchangeOn(t, conn, br, get(path), "GET"); len(body) == 0 {
			t.Fatalf("%s: no body", path)
		}
	}
	io.WriteString(conn, get("/odd")+get("/multi"))
	chunked := "POST /length HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
	io.WriteString(conn, chunked+get("/empty")+get("/length"))
	for _, want := range []struct {
		status int
		body   string
	}{{599, "odd"}, {200, "multi"}, {200, `{"name":"fern"}` + "\n"}, {200, ""}, {200, `{"name":"fern"}` + "\n"}} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("read the answer (%d %q awaited): %v", want.status, want.body, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want.status || string(body) != want.body {
			t.Fatalf("answer %d %q, want %d %q", resp.StatusCode, body, want.status, want.body)
		}
	}
	if n := p.verdict(Options{}).Exchanges; n != 7 {
		t.Errorf("%d exchanges counted, want 7", n)
	}
}

// TestLeanHeadInPieces: a request whose head and body come in pieces is
// served once whole; one whose head breaks off is closed without an
// answer; one longer than the lean buffer goes to net/http.
func TestLeanHeadInPieces(t *testing.T) {
	p := startProxy(t, upstreamOf(t, shapes()), nil)
	dial := func() (net.Conn, *bufio.Reader) { return dialProxy(t, p.addr) }
	raw := "POST /length HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}"
	conn, br := dial()
	for _, piece := range []string{raw[:3], raw[3:20], raw[20 : len(raw)-2], raw[len(raw)-2 : len(raw)-1], raw[len(raw)-1:]} {
		io.WriteString(conn, piece)
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a request in pieces: %v %v", resp, err)
	}

	long := "GET /length HTTP/1.1\r\nHost: a\r\nX-Long: " + strings.Repeat("l", leanBufSize) + "\r\n\r\n"
	conn, br = dial()
	if resp, body := exchangeOn(t, conn, br, long, "GET"); resp.StatusCode != http.StatusOK || len(body) != 16 {
		t.Errorf("a head past the lean buffer: %d %q", resp.StatusCode, body)
	}

	conn, br = dial()
	io.WriteString(conn, raw[:30])
	conn.(*net.TCPConn).CloseWrite()
	if b, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("a head that breaks off: read %q, %v; want the connection closed", b, err)
	}
}

// FuzzLeanServer sends the proxy any bytes, then ends its side: whatever
// they are, the connection is answered or closed, and soon (nothing waits
// for bytes that will not come); a request the lean reader takes, its body
// whole, is answered.
//
//	go test -run='^$' -fuzz=FuzzLeanServer ./proxy/
func FuzzLeanServer(f *testing.F) {
	for _, s := range []string{
		"POST /length HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}",
		"GET /chunked HTTP/1.1\r\nHost: a\r\n\r\nGET /odd HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /length HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\n{}",
		"GET /length HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
		"GET /length HTTP/1.1\r\nHo",
		"\x16\x03\x01\x00\xa5\x01\x00\x00",
	} {
		f.Add([]byte(s))
	}
	p := startProxy(f, upstreamOf(f, shapes()), nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		conn, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write(b); err != nil {
			return // the proxy closed first: an answer to what came before
		}
		conn.(*net.TCPConn).CloseWrite()
		got, err := io.ReadAll(conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("%q: neither answered nor closed within 5 s (read %q)", b, got)
		}
		if hd, st := readLeanHead(b); st == headTaken && hd.size+int(hd.contentLength) <= len(b) && !strings.HasPrefix(string(got), "HTTP/1.1 ") {
			t.Errorf("%q: taken, answered %q", b, got)
		}
	})
}
