package proxy

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// FuzzForward: whatever the bytes of a request body and of an answer's
// body, sized or chunked, the upstream receives what the client sent and
// the client what the upstream sent; and judging them never fails the
// exchange. Its seeds run with the ordinary tests.
//
//	go test -run='^$' -fuzz=FuzzForward -fuzzminimizetime=3s ./proxy/
//
// (Each execution is an HTTP exchange: the fuzzer's default minute of
// minimizing each new input shows as minutes without executions.)
func FuzzForward(f *testing.F) {
	f.Add([]byte(`{"id":1,"name":"Fern","tag":"green"}`), []byte(`{"name":"Fern","tag":"green"}`), false, false)
	f.Add([]byte(`{"id":9223372036854775806,"name":"Big"}`), []byte(`{"name":"Big"}`), true, false)
	f.Add([]byte("{\"id\":1,\"name\":\"\xff\x00\u202e\"}"), []byte("\xfe\r\n\x1b[2J"), false, true)
	f.Add([]byte{}, []byte{}, true, true)
	f.Add(bytes.Repeat([]byte("ab"), 700), bytes.Repeat([]byte{0}, 1100), true, true) // past the bound below

	// One upstream and one proxy serve every input: the upstream answers
	// each request with the body registered under its X-Case.
	var cases sync.Map // case number → *fuzzCase
	up := upstreamOf(f, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := cases.Load(r.Header.Get("X-Case"))
		c := v.(*fuzzCase)
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

	f.Fuzz(func(t *testing.T, reqBody, answer []byte, chunked, chunkedAnswer bool) {
		c := &fuzzCase{answer: answer, chunkedAnswer: chunkedAnswer}
		id := strconv.FormatInt(n.Add(1), 10)
		cases.Store(id, c)
		defer cases.Delete(id)
		var body io.Reader = bytes.NewReader(reqBody)
		if chunked {
			body = io.MultiReader(body) // no length known: sent in chunks
		}
		req, err := http.NewRequest(http.MethodPost, p.url+"/plants", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Case", id)
		req.Header.Set("Authorization", "Bearer fuzz-token")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("read the answer: %v", err)
		}
		if resp.StatusCode != http.StatusOK || resp.Header.Get(MarkerHeader) != "" {
			t.Fatalf("status %d, %s %q: want the upstream's 200", resp.StatusCode, MarkerHeader, resp.Header.Get(MarkerHeader))
		}
		if c.err != nil || !bytes.Equal(c.got, reqBody) {
			t.Errorf("the upstream got %d bytes (%v), want the %d sent", len(c.got), c.err, len(reqBody))
		}
		if !bytes.Equal(got, answer) {
			t.Errorf("the client got %d bytes, want the %d answered", len(got), len(answer))
		}
	})
}

type fuzzCase struct {
	answer        []byte
	chunkedAnswer bool
	got           []byte
	err           error
}
