package run

import (
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// junitCases reads the names of junit.xml's test cases, sorted.
func junitCases(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, JUnitXML))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("junit.xml: %v", err)
	}
	var names []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			names = append(names, c.Name)
		}
	}
	slices.Sort(names)
	return names
}

// TestJUnitSameCases: junit.xml holds the same test cases, one a scenario,
// whether the run passes or fails, and whatever failed: a rule another
// rule's scenario found broken is in that scenario's failure, not a case
// of its own (CI test history would see tests appear and vanish).
func TestJUnitSameCases(t *testing.T) {
	t.Parallel()
	_, _, refDir := shared(t, sharedReference)
	want := junitCases(t, refDir)
	if len(want) == 0 || slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, "found by") }) {
		t.Fatalf("the reference run's cases: %q", want)
	}
	if dup := slices.Compact(slices.Clone(want)); len(dup) != len(want) {
		t.Errorf("the reference run has %d cases of %d names: a name is not unique", len(want), len(dup))
	}
	for _, name := range []string{"status-201", "drop-tag", "html-escape"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, _, dir := shared(t, name)
			got := junitCases(t, dir)
			if !slices.Equal(got, want) {
				for _, g := range got {
					if !slices.Contains(want, g) {
						t.Errorf("a case the passing run does not have: %q", g)
					}
				}
				t.Errorf("%d cases, want the passing run's %d", len(got), len(want))
			}
		})
	}
}

// TestOneNumbering: the console, summary.md, report.html and junit.xml
// number and order the failure blocks alike, on real failing runs.
func TestOneNumbering(t *testing.T) {
	t.Parallel()
	// The console wraps a long heading onto lines indented by six.
	console := regexp.MustCompile(`(?m)^(\d+)\) (.*(?:\n {6}\S.*)*)$`)
	md := regexp.MustCompile(`(?m)^### \S+ (\d+)\) (.*)$`)
	htmlH := regexp.MustCompile(`<h4><span class="n">(\d+)\)</span> (.*)</h4>`)
	junit := regexp.MustCompile(`message="failure (\d+)\) `)
	for _, name := range []string{"status-201", "drop-tag"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, out, dir := shared(t, name)
			read := func(f string) string {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			mdBlocks := map[string]string{}
			var order []string
			for _, m := range md.FindAllStringSubmatch(read(SummaryMD), -1) {
				mdBlocks[m[1]] = m[2]
				order = append(order, m[1])
			}
			for i, n := range order {
				if want := strconv.Itoa(i + 1); n != want {
					t.Fatalf("summary.md's block %d is numbered %s", i+1, n)
				}
			}
			shown := console.FindAllStringSubmatch(out, -1)
			if len(shown) == 0 || len(mdBlocks) == 0 {
				t.Fatalf("no numbered block: console %d, summary.md %d", len(shown), len(mdBlocks))
			}
			for _, c := range shown {
				heading := strings.ReplaceAll(c[2], "\n      ", " ")
				if got := mdBlocks[c[1]]; got != heading {
					t.Errorf("console's block %s is %q, summary.md's %q", c[1], heading, got)
				}
			}
			page := read(ReportHTML)
			hs := htmlH.FindAllStringSubmatch(page, -1)
			if len(hs) != len(order) {
				t.Errorf("report.html has %d blocks, summary.md %d", len(hs), len(order))
			}
			// report.html groups the blocks by rule and folds a repeated
			// kind of answer under the first: each block once, with its
			// number and heading, the one order kept within each part.
			seen := map[string]bool{}
			last := 0
			for _, h := range hs {
				n, _ := strconv.Atoi(h[1])
				if seen[h[1]] {
					t.Errorf("report.html shows block %s twice", h[1])
				}
				seen[h[1]] = true
				if got, want := html2text(h[2]), mdBlocks[h[1]]; got != want {
					t.Errorf("report.html's block %s is %q, summary.md's %q", h[1], got, want)
				}
				if n < last && !strings.Contains(page[:strings.Index(page, h[0])], `<details class="folded">`) {
					t.Errorf("report.html's block %d comes after block %d, outside any fold", n, last)
				}
				last = n
			}
			x := read(JUnitXML)
			for _, m := range junit.FindAllStringSubmatch(x, -1) {
				if _, ok := mdBlocks[m[1]]; !ok {
					t.Errorf("junit.xml names failure %s), which summary.md does not have", m[1])
				}
			}
			if n := len(junit.FindAllString(x, -1)); n != len(order) {
				t.Errorf("junit.xml numbers %d failures, summary.md has %d blocks", n, len(order))
			}
		})
	}
}

// TestReportsLeadWithWhatToFix: the common cause and the list of what to
// fix, which the console leads with, are in every report too: CI users
// read summary.md in the job summary, not the console.
func TestReportsLeadWithWhatToFix(t *testing.T) {
	t.Parallel()
	_, console, dir := shared(t, "status-201")
	for _, want := range []string{"COMMON CAUSE: ", "came back with status 201 Created", "To fix: ", "expected status 200 with a Plant record; got status 201"} {
		if !strings.Contains(console, want) {
			t.Fatalf("the console lacks %q:\n%s", want, console)
		}
	}
	for _, f := range []string{SummaryJSON, SummaryMD, "summary-short.md", ReportHTML, JUnitXML} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"came back with status 201 Created", "expected status 200 with a Plant record; got status 201"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s lacks %q, which the console says", f, want)
			}
		}
	}
	// report.html leads with what to fix, then the rule table, then the
	// blocks by rule, the repeats of a kind of answer folded.
	b, err := os.ReadFile(filepath.Join(dir, ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	at := func(s string) int {
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("report.html lacks %q", s)
		}
		return i
	}
	if fix, table, failures := at(`id="to-fix"`), at(`id="rules"`), at(`id="failures"`); fix > table || table > failures {
		t.Errorf("report.html's order: To fix at %d, the rule table at %d, the failures at %d; want them in that order", fix, table, failures)
	}
	at(`<h3 class="group" data-rule="CREATE-200">CREATE-200 (MUST): `)
	if folded := page[at(`<details class="folded">`):]; !strings.Contains(folded[:strings.Index(folded, "</summary>")], "201 application/json ×") {
		t.Errorf("report.html's first fold does not count its 201 answers: %.200s", folded)
	}
}

// html2text reads the text of a heading of report.html as summary.md
// writes it.
func html2text(s string) string {
	return html.UnescapeString(s)
}
