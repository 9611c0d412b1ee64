package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestThrottleWait(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		status    int
		after     string
		attempt   int
		want      time.Duration
		throttled bool
	}{
		{"429 with seconds", 429, "3", 0, 3 * time.Second, true},
		{"429 with a date", 429, now.Add(90 * time.Second).Format(http.TimeFormat), 0, 90 * time.Second, true},
		{"429 with a date gone by", 429, now.Add(-time.Hour).Format(http.TimeFormat), 0, 0, true},
		{"429 without Retry-After, first", 429, "", 0, time.Second, true},
		{"429 without Retry-After, third", 429, "", 2, 4 * time.Second, true},
		{"429 without Retry-After, tenth: 8 s at most", 429, "", 9, 8 * time.Second, true},
		{"429 with a bad Retry-After", 429, "soon", 1, 2 * time.Second, true},
		{"503 with seconds", 503, "2", 0, 2 * time.Second, true},
		{"503 without Retry-After is the service's", 503, "", 0, 0, false},
		{"a negative Retry-After is no Retry-After", 503, "-5", 0, 0, false},
		{"200 with Retry-After", 200, "5", 0, 0, false},
		{"400", 400, "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tt.after != "" {
				h.Set("Retry-After", tt.after)
			}
			got, throttled := throttleWait(tt.status, h, tt.attempt, now)
			if got != tt.want || throttled != tt.throttled {
				t.Errorf("throttleWait = %s, %v; want %s, %v", got, throttled, tt.want, tt.throttled)
			}
		})
	}
}

// fakeClock is a Clock that moves only when slept, to the end of the
// sleep, at once: a wait takes no time, and what the client measures of it
// is exact, whatever the machine's load. Sleeps add up, so that it keeps a
// test's time exact where one request at a time sleeps (a test that drives
// the gate itself, or a run at --concurrency 1: internal/run's tests keep
// a copy).
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

// testGate is newGate on a fakeClock, set at a fixed time.
func testGate(ceiling float64, bound Throttle, notice func(string)) (*gate, *fakeClock) {
	g := newGate(ceiling, bound, notice)
	clk := &fakeClock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	g.clock = clk
	return g, clk
}

// fast is a bound whose floor is high enough that a test's pace costs
// nothing: the tests that are not about the pace.
var fast = Throttle{MinPace: 10000}

// sendAll passes n requests through the gate at once and returns when each
// went.
func sendAll(t *testing.T, g *gate, n int) []time.Time {
	t.Helper()
	out := make([]time.Time, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			at, err := g.wait(context.Background())
			if err != nil {
				t.Error(err)
			}
			out[i] = at
		})
	}
	wg.Wait()
	return out
}

// TestGatePauseIsShared: requests throttled at once pause the run once,
// for the longest wait asked, and no request passes the gate before it
// reopens.
func TestGatePauseIsShared(t *testing.T) {
	t.Parallel()
	g, clk := testGate(0, fast, nil)
	sent := sendAll(t, g, 8)
	before := clk.Now()
	for _, at := range sent {
		if err := g.throttled(at, http.StatusTooManyRequests, 300*time.Millisecond, 0, "1"); err != nil {
			t.Fatal(err)
		}
	}
	st := g.stats()
	if st.Pauses != 1 || st.Paused != 300*time.Millisecond {
		t.Errorf("8 answers asking 300ms at once: %d pauses, %s paused; want 1, 300ms", st.Pauses, st.Paused)
	}
	if got, want := st.Asked, 8*300*time.Millisecond; got != want {
		t.Errorf("asked %s, want %s", got, want)
	}
	for i, at := range sendAll(t, g, 8) {
		if at.Before(before.Add(300 * time.Millisecond)) {
			t.Errorf("request %d went %s after the pause began, before the gate reopened", i, at.Sub(before))
		}
	}
}

// TestGateReopensNeverSooner: a throttling answer moves the reopening
// forward, never back, and the time paused grows by what it adds.
func TestGateReopensNeverSooner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		waits []time.Duration // asked at once, in this order
		want  time.Duration   // the pause
	}{
		{"a shorter wait after a longer one", []time.Duration{400 * time.Millisecond, 100 * time.Millisecond}, 400 * time.Millisecond},
		{"a longer wait after a shorter one", []time.Duration{100 * time.Millisecond, 400 * time.Millisecond}, 400 * time.Millisecond},
		{"the same wait twice", []time.Duration{200 * time.Millisecond, 200 * time.Millisecond}, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, clk := testGate(0, fast, nil)
			sent := sendAll(t, g, len(tt.waits))
			start := clk.Now()
			var reopen time.Time
			for i, w := range tt.waits {
				if err := g.throttled(sent[i], http.StatusTooManyRequests, w, 0, ""); err != nil {
					t.Fatal(err)
				}
				g.mu.Lock()
				if g.reopen.Before(reopen) {
					t.Errorf("after a wait of %s the gate reopens %s sooner", w, reopen.Sub(g.reopen))
				}
				reopen = g.reopen
				g.mu.Unlock()
			}
			if got := reopen.Sub(start); got != tt.want {
				t.Errorf("the gate reopens %s after the answers, want %s", got, tt.want)
			}
			if got := g.stats().Paused; got != tt.want {
				t.Errorf("paused %s, want %s", got, tt.want)
			}
		})
	}
}

// TestGatePace: throttling lowers the pace (to nine tenths of the rate
// answers were accepted at over a second or more, else to half), within
// the floor and the ceiling, and only while it follows the pace (judged on
// two throttling answers at a pace); accepted answers raise it slowly,
// never past the ceiling.
func TestGatePace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ceiling float64
		setup   func(g *gate, now time.Time)
		// throttled: how many answers throttled at the current pace, each
		// to a request sent now; accepted: then how many accepted.
		throttled, accepted int
		min, max            float64 // the pace after
		alike               bool    // evidence of throttling whatever the pace
	}{
		{"unpaced: half the rate requests went at", 0, func(g *gate, now time.Time) {
			g.started, g.sent = now.Add(-500*time.Millisecond), 100
		}, 1, 0, 99, 101, false},
		{"over a second: nine tenths of the accepted rate", 0, func(g *gate, now time.Time) {
			g.setRate(100)
			g.cutAt, g.prevAt, g.passed, g.cur = now.Add(-2*time.Second), now.Add(-3*time.Second), 60, epoch{rate: 100, n: 60, throttled: 1}
			g.prev = epoch{n: 10, throttled: 5}
		}, 1, 0, 26.9, 27.1, false},
		{"only once for the requests sent at one pace", 0, func(g *gate, now time.Time) {
			g.started, g.sent = now.Add(-500*time.Millisecond), 100
		}, 5, 0, 99, 101, false},
		{"not below the floor", 0, func(g *gate, now time.Time) {
			g.setRate(3)
			g.cutAt, g.prevAt, g.cur = now.Add(-2*time.Second), now.Add(-3*time.Second), epoch{rate: 3, n: 2, throttled: 2}
			g.prev = epoch{n: 10, throttled: 10}
		}, 1, 0, 2, 2, false},
		{"not on two answers at a new pace, both throttled", 0, func(g *gate, now time.Time) {
			g.setRate(50)
			g.cutAt, g.prevAt = now.Add(-2*time.Second), now.Add(-3*time.Second)
			g.prev, g.cur = epoch{rate: 100, n: 30, throttled: 10}, epoch{rate: 50, n: 1, throttled: 1}
		}, 1, 0, 50, 50, false},
		{"not on one throttling answer at a new pace", 0, func(g *gate, now time.Time) {
			g.setRate(50)
			g.cutAt, g.prevAt = now.Add(-2*time.Second), now.Add(-3*time.Second)
			g.prev, g.cur = epoch{rate: 100, n: 30, throttled: 10}, epoch{rate: 50, n: 59}
		}, 1, 0, 50, 50, false},
		{"not when the last cut did not lower the throttled share", 0, func(g *gate, now time.Time) {
			g.setRate(50)
			g.cutAt, g.prevAt = now.Add(-2*time.Second), now.Add(-3*time.Second)
			g.prev, g.cur = epoch{rate: 100, n: 30, throttled: 10}, epoch{rate: 50, n: 29, throttled: 9}
		}, 1, 0, 50, 50, true},
		{"once the pace has risen by a fifth since the last cut", 0, func(g *gate, now time.Time) {
			g.setRate(60)
			g.cutAt, g.prevAt, g.passed = now.Add(-2*time.Second), now.Add(-3*time.Second), 100
			g.prev, g.cur = epoch{rate: 100, n: 30, throttled: 10}, epoch{rate: 50, n: 100}
		}, 1, 0, 44.9, 45.1, false},
		{"when it did", 0, func(g *gate, now time.Time) {
			g.setRate(50)
			g.cutAt, g.prevAt, g.passed = now.Add(-2*time.Second), now.Add(-3*time.Second), 60
			g.prev, g.cur = epoch{rate: 100, n: 30, throttled: 10}, epoch{rate: 50, n: 59, throttled: 1}
		}, 1, 0, 26.9, 27.1, false},
		{"under the ceiling", 10, func(g *gate, now time.Time) {
			g.cutAt, g.prevAt, g.passed, g.cur = now.Add(-2*time.Second), now.Add(-3*time.Second), 100, epoch{rate: 10, n: 100}
		}, 1, 0, 8.9, 9.1, false},
		{"accepted answers raise it by about max(1, 5%) a second each second", 0, func(g *gate, now time.Time) {
			g.setRate(20)
		}, 0, 20, 20.9, 21.1, false},
		{"by 5% when that is more", 0, func(g *gate, now time.Time) {
			g.setRate(100)
		}, 0, 100, 104.9, 105.1, false},
		{"never past the ceiling", 30, func(g *gate, now time.Time) {
			g.setRate(29)
		}, 0, 1000, 30, 30, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, clk := testGate(tt.ceiling, Throttle{MinPace: 2}, nil)
			now := clk.Now()
			tt.setup(g, now)
			// The answers come a millisecond after their requests.
			clk.Sleep(context.Background(), time.Millisecond)
			for range tt.throttled {
				if err := g.throttled(now, http.StatusTooManyRequests, 0, 0, "0"); err != nil {
					t.Fatal(err)
				}
			}
			for range tt.accepted {
				g.accepted(now)
			}
			if g.rate < tt.min || g.rate > tt.max {
				t.Errorf("pace %.2f, want %g to %g", g.rate, tt.min, tt.max)
			}
			if got := g.alike.n > 0; got != tt.alike {
				t.Errorf("throttling whatever the pace: %v, want %v", got, tt.alike)
			}
		})
	}
}

// TestGateBoundIsWallClock: the bound is on the time the gate was closed:
// answers throttled at once count once; past it the run stops, and every
// request at the gate with it.
func TestGateBoundIsWallClock(t *testing.T) {
	t.Parallel()
	g, _ := testGate(0, Throttle{MaxPaused: 500 * time.Millisecond, MinPace: 10000}, nil)
	sent := sendAll(t, g, 10)
	for _, at := range sent {
		if err := g.throttled(at, http.StatusServiceUnavailable, 300*time.Millisecond, 0, "1"); err != nil {
			t.Fatalf("ten answers asking 300ms at once, within a bound of 500ms: %v", err)
		}
	}
	at := sendAll(t, g, 1)[0]
	err := g.throttled(at, http.StatusServiceUnavailable, 300*time.Millisecond, 0, "1")
	if !errors.Is(err, ErrThrottled) {
		t.Fatalf("a second pause of 300ms: %v, want ErrThrottled", err)
	}
	if st := g.stats(); !strings.Contains(st.Exceeded, "paused more than 500ms") || st.Paused != 300*time.Millisecond {
		t.Errorf("exceeded %q, paused %s", st.Exceeded, st.Paused)
	}
	if _, err := g.wait(context.Background()); !errors.Is(err, ErrThrottled) {
		t.Errorf("a request at the gate after the bound: %v, want ErrThrottled", err)
	}
}

// TestGateOtherBounds: one wait too long, or one request throttled too
// many times in a row, ends the run too.
func TestGateOtherBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		wait    time.Duration
		attempt int
		want    string
	}{
		{"a wait past MaxWait", 11 * time.Second, 0, "a 429 asked for a wait of 11s, more than 10s"},
		{"a request throttled MaxRetries times", 0, 3, "one request was throttled 4 times in a row"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGate(0, Throttle{MaxWait: 10 * time.Second, MaxRetries: 3, MinPace: 10000}, nil)
			err := g.throttled(time.Now(), http.StatusTooManyRequests, tt.wait, tt.attempt, "")
			if !errors.Is(err, ErrThrottled) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v, want ErrThrottled: %s", err, tt.want)
			}
		})
	}
}

// TestGateNamesThePattern: at the bound, the reason says what the
// throttling was: whatever the pace, still at the floor, or neither.
func TestGateNamesThePattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ceiling float64
		setup   func(g *gate)
		want    string
	}{
		{"the same share at two paces", 0, func(g *gate) {
			g.setRate(40)
			g.alike = alike{slow: 40, n: 30}
			g.answers, g.seen.Answers = 90, map[int]int{429: 30}
		}, "about 1 in 3 requests was throttled whatever the pace (as often at 40 requests a second as with no pace)"},
		{"still throttled at the floor", 0, func(g *gate) {
			g.setRate(2)
			g.prev, g.cur = epoch{rate: 4, n: 60, throttled: 50}, epoch{rate: 2, n: 30, throttled: 3}
		}, "about 1 in 10 requests was still throttled at 2 requests a second, the slowest plantcheck goes on its own: slow the run further with --rate"},
		{"still throttled at --rate", 1, func(g *gate) {
			g.cur = epoch{rate: 1, n: 10, throttled: 10}
		}, "nearly every request was still throttled at 1 request a second, the run's --rate"},
		{"neither", 0, func(g *gate) {
			g.setRate(25)
			g.seen.Answers = map[int]int{429: 7}
		}, "(7 throttling answers; the pace down to 25 requests a second): slow the run with --rate"},
		{"one request at a time", 0, func(g *gate) {
			g.inFlight = 1
			g.setRate(25)
			g.answers, g.seen.Answers, g.acceptedAll = 90, map[int]int{429: 30}, 60
			g.started = time.Now().Add(-30 * time.Second)
		}, "the target throttled about 1 in 3 requests though plantcheck sent one request at a time (--concurrency 1), and accepted about 2 requests a second from this client, pauses included"},
		{"one request at a time, at the floor", 0, func(g *gate) {
			g.inFlight = 1
			g.setRate(2)
			g.prev, g.cur = epoch{rate: 4, n: 60, throttled: 50}, epoch{rate: 2, n: 30, throttled: 3}
			g.answers, g.seen.Answers = 90, map[int]int{429: 53}
		}, "though plantcheck sent one request at a time (--concurrency 1): its limit for this client does not let a run through within the bound; ask for a higher limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGate(tt.ceiling, Throttle{MaxPaused: time.Minute}, nil)
			tt.setup(g)
			if got := g.pastBound(); !strings.HasPrefix(got, "the run would be paused more than 1m0s in all") || !strings.Contains(got, tt.want) {
				t.Errorf("got %q\nwant it to hold %q", got, tt.want)
			}
		})
	}
}

// TestGateWhateverThePace: a gateway that refuses one request in three
// whatever the pace cannot be waited out politely. Nine requests go at
// once, unpaced; their answers come a millisecond later, every third
// throttled with Retry-After: 1, and the first cuts the pace; then the
// requests go one at a time at the slower pace, every third throttled
// still. The share at the new pace is the share at the one before: the
// gate stops at its bound on the time paused, and names the pattern, not
// "slow the run".
func TestGateWhateverThePace(t *testing.T) {
	t.Parallel()
	g, clk := testGate(0, Throttle{MaxPaused: 3 * time.Second, MinPace: 2}, nil)
	n := 0
	// answer gives the n-th request's answer, to the request sent at.
	answer := func(at time.Time) error {
		n++
		if n%3 != 0 {
			g.accepted(at)
			return nil
		}
		return g.throttled(at, http.StatusTooManyRequests, time.Second, 0, "1")
	}
	first := sendAll(t, g, 9)
	clk.Sleep(context.Background(), time.Millisecond)
	for _, at := range first {
		if err := answer(at); err != nil {
			t.Fatalf("answer %d: %v", n, err)
		}
	}
	if st := g.stats(); st.Pauses != 1 || st.Paused != time.Second || st.Slowest == 0 {
		t.Fatalf("after the nine answers at once: %+v; want one pause of 1s, and the pace cut", st)
	}
	var err error
	for err == nil && n < 100 {
		var at time.Time
		if at, err = g.wait(context.Background()); err == nil {
			clk.Sleep(context.Background(), time.Millisecond)
			err = answer(at)
		}
	}
	st := g.stats()
	t.Logf("%d requests; %+v", n, st)
	if !errors.Is(err, ErrThrottled) {
		t.Fatalf("after %d requests: %v, want ErrThrottled", n, err)
	}
	for _, want := range []string{"the run would be paused more than 3s in all", "about 1 in 3 requests was throttled whatever the pace (as often at ", " as with no pace)"} {
		if !strings.Contains(st.Exceeded, want) {
			t.Errorf("exceeded %q does not say %q", st.Exceeded, want)
		}
	}
	if strings.Contains(st.Exceeded, "slow the run") {
		t.Errorf("exceeded %q advises slowing a run whose pace does not help", st.Exceeded)
	}
	// Each pause is the 1s asked, one request at a time: the gate stops
	// at the pause that would take it past 3s.
	if st.Paused != 3*time.Second || st.Pauses != 3 {
		t.Errorf("%d pauses, %s paused; want 3, 3s", st.Pauses, st.Paused)
	}
}

// TestGateStillThrottledAtTheFloor: a gateway that refuses every request,
// whatever the pace, asking no wait (a 503 with Retry-After: 0): sixteen
// requests go at once, unpaced, then one at a time; each throttling answer
// closes the gate for a slot of the pace, which comes down to the floor.
// At the bound on the time paused the gate stops and says the requests were
// still throttled at the slowest pace it goes on its own, and --rate. Each
// answer is to a request of its own: one request sent again past
// MaxRetries is TestGateOtherBounds'.
func TestGateStillThrottledAtTheFloor(t *testing.T) {
	t.Parallel()
	g, clk := testGate(0, Throttle{MaxPaused: time.Second, MinPace: 20}, nil)
	throttle := func(at time.Time) error {
		return g.throttled(at, http.StatusServiceUnavailable, 0, 0, "0")
	}
	first := sendAll(t, g, 16)
	clk.Sleep(context.Background(), time.Millisecond)
	var err error
	n := 0
	for _, at := range first {
		if n++; err == nil {
			err = throttle(at)
		}
	}
	for err == nil && n < 1000 {
		var at time.Time
		if at, err = g.wait(context.Background()); err == nil {
			n++
			clk.Sleep(context.Background(), time.Millisecond)
			err = throttle(at)
		}
	}
	st := g.stats()
	t.Logf("%d requests; %+v", n, st)
	if !errors.Is(err, ErrThrottled) {
		t.Fatalf("after %d requests: %v, want ErrThrottled", n, err)
	}
	if want := "the run would be paused more than 1s in all: nearly every request was still throttled at 20 requests a second, the slowest plantcheck goes on its own: slow the run further with --rate"; st.Exceeded != want {
		t.Errorf("exceeded %q\nwant %q", st.Exceeded, want)
	}
	if st.Slowest != 20 || st.Paused > time.Second {
		t.Errorf("slowest pace %g, paused %s; want 20, at most 1s", st.Slowest, st.Paused)
	}
}

// TestGateTells: a pause that starts is told on the console, at most once
// each tellEvery, the next line counting those not told; the pattern is
// told once.
func TestGateTells(t *testing.T) {
	t.Parallel()
	var lines []string
	g, _ := testGate(0, Throttle{MinPace: 1000}, func(l string) { lines = append(lines, l) })
	pause := func(asked string, wait time.Duration) {
		t.Helper()
		at := sendAll(t, g, 1)[0]
		if err := g.throttled(at, http.StatusTooManyRequests, wait, 0, asked); err != nil {
			t.Fatal(err)
		}
	}
	pause("0", 0)
	pause("0", 0)
	pause("0", 0)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "paused ") || !strings.Contains(lines[0], "the target answered 429 with Retry-After: 0; pace now ") {
		t.Fatalf("three pauses at once told as %q, want one line", lines)
	}
	g.mu.Lock()
	g.told = g.told.Add(-tellEvery)
	g.mu.Unlock()
	pause("", 10*time.Millisecond)
	if len(lines) != 2 || !strings.Contains(lines[1], "paused 10ms: the target answered 429 without Retry-After") || !strings.Contains(lines[1], "(2 more pauses since the last such line;") {
		t.Fatalf("the pause after tellEvery told as %q", lines[1:])
	}
	g.mu.Lock()
	g.alike = alike{slow: 1000, fast: 2000, n: patternMin}
	g.mu.Unlock()
	pause("", 10*time.Millisecond)
	pause("", 10*time.Millisecond)
	if len(lines) != 3 || !strings.Contains(lines[2], "is throttled whatever the pace (as often at 1000 requests a second as at 2000 requests a second): the run goes on until it has been paused 2m0s in all") {
		t.Errorf("throttling whatever the pace told as %q, want once", lines[2:])
	}
}

// BenchmarkGateUnthrottled is what the gate costs an exchange of a run that
// is never throttled and has no --rate: a wait at the gate and an accepted
// answer, from as many goroutines as a run has requests in flight.
func BenchmarkGateUnthrottled(b *testing.B) {
	g := newGate(0, Throttle{}, nil)
	ctx := context.Background()
	b.SetParallelism(8) // 16 in flight on 2 cores
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			sent, err := g.wait(ctx)
			if err != nil {
				b.Fatal(err)
			}
			g.accepted(sent)
		}
	})
}
