package run

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// throttling answers some requests itself, before the service sees them,
// as a gateway that throttles does: throttle(n) gives the status and
// Retry-After for the n-th request (status 0: let it through).
func throttling(throttle func(n int64) (int, string)) func(http.Handler, string) http.Handler {
	return func(h http.Handler, _ string) http.Handler {
		var n atomic.Int64
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if status, after := throttle(n.Add(1)); status != 0 {
				refuse(w, status, after)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

func refuse(w http.ResponseWriter, status int, after string) {
	if after != "" {
		w.Header().Set("Retry-After", after)
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	io.WriteString(w, "slow down\n")
}

// limiter is a gateway that limits by rate: allow says whether a request
// that comes at now may pass, and if not, how long until one may.
func limiter(allow func(now time.Time) (bool, time.Duration), retryAfter bool) func(http.Handler, string) http.Handler {
	var mu sync.Mutex
	return func(h http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			ok, wait := allow(time.Now())
			mu.Unlock()
			if ok {
				h.ServeHTTP(w, r)
				return
			}
			after := ""
			if retryAfter {
				// Whole seconds, rounded up, as gateways send it.
				after = strconv.Itoa(int(math.Ceil(wait.Seconds())))
			}
			refuse(w, http.StatusTooManyRequests, after)
		})
	}
}

// tokenBucket lets burst requests through at once, then rate a second (as
// nginx's limit_req with a burst, or an API gateway's usage plan). It
// starts empty, as a run before left it: the run meets the limit at its
// first request, however fast the machine's load lets it go.
func tokenBucket(burst, rate float64) func(time.Time) (bool, time.Duration) {
	tokens, last := 0.0, time.Time{}
	return func(now time.Time) (bool, time.Duration) {
		if !last.IsZero() {
			tokens = min(burst, tokens+now.Sub(last).Seconds()*rate)
		}
		last = now
		if tokens >= 1 {
			tokens--
			return true, 0
		}
		return false, time.Duration((1 - tokens) / rate * float64(time.Second))
	}
}

// fixedWindow lets limit requests through in each second of the clock.
// The first second's are spent, as by a run before: the run meets the
// limit at its first request, however fast the machine's load lets it go.
func fixedWindow(limit int) func(time.Time) (bool, time.Duration) {
	var window int64
	n := 0
	return func(now time.Time) (bool, time.Duration) {
		if window == 0 {
			window, n = now.Unix(), limit
		}
		if w := now.Unix(); w != window {
			window, n = w, 0
		}
		if n < limit {
			n++
			return true, 0
		}
		return false, time.Unix(window+1, 0).Sub(now)
	}
}

// TestRateLimitedGatewayIsCertified: a gateway that limits by rate is
// waited out politely, the whole run paused at once and its pace brought
// down to what the gateway lets through: certified, exit 0, with nothing
// against it, in about the run's exchanges over the gateway's rate.
func TestRateLimitedGatewayIsCertified(t *testing.T) {
	t.Parallel()
	type gateway struct {
		name       string
		allow      func(time.Time) (bool, time.Duration)
		retryAfter bool
	}
	// Each limit is far below the pace of an unthrottled run (hundreds of
	// requests a second, under -race too), so that the run is brought down
	// to it, and each gateway starts spent, so that the run meets the
	// limit at its first request whatever the load. A run of about 430
	// exchanges takes about 430/120 s; the three, each with its own
	// gateway, wait on the clock at once.
	gateways := []gateway{
		{"token bucket, a burst of 20 then 120 a second", tokenBucket(20, 120), true},
		{"fixed windows of 120 a second", fixedWindow(120), true},
		{"token bucket, 429 without Retry-After", tokenBucket(20, 120), false},
	}
	atOnce(t, gateways, func(g gateway) string { return g.name }, func(t *testing.T, tt gateway) {
		// A token every scenario can use (72 bytes or more, nothing a
		// query or a cookie must escape), so that none is left out.
		url, token := startTargetWith(t, "t0ken-"+strings.Repeat("Rate-limited_gateway-", 4), limiter(tt.allow, tt.retryAfter))
		var out bytes.Buffer
		start := time.Now()
		rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token}, Options{Output: &out})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		th := rep.Throttling
		t.Logf("%s: %d exchanges in %s; %d throttling answers, %d pauses, %s paused, slowest pace %.1f/s",
			tt.name, rep.Model().Counts.Exchanges, took.Round(time.Millisecond), th.Total(), th.Pauses, th.Paused.Round(time.Millisecond), th.Slowest)
		rep.WriteVerdict(&out)
		if got, want := rep.VerdictLine(), "CONFORMANT: every MUST rule passed"; rep.ExitCode() != 0 || got != want {
			t.Errorf("exit %d, %q; want 0, %q\n%s", rep.ExitCode(), got, want, out.String())
		}
		if c := rep.Model().Counts; c.Failed+c.Errors+c.NotRun != 0 || rep.LikelyCause != "" || th.Exceeded != "" {
			t.Errorf("counts %+v, likely cause %q, exceeded %q: want nothing against the run", c, rep.LikelyCause, th.Exceeded)
		}
		if th.Total() == 0 || th.Pauses == 0 || th.Paused <= 0 || th.Slowest <= 0 {
			t.Errorf("throttling %+v: the gateway throttled nothing, or the run did not slow down", th)
		}
		if !strings.Contains("\n"+out.String(), "\npaused ") {
			t.Errorf("the console does not say the run paused:\n%s", out.String())
		}
	})
}

// fakeClock is a client.Clock that moves only when slept, to the end of the
// sleep, at once (internal/client's tests keep a copy): a run on it waits
// out every pause at once, and measures it exactly. Sleeps add up, so that
// it keeps a run's time exact at --concurrency 1, where one request at a
// time waits.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(max(d, 0))
	return ctx.Err()
}

// newFakeClock is a fakeClock set at the wall clock's time.
func newFakeClock() *fakeClock { return &fakeClock{t: time.Now()} }

// TestThrottlingIsWaitedOut: a 429 (with Retry-After, or without: 1 s) and a
// 503 with Retry-After are the infrastructure's, waited out and counted; the
// same request is sent again and the service judged on its answer, and the
// console and the reports say how long the run was paused. The run goes
// one request at a time on a fake clock, so that each pause is the wait
// asked (or a slot of the pace), exactly, whatever the load: that answers
// throttled at once are one pause is the gate's (TestGatePauseIsShared).
// The scenarios of one area (@area-auth, 50 requests or more) are enough:
// what is shown is the client's waits and how the reports tell them.
func TestThrottlingIsWaitedOut(t *testing.T) {
	t.Parallel()
	var secret string
	url, token := startTarget(t, throttling(func(n int64) (int, string) {
		switch {
		case n == 5:
			// Not a Retry-After plantcheck reads (it waits 1 s), and one
			// the console shows redacted and escaped.
			return http.StatusTooManyRequests, "later " + secret + " \u202e"
		case n == 20 || n == 21 || n == 22:
			// One request, throttled three times in a row.
			return http.StatusServiceUnavailable, "1"
		case n%15 == 0:
			return http.StatusTooManyRequests, "0" // a pause of one slot of the pace
		case n%25 == 0:
			return http.StatusServiceUnavailable, "0"
		}
		return 0, ""
	}))
	secret = token
	var out bytes.Buffer
	dir := t.TempDir()
	// A pace floor so high that the pauses of one slot of the pace (the
	// answers asking for none) are a millisecond at most: the time paused
	// is then the Retry-Afters' (1s, and 1s three times), and at most a
	// millisecond for each of the others.
	bound := client.Throttle{MinPace: 1000}
	rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, ReportDir: dir, Concurrency: 1, Tags: "@area-auth"}, Options{Output: &out, Throttle: bound, Clock: newFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d exchanges; %+v", rep.Model().Counts.Exchanges, rep.Throttling)
	rep.WriteVerdict(&out)
	if rep.ExitCode() != 0 {
		t.Errorf("exit %d, want 0: throttling is not the service's answer\n%s", rep.ExitCode(), out.String())
	}
	th := rep.Throttling
	if th.Answers[http.StatusTooManyRequests] < 2 || th.Answers[http.StatusServiceUnavailable] < 4 {
		t.Errorf("throttling counted as %v", th.Answers)
	}
	// 1s, and 1s three times: 4s asked, and paused, with a slot of the
	// pace (a millisecond at most) for each answer that asked no wait.
	slots := time.Duration(th.Total()-4) * time.Millisecond
	if th.Asked != 4*time.Second || th.Paused < th.Asked || th.Paused > th.Asked+slots {
		t.Errorf("paused %s, asked %s; want 4s asked, and paused 4s to %s", th.Paused, th.Asked, 4*time.Second+slots)
	}
	console, _, _ := strings.Cut(out.String(), "plantcheck verdict")
	// The pause is its own line: at the start of the console when no
	// progress dot came before it, after a newline otherwise.
	console = "\n" + console
	// Redacted: how much around the token the run's redactor hides is its
	// own business (it knows the near misses of the token the run sent).
	_, line, _ := strings.Cut(console, "\npaused 1s: the target answered 429 with Retry-After: ")
	line, _, _ = strings.Cut(line, "\n")
	if !strings.HasPrefix(line, "lat") || !strings.Contains(line, "<redacted>") || !strings.Contains(line, "; pace now ") {
		t.Errorf("the console does not say the pause, with the Retry-After redacted (%q):\n%s", line, console)
	}
	if strings.Contains(out.String(), token) || strings.Contains(out.String(), "\u202e") {
		t.Errorf("the console shows the target's Retry-After as sent:\n%s", console)
	}
	for _, want := range []string{"Throttled: ", "answers waited out", "the run was paused "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the verdict does not show the throttling (%q):\n%s", want, out.String())
		}
	}
	for _, f := range []string{SummaryJSON, SummaryMD} {
		if b := readReport(t, dir, f); !bytes.Contains(b, []byte("answers waited out")) || !bytes.Contains(b, []byte("the run was paused")) {
			t.Errorf("%s does not show the throttling", f)
		}
	}
	b := readReport(t, dir, SummaryJSON)
	if err := verdict.CheckSummary(b); err != nil {
		t.Errorf("summary.json of a throttled run: %v", err)
	}
	var doc struct {
		Throttling verdict.Throttling `json:"throttling"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if got, paused := doc.Throttling, verdict.Ms(th.Paused); got.PausedMs != paused || got.WaitedMs != 4000 {
		t.Errorf("summary.json throttling: pausedMs %g, waitedMs %g; want %g, 4000", got.PausedMs, got.WaitedMs, paused)
	}
}

// TestThrottlingOneAtATime: a gateway that throttles one request in
// three, with Retry-After or without, throttles a run at --concurrency 1
// as much as any: each request already waits for the answer before it,
// so "slow the run with --rate" is no advice. The run is incomplete
// (exit 2), never the service's failure, and the verdict says that the
// target throttled one request at a time and what it accepted.
func TestThrottlingOneAtATime(t *testing.T) {
	t.Parallel()
	// Each pause is a second of a fake clock: no time at all.
	atOnce(t, []string{"1", ""}, func(after string) string { return "Retry-After " + after }, func(t *testing.T, after string) {
		url, token := startTarget(t, throttling(func(n int64) (int, string) {
			if n%3 != 0 {
				return 0, ""
			}
			return http.StatusTooManyRequests, after
		}))
		rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Concurrency: 1, Tags: "@area-auth"}, Options{Output: io.Discard, Throttle: client.Throttle{MaxPaused: 3 * time.Second}, Clock: newFakeClock()})
		if err != nil {
			t.Fatal(err)
		}
		if rep.ExitCode() != 2 {
			t.Errorf("exit %d, want 2", rep.ExitCode())
		}
		v := rep.VerdictLine()
		for _, want := range []string{"paused more than 3s in all", "throttled about 1 in 3 requests though plantcheck sent one request at a time (--concurrency 1)", "ask for a higher limit"} {
			if !strings.Contains(v, want) {
				t.Errorf("verdict %q does not say %q", v, want)
			}
		}
		if strings.Contains(v, "slow the run") {
			t.Errorf("verdict %q advises slowing a run that sent one request at a time", v)
		}
		if rep.Model().Counts.Failed > 0 {
			t.Errorf("%d scenarios failed: throttling was laid to the service", rep.Model().Counts.Failed)
		}
	})
}

// TestThrottlingPastTheBound: past one of the other bounds the run is
// incomplete (exit 2), never the service's failure, and the verdict names
// the bound and --rate. The bound on the time paused, and the pattern it
// names, are the gate's (TestGateStillThrottledAtTheFloor,
// TestGateWhateverThePace) and TestThrottlingOneAtATime's.
func TestThrottlingPastTheBound(t *testing.T) {
	t.Parallel()
	type bound struct {
		name     string
		throttle func(int64) (int, string)
		bound    client.Throttle
		want     string
	}
	tests := []bound{
		{"a wait longer than the bound", func(int64) (int, string) { return http.StatusTooManyRequests, "3600" }, client.Throttle{}, "more than 30s"},
		{"a date too far", func(int64) (int, string) {
			return http.StatusTooManyRequests, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		}, client.Throttle{}, "more than 30s"},
		{"a request resent past MaxRetries", func(n int64) (int, string) {
			if n > 3 {
				return http.StatusTooManyRequests, "0"
			}
			return 0, ""
		}, client.Throttle{MaxRetries: 3, MinPace: 1000}, "throttled 4 times in a row"},
	}
	// Each waits out its own target's pauses on a fake clock.
	atOnce(t, tests, func(b bound) string { return b.name }, func(t *testing.T, tt bound) {
		url, token := startTarget(t, throttling(tt.throttle))
		rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Tags: "@area-auth"}, Options{Output: io.Discard, Throttle: tt.bound, Clock: newFakeClock()})
		if err != nil {
			t.Fatal(err)
		}
		if rep.ExitCode() != 2 {
			t.Errorf("exit %d, want 2", rep.ExitCode())
		}
		if v := rep.VerdictLine(); !strings.Contains(v, "--rate") || !strings.Contains(v, tt.want) {
			t.Errorf("verdict %q does not name --rate and %q", v, tt.want)
		}
		if rep.Model().Counts.Failed > 0 {
			t.Errorf("%d scenarios failed: throttling was laid to the service", rep.Model().Counts.Failed)
		}
	})
}

// TestRate: at --rate N the run keeps to N requests a second, whatever the
// concurrency: the gate gives each request its own slot, 1/N after the one
// before, and no request leaves before its slot, so the j-th request to
// arrive comes j/N after the run began or later. That holds whatever the
// scheduling; two arrivals' distance does not (a stalled process sends the
// requests whose slots passed in the stall at once). Without pacing the
// requests come within milliseconds.
func TestRate(t *testing.T) {
	t.Parallel()
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
	start := time.Now()
	rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Rate: rate, Concurrency: 16, Tags: "@area-auth"}, Options{Output: io.Discard})
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
	t.Logf("%d requests in %s", len(arrivals), arrivals[len(arrivals)-1].Sub(start).Round(time.Millisecond))
	for j, at := range arrivals {
		if got, min := at.Sub(start), time.Duration(j)*time.Second/rate; got < min {
			t.Fatalf("request %d came %s after the run began, sooner than %s at --rate %d", j+1, got, min, rate)
		}
	}
}
