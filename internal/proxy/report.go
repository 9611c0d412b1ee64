package proxy

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Verdict is the verdict on what passed so far, built once from the
// tallies, in the shape every plantcheck report is written from: the rules
// over the traffic (verdict.Tally), a failure block for each rule broken
// and each way client requests broke the document, and the counts.
// verdict.Decide gives its exit status, as it does run's.
func (h *Handler) Verdict(opts Options) *verdict.Verdict {
	t := h.tally
	// Every secret seen by now is hidden in every piece of evidence,
	// whichever exchange brought it.
	red := h.secrets.redactor(nil)
	t.mu.Lock()
	defer t.mu.Unlock()
	upstream := evidence.Text(t.upstream)
	m := &verdict.Verdict{
		Driver: verdict.Proxy, Target: upstream, Started: t.started, Ended: time.Now(), Scope: "traffic",
		Config: verdict.Config{
			BaseURL: upstream, Token: "<never kept: requests show Bearer <credential>>", Timeout: t.timeout.String(),
			Strict: opts.Strict, StrictClients: opts.StrictClients, MaxJudgeBytes: t.maxJudge,
		},
		Counts: verdict.Counts{
			Exchanges: int(t.exchanges), Judged: t.judged, JudgedInPart: t.partly, OutsideDocument: t.outsideN,
			ClientGone: t.goneN, UpstreamBrokeOff: t.brokenN,
			ServerViolations: t.serverFailures, ClientViolations: t.clientRequests,
		},
	}
	m.Duration = verdict.Ms(m.Ended.Sub(m.Started))
	if len(t.ownN) > 0 {
		m.Counts.ProxyAnswers = maps.Clone(t.ownN)
	}
	m.Stamp(h.validator.Info().Title, h.validator.Info().Version)
	for _, why := range slices.Sorted(maps.Keys(t.unjudged)) {
		m.NotJudgedInPart = append(m.NotJudgedInPart, verdict.Count{Reason: evidence.Text(why), N: t.unjudged[why]})
	}
	tally := verdict.NewTally()
	for _, r := range rules.Catalog {
		rt, judged := t.rules[r.ID]
		switch {
		case !judged:
			why := judge.NotFromTraffic[r.ID]
			if why == "" {
				why = "the proxy has no judgement of it"
			}
			tally.NoVerdict(r.ID, why)
		case rt.judged == 0:
			tally.NoVerdict(r.ID, whyNone)
		default:
			tally.Judged(r.ID, rt.judged, rt.judged-rt.failed)
			tally.Failed(r.ID, rt.failed)
		}
	}
	m.Rules = tally.Rules()
	for _, r := range m.Rules {
		if r.Failures == 0 {
			continue
		}
		kept := t.rules[r.ID].kept
		m.Failures = append(m.Failures, verdict.Block{
			Heading: string(r.ID) + " (" + strings.ToUpper(string(r.Level)) + ")", Rule: r.ID, Level: r.Level, Side: "server",
			Outcome: verdict.Fail, Evidence: evidenceOf(kept, red, "server"), More: r.Failures - int64(len(kept)),
		})
	}
	for _, l := range slices.Sorted(maps.Keys(t.client)) {
		ct := t.client[l]
		g := verdict.ClientGroup{Rule: l, Requests: ct.failed}
		m.Client = append(m.Client, g)
		m.Failures = append(m.Failures, verdict.Block{
			Heading: "client request, " + g.Label(), Rule: l, Side: "client", Outcome: verdict.Fail,
			Evidence: evidenceOf(ct.kept, red, "client"), More: ct.failed - int64(len(ct.kept)),
		})
	}
	m.Base = opts.Baseline
	m.Finish()
	return m
}

// evidenceOf is the proxy's kept failures as the verdict's evidence, every
// secret seen since one was kept hidden in it; a client's cites no rule.
func evidenceOf(fs []verdict.Evidence, red *evidence.Redactor, side string) []verdict.Evidence {
	out := make([]verdict.Evidence, 0, len(fs))
	for _, f := range fs {
		e := f
		e.Expected, e.Actual, e.Details = red.String(f.Expected), red.String(f.Actual), slices.Clone(f.Details)
		e.Request, e.Response, e.Reproduce = red.String(f.Request), red.String(f.Response), red.String(f.Reproduce)
		for i := range e.Details {
			e.Details[i] = red.String(e.Details[i])
		}
		if side != "server" {
			e.Rule, e.Level, e.Requirement = "", "", ""
		}
		out = append(out, e)
	}
	return out
}
