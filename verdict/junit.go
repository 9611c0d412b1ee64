package verdict

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/rules"
)

// JUnit: one test suite per rule, so that CI systems group by rule; a
// broken rule is a <failure>, a harness or network fault an <error>, a rule
// not judged or not run is <skipped>. A run's test cases are its
// scenarios; a proxy's, one per rule over the traffic, and a suite of
// what client requests broke.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	ms       float64
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

// add counts a case into its suite.
func (s *junitSuite) add(c junitCase, ms float64) {
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
	top := junitSuites{Name: fmt.Sprintf("plantcheck: %s %s (%s)", v.Spec.Title, v.Spec.Version, v.Status), Time: secs(v.Duration)}
	if v.Reference {
		top.Name = fmt.Sprintf("plantcheck: %s %s on %s (%s)", v.Spec.Title, v.Spec.Version, ReferenceTarget, v.Status)
	}
	idx := map[rules.RuleID]int{}
	for _, r := range v.Rules {
		idx[r.ID] = len(top.Suites)
		top.Suites = append(top.Suites, junitSuite{Name: fmt.Sprintf("%s (%s)", r.ID, upper(r.Level))})
	}
	if v.Driver == Proxy {
		v.junitRules(top.Suites)
	} else {
		v.junitScenarios(top.Suites, idx)
	}
	if v.Driver == Proxy {
		top.Suites = append(top.Suites, v.junitClients())
	}
	if v.Error != "" {
		s := junitSuite{Name: "plantcheck"}
		s.add(junitCase{Name: "the run could be made", Classname: "plantcheck", Time: "0.000",
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
	// encoding/xml writes a character XML 1.0 cannot hold (most C0
	// controls, invalid UTF-8) as U+FFFD, so the file is well-formed
	// anyway; cleaning first shows the reader which control it was, and
	// escapes the C1 controls and bidi overrides XML would let through.
	top.Name = mdquote.Clean(top.Name)
	for i := range top.Suites {
		for j := range top.Suites[i].Cases {
			c := &top.Suites[i].Cases[j]
			c.Name, c.SystemOut = mdquote.Clean(c.Name), mdquote.Clean(c.SystemOut)
			for _, p := range []*junitProblem{c.Failure, c.Error, c.Skipped} {
				if p != nil {
					p.Message, p.Text = mdquote.Clean(p.Message), mdquote.Clean(p.Text)
				}
			}
		}
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
// suite. A failure of another rule (a MUST breach that a SHOULD scenario
// met) is also a case of that rule's suite, so that the suite of the rule
// broken fails, whichever scenario found it.
func (v *Verdict) junitScenarios(suites []junitSuite, idx map[rules.RuleID]int) {
	for _, sc := range v.Scenarios {
		i, ok := idx[sc.Rule]
		if !ok {
			continue
		}
		var block *Block
		if sc.Failure > 0 && sc.Failure <= len(v.Failures) {
			block = &v.Failures[sc.Failure-1]
		}
		c := junitCase{Name: string(sc.Rule) + ": " + sc.Name, Classname: string(sc.Rule), Time: secs(sc.Duration)}
		if block != nil {
			var found []rules.RuleID
			for _, e := range block.Evidence {
				if e.Rule != sc.Rule && !slices.Contains(found, e.Rule) {
					found = append(found, e.Rule)
				}
			}
			for _, id := range found {
				j, ok := idx[id]
				if !ok {
					continue
				}
				fc := junitCase{Name: string(id) + ": found by " + string(sc.Rule) + ": " + sc.Name, Classname: string(id), Time: secs(sc.Duration)}
				fc.Failure = junitFailure(block, id)
				suites[j].add(fc, 0)
			}
		}
		switch sc.Outcome {
		case Fail:
			if block != nil && slices.ContainsFunc(block.Evidence, func(e Evidence) bool { return e.Rule == sc.Rule }) {
				c.Failure = junitFailure(block, sc.Rule)
			}
		case Error:
			msg := "plantcheck could not judge this scenario"
			if sc.Error != "" {
				msg = sc.Error
			}
			c.Error = &junitProblem{Message: msg, Type: "harness", Text: msg}
		case Skip:
			c.Skipped = &junitProblem{Message: sc.Note}
		}
		suites[i].add(c, sc.Duration)
	}
}

// junitRules makes a case of each rule over a proxy's traffic.
func (v *Verdict) junitRules(suites []junitSuite) {
	blocks := map[rules.RuleID]*Block{}
	for i, b := range v.Failures {
		if b.Side != "client" {
			blocks[b.Rule] = &v.Failures[i]
		}
	}
	for i, r := range v.Rules {
		c := junitCase{Name: fmt.Sprintf("%s (%s)", r.ID, upper(r.Level)), Classname: string(r.ID), Time: "0.000"}
		counts := fmt.Sprintf("%d exchanges judged, %d passed, %d failed", r.Judged, r.Passed, r.Failures)
		switch {
		case r.Outcome == NotJudged:
			c.Skipped = &junitProblem{Message: "not judged: " + r.NotJudgedBecause}
		case r.Outcome == Fail && v.decides(r) && blocks[r.ID] != nil:
			c.Failure = junitFailure(blocks[r.ID], r.ID)
			c.Failure.Message = fmt.Sprintf("%d of %d exchanges failed; %s", r.Failures, r.Judged, c.Failure.Message)
		default:
			c.SystemOut = counts
			if b := blocks[r.ID]; b != nil {
				c.SystemOut += "\n" + evidenceText(b.Evidence)
			}
		}
		suites[i].add(c, 0)
	}
}

// junitClients is the suite of what client requests broke (proxy): a
// failure only under --strict-clients.
func (v *Verdict) junitClients() junitSuite {
	s := junitSuite{Name: "client requests"}
	for _, b := range v.Failures {
		if b.Side != "client" {
			continue
		}
		c := junitCase{Name: "client: " + label(b.Rule), Classname: "client." + label(b.Rule), Time: "0.000"}
		var n int64
		for _, g := range v.Client {
			if g.Rule == b.Rule {
				n = g.Requests
			}
		}
		msg := fmt.Sprintf("%d client requests broke the document", n)
		if v.Config.StrictClients {
			c.Failure = &junitProblem{Message: msg, Type: "client", Text: evidenceText(b.Evidence)}
		} else {
			c.SystemOut = msg + " (reported; fails only with --strict-clients)\n" + evidenceText(b.Evidence)
		}
		s.add(c, 0)
	}
	if len(s.Cases) == 0 {
		s.add(junitCase{Name: "client requests keep the document", Classname: "client.document", Time: "0.000",
			SystemOut: "no client request broke the document"}, 0)
	}
	return s
}

// junitFailure is the <failure> of one rule in a block: that rule's
// failures, with their evidence and reproduction, and the rerun command.
func junitFailure(b *Block, id rules.RuleID) *junitProblem {
	var es []Evidence
	for _, e := range b.Evidence {
		if e.Rule == id {
			es = append(es, e)
		}
	}
	msg := ""
	if len(es) > 0 {
		msg = string(id) + ": expected " + es[0].Expected + ", got " + es[0].Actual
	}
	text := []string{evidenceText(es)}
	if b.Scenario != "" {
		text = append(text, "scenario: "+string(b.Rule)+": "+b.Scenario)
	}
	if b.Rerun != "" {
		text = append(text, "rerun: "+b.Rerun)
	}
	level := rules.Level("")
	if r, ok := rules.Lookup(id); ok {
		level = r.Level
	}
	return &junitProblem{Message: msg, Type: string(level), Text: strings.Join(text, "\n\n")}
}

// evidenceText writes failures as plain text, one after another.
func evidenceText(es []Evidence) string {
	var parts []string
	for _, e := range es {
		var b strings.Builder
		fmt.Fprintf(&b, "%s (%s): %s\n", e.Rule, upper(e.Level), e.Requirement)
		fmt.Fprintf(&b, "  expected: %s\n", e.Expected)
		fmt.Fprintf(&b, "  actual:   %s", e.Actual)
		for _, d := range e.Details {
			fmt.Fprintf(&b, "\n  - %s", d)
		}
		if e.Request != "" {
			fmt.Fprintf(&b, "\n  request:  %s", e.Request)
		}
		if e.Response != "" {
			fmt.Fprintf(&b, "\n  response: %s", e.Response)
		}
		if e.Reproduce != "" {
			fmt.Fprintf(&b, "\n  reproduce: %s", e.Reproduce)
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "\n\n")
}
