package run

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// hostileStrings are texts a target may send to be read as Markdown or HTML
// where summary.md is rendered, or to garble a report: with how a reader
// should see them (shown), and a problem the checks must find when summary.md
// writes them unquoted (unguarded).
var hostileStrings = []struct {
	name, text, shown, unguarded string
}{
	{"image", "![x](http://evil.example/p.png)", "", "<img"},
	{"link", "[click](http://evil.example)", "", "<a"},
	{"img tag", "<img src=x onerror=alert(1)>", "", "<img"},
	{"script", "<script>alert(1)</script>", "", "<script"},
	{"heading", "# Heading", "", "<h1>"},
	{"fence and heading", "```\n# fenced escape", "", "<h1>"},
	{"fence alone", "````", "", "<pre>"},
	{"code span", "`code`", "", "<code>"},
	{"autolink URL", "http://evil.example/auto", "", "<a"},
	{"autolink www", "www.evil.example", "", "<a"},
	{"autolink e-mail", "evil@evil.example", "", "<a"},
	{"pipe", "a|b", "", "Target"},
	{"backslash pipe", `a\|b`, "", "Target"},
	{"emphasis", "*em* ~~del~~", "", "<em>"},
	{"entity", "&lt;img&gt;", "", "Target"},
	{"spaces and backtick", " ` ", "", "Target"},
	{"setext", "text\n===", "", "<h1>"},
	{"escape sequence", "\x1b[2J", `\x1b[2J`, "control"},
	{"carriage return", "x\r# cr heading", `x\r# cr heading`, "control"},
	{"C1 control", "\u0085next", `\u0085next`, "control"},
	{"bidi override", "\u202e", `\u202e`, "control"},
	{"bidi isolate", "\u2066abc\u2069", `\u2066abc\u2069`, "control"},
	{"invalid UTF-8", "\xff\xfe invalid", "\uFFFD invalid", "not UTF-8"},
}

// shownAs is how a reader should see text s.
func shownAs(text, shown string) string {
	if shown != "" {
		return shown
	}
	return text
}

// hostileReport is a finished report whose every text from the target (and
// from the user: the URL, the tags, the CA file) is h: in failures, their
// evidence and exchange, a harness error, a note of an open rule and the
// reason of a skip.
func hostileReport(h string) *Report {
	rule := func(id string) rules.Rule {
		for _, r := range rules.Catalog {
			if string(r.ID) == id {
				return r
			}
		}
		panic("no rule " + id)
	}
	x := &steps.Sent{Exchange: exchange.Exchange{
		Method: "POST", URL: "http://127.0.0.1:1/plants?q=" + h, Header: http.Header{"Content-Type": {h}, "Accept": {h}}, Body: []byte(h),
		Status: 200, RespHeader: http.Header{"Content-Type": {h}}, RespBody: []byte(h), Duration: time.Millisecond,
	}}
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	r := &Report{
		Config: Config{BaseURL: h, CACert: h, Tags: h, Concurrency: 1, Seed: 7, Timeout: DefaultTimeout},
		Target: h, SpecTitle: "Plant Store API", SpecVersion: "1.0.0", Started: start, Ended: start.Add(time.Second),
		Scenarios: []steps.Result{
			{ID: "1", URI: "create_plant.feature", Name: "The Plant record carries the name that was sent",
				Rule: rule("CREATE-NAME"), Outcome: steps.Failed, Exchanges: []*steps.Sent{x},
				Failures:   []*steps.Failure{{Rule: rule("CREATE-NAME"), Expected: h, Actual: h, Details: []string{h, "validator: " + h}, Exchange: x}},
				Judgements: []judge.Result{{Rule: "CREATE-NAME", Judgement: judge.Judgement{Expected: h, Actual: h}}}},
			// A MUST rule broken in a SHOULD scenario: found by.
			{ID: "2", URI: "hostile_strings.feature", Name: "A tag from every category of the catalog of hostile strings is accepted and echoed exactly",
				Rule: rule("BODY-TAG-ANY"), Outcome: steps.Failed, Exchanges: []*steps.Sent{x},
				Failures:   []*steps.Failure{{Rule: rule("CREATE-TAG"), Expected: h, Actual: h, Exchange: x}},
				Judgements: []judge.Result{{Rule: "CREATE-TAG", Judgement: judge.Judgement{Expected: h, Actual: h}}}},
			{ID: "3", URI: "authentication.feature", Name: "A request without an Authorization header is rejected with an Error record",
				Rule: rule("AUTH-MISSING"), Outcome: steps.Errored, Err: &steps.HarnessError{Err: errors.New(h)}},
			{ID: "4", URI: "create_plant.feature", Name: "Whether an id already stored may be sent again is left open",
				Rule: rule("OPEN-REUSED-ID"), Outcome: steps.Passed, Note: h},
			{ID: "5", URI: "authentication.feature", Name: "A bearer token the service did not issue is rejected with an Error record",
				Rule: rule("AUTH-UNKNOWN"), Outcome: steps.Skipped, Note: h},
		},
	}
	r.finish()
	return r
}

// benignText has the lines of h, every other character an x: its report
// has the structure of h's (code spans where h's has them, code blocks
// where h's has them) and holds no markup at all.
func benignText(h string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return 'x'
	}, h)
}

// renderGFM renders Markdown as GitHub does: GFM (tables, autolinks,
// strikethrough, task lists), raw HTML allowed.
func renderGFM(t *testing.T, md []byte) string {
	t.Helper()
	var b bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(md, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var tagName = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)`)

// tagCounts counts the elements of rendered HTML by name. Text in it is
// escaped (&lt;), so every < before a letter opens an element.
func tagCounts(html string) map[string]int {
	n := map[string]int{}
	for _, m := range tagName.FindAllStringSubmatch(html, -1) {
		n[strings.ToLower(m[1])]++
	}
	return n
}

// ownTags are the elements plantcheck's own summary.md renders to: <br> is
// its own, in the rules table.
var ownTags = []string{"p", "strong", "code", "pre", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "h1", "h2", "h3", "br"}

// goldmarkEscape escapes text as goldmark writes it into HTML.
var goldmarkEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace

// markdownProblems lists what is wrong with md, a summary.md of
// hostileReport(h), whose rendering is rendered, against benign, the
// rendering of the report of benignText(h): an element that is not
// plantcheck's, or more or fewer of them than with benign text (a heading,
// a link, a table cell of the target's), text shown fewer than min times in
// its escaped form, bytes that are not UTF-8, a control or bidi override.
func markdownProblems(md []byte, rendered, benign, shown string, min int) []string {
	var out []string
	if !utf8.Valid(md) {
		out = append(out, "summary.md is not UTF-8")
	}
	if i := bytes.IndexFunc(md, mdquote.Hidden); i >= 0 {
		out = append(out, fmt.Sprintf("summary.md holds control or bidi character %q", []rune(string(md[i:]))[0]))
	}
	for _, bad := range []string{"<img", "<a ", "<a>", "<script", "<iframe", "<svg", "<h4", "<h5", "<h6"} {
		if strings.Contains(strings.ToLower(rendered), bad) {
			out = append(out, "rendered "+bad)
		}
	}
	got, want := tagCounts(rendered), tagCounts(benign)
	names := slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range []map[string]int{got, want} {
			for n := range m {
				if !seen[n] && !yield(n) {
					return
				}
				seen[n] = true
			}
		}
	})
	for _, n := range names {
		if !slices.Contains(ownTags, n) {
			out = append(out, fmt.Sprintf("rendered <%s>, not plantcheck's", n))
		}
		if got[n] != want[n] {
			out = append(out, fmt.Sprintf("rendered <%s> %d times, %d times with benign text", n, got[n], want[n]))
		}
	}
	if n := strings.Count(rendered, goldmarkEscape(shown)); n < min {
		out = append(out, fmt.Sprintf("%q not shown: %d times, want %d or more", shown, n, min))
	}
	// In the table the text is on one line, in one cell.
	cell := "<td>Target</td>\n<td><code>" + goldmarkEscape(strings.ReplaceAll(shown, "\n", `\n`)) + "</code></td>"
	if !strings.Contains(rendered, cell) {
		out = append(out, "Target row lacks "+cell)
	}
	return out
}

// minShown is how often a report of hostileReport shows the target's text
// whole: two failures' Expected and Actual, two details, the error, two
// notes.
const minShown = 9

// writeReport writes r's files into a new folder and returns it.
func writeReport(t *testing.T, r *Report) string {
	t.Helper()
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readReport(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMarkdownBenign checks the baseline the hostile reports are compared
// with: plantcheck's own summary.md renders no link (so that any link is
// the target's), its own three levels of heading, and shows the text.
func TestMarkdownBenign(t *testing.T) {
	t.Parallel()
	md := readReport(t, writeReport(t, hostileReport("benign")), SummaryMD)
	html := renderGFM(t, md)
	n := tagCounts(html)
	if n["a"] != 0 || n["img"] != 0 || n["h1"] != 1 || n["h2"] != 1 || n["h3"] != 3 || n["table"] != 2 {
		t.Errorf("benign summary.md renders %v:\n%s", n, md)
	}
	if c := strings.Count(html, "benign"); c < minShown {
		t.Errorf("benign text shown %d times, want %d or more:\n%s", c, minShown, md)
	}
}

func TestMarkdownQuotesTargetText(t *testing.T) {
	t.Parallel()
	for _, h := range hostileStrings {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			md := readReport(t, writeReport(t, hostileReport(h.text)), SummaryMD)
			benign := renderGFM(t, readReport(t, writeReport(t, hostileReport(benignText(h.text))), SummaryMD))
			rendered := renderGFM(t, md)
			for _, p := range markdownProblems(md, rendered, benign, shownAs(h.text, h.shown), minShown) {
				t.Error(p)
			}
			if t.Failed() {
				t.Logf("summary.md:\n%s\nrendered:\n%s", md, rendered)
			}
		})
	}
}

// TestMarkdownUnguarded shows that the checks above can fail: summary.md
// written with the target's text as it is (as it was before quoting) shows
// an image, a link, a script, a heading of the target's.
func TestMarkdownUnguarded(t *testing.T) {
	t.Parallel()
	unquoted := verdict.Quote{
		Span: func(s string) string { return s },
		Cell: func(s string) string { return s },
		Block: func(s, info, indent string) string {
			return indent + "```" + info + "\n" + s + "\n" + indent + "```\n"
		},
	}
	write := func(h string, q verdict.Quote) ([]byte, string) {
		var b bytes.Buffer
		hostileReport(h).Model().WriteMarkdown(&b, q)
		return b.Bytes(), renderGFM(t, b.Bytes())
	}
	for _, h := range hostileStrings {
		t.Run(h.name, func(t *testing.T) {
			_, benign := write(benignText(h.text), unquoted)
			md, rendered := write(h.text, unquoted)
			problems := markdownProblems(md, rendered, benign, shownAs(h.text, h.shown), minShown)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, h.unguarded) }) {
				t.Errorf("unquoted, the checks found %q, want one about %q\nrendered:\n%s", problems, h.unguarded, rendered)
			}
		})
	}
}

// TestReportFilesHostileText checks every file of a report of hostile
// text: valid UTF-8 with no control or bidi override where a person reads
// it, summary.json and junit.xml well-formed, and the text still there.
func TestReportFilesHostileText(t *testing.T) {
	t.Parallel()
	for _, h := range hostileStrings {
		t.Run(h.name, func(t *testing.T) {
			r := hostileReport(h.text)
			r.SpecTitle = h.text // the badge's only text of its own
			dir := writeReport(t, r)
			for _, name := range []string{SummaryJSON, SummaryMD, ReportHTML, BadgeSVG, JUnitXML} {
				b := readReport(t, dir, name)
				if !utf8.Valid(b) {
					t.Errorf("%s is not UTF-8", name)
				}
				// summary.json is for programs: encoding/json escapes C0
				// controls and leaves the rest as data.
				if i := bytes.IndexFunc(b, mdquote.Hidden); i >= 0 && name != SummaryJSON {
					t.Errorf("%s holds control or bidi character %q", name, []rune(string(b[i:]))[0])
				}
			}

			var s struct {
				Failures []struct {
					Error    string
					Evidence []struct{ Expected, Actual string }
				}
			}
			if err := json.Unmarshal(readReport(t, dir, SummaryJSON), &s); err != nil {
				t.Fatalf("summary.json: %v", err)
			}
			// encoding/json writes each invalid byte as a U+FFFD, as
			// converting to runes does, and keeps every other character.
			want := string([]rune(h.text))
			var expected []string
			for _, sc := range s.Failures {
				for _, f := range sc.Evidence {
					expected = append(expected, f.Expected)
				}
			}
			if len(expected) != 2 || expected[0] != want || expected[1] != want {
				t.Errorf("summary.json: expected %q, want %q twice", expected, want)
			}

			var j struct {
				Suites []struct {
					Cases []struct {
						Failure *struct {
							Message string `xml:"message,attr"`
							Text    string `xml:",chardata"`
						} `xml:"failure"`
						Error *struct {
							Message string `xml:"message,attr"`
						} `xml:"error"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(readReport(t, dir, JUnitXML), &j); err != nil {
				t.Fatalf("junit.xml: %v", err)
			}
			var failures, errs []string
			for _, su := range j.Suites {
				for _, c := range su.Cases {
					if c.Failure != nil {
						failures = append(failures, c.Failure.Message+"\n"+c.Failure.Text)
					}
					if c.Error != nil {
						errs = append(errs, c.Error.Message)
					}
				}
			}
			// Controls are shown escaped, not as encoding/xml's U+FFFD.
			shown := shownAs(h.text, h.shown)
			if len(failures) != 2 || len(errs) != 1 || !strings.Contains(failures[0], "expected:    "+shown) || !strings.Contains(errs[0], shown) {
				t.Errorf("junit.xml: failures %q, errors %q, want them to show %q", failures, errs, shown)
			}

			if err := xml.Unmarshal(readReport(t, dir, BadgeSVG), new(struct{})); err != nil {
				t.Errorf("badge.svg: %v", err)
			}
			html := strings.ToLower(string(readReport(t, dir, ReportHTML)))
			for _, bad := range []string{"<img", "<script", "<a ", "<h1>#"} {
				if strings.Contains(html, bad) {
					t.Errorf("report.html holds %s", bad)
				}
			}
		})
	}
}
