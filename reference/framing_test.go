package reference

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/spec"
)

// These tests speak HTTP on the wire: the guard lives on the connection, where
// a handler test cannot reach.

const plantJSON = `{"id":1,"name":"Fern"}`

// chunked is body in the chunked transfer coding: one chunk and the last.
func chunked(body string) string {
	return fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body)
}

// rawRequest is a POST /plants with the right token and media type, the
// given framing fields (each ending in CRLF) and body, as bytes on the wire.
func rawRequest(proto, fields, body string) string {
	return "POST /plants " + proto + "\r\nHost: plants\r\nAuthorization: Bearer " + testToken +
		"\r\nContent-Type: application/json\r\n" + fields + "\r\n" + body
}

// dialServer serves s with Serve on a loopback port and returns a connection
// to it that gives up reading after a few seconds.
func dialServer(t *testing.T, s *Server) net.Conn {
	t.Helper()
	base, _ := serveLoopback(t, s, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	return conn
}

// readResponse reads one response from br.
func readResponse(t *testing.T, br *bufio.Reader) (*http.Response, spec.Response) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response body: %v", err)
	}
	return resp, spec.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// checkRefusal checks that resp refuses a request with both lengths: a 400
// Error record, said to close the connection.
func checkRefusal(t *testing.T, resp *http.Response, got spec.Response) {
	t.Helper()
	checkError(t, got, errAmbiguousFraming)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	// ReadResponse turns the Connection: close field into Close.
	if !resp.Close {
		t.Errorf("the response lacks Connection: close")
	}
}

// checkClosed checks that the server closed the connection after what br
// has read: no more bytes (no second response) and then EOF.
func checkClosed(t *testing.T, br *bufio.Reader) {
	t.Helper()
	rest, err := io.ReadAll(br)
	if len(rest) > 0 {
		t.Errorf("more came after the refusal (a smuggled request answered?): %q", rest)
	}
	if err != nil {
		t.Errorf("the connection was not closed cleanly after the refusal: %v", err)
	}
}

func TestBothLengthsAreRefused(t *testing.T) {
	// A request the back end would see if it framed by Transfer-Encoding
	// what the front end framed by Content-Length, or the reverse.
	second := rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\n", len(plantJSON)), plantJSON)
	hiddenInLength := "0\r\n\r\n" + second
	hiddenInChunks := chunked(second)

	tests := []struct {
		name    string
		request string
		pieces  int // send the request in this many writes; 0 means one
	}{
		{name: "Content-Length before Transfer-Encoding",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(chunked(plantJSON))), chunked(plantJSON))},
		{name: "Transfer-Encoding before Content-Length",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Transfer-Encoding: chunked\r\nContent-Length: %d\r\n", len(chunked(plantJSON))), chunked(plantJSON))},
		{name: "names in lower case",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("transfer-encoding: chunked\r\ncontent-length: %d\r\n", len(chunked(plantJSON))), chunked(plantJSON))},
		{name: "a request hidden in the Content-Length body",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(hiddenInLength)), hiddenInLength)},
		{name: "a request hidden in the chunked body",
			// Content-Length covers the chunk size line alone.
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(fmt.Sprintf("%x\r\n", len(second)))), hiddenInChunks)},
		{name: "HTTP/1.0, which net/http frames by Content-Length",
			request: rawRequest("HTTP/1.0", fmt.Sprintf("Transfer-Encoding: chunked\r\nContent-Length: %d\r\n", len(plantJSON)), plantJSON)},
		{name: "a coding other than chunked, which net/http answers with a plain 501",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: gzip, chunked\r\n", len(plantJSON)), plantJSON)},
		{name: "lines ended by LF alone",
			request: strings.ReplaceAll(rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(chunked(plantJSON))), ""), "\r\n", "\n") + chunked(plantJSON)},
		{name: "sent a few bytes at a time",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(chunked(plantJSON))), chunked(plantJSON)),
			pieces:  40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := NewMemoryStore()
			conn := dialServer(t, newServer(t, Config{Store: store}))
			if tt.pieces == 0 {
				tt.pieces = 1
			}
			size := (len(tt.request) + tt.pieces - 1) / tt.pieces
			for rest := tt.request; rest != ""; {
				n := min(size, len(rest))
				if _, err := io.WriteString(conn, rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
				if tt.pieces > 1 {
					time.Sleep(2 * time.Millisecond)
				}
			}
			br := bufio.NewReader(conn)
			resp, got := readResponse(t, br)
			checkRefusal(t, resp, got)
			checkClosed(t, br)
			if n := store.Len(); n != 0 {
				t.Errorf("the store holds %d plants after the refusal, want none", n)
			}
		})
	}
}

// TestRefusalComesAfterEarlierRequests sends a good request and then one with
// both lengths, in one write: the first is answered, then the second is
// refused and the connection closed.
func TestRefusalComesAfterEarlierRequests(t *testing.T) {
	store := NewMemoryStore()
	conn := dialServer(t, newServer(t, Config{Store: store}))
	good := rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\n", len(plantJSON)), plantJSON)
	bad := rawRequest("HTTP/1.1", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", chunked(`{"id":2,"name":"Fern"}`))
	if _, err := io.WriteString(conn, good+bad); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if _, got := readResponse(t, br); got.Status != http.StatusOK {
		t.Errorf("first request: status %d, want 200; body: %s", got.Status, got.Body)
	}
	resp, got := readResponse(t, br)
	checkRefusal(t, resp, got)
	checkClosed(t, br)
	if n := store.Len(); n != 1 {
		t.Errorf("the store holds %d plants, want 1", n)
	}
}

// TestOneLengthIsAccepted is the control: chunked alone and Content-Length
// alone are served as before, and the connection stays open. Each request is
// sent twice in one write, so the guard must find where the first one ends.
// Between them is the CRLF some old clients send after a POST body, which
// net/http skips.
func TestOneLengthIsAccepted(t *testing.T) {
	tests := []struct {
		name   string
		fields string
		body   func(string) string
	}{
		{"Transfer-Encoding alone", "Transfer-Encoding: chunked\r\n", chunked},
		{"Content-Length alone", fmt.Sprintf("Content-Length: %d\r\n", len(plantJSON)), func(b string) string { return b }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := NewMemoryStore()
			conn := dialServer(t, newServer(t, Config{Store: store}))
			first := rawRequest("HTTP/1.1", tt.fields, tt.body(plantJSON))
			second := rawRequest("HTTP/1.1", tt.fields, tt.body(strings.Replace(plantJSON, `"id":1`, `"id":2`, 1)))
			if _, err := io.WriteString(conn, first+"\r\n"+second); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			for i := range 2 {
				resp, got := readResponse(t, br)
				if got.Status != http.StatusOK || string(got.Body) != `{"name":"Fern"}`+"\n" {
					t.Errorf("request %d: status %d, body %q; want 200 and the Plant record", i+1, got.Status, got.Body)
				}
				if resp.Close {
					t.Errorf("request %d: the server closes the connection, want it kept open", i+1)
				}
			}
			if n := store.Len(); n != 2 {
				t.Errorf("the store holds %d plants, want 2", n)
			}
		})
	}
}

// TestExpectContinueGoesThrough checks that the guard passes on a header
// section without waiting for the body. A client that sends Expect:
// 100-continue waits for the server's 100 before it sends the body.
func TestExpectContinueGoesThrough(t *testing.T) {
	conn := dialServer(t, newServer(t, Config{}))
	head := rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nExpect: 100-continue\r\n", len(plantJSON)), "")
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if resp, _ := readResponse(t, br); resp.StatusCode != http.StatusContinue {
		t.Fatalf("status %d, want 100 Continue", resp.StatusCode)
	}
	if _, err := io.WriteString(conn, plantJSON); err != nil {
		t.Fatal(err)
	}
	if _, got := readResponse(t, br); got.Status != http.StatusOK {
		t.Errorf("status %d, want 200; body: %s", got.Status, got.Body)
	}
}

// TestOtherBadRequestsAsBefore checks that the guard leaves other bad
// requests to net/http and the handler as before. If the guard can't frame a
// request, nothing after it is ever read as a request.
func TestOtherBadRequestsAsBefore(t *testing.T) {
	// Over net/http's limit, and then over the guard's buffer as well.
	for _, size := range []int{maxHeaderBytes + 8<<10, maxHeaderBytes + 64<<10} {
		t.Run(fmt.Sprintf("header section of %d bytes", size), func(t *testing.T) {
			conn := dialServer(t, newServer(t, Config{}))
			io.WriteString(conn, "POST /plants HTTP/1.1\r\nHost: plants\r\nX-Long: "+strings.Repeat("a", size)+"\r\n\r\n")
			br := bufio.NewReader(conn)
			if resp, _ := readResponse(t, br); resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
				t.Errorf("status %d, want net/http's 431", resp.StatusCode)
			}
			checkClosed(t, br)
		})
	}
	t.Run("malformed chunked body, then a request", func(t *testing.T) {
		store := NewMemoryStore()
		conn := dialServer(t, newServer(t, Config{Store: store}))
		body := "16\r\n" + plantJSON + "XX0\r\n\r\n" // no CRLF after the chunk
		after := rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\n", len(plantJSON)), plantJSON)
		io.WriteString(conn, rawRequest("HTTP/1.1", "Transfer-Encoding: chunked\r\n", body)+after)
		br := bufio.NewReader(conn)
		_, got := readResponse(t, br)
		checkError(t, got, errBodyUnreadable)
		checkClosed(t, br)
		if n := store.Len(); n != 0 {
			t.Errorf("the store holds %d plants, want none", n)
		}
	})
}

// TestHeaderEnd pins down where a header section ends: at the first empty
// line, with lines ended by CRLF or LF alone, as net/http reads them.
func TestHeaderEnd(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nbody", len("GET / HTTP/1.1\r\nHost: x\r\n\r\n")},
		{"GET / HTTP/1.1\nHost: x\n\nbody", len("GET / HTTP/1.1\nHost: x\n\n")},
		{"GET / HTTP/1.1\r\nHost: x\n\r\n", len("GET / HTTP/1.1\r\nHost: x\n\r\n")},
		{"GET / HTTP/1.1\r\nHost: x\r\n", 0},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r", 0},
		{"GET / HTTP/1.1\r\nX: \r\r\n\r\n", len("GET / HTTP/1.1\r\nX: \r\r\n\r\n")},
	}
	for _, tt := range tests {
		if got := headerEnd([]byte(tt.in), 0); got != tt.want {
			t.Errorf("headerEnd(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
