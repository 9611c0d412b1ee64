package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// FuzzForward: whatever the request-target, and whatever the bytes of a
// request body and of an answer's body, sized or chunked, the upstream
// receives the target as written and the body the client sent, and the
// client the answer the upstream sent; and judging them never fails the
// exchange. A target net/http's server refuses is replaced by /plants; one
// that begins with "//" is held to being written as it came only where
// url.URL writes its path as written (its bytes are those RFC 3986 allows
// in a path, escapes kept). Its seeds run with the ordinary tests.
//
//	go test -run='^$' -fuzz=FuzzForward -fuzzminimizetime=3s ./proxy/
//
// (Each execution is an HTTP exchange: the fuzzer's default minute of
// minimizing each new input shows as minutes without executions.)
func FuzzForward(f *testing.F) {
	f.Add("/plants", []byte(`{"id":1,"name":"Fern","tag":"green"}`), []byte(`{"name":"Fern","tag":"green"}`), false, false)
	f.Add("/plants", []byte(`{"id":9223372036854775806,"name":"Big"}`), []byte(`{"name":"Big"}`), true, false)
	f.Add("/plants", []byte("{\"id\":1,\"name\":\"\xff\x00\u202e\"}"), []byte("\xfe\r\n\x1b[2J"), false, true)
	f.Add("//evil.example/a%2Fb%41?x=%2f&&", []byte{}, []byte{}, true, true)
	f.Add("/pl%61nts/%2F;a=b?q", bytes.Repeat([]byte("ab"), 700), bytes.Repeat([]byte{0}, 1100), true, true) // past the bound below

	// One upstream and one proxy serve every input: the upstream answers
	// each request with the body registered under its X-Case.
	var cases sync.Map // case number → *fuzzCase
	up := upstreamOf(f, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := cases.Load(r.Header.Get("X-Case"))
		c := v.(*fuzzCase)
		c.target = r.RequestURI
		c.got, c.err = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if c.chunkedAnswer {
			w.WriteHeader(http.StatusOK)
			for b := c.answer; len(b) > 0; {
				n := min(len(b), 1000)
				w.Write(b[:n])
				w.(http.Flusher).Flush()
				b = b[n:]
			}
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(c.answer)))
		w.WriteHeader(http.StatusOK)
		w.Write(c.answer)
	}))
	p := startProxy(f, up, func(c *Config) { c.MaxJudge = 1 << 10 })
	var n atomic.Int64

	f.Fuzz(func(t *testing.T, target string, reqBody, answer []byte, chunked, chunkedAnswer bool) {
		if !plainTarget(target) {
			target = "/plants"
		}
		c := &fuzzCase{answer: answer, chunkedAnswer: chunkedAnswer}
		id := strconv.FormatInt(n.Add(1), 10)
		cases.Store(id, c)
		defer cases.Delete(id)
		var req bytes.Buffer
		fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: x\r\nX-Case: %s\r\nAuthorization: Bearer fuzz-token\r\nContent-Type: application/json\r\n", target, id)
		if chunked {
			req.WriteString("Transfer-Encoding: chunked\r\n\r\n")
			if len(reqBody) > 0 {
				fmt.Fprintf(&req, "%x\r\n%s\r\n", len(reqBody), reqBody)
			}
			req.WriteString("0\r\n\r\n")
		} else {
			fmt.Fprintf(&req, "Content-Length: %d\r\n\r\n%s", len(reqBody), reqBody)
		}
		resp, got := rawExchange(t, p.addr, req.Bytes(), false)
		if resp.StatusCode != http.StatusOK || resp.Header.Get(MarkerHeader) != "" {
			t.Fatalf("status %d, %s %q: want the upstream's 200", resp.StatusCode, MarkerHeader, resp.Header.Get(MarkerHeader))
		}
		if c.target != target {
			t.Errorf("the upstream got the target %q, want %q", c.target, target)
		}
		if c.err != nil || !bytes.Equal(c.got, reqBody) {
			t.Errorf("the upstream got %d bytes (%v), want the %d sent", len(c.got), c.err, len(reqBody))
		}
		if !bytes.Equal(got, answer) {
			t.Errorf("the client got %d bytes, want the %d answered", len(got), len(answer))
		}
	})
}

// plainTarget reports whether net/http's server takes target as an
// origin-form request-target the proxy must pass on as written.
func plainTarget(target string) bool {
	if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " #") {
		return false
	}
	for i := 0; i < len(target); i++ {
		if target[i] <= ' ' || target[i] >= 0x7f {
			return false
		}
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return false
	}
	if path, _, _ := strings.Cut(target, "?"); strings.HasPrefix(path, "//") && u.EscapedPath() != path {
		return false // bytes url.URL escapes: see Handler.target
	}
	return true
}

type fuzzCase struct {
	answer        []byte
	chunkedAnswer bool
	target        string
	got           []byte
	err           error
}
