package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Throttle bounds how long a run waits out throttling; past any bound the
// run is incomplete (ErrThrottled).
type Throttle struct {
	MaxWait time.Duration // the longest one wait: a Retry-After asking for more ends the run
	// MaxRetries is how many times in a row one request is sent again: a
	// guard against one refused forever while others pass.
	MaxRetries int
	// MaxPaused bounds the wall-clock time the run is paused (its gate
	// closed): the bound that decides, however many requests wait at once.
	MaxPaused time.Duration
	MinPace   float64 // requests a second throttling slows the run to at the most; --rate, when slower, is
}

// DefaultThrottle is the bound a run waits within: 30 s at once, 20
// resends of one request in a row, 2 minutes paused in all, and a pace
// down to 2 requests a second (a run of 300 exchanges in 2.5 minutes).
var DefaultThrottle = Throttle{MaxWait: 30 * time.Second, MaxRetries: 20, MaxPaused: 2 * time.Minute, MinPace: 2}

func (t Throttle) orDefault() Throttle {
	d := DefaultThrottle
	return Throttle{cmp.Or(t.MaxWait, d.MaxWait), cmp.Or(t.MaxRetries, d.MaxRetries), cmp.Or(t.MaxPaused, d.MaxPaused), cmp.Or(t.MinPace, d.MinPace)}
}

// ErrThrottled means the target throttled the run past the bounds it
// waits within: the run is incomplete, not the service broken.
var ErrThrottled = errors.New("the target throttled the run past plantcheck's bound")

// Throttling is what a run met of throttling.
type Throttling struct {
	Answers map[int]int   // the throttling answers waited out, by status
	Paused  time.Duration // the wall-clock time the gate was closed
	Pauses  int           // the times it closed
	// Asked is the waits the answers asked for, added up: answers to
	// requests in flight at once ask for waits that overlap.
	Asked    time.Duration
	Slowest  float64 // the slowest pace, in requests a second (0: never paced down)
	Exceeded string  // why the run stopped waiting, and what may help ("": it did not)
}

func (t Throttling) Total() int { return sum(t.Answers) }

func sum[K comparable](m map[K]int) (n int) {
	for _, c := range m {
		n += c
	}
	return n
}

// How the pace adapts. A cut takes the pace to nine tenths of the rate at
// which answers were accepted since the last cut, when that span is long
// enough to say (a second: a gateway's window); on a shorter one, to half
// the pace. Each accepted answer raises it by a share of a request a second,
// so that it rises by about max(1, 5%) requests a second each second.
//
// A cut is made only while throttling follows the pace. The first
// throttling answer cuts, and so does the third in a row at a pace at
// which nothing was accepted, and one that comes once the pace has risen
// by a fifth since the last cut (a rate limit met again). Else a pace is
// judged on two throttling answers at least, at it and at the pace
// before (fewer say nothing of a share): if the share of requests
// throttled at it is not under half the share at the pace before, a slower
// pace did not help, and the next is not slower. A gateway that limits by
// rate throttles far less at a slower pace; one that throttles one request
// in three, or a sporadic 503, does not, and pacing it down would only
// make the run slow.
const (
	cutShare   = 0.9
	cutSpan    = time.Second
	riseShare  = 0.05
	fellShare  = 0.5
	riseAgain  = 1.2
	nearFloor  = 1.5 // a pace below this many times the floor is at the floor
	patternMin = 20  // answers at each of two paces before a pattern is told
	tellEvery  = 10 * time.Second
)

// gate is the one door every request of a run passes before it is sent.
// A throttling answer (a 429, or a 503 with Retry-After) is the
// infrastructure asking the client to wait, not one request: it closes the
// gate for the whole run until the time it asks for (a later answer moves
// the reopening forward, never back, so that requests throttled at once do
// not add up their waits), and lowers the pace the gate lets requests
// through at. The pace rises again slowly as answers are accepted, never
// above the ceiling (--rate). A run never throttled and without --rate is
// not paced: the gate then costs a lock and a clock reading.
type gate struct {
	clock   Clock
	bound   Throttle
	ceiling float64 // --rate; 0: none
	floor   float64
	// inFlight is the most requests the run sends at once (--concurrency;
	// 0: not known): at one, a slower pace spaces requests that already
	// wait for each other's answers.
	inFlight int
	notice   func(string) // a line for the console; nil: none

	mu     sync.Mutex
	rate   float64       // the pace, requests a second; 0: unpaced
	every  time.Duration // one request's share of a second at that pace
	next   time.Time     // the pace's next free slot
	reopen time.Time     // the gate is closed until then

	// What a cut is judged on: when the last one was, what was sent and
	// accepted since, and the answers at this pace and the one before.
	started, cutAt, prevAt time.Time
	sent, passed           int
	answers                int // in all, throttling or not
	acceptedAll            int // answers accepted in all
	cur, prev              epoch
	alike                  alike // evidence of throttling that does not follow the pace

	seen   Throttling
	told   time.Time // when the last pause was told
	untold int       // pauses since, not told
	warned bool      // the pattern was told
}

// alike: requests throttled as often at a pace (slow) as at the faster one
// before it (fast; 0: unpaced), on n answers at each at least.
type alike struct {
	slow, fast float64
	n          int
}

// epoch counts the answers to the requests sent at one pace.
type epoch struct {
	rate         float64 // the pace at the start (0: unpaced)
	n, throttled int
}

func (e epoch) share() float64 { return float64(e.throttled) / float64(max(e.n, 1)) }

// Clock is the client's time: the wall clock in a run; in a test, a fake
// one that moves only when the gate sleeps, so that what the gate measures
// does not move with the machine's load.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
func (wallClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func newGate(ceiling float64, bound Throttle, notice func(string)) *gate {
	g := &gate{clock: wallClock{}, bound: bound.orDefault(), ceiling: ceiling, notice: notice}
	g.floor = g.bound.MinPace
	if ceiling > 0 {
		g.floor = min(g.floor, ceiling)
		g.setRate(ceiling)
		g.cur.rate = ceiling
	}
	return g
}

// wait holds a request until the gate is open and the pace has a slot for
// it, and says when it went; ErrThrottled past the run's bound.
func (g *gate) wait(ctx context.Context) (time.Time, error) {
	for {
		g.mu.Lock()
		if g.seen.Exceeded != "" {
			err := g.exceeded()
			g.mu.Unlock()
			return time.Time{}, err
		}
		now := g.clock.Now()
		if now.Before(g.reopen) {
			d := g.reopen.Sub(now)
			g.mu.Unlock()
			if err := g.clock.Sleep(ctx, d); err != nil {
				return time.Time{}, err
			}
			continue
		}
		if g.started.IsZero() {
			g.started = now
		}
		at := now
		if g.every > 0 {
			at = later(now, g.next)
			g.next = at.Add(g.every)
		}
		g.sent++
		g.mu.Unlock()
		if !at.After(now) {
			return now, nil
		}
		if err := g.clock.Sleep(ctx, at.Sub(now)); err != nil {
			return time.Time{}, err
		}
		// The gate may have closed while the request waited for its slot:
		// then it waits at the gate again, and takes a slot after it.
		g.mu.Lock()
		closed := g.clock.Now().Before(g.reopen)
		if closed {
			g.sent--
		}
		g.mu.Unlock()
		if !closed {
			return at, nil
		}
	}
}

// accepted records an answer that was not throttling: the pace rises.
func (g *gate) accepted(sent time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.passed++
	g.acceptedAll++
	g.count(sent, false)
	if g.rate > 0 && !sent.Before(g.cutAt) && (g.ceiling == 0 || g.rate < g.ceiling) {
		g.setRate(g.rate + max(1, riseShare*g.rate)/g.rate)
	}
}

// throttled records a throttling answer, the attempt-th in a row for its
// request, asking for wait (asked: its Retry-After, safe to print). The gate
// closes until then, and the pace is lowered once for the requests sent at
// the pace throttled. Past a bound it returns ErrThrottled.
func (g *gate) throttled(sent time.Time, status int, wait time.Duration, attempt int, asked string) error {
	g.mu.Lock()
	lines, err := g.close(sent, status, wait, attempt, asked)
	g.mu.Unlock()
	if g.notice != nil {
		for _, l := range lines {
			g.notice(l)
		}
	}
	return err
}

func (g *gate) close(sent time.Time, status int, wait time.Duration, attempt int, asked string) ([]string, error) {
	now := g.clock.Now()
	if g.seen.Answers == nil {
		g.seen.Answers = map[int]int{}
	}
	g.seen.Answers[status]++
	g.seen.Asked += wait
	g.count(sent, true)
	switch {
	case g.seen.Exceeded != "":
	case wait > g.bound.MaxWait:
		g.seen.Exceeded = fmt.Sprintf("a %d asked for a wait of %s, more than %s: slow the run with --rate, or run it later", status, wait.Round(time.Second), g.bound.MaxWait)
	case attempt >= g.bound.MaxRetries:
		g.seen.Exceeded = fmt.Sprintf("one request was throttled %d times in a row: slow the run with --rate", attempt+1)
	}
	if g.seen.Exceeded != "" {
		return nil, g.exceeded()
	}
	if !sent.Before(g.cutAt) {
		// Throttled at the current pace: slower, while that helps.
		switch g.follows() {
		case cutFell:
			g.alike = alike{}
			g.cut(now)
		case cutNow:
			g.cut(now)
		case same:
			g.alike = alike{slow: g.cur.rate, fast: g.prev.rate, n: min(g.cur.n, g.prev.n)}
		}
	}
	// A throttling answer that asks for no wait still says the pace was
	// too fast: a resend at once would be refused again. The gate closes
	// for one slot of the lowered pace.
	pause := max(wait, g.every)
	until := now.Add(pause)
	if !until.After(g.reopen) {
		return nil, nil
	}
	opening := !now.Before(g.reopen)
	added := until.Sub(later(now, g.reopen))
	if g.seen.Paused+added > g.bound.MaxPaused {
		g.seen.Exceeded = g.pastBound()
		return nil, g.exceeded()
	}
	g.seen.Paused += added
	g.reopen = until
	g.next = later(g.next, until)
	var lines []string
	if opening {
		g.seen.Pauses++
		if l := g.tell(now, status, asked, pause); l != "" {
			lines = append(lines, l)
		}
	}
	if a := g.alike; a.n >= patternMin && !g.warned {
		g.warned = true
		lines = append(lines, fmt.Sprintf("%s is throttled whatever the pace (%s): the run goes on until it has been paused %s in all, then stops incomplete",
			upper(oneIn(g.share())), a.paces(), g.bound.MaxPaused))
	}
	return lines, nil
}

// What follows says of a throttling answer at the current pace.
type verdict int

const (
	unknown verdict = iota // not yet known: no cut
	cutNow                 // cut
	cutFell                // cut: the last cut lowered the throttled share
	same                   // no cut: the last cut did not lower it
)

// follows says whether the throttling follows the pace.
func (g *gate) follows() verdict {
	switch {
	case g.prev.n == 0 || g.cur.n >= 3 && g.cur.throttled == g.cur.n:
		return cutNow
	case g.cur.rate > 0 && g.rate >= riseAgain*g.cur.rate:
		return cutNow
	case g.cur.throttled < 2 || g.cur.throttled == g.cur.n || g.prev.throttled < 2:
		return unknown
	case g.cur.share() < fellShare*g.prev.share():
		return cutFell
	}
	return same
}

// cut lowers the pace: to nine tenths of the rate answers were accepted at
// since the last cut, when that span is long enough to say; else to half.
func (g *gate) cut(now time.Time) {
	span := now.Sub(later(g.cutAt, g.started))
	current := g.rate
	if current == 0 {
		// Unpaced until now: the pace was the rate requests went at.
		current = float64(g.sent) / max(span, 10*time.Millisecond).Seconds()
	}
	next := current / 2
	if span >= cutSpan {
		next = min(current, float64(g.passed)/span.Seconds()) * cutShare
	}
	was := g.rate
	g.setRate(next)
	if g.rate == was {
		// At the floor (or --rate) already: the same pace goes on, and
		// its answers are still counted as one.
		return
	}
	if (g.ceiling == 0 || g.rate < g.ceiling) && (g.seen.Slowest == 0 || g.rate < g.seen.Slowest) {
		g.seen.Slowest = g.rate
	}
	g.prevAt, g.cutAt = g.cutAt, now
	g.prev, g.cur = g.cur, epoch{rate: g.rate}
	g.sent, g.passed = 0, 0
}

func (g *gate) setRate(r float64) {
	r = max(r, g.floor)
	if g.ceiling > 0 {
		r = min(r, g.ceiling)
	}
	g.rate, g.every = r, time.Duration(float64(time.Second)/r)
}

func (g *gate) share() float64 { return float64(g.seen.Total()) / float64(max(g.answers, 1)) }

func (g *gate) count(sent time.Time, throttled bool) {
	g.answers++
	e := &g.cur
	switch {
	case sent.Before(g.prevAt):
		return
	case sent.Before(g.cutAt):
		e = &g.prev
	}
	e.n++
	if throttled {
		e.throttled++
	}
}

func (a alike) paces() string {
	fast := "with no pace"
	if a.fast > 0 {
		fast = "at " + PerSecond(a.fast)
	}
	return fmt.Sprintf("as often at %s as %s", PerSecond(a.slow), fast)
}

// pastBound says why the run stops at the bound on its paused time, naming
// the pattern: throttling whatever the pace, or still at the slowest pace.
func (g *gate) pastBound() string {
	s := fmt.Sprintf("the run would be paused more than %s in all", g.bound.MaxPaused)
	switch share := g.cur.share(); {
	case g.alike.n > 0:
		return fmt.Sprintf("%s: %s was throttled whatever the pace (%s): no pace waits it out, the gateway's limit for this client does not let a run through",
			s, oneIn(g.share()), g.alike.paces())
	case g.inFlight == 1:
		// One request at a time already: each waits for the answer
		// before it, so the pace is not what the target counts, and
		// "slow the run" is no advice. Say what it let through.
		msg := fmt.Sprintf("%s: the target throttled %s though plantcheck sent one request at a time (--concurrency 1)", s, oneIn(g.share()))
		if span := g.clock.Now().Sub(g.started); !g.started.IsZero() && span >= time.Second && g.acceptedAll > 0 {
			accepted := float64(g.acceptedAll) / span.Seconds()
			msg += fmt.Sprintf(", and accepted about %s from this client, pauses included: its limit for this client does not let a run through within the bound; "+
				"ask for a higher limit, or, if its limit is a rate, try --rate below %s", PerSecond(accepted), paceText(accepted))
		} else {
			msg += ": its limit for this client does not let a run through within the bound; ask for a higher limit"
		}
		return msg
	case g.rate < nearFloor*g.floor && share > 0:
		floor := "the slowest plantcheck goes on its own"
		if g.ceiling > 0 && g.floor == g.ceiling {
			floor = "the run's --rate"
		}
		return fmt.Sprintf("%s: %s was still throttled at %s, %s: slow the run further with --rate", s, oneIn(share), PerSecond(g.rate), floor)
	}
	return fmt.Sprintf("%s (%d throttling answers; the pace down to %s): slow the run with --rate", s, g.seen.Total(), PerSecond(g.rate))
}

func (g *gate) exceeded() error {
	return fmt.Errorf("%w: %s", ErrThrottled, g.seen.Exceeded)
}

// tell makes the console's line for a pause that starts, at most one each
// tellEvery.
func (g *gate) tell(now time.Time, status int, asked string, pause time.Duration) string {
	if !g.told.IsZero() && now.Sub(g.told) < tellEvery {
		g.untold++
		return ""
	}
	why := fmt.Sprintf("the target answered %d with Retry-After: %s", status, asked)
	if asked == "" {
		why = fmt.Sprintf("the target answered %d without Retry-After", status)
	}
	line := fmt.Sprintf("paused %s: %s; pace now %s requests/s", pause.Round(time.Millisecond), why, paceText(g.rate))
	if g.untold > 0 {
		line += fmt.Sprintf(" (%d more pauses since the last such line; %s paused in all)", g.untold, g.seen.Paused.Round(time.Millisecond))
	}
	g.told, g.untold = now, 0
	return line
}

func (g *gate) stats() Throttling {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.seen
	out.Answers = maps.Clone(g.seen.Answers)
	return out
}

// oneIn says a share of requests in words: "about 1 in 3 requests".
func oneIn(share float64) string {
	switch {
	case share >= 0.95:
		return "nearly every request"
	case share > 0.5:
		return fmt.Sprintf("about %d in 10 requests", int(math.Round(share*10)))
	}
	return fmt.Sprintf("about 1 in %d requests", int(math.Round(1/share)))
}

// paceText writes a pace: whole above 10, else with a tenth.
func paceText(r float64) string {
	if r >= 10 {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(math.Round(r*10)/10, 'f', -1, 64)
}

// PerSecond writes a pace in words: "2.5 requests a second".
func PerSecond(r float64) string {
	if t := paceText(r); t != "1" {
		return t + " requests a second"
	}
	return "1 request a second"
}

func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// throttleWait says whether an answer is throttling, and how long it asks
// to wait: a 429 (Retry-After, else 1 s doubled at each attempt, up to
// 8 s), or a 503 with Retry-After. A 503 without one is the service's
// answer, judged as any other.
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
	return time.Second << min(attempt, 3), true
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
