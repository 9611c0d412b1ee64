package verdict

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Baseline is the failures a run or proxy knows of (--baseline;
// history.LoadBaseline reads one, from a baseline file or an earlier
// summary.json): Finish marks the failures its entries hold, and run and
// proxy exit 1 when a rule that decides the verdict fails in a way no
// entry holds, or when an entry holds no failure of a rule judged now (a
// stale entry: a fixed rule must not regress unseen behind it). It changes
// the exit status, never the truth of the report: every failure is still
// shown, the known ones marked. It is not changed once made, and may be
// shared.
type Baseline struct {
	// File is the baseline as given (escaped), Plantcheck the version
	// that wrote it, Compared what of the two versions was compared.
	File, Plantcheck, Compared string
	Entries                    []BaselineEntry
	// NotJudged are the rules the baseline's run did not judge.
	NotJudged []rules.RuleID
}

// BaselineEntry is one known failure: of a rule, and when given of one kind
// of answer (Evidence.Kind) and in one scenario (run); an entry that names
// a rule alone holds its every failure. Reason is the team's note.
type BaselineEntry struct {
	Rule     rules.RuleID `json:"rule"`
	Kind     string       `json:"kind,omitempty"`
	Scenario string       `json:"scenario,omitempty"`
	Reason   string       `json:"reason,omitempty"`
}

// Covers reports whether the entry holds every failure other holds.
func (en BaselineEntry) Covers(other BaselineEntry) bool {
	return en.Rule == other.Rule && (en.Kind == "" || en.Kind == other.Kind) && (en.Scenario == "" || en.Scenario == other.Scenario)
}

// which says what of its rule's failures the entry holds, when it names
// more than the rule: "201 application/json, in scenario \"…\"".
func (en BaselineEntry) which() string {
	var parts []string
	if en.Kind != "" {
		parts = append(parts, en.Kind)
	}
	if en.Scenario != "" {
		parts = append(parts, "in scenario "+strconv.Quote(en.Scenario))
	}
	return strings.Join(parts, ", ")
}

// BaselineResult is what a verdict says of its baseline (summary.json's
// baseline member).
type BaselineResult struct {
	// File is the baseline as given; Plantcheck the version that wrote
	// it; Compared what of the two versions was compared.
	File       string `json:"file"`
	Plantcheck string `json:"plantcheck"`
	Compared   string `json:"compared"`
	// New are the rules deciding the verdict that fail in a way the
	// baseline does not hold (a new scenario or a new kind of answer):
	// they decide the exit status; NewKinds says, of those the baseline
	// knows other kinds of, both kinds. Known are those whose every
	// failure the baseline holds.
	New      []rules.RuleID `json:"new"`
	NewKinds []string       `json:"newKinds"`
	Known    []rules.RuleID `json:"known"`
	// Stale says of each entry that holds no failure of a rule judged now
	// why: its rule passes, or fails only in other ways. Each fails the
	// gate until it is removed. A rule not judged now (not selected by
	// --tags, shown by no traffic) leaves its entries alone.
	Stale []string `json:"stale"`
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

// ServerFailures calls f with each piece of evidence of the service's
// failures.
func (v *Verdict) ServerFailures(f func(Block, Evidence)) {
	for _, b := range v.Failures {
		if b.Outcome != Fail || b.Side == "client" {
			continue
		}
		for _, e := range b.Evidence {
			f(b, e)
		}
	}
}

// againstBaseline marks each piece of evidence of the service's failures
// that the baseline holds, and each block all of whose evidence it holds;
// splits the rules that decide the verdict into those that fail in a new
// way (a piece of their evidence the baseline does not hold, or no
// evidence at all) and those whose every failure is known; finds the
// stale entries, and counts.
func (v *Verdict) againstBaseline(deciding, unjudged []rules.RuleID) (res *BaselineResult, stillUnjudged []rules.RuleID) {
	res = &BaselineResult{File: v.Base.File, Plantcheck: v.Base.Plantcheck, Compared: v.Base.Compared,
		New: []rules.RuleID{}, NewKinds: []string{}, Known: []rules.RuleID{}, Stale: []string{}, NotJudged: []rules.RuleID{}}
	for _, id := range unjudged {
		if slices.Contains(v.Base.NotJudged, id) {
			res.NotJudged = append(res.NotJudged, id)
		} else {
			stillUnjudged = append(stillUnjudged, id)
		}
	}
	known, seen := map[rules.RuleID]bool{}, map[rules.RuleID]bool{}
	newKinds := map[rules.RuleID][]string{}
	var failures []BaselineEntry // each piece of evidence, as an entry that would hold it
	for i := range v.Failures {
		blk := &v.Failures[i]
		blk.Known = false
		if blk.Outcome != Fail || blk.Side == "client" {
			continue
		}
		blk.Known = len(blk.Evidence) > 0
		for j := range blk.Evidence {
			e := &blk.Evidence[j]
			f := BaselineEntry{Rule: e.Rule, Kind: e.Kind(), Scenario: blk.Scenario}
			failures = append(failures, f)
			e.Known = slices.ContainsFunc(v.Base.Entries, func(en BaselineEntry) bool { return en.Covers(f) })
			blk.Known = blk.Known && e.Known
			if e.Known {
				res.KnownFailures++
			} else {
				res.NewFailures++
				newKinds[e.Rule] = appendOnce(newKinds[e.Rule], f.Kind)
			}
			known[e.Rule] = e.Known && (known[e.Rule] || !seen[e.Rule])
			seen[e.Rule] = true
		}
	}
	for _, id := range deciding {
		if known[id] {
			res.Known = append(res.Known, id)
			continue
		}
		res.New = append(res.New, id)
		var held []string // the kinds of answer the baseline's entries of id name
		for _, en := range v.Base.Entries {
			if en.Rule == id && en.Kind != "" {
				held = appendOnce(held, en.Kind)
			}
		}
		if len(held) > 0 && len(newKinds[id]) > 0 {
			res.NewKinds = append(res.NewKinds, fmt.Sprintf("%s fails with %s, a new kind of failure: the baseline holds it with %s",
				id, strings.Join(newKinds[id], ", "), strings.Join(held, ", ")))
		}
	}
	if !v.Interrupted {
		for _, en := range v.Base.Entries {
			if why := v.stale(en, failures); why != "" {
				res.Stale = append(res.Stale, why)
			}
		}
	}
	return res, stillUnjudged
}

// stale says why entry en holds none of this verdict's failures ("" when
// it holds one, or its rule or scenario was not judged now: not judged is
// not passing).
func (v *Verdict) stale(en BaselineEntry, failures []BaselineEntry) string {
	r, ok := v.rule(en.Rule)
	if !ok || r.Outcome != Pass && r.Outcome != Fail {
		return ""
	}
	if en.Scenario != "" && v.Driver == Run {
		j := slices.IndexFunc(v.Scenarios, func(sc Scenario) bool { return sc.Name == en.Scenario })
		switch {
		case j < 0 && !v.Partial():
			return fmt.Sprintf("stale entry: rule %s (%s): no scenario of this suite has that name; remove the entry", en.Rule, en.which())
		case j < 0 || v.Scenarios[j].Outcome != Pass && v.Scenarios[j].Outcome != Fail:
			return ""
		}
	}
	var now []string
	held := false
	for _, f := range failures {
		held = held || en.Covers(f)
		if f.Rule == en.Rule && (en.Scenario == "" || en.Scenario == f.Scenario) {
			now = appendOnce(now, f.Kind)
		}
	}
	entry, which := "", ""
	if w := en.which(); w != "" {
		entry, which = " its entry ("+w+")", " ("+w+")"
	}
	switch {
	case held:
		return ""
	case r.Outcome == Pass:
		return fmt.Sprintf("stale entry: rule %s passes now; remove%s from the baseline", en.Rule, cmp.Or(entry, " it"))
	case len(now) > 0:
		return fmt.Sprintf("stale entry: rule %s%s no longer fails so: it fails now with %s, a new kind of failure; remove the entry, or name the new kind", en.Rule, which, strings.Join(now, ", "))
	}
	return fmt.Sprintf("stale entry: rule %s%s no longer fails so: it fails now in other scenarios only; remove the entry", en.Rule, which)
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
	if len(r.Stale) > 0 {
		parts = append(parts, fmt.Sprintf("stale baseline entries: %d (remove them)", len(r.Stale)))
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
		news = rules.JoinIDs(r.New, ", ") + fmt.Sprintf(" (%s the baseline does not hold): they decide the exit status", Plural(int64(r.NewFailures), "failure"))
	}
	lines = append(lines, "new failures: "+news)
	if len(r.Known) > 0 {
		lines = append(lines, fmt.Sprintf("known failures: %s (%s, marked known below; they stay in every report)", rules.JoinIDs(r.Known, ", "), Plural(int64(r.KnownFailures), "failure")))
	}
	if len(r.NotJudged) > 0 {
		lines = append(lines, "not judged, as in the baseline: "+rules.JoinIDs(r.NotJudged, ", ")+" (a known failure may stop them; they do not make the run incomplete)")
	}
	lines = append(lines, r.NewKinds...)
	lines = append(lines, r.Stale...)
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
