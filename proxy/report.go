package proxy

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/htmlpage"
	"github.com/plantcheck/plantcheck/internal/mdquote"
)

// WriteReports writes the verdict into dir (created if missing), the files
// `plantcheck run` writes: summary.json (everything, for machines),
// summary.md (for a CI job summary or a pull-request comment), report.html
// (for a person), badge.svg (the outcome in a word) and junit.xml (a test
// suite per side, a test per rule). Every string a client or the service
// sent is already redacted, bounded and escaped in the Verdict; summary.md
// puts each in a code span or fenced block it cannot close, report.html
// goes through html/template, and both it and the badge are made valid
// UTF-8 without controls or bidirectional overrides, as run's are.
func (v *Verdict) WriteReports(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create the report folder: %w", err)
	}
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode summary.json: %w", err)
	}
	junit, err := v.junit()
	if err != nil {
		return fmt.Errorf("encode junit.xml: %w", err)
	}
	var html bytes.Buffer
	if err := reportPage.Execute(&html, v); err != nil {
		return fmt.Errorf("write report.html: %w", err)
	}
	var errs []error
	for name, data := range map[string][]byte{
		"summary.json": append(js, '\n'),
		"summary.md":   v.markdown(),
		"report.html":  []byte(mdquote.Clean(html.String())),
		"badge.svg":    []byte(mdquote.Clean(string(v.badge()))),
		"junit.xml":    junit,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

//go:embed report.html.tmpl
var reportTemplate string

// reportPage is report.html: the verdict, the server-side failures with
// their evidence, the rule table, the client-side groups.
var reportPage = template.Must(template.New("report").Funcs(htmlpage.Funcs()).Funcs(template.FuncMap{
	"standing":     (*Verdict).standing,
	"verdictClass": func(v *Verdict) string { return standings[v.Outcome].class },
	"ruleClass":    RuleResult.class,
	"ruleWord":     RuleResult.word,
	"lower":        strings.ToLower,
	"plural":       plural,
	"more":         func(n int64, kept []Failure) int64 { return n - int64(len(kept)) },
}).Parse(reportTemplate))

// standings are the verdict's outcomes as report.html and the badge show
// them: a word or two, the page's class, the badge's colour.
var standings = map[string]struct{ word, class, colour string }{
	"no-violation":   {"no violation seen", "ok", htmlpage.Pass},
	"non-conformant": {"non-conformant", "bad", htmlpage.Fail},
	"clients-failed": {"clients failed", "incomplete", htmlpage.Warn},
	"nothing-judged": {"nothing judged", "partial", htmlpage.Neutral},
}

func (v *Verdict) standing() string { return standings[v.Outcome].word }

// badge is a small SVG badge: the spec, seen through traffic, and the
// verdict's outcome.
func (v *Verdict) badge() []byte {
	s := standings[v.Outcome]
	return htmlpage.Badge(v.SpecTitle+" "+v.SpecVersion+" traffic", s.word, s.colour)
}

// class is a rule's row class in report.html, after its result.
func (r RuleResult) class() string {
	return map[string]string{"not judged": "skipped", "fail": "failed", "pass": "passed"}[r.word()]
}

// word is a rule's result in report.html.
func (r RuleResult) word() string {
	switch {
	case r.NotJudged != "":
		return "not judged"
	case r.Failed > 0:
		return "fail"
	}
	return "pass"
}

// markdown writes summary.md. Only plantcheck's own text (rule IDs,
// levels, counts, requirements, reasons) is written as Markdown; what
// traffic carried goes in code spans and fenced blocks.
func (v *Verdict) markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# plantcheck proxy: %s\n\n", mdEscape(strings.TrimPrefix(v.Line, "VERDICT: ")))
	fmt.Fprintf(&b, "- Upstream: %s\n", mdquote.Span(v.Upstream))
	fmt.Fprintf(&b, "- From %s to %s; spec %s; plantcheck %s\n", v.Started.UTC().Format(time.RFC3339), v.Ended.UTC().Format(time.RFC3339),
		mdEscape(v.SpecVersion), mdEscape(v.Plantcheck))
	fmt.Fprintf(&b, "- Exchanges: %d; of `POST /plants` judged: %d (%d in part); outside the document: %d; whose client went away: %d; whose answer broke off: %d\n",
		v.Exchanges, v.Judged, v.Partly, v.Outside, v.Gone, v.Broken)
	for _, k := range slices.Sorted(maps.Keys(v.Own)) {
		fmt.Fprintf(&b, "- Answered by the proxy itself (`%s`, not the service's): %d\n", k, v.Own[k])
	}
	for _, c := range v.Unjudged {
		fmt.Fprintf(&b, "- Not judged in %s: %s\n", plural(c.N, "exchange"), mdquote.Span(c.Reason))
	}
	fmt.Fprintf(&b, "- Server-side violations: %d; client requests that broke the document: %d\n\n", v.ServerViolations, v.ClientRequests)

	b.WriteString("| Rule | Level | Judged | Passed | Failed | Note |\n|---|---|---:|---:|---:|---|\n")
	for _, r := range v.Rules {
		note := ""
		if r.NotJudged != "" {
			note = "not judged: " + mdEscape(r.NotJudged)
		}
		if r.NotJudged != "" {
			fmt.Fprintf(&b, "| %s | %s | | | | %s |\n", r.ID, r.Level, note)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s |\n", r.ID, r.Level, r.Judged, r.Passed, r.Failed, note)
	}
	n := 0
	for _, r := range v.Rules {
		if len(r.Failures) == 0 {
			continue
		}
		if n == 0 {
			b.WriteString("\n## Server-side failures\n\n")
		}
		for _, f := range r.Failures {
			n++
			fmt.Fprintf(&b, "%d. **%s** (%s) %s\n", n, r.ID, r.Level, mdEscape(r.Requirement))
			mdFailure(&b, f)
		}
		if more := r.Failed - int64(len(r.Failures)); more > 0 {
			fmt.Fprintf(&b, "\n   And %d more failures of %s, counted, not kept.\n\n", more, r.ID)
		}
	}
	if len(v.Client) > 0 {
		fmt.Fprintf(&b, "\n## Client-side: %d requests broke the document\n\n", v.ClientRequests)
		b.WriteString("| Rule | Requests |\n|---|---:|\n")
		for _, g := range v.Client {
			fmt.Fprintf(&b, "| %s | %d |\n", mdEscape(g.Rule), g.Requests)
		}
		b.WriteString("\n")
		for _, g := range v.Client {
			for _, f := range g.Failures {
				n++
				fmt.Fprintf(&b, "%d. client request, **%s**\n", n, mdEscape(g.Rule))
				mdFailure(&b, f)
			}
		}
	}
	fmt.Fprintf(&b, "\n%s\n", mdquote.Span(v.Line))
	return b.Bytes()
}

func mdFailure(b *bytes.Buffer, f Failure) {
	fmt.Fprintf(b, "   - Expected: %s\n", mdquote.Span(f.Expected))
	fmt.Fprintf(b, "   - Actual: %s\n", mdquote.Span(f.Actual))
	for _, d := range f.Details {
		fmt.Fprintf(b, "   - %s\n", mdquote.Span(d))
	}
	fmt.Fprintf(b, "   - Request: %s\n", mdquote.Span(f.Request))
	fmt.Fprintf(b, "   - Response: %s\n", mdquote.Span(f.Response))
	if f.Reproduce != "" {
		b.WriteString("   - Reproduce:\n\n")
		b.WriteString(mdquote.Block(f.Reproduce, "sh", "     "))
	}
	b.WriteString("\n")
}

// mdEscape escapes plantcheck's own text for Markdown, where it holds a
// character Markdown reads (a rule's requirement quotes, a reason names a
// flag).
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]<>()#+!|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// The JUnit schema, as CI systems read it.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Failure   *junitMessage `xml:"failure,omitempty"`
		Skipped   *junitMessage `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitMessage struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
)

// junit writes junit.xml: a suite "server" with a test per rule (failed,
// passed, or skipped with the reason it is not judged), and a suite
// "client" with a test per way requests broke the document, failed only
// under --strict-clients.
func (v *Verdict) junit() ([]byte, error) {
	server := junitSuite{Name: "plantcheck proxy: server"}
	for _, r := range v.Rules {
		c := junitCase{Name: fmt.Sprintf("%s (%s)", r.ID, r.Level), ClassName: "server." + r.ID}
		switch {
		case r.NotJudged != "":
			c.Skipped = &junitMessage{Message: "not judged: " + r.NotJudged}
			server.Skipped++
		case r.Failed > 0 && (r.Level == "MUST" || v.Options.Strict):
			c.Failure = &junitMessage{Message: fmt.Sprintf("%d of %d exchanges failed", r.Failed, r.Judged), Text: failureText(r.Failures)}
			server.Failures++
		default:
			c.SystemOut = fmt.Sprintf("%d exchanges judged, %d passed, %d failed", r.Judged, r.Passed, r.Failed)
			if r.Failed > 0 {
				c.SystemOut += "\n" + failureText(r.Failures)
			}
		}
		server.Cases = append(server.Cases, c)
	}
	server.Tests = len(server.Cases)
	client := junitSuite{Name: "plantcheck proxy: client"}
	for _, g := range v.Client {
		c := junitCase{Name: g.Rule, ClassName: "client." + g.Rule}
		msg := fmt.Sprintf("%d client requests broke the document", g.Requests)
		if v.Options.StrictClients {
			c.Failure = &junitMessage{Message: msg, Text: failureText(g.Failures)}
			client.Failures++
		} else {
			c.SystemOut = msg + " (reported; fails only with --strict-clients)\n" + failureText(g.Failures)
		}
		client.Cases = append(client.Cases, c)
	}
	if len(client.Cases) == 0 {
		client.Cases = append(client.Cases, junitCase{Name: "client requests keep the document", ClassName: "client.document",
			SystemOut: "no client request broke the document"})
	}
	client.Tests = len(client.Cases)
	all := junitSuites{Name: "plantcheck proxy", Suites: []junitSuite{server, client}}
	for _, s := range all.Suites {
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
	}
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

func failureText(fs []Failure) string {
	var b strings.Builder
	for i, f := range fs {
		fmt.Fprintf(&b, "%d) expected: %s\n   actual: %s\n", i+1, f.Expected, f.Actual)
		for _, d := range f.Details {
			fmt.Fprintf(&b, "   - %s\n", d)
		}
		fmt.Fprintf(&b, "   request: %s\n   response: %s\n", f.Request, f.Response)
		if f.Reproduce != "" {
			fmt.Fprintf(&b, "   reproduce: %s\n", f.Reproduce)
		}
	}
	return b.String()
}
