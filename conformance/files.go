package conformance

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/steps"
)

// The files a run writes into its report folder, beside godog's
// cucumber.json.
const (
	SummaryJSON = "summary.json"
	SummaryMD   = "summary.md"
	ReportHTML  = "report.html"
	BadgeSVG    = "badge.svg"
	JUnitXML    = "junit.xml"
)

// Status is the run's standing in a word or two: only a run of every rule
// is a certification; a run filtered by --tags is partial, whatever its
// outcome.
func (r *Report) Status() string {
	switch code := r.ExitCode(); {
	case r.Interrupted && code == 1:
		return "interrupted: non-conformant"
	case r.Interrupted:
		return "interrupted: incomplete"
	case r.Partial() && code == 0:
		return "partial: conformant to the rules that ran"
	case r.Partial() && code == 1:
		return "partial: non-conformant"
	case r.Partial():
		return "partial: incomplete"
	case code == 0:
		return "certified conformant"
	case code == 1:
		return "non-conformant"
	default:
		return "incomplete"
	}
}

// WriteFiles writes summary.json, summary.md, report.html, badge.svg and
// junit.xml into dir, which must exist.
func (r *Report) WriteFiles(dir string) error {
	s := r.summary()
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	var md, html, junit bytes.Buffer
	writeMarkdown(&md, s, quoted)
	if err := reportPage.Execute(&html, s); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	if err := r.writeJUnit(&junit); err != nil {
		return fmt.Errorf("junit.xml: %w", err)
	}
	// Every file is valid UTF-8 without controls or bidirectional
	// overrides, whatever the target sent: summary.json by encoding/json
	// (invalid bytes become U+FFFD, controls \u escapes; a bidi override
	// stays, escaped by nothing, as data for programs), junit.xml by
	// writeJUnit, the others by cleanText over the whole file, because
	// html/template passes invalid bytes, controls and overrides through.
	// Plantcheck's own text in them holds none of these, so the pass changes
	// only what came from the target.
	files := []struct {
		name string
		data []byte
	}{
		{SummaryJSON, append(js, '\n')},
		{SummaryMD, []byte(cleanText(md.String()))},
		{ReportHTML, []byte(cleanText(html.String()))},
		{BadgeSVG, []byte(cleanText(string(r.badge())))},
		{JUnitXML, junit.Bytes()},
	}
	var errs []error
	for _, f := range files {
		errs = append(errs, os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644))
	}
	return errors.Join(errs...)
}

// summary is the machine-readable record of a run: summary.json, and the
// data of the other reports.
type summary struct {
	Plantcheck struct {
		Version string `json:"version"`
	} `json:"plantcheck"`
	Spec struct {
		Title   string `json:"title"`
		Version string `json:"version"`
		SHA256  string `json:"sha256"`
	} `json:"spec"`
	Features struct {
		SHA256    string `json:"sha256"`
		Scenarios int    `json:"scenarios"`
	} `json:"features"`
	Target    string         `json:"target"`
	Reference bool           `json:"reference"`
	Config    summaryConfig  `json:"config"`
	Seed      uint64         `json:"seed"`
	Started   time.Time      `json:"started"`
	Ended     time.Time      `json:"ended"`
	Duration  float64        `json:"durationMs"`
	Scope     string         `json:"scope"` // certified or partial
	Status    string         `json:"status"`
	Verdict   string         `json:"verdict"`
	ExitCode  int            `json:"exitCode"`
	Counts    Counts         `json:"counts"`
	Rules     []summaryRule  `json:"rules"`
	Scenarios []summaryScene `json:"scenarios"`
}

type summaryConfig struct {
	BaseURL     string `json:"baseURL"`
	Token       string `json:"token"`
	Timeout     string `json:"timeout"`
	Tags        string `json:"tags"`
	Strict      bool   `json:"strict"`
	Concurrency int    `json:"concurrency"`
	CACert      string `json:"caCert,omitempty"`
}

type summaryRule struct {
	features.Rule
	Outcome   string   `json:"outcome"`
	Word      string   `json:"result"`
	Scenarios int      `json:"scenarios"`
	Failures  int      `json:"failures"`
	Notes     []string `json:"notes,omitempty"`
	FoundBy   []string `json:"foundBy,omitempty"`
	Rerun     string   `json:"rerun"`
}

type summaryScene struct {
	Name string `json:"name"`
	// Heading names the scenario by what it broke (Heading).
	Heading   string           `json:"heading,omitempty"`
	Where     string           `json:"where"`
	Rule      features.RuleID  `json:"rule"`
	Level     features.Level   `json:"level"`
	Outcome   steps.Outcome    `json:"outcome"`
	Duration  float64          `json:"durationMs"`
	Exchanges int              `json:"exchanges"`
	Note      string           `json:"note,omitempty"`
	Error     string           `json:"error,omitempty"`
	Failures  []summaryFailure `json:"failures,omitempty"`
	Rerun     string           `json:"rerun,omitempty"`
}

type summaryFailure struct {
	Rule        features.RuleID  `json:"rule"`
	Level       features.Level   `json:"level"`
	Requirement string           `json:"requirement"`
	Expected    string           `json:"expected"`
	Actual      string           `json:"actual"`
	Details     []string         `json:"details,omitempty"`
	Request     string           `json:"request,omitempty"`
	Response    string           `json:"response,omitempty"`
	Violations  []spec.Violation `json:"violations,omitempty"`
	Curl        string           `json:"curl,omitempty"`
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// featuresDigest hashes the feature files, names and contents, in name
// order.
func featuresDigest() string {
	h := sha256.New()
	names, _ := fs.Glob(features.FS, "*.feature")
	slices.Sort(names)
	for _, n := range names {
		b, _ := fs.ReadFile(features.FS, n)
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r *Report) summary() *summary {
	s := &summary{
		Target: r.Target, Reference: r.Reference, Seed: r.Seed,
		Started: r.Started, Ended: r.Ended, Duration: ms(r.Ended.Sub(r.Started)),
		Scope: "certified", Status: r.Status(), Verdict: r.VerdictLine(), ExitCode: r.ExitCode(), Counts: r.Counts,
	}
	if r.Partial() {
		s.Scope = "partial"
	}
	s.Plantcheck.Version = buildinfo.Version()
	s.Spec.Title, s.Spec.Version, s.Spec.SHA256 = r.SpecTitle, r.SpecVersion, digest(spec.Document())
	s.Features.SHA256 = featuresDigest()
	if scs, err := features.Scenarios(); err == nil {
		s.Features.Scenarios = len(scs)
	}
	s.Config = summaryConfig{
		BaseURL: r.BaseURL, Token: "<redacted>", Timeout: r.Timeout.String(), Tags: r.Tags,
		Strict: r.Strict, Concurrency: r.Concurrency, CACert: r.CACert,
	}
	if r.Reference {
		s.Config.Token = "<generated for the in-process reference server>"
	}
	for _, v := range r.Rules {
		s.Rules = append(s.Rules, summaryRule{
			Rule: v.Rule, Outcome: string(v.Outcome), Word: outcomeWord(v), Scenarios: v.Scenarios,
			Failures: v.Failures, Notes: v.Notes, FoundBy: v.FoundBy, Rerun: r.Rerun(v.Rule.ID),
		})
	}
	for _, sc := range r.Scenarios {
		out := summaryScene{
			Name: sc.Name, Where: FailedScenario{Result: sc}.Where(), Rule: sc.Rule.ID, Level: sc.Rule.Level, Outcome: sc.Outcome,
			Duration: ms(sc.Duration), Exchanges: len(sc.Exchanges), Note: sc.Note,
		}
		if sc.Err != nil {
			out.Error = sc.Err.Error()
		}
		if sc.Outcome == steps.Failed || sc.Outcome == steps.Errored {
			out.Rerun = r.Rerun(sc.Rule.ID)
			out.Heading = Heading(sc)
		}
		for _, f := range sc.Failures {
			sf := summaryFailure{
				Rule: f.Rule.ID, Level: f.Rule.Level, Requirement: f.Rule.Requirement,
				Expected: f.Expected, Actual: f.Actual, Details: f.Details,
			}
			if x := f.Exchange; x != nil {
				sf.Request, sf.Curl, sf.Violations = x.RequestLine(), x.Curl(), x.Violations
				if x.Status != 0 {
					sf.Response = x.ResponseLine()
				}
			}
			out.Failures = append(out.Failures, sf)
		}
		s.Scenarios = append(s.Scenarios, out)
	}
	return s
}

// badge is a small SVG badge: the spec and the run's standing.
func (r *Report) badge() []byte {
	word, colour := "non-conformant", "#c0392b"
	switch {
	case r.Partial():
		word, colour = "partial", "#7f8c8d"
	case r.ExitCode() == 0:
		word, colour = "conformant", "#2e8b57"
	case r.ExitCode() == 2:
		word, colour = "incomplete", "#d68910"
	}
	left := fmt.Sprintf("%s %s", r.SpecTitle, r.SpecVersion)
	lw, rw := 7*len(left)+12, 7*len(word)+12
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, lw+rw, template.HTMLEscapeString(left), word)
	fmt.Fprintf(&b, `<title>%s: %s</title>`, template.HTMLEscapeString(left), word)
	fmt.Fprintf(&b, `<rect width="%d" height="20" rx="3" fill="#555"/><rect x="%d" width="%d" height="20" rx="3" fill="%s"/>`, lw+rw, lw, rw, colour)
	fmt.Fprintf(&b, `<rect x="%d" width="4" height="20" fill="%s"/>`, lw, colour)
	fmt.Fprintf(&b, `<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">`)
	fmt.Fprintf(&b, `<text x="%d" y="14">%s</text><text x="%d" y="14">%s</text></g></svg>`+"\n", lw/2, template.HTMLEscapeString(left), lw+rw/2, word)
	return b.Bytes()
}

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
	idx := map[features.RuleID]int{}
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
	top.Name = cleanText(top.Name)
	for i := range top.Suites {
		for j := range top.Suites[i].Cases {
			c := &top.Suites[i].Cases[j]
			c.Name = cleanText(c.Name)
			for _, p := range []*junitProblem{c.Failure, c.Error, c.Skipped} {
				if p != nil {
					p.Message, p.Text = cleanText(p.Message), cleanText(p.Text)
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
func (r *Report) junitFailure(sc steps.Result, rule features.Rule) *junitProblem {
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

//go:embed report.html.tmpl
var reportTemplate string

var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"upper":       func(l features.Level) string { return strings.ToUpper(string(l)) },
	"failedOrErr": func(o steps.Outcome) bool { return o == steps.Failed || o == steps.Errored },
}).Parse(reportTemplate))
