// Package client is how a run sends its requests: a Client wraps the
// run's *http.Client (its transport, TLS, proxy and time limit of one try)
// with what a run owes the target's infrastructure, as
// golang.org/x/time/rate wraps a caller and http.Transport a connection. It
// keeps the run's pace, which throttling lowers; it waits out throttling (a
// 429, or a 503 with Retry-After) and sends the request again, within the
// bounds of Throttle; it keeps the run's bound on requests in flight, which
// connection faults lower; and it sends a request whose connection died
// before any answer again, the last time alone. The run's transport opens
// a connection for each exchange (run.NewClient), so every try goes on a
// fresh one. net/http frames every message; the client decides only when a
// request goes, and whether it goes again.
package client

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
)

// Config is how a Client paces and bounds one run's requests.
type Config struct {
	Rate     float64  // the most requests a second (0: no limit): the ceiling of the pace, which throttling lowers
	InFlight int      // the bound on requests in flight at once; 0 means 1
	Throttle Throttle // the bounds of the waits for a throttling target; one left zero is DefaultThrottle's
	// MaxBody bounds the body of a throttling answer read before the
	// request goes again; a longer one goes to the caller.
	MaxBody int64
	// Notice receives a console line, safe to print, when the run pauses
	// or lowers its bound (at most one each 10 s); nil: none.
	Notice   func(line string)
	Redactor *evidence.Redactor // hides secrets in a Retry-After a Notice line quotes; nil: none
	Clock    Clock              // the time the client paces and waits by; nil: the wall clock
}

// Client sends requests through an *http.Client within the run's pace and
// bound on requests in flight. It is safe for concurrent use.
type Client struct {
	hc      *http.Client
	gate    *gate
	flight  *flight
	maxBody int64
	red     *evidence.Redactor
}

// New returns a Client that sends through hc.
func New(hc *http.Client, cfg Config) *Client {
	c := &Client{hc: hc, maxBody: cfg.MaxBody, red: cmp.Or(cfg.Redactor, evidence.New())}
	c.gate = newGate(cfg.Rate, cfg.Throttle, cfg.Notice)
	c.gate.inFlight = cfg.InFlight
	c.flight = newFlight(cfg.InFlight, cfg.Notice)
	if cfg.Clock != nil {
		c.gate.clock, c.flight.clock = cfg.Clock, cfg.Clock
	}
	return c
}

// Throttling and Faults report what the run met.
func (c *Client) Throttling() Throttling { return c.gate.stats() }
func (c *Client) Faults() Faults         { return c.flight.stats() }

// InFlight is the most requests the client ever has in flight at once.
func (c *Client) InFlight() int { return c.flight.ceiling }

type tryKey struct{}

// WithTry returns ctx carrying f, which Do calls as each try of a request
// leaves the gate for the transport: an exchange timed from the last call
// is timed without the run's pauses, which are not the target's.
func WithTry(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, tryKey{}, f)
}

// Do sends req and returns its answer, as http.Client.Do does. It waits
// for room in flight and for the gate; a throttling answer pauses the run
// and req goes again, as does a request whose connection failed before any
// answer (FaultTries in all); a body goes again only with GetBody.
//
// The answer's body holds the request's room in flight until it is
// closed; read to its end, it counts as accepted. Do returns ErrThrottled
// past the bounds of Throttle, and the context's error when it is done
// before the request went.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	onTry, _ := ctx.Value(tryKey{}).(func())
	faults := 0 // tries whose connection failed before any answer
	for attempt := 0; ; attempt++ {
		try := req
		if attempt > 0 {
			if try = again(req); try == nil {
				// The URL is not said: its query may carry the token.
				return nil, fmt.Errorf("send the request again: its body cannot be read again (no GetBody)")
			}
		}
		p := c.flight.enter(faults == FaultTries-1)
		sent, err := c.gate.wait(ctx)
		if err != nil {
			c.flight.leave(p)
			return nil, err
		}
		if onTry != nil {
			onTry()
		}
		resp, err := c.hc.Do(try)
		if err != nil {
			c.flight.leave(p)
			if kind := FaultOf(err); kind != NoFault && ctx.Err() == nil {
				// Not a verdict yet: the run's load may cause it
				// (docs/usage.md, Connection faults, says why a retry is
				// safe).
				faults++
				c.flight.faulted(p, kind, faults == FaultTries, func() string { return c.bodyOf(try) })
				if faults < FaultTries {
					continue
				}
				err = fmt.Errorf("%w (%d tries, the last on a fresh connection with no other request in flight)", err, FaultTries)
			}
			return nil, err
		}
		c.flight.heard()
		held := &body{ReadCloser: resp.Body, c: c, pass: p, sent: sent}
		wait, throttled := throttleWait(resp.StatusCode, resp.Header, attempt, c.gate.clock.Now())
		if !throttled {
			resp.Body = held
			return resp, nil
		}
		// A throttling answer is read whole before the request goes
		// again; one whose body does not come whole is the caller's to
		// judge, as any such answer.
		b, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
		if err != nil || int64(len(b)) > c.maxBody {
			rest := io.Reader(resp.Body)
			if err != nil {
				rest = errReader{err}
			}
			held.ReadCloser, held.throttling = readCloser{io.MultiReader(bytes.NewReader(b), rest), resp.Body}, true
			resp.Body = held
			return resp, nil
		}
		resp.Body.Close()
		c.flight.leave(p)
		c.flight.answered(p)
		if err := c.gate.throttled(sent, resp.StatusCode, wait, attempt, c.red.Safe(resp.Header.Get("Retry-After"), 64)); err != nil {
			return nil, err
		}
	}
}

// shownBody bounds the body of a request the console names.
const shownBody = 48

// bodyOf says req's body for the console: its first bytes, safe.
func (c *Client) bodyOf(req *http.Request) string {
	if req.GetBody == nil {
		return "no body"
	}
	rc, err := req.GetBody()
	if err != nil {
		return "a body that cannot be read again"
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, int64(shownBody+c.red.Margin()+1)))
	if len(b) == 0 {
		return "an empty body"
	}
	kept, cut := evidence.Prefix(c.red, string(b), shownBody)
	if cut {
		kept += "…"
	}
	return "the body `" + evidence.Text(kept) + "`"
}

// again is a copy of req to send again (nil: its body cannot be read anew).
func again(req *http.Request) *http.Request {
	r := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		if req.GetBody == nil {
			return nil
		}
		if r.Body, err = req.GetBody(); err != nil {
			return nil
		}
	}
	return r
}

// body is an answer's body that holds its request's room in flight until
// it is closed, as http.Transport holds its connection; read to its end,
// the answer is accepted (the pace and the bound rise).
type body struct {
	io.ReadCloser
	c          *Client
	pass       *pass
	sent       time.Time
	throttling bool // a throttling answer, never accepted
	ended      bool
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.ended && !b.throttling {
		b.ended = true
		b.c.flight.answered(b.pass)
		b.c.gate.accepted(b.sent)
	}
	return n, err
}

func (b *body) Close() error {
	err := b.ReadCloser.Close()
	b.c.flight.leave(b.pass)
	return err
}

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
