package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// answer is what a test target answers one request: a status, a
// Retry-After ("": none) and a body; close: it closes the connection with
// no answer instead.
type answer struct {
	status int
	after  string
	body   string
	close  bool
}

// target is a loopback server that answers its n-th request with
// answers[n] (the last one again past the end), and keeps the bodies it
// was sent.
type target struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newTarget(t *testing.T, answers ...answer) *target {
	t.Helper()
	tg := &target{}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		tg.mu.Lock()
		a := answers[min(len(tg.bodies), len(answers)-1)]
		tg.bodies = append(tg.bodies, string(b))
		tg.mu.Unlock()
		if a.close {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		if a.after != "" {
			w.Header().Set("Retry-After", a.after)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(tg.Close)
	return tg
}

func (tg *target) sent() []string {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]string(nil), tg.bodies...)
}

// testClient is New on a fakeClock: waits and pauses take no time, and
// what the client measures of them is exact.
func testClient(hc *http.Client, cfg Config) (*Client, *fakeClock) {
	clk := &fakeClock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	cfg.Clock = clk
	c := New(hc, cfg)
	return c, clk
}

// post sends body to url through c and reads the answer whole.
func post(c *Client, url, body string) (int, string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestDoThrottling: a throttling answer (a 429, or a 503 with
// Retry-After) pauses the run for the wait it asks and the same request
// goes again, within the bounds of Throttle; any other answer is the
// caller's.
func TestDoThrottling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		bound    Throttle
		maxBody  int64
		answers  []answer
		status   int    // the answer Do returns (0: an error)
		body     string // its body
		requests int    // how many the target was sent
		paused   time.Duration
		answered map[int]int // the throttling answers waited out
		exceeded string      // ErrThrottled, saying this
	}{
		{name: "an answer at once", answers: []answer{{status: 200, body: "ok"}},
			status: 200, body: "ok", requests: 1},
		{name: "a 429 with Retry-After, then an answer", answers: []answer{{status: 429, after: "2"}, {status: 201, body: "made"}},
			status: 201, body: "made", requests: 2, paused: 2 * time.Second, answered: map[int]int{429: 1}},
		{name: "a 429 without Retry-After waits 1 s, then 2 s", answers: []answer{{status: 429}, {status: 429}, {status: 200}},
			status: 200, requests: 3, paused: 3 * time.Second, answered: map[int]int{429: 2}},
		{name: "a 503 with Retry-After is throttling", answers: []answer{{status: 503, after: "1"}, {status: 200}},
			status: 200, requests: 2, paused: time.Second, answered: map[int]int{503: 1}},
		{name: "a 503 without Retry-After is the service's answer", answers: []answer{{status: 503, body: "down"}},
			status: 503, body: "down", requests: 1},
		{name: "a wait past MaxWait ends the run", bound: Throttle{MaxWait: 10 * time.Second}, answers: []answer{{status: 429, after: "11"}},
			requests: 1, answered: map[int]int{429: 1}, exceeded: "a 429 asked for a wait of 11s, more than 10s"},
		{name: "a request throttled MaxRetries times ends the run", bound: Throttle{MaxRetries: 2}, answers: []answer{{status: 429, after: "0"}},
			// A 429 asking no wait still closes the gate for one slot of the pace.
			requests: 3, paused: 200 * time.Microsecond, answered: map[int]int{429: 3}, exceeded: "one request was throttled 3 times in a row"},
		{name: "a throttling answer past MaxBody is the caller's", maxBody: 4, answers: []answer{{status: 429, after: "1", body: "too long"}},
			status: 429, body: "too long", requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, tt.answers...)
			tt.bound.MinPace = 10000 // the pace is TestDoPaces'
			maxBody := tt.maxBody
			if maxBody == 0 {
				maxBody = 1 << 20
			}
			c, clk := testClient(tg.Client(), Config{Throttle: tt.bound, MaxBody: maxBody})
			start := clk.Now()
			status, body, err := post(c, tg.URL, `{"name":"fern"}`)
			if tt.exceeded != "" {
				if !errors.Is(err, ErrThrottled) || !strings.Contains(err.Error(), tt.exceeded) {
					t.Errorf("err %v, want ErrThrottled: %s", err, tt.exceeded)
				}
			} else if err != nil || status != tt.status || body != tt.body {
				t.Errorf("got %d %q, err %v; want %d %q", status, body, err, tt.status, tt.body)
			}
			sent := tg.sent()
			if len(sent) != tt.requests {
				t.Errorf("the target was sent %d requests, want %d", len(sent), tt.requests)
			}
			for i, b := range sent {
				if b != `{"name":"fern"}` {
					t.Errorf("request %d carried %q, not the body sent", i+1, b)
				}
			}
			st := c.Throttling()
			if st.Paused != tt.paused || clk.Now().Sub(start) != tt.paused {
				t.Errorf("paused %s, the clock moved %s; want %s", st.Paused, clk.Now().Sub(start), tt.paused)
			}
			if got, want := st.Total(), len(tt.answered); (got == 0) != (want == 0) {
				t.Errorf("throttling answers %v, want %v", st.Answers, tt.answered)
			}
			for code, n := range tt.answered {
				if st.Answers[code] != n {
					t.Errorf("throttling answers %v, want %v", st.Answers, tt.answered)
				}
			}
		})
	}
}

// closedPort is a loopback address nothing listens on: a connection to it
// is refused.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestDoConnectionFaults: a request whose connection is refused, reset or
// closed before any answer goes again on a fresh connection, FaultTries
// times in all; each fault halves the bound on requests in flight, and the
// first is told.
func TestDoConnectionFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		answers  []answer // nil: nothing listens
		requests int      // the tries the target saw
		fault    Fault
		faults   Faults
	}{
		{name: "closed once, then answered", answers: []answer{{close: true}, {status: 200}}, requests: 2,
			faults: Faults{Kinds: map[string]int{"closed with no answer": 1}, At: 8, Lowest: 4}},
		{name: "closed on every try: judged", answers: []answer{{close: true}}, requests: FaultTries, fault: Closed,
			faults: Faults{Kinds: map[string]int{"closed with no answer": FaultTries}, At: 8, Lowest: 1, Judged: 1}},
		{name: "refused on every try: not judged (the target cannot be reached), and told", fault: Refused,
			faults: Faults{Kinds: map[string]int{"refused": FaultTries}, At: 8, Lowest: 1, Quiet: quiet{refused: FaultTries}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, hc := closedPort(t), &http.Client{Transport: &http.Transport{}}
			var tg *target
			if tt.answers != nil {
				tg = newTarget(t, tt.answers...)
				url, hc = tg.URL, tg.Client()
			}
			var lines []string
			c, _ := testClient(hc, Config{InFlight: 8, MaxBody: 1 << 20, Notice: func(l string) { lines = append(lines, l) }})
			status, _, err := post(c, url, "{}")
			switch {
			case tt.fault == NoFault && (err != nil || status != 200):
				t.Errorf("got %d, err %v; want 200", status, err)
			case tt.fault != NoFault && (FaultOf(err) != tt.fault || !strings.Contains(err.Error(), "(3 tries, the last on a fresh connection with no other request in flight)")):
				t.Errorf("err %v, want the fault %s after %d tries", err, tt.fault, FaultTries)
			}
			if tt.fault == Refused && !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("err %v, want ECONNREFUSED", err)
			}
			if tg != nil && len(tg.sent()) != tt.requests {
				t.Errorf("the target saw %d tries, want %d", len(tg.sent()), tt.requests)
			}
			f := c.Faults()
			if f.Summary() != tt.faults.Summary() {
				t.Errorf("faults %+v\nwant %+v", f, tt.faults)
			}
			if len(lines) != 1 || !strings.Contains(lines[0], "a connection at 8 in flight: plantcheck sends the request again on a fresh connection, at most 4 in flight now") {
				t.Errorf("told %q, want one line for the first fault", lines)
			}
		})
	}
}

// TestDoHoldsRoomInFlight: an answer holds its request's room in flight
// until its body is closed, and counts as accepted once read to its end;
// one whose body is not read whole is not.
func TestDoHoldsRoomInFlight(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, answer{status: 200, body: "a body"})
	c, _ := testClient(tg.Client(), Config{InFlight: 2, MaxBody: 1 << 20})
	inFlight := func() (n, accepted int) {
		c.flight.mu.Lock()
		defer c.flight.mu.Unlock()
		c.gate.mu.Lock()
		defer c.gate.mu.Unlock()
		return c.flight.n, c.gate.acceptedAll
	}
	req, _ := http.NewRequest(http.MethodPost, tg.URL, strings.NewReader("{}"))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if n, acc := inFlight(); n != 1 || acc != 0 {
		t.Errorf("an answer not read: %d in flight, %d accepted; want 1, 0", n, acc)
	}
	io.ReadAll(resp.Body)
	if n, acc := inFlight(); n != 1 || acc != 1 {
		t.Errorf("an answer read, not closed: %d in flight, %d accepted; want 1, 1", n, acc)
	}
	resp.Body.Close()
	resp.Body.Close()
	if n, acc := inFlight(); n != 0 || acc != 1 {
		t.Errorf("an answer closed twice: %d in flight, %d accepted; want 0, 1", n, acc)
	}
	req, _ = http.NewRequest(http.MethodPost, tg.URL, strings.NewReader("{}"))
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Read(make([]byte, 2))
	resp.Body.Close()
	if n, acc := inFlight(); n != 0 || acc != 1 {
		t.Errorf("an answer cut short: %d in flight, %d accepted; want 0, 1", n, acc)
	}
}

// TestDoPaces: at --rate the tries go one slot of the pace apart, and
// WithTry is told as each goes, after its wait.
func TestDoPaces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rate    float64
		answers []answer
		n       int             // requests sent one after another
		want    []time.Duration // when each try went, from the first
	}{
		{"unpaced", 0, []answer{{status: 200}}, 3, []time.Duration{0, 0, 0}},
		{"at 10 a second", 10, []answer{{status: 200}}, 3, []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}},
		{"a throttled try goes again after the pause", 10, []answer{{status: 429, after: "3"}, {status: 200}}, 1, []time.Duration{0, 3 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, tt.answers...)
			c, clk := testClient(tg.Client(), Config{Rate: tt.rate, Throttle: Throttle{MinPace: 10000}, MaxBody: 1 << 20})
			start := clk.Now()
			var got []time.Duration
			ctx := WithTry(context.Background(), func() { got = append(got, clk.Now().Sub(start)) })
			for range tt.n {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tg.URL, bytes.NewReader([]byte("{}")))
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if len(got) != len(tt.want) {
				t.Fatalf("tries went at %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("tries went at %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}

// TestDoCannotSendAgain: a request whose body cannot be read again (no
// GetBody) is not sent again, and says why.
func TestDoCannotSendAgain(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, answer{status: 429, after: "0"}, answer{status: 200})
	c, _ := testClient(tg.Client(), Config{Throttle: Throttle{MinPace: 10000}, MaxBody: 1 << 20})
	req, _ := http.NewRequest(http.MethodPost, tg.URL, io.MultiReader(strings.NewReader("{}")))
	var n atomic.Int32
	req = req.WithContext(WithTry(req.Context(), func() { n.Add(1) }))
	if _, err := c.Do(req); err == nil || !strings.Contains(err.Error(), "no GetBody") || n.Load() != 1 {
		t.Errorf("err %v after %d tries, want one try and no GetBody", err, n.Load())
	}
}
