package proxy

import (
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/har"
)

// BenchmarkProxyExchange measures what the proxy adds to an exchange: one
// valid create to the reference on loopback, straight and through the
// proxy in turn (so that both see the same machine), and reports each
// one's median and 99th percentile and their differences, in µs.
func BenchmarkProxyExchange(b *testing.B) {
	base, tok := referenceUpstream(b)
	p := startProxy(b, base, nil)
	var id atomic.Int64
	id.Store(time.Now().UnixNano())
	send := func(url string) time.Duration {
		body := `{"id":` + strconv.FormatInt(id.Add(1), 10) + `,"name":"Monstera deliciosa","tag":"aroid"}`
		req, _ := http.NewRequest(http.MethodPost, url+"/plants", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return d
	}
	for range 200 { // warm the connections and the validator
		send(base)
		send(p.url)
	}
	direct := make([]time.Duration, 0, b.N)
	proxied := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		direct = append(direct, send(base))
		proxied = append(proxied, send(p.url))
	}
	b.StopTimer()
	v := p.verdict(Options{})
	if v.Counts.ServerViolations != 0 {
		b.Fatalf("the reference broke rules through the proxy:\n%s", ("VERDICT: " + v.Verdict))
	}
	pct := func(ds []time.Duration, q float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[int(q*float64(len(s)-1))]) / float64(time.Microsecond)
	}
	b.ReportMetric(pct(direct, 0.5), "direct-p50-µs")
	b.ReportMetric(pct(proxied, 0.5), "proxy-p50-µs")
	b.ReportMetric(pct(proxied, 0.5)-pct(direct, 0.5), "added-p50-µs")
	b.ReportMetric(pct(proxied, 0.99)-pct(direct, 0.99), "added-p99-µs")
	b.ReportMetric(0, "ns/op") // the pair's time says nothing by itself
}

// BenchmarkJudge measures the judging of one exchange, the proxy's own
// cost beyond forwarding: a valid create answered 200, and a create
// without credentials answered 400.
func BenchmarkJudge(b *testing.B) {
	h, err := New(Config{Upstream: mustURL("http://127.0.0.1:1"), MaxJudge: config.DefaultMaxJudge, Timeout: DefaultTimeout})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		header http.Header
		status int
		answer string
	}{
		{"accepted", http.Header{"Authorization": {"Bearer tok"}, "Content-Type": {"application/json"}}, 200, `{"name":"Monstera deliciosa","tag":"aroid"}`},
		{"refused", http.Header{"Content-Type": {"application/json"}}, 400, `{"error":1,"message":"no"}`},
	} {
		e := &exchange.Exchange{
			Method: http.MethodPost, Target: "/plants", URL: "http://127.0.0.1:1/plants", Header: tc.header,
			Body: []byte(`{"id":1,"name":"Monstera deliciosa","tag":"aroid"}`), BodyTotal: 50,
			Status: tc.status, RespHeader: http.Header{"Content-Type": {"application/json"}},
			RespBody: []byte(tc.answer), RespTotal: int64(len(tc.answer)),
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				runtime.KeepAlive(h.judge(e, nil))
			}
		})
	}
}

// BenchmarkWriteHAR measures what --har adds to an exchange the proxy
// judges (off the exchange's path, as judging is): its secrets read and
// hidden, its entry encoded and written, beside BenchmarkJudge's cost.
func BenchmarkWriteHAR(b *testing.B) {
	w, err := har.Create(filepath.Join(b.TempDir(), "bench.har"), "plantcheck", "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	h, err := New(Config{Upstream: mustURL("http://127.0.0.1:1"), MaxJudge: config.DefaultMaxJudge, Timeout: DefaultTimeout, HAR: w})
	if err != nil {
		b.Fatal(err)
	}
	answer := `{"name":"Monstera deliciosa","tag":"aroid"}`
	body := []byte(`{"id":1,"name":"Monstera deliciosa","tag":"aroid"}`)
	x := &flight{start: time.Now(), Exchange: exchange.Exchange{
		Method: http.MethodPost, Target: "/plants", URL: "http://127.0.0.1:1/plants",
		Header: http.Header{"Authorization": {"Bearer tok-0123456789abcdef"}, "Content-Type": {"application/json"}, "User-Agent": {"bench"}},
		Body:   body, BodyTotal: int64(len(body)),
		Status:     200,
		RespHeader: http.Header{"Content-Type": {"application/json"}, "Date": {"Wed, 25 Nov 2026 10:00:00 GMT"}},
		RespBody:   []byte(answer), RespTotal: int64(len(answer)),
	}}
	b.ReportAllocs()
	for b.Loop() {
		h.writeHAR(x, true)
	}
}
