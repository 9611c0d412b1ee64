package verdict

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// JUnit: one test suite per rule, so that CI systems group by rule; a
// broken rule is a <failure>, a harness or network fault an <error>, a rule
// not judged or not run is <skipped>. A run's test cases are its
// scenarios; a proxy's, one per rule over the traffic, and a suite of
// what client requests broke.
type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

// junitCounts are the attributes a suite and the suites share.
type junitCounts struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

type junitSuite struct {
	junitCounts
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	SystemOut  string           `xml:"system-out,omitempty"`
	ms         float64
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

// junitProperty is one property of a suite: the analysis of the verdict
// (what to fix, the common cause) rides on a suite of no case, first.
type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func secs(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// add counts a case into its suite, its text cleaned (writeJUnit says why).
func (s *junitSuite) add(c junitCase, ms float64) {
	c.Name, c.SystemOut = mdquote.Clean(c.Name), mdquote.Clean(c.SystemOut)
	for _, p := range []*junitProblem{c.Failure, c.Error, c.Skipped} {
		if p != nil {
			p.Message, p.Text = mdquote.Clean(p.Message), mdquote.Clean(p.Text)
		}
	}
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Tests++
	s.ms += ms
	s.Cases = append(s.Cases, c)
}

func (v *Verdict) writeJUnit(b *bytes.Buffer) error {
	top := junitSuites{junitCounts: junitCounts{Name: fmt.Sprintf("plantcheck: %s %s (%s)", v.Spec.Title, v.Spec.Version, v.Status), Time: secs(v.Duration)}}
	if v.Reference {
		top.Name = fmt.Sprintf("plantcheck: %s %s on %s (%s)", v.Spec.Title, v.Spec.Version, ReferenceTarget, v.Status)
	}
	// encoding/xml writes a character XML 1.0 cannot hold (most C0
	// controls, invalid UTF-8) as U+FFFD, so the file is well-formed
	// anyway; cleaning first (here, in add, and in what to fix) shows the
	// reader which control it was, and escapes the C1 controls and bidi
	// overrides XML would let through.
	top.Name = mdquote.Clean(top.Name)
	for _, r := range v.Rules {
		top.Suites = append(top.Suites, junitSuite{junitCounts: junitCounts{Name: fmt.Sprintf("%s (%s)", r.ID, Upper(r.Level))}})
	}
	if v.words().traffic {
		v.junitRules(top.Suites)
		top.Suites = append(top.Suites, v.junitClients())
	} else {
		v.junitScenarios(top.Suites)
	}
	if v.Error != "" {
		s := junitSuite{junitCounts: junitCounts{Name: "plantcheck"}}
		s.add(junitCase{Name: "plantcheck could not run", Classname: "plantcheck", Time: "0.000",
			Error: &junitProblem{Message: v.Error, Type: "could not run", Text: v.Error}}, 0)
		top.Suites = append(top.Suites, s)
	}
	for i := range top.Suites {
		s := &top.Suites[i]
		s.Time = secs(s.ms)
		top.Tests += s.Tests
		top.Failures += s.Failures
		top.Errors += s.Errors
		top.Skipped += s.Skipped
	}
	top.Suites = slices.DeleteFunc(top.Suites, func(s junitSuite) bool { return s.Tests == 0 })
	// What to fix and the common cause, as the console and every report
	// give them, first: a suite of no case, which counts nothing.
	if a := Analyze(v); len(a.Fix) > 0 || a.Cause != "" {
		s := junitSuite{junitCounts: junitCounts{Name: "plantcheck: what to fix", Time: "0.000"}, Properties: &junitProperties{}}
		var text strings.Builder
		if a.Cause != "" {
			s.Properties.Property = append(s.Properties.Property, junitProperty{"common-cause", mdquote.Clean(a.Cause)})
			fmt.Fprintf(&text, "Common cause: %s\n\n", a.Cause)
		}
		if len(a.Fix) > 0 {
			fmt.Fprintf(&text, "To fix (blocks numbered as in summary.md and report.html):\n")
		}
		for i, l := range a.Fix {
			s.Properties.Property = append(s.Properties.Property, junitProperty{fmt.Sprintf("to-fix-%d", i+1), mdquote.Clean(l)})
			fmt.Fprintf(&text, "- %s\n", l)
		}
		s.SystemOut = mdquote.Clean(text.String())
		top.Suites = append([]junitSuite{s}, top.Suites...)
	}
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(b)
	enc.Indent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	b.WriteByte('\n')
	return nil
}

// junitScenarios makes a case of each scenario of a run, in its rule's
// suite, whether it passed or not, so that every run of one suite version
// has the same cases (an outline's row is a scenario of its own name). A
// failure of another rule that a scenario met (a MUST breach found by a
// SHOULD scenario) is in that scenario's failure, never a case of its own:
// the rule table and summary.json (foundBy) say which rules were found
// broken where.
func (v *Verdict) junitScenarios(suites []junitSuite) {
	labels := map[int]string{}
	for _, s := range v.shown() {
		labels[s.Index] = s.Label
	}
	for _, sc := range v.Scenarios {
		i := slices.IndexFunc(v.Rules, func(r Rule) bool { return r.ID == sc.Rule }) // suites[i] is its rule's
		if i < 0 {
			continue
		}
		var block *Block
		label := ""
		if sc.Failure > 0 && sc.Failure <= len(v.Failures) {
			block, label = &v.Failures[sc.Failure-1], labels[sc.Failure-1]
		}
		c := junitCase{Name: string(sc.Rule) + ": " + sc.Name, Classname: string(sc.Rule), Time: secs(sc.Duration)}
		switch sc.Outcome {
		case Fail:
			if block != nil && len(block.Evidence) > 0 {
				c.Failure = v.junitFailure(block, sc.Rule, label)
				break
			}
			msg, text := "the scenario failed", "the scenario failed"
			if block != nil && block.Error != "" {
				msg, text = block.Error, v.fieldsText(*block)
			}
			c.Failure = &junitProblem{Message: msg, Type: string(sc.Level), Text: text}
		case Error:
			msg := cmp.Or(sc.Error, "plantcheck could not judge this scenario")
			text := msg
			if label != "" {
				msg = "failure " + label + " " + msg
				if block != nil && block.Rerun != "" {
					text += "\n\nrerun: " + block.Rerun
				}
			}
			c.Error = &junitProblem{Message: msg, Type: "harness", Text: text}
		case Skip:
			c.Skipped = &junitProblem{Message: sc.Note}
		}
		suites[i].add(c, sc.Duration)
	}
}

// junitFailure is the <failure> of block b: every rule it found broken,
// own first, with the evidence and the rerun, numbered (label, "" for
// none) as the console and the other reports number the block.
func (v *Verdict) junitFailure(b *Block, own rules.RuleID, label string) *junitProblem {
	// The evidence by rule, own first, then as first found.
	rank := func(id rules.RuleID) int {
		if id == own {
			return -1
		}
		return slices.IndexFunc(b.Evidence, func(e Evidence) bool { return e.Rule == id })
	}
	es := slices.Clone(b.Evidence)
	slices.SortStableFunc(es, func(x, y Evidence) int { return rank(x.Rule) - rank(y.Rule) })
	var found []rules.RuleID
	var msg string
	for i, e := range es {
		if i > 0 && e.Rule == es[i-1].Rule {
			continue
		}
		if found = append(found, e.Rule); len(found) == 1 {
			msg = string(e.Rule) + ": expected " + e.Expected + ", got " + e.Actual
		}
	}
	if len(found) > 1 {
		msg += fmt.Sprintf(" (and %s more)", Plural(int64(len(found)-1), "rule"))
	}
	if len(found) == 0 {
		found = []rules.RuleID{own}
	}
	level := rules.Level("")
	var others []string
	for _, id := range found {
		r, ok := rules.Lookup(id)
		if ok && (level == "" || levelRank(r.Level) < levelRank(level)) {
			level = r.Level
		}
		if id != own {
			lv := ""
			if ok {
				lv = " (" + Upper(r.Level) + ")"
			}
			others = append(others, string(id)+lv)
		}
	}
	var text []string
	if label != "" {
		msg = "failure " + label + " " + msg
		text = append(text, "block "+strings.TrimSuffix(label, ")")+" of summary.md and report.html (the console shows the first failure of each rule)")
	}
	if b.Known {
		// A known failure stays a failure; the message says it is known.
		msg = "known (in the baseline): " + msg
	}
	if len(others) > 0 {
		text = append(text, "found broken by this scenario: "+strings.Join(others, ", "))
	}
	sorted := *b
	sorted.Evidence = es
	text = append(text, v.fieldsText(sorted))
	return &junitProblem{Message: msg, Type: string(level), Text: strings.Join(text, "\n\n")}
}

// junitRules makes a case of each rule over a proxy's traffic.
func (v *Verdict) junitRules(suites []junitSuite) {
	blocks := map[rules.RuleID]*Block{}
	labels := map[rules.RuleID]string{}
	for _, s := range v.shown() {
		if s.Side != "client" && blocks[s.Rule] == nil {
			blocks[s.Rule], labels[s.Rule] = &v.Failures[s.Index], s.Label
		}
	}
	for i, r := range v.Rules {
		c := junitCase{Name: fmt.Sprintf("%s (%s)", r.ID, Upper(r.Level)), Classname: string(r.ID), Time: "0.000"}
		counts := fmt.Sprintf("%d exchanges judged, %d passed, %d failed", r.Judged, r.Passed, r.Failures)
		switch {
		case r.Outcome == NotJudged:
			c.Skipped = &junitProblem{Message: "not judged: " + r.NotJudgedBecause}
		case r.Outcome == Fail && v.decides(r) && blocks[r.ID] != nil:
			c.Failure = v.junitFailure(blocks[r.ID], r.ID, "")
			c.Failure.Message = fmt.Sprintf("failure %s %d of %d exchanges failed; %s", labels[r.ID], r.Failures, r.Judged, c.Failure.Message)
		default:
			c.SystemOut = counts
			if b := blocks[r.ID]; b != nil {
				c.SystemOut += "\n" + v.fieldsText(*b)
			}
		}
		suites[i].add(c, 0)
	}
}

// junitClients is the suite of what client requests broke (proxy): a
// failure only under --strict-clients.
func (v *Verdict) junitClients() junitSuite {
	s := junitSuite{junitCounts: junitCounts{Name: "client requests"}}
	for _, b := range v.Failures {
		if b.Side != "client" {
			continue
		}
		c := junitCase{Name: "client: " + label(b.Rule), Classname: "client." + label(b.Rule), Time: "0.000"}
		var n int64 // the groups are by rule, each once
		if i := slices.IndexFunc(v.Client, func(g ClientGroup) bool { return g.Rule == b.Rule }); i >= 0 {
			n = v.Client[i].Requests
		}
		msg := fmt.Sprintf("%d client requests broke the document", n)
		if v.Config.StrictClients {
			c.Failure = &junitProblem{Message: msg, Type: "client", Text: v.fieldsText(b)}
		} else {
			c.SystemOut = msg + " (reported; fails only with --strict-clients)\n" + v.fieldsText(b)
		}
		s.add(c, 0)
	}
	if len(s.Cases) == 0 {
		s.add(junitCase{Name: "client requests keep the document", Classname: "client.document", Time: "0.000",
			SystemOut: "no client request broke the document"}, 0)
	}
	return s
}

// fieldsText is block b's fields (walk) as the console prints them, whole.
func (v *Verdict) fieldsText(b Block) string {
	var w strings.Builder
	(&console{Verdict: v}).writeFields(&w, b.Number, b, walk(b, nil, form{}), &blockStyle{whole: true})
	return strings.TrimSuffix(w.String(), "\n")
}
