package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
)

// brokenOnBoom is the reference, but for a create whose name holds "boom",
// which it answers 500 with an HTML page, as a crashed handler behind a
// front end does.
func brokenOnBoom(t *testing.T, token string) string {
	t.Helper()
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("boom")) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "<html><body>500 Internal Server Error</body></html>")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		ref.ServeHTTP(w, r)
	}))
}

// lockedBuffer is an event log's writer in a test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// sidecarTraffic sends, through the proxy at base: two valid creates, one
// the upstream breaks on, one without credentials (a client's violation)
// and one outside the document's operation. It returns how many exchanges
// it sent.
func sidecarTraffic(t *testing.T, base, token string) int {
	auth := []string{"Authorization", "Bearer " + token, "Content-Type", "application/json"}
	post(t, base, "/plants", `{"id":1,"name":"Fern"}`, auth...)
	post(t, base, "/plants", `{"id":2,"name":"Monstera","tag":"aroid"}`, auth...)
	post(t, base, "/plants", `{"id":3,"name":"boom"}`, auth...)
	post(t, base, "/plants", `{"id":4,"name":"Fern"}`, "Content-Type", "application/json")
	resp, err := client.Get(base + "/elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return 5
}

// scrape reads the proxy's /metrics as Prometheus would, and returns the
// families and the text.
func scrape(t *testing.T, admin string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	resp, err := client.Get(admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: status %d, %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("/metrics is not Prometheus's text exposition: %v\n%s", err, raw)
	}
	return fams, string(raw)
}

// value finds the value of a counter, or a histogram's count, with the
// labels given as name, value pairs.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				found = found || l.GetName() == labels[i] && l.GetValue() == labels[i+1]
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestAdminEndpoints: /healthz, /readyz and /metrics on the admin
// handler, each by its contract; /metrics counts what passed exactly as
// the verdict does, and never shows the token.
func TestAdminEndpoints(t *testing.T) {
	token := reference.RandomToken(40)
	p := startProxy(t, brokenOnBoom(t, token), nil)
	admin := upstreamOf(t, p.h.Admin())
	sent := sidecarTraffic(t, p.url, token)
	p.h.queue.wait()

	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/healthz", 200, "ok\n"},
		{"GET", "/readyz", 200, "ok\n"},
		{"POST", "/healthz", 405, ""},
		{"GET", "/plants", 404, ""},
	} {
		req, _ := http.NewRequest(c.method, admin+c.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || c.body != "" && string(body) != c.body {
			t.Errorf("%s %s: %d %q, want %d %q", c.method, c.path, resp.StatusCode, body, c.status, c.body)
		}
	}

	fams, text := scrape(t, admin)
	v := p.verdict(Options{})
	if strings.Contains(text, token) {
		t.Error("/metrics shows the token")
	}
	want := []struct {
		name   string
		labels []string
		n      float64
	}{
		{"plantcheck_proxy_exchanges_total", nil, float64(sent)},
		{"plantcheck_proxy_judged_total", nil, float64(v.Counts.Judged)},
		{"plantcheck_proxy_own_answers_total", []string{"kind", OwnUnreachable}, 0},
		{"plantcheck_proxy_own_answers_total", []string{"kind", OwnTimeout}, 0},
		{"plantcheck_proxy_own_answers_total", []string{"kind", OwnFailed}, 0},
		{"plantcheck_proxy_clients_gone_total", nil, 0},
		// Every exchange the upstream answered: the five sent.
		{"plantcheck_proxy_added_latency_seconds", nil, float64(sent)},
	}
	var server float64
	for _, r := range v.Rules {
		if !slices.Contains(judge.FromTraffic, r.ID) {
			continue // a rule traffic cannot show has no count
		}
		want = append(want, struct {
			name   string
			labels []string
			n      float64
		}{"plantcheck_proxy_violations_total", []string{"rule", string(r.ID), "side", "server"}, float64(r.Failures)})
		server += float64(r.Failures)
	}
	for _, g := range v.Client {
		want = append(want, struct {
			name   string
			labels []string
			n      float64
		}{"plantcheck_proxy_violations_total", []string{"rule", verdict.ClientGroup{Rule: g.Rule}.Label(), "side", "client"}, float64(g.Requests)})
	}
	if server == 0 || len(v.Client) == 0 {
		t.Fatalf("the traffic broke no server rule (%v) or no client one (%d groups): the test shows nothing", server, len(v.Client))
	}
	for _, w := range want {
		got, ok := value(fams, w.name, w.labels...)
		if !ok || got != w.n {
			t.Errorf("%s%v = %v (present %v), want %v", w.name, w.labels, got, ok, w.n)
		}
	}
}

// TestReadinessFollowsTheUpstream: /readyz is 503 with a one-line reason
// while nothing listens at the upstream's address, 200 once the upstream
// listens, and 503 again once it is gone; the proxy serves it all along.
func TestReadinessFollowsTheUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // down at first: a sidecar often starts before its service
	p := startProxy(t, "http://"+addr, nil)
	admin := upstreamOf(t, p.h.Admin())
	ready := func() (int, string) {
		resp, err := client.Get(admin + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	up := func() func() {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("the port was taken meanwhile: %v", err)
		}
		srv := &http.Server{Handler: http.NotFoundHandler()}
		go srv.Serve(l)
		// Closing l itself: srv.Close does not close a listener that
		// Serve, not yet scheduled, has not taken up.
		return func() { srv.Close(); l.Close() }
	}
	var down func()
	for i, step := range []struct {
		do   func()
		want int
	}{
		{func() {}, 503},
		{func() { down = up() }, 200},
		{func() { down() }, 503},
		{func() { down = up() }, 200},
	} {
		step.do()
		code, body := ready()
		if code != step.want {
			t.Errorf("step %d: /readyz %d %q, want %d", i, code, body, step.want)
		}
		if code == 503 && (!strings.Contains(body, "does not accept connections") || strings.Count(body, "\n") != 1) {
			t.Errorf("step %d: the reason is not one line naming the upstream: %q", i, body)
		}
	}
	down()
}

// TestEventsOncePerFailedJudgement: each failed judgement is one line of
// JSON, written once, as it is judged, with the rule, level, side, time,
// status and a one-line summary; no line holds the token.
func TestEventsOncePerFailedJudgement(t *testing.T) {
	token := reference.RandomToken(40)
	var log lockedBuffer
	p := startProxy(t, brokenOnBoom(t, token), func(c *Config) { c.Events = &log })
	sidecarTraffic(t, p.url, token)
	v := p.verdict(Options{})

	var server, clientSide int64
	seen := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, token) {
			t.Errorf("an event holds the token: %s", line)
		}
		var e Event
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("an event is not one JSON object: %v\n%s", err, line)
		}
		if e.Rule == "" || e.Side == "" || e.Status == 0 || e.Summary == "" || e.Time.IsZero() || time.Since(e.Time) > time.Minute {
			t.Errorf("an event lacks a member: %+v", e)
		}
		switch e.Side {
		case "server":
			server++
			if e.Level != "MUST" && e.Level != "SHOULD" {
				t.Errorf("a server-side event has no level: %+v", e)
			}
		case "client":
			clientSide++
		}
		seen[e.Side+" "+e.Rule]++
	}
	if server != v.Counts.ServerViolations || server == 0 {
		t.Errorf("%d server-side events, the verdict counts %d violations", server, v.Counts.ServerViolations)
	}
	var groups int64
	for _, g := range v.Client {
		groups += g.Requests
	}
	if clientSide != groups || clientSide == 0 {
		t.Errorf("%d client-side events, the verdict counts %d", clientSide, groups)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s: %d events for one failed judgement", k, n)
		}
	}
}
