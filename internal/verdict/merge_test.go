package verdict

import (
	"errors"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// proxyOf is a proxy's verdict: judged exchanges, the failures of
// CREATE-NAME (MUST) with the evidence kept of them, and client requests
// without credentials.
func proxyOf(exchanges, judged, failures int64, kept int, clients int64, started time.Time) *Verdict {
	v := &Verdict{Driver: Proxy, Target: "http://127.0.0.1:8080", Scope: "traffic", Started: started, Ended: started.Add(time.Minute)}
	v.Stamp("Plant Store API", "1.0.0")
	v.Counts = Counts{Exchanges: int(exchanges), Judged: judged, ServerViolations: failures, ClientViolations: clients, ProxyAnswers: map[string]int64{}}
	out := Pass
	if judged == 0 {
		out = NotJudged
	}
	name := Rule{ID: rules.CreateName, Level: rules.Must, Outcome: out, Judged: judged, Passed: judged - failures, Failures: failures}
	if failures > 0 {
		name.Outcome = Fail
		b := Block{Heading: "CREATE-NAME (MUST)", Rule: rules.CreateName, Level: rules.Must, Side: "server", Outcome: Fail, More: failures - int64(kept)}
		for range kept {
			b.Evidence = append(b.Evidence, Evidence{Rule: rules.CreateName, Expected: "name \"Fern\"", Actual: "name \"FERN\"\x1b[2J"})
		}
		v.Failures = append(v.Failures, b)
	}
	if judged == 0 {
		name.NotJudgedBecause = "no exchange that could show it passed through"
	}
	v.Rules = []Rule{name, {ID: rules.AuthUnknown, Level: rules.Must, Outcome: NotJudged, NotJudgedBecause: "the proxy does not know the tokens"}}
	if clients > 0 {
		v.Client = []ClientGroup{{Rule: rules.AuthMissing, Requests: clients}}
		v.Failures = append(v.Failures, Block{Heading: "client request, AUTH-MISSING", Rule: rules.AuthMissing, Side: "client", Outcome: Fail,
			Evidence: []Evidence{{Expected: "a request the document accepts"}}, More: clients - 1})
	}
	v.Finish()
	return v
}

// TestMerge: merged verdicts are the sum of their traffic, decided anew.
func TestMerge(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	run := proxyOf(1, 1, 0, 0, 0, t0)
	run.Driver = Run
	otherDoc := proxyOf(1, 1, 0, 0, 0, t0)
	otherDoc.Spec.SHA256 = "0000"
	for _, c := range []struct {
		name          string
		vs            []*Verdict
		strictClients bool
		exit          int
		judged        int64
		failures      int64
		kept, more    int
		err           error
	}{
		{"two that passed", []*Verdict{proxyOf(10, 8, 0, 0, 0, t0), proxyOf(5, 5, 0, 0, 0, t0.Add(time.Hour))}, false, 0, 13, 0, 0, 0, nil},
		{"one broke a MUST rule", []*Verdict{proxyOf(10, 8, 3, 2, 0, t0), proxyOf(5, 5, 0, 0, 0, t0), proxyOf(4, 4, 1, 1, 0, t0)}, false, 1, 17, 4, 2, 2, nil},
		{"clients only", []*Verdict{proxyOf(3, 3, 0, 0, 2, t0), proxyOf(3, 3, 0, 0, 1, t0)}, false, 0, 6, 0, 0, 0, nil},
		{"clients, strict", []*Verdict{proxyOf(3, 3, 0, 0, 2, t0), proxyOf(3, 3, 0, 0, 1, t0)}, true, 1, 6, 0, 0, 0, nil},
		{"traffic, nothing judged anywhere", []*Verdict{proxyOf(4, 0, 0, 0, 0, t0), proxyOf(2, 0, 0, 0, 0, t0)}, false, 2, 0, 0, 0, 0, nil},
		{"one judged, one not", []*Verdict{proxyOf(4, 0, 0, 0, 0, t0), proxyOf(2, 2, 0, 0, 0, t0)}, false, 0, 2, 0, 0, 0, nil},
		{"a run's verdict", []*Verdict{proxyOf(1, 1, 0, 0, 0, t0), run}, false, 0, 0, 0, 0, 0, ErrNotMergeable},
		{"another document", []*Verdict{proxyOf(1, 1, 0, 0, 0, t0), otherDoc}, false, 0, 0, 0, 0, 0, ErrNotMergeable},
		{"none", nil, false, 0, 0, 0, 0, 0, ErrNotMergeable},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Merge(c.vs, false, c.strictClients)
			if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			if m.ExitCode != c.exit || m.Counts.Judged != c.judged || m.Counts.ServerViolations != c.failures {
				t.Errorf("exit %d, judged %d, violations %d; want %d, %d, %d (%s)", m.ExitCode, m.Counts.Judged, m.Counts.ServerViolations, c.exit, c.judged, c.failures, m.Verdict)
			}
			var exchanges int
			for _, v := range c.vs {
				exchanges += v.Counts.Exchanges
			}
			if m.Counts.Exchanges != exchanges {
				t.Errorf("exchanges %d, want %d", m.Counts.Exchanges, exchanges)
			}
			if !m.Started.Equal(t0) {
				t.Errorf("started %v, want the earliest, %v", m.Started, t0)
			}
			for _, r := range m.Rules {
				if r.ID == rules.AuthUnknown && (r.Outcome != NotJudged || r.NotJudgedBecause == "") {
					t.Errorf("AUTH-UNKNOWN: %s %q, want not judged with its reason", r.Outcome, r.NotJudgedBecause)
				}
				if r.ID == rules.CreateName && r.Failures != c.failures {
					t.Errorf("CREATE-NAME: %d failures, want %d", r.Failures, c.failures)
				}
			}
			for _, b := range m.Failures {
				if b.Side != "server" {
					continue
				}
				if len(b.Evidence) != c.kept || b.More != int64(c.failures)-int64(c.kept) {
					t.Errorf("block %s: %d kept, %d more; want %d, %d", b.Rule, len(b.Evidence), b.More, c.kept, c.failures-int64(c.kept))
				}
				for _, e := range b.Evidence {
					if e.Actual != `name "FERN"\x1b[2J` {
						t.Errorf("evidence not escaped again: %q", e.Actual)
					}
				}
			}
		})
	}
}
