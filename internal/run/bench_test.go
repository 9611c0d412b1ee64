package run

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/reference"
)

// BenchmarkRunReference measures one whole run of every feature against the
// bundled reference server in-process: start-up of the server, every
// scenario, the verdict. Like plantcheck run, it runs with Go's default
// collector target.
func BenchmarkRunReference(b *testing.B) {
	b.ReportAllocs()
	var scenarios, exchanges int
	for b.Loop() {
		// A fresh reference each run, as plantcheck run starts one.
		url, token, stop, err := reference.StartLoopback()
		if err != nil {
			b.Fatal(err)
		}
		rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Reference: true}, Options{Output: io.Discard})
		stop()
		if err != nil {
			b.Fatal(err)
		}
		if rep.ExitCode() != 0 {
			b.Fatalf("exit code %d", rep.ExitCode())
		}
		scenarios, exchanges = rep.Model().Counts.Scenarios, rep.Model().Counts.Exchanges
	}
	b.ReportMetric(float64(scenarios), "scenarios/run")
	b.ReportMetric(float64(exchanges), "exchanges/run")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(exchanges), "ns/exchange")
}

// BenchmarkOverheadPerExchange measures plantcheck's own cost per exchange
// beyond the HTTP round trip: the time of a whole run against a loopback
// reference server, less the time that a bare client takes to send the very
// same requests (recorded on the server's side: the same headers, the same
// bodies, in the same order) to a fresh reference server and read the
// answers, divided by the exchanges. Everything else counts as overhead:
// godog, the steps, the generation of bodies, the validator on every request
// and response, the evidence kept, the preflight.
//
// It reports the overhead of a default run, averaged over its exchanges, and
// the marginal overhead of one more exchange: the difference between a run
// with 225 generated examples and a default one (25), over the difference in
// exchanges. The first carries godog's cost per scenario and per step; the
// second is the cost of an exchange itself.
func BenchmarkOverheadPerExchange(b *testing.B) {
	const token = "bench-token"
	type recorded struct {
		header http.Header
		body   []byte
	}
	var (
		mu   sync.Mutex
		reqs []recorded
	)
	serve := func(record bool) (string, func()) {
		srv, err := reference.New(reference.Config{Token: token})
		if err != nil {
			b.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		var h http.Handler = srv
		if record {
			h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				reqs = append(reqs, recorded{r.Header.Clone(), body})
				mu.Unlock()
				r.Body = io.NopCloser(bytes.NewReader(body))
				srv.ServeHTTP(w, r)
			})
		}
		hs := &http.Server{Handler: h}
		go hs.Serve(ln)
		return "http://" + ln.Addr().String(), func() { hs.Close() }
	}
	target, stop := serve(true)
	defer stop()

	// measure runs the suite once and replays its requests; it returns the
	// run's time, the replay's, and the number of exchanges.
	measure := func(examples int) (run, bare time.Duration, n int) {
		reqs = reqs[:0]
		start := time.Now()
		rep, err := runWith(context.Background(), Config{BaseURL: target, Token: token, Examples: examples}, Options{Output: io.Discard})
		if err != nil || rep.ExitCode() != 0 {
			b.Fatalf("run: %v", err)
		}
		run = time.Since(start)

		b.StopTimer()
		fresh, stopFresh := serve(false)
		client := NewClient(DefaultTimeout, nil, nil)
		b.StartTimer()
		start = time.Now()
		for _, r := range reqs {
			req, _ := http.NewRequest(http.MethodPost, fresh+"/plants", bytes.NewReader(r.body))
			req.Header = r.header
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		bare = time.Since(start)
		b.StopTimer()
		client.CloseIdleConnections()
		stopFresh()
		b.StartTimer()
		return run, bare, len(reqs)
	}

	var over, overMore, bare time.Duration
	var n, nMore int
	for b.Loop() {
		r, br, x := measure(0)
		over, bare, n = over+r-br, bare+br, n+x
		r, br, x = measure(225)
		overMore, nMore = overMore+r-br, nMore+x
	}
	b.ReportMetric(float64(n)/float64(b.N), "exchanges/run")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(n), "roundtrip-ns/exchange")
	b.ReportMetric(float64(over.Nanoseconds())/float64(n), "overhead-ns/exchange")
	b.ReportMetric(float64((overMore-over).Nanoseconds())/float64(nMore-n), "marginal-overhead-ns/exchange")
}
