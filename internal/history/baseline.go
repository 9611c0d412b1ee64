// Package history reads the verdicts plantcheck wrote before (their
// summary.json, checked against the published schema: ReadFile) and sets
// them against each other or against a new one: a baseline whose known
// failures a run or a proxy is decided against (LoadBaseline, filling
// verdict.Baseline), the diff of two verdicts (Compare), the table of
// several implementations' verdicts (CompareAll, compare.html) and the
// merge of several proxies' verdicts into one (Merge). What a failure's
// kind is, from one run to the next, is decided here (Kind). It writes
// nothing of a verdict itself: a merged verdict is decided and written by
// package verdict.
package history

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// ErrBaseline is what every refusal of a baseline is (errors.Is): the
// file cannot serve as a baseline of this plantcheck (exit status 2).
var ErrBaseline = errors.New("baseline refused")

// FailureKey is the kind of one failure: what stays the same from one run
// of a server to the next whatever the run drew (ids, names, timestamps,
// durations), or which of a scenario's failures a run met first. It is
// the side (server or client), the scenario's name (run; the proxy has
// none), the rule the evidence cites, and the kind of answer (Kind).
type FailureKey struct {
	Side     string       `json:"side"`
	Scenario string       `json:"scenario"`
	Rule     rules.RuleID `json:"rule"`
	Shape    string       `json:"shape"`
}

var (
	quotedText = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	numberText = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?`)
)

// maxShape bounds a failure's shape.
const maxShape = 200

// Shape is what a failure's "actual" says once what a run draws is taken
// out of it: every quoted string becomes "…" and every number N, except a
// three-digit status after the word "status" ("status 200" stays, so that
// a 500 where a 200 was known is a new kind). `name is "MONSTERA": its
// letter case changed` is `name is "…": its letter case changed` in every
// run.
func Shape(actual string) string {
	s := quotedText.ReplaceAllString(actual, `"…"`)
	var b strings.Builder
	last := 0
	for _, m := range numberText.FindAllStringIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		if m[1]-m[0] == 3 && strings.HasSuffix(s[:m[0]], "status ") {
			b.WriteString(s[m[0]:m[1]])
		} else {
			b.WriteString("N")
		}
		last = m[1]
	}
	b.WriteString(s[last:])
	return evidence.Cut(b.String(), maxShape)
}

// responseHead is the status and media type that begin a response line
// (exchange.Exchange.ResponseLine: "200 application/json; charset=utf-8,
// body …").
var responseHead = regexp.MustCompile(`^([0-9]{3}) ([^,;]*)`)

// statusIn is a status an "actual" names.
var statusIn = regexp.MustCompile(`\bstatus ([0-9]{3})\b`)

// Kind is the kind of answer a failure's evidence shows: its status and
// media type ("answered 200 application/json"), or, with no answer, the
// shape of what came instead (Shape). Not the wording of "actual": a
// scenario that sends many requests (the hostile strings) keeps its first
// failures, and which come first, and so how they read ("its letter case
// changed", "character 3 differs"), is the run's draw and its order. A
// 500 or a text/plain answer where a 200 application/json was known is a
// new kind.
func Kind(e verdict.Evidence) string {
	if m := responseHead.FindStringSubmatch(e.Response); m != nil {
		return strings.TrimSpace("answered " + m[1] + " " + strings.TrimSpace(m[2]))
	}
	if m := statusIn.FindStringSubmatch(e.Actual); m != nil {
		return "answered " + m[1]
	}
	return Shape(e.Actual)
}

// Key is the kind of evidence e of block b.
func Key(b verdict.Block, e verdict.Evidence) FailureKey {
	return FailureKey{Side: b.Side, Scenario: b.Scenario, Rule: e.Rule, Shape: Kind(e)}
}

// Keys are the kinds of every failure of v (blocks in error are a fault of
// the harness or the network, never a failure).
func Keys(v *verdict.Verdict) map[FailureKey]bool {
	out := map[FailureKey]bool{}
	for _, b := range v.Failures {
		if b.Outcome != verdict.Fail {
			continue
		}
		for _, e := range b.Evidence {
			out[Key(b, e)] = true
		}
	}
	return out
}

// LoadBaseline reads the summary.json name (ReadFile) as a baseline of a
// verdict driver will make (NewBaseline).
func LoadBaseline(name string, driver verdict.Driver) (*verdict.Baseline, error) {
	base, err := ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBaseline, evidence.Text(name), err)
	}
	return NewBaseline(base, name, driver)
}

// develVersion reports whether a plantcheck version names no release
// (a build from a work tree): two such builds may judge differently.
func develVersion(v string) bool { return v == "" || v == "devel" || v == "(devel)" }

// NewBaseline makes base, read from file, the baseline of a verdict driver
// will make with this plantcheck. It refuses (ErrBaseline, with the reason)
// a verdict of the other driver, of a run that could not be made, judged by
// another document, or by another suite: another plantcheck version when
// both are releases, else other features (a devel build is compared by
// what it can be: the spec's and the features' digests, and says so).
func NewBaseline(base *verdict.Verdict, file string, driver verdict.Driver) (*verdict.Baseline, error) {
	name := evidence.Text(file)
	refuse := func(format string, a ...any) (*verdict.Baseline, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrBaseline, name, fmt.Sprintf(format, a...))
	}
	var cur verdict.Verdict
	title, version := "", ""
	if sv, err := spec.Default(); err == nil {
		title, version = sv.Info().Title, sv.Info().Version
	}
	cur.Stamp(title, version)
	bv := evidence.Text(base.Plantcheck.Version)
	switch {
	case base.Driver != driver:
		return refuse("written by 'plantcheck %s', not by 'plantcheck %s': a baseline is a verdict of the same command", evidence.Text(string(base.Driver)), driver)
	case base.Error != "":
		return refuse("a run that could not be made (%s): it knows no failure; make the baseline from a run that judged", evidence.Text(evidence.Cut(base.Error, 200)))
	case base.Spec.SHA256 != cur.Spec.SHA256:
		return refuse("judged by the spec %s %s (sha256 %.12s…), this plantcheck judges by %s %s (sha256 %.12s…): its failures cannot be compared; make a new baseline with this plantcheck",
			evidence.Text(base.Spec.Title), evidence.Text(base.Spec.Version), evidence.Text(base.Spec.SHA256), cur.Spec.Title, cur.Spec.Version, cur.Spec.SHA256)
	case !develVersion(base.Plantcheck.Version) && !develVersion(cur.Plantcheck.Version) && base.Plantcheck.Version != cur.Plantcheck.Version:
		return refuse("written by plantcheck %s, this is plantcheck %s: another suite may have other scenarios and judge otherwise; make a new baseline with this plantcheck", bv, cur.Plantcheck.Version)
	case base.Features.SHA256 != cur.Features.SHA256:
		return refuse("written by plantcheck %s with other features (sha256 %.12s…, these %.12s…): the scenarios differ; make a new baseline with this plantcheck", bv, evidence.Text(base.Features.SHA256), cur.Features.SHA256)
	}
	compared := fmt.Sprintf("plantcheck %s, spec %s %s and its sha256, features sha256: the same", bv, cur.Spec.Title, cur.Spec.Version)
	if develVersion(base.Plantcheck.Version) || develVersion(cur.Plantcheck.Version) {
		compared = fmt.Sprintf("spec %s %s and its sha256, features sha256: the same; plantcheck %s and %s: not compared (a build with no release version; its judging may differ)",
			cur.Spec.Title, cur.Spec.Version, bv, buildinfo.Version())
	}
	keys := Keys(base)
	b := &verdict.Baseline{File: name, Compared: compared, Plantcheck: bv,
		Holds:   func(b verdict.Block, e verdict.Evidence) bool { return keys[Key(b, e)] },
		Failing: map[rules.RuleID]bool{}, NotJudged: map[rules.RuleID]bool{}}
	for _, r := range base.Rules {
		switch {
		case r.Outcome == verdict.Fail && r.Level != rules.Open:
			b.Failing[r.ID] = true
		case r.Outcome == verdict.NotJudged:
			b.NotJudged[r.ID] = true
		}
	}
	return b, nil
}
