package verdict

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// A baseline is an earlier verdict (its summary.json) whose failures are
// known: with one, run and proxy exit 1 only when a rule that decides the
// verdict fails in a way the baseline does not hold. The baseline changes
// the exit status, never the truth of the report: the verdict still says
// non-conformant, every failure is still shown, the known ones marked.

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
func Kind(e Evidence) string {
	if m := responseHead.FindStringSubmatch(e.Response); m != nil {
		return strings.TrimSpace("answered " + m[1] + " " + strings.TrimSpace(m[2]))
	}
	if m := statusIn.FindStringSubmatch(e.Actual); m != nil {
		return "answered " + m[1]
	}
	return Shape(e.Actual)
}

// Key is the kind of evidence e of block b.
func (b Block) Key(e Evidence) FailureKey {
	return FailureKey{Side: b.Side, Scenario: b.Scenario, Rule: e.Rule, Shape: Kind(e)}
}

// Keys are the kinds of every failure of v (blocks in error are a fault of
// the harness or the network, never a failure).
func (v *Verdict) Keys() map[FailureKey]bool {
	out := map[FailureKey]bool{}
	for _, b := range v.Failures {
		if b.Outcome != Fail {
			continue
		}
		for _, e := range b.Evidence {
			out[b.Key(e)] = true
		}
	}
	return out
}

// Baseline is an earlier verdict read as a baseline (NewBaseline): the
// kinds of its failures and the rules it found broken. It is not changed
// once made, and may be shared.
type Baseline struct {
	file, compared, version string
	keys                    map[FailureKey]bool
	failing, unjudged       map[rules.RuleID]bool
}

// BaselineResult is what a verdict says of its baseline (summary.json's
// baseline member).
type BaselineResult struct {
	// File is the baseline's summary.json as given; Plantcheck the version
	// that wrote it; Compared what of the two versions was compared.
	File       string `json:"file"`
	Plantcheck string `json:"plantcheck"`
	Compared   string `json:"compared"`
	// New are the rules deciding the verdict that fail in a way the
	// baseline does not hold (a new scenario or a new kind of evidence):
	// they decide the exit status. Known are those whose every failure the
	// baseline holds. Fixed are the rules the baseline found broken that
	// pass now: the baseline can be tightened.
	New   []rules.RuleID `json:"new"`
	Known []rules.RuleID `json:"known"`
	Fixed []rules.RuleID `json:"fixed"`
	// NotJudged are the rules deciding the verdict not judged now that
	// were not judged in the baseline either (a known failure may stop
	// them): they do not make the exit status 2. A rule judged in the
	// baseline and not now still does.
	NotJudged []rules.RuleID `json:"notJudged"`
	// KnownFailures and NewFailures count the pieces of evidence of the
	// service's failures the baseline holds and does not.
	KnownFailures int `json:"knownFailures"`
	NewFailures   int `json:"newFailures"`
	// ExitCodeWithout is the exit status the verdict would have without
	// the baseline.
	ExitCodeWithout int `json:"exitCodeWithout"`
}

// LoadBaseline reads the summary.json name (ReadFile) as a baseline of a
// verdict driver will make (NewBaseline).
func LoadBaseline(name string, driver Driver) (*Baseline, error) {
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
func NewBaseline(base *Verdict, file string, driver Driver) (*Baseline, error) {
	name := evidence.Text(file)
	refuse := func(format string, a ...any) (*Baseline, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrBaseline, name, fmt.Sprintf(format, a...))
	}
	var cur Verdict
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
	b := &Baseline{file: name, compared: compared, version: bv, keys: base.Keys(),
		failing: map[rules.RuleID]bool{}, unjudged: map[rules.RuleID]bool{}}
	for _, r := range base.Rules {
		switch {
		case r.Outcome == Fail && r.Level != rules.Open:
			b.failing[r.ID] = true
		case r.Outcome == NotJudged:
			b.unjudged[r.ID] = true
		}
	}
	return b, nil
}

// File is the baseline's file, as given (escaped).
func (b *Baseline) File() string { return b.file }

// markKnown marks each piece of evidence of the service's failures that
// the baseline holds, and each block all of whose evidence it holds.
func (v *Verdict) markKnown() {
	for i := range v.Failures {
		blk := &v.Failures[i]
		blk.Known = false
		if blk.Outcome != Fail || blk.Side == "client" {
			continue
		}
		all := len(blk.Evidence) > 0
		for j := range blk.Evidence {
			e := &blk.Evidence[j]
			e.Known = v.Base.keys[blk.Key(*e)]
			all = all && e.Known
		}
		blk.Known = all
	}
}

// againstBaseline splits the rules that decide the verdict into those that
// fail in a new way (a piece of their evidence the baseline does not hold,
// or no evidence at all) and those whose every failure is known, and counts.
func (v *Verdict) againstBaseline(deciding, unjudged []rules.RuleID) (res *BaselineResult, stillUnjudged []rules.RuleID) {
	res = &BaselineResult{File: v.Base.file, Plantcheck: v.Base.version, Compared: v.Base.compared,
		New: []rules.RuleID{}, Known: []rules.RuleID{}, Fixed: []rules.RuleID{}, NotJudged: []rules.RuleID{}}
	for _, id := range unjudged {
		if v.Base.unjudged[id] {
			res.NotJudged = append(res.NotJudged, id)
		} else {
			stillUnjudged = append(stillUnjudged, id)
		}
	}
	known, seen := map[rules.RuleID]bool{}, map[rules.RuleID]bool{}
	for _, b := range v.Failures {
		if b.Outcome != Fail || b.Side == "client" {
			continue
		}
		for _, e := range b.Evidence {
			if e.Known {
				res.KnownFailures++
			} else {
				res.NewFailures++
			}
			if !seen[e.Rule] {
				seen[e.Rule], known[e.Rule] = true, true
			}
			known[e.Rule] = known[e.Rule] && e.Known
		}
	}
	for _, id := range deciding {
		if known[id] {
			res.Known = append(res.Known, id)
		} else {
			res.New = append(res.New, id)
		}
	}
	for _, r := range v.Rules {
		if v.Base.failing[r.ID] && r.Outcome == Pass {
			res.Fixed = append(res.Fixed, r.ID)
		}
	}
	return res, stillUnjudged
}

// baselineSentence is what the verdict's sentence adds of the baseline.
func (r *BaselineResult) sentence(code int) string {
	var parts []string
	switch {
	case len(r.New) > 0:
		parts = append(parts, "new failures against the baseline: "+rules.JoinIDs(r.New, ", "))
	case len(r.Known) > 0:
		parts = append(parts, "no new failures against the baseline")
	}
	if len(r.Known) > 0 {
		parts = append(parts, "known: "+rules.JoinIDs(r.Known, ", "))
	}
	if len(r.Fixed) > 0 {
		parts = append(parts, "fixed since the baseline: "+rules.JoinIDs(r.Fixed, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ") + fmt.Sprintf("; exit %d", code)
}

// truth is the exit status the verdict's findings call for, without the
// baseline: what colours and words a report (a badge never reads
// conformant while a rule that decides the verdict fails).
func (v *Verdict) truth() int {
	if v.Baseline != nil {
		return v.Baseline.ExitCodeWithout
	}
	return v.ExitCode
}

// KnownRule reports whether every failure of rule id is in the baseline.
func (v *Verdict) KnownRule(id rules.RuleID) bool {
	return v.Baseline != nil && slices.Contains(v.Baseline.Known, id)
}

// Title is a block's heading as the reports show it: marked when the
// baseline knows the failure.
func (b Block) Title() string {
	if b.Known {
		return b.Heading + " [known: in the baseline]"
	}
	return b.Heading
}

// baselineLines are what the reports say of the baseline, one line each:
// the file and what was compared, the new failures, the known ones and
// the fixed rules.
func (v *Verdict) baselineLines() []string {
	r := v.Baseline
	if r == nil {
		return nil
	}
	lines := []string{fmt.Sprintf("file %s (written by plantcheck %s; compared: %s)", r.File, r.Plantcheck, r.Compared)}
	news := "none"
	if len(r.New) > 0 {
		news = rules.JoinIDs(r.New, ", ") + fmt.Sprintf(" (%s the baseline does not hold): they decide the exit status", plural(int64(r.NewFailures), "failure"))
	}
	lines = append(lines, "new failures: "+news)
	if len(r.Known) > 0 {
		lines = append(lines, fmt.Sprintf("known failures: %s (%s, marked known below; they stay in every report)", rules.JoinIDs(r.Known, ", "), plural(int64(r.KnownFailures), "failure")))
	}
	if len(r.NotJudged) > 0 {
		lines = append(lines, "not judged, as in the baseline: "+rules.JoinIDs(r.NotJudged, ", ")+" (a known failure may stop them; they do not make the run incomplete)")
	}
	if len(r.Fixed) > 0 {
		lines = append(lines, "fixed, failing in the baseline and passing now: "+rules.JoinIDs(r.Fixed, ", ")+" (make a new baseline to tighten it)")
	}
	lines = append(lines, fmt.Sprintf("exit status %d against the baseline (%d without it)", v.ExitCode, r.ExitCodeWithout))
	return lines
}

// writeBaseline prints what the verdict made of its baseline, if any.
func (v *Verdict) writeBaseline(w *strings.Builder) {
	lines := v.baselineLines()
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "Baseline:")
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// writeMarkdownBaseline writes summary.md's section on the baseline, if
// any: the file and the version that wrote it quoted (they are the user's
// and the file's), the rest plantcheck's own words.
func (v *Verdict) writeMarkdownBaseline(b *bytes.Buffer, q Quote) {
	lines := v.baselineLines()
	if len(lines) == 0 {
		return
	}
	r := v.Baseline
	fmt.Fprintf(b, "## Baseline\n\n- File %s, written by plantcheck %s; compared: %s\n", q.Span(r.File), q.Span(r.Plantcheck), q.Span(r.Compared))
	for _, l := range lines[1:] {
		fmt.Fprintf(b, "- %s\n", l)
	}
	b.WriteString("\n")
}
