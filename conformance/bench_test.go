package conformance

import (
	"context"
	"io"
	"testing"
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
}
