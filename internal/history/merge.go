package history

import (
	"errors"
	"fmt"
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
	// Of each rule, as many pieces of evidence as any one proxy kept.
	keep := 0
	for _, v := range vs {
		for _, b := range v.Failures {
			keep = max(keep, len(b.Evidence))
		}
	}
	tally := verdict.NewTrafficTally(keep)
	var targets []string
	seen := map[rules.RuleID]bool{}
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
		if err := tally.Add(v, safeEvidence); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotMergeable, err)
		}
		for _, r := range v.Rules {
			seen[r.ID] = true
		}
	}
	m.Target = strings.Join(targets, ", ")
	m.Config.BaseURL = m.Target
	m.Duration = verdict.Ms(m.Ended.Sub(m.Started))
	tally.Traffic(m, func(s string) string { return s })
	m.Rules = slices.DeleteFunc(m.Rules, func(r verdict.Rule) bool { return !seen[r.ID] })
	m.Command = "merge"
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
