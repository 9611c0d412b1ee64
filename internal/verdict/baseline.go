package verdict

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Baseline is an earlier verdict whose failures are known (--baseline;
// history.LoadBaseline reads one): Finish marks the failures it holds, and
// run and proxy exit 1 only when a rule that decides the verdict fails in
// a way it does not hold. It changes the exit status, never the truth of
// the report: every failure is still shown, the known ones marked. It is
// not changed once made, and may be shared.
type Baseline struct {
	// File is its summary.json as given (escaped), Plantcheck the version
	// that wrote it, Compared what of the two versions was compared.
	File, Plantcheck, Compared string
	// Holds reports whether it holds a failure of the kind of e, a piece
	// of evidence of block b.
	Holds func(b Block, e Evidence) bool
	// Failing are the rules it found broken, NotJudged those it did not.
	Failing, NotJudged map[rules.RuleID]bool
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
			e.Known = v.Base.Holds(*blk, *e)
			all = all && e.Known
		}
		blk.Known = all
	}
}

// againstBaseline splits the rules that decide the verdict into those that
// fail in a new way (a piece of their evidence the baseline does not hold,
// or no evidence at all) and those whose every failure is known, and counts.
func (v *Verdict) againstBaseline(deciding, unjudged []rules.RuleID) (res *BaselineResult, stillUnjudged []rules.RuleID) {
	res = &BaselineResult{File: v.Base.File, Plantcheck: v.Base.Plantcheck, Compared: v.Base.Compared,
		New: []rules.RuleID{}, Known: []rules.RuleID{}, Fixed: []rules.RuleID{}, NotJudged: []rules.RuleID{}}
	for _, id := range unjudged {
		if v.Base.NotJudged[id] {
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
		if v.Base.Failing[r.ID] && r.Outcome == Pass {
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
