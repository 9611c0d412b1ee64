package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pacer keeps a run to at most a number of requests a second (--rate),
// whatever runs at once: each request takes the next free slot in time.
// A nil pacer does not pace.
type pacer struct {
	mu    sync.Mutex
	every time.Duration
	next  time.Time
}

func newPacer(perSecond float64) *pacer {
	if perSecond <= 0 {
		return nil
	}
	return &pacer{every: time.Duration(float64(time.Second) / perSecond)}
}

func (p *pacer) wait(ctx context.Context) error {
	if p == nil {
		return ctx.Err()
	}
	p.mu.Lock()
	now := time.Now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.every)
	p.mu.Unlock()
	return sleep(ctx, time.Until(at))
}

// Throttle bounds how long a run waits out throttling; past any bound the
// run is incomplete (ErrThrottled).
type Throttle struct {
	// MaxWait is the longest one wait may be: a Retry-After asking for
	// more ends the run.
	MaxWait time.Duration
	// MaxRetries is how many times one request is sent again.
	MaxRetries int
	// MaxTotal bounds the waits of the whole run, added up.
	MaxTotal time.Duration
}

// DefaultThrottle is the bound a run waits within: 30 s at once, 5 resends
// of one request, 2 minutes in all.
var DefaultThrottle = Throttle{MaxWait: 30 * time.Second, MaxRetries: 5, MaxTotal: 2 * time.Minute}

// ErrThrottled means the target throttled the run past the bounds it
// waits within: the run is incomplete, not the service broken.
var ErrThrottled = errors.New("the target throttled the run past plantcheck's bound")

// Throttling is what a run met of throttling.
type Throttling struct {
	// Answers are the throttling answers waited out, by status.
	Answers map[int]int
	// Waited is the time waited, added up.
	Waited time.Duration
	// Exceeded says why the run stopped waiting ("" when it did not).
	Exceeded string
}

// Total is the number of throttling answers.
func (t Throttling) Total() int {
	n := 0
	for _, c := range t.Answers {
		n += c
	}
	return n
}

// throttler counts and bounds the waits of one run.
type throttler struct {
	bound Throttle
	mu    sync.Mutex
	seen  Throttling
}

// admit records a throttling answer and the wait it asks for, and says
// whether the run may wait it out.
func (t *throttler) admit(status int, wait time.Duration, attempt int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen.Answers == nil {
		t.seen.Answers = map[int]int{}
	}
	t.seen.Answers[status]++
	switch {
	case t.seen.Exceeded != "":
	case wait > t.bound.MaxWait:
		t.seen.Exceeded = fmt.Sprintf("a %d asked for a wait of %s, more than %s", status, wait.Round(time.Second), t.bound.MaxWait)
	case attempt >= t.bound.MaxRetries:
		t.seen.Exceeded = fmt.Sprintf("one request was throttled %d times in a row", attempt+1)
	case t.seen.Waited+wait > t.bound.MaxTotal:
		t.seen.Exceeded = fmt.Sprintf("the waits would add up to more than %s", t.bound.MaxTotal)
	default:
		t.seen.Waited += wait
		return nil
	}
	return fmt.Errorf("%w (%s): slow the run with --rate", ErrThrottled, t.seen.Exceeded)
}

func (t *throttler) stats() Throttling {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.seen
	out.Answers = make(map[int]int, len(t.seen.Answers))
	for k, v := range t.seen.Answers {
		out.Answers[k] = v
	}
	return out
}

// throttleWait says whether an answer is throttling, and how long it asks
// to wait: a 429 (Retry-After, else 1 s doubled at each attempt), or a 503
// with Retry-After. A 503 without one is the service's answer, judged as
// any other.
func throttleWait(status int, h http.Header, attempt int, now time.Time) (time.Duration, bool) {
	if status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
		return 0, false
	}
	if d, ok := retryAfter(h.Get("Retry-After"), now); ok {
		return d, true
	}
	if status == http.StatusServiceUnavailable {
		return 0, false
	}
	return time.Second << min(attempt, 10), true
}

// retryAfter reads Retry-After (RFC 9110, 10.2.3): seconds, or a date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
