package proxy

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestReadLeanHead(t *testing.T) {
	const create = "POST /plants HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nauthorization: Bearer t0k\r\nContent-Type:  application/json \r\nContent-Length: 2\r\n\r\n{}"
	cases := []struct {
		name string
		in   string
		want headState
	}{
		{"a create", create, headTaken},
		{"no body", "GET /plants?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", headTaken},
		{"keep-alive", "GET / HTTP/1.1\r\nHost: a\r\nConnection: Keep-Alive\r\n\r\n", headTaken},
		{"close", "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", headTaken},
		{"obs-text value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: caf\xc3\xa9\r\n\r\n", headTaken},

		{"empty", "", headMore},
		{"a method begun", "PO", headMore},
		{"a target begun", "POST /pla", headMore},
		{"a version begun", "POST /plants HTTP/1", headMore},
		{"a field begun", "POST /plants HTTP/1.1\r\nHost: a\r\nContent-Ty", headMore},
		{"the empty line begun", "POST /plants HTTP/1.1\r\nHost: a\r\n\r", headMore},

		{"HTTP/1.0", "GET / HTTP/1.0\r\nHost: a\r\n\r\n", headOther},
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", headOther},
		{"CONNECT", "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", headOther},
		{"lower-case method", "post /plants HTTP/1.1\r\nHost: a\r\n\r\n", headOther},
		{"absolute-form", "GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n", headOther},
		{"asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", headOther},
		{"a bad escape", "GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", headOther},
		{"a bad escape, head incomplete", "GET /%zz HTTP/1.1\r\nHo", headOther},
		{"bare LF", "GET / HTTP/1.1\nHost: a\n\n", headOther},
		{"bare LF, incomplete", "GET / HTTP/1.1\nHo", headOther},
		{"no Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", headOther},
		{"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", headOther},
		{"an empty Host", "GET / HTTP/1.1\r\nHost: \r\n\r\n", headOther},
		{"a Host with a slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", headOther},
		{"chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", headOther},
		{"two lengths", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", headOther},
		{"a signed length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +2\r\n\r\n{}", headOther},
		{"a length with a leading zero", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 02\r\n\r\n{}", headOther},
		{"Expect", "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", headOther},
		{"Upgrade", "GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", headOther},
		{"Pragma", "GET / HTTP/1.1\r\nHost: a\r\nPragma: no-cache\r\n\r\n", headOther},
		{"Trailer", "GET / HTTP/1.1\r\nHost: a\r\nTrailer: X\r\n\r\n", headOther},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n", headOther},
		{"a space before the colon", "GET / HTTP/1.1\r\nHost: a\r\nX-A : b\r\n\r\n", headOther},
		{"a space before the colon, incomplete", "GET / HTTP/1.1\r\nHost: a\r\nX-A : b", headOther},
		{"a NUL in a value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\x00c\r\n\r\n", headOther},
		{"a lone CR in a value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\n\r\n", headOther},
		{"a leading empty line", "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", headOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hd, st := readLeanHead([]byte(c.in))
			if st != c.want {
				t.Fatalf("state %d, want %d", st, c.want)
			}
			if st == headTaken {
				sameAsNetHTTP(t, []byte(c.in), hd)
			}
		})
	}

	hd, _ := readLeanHead([]byte(create))
	want := http.Header{"Authorization": {"Bearer t0k"}, "Content-Type": {"application/json"}, "Content-Length": {"2"}}
	if !reflect.DeepEqual(hd.header, want) || hd.host != "127.0.0.1:8080" || hd.contentLength != 2 || hd.size != len(create)-2 {
		t.Errorf("read %+v", hd)
	}
}

// sameAsNetHTTP fails t unless net/http reads b as the lean reader read
// it: the same method, target, Host, header, length, Connection: close,
// and body.
func sameAsNetHTTP(t *testing.T, b []byte, hd leanHead) {
	t.Helper()
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("the lean reader took %q, net/http refuses it: %v", b, err)
	}
	switch {
	case req.Method != hd.method, req.RequestURI != hd.target, req.Host != hd.host:
		t.Errorf("%q: net/http reads %s %s (Host %q), the lean reader %s %s (Host %q)", b, req.Method, req.RequestURI, req.Host, hd.method, hd.target, hd.host)
	case req.URL.String() != hd.url.String():
		t.Errorf("%q: net/http's URL %q, the lean reader's %q", b, req.URL, hd.url)
	case !reflect.DeepEqual(req.Header, hd.header):
		t.Errorf("%q: net/http's header %q, the lean reader's %q", b, req.Header, hd.header)
	case req.ContentLength != hd.contentLength, req.Close != hd.close:
		t.Errorf("%q: net/http's length %d and close %v, the lean reader's %d and %v", b, req.ContentLength, req.Close, hd.contentLength, hd.close)
	case req.ProtoMajor != 1 || req.ProtoMinor != 1 || len(req.TransferEncoding) > 0:
		t.Errorf("%q: net/http reads %s, transfer encoding %q", b, req.Proto, req.TransferEncoding)
	}
	if end := hd.size + int(hd.contentLength); end <= len(b) {
		body, err := io.ReadAll(req.Body)
		if err != nil || !bytes.Equal(body, b[hd.size:end]) {
			t.Errorf("%q: net/http's body %q (%v), the lean reader's %q", b, body, err, b[hd.size:end])
		}
	}
}

// FuzzLeanHead holds the lean reader to net/http: whatever the bytes, a
// head it takes net/http takes the same; and where it waits for more,
// net/http has found nothing wrong in the lines so far (so that it too
// would wait, rather than answer).
func FuzzLeanHead(f *testing.F) {
	for _, s := range []string{
		"POST /plants HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"GET /plants?x=%20 HTTP/1.1\r\nHost: [::1]:80\r\nConnection: close\r\nx-api-KEY: k\r\n\r\n",
		"POST /plants HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer t\r\nAuthorization: Basic u\r\n\r\n",
		"POST /plants HTTP/1.1\r\nHost: a\r\nContent-Le",
		"GET / HTTP/1.1\r\nHost: a\r\nX: \t\x80\xff\r\n\r\n",
		"GET /a;b,c HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		hd, st := readLeanHead(b)
		switch st {
		case headTaken:
			sameAsNetHTTP(t, b, hd)
			if !plainHost(hd.host) || hd.host == "" {
				t.Errorf("%q: Host %q taken", b, hd.host)
			}
		case headMore:
			if bytes.Contains(b, []byte("\r\n\r\n")) {
				t.Fatalf("%q: waits for more with a whole head", b)
			}
			// The lines so far, then an end: net/http finds nothing wrong
			// in a line (what it finds wrong with a whole head, it finds
			// once the head is whole, as the lean reader then does).
			k := bytes.LastIndex(b, []byte("\r\n"))
			if k < 0 {
				return
			}
			head := append(append([]byte(nil), b[:k+2]...), "\r\n"...)
			if _, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head))); err != nil && !wholeHeadError(err) {
				t.Errorf("%q: the lean reader waits for more, net/http already refuses the lines so far: %v", b, err)
			}
		}
	})
}

// wholeHeadError reports whether net/http's err is about the head as a
// whole (its framing fields), found only once it is whole.
func wholeHeadError(err error) bool {
	msg := err.Error()
	for _, s := range []string{"Host", "Content-Length", "Transfer-Encoding", "transfer encoding"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
