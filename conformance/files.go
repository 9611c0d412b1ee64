package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
