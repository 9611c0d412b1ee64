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

// These tests speak HTTP on the wire: what they check is decided by net/http's
// reading of the connection, where a handler test cannot reach.

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

// checkClosed checks that the server closed the connection after what br
// has read: no more bytes (no second response, so no smuggled request was
// answered) and then EOF.
func checkClosed(t *testing.T, br *bufio.Reader) {
	t.Helper()
	rest, err := io.ReadAll(br)
	if len(rest) > 0 {
		t.Errorf("more came after the answer (a smuggled request answered?): %q", rest)
	}
	if err != nil {
		t.Errorf("the connection was not closed cleanly after the answer: %v", err)
	}
}

// TestBothLengthsCloseTheConnection holds the reference to RFC 9112 section
// 6.1 for a request with both Content-Length and Transfer-Encoding: it may be
// served by its Transfer-Encoding alone, and the connection must be closed
// after the answer, so that bytes a proxy in front framed otherwise are never
// read as a request (section 11.2, request smuggling). net/http frames such a
// request by Transfer-Encoding and hides both fields from the handler, which
// sees a chunked request; the handler closes the connection after every
// chunked request, which costs nothing on the others.
func TestBothLengthsCloseTheConnection(t *testing.T) {
	// A request the back end would see if it framed by Transfer-Encoding
	// what the front end framed by Content-Length, or the reverse.
	second := rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\n", len(plantJSON)), plantJSON)
	hiddenInLength := "0\r\n\r\n" + second
	hiddenInChunks := chunked(second)
	both := func(body string) string {
		return fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(body))
	}

	tests := []struct {
		name    string
		request string
		pieces  int // send the request in this many writes; 0 means one
		// status is the answer's; stored whether the plant was stored
		// (served by its Transfer-Encoding, as section 6.1 allows).
		status int
		stored int
	}{
		{name: "Content-Length before Transfer-Encoding",
			request: rawRequest("HTTP/1.1", both(chunked(plantJSON)), chunked(plantJSON)), status: 200, stored: 1},
		{name: "Transfer-Encoding before Content-Length",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Transfer-Encoding: chunked\r\nContent-Length: %d\r\n", len(chunked(plantJSON))), chunked(plantJSON)), status: 200, stored: 1},
		{name: "names in lower case",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("transfer-encoding: chunked\r\ncontent-length: %d\r\n", len(chunked(plantJSON))), chunked(plantJSON)), status: 200, stored: 1},
		{name: "a request hidden in the Content-Length body",
			request: rawRequest("HTTP/1.1", both(hiddenInLength), hiddenInLength), status: 400},
		{name: "a request hidden in the chunked body",
			// Content-Length covers the chunk size line alone.
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(fmt.Sprintf("%x\r\n", len(second)))), hiddenInChunks), status: 400},
		{name: "HTTP/1.0, which net/http frames by Content-Length and closes",
			request: rawRequest("HTTP/1.0", fmt.Sprintf("Transfer-Encoding: chunked\r\nContent-Length: %d\r\n", len(plantJSON)), plantJSON), status: 200, stored: 1},
		{name: "a coding other than chunked, which net/http answers with a plain 501",
			request: rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: gzip, chunked\r\n", len(plantJSON)), plantJSON), status: 501},
		{name: "lines ended by LF alone",
			request: strings.ReplaceAll(rawRequest("HTTP/1.1", both(chunked(plantJSON)), ""), "\r\n", "\n") + chunked(plantJSON), status: 200, stored: 1},
		{name: "sent a few bytes at a time",
			request: rawRequest("HTTP/1.1", both(chunked(plantJSON)), chunked(plantJSON)), pieces: 40, status: 200, stored: 1},
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
			if got.Status != tt.status {
				t.Errorf("status %d, want %d; body %q", got.Status, tt.status, got.Body)
			}
			// ReadResponse turns Connection: close, or HTTP/1.0 without
			// keep-alive, into Close.
			if !resp.Close {
				t.Errorf("the answer does not say the connection closes")
			}
			checkClosed(t, br)
			if n := store.Len(); n != tt.stored {
				t.Errorf("the store holds %d plants, want %d (a smuggled request stored?)", n, tt.stored)
			}
		})
	}
}

// TestOneLengthKeepsTheConnection is the control: a request framed by
// Content-Length alone is served and the connection stays open for the next
// one (the close is for chunked requests only). Each request is sent twice
// in one write; between them is the CRLF some old clients send after a POST
// body, which net/http skips.
func TestOneLengthKeepsTheConnection(t *testing.T) {
	fields := fmt.Sprintf("Content-Length: %d\r\n", len(plantJSON))
	store := NewMemoryStore()
	conn := dialServer(t, newServer(t, Config{Store: store}))
	first := rawRequest("HTTP/1.1", fields, plantJSON)
	second := rawRequest("HTTP/1.1", fields, strings.Replace(plantJSON, `"id":1`, `"id":2`, 1))
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
}

// TestChunkedIsServedThenClosed: a chunked request alone is served (a client
// may always send one) and its connection closed, the request after it on the
// same connection never read.
func TestChunkedIsServedThenClosed(t *testing.T) {
	store := NewMemoryStore()
	conn := dialServer(t, newServer(t, Config{Store: store}))
	after := rawRequest("HTTP/1.1", fmt.Sprintf("Content-Length: %d\r\n", len(plantJSON)), strings.Replace(plantJSON, `"id":1`, `"id":2`, 1))
	if _, err := io.WriteString(conn, rawRequest("HTTP/1.1", "Transfer-Encoding: chunked\r\n", chunked(plantJSON))+after); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, got := readResponse(t, br)
	if got.Status != http.StatusOK {
		t.Errorf("status %d, want 200; body %q", got.Status, got.Body)
	}
	if !resp.Close {
		t.Errorf("the answer to a chunked request does not close the connection")
	}
	checkClosed(t, br)
	if n := store.Len(); n != 1 {
		t.Errorf("the store holds %d plants, want 1", n)
	}
}

// TestExpectContinueGoesThrough: a client that sends Expect: 100-continue
// waits for the server's 100 before it sends the body.
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

// TestOtherBadRequests: what net/http refuses before the handler, and a
// chunked body that breaks off, after which nothing is read as a request.
func TestOtherBadRequests(t *testing.T) {
	t.Run("header section over the limit", func(t *testing.T) {
		conn := dialServer(t, newServer(t, Config{}))
		io.WriteString(conn, "POST /plants HTTP/1.1\r\nHost: plants\r\nX-Long: "+strings.Repeat("a", maxHeaderBytes+8<<10)+"\r\n\r\n")
		br := bufio.NewReader(conn)
		if resp, _ := readResponse(t, br); resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("status %d, want net/http's 431", resp.StatusCode)
		}
		checkClosed(t, br)
	})
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
