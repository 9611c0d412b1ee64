package client

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FaultTries is how many times one request is sent when its connection is
// refused, reset or closed before any byte of its answer: once as usual,
// once more on a fresh connection, and a last time on a fresh connection
// with no other request in flight. A fault that comes back then is the
// target's own, whatever the run's load: it is judged.
const FaultTries = 3

// flight is the run's bound on requests in flight, entered before the
// gate. Where the gate slows the pace for throttling, flight lowers the
// bound for a connection fault: a small server whose listen backlog
// overflows resets connections at 16 in flight and none at 4. A fault of a
// request sent at the current bound halves it; each run of as many answers
// as the bound, with no fault, raises it by one, up to --concurrency. A
// request's last try runs alone.
type flight struct {
	mu      sync.Mutex
	cond    sync.Cond
	ceiling int // --concurrency
	limit   int // the bound now
	n       int // requests in flight
	waiting int // last tries waiting to run alone
	solo    bool
	seq     uint64 // requests entered
	cutAt   uint64 // the first request entered at the current bound
	ok      int    // answers since the bound last changed
	seen    Faults
	quiet   quiet        // since the last answer
	notice  func(string) // a line for the console; nil: none
	clock   Clock
	told    time.Time
}

// Faults is what a run met of connection faults.
type Faults struct {
	Kinds map[string]int // the faults by kind ("reset", "closed with no answer", "refused")
	// At is the bound on requests in flight when the first fault came;
	// Lowest the lowest the bound came down to (0: it was never lowered).
	At, Lowest int
	Judged     int // requests whose connection was reset or closed on their last try too: the target's failures, not the run's
	// Quiet is what the target did since its last answer: when it
	// refused a connection, it stopped accepting them.
	Quiet quiet
}

// quiet is what a target did since its last answer: the connections it
// refused, and the first request whose connection it closed (else reset),
// said by its body.
type quiet struct {
	refused      int
	closed, body string
}

func (f Faults) Total() int { return sum(f.Kinds) }

// Summary says what happened, for the verdict: "the target reset 9
// connections at 16 in flight, and plantcheck went on at 4; each of those
// requests was sent again on a fresh connection". "" when nothing did.
func (f Faults) Summary() string {
	if f.Total() == 0 {
		return ""
	}
	var kinds []string
	for _, k := range slices.Sorted(maps.Keys(f.Kinds)) {
		what := map[string]string{"reset": "reset %s", "refused": "refused %s", "closed with no answer": "closed %s with no answer"}[k]
		kinds = append(kinds, fmt.Sprintf(what, plural(f.Kinds[k], "connection")))
	}
	s := fmt.Sprintf("the target %s at %d in flight", strings.Join(kinds, " and "), f.At)
	if f.Lowest > 0 && f.Lowest < f.At {
		s += fmt.Sprintf("; plantcheck went on at %d", f.Lowest)
	}
	s += "; each of those requests was sent again on a fresh connection"
	if f.Judged > 0 {
		s += fmt.Sprintf("; %s met the fault again on %s last try, alone on a fresh connection, and %s judged",
			plural(f.Judged, "request"), map[bool]string{true: "its", false: "their"}[f.Judged == 1], map[bool]string{true: "is", false: "are"}[f.Judged == 1])
	}
	if q := f.Quiet; q.refused > 0 {
		s += "; the target stopped accepting connections:"
		if q.closed != "" {
			s += fmt.Sprintf(" it %s the connection of a request with %s with no answer, and", q.closed, q.body)
		}
		s += fmt.Sprintf(" it refused every connection since its last answer (%d)", q.refused)
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func newFlight(ceiling int, notice func(string)) *flight {
	f := &flight{ceiling: max(ceiling, 1), notice: notice, clock: wallClock{}}
	f.limit = f.ceiling
	f.cond.L = &f.mu
	return f
}

// pass is one try's room in flight, from enter to leave.
type pass struct {
	seq         uint64 // its place among the requests entered
	alone, left bool
}

// enter waits for room in flight and returns the request's pass. alone
// waits until no other request is in flight and keeps every other out;
// last tries waiting go first.
func (f *flight) enter(alone bool) *pass {
	f.mu.Lock()
	defer f.mu.Unlock()
	if alone {
		f.waiting++
		for f.solo || f.n > 0 {
			f.cond.Wait()
		}
		f.waiting--
		f.solo = true
	} else {
		for f.solo || f.waiting > 0 || f.n >= f.limit {
			f.cond.Wait()
		}
	}
	f.n++
	f.seq++
	return &pass{seq: f.seq, alone: alone}
}

// leave gives p's room back, once however often it is called.
func (f *flight) leave(p *pass) {
	f.mu.Lock()
	if !p.left {
		p.left = true
		f.n--
		if p.alone {
			f.solo = false
		}
	}
	f.mu.Unlock()
	f.cond.Broadcast()
}

// answered records an answer (the connection held) to p's request.
func (f *flight) answered(p *pass) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p.seq < f.cutAt || f.limit >= f.ceiling {
		return
	}
	if f.ok++; f.ok >= f.limit {
		f.limit++
		f.ok = 0
		f.cutAt = f.seq + 1
	}
	f.cond.Broadcast()
}

func (f *flight) heard() {
	f.mu.Lock()
	f.quiet = quiet{}
	f.mu.Unlock()
}

// faulted records a connection fault of p's request (body says its body,
// safe); on its last try it is judged, unless refused (then the run cannot
// reach the target: an error, not a verdict).
func (f *flight) faulted(p *pass, kind Fault, last bool, body func() string) {
	f.mu.Lock()
	if last && kind != Refused {
		f.seen.Judged++
	}
	switch {
	case kind == Refused:
		f.quiet.refused++
	case f.quiet.closed == "closed":
	case kind == Closed || f.quiet.closed == "":
		// A connection closed with no answer names the request better
		// than a reset: a server that dies resets the connections whose
		// requests it had not read; and the order the client sees these
		// and the first refusals in is the race's.
		f.quiet.closed, f.quiet.body = map[Fault]string{Reset: "reset", Closed: "closed"}[kind], body()
	}
	f.seen.At = cmp.Or(f.seen.At, f.limit)
	if f.seen.Kinds == nil {
		f.seen.Kinds = map[string]int{}
	}
	f.seen.Kinds[kind.String()]++
	var line string
	if p.seq >= f.cutAt && f.limit > 1 {
		was := f.limit
		f.limit = max(f.limit/2, 1)
		f.ok = 0
		f.cutAt = f.seq + 1
		if f.seen.Lowest == 0 || f.limit < f.seen.Lowest {
			f.seen.Lowest = f.limit
		}
		if now := f.clock.Now(); f.notice != nil && (f.told.IsZero() || now.Sub(f.told) >= tellEvery) {
			f.told = now
			line = fmt.Sprintf("the target %s a connection at %d in flight: plantcheck sends the request again on a fresh connection, at most %d in flight now",
				map[Fault]string{Refused: "refused", Reset: "reset", Closed: "closed"}[kind], was, f.limit)
		}
	}
	f.mu.Unlock()
	if line != "" {
		f.notice(line)
	}
}

func (f *flight) stats() Faults {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.seen
	out.Kinds = maps.Clone(f.seen.Kinds)
	out.Quiet = f.quiet
	return out
}

// Fault is how a connection failed before any byte of its answer came:
// what a retry on a fresh connection may cure, and what a failure names.
type Fault int

const (
	NoFault Fault = iota
	Refused       // the connection was refused
	Reset         // the target reset the connection
	Closed        // the target closed the connection with no answer
)

func (f Fault) String() string {
	return [...]string{"not a connection fault", "refused", "reset", "closed with no answer"}[f]
}

// FaultOf says which connection fault err is, from an exchange that got no
// status line (NoFault for anything else: a time limit, a name that does
// not resolve, TLS).
func FaultOf(err error) Fault {
	var ne net.Error
	switch {
	case err == nil, errors.As(err, &ne) && ne.Timeout():
		return NoFault
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED):
		return Reset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE),
		// net/http keeps this sentinel unexported (golang/go#19943): a
		// kept-alive connection (the proxy's, to its upstream) the target
		// closed as the request went.
		strings.HasSuffix(err.Error(), "http: server closed idle connection"),
		// net/http closes its side of a connection when it reads the
		// target's close while it still writes the request (a body of a
		// megabyte on a connection closed after a 400): the write then
		// fails on a closed connection.
		errors.Is(err, net.ErrClosed):
		return Closed
	}
	return NoFault
}
