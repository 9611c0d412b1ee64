package conformance

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// JUnit: one test suite per rule, so that CI systems group by rule; a
// broken rule is a <failure>, a harness or network fault an <error>.
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
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func (r *Report) writeJUnit(b *bytes.Buffer) error {
	top := junitSuites{Name: fmt.Sprintf("plantcheck: %s %s (%s)", r.SpecTitle, r.SpecVersion, r.Status()), Time: secs(r.Ended.Sub(r.Started))}
	idx := map[rules.RuleID]int{}
	suiteTime := make([]time.Duration, len(r.Rules))
	for _, v := range r.Rules {
		idx[v.Rule.ID] = len(top.Suites)
		top.Suites = append(top.Suites, junitSuite{Name: fmt.Sprintf("%s (%s)", v.Rule.ID, strings.ToUpper(string(v.Rule.Level)))})
	}
	for _, sc := range r.Scenarios {
		i, ok := idx[sc.Rule.ID]
		if !ok {
			continue
		}
		s := &top.Suites[i]
		c := junitCase{Name: string(sc.Rule.ID) + ": " + sc.Name, Classname: string(sc.Rule.ID), Time: secs(sc.Duration)}
		// A failure of another rule (a MUST breach that a SHOULD scenario
		// met) is a test case of that rule's suite, so that the suite of
		// the rule broken fails, whichever scenario found it.
		for _, rule := range FailedRules(sc) {
			if rule.ID == sc.Rule.ID {
				continue
			}
			j, ok := idx[rule.ID]
			if !ok {
				continue
			}
			fc := junitCase{Name: string(rule.ID) + ": found by " + string(sc.Rule.ID) + ": " + sc.Name, Classname: string(rule.ID), Time: secs(sc.Duration)}
			fc.Failure = r.junitFailure(sc, rule)
			top.Suites[j].Cases = append(top.Suites[j].Cases, fc)
			top.Suites[j].Tests++
			top.Suites[j].Failures++
			top.Tests++
			top.Failures++
		}
		switch sc.Outcome {
		case steps.Failed:
			if !slices.ContainsFunc(sc.Failures, func(f *steps.Failure) bool { return f.Rule.ID == sc.Rule.ID }) {
				break // its failures belong to other rules' suites
			}
			c.Failure = r.junitFailure(sc, sc.Rule)
			s.Failures++
			top.Failures++
		case steps.Errored:
			msg := "plantcheck could not judge this scenario"
			if sc.Err != nil {
				msg = sc.Err.Error()
			}
			c.Error = &junitProblem{Message: msg, Type: "harness", Text: msg}
			s.Errors++
			top.Errors++
		case steps.Skipped:
			c.Skipped = &junitProblem{Message: sc.Note}
			s.Skipped++
			top.Skipped++
		}
		s.Tests++
		top.Tests++
		s.Cases = append(s.Cases, c)
		suiteTime[i] += sc.Duration
	}
	for i := range top.Suites {
		top.Suites[i].Time = secs(suiteTime[i])
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
			c.Name = mdquote.Clean(c.Name)
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

// junitFailure is the <failure> of one rule in a scenario: that rule's
// failures, with their evidence and reproduction, and the rerun command.
func (r *Report) junitFailure(sc steps.Result, rule rules.Rule) *junitProblem {
	var text []string
	msg := ""
	for _, f := range sc.Failures {
		if f.Rule.ID != rule.ID {
			continue
		}
		if msg == "" {
			msg = string(f.Rule.ID) + ": expected " + f.Expected + ", got " + f.Actual
		}
		t := f.Error()
		if f.Exchange != nil {
			t += "\n  reproduce: " + f.Exchange.Curl()
		}
		text = append(text, t)
	}
	text = append(text, "scenario: "+string(sc.Rule.ID)+": "+sc.Name, "rerun: "+r.Rerun(sc.Rule.ID))
	return &junitProblem{Message: msg, Type: string(rule.Level), Text: strings.Join(text, "\n\n")}
}
