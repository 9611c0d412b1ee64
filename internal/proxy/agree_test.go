package proxy

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestProxyAgreesWithDirect: one answer, one verdict per rule. The same
// requests, sent straight to a broken service and judged as `run` judges
// its exchanges (an answer its client could not read judged by the error),
// then sent through a proxy in front of it, give no rule `pass` one way
// and `fail` the other, and both fail the rule the service breaks. An
// answer HTTP cannot frame is judged by the proxy too, its client getting
// the proxy's own 502.
func TestProxyAgreesWithDirect(t *testing.T) {
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	requests := []sent{
		valid(`{"id":1,"name":"Fern","tag":"green"}`),
		valid(`{"id":2,"name":"Moss"}`),
		valid(`{"id":3,"name":42}`),
		valid(`{"id":4,"name":"Fern"`),
		{body: `{"id":5,"name":"Fern"}`, auth: "-", ct: "application/json"},
		{body: `{"id":6,"name":"Fern"}`, auth: "Bearer ", ct: "application/json"},
		{body: `id=7&name=Fern`, auth: "Bearer " + token, ct: "application/x-www-form-urlencoded"},
	}
	for _, tc := range []struct {
		mutant string
		fails  rules.RuleID
		own    int // answers the proxy made itself in the service's place
	}{
		{"content-length-twice", rules.ResponseDocumented, 5},
		{"error-as-text", rules.ErrorRecord, 0},
		{"stringify-name", rules.BodyNameString, 0},
		{"accept-form", rules.MediaRequest, 0},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			// Each way meets a service of its own: one stores the ids
			// the other was sent.
			direct := verdict.NewTally()
			straight := upstreamOf(t, mutant(t, tc.mutant))
			for _, s := range requests {
				e := exchangeOf(t, straight, s)
				for _, r := range judge.Judge(v, &e, judge.Sender{Timeout: client.Timeout}, nil).Results {
					if r.OK() {
						direct.Judged(r.Rule, 1, 1)
						continue
					}
					direct.Judged(r.Rule, 1, 0)
					direct.Failed(r.Rule, 1)
				}
			}
			p := startProxy(t, upstreamOf(t, mutant(t, tc.mutant)), nil)
			own := 0
			for _, s := range requests {
				resp, _ := s.send(t, p.url)
				if resp.Header.Get(MarkerHeader) != "" {
					own++
				}
			}
			if own != tc.own {
				t.Errorf("%d answers of the proxy's own, want %d", own, tc.own)
			}
			proxied := map[rules.RuleID]verdict.Outcome{}
			pv := p.verdict(Options{})
			for _, r := range pv.Rules {
				proxied[r.ID] = r.Outcome
			}
			if pv.Counts.Judged != int64(len(requests)) {
				t.Errorf("the proxy judged %d exchanges, want all %d", pv.Counts.Judged, len(requests))
			}
			for _, r := range direct.Rules() {
				got := proxied[r.ID]
				if r.Outcome == verdict.Pass && got == verdict.Fail || r.Outcome == verdict.Fail && got == verdict.Pass {
					t.Errorf("%s: %s straight, %s through the proxy", r.ID, r.Outcome, got)
				}
				if r.ID == tc.fails && (r.Outcome != verdict.Fail || got != verdict.Fail) {
					t.Errorf("%s: %s straight, %s through the proxy; want it failed both ways", r.ID, r.Outcome, got)
				}
			}
		})
	}
}

// exchangeOf sends s straight to base, as `run` sends, and returns the
// exchange as its judge reads it: an answer the client could not read is
// the error.
func exchangeOf(t *testing.T, base string, s sent) exchange.Exchange {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/plants", strings.NewReader(s.body))
	if err != nil {
		t.Fatal(err)
	}
	if s.auth != "-" {
		req.Header.Set("Authorization", s.auth)
	}
	req.Header.Set("Content-Type", s.ct)
	e := exchange.Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header, Body: []byte(s.body)}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		e.Err = err
		return e
	}
	defer resp.Body.Close()
	e.Status, e.RespHeader = resp.StatusCode, resp.Header
	if e.RespBody, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	e.Duration = time.Since(start)
	return e
}
