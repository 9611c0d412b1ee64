package proxy

import (
	"io"
	"maps"
	"slices"
	"time"

	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/verdict"
)

// Model is the proxy's verdict in the shape every plantcheck report is
// written from: the rules over the traffic, a failure block for each rule
// broken and each way client requests broke the document, and the counts.
// verdict.Decide gives its exit status, as it does run's.
func (v *Verdict) Model() *verdict.Verdict {
	m := &verdict.Verdict{
		Driver: verdict.Proxy, Target: v.Upstream, Started: v.Started, Ended: v.Ended,
		Duration: verdict.Ms(v.Ended.Sub(v.Started)), Scope: "traffic",
		Config: verdict.Config{
			BaseURL: v.Upstream, Token: "<never kept: requests show Bearer <credential>>", Timeout: v.Timeout,
			Strict: v.Options.Strict, StrictClients: v.Options.StrictClients, MaxJudgeBytes: v.MaxJudge,
		},
		Counts: verdict.Counts{
			Exchanges: int(v.Exchanges), Judged: v.Judged, JudgedInPart: v.Partly, OutsideDocument: v.Outside,
			ProxyAnswers: maps.Clone(v.Own), ClientGone: v.Gone, UpstreamBrokeOff: v.Broken,
			ServerViolations: v.ServerViolations, ClientViolations: v.ClientRequests,
		},
	}
	m.Stamp(v.SpecTitle, v.SpecVersion)
	for _, c := range v.Unjudged {
		m.NotJudgedInPart = append(m.NotJudgedInPart, verdict.Count{Reason: c.Reason, N: c.N})
	}
	for _, r := range v.Rules {
		cat, _ := rules.Lookup(r.ID)
		out := verdict.Rule{
			ID: r.ID, Level: cat.Level, Requirement: cat.Requirement, Source: cat.Source,
			Judged: r.Judged, Passed: r.Passed, Failures: r.Failed, NotJudgedBecause: r.NotJudged,
		}
		switch {
		case r.NotJudged != "":
			out.Outcome = verdict.NotJudged
		case r.Failed > 0:
			out.Outcome = verdict.Fail
		default:
			out.Outcome = verdict.Pass
		}
		m.Rules = append(m.Rules, out)
		if r.Failed > 0 {
			m.Failures = append(m.Failures, verdict.Block{
				Heading: string(r.ID) + " (" + r.Level + ")", Rule: r.ID, Level: cat.Level, Side: "server", Outcome: verdict.Fail,
				Evidence: evidenceOf(r.Failures), More: r.Failed - int64(len(r.Failures)),
			})
		}
	}
	for _, g := range v.Client {
		m.Client = append(m.Client, verdict.ClientGroup{Rule: g.Rule, Requests: g.Requests})
		label := verdict.ClientGroup{Rule: g.Rule}.Label()
		m.Failures = append(m.Failures, verdict.Block{
			Heading: "client request, " + label, Rule: g.Rule, Side: "client", Outcome: verdict.Fail,
			Evidence: evidenceOf(g.Failures), More: g.Requests - int64(len(g.Failures)),
		})
	}
	m.Finish()
	return m
}

// evidenceOf is the proxy's kept failures as the verdict's evidence.
func evidenceOf(fs []Failure) []verdict.Evidence {
	out := make([]verdict.Evidence, 0, len(fs))
	for _, f := range fs {
		e := verdict.Evidence{
			Expected: f.Expected, Actual: f.Actual, Details: slices.Clone(f.Details),
			Request: f.Request, Response: f.Response, Reproduce: f.Reproduce, At: f.At.UTC().Format(time.RFC3339Nano),
		}
		if r, ok := rules.Lookup(f.Rule); ok && f.Side == "server" {
			e.Rule, e.Level, e.Requirement = r.ID, r.Level, r.Requirement
		}
		out = append(out, e)
	}
	return out
}

// WriteText writes the verdict for a console (verdict.WriteText).
func (v *Verdict) WriteText(w io.Writer) error { return v.Model().WriteText(w) }

// WriteReports writes the verdict into dir (created if missing), the files
// `plantcheck run` writes, by the same writers (verdict.WriteFiles).
func (v *Verdict) WriteReports(dir string) error { return v.Model().WriteFiles(dir) }
