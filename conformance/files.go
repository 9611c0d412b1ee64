package conformance

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/spec"
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
	// writeJUnit, the others by mdquote.Clean over the whole file, because
	// html/template passes invalid bytes, controls and overrides through.
	// Plantcheck's own text in them holds none of these, so the pass changes
	// only what came from the target.
	files := []struct {
		name string
		data []byte
	}{
		{SummaryJSON, append(js, '\n')},
		{SummaryMD, []byte(mdquote.Clean(md.String()))},
		{ReportHTML, []byte(mdquote.Clean(html.String()))},
		{BadgeSVG, []byte(mdquote.Clean(string(r.badge())))},
		{JUnitXML, junit.Bytes()},
	}
	var errs []error
	for _, f := range files {
		errs = append(errs, os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644))
	}
	return errors.Join(errs...)
}

// WriteCannotRun writes the reports of a run that could not be made
// (exit 2) into dir, creating it: summary.json and summary.md saying why,
// and junit.xml with one test case in error, so that a CI job that shows
// or uploads the reports shows the reason. err's text is plantcheck's,
// naming the user's settings; it is escaped all the same.
func WriteCannotRun(dir, target string, err error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	why := evidence.Text(evidence.Cut(err.Error(), 2<<10))
	now := time.Now()
	s := &summary{
		Target: target, Started: now, Ended: now, Scope: "none", Status: "could not run",
		Verdict: "COULD NOT RUN: " + why, ExitCode: 2, Error: why,
	}
	s.Plantcheck.Version = buildinfo.Version()
	s.Spec.SHA256 = digest(spec.Document())
	s.Features.SHA256 = featuresDigest()
	js, jerr := json.MarshalIndent(s, "", "  ")
	if jerr != nil {
		return jerr
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "# plantcheck: could not run\n\nThe run could not be made (exit status 2); no rule was judged.\n\n")
	md.WriteString(quoted.block(why, "text", ""))
	md.WriteString("\nRun `plantcheck run -h` for the flags.\n")
	var junit bytes.Buffer
	junit.WriteString(xml.Header)
	problem := junitProblem{Message: why, Type: "could not run", Text: why}
	doc := junitSuites{Name: "plantcheck: could not run", Tests: 1, Errors: 1, Time: "0.000", Suites: []junitSuite{{
		Name: "plantcheck", Tests: 1, Errors: 1, Time: "0.000",
		Cases: []junitCase{{Name: "the run could be made", Classname: "plantcheck", Time: "0.000", Error: &problem}},
	}}}
	enc := xml.NewEncoder(&junit)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	junit.WriteString("\n")
	var errs []error
	for name, data := range map[string][]byte{SummaryJSON: append(js, '\n'), SummaryMD: []byte(mdquote.Clean(md.String())), JUnitXML: junit.Bytes()} {
		errs = append(errs, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	return errors.Join(errs...)
}
