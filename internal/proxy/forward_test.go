package proxy

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// received is what an upstream handler saw of a request.
type received struct {
	Method, URI      string
	Header           http.Header
	ContentLength    int64
	TransferEncoding []string
	Trailer          http.Header
	Body             []byte
}

// answer is what a test upstream sends back.
type answer struct {
	status int
	header [][2]string // in order; a name given twice is sent twice
	body   []byte
	// chunks, when set, streams the body in these pieces, flushing after
	// each (so it goes chunked).
	chunks [][]byte
}

// recorder is an upstream that records each request and sends back a.
func recorder(a answer, seen chan<- received) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen <- received{r.Method, r.RequestURI, r.Header.Clone(), r.ContentLength, r.TransferEncoding, r.Trailer.Clone(), body}
		h := w.Header()
		h["Date"] = nil
		h["Content-Type"] = nil
		for _, kv := range a.header {
			h[kv[0]] = append(h[kv[0]], kv[1])
		}
		w.WriteHeader(a.status)
		if a.chunks == nil {
			w.Write(a.body)
			return
		}
		for _, c := range a.chunks {
			w.Write(c)
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	})
}

// hopByHop are the headers a hop may drop or add (and Host, which names
// the hop's next party).
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Upgrade", "Host"}

func withoutHops(h http.Header) http.Header {
	h = h.Clone()
	for _, k := range hopByHop {
		delete(h, k)
	}
	return h
}

// TestTransparency sends each request twice, straight to an upstream and
// through the proxy, as raw bytes, and checks that the upstream sees the
// same request both times (method, target with its escapes, header values
// as written, framing, body bytes, trailers) and that the client reads the
// same answer both times (status, every header value in its order, body
// bytes, framing), which is what the upstream sent.
func TestTransparency(t *testing.T) {
	jsonHdr := [][2]string{{"Content-Type", "application/json"}}
	cases := []struct {
		name   string
		req    string
		expect bool // Expect: 100-continue, body sent after the 100
		ans    answer
	}{
		{
			name: "invalid JSON",
			req:  "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"id\":1,\"name\":",
			ans:  answer{status: 400, header: jsonHdr, body: []byte(`{"error":3,"message":"not JSON"}`)},
		},
		{
			name: "id near the int64 maximum",
			req:  "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"id\":9223372036854775806,\"name\":\"Fern\"}",
			ans:  answer{status: 200, header: jsonHdr, body: []byte(`{"name":"Fern"}`)},
		},
		{
			name: "chunked body with odd chunk sizes and a trailer",
			req: "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nTrailer: X-Check\r\n\r\n" +
				"1\r\n{\r\n0d\r\n\"id\":7,\"name\"\r\n7;ext=1\r\n:\"Ivy\"}\r\n0\r\nX-Check: 42\r\n\r\n",
			ans: answer{status: 200, header: jsonHdr, body: []byte(`{"name":"Ivy"}`)},
		},
		{
			name: "odd header casing, repeated headers, bytes that are not UTF-8",
			req: "POST /plants HTTP/1.1\r\nHost: x\r\nauthorization: bearer tok\r\ncontent-TYPE: Application/JSON; Charset=UTF-8\r\nx-api-KEY: K-1\r\n" +
				"X-Multi: b\r\nx-multi: a\r\nX-Spaces: a  b\t c\r\nContent-Length: 10\r\n\r\n{\"n\":\"\xff\x00\"}",
			ans: answer{status: 500, header: [][2]string{{"X-Multi", "z"}, {"X-Multi", "y"}}, body: []byte("\xfe\x00 not json")},
		},
		{
			name: "a target with escapes and an odd query",
			req:  "POST /pl%61nts/%2F?b=%2f&a=1&&c HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
			ans:  answer{status: 404, header: jsonHdr, body: []byte(`{"error":1,"message":"no"}`)},
		},
		{
			name: "GET without a body",
			req:  "GET /plants HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n",
			ans:  answer{status: 400, header: jsonHdr, body: []byte(`{"error":9,"message":"method"}`)},
		},
		{
			name: "POST with an empty body",
			req:  "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n",
			ans:  answer{status: 400, header: jsonHdr, body: []byte(`{"error":3,"message":"empty"}`)},
		},
		{
			name:   "Expect: 100-continue",
			req:    "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 22\r\n\r\n{\"id\":1,\"name\":\"Moss\"}",
			expect: true,
			ans:    answer{status: 200, header: jsonHdr, body: []byte(`{"name":"Moss"}`)},
		},
		{
			name: "a streamed answer",
			req:  "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: 22\r\n\r\n{\"id\":1,\"name\":\"Moss\"}",
			ans:  answer{status: 200, header: jsonHdr, chunks: [][]byte{[]byte(`{"na`), []byte(`me":`), []byte(`"Moss"}`)}},
		},
		{
			name: "no content",
			req:  "POST /plants HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
			ans:  answer{status: 204, header: [][2]string{{"X-Why", "none"}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen := make(chan received, 4)
			up := upstreamOf(t, recorder(tc.ans, seen))
			p := startProxy(t, up, nil)

			directResp, directBody := rawExchange(t, strings.TrimPrefix(up, "http://"), []byte(tc.req), tc.expect)
			direct := <-seen
			proxResp, proxBody := rawExchange(t, p.addr, []byte(tc.req), tc.expect)
			prox := <-seen

			// What the upstream saw.
			if got, want := prox.URI, direct.URI; got != want {
				t.Errorf("target = %q, want %q", got, want)
			}
			if got, want := prox.Method, direct.Method; got != want {
				t.Errorf("method = %q, want %q", got, want)
			}
			if !bytes.Equal(prox.Body, direct.Body) {
				t.Errorf("body = %q, want %q", prox.Body, direct.Body)
			}
			if got, want := prox.ContentLength, direct.ContentLength; got != want {
				t.Errorf("Content-Length = %d, want %d", got, want)
			}
			if got, want := prox.TransferEncoding, direct.TransferEncoding; !slices.Equal(got, want) {
				t.Errorf("Transfer-Encoding = %q, want %q", got, want)
			}
			if got, want := withoutHops(prox.Header), withoutHops(direct.Header); !reflect.DeepEqual(got, want) {
				t.Errorf("header =\n%v\nwant\n%v", got, want)
			}
			if got, want := prox.Trailer, direct.Trailer; !reflect.DeepEqual(got, want) {
				t.Errorf("trailer = %v, want %v", got, want)
			}

			// What the client read.
			if got, want := proxResp.StatusCode, directResp.StatusCode; got != want {
				t.Errorf("status = %d, want %d", got, want)
			}
			if got, want := withoutHops(proxResp.Header), withoutHops(directResp.Header); !reflect.DeepEqual(got, want) {
				t.Errorf("answer's header =\n%v\nwant\n%v", got, want)
			}
			if got, want := proxResp.ContentLength, directResp.ContentLength; got != want {
				t.Errorf("answer's Content-Length = %d, want %d", got, want)
			}
			if got, want := proxResp.TransferEncoding, directResp.TransferEncoding; !slices.Equal(got, want) {
				t.Errorf("answer's Transfer-Encoding = %q, want %q", got, want)
			}
			want := tc.ans.body
			if tc.ans.chunks != nil {
				want = bytes.Join(tc.ans.chunks, nil)
			}
			if !bytes.Equal(proxBody, want) || !bytes.Equal(directBody, want) {
				t.Errorf("answer's body = %q through the proxy, %q direct, want %q", proxBody, directBody, want)
			}
			if v := proxResp.Header.Get(MarkerHeader); v != "" {
				t.Errorf("an upstream's answer is marked %s: %q", MarkerHeader, v)
			}
		})
	}
}

// TestNothingAdded: the proxy adds no header of its own or of Go's to a
// request (User-Agent, Accept-Encoding, Via, X-Forwarded-For) or to an
// answer (Date, a sniffed Content-Type).
func TestNothingAdded(t *testing.T) {
	seen := make(chan received, 1)
	up := upstreamOf(t, recorder(answer{status: 200, body: []byte("<html>sniff me</html>")}, seen))
	p := startProxy(t, up, nil)
	resp, body := rawExchange(t, p.addr, []byte("POST /plants HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"), false)
	got := <-seen
	if names := slices.Sorted(maps.Keys(got.Header)); !slices.Equal(names, []string{"Content-Length"}) {
		t.Errorf("the upstream saw the headers %q, want only Content-Length", names)
	}
	if names := slices.Sorted(maps.Keys(resp.Header)); !slices.Equal(names, []string{"Content-Length"}) {
		t.Errorf("the client saw the headers %q, want only Content-Length", names)
	}
	if string(body) != "<html>sniff me</html>" {
		t.Errorf("body = %q", body)
	}
}

// TestUpstreamPrefix: the upstream URL's path goes before each target,
// escapes kept, and Host names the upstream.
func TestUpstreamPrefix(t *testing.T) {
	seen := make(chan received, 1)
	var host string
	rec := recorder(answer{status: 200}, seen)
	up := upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host = r.Host
		rec.ServeHTTP(w, r)
	}))
	p := startProxy(t, up+"/api/v1/", nil)
	rawExchange(t, p.addr, []byte("POST /plants?x=%2F HTTP/1.1\r\nHost: proxy.example\r\nContent-Length: 0\r\n\r\n"), false)
	got := <-seen
	if want := "/api/v1/plants?x=%2F"; got.URI != want {
		t.Errorf("target = %q, want %q", got.URI, want)
	}
	if want := strings.TrimPrefix(up, "http://"); host != want {
		t.Errorf("Host = %q, want %q", host, want)
	}
}

// TestBodyPastTheBound: bodies longer than MaxJudge reach the other side
// whole, and the exchange is reported as not judged in part, saying why.
func TestBodyPastTheBound(t *testing.T) {
	const bound = 1 << 10
	big := `{"id":1,"name":"` + strings.Repeat("a", 10*bound) + `"}`
	bigAnswer := []byte(`{"name":"` + strings.Repeat("b", 10*bound) + `"}`)
	seen := make(chan received, 2)
	up := upstreamOf(t, recorder(answer{status: 200, header: [][2]string{{"Content-Type", "application/json"}}, body: bigAnswer}, seen))
	p := startProxy(t, up, func(c *Config) { c.MaxJudge = bound })
	resp, body := post(t, p.url, "/plants", big, "Authorization", "Bearer tok", "Content-Type", "application/json")
	if got := <-seen; string(got.Body) != big {
		t.Errorf("the upstream got %d bytes, want %d", len(got.Body), len(big))
	}
	if resp.StatusCode != 200 || !bytes.Equal(body, bigAnswer) {
		t.Errorf("the client got %d with %d bytes, want 200 with %d", resp.StatusCode, len(body), len(bigAnswer))
	}
	v := p.verdict(Options{})
	if v.Counts.Judged != 1 || v.Counts.JudgedInPart != 1 {
		t.Errorf("judged %d, in part %d; want 1 and 1", v.Counts.Judged, v.Counts.JudgedInPart)
	}
	var reasons []string
	for _, c := range v.NotJudgedInPart {
		reasons = append(reasons, c.Reason)
	}
	for _, want := range []string{"request body past 1 KiB", "response body past 1 KiB"} {
		if !slices.Contains(reasons, want) {
			t.Errorf("not-judged reasons %q lack %q", reasons, want)
		}
	}
	// The echo needs both bodies whole: it is not judged, not passed.
	if r := rule(t, v, "CREATE-NAME"); r.Judged != 0 || r.NotJudgedBecause != whyNone {
		t.Errorf("CREATE-NAME judged %d (%q), want not judged", r.Judged, r.NotJudgedBecause)
	}
	// What needs no body still is.
	if r := rule(t, v, "RESPONSE-MEDIA"); r.Judged != 1 || r.Passed != 1 {
		t.Errorf("RESPONSE-MEDIA = %+v, want judged and passed once", r)
	}
	if !strings.Contains(text(t, v), "not judged in 1 exchange: request body past 1 KiB") {
		t.Errorf("the console does not say why:\n%s", text(t, v))
	}
}

// TestEndlessBody: an answer that never ends streams through as it comes.
func TestEndlessBody(t *testing.T) {
	stop := make(chan struct{})
	up := upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			default:
			}
			fmt.Fprintf(w, "[%d]", i)
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	defer close(stop)
	p := startProxy(t, up, nil)
	req, _ := http.NewRequest(http.MethodPost, p.url+"/plants", strings.NewReader(`{}`))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := io.ReadAtLeast(resp.Body, buf, 10)
	resp.Body.Close()
	if err != nil || !strings.HasPrefix(string(buf[:n]), "[0][1]") {
		t.Fatalf("read %q, %v; want the stream as it comes", buf[:n], err)
	}
}

// TestOwnAnswers: an upstream that cannot be reached, or does not answer
// in time, gets the proxy's own 502, marked, and never counted as the
// service's.
func TestOwnAnswers(t *testing.T) {
	slow := upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	cases := []struct {
		name, upstream, marker string
	}{
		{"nothing listens", "http://127.0.0.1:1", OwnUnreachable},
		{"no answer in time", slow, OwnTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, tc.upstream, func(c *Config) { c.Timeout = 300 * time.Millisecond })
			resp, body := post(t, p.url, "/plants", `{"id":1,"name":"Fern"}`, "Content-Type", "application/json")
			if got, want := resp.StatusCode, http.StatusBadGateway; got != want {
				t.Errorf("status = %d, want %d", got, want)
			}
			if got := resp.Header.Get(MarkerHeader); got != tc.marker {
				t.Errorf("%s = %q, want %q", MarkerHeader, got, tc.marker)
			}
			if !strings.Contains(string(body), "plantcheck proxy") {
				t.Errorf("body = %q, want the proxy's own", body)
			}
			v := p.verdict(Options{})
			// Nothing held against the service, and nothing certified:
			// traffic came and none of it could be judged (exit 2).
			if v.Counts.ProxyAnswers[tc.marker] != 1 || v.Counts.Judged != 0 || v.Counts.ServerViolations != 0 || v.ExitCode != 2 {
				t.Errorf("own %v, judged %d, violations %d, exit %d; want one own answer, nothing held against the service, exit 2",
					v.Counts.ProxyAnswers, v.Counts.Judged, v.Counts.ServerViolations, v.ExitCode)
			}
			if want := strconv.Itoa(1) + " answered by the proxy (" + tc.marker + ")"; !strings.Contains(text(t, v), want) {
				t.Errorf("the console lacks %q", want)
			}
		})
	}
}

// TestClientBreaksOff: a client whose body ends before its declared length,
// or whose chunks are malformed, gets no answer of the proxy's (which would
// not be marked): the connection is closed, the exchange counted as one
// whose client went away, and nothing is held against the service.
func TestClientBreaksOff(t *testing.T) {
	seen := make(chan received, 4)
	up := upstreamOf(t, recorder(answer{status: 200, header: [][2]string{{"Content-Type", "application/json"}}, body: []byte(`{"name":"x"}`)}, seen))
	cases := map[string]string{
		"shorter than declared": "POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":1,",
		"malformed chunks":      "POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			p := startProxy(t, up, nil)
			conn, err := net.Dial("tcp", p.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			conn.Write([]byte(raw))
			conn.(*net.TCPConn).CloseWrite()
			got, _ := io.ReadAll(conn)
			if len(got) > 0 {
				t.Errorf("the client got an answer: %q", got)
			}
			v := p.verdict(Options{})
			if v.Counts.ClientGone != 1 || v.Counts.Judged != 0 || len(v.Counts.ProxyAnswers) != 0 || v.Counts.ServerViolations != 0 {
				t.Errorf("gone %d, judged %d, own %v, violations %d; want one exchange whose client went away",
					v.Counts.ClientGone, v.Counts.Judged, v.Counts.ProxyAnswers, v.Counts.ServerViolations)
			}
		})
	}
}

// TestUpstreamBreaksOff: an answer that breaks off mid-body never reaches
// the client whole-looking: its connection is closed (before anything of
// the answer was sent, when net/http's server still held it all in its
// buffer; or after what was sent); the exchange is counted apart, not
// judged.
func TestUpstreamBreaksOff(t *testing.T) {
	up := upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":")
		buf.Flush()
		conn.Close()
	}))
	p := startProxy(t, up, nil)
	req, _ := http.NewRequest(http.MethodPost, p.url+"/plants", strings.NewReader(`{"id":1,"name":"Fern"}`))
	resp, err := client.Do(req)
	if err == nil {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			t.Errorf("the client read %q whole; want the answer cut", body)
		}
	}
	if v := p.verdict(Options{}); v.Counts.UpstreamBrokeOff != 1 || v.Counts.Judged != 0 || v.Counts.ServerViolations != 0 || len(v.Counts.ProxyAnswers) != 0 {
		t.Errorf("broken %d, judged %d, violations %d, own %v; want one exchange whose answer broke off", v.Counts.UpstreamBrokeOff, v.Counts.Judged, v.Counts.ServerViolations, v.Counts.ProxyAnswers)
	}
}
