package conformance

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// throttling answers some requests itself, before the service sees them,
// as a gateway that throttles does: throttle(n) gives the status and
// Retry-After for the n-th request (status 0: let it through).
func throttling(throttle func(n int64) (int, string)) func(http.Handler, string) http.Handler {
	return func(h http.Handler, _ string) http.Handler {
		var n atomic.Int64
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if status, after := throttle(n.Add(1)); status != 0 {
				if after != "" {
					w.Header().Set("Retry-After", after)
				}
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(status)
				io.WriteString(w, "slow down\n")
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// TestThrottlingIsWaitedOut: a 429 (with Retry-After, or without: 1 s) and a
// 503 with Retry-After are the infrastructure's, waited out and counted; the
// same request is sent again and the service judged on its answer.
func TestThrottlingIsWaitedOut(t *testing.T) {
	url, token := startTarget(t, throttling(func(n int64) (int, string) {
		switch {
		case n == 5:
			return http.StatusTooManyRequests, "" // waits 1 s
		case n%9 == 0:
			return http.StatusTooManyRequests, "0"
		case n%13 == 0:
			return http.StatusServiceUnavailable, "0"
		}
		return 0, ""
	}))
	var out bytes.Buffer
	dir := t.TempDir()
	rep, err := Run(context.Background(), Config{BaseURL: url, Token: token, Output: &out, ReportDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteVerdict(&out)
	if rep.ExitCode() != 0 {
		t.Errorf("exit %d, want 0: throttling is not the service's answer\n%s", rep.ExitCode(), out.String())
	}
	th := rep.Throttling
	if th.Answers[http.StatusTooManyRequests] < 2 || th.Answers[http.StatusServiceUnavailable] < 1 || th.Waited < time.Second {
		t.Errorf("throttling counted as %v, waited %s", th.Answers, th.Waited)
	}
	if !strings.Contains(out.String(), "Throttled: ") {
		t.Errorf("the verdict does not show the throttling:\n%s", out.String())
	}
	for _, f := range []string{SummaryJSON, SummaryMD} {
		if b := readReport(t, dir, f); !bytes.Contains(b, []byte("answers waited out")) {
			t.Errorf("%s does not show the throttling", f)
		}
	}
}

// TestThrottlingPastTheBound: past the bound the run is incomplete (exit
// 2), never the service's failure, and the verdict names --rate.
func TestThrottlingPastTheBound(t *testing.T) {
	tests := []struct {
		name     string
		throttle func(int64) (int, string)
		want     string
	}{
		{"a wait longer than the bound", func(int64) (int, string) { return http.StatusTooManyRequests, "3600" }, "more than 30s"},
		{"too many resends", func(int64) (int, string) { return http.StatusServiceUnavailable, "0" }, "throttled 6 times in a row"},
		{"a date too far", func(int64) (int, string) {
			return http.StatusTooManyRequests, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		}, "more than 30s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, token := startTarget(t, throttling(tt.throttle))
			rep, err := Run(context.Background(), Config{BaseURL: url, Token: token, Output: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			if rep.ExitCode() != 2 {
				t.Errorf("exit %d, want 2", rep.ExitCode())
			}
			if v := rep.VerdictLine(); !strings.Contains(v, "--rate") || !strings.Contains(v, tt.want) {
				t.Errorf("verdict %q does not name --rate and %q", v, tt.want)
			}
			if rep.Counts.Failed > 0 {
				t.Errorf("%d scenarios failed: throttling was laid to the service", rep.Counts.Failed)
			}
		})
	}
}

// TestRate: at --rate N the run keeps to N requests a second, whatever the
// concurrency: requests i and j arrive no closer than (j-i)/N, less two
// intervals of jitter.
func TestRate(t *testing.T) {
	var mu sync.Mutex
	var arrivals []time.Time
	url, token := startTarget(t, func(h http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			arrivals = append(arrivals, time.Now())
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	const rate = 40
	rep, err := Run(context.Background(), Config{BaseURL: url, Token: token, Output: io.Discard, Rate: rate, Concurrency: 16, Tags: "@area-auth"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != 0 {
		t.Fatalf("exit %d", rep.ExitCode())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) < 10 {
		t.Fatalf("only %d requests", len(arrivals))
	}
	// Arrival times carry the network's jitter (a new connection's dial,
	// the race detector): two intervals of it are allowed between any two
	// requests; without pacing, the requests come within milliseconds.
	for i := range arrivals {
		for j := i + 3; j < len(arrivals); j++ {
			if got, min := arrivals[j].Sub(arrivals[i]), time.Duration(j-i-2)*time.Second/rate; got < min {
				t.Fatalf("requests %d and %d came %s apart, sooner than %s at --rate %d", i, j, got, min, rate)
			}
		}
	}
}
