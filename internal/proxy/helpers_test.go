package proxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
)

// DefaultTimeout is the proxy's timeout the tests run with.
const DefaultTimeout = config.ProxyTimeout

// running is a proxy served on a loopback port for one test.
type running struct {
	url  string
	addr string
	h    *Handler
	stop func() // stops serving and waits until every exchange is counted
}

// startProxy serves a proxy in front of upstream until the test ends (or
// stop is called). mod, when set, adjusts the configuration.
func startProxy(t testing.TB, upstream string, mod func(*Config)) *running {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Upstream: u, MaxJudge: config.DefaultMaxJudge, Timeout: DefaultTimeout}
	if mod != nil {
		mod(&cfg)
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, 5*time.Second, 0, nil) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return &running{url: "http://" + ln.Addr().String(), addr: ln.Addr().String(), h: h, stop: stop}
}

// verdict stops the proxy and returns its verdict.
func (p *running) verdict(opts Options) *verdict.Verdict {
	p.stop()
	return p.h.Verdict(opts)
}

// referenceUpstream starts the bundled reference on loopback; it returns
// its URL and token.
func referenceUpstream(t testing.TB) (string, string) {
	t.Helper()
	base, token, stop, err := reference.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return base, token
}

// upstreamOf serves h on loopback as an upstream.
func upstreamOf(t testing.TB, h http.Handler) string {
	t.Helper()
	base, stop, err := reference.Loopback(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return base
}

// client is a plain client for the tests: no proxy from the environment,
// no compression asked.
var client = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}

// post sends a POST to base+path with the body and the headers given as
// name, value pairs, and returns the answer and its body.
func post(t testing.TB, base, path, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	return resp, b
}

// rawExchange writes raw request bytes to addr and reads one response.
// With expect, the request's head is written first, then, once a 100
// Continue came, its body.
func rawExchange(t testing.TB, addr string, raw []byte, expect bool) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	if expect {
		i := bytes.Index(raw, []byte("\r\n\r\n")) + 4
		if _, err := conn.Write(raw[:i]); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("read the interim answer: %v", err)
		}
		if resp.StatusCode != http.StatusContinue {
			t.Fatalf("interim status = %d, want 100", resp.StatusCode)
		}
		raw = raw[i:]
	}
	if _, err := conn.Write(raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the answer's body: %v", err)
	}
	return resp, body
}

// rule finds a rule's result in a verdict.
func rule(t testing.TB, v *verdict.Verdict, id string) verdict.Rule {
	t.Helper()
	for _, r := range v.Rules {
		if string(r.ID) == id {
			return r
		}
	}
	t.Fatalf("no rule %s in the verdict", id)
	return verdict.Rule{}
}

// failedRules lists the rules with failures in a verdict.
func failedRules(v *verdict.Verdict) []string {
	var out []string
	for _, r := range v.Rules {
		if r.Failures > 0 {
			out = append(out, string(r.ID))
		}
	}
	return out
}

// text is a verdict as the console shows it.
func text(t testing.TB, v *verdict.Verdict) string {
	t.Helper()
	var b strings.Builder
	if err := v.WriteText(&b, verdict.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// kept is the evidence a verdict kept of a side's failures under a rule.
func kept(v *verdict.Verdict, side, id string) []verdict.Evidence {
	for _, b := range v.Failures {
		if b.Side == side && string(b.Rule) == id {
			return b.Evidence
		}
	}
	return nil
}
