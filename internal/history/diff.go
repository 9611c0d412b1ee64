package history

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// ErrNotComparable means that two verdicts cannot be compared: they judge
// by different documents.
var ErrNotComparable = errors.New("verdicts not comparable")

// The changes a diff names, of a rule or a scenario from one verdict to
// the next. A rule or scenario that did not change is left out.
const (
	NewlyFailing    = "newly failing"
	Fixed           = "fixed"
	StillFailing    = "still failing"
	ChangedEvidence = "changed evidence" // still failing, in a new way or no longer in an old one
	NewlyNotJudged  = "newly not judged"
	NewlyJudged     = "newly judged" // not judged before, passing now
	Appeared        = "new scenario" // in the new verdict only, passing
	Disappeared     = "gone"         // in the old verdict only
)

// DiffSide is one of the two verdicts a diff compares.
type DiffSide struct {
	File       string         `json:"file"`
	Driver     verdict.Driver `json:"driver"`
	Plantcheck string         `json:"plantcheck"`
	Target     string         `json:"target"`
	Status     string         `json:"status"`
	ExitCode   int            `json:"exitCode"`
	Started    string         `json:"started"`
	Verdict    string         `json:"verdict"`
	Features   string         `json:"featuresSha256"`
	Seed       uint64         `json:"seed"`
	Duration   float64        `json:"durationMs"`
}

// Change is a rule's or a scenario's change from the old verdict to the
// new: what it was, what it is, and the kinds of failure (Kind, with the
// rule they cite) that appeared and that went.
type Change struct {
	Rule  rules.RuleID `json:"rule"`
	Level rules.Level  `json:"level"`
	// Scenario and Where name the scenario (a scenario's change; "" for a
	// rule's).
	Scenario string          `json:"scenario,omitempty"`
	Where    string          `json:"where,omitempty"`
	Old      verdict.Outcome `json:"old"`
	New      verdict.Outcome `json:"new"`
	Change   string          `json:"change"`
	// Regression: the change fails the diff (exit 1).
	Regression bool     `json:"regression"`
	Added      []string `json:"added"`
	Gone       []string `json:"gone"`
	// Failure is the number of the scenario's failure block in the new
	// verdict (0: none).
	Failure int `json:"failure,omitempty"`
}

// Diff is what changed from one verdict to the next.
type Diff struct {
	Old DiffSide `json:"old"`
	New DiffSide `json:"new"`
	// Notes say what makes the two less comparable (another suite
	// version, another driver, another target).
	Notes     []string `json:"notes"`
	Rules     []Change `json:"rules"`
	Scenarios []Change `json:"scenarios"`
	// Counts counts the changes of rules and of scenarios by kind.
	Counts      map[string]int `json:"counts"`
	Regressions int            `json:"regressions"`
	ExitCode    int            `json:"exitCode"`
	// regressed counts the regressions by kind of change.
	regressed map[string]int
}

func side(v *verdict.Verdict, file string) DiffSide {
	s := DiffSide{File: evidence.Text(file), Driver: v.Driver, Plantcheck: evidence.Text(v.Plantcheck.Version), Target: evidence.Text(v.Target),
		Status: evidence.Text(v.Status), ExitCode: v.ExitCode, Verdict: evidence.Text(v.Verdict), Features: evidence.Text(v.Features.SHA256),
		Seed: v.Seed, Duration: v.Duration}
	if !v.Started.IsZero() {
		s.Started = v.Started.UTC().Format("2006-01-02 15:04:05 MST")
	}
	return s
}

// judgedOutcome folds an outcome to what a diff and compare set side by
// side: pass, fail, not judged (error, not judged) or skip (not run).
func judgedOutcome(o verdict.Outcome) verdict.Outcome {
	switch o {
	case verdict.Pass, verdict.Fail, verdict.Skip:
		return o
	}
	return verdict.NotJudged
}

// ruleOutcome is rule id's judged outcome in v (skip when v has no such
// rule); "noted" for a rule of level open that passed or failed, which is
// noted, never failed.
func ruleOutcome(v *verdict.Verdict, id rules.RuleID, level rules.Level) verdict.Outcome {
	i := slices.IndexFunc(v.Rules, func(r verdict.Rule) bool { return r.ID == id })
	switch {
	case i < 0:
		return verdict.Skip
	case level == rules.Open && (v.Rules[i].Outcome == verdict.Pass || v.Rules[i].Outcome == verdict.Fail):
		return "noted"
	}
	return judgedOutcome(v.Rules[i].Outcome)
}

// kinds are the kinds of failure of a rule or scenario, as text:
// "RULE: shape".
type kinds map[string]bool

// Compare is the diff of old and new (read from oldFile and newFile): per
// rule and per scenario, what is newly failing, fixed, still failing (and
// whether its evidence changed), newly not judged. A regression, which
// fails the diff (ExitCode 1), is a rule that decides the verdict (MUST,
// and SHOULD with strict) newly failing, failing in a new way (a new
// scenario or a new kind of evidence), or newly not judged; a scenario
// whose rule decides it, likewise. Verdicts judged by different documents
// are refused (ErrNotComparable); another suite version, driver or target
// is said in Notes.
func Compare(old, new *verdict.Verdict, oldFile, newFile string, strict bool) (*Diff, error) {
	if old.Spec.SHA256 != new.Spec.SHA256 {
		return nil, fmt.Errorf("%w: %s judged by the spec %s %s (sha256 %.12s…), %s by %s %s (sha256 %.12s…): a rule's outcome means another thing under another document",
			ErrNotComparable, evidence.Text(oldFile), evidence.Text(old.Spec.Title), evidence.Text(old.Spec.Version), evidence.Text(old.Spec.SHA256),
			evidence.Text(newFile), evidence.Text(new.Spec.Title), evidence.Text(new.Spec.Version), evidence.Text(new.Spec.SHA256))
	}
	d := &Diff{Old: side(old, oldFile), New: side(new, newFile), Notes: []string{}, Rules: []Change{}, Scenarios: []Change{},
		Counts: map[string]int{}, regressed: map[string]int{}}
	if old.Plantcheck.Version != new.Plantcheck.Version || old.Features.SHA256 != new.Features.SHA256 {
		d.Notes = append(d.Notes, fmt.Sprintf("different suites: plantcheck %s (features sha256 %.12s…) and %s (%.12s…): scenarios and judgements may differ",
			d.Old.Plantcheck, d.Old.Features, d.New.Plantcheck, d.New.Features))
	}
	if old.Driver != new.Driver {
		d.Notes = append(d.Notes, fmt.Sprintf("different drivers: %s and %s: only the rules are compared", old.Driver, new.Driver))
	}
	if d.Old.Target != d.New.Target {
		d.Notes = append(d.Notes, fmt.Sprintf("different targets: %s and %s", d.Old.Target, d.New.Target))
	}
	if old.Config.Tags != new.Config.Tags {
		d.Notes = append(d.Notes, fmt.Sprintf("different scopes: --tags %q and %q", evidence.Text(old.Config.Tags), evidence.Text(new.Config.Tags)))
	}
	decides := func(l rules.Level) bool { return l == rules.Must || strict && l == rules.Should }

	// Rules, in the catalog's order (then any the catalog lacks).
	ruleKinds := func(v *verdict.Verdict) map[rules.RuleID]kinds {
		out := map[rules.RuleID]kinds{}
		v.ServerFailures(func(b verdict.Block, e verdict.Evidence) {
			if out[e.Rule] == nil {
				out[e.Rule] = kinds{}
			}
			// A rule's kinds are per scenario: a known failure in a new
			// scenario is a new way to fail.
			out[e.Rule][evidence.Text(b.Scenario)+" | "+evidence.Text(e.Kind())] = true
		})
		return out
	}
	levels := map[rules.RuleID]rules.Level{}
	var ids []rules.RuleID
	for _, r := range slices.Concat(old.Rules, new.Rules) {
		if _, ok := levels[r.ID]; !ok {
			ids = append(ids, r.ID)
		}
		levels[r.ID] = cmp.Or(r.Level, levels[r.ID]) // the new verdict's
	}
	slices.SortStableFunc(ids, func(a, b rules.RuleID) int { return verdict.CatalogIndex(a) - verdict.CatalogIndex(b) })
	ok, nk := ruleKinds(old), ruleKinds(new)
	for _, id := range ids {
		level := levels[id]
		c := Change{Rule: id, Level: level, Old: ruleOutcome(old, id, level), New: ruleOutcome(new, id, level), Added: []string{}, Gone: []string{}}
		if level != rules.Open {
			c.Added, c.Gone = setDiff(nk[id], ok[id]), setDiff(ok[id], nk[id])
		}
		c.Change = classify(c.Old, c.New, len(c.Added) > 0 || len(c.Gone) > 0)
		if c.Change == "" {
			continue
		}
		c.Regression = decides(level) && (c.Change == NewlyFailing || c.Change == NewlyNotJudged || c.Change == ChangedEvidence && len(c.Added) > 0)
		d.add(&d.Rules, c)
	}

	// Scenarios, by name (run), in the new verdict's order, then those
	// gone.
	if old.Driver == verdict.Run && new.Driver == verdict.Run {
		type sc struct {
			s verdict.Scenario
			k kinds
		}
		index := func(v *verdict.Verdict) (map[string]sc, []string) {
			m, order := map[string]sc{}, []string{}
			for _, s := range v.Scenarios {
				name := evidence.Text(s.Name)
				if _, dup := m[name]; dup {
					continue
				}
				k := kinds{}
				if s.Failure > 0 && s.Failure <= len(v.Failures) {
					b := v.Failures[s.Failure-1]
					for _, e := range b.Evidence {
						k[string(e.Rule)+": "+evidence.Text(e.Kind())] = true
					}
				}
				m[name] = sc{s, k}
				order = append(order, name)
			}
			return m, order
		}
		om, oorder := index(old)
		nm, norder := index(new)
		gone := slices.DeleteFunc(oorder, func(name string) bool { _, ok := nm[name]; return ok })
		for _, name := range slices.Concat(norder, gone) {
			n, has := nm[name]
			o, had := om[name]
			s := n.s
			if !has {
				s = o.s
			}
			c := Change{Rule: s.Rule, Level: s.Level, Scenario: name, Where: evidence.Text(s.Where), Old: judgedOutcome(o.s.Outcome), New: judgedOutcome(n.s.Outcome), Failure: n.s.Failure}
			c.Added, c.Gone = setDiff(n.k, o.k), setDiff(o.k, n.k)
			switch {
			case !has:
				c.New, c.Change = verdict.Skip, Disappeared
			case !had && c.New == verdict.Fail:
				c.Old, c.Change = verdict.Skip, NewlyFailing
			case !had:
				c.Old, c.Change = verdict.Skip, Appeared
			default:
				c.Change = classify(c.Old, c.New, len(c.Added) > 0 || len(c.Gone) > 0)
			}
			if c.Change == "" || c.Change == Appeared && c.New == verdict.Skip {
				continue
			}
			// A scenario fails the diff when the failure it newly shows is
			// of a rule that decides the verdict (a SHOULD scenario may
			// find a MUST rule broken).
			c.Regression = c.Change == NewlyFailing && (decides(c.Level) || anyDecides(c.Added, decides)) ||
				c.Change == ChangedEvidence && anyDecides(c.Added, decides) ||
				c.Change == NewlyNotJudged && decides(c.Level)
			d.add(&d.Scenarios, c)
		}
	}
	if d.Regressions > 0 {
		d.ExitCode = 1
	}
	return d, nil
}

// anyDecides reports whether a kind ("RULE: shape") cites a rule that
// decides the verdict.
func anyDecides(ks []string, decides func(rules.Level) bool) bool {
	return slices.ContainsFunc(ks, func(k string) bool {
		id, _, _ := strings.Cut(k, ": ")
		r, ok := rules.Lookup(rules.RuleID(id))
		return ok && decides(r.Level)
	})
}

func (d *Diff) add(list *[]Change, c Change) {
	*list = append(*list, c)
	d.Counts[c.Change]++
	if c.Regression {
		d.Regressions++
		d.regressed[c.Change]++
	}
}

// classify names the change from old to new ("" for none worth saying).
func classify(old, new verdict.Outcome, kindsChanged bool) string {
	switch {
	case old == new && new == verdict.Fail && kindsChanged:
		return ChangedEvidence
	case old == new && new == verdict.Fail:
		return StillFailing
	case old == new:
		return ""
	case new == verdict.Fail:
		return NewlyFailing
	case old == verdict.Fail && new == verdict.Pass:
		return Fixed
	case new == verdict.NotJudged || new == verdict.Skip && old != verdict.NotJudged:
		return NewlyNotJudged
	case new == verdict.Pass || new == "noted":
		return NewlyJudged
	}
	return ""
}

// setDiff is what a holds that b does not, sorted.
func setDiff(a, b kinds) []string {
	out := []string{}
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if !b[k] {
			out = append(out, k)
		}
	}
	return out
}

// changeOrder is the order of the kinds of change in the text and
// Markdown: what fails the diff first.
var changeOrder = []string{NewlyFailing, ChangedEvidence, NewlyNotJudged, Fixed, NewlyJudged, StillFailing, Appeared, Disappeared}

// summary is the diff's last line, without its exit status.
func (d *Diff) summary() string {
	count := func(counts map[string]int) string {
		var parts []string
		for _, k := range changeOrder {
			if n := counts[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, k))
			}
		}
		if len(parts) == 0 {
			return "no change"
		}
		return strings.Join(parts, ", ")
	}
	if d.Regressions > 0 {
		// The regressions' own kinds add up to their count; every change,
		// SHOULD and open rules' included, follows.
		return fmt.Sprintf("REGRESSED: %s (%s); every change of rules and scenarios: %s",
			verdict.Plural(int64(d.Regressions), "regression"), count(d.regressed), count(d.Counts))
	}
	return "NO REGRESSION: " + count(d.Counts)
}

// maxKindsShown bounds the kinds of failure the console lists of a rule or
// scenario, added and gone each.
const maxKindsShown = 5

// part is the changes of rules or of scenarios, in changeOrder.
type part struct {
	title string
	list  []Change
}

// parts are the diff's parts that changed.
func (d *Diff) parts() []part {
	var out []part
	for _, p := range []part{{"Rules", d.Rules}, {"Scenarios", d.Scenarios}} {
		if len(p.list) > 0 {
			p.list = slices.Clone(p.list)
			slices.SortStableFunc(p.list, func(a, b Change) int {
				return slices.Index(changeOrder, a.Change) - slices.Index(changeOrder, b.Change)
			})
			out = append(out, p)
		}
	}
	return out
}

// WriteText prints the diff for a console.
func (d *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "plantcheck diff\n")
	for i, s := range []DiffSide{d.Old, d.New} {
		name := [2]string{"old", "new"}[i]
		fmt.Fprintf(&b, "%s: %s (%s, plantcheck %s, %s; target %s): %s, exit %d\n", name, s.File, s.Driver, s.Plantcheck, s.Started, s.Target, s.Status, s.ExitCode)
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, part := range d.parts() {
		fmt.Fprintf(&b, "\n%s:\n", part.title)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, c := range part.list {
			mark := " "
			if c.Regression {
				mark = "!"
			}
			what := fmt.Sprintf("%s (%s)", c.Rule, verdict.Upper(c.Level))
			if c.Scenario != "" {
				what = fmt.Sprintf("%s: %s", c.Rule, c.Scenario)
				if c.Where != "" {
					what += " (features/" + c.Where + ")"
				}
			}
			from := fmt.Sprintf("%s -> %s", c.Old, c.New)
			if c.Failure > 0 {
				from += fmt.Sprintf(", failure %d", c.Failure)
			}
			fmt.Fprintf(tw, "%s %s\t%s\t%s\n", mark, c.Change, from, what)
			if c.Scenario == "" && c.Change != ChangedEvidence {
				continue // the scenarios below show the kinds
			}
			for _, l := range []struct {
				sign  string
				kinds []string
			}{{"+", c.Added}, {"-", c.Gone}} {
				for i, k := range l.kinds {
					if i == maxKindsShown {
						fmt.Fprintf(tw, "\t\t  %s (and %d more: --format json lists them)\n", l.sign, len(l.kinds)-i)
						break
					}
					fmt.Fprintf(tw, "\t\t  %s %s\n", l.sign, k)
				}
			}
		}
		tw.Flush()
	}
	fmt.Fprintf(&b, "\n(! fails the diff; + a kind of failure new in the new verdict, - one gone from it)\nDIFF: %s; exit %d\n", d.summary(), d.ExitCode)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the diff for a pull request: everything read from
// the files quoted with q.
func (d *Diff) WriteMarkdown(w io.Writer, q verdict.Quote) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# plantcheck diff\n\n**%s** (exit status %d)\n\n", d.summary(), d.ExitCode)
	fmt.Fprintf(&b, "| | file | plantcheck | target | started | status |\n|---|---|---|---|---|---|\n")
	for i, s := range []DiffSide{d.Old, d.New} {
		name := [2]string{"old", "new"}[i]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s (exit %d) |\n", name, q.Cell(s.File), q.Cell(s.Plantcheck), q.Cell(s.Target), s.Started, q.Cell(s.Status), s.ExitCode)
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "\n> **Note:** %s\n", q.Span(n))
	}
	for _, part := range d.parts() {
		fmt.Fprintf(&b, "\n## %s\n\n| change | rule | %s | was | is | kinds of failure |\n|---|---|---|---|---|---|\n", part.title, map[bool]string{true: "scenario", false: "level"}[part.title == "Scenarios"])
		for _, c := range part.list {
			change := c.Change
			if c.Regression {
				change = "**" + change + "** ❌"
			}
			what := verdict.Upper(c.Level)
			if c.Scenario != "" {
				what = q.Cell(c.Scenario)
			}
			var ks []string
			for _, a := range c.Added {
				ks = append(ks, "+ "+q.Cell(a))
			}
			for _, g := range c.Gone {
				ks = append(ks, "− "+q.Cell(g))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", change, c.Rule, what, c.Old, c.New, strings.Join(ks, "<br>"))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON writes the diff as JSON, for tools.
func (d *Diff) WriteJSON(w io.Writer) error { return writeJSON(w, d) }

func writeJSON(w io.Writer, x any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(x)
}
