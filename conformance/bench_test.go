package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/reference"
)

// BenchmarkRunReference measures one whole run of every feature against the
// bundled reference server in-process: start-up of the server, every
// scenario, the verdict.
func BenchmarkRunReference(b *testing.B) {
	b.ReportAllocs()
	var scenarios, exchanges int
	for b.Loop() {
		rep, err := Run(context.Background(), Config{Output: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		if rep.ExitCode() != 0 {
			b.Fatalf("exit code %d", rep.ExitCode())
		}
		scenarios, exchanges = rep.Counts.Total, rep.Counts.Exchanges
	}
	b.ReportMetric(float64(scenarios), "scenarios/run")
	b.ReportMetric(float64(exchanges), "exchanges/run")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(exchanges), "ns/exchange")
}

// BenchmarkOverheadPerExchange measures plantcheck's own cost per exchange
// beyond the HTTP round trip: the time of a whole in-process run, less the
// time the same number of bare round trips (a client posting a valid body
// to the reference server over loopback) take, divided by the exchanges.
// Everything else counts as overhead: godog, the steps, the validator on
// every request and response, the reports in memory, start-up.
func BenchmarkOverheadPerExchange(b *testing.B) {
	const token = "bench-token"
	srv, err := reference.New(reference.Config{Token: token})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	defer hs.Close()
	url := "http://" + ln.Addr().String() + "/plants"
	client := NewClient(DefaultTimeout, 1, nil)
	id := int64(0)
	roundTrip := func() {
		id++
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(fmt.Sprintf(`{"id":%d,"name":"Fern","tag":"green"}`, id))))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	var run, bare time.Duration
	var exchanges int
	for b.Loop() {
		start := time.Now()
		rep, err := Run(context.Background(), Config{Output: io.Discard})
		if err != nil || rep.ExitCode() != 0 {
			b.Fatalf("run: %v", err)
		}
		run += time.Since(start)
		exchanges = rep.Counts.Exchanges
		start = time.Now()
		for range exchanges {
			roundTrip()
		}
		bare += time.Since(start)
	}
	n := float64(b.N * exchanges)
	b.ReportMetric(float64(bare.Nanoseconds())/n, "roundtrip-ns/exchange")
	b.ReportMetric(float64((run-bare).Nanoseconds())/n, "overhead-ns/exchange")
}
