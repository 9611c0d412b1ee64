package history

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// ErrNotMergeable means that verdicts cannot be combined: one was not
// written by `plantcheck proxy`, or they judge by different documents.
var ErrNotMergeable = errors.New("not a verdict of the same kind")

// Merge combines the verdicts of several proxies, one per instance of a
// service (each judges only what passes through it), into one, as if one
// proxy had seen all their traffic: the counts summed, each rule's
// judgements and failures summed, the evidence kept together (as many
// pieces of each rule as the most any one proxy kept), the earliest start
// and the latest end. Then it is decided anew (Finish), with strict and
// strictClients as the merge's own: an exit status is never copied. vs
// come from summary.json files, which may have been edited: every string
// is made fit to print again.
func Merge(vs []*verdict.Verdict, strict, strictClients bool) (*verdict.Verdict, error) {
	if len(vs) == 0 {
		return nil, fmt.Errorf("%w: no verdict to merge", ErrNotMergeable)
	}
	first := vs[0]
	for i, v := range vs {
		switch {
		case v.Driver != verdict.Proxy:
			return nil, fmt.Errorf("%w: verdict %d was written by %q, not by proxy (a run's verdict stands alone)", ErrNotMergeable, i+1, v.Driver)
		case v.Spec.SHA256 != first.Spec.SHA256:
			return nil, fmt.Errorf("%w: verdict %d judges by another document (sha256 %.12s…, the first %.12s…)", ErrNotMergeable, i+1, v.Spec.SHA256, first.Spec.SHA256)
		}
	}
	m := &verdict.Verdict{Driver: verdict.Proxy, Plantcheck: first.Plantcheck, Spec: first.Spec, Features: first.Features, Scope: "traffic"}
	m.Config = verdict.Config{Token: first.Config.Token, Timeout: first.Config.Timeout, MaxJudgeBytes: first.Config.MaxJudgeBytes,
		Strict: strict, StrictClients: strictClients}
	var targets []string
	m.Counts.ProxyAnswers = map[string]int64{}
	notJudged := map[string]int64{}
	tally := verdict.NewTally()
	seen := map[rules.RuleID]bool{}
	type blockKey struct {
		side string
		rule rules.RuleID
	}
	blocks := map[blockKey]*verdict.Block{}
	keep := map[blockKey]int{}
	var order []blockKey
	clients := map[rules.RuleID]int64{}
	for _, v := range vs {
		if t := evidence.Text(v.Target); !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
		if m.Started.IsZero() || v.Started.Before(m.Started) {
			m.Started = v.Started
		}
		if v.Ended.After(m.Ended) {
			m.Ended = v.Ended
		}
		m.Interrupted = m.Interrupted || v.Interrupted
		c := &m.Counts
		c.Exchanges += v.Counts.Exchanges
		c.Judged += v.Counts.Judged
		c.JudgedInPart += v.Counts.JudgedInPart
		c.OutsideDocument += v.Counts.OutsideDocument
		c.ClientGone += v.Counts.ClientGone
		c.UpstreamBrokeOff += v.Counts.UpstreamBrokeOff
		c.ServerViolations += v.Counts.ServerViolations
		c.ClientViolations += v.Counts.ClientViolations
		for k, n := range v.Counts.ProxyAnswers {
			c.ProxyAnswers[evidence.Text(k)] += n
		}
		for _, n := range v.NotJudgedInPart {
			notJudged[evidence.Text(n.Reason)] += n.N
		}
		for _, r := range v.Rules {
			if !tally.Has(r.ID) {
				return nil, fmt.Errorf("%w: rule %q is not in this plantcheck's catalog", ErrNotMergeable, evidence.Text(string(r.ID)))
			}
			seen[r.ID] = true
			tally.NoVerdict(r.ID, evidence.Text(r.NotJudgedBecause))
			tally.Judged(r.ID, r.Judged, r.Passed)
			tally.Failed(r.ID, r.Failures)
		}
		for _, g := range v.Client {
			clients[g.Rule] += g.Requests
		}
		for _, b := range v.Failures {
			k := blockKey{b.Side, b.Rule}
			mb := blocks[k]
			if mb == nil {
				mb = &verdict.Block{Heading: evidence.Text(b.Heading), Rule: b.Rule, Level: b.Level, Side: b.Side, Outcome: verdict.Fail}
				blocks[k] = mb
				order = append(order, k)
			}
			keep[k] = max(keep[k], len(b.Evidence))
			for _, e := range b.Evidence {
				mb.Evidence = append(mb.Evidence, safeEvidence(e))
			}
		}
	}
	m.Target = strings.Join(targets, ", ")
	m.Config.BaseURL = m.Target
	m.Duration = verdict.Ms(m.Ended.Sub(m.Started))
	byRule := map[rules.RuleID]verdict.Rule{}
	for _, r := range tally.Rules() {
		if seen[r.ID] {
			m.Rules = append(m.Rules, r)
			byRule[r.ID] = r
		}
	}
	for _, reason := range slices.Sorted(maps.Keys(notJudged)) {
		m.NotJudgedInPart = append(m.NotJudgedInPart, verdict.Count{Reason: reason, N: notJudged[reason]})
	}
	for _, id := range slices.Sorted(maps.Keys(clients)) {
		m.Client = append(m.Client, verdict.ClientGroup{Rule: id, Requests: clients[id]})
	}
	// Server blocks in the catalog's order, then the clients'.
	slices.SortStableFunc(order, func(a, b blockKey) int {
		if a.side != b.side {
			return strings.Compare(b.side, a.side) // "server" before "client"
		}
		return verdict.CatalogIndex(a.rule) - verdict.CatalogIndex(b.rule)
	})
	for _, k := range order {
		b := blocks[k]
		if len(b.Evidence) > keep[k] {
			b.Evidence = b.Evidence[:keep[k]]
		}
		total := clients[k.rule]
		if k.side == "server" {
			if r, ok := byRule[k.rule]; ok {
				total = r.Failures
			}
		}
		b.More = max(0, total-int64(len(b.Evidence)))
		m.Failures = append(m.Failures, *b)
	}
	m.Finish()
	return m, nil
}

// safeEvidence is a piece of evidence read from a file, made fit to print
// again: every line of every string escaped (a reproduction keeps its
// lines).
func safeEvidence(e verdict.Evidence) verdict.Evidence {
	lines := func(s string) string {
		parts := strings.Split(s, "\n")
		for i := range parts {
			parts[i] = evidence.Text(parts[i])
		}
		return strings.Join(parts, "\n")
	}
	e.Requirement, e.Expected, e.Actual = evidence.Text(e.Requirement), evidence.Text(e.Expected), evidence.Text(e.Actual)
	e.Request, e.Response, e.Reproduce, e.At = evidence.Text(e.Request), evidence.Text(e.Response), lines(e.Reproduce), evidence.Text(e.At)
	e.Details = slices.Clone(e.Details)
	for i := range e.Details {
		e.Details[i] = evidence.Text(e.Details[i])
	}
	e.Violations = slices.Clone(e.Violations)
	for i := range e.Violations {
		v := &e.Violations[i]
		v.Message, v.Reason, v.Field, v.HowToFix = evidence.Text(v.Message), evidence.Text(v.Reason), evidence.Text(v.Field), evidence.Text(v.HowToFix)
	}
	return e
}
