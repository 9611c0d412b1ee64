package verdict

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// hostile is a failing verdict whose target sent huge values: up to
// nRules rules broken in nBlocks blocks each, of nEvidence pieces of
// evidence, each value size bytes long.
func hostile(size, nRules, nBlocks, nEvidence int) *Verdict {
	v := &Verdict{Driver: Run, Target: "http://" + strings.Repeat("h", size) + ".example/plants"}
	v.Stamp("Plant Store API", "1.0.0")
	huge := strings.Repeat("`<img src=x>|", size/13)
	for _, r := range rules.Catalog {
		if r.Level == rules.Open || len(v.Rules) == nRules {
			continue
		}
		v.Rules = append(v.Rules, Rule{ID: r.ID, Level: r.Level, Requirement: r.Requirement, Outcome: Fail, Failures: 5, FoundBy: []string{huge}})
		for i := 0; i < nBlocks; i++ {
			b := Block{Heading: string(r.ID) + " block", Rule: r.ID, Level: r.Level, Side: "server", Outcome: Fail, Where: "x.feature:1", Rerun: "plantcheck run " + huge}
			for j := 0; j < nEvidence; j++ {
				b.Evidence = append(b.Evidence, Evidence{Rule: r.ID, Level: r.Level, Requirement: r.Requirement,
					Expected: huge, Actual: huge, Details: slices.Repeat([]string{huge}, 7),
					Request: huge + fmt.Sprint(j), Response: huge, Reproduce: "curl " + huge + fmt.Sprint(j)})
			}
			v.Failures = append(v.Failures, b)
		}
	}
	v.LikelyCause = huge
	v.Finish()
	return v
}

// TestShortSummaryBound: summary-short.md stays under MaxShortSummary
// bytes (a pull-request comment holds 65,536 characters) whatever the
// target sent, and still leads with the verdict, the failing rules and a
// block; summary.md keeps the values whole.
func TestShortSummaryBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ size, rules, blocks, evidence int }{
		// Each is far past the bound, and no larger than it needs to
		// be: every report file is written, 14 values per evidence.
		{10, 99, 5, 6},      // many short blocks
		{1 << 10, 99, 3, 3}, // many blocks of a KiB
		{64 << 10, 3, 2, 2}, // a few of 64 KiB
		{1 << 20, 1, 1, 1},  // one of a MiB
	} {
		size := tc.size
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			t.Parallel()
			v := hostile(size, tc.rules, tc.blocks, tc.evidence)
			dir := t.TempDir()
			if err := v.WriteFiles(dir); err != nil {
				t.Fatal(err)
			}
			short, err := os.ReadFile(filepath.Join(dir, SummaryShortMD))
			if err != nil {
				t.Fatal(err)
			}
			if len(short) >= MaxShortSummary {
				t.Errorf("summary-short.md is %d bytes, want under %d", len(short), MaxShortSummary)
			}
			s := string(short)
			if !strings.HasPrefix(s, "# plantcheck: non-conformant\n\n**NON-CONFORMANT") {
				t.Errorf("summary-short.md does not lead with the verdict:\n%.300s", s)
			}
			for _, want := range []string{"**Rules that failed**", "- ❌ **CREATE-200** (MUST)", "### ❌ 1) CREATE-200 block", "Expected:", "Every failure block"} {
				if !strings.Contains(s, want) {
					t.Errorf("summary-short.md lacks %q", want)
				}
			}
			// A value cut says how long it was: the reader has not the whole.
			if size > shortValue && !strings.Contains(s, "bytes in all)") {
				t.Errorf("summary-short.md cuts values of %d bytes without saying their size", size)
			}
			full, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
			if size >= 64<<10 && len(full) < 10*MaxShortSummary {
				t.Errorf("summary.md is %d bytes: it should keep every value whole", len(full))
			}
		})
	}
}

// TestShortSummaryUnbounded shows the bound can fail: the short summary's
// blocks with values uncut would not fit.
func TestShortSummaryUnbounded(t *testing.T) {
	t.Parallel()
	v := hostile(64<<10, 1, 1, 1)
	var b bytes.Buffer
	v.writeMarkdownBlock(&b, Quoted, v.shown()[0], 0)
	if b.Len() < MaxShortSummary {
		t.Fatalf("one whole block is %d bytes: the test's target is not hostile enough", b.Len())
	}
}

// TestRuleTableCellsShort: report.html's rule table keeps in its cells
// that never wrap (the result, the level, the count, the rule ID) a few
// words only, whatever the reasons and notes say, and every notes'
// text goes under the table; in the browser, at 1280 px, the table then
// fits and its rows are short (a Result cell that held the whole bcrypt
// note made the page 2,721 px wide and a row 5,685 px tall).
func TestRuleTableCellsShort(t *testing.T) {
	t.Parallel()
	long := "the token is shorter than the 72 bytes bcrypt reads: " + strings.Repeat("a long reason ", 40)
	v := &Verdict{Driver: Run, Target: "http://t.example/plants"}
	v.Stamp("Plant Store API", "1.0.0")
	v.Rules = []Rule{
		{ID: rules.AuthNearMiss, Level: rules.Must, Requirement: "r", Outcome: Pass, Scenarios: 13, Judged: 12, NotJudgedBecause: long, Notes: []string{long}},
		{ID: rules.Create200, Level: rules.Must, Requirement: "r", Outcome: NotJudged, Scenarios: 2, NotJudgedBecause: long},
		{ID: rules.CreateName, Level: rules.Must, Requirement: "r", Outcome: Fail, Failures: 3, FoundBy: []string{long}},
	}
	v.Finish()
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	css, _, _ := strings.Cut(string(page), "</style>")
	nowrap := regexp.MustCompile(`(?m)^([^{}\n]+)\{[^}]*white-space:\s*nowrap`)
	var classes []string
	for _, m := range nowrap.FindAllStringSubmatch(css, -1) {
		for _, sel := range strings.Split(m[1], ",") {
			if c, ok := strings.CutPrefix(strings.TrimSpace(sel), "td."); ok {
				classes = append(classes, c)
			}
		}
	}
	if !slices.Contains(classes, "result") {
		t.Fatalf("no nowrap cell class found in the stylesheet (%q): the test reads it wrong", classes)
	}
	table := string(page)[strings.Index(string(page), `<table id="rules">`):]
	table = table[:strings.Index(table, "</table>")]
	cell := regexp.MustCompile(`<td class="([^"]+)">(.*?)</td>`)
	tag := regexp.MustCompile(`<[^>]+>`)
	n := 0
	for _, m := range cell.FindAllStringSubmatch(table, -1) {
		if !slices.Contains(classes, m[1]) {
			continue
		}
		n++
		if text := tag.ReplaceAllString(m[2], ""); len(text) > 24 {
			t.Errorf("a cell that never wraps (td.%s) holds %d bytes: %.80q", m[1], len(text), text)
		}
	}
	if n == 0 {
		t.Fatal("no nowrap cell in the rule table: the test reads it wrong")
	}
	notes := string(page)[strings.Index(string(page), "</table>"):]
	for _, want := range []string{"judged in 12 of 13 scenarios: the token is shorter", "CREATE-200</span> (MUST) not judged: the token", "found broken by: the token", "noted: the token"} {
		if !strings.Contains(notes, want) {
			t.Errorf("under the rule table, no %q", want)
		}
	}
}

// TestExchangeOnce: a block whose pieces of evidence share one exchange
// shows it once, in every report.
func TestExchangeOnce(t *testing.T) {
	t.Parallel()
	v := &Verdict{Driver: Run, Target: "http://t.example/plants"}
	v.Stamp("Plant Store API", "1.0.0")
	e := Evidence{Rule: rules.Create200, Level: rules.Must, Expected: "200", Actual: "201", Request: "POST /plants ONE", Response: "201 RESP", Reproduce: "curl ONE"}
	d := e
	d.Rule, d.Expected = rules.ResponseDocumented, "documented"
	v.Rules = []Rule{{ID: rules.Create200, Level: rules.Must, Outcome: Fail, Failures: 1}}
	v.Failures = []Block{{Heading: "h", Rule: rules.Create200, Level: rules.Must, Side: "server", Outcome: Fail, Evidence: []Evidence{e, d}}}
	v.Scenarios = []Scenario{{Name: "s", Rule: rules.Create200, Level: rules.Must, Outcome: Fail, Failure: 1}}
	v.Finish()
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{SummaryMD, SummaryShortMD, ReportHTML, JUnitXML} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		for _, once := range []string{"POST /plants ONE", "201 RESP", "curl ONE"} {
			if n := strings.Count(string(b), once); n != 1 {
				t.Errorf("%s shows %q %d times, want once", f, once, n)
			}
		}
		if !strings.Contains(string(b), "the one above") {
			t.Errorf("%s does not say the exchange is the one above", f)
		}
	}
}

// TestOneOrder: the reports give the blocks in the console's order
// (Analysis.Server) with the console's numbers.
func TestOneOrder(t *testing.T) {
	t.Parallel()
	v := &Verdict{Driver: Run, Reference: true}
	v.Stamp("Plant Store API", "1.0.0")
	for i, id := range []rules.RuleID{rules.BodyNameAny, rules.AuthMissing, rules.BodyJSON, rules.AuthMissing, rules.Create200} {
		b := answered(id, 0, "", false)
		b.Heading, b.Outcome = fmt.Sprintf("block-%d", i), Fail
		if id == rules.BodyNameAny {
			b.Level = rules.Should
		}
		v.Failures = append(v.Failures, b)
	}
	var console strings.Builder
	v.WriteFailures(&console, TextOptions{Verbose: true}) // every block (the brief console shows a rule's first)
	want := regexp.MustCompile(`(?m)^\d+\) (?:block-\d)$`).FindAllString(console.String(), -1)
	if len(want) != 5 {
		t.Fatalf("console: %q", want)
	}
	var md bytes.Buffer
	v.WriteMarkdown(&md, Quoted)
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^### \S+ (\d+\) block-\d)$`).FindAllStringSubmatch(md.String(), -1) {
		got = append(got, m[1])
	}
	if !slices.Equal(got, want) {
		t.Errorf("summary.md's blocks %q, the console's %q", got, want)
	}
	var page bytes.Buffer
	if err := reportPage.Execute(&page, v); err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, m := range regexp.MustCompile(`<span class="n">(\d+\))</span> (block-\d)`).FindAllStringSubmatch(page.String(), -1) {
		got = append(got, m[1]+" "+m[2])
	}
	if !slices.Equal(got, want) {
		t.Errorf("report.html's blocks %q, the console's %q", got, want)
	}
}

// TestWordingOnEveryExit: every report of each exit status says what
// happened, in its words, and none says what did not: a run that could
// not be made names the spec and says it judged nothing, never "the run
// could be made", "conformant" or "incomplete".
func TestWordingOnEveryExit(t *testing.T) {
	t.Parallel()
	cannot := &Verdict{Driver: Run, Target: "http://127.0.0.1:1"}
	cannot.Stamp("", "")
	for _, tc := range []struct {
		name  string
		v     *Verdict
		write func(v *Verdict, dir string) error
		code  int
		want  map[string][]string
		never []string
	}{
		{"0 conformant", standing(Run, Pass, Counts{Scenarios: 1, Passed: 1}, Config{}), (*Verdict).WriteFiles, 0,
			map[string][]string{
				SummaryMD:      {"# plantcheck: certified conformant", "**CONFORMANT: every MUST rule passed** (exit status 0)"},
				SummaryShortMD: {"# plantcheck: certified conformant", "(exit status 0)", "MUST rules: 1 passed, 0 failed"},
				ReportHTML:     {"<h1>certified conformant</h1>"},
				BadgeSVG:       {">conformant</text>"},
				JUnitXML:       {"(certified conformant)"},
			}, []string{"NON-CONFORMANT", "could not run", "INCOMPLETE"}},
		{"1 non-conformant", standing(Run, Fail, Counts{Scenarios: 1, Failed: 1}, Config{}), (*Verdict).WriteFiles, 1,
			map[string][]string{
				SummaryMD:      {"# plantcheck: non-conformant", "**NON-CONFORMANT: a MUST rule failed** (exit status 1)"},
				SummaryShortMD: {"# plantcheck: non-conformant", "(exit status 1)", "**Rules that failed** (1)"},
				ReportHTML:     {"<h1>non-conformant</h1>"},
				BadgeSVG:       {">non-conformant</text>"},
				JUnitXML:       {"(non-conformant)"},
			}, []string{"certified", "could not run", "INCOMPLETE"}},
		{"2 incomplete", standing(Run, NotJudged, Counts{Scenarios: 1}, Config{}), (*Verdict).WriteFiles, 2,
			map[string][]string{
				SummaryMD:      {"# plantcheck: incomplete", "**INCOMPLETE: not judged: CREATE-200** (exit status 2)"},
				SummaryShortMD: {"# plantcheck: incomplete", "(exit status 2)", "**Rules not judged** that decide the verdict (1)"},
				ReportHTML:     {"<h1>incomplete</h1>"},
				BadgeSVG:       {">incomplete</text>"},
				JUnitXML:       {"(incomplete)"},
			}, []string{"certified", "could not run", "NON-CONFORMANT"}},
		{"2 could not run", cannot, func(v *Verdict, dir string) error { return v.WriteCannotRun(dir, "the target cannot be reached") }, 2,
			map[string][]string{
				SummaryMD:      {"# plantcheck: could not run", "**COULD NOT RUN** (exit status 2): plantcheck judged no rule", "| Spec | Plant Store API 1.0.0 "},
				SummaryShortMD: {"# plantcheck: could not run", "the target cannot be reached", "| Spec | Plant Store API 1.0.0 "},
				ReportHTML:     {"<h1>could not run</h1>", "<title>plantcheck: could not run (Plant Store API 1.0.0)</title>", "no rule was judged"},
				BadgeSVG:       {">Plant Store API 1.0.0 (plantcheck ", ">could not run</text>"},
				JUnitXML:       {`<testsuites name="plantcheck: Plant Store API 1.0.0 (could not run)"`, `<testcase name="plantcheck could not run"`},
			}, []string{"could be made", "certified", "conformant", "incomplete", "INCOMPLETE", "| Scenarios |", "## Failures", "| Rule |", "<h2>Rules</h2>", "plantcheck:   ("}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := tc.write(tc.v, dir); err != nil {
				t.Fatal(err)
			}
			if tc.v.ExitCode != tc.code {
				t.Fatalf("exit %d, want %d", tc.v.ExitCode, tc.code)
			}
			for file, wants := range tc.want {
				b, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range wants {
					if !strings.Contains(string(b), w) {
						t.Errorf("%s lacks %q:\n%.1500s", file, w, b)
					}
				}
				text := string(b)
				if file == ReportHTML { // the words, not the stylesheet's classes
					_, body, _ := strings.Cut(text, "</style>")
					text = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(body, "")
				}
				for _, n := range tc.never {
					if strings.Contains(text, n) {
						t.Errorf("%s says %q:\n%.1500s", file, n, b)
					}
				}
			}
		})
	}
}

// TestReportShowsStrength: report.html gives each rule of its table the
// mutants that break it the suite caught, or "no mutant", and the total
// with its day and version among the facts, escaped; a verdict that
// carries no strength (one written before it was measured) shows neither.
func TestReportShowsStrength(t *testing.T) {
	t.Parallel()
	withRules := func(f *strength.Figures) *Verdict {
		v := standing(Run, Pass, Counts{Scenarios: 1, Passed: 1}, Config{})
		v.Rules = nil
		for _, r := range rules.Catalog {
			v.Rules = append(v.Rules, Rule{ID: r.ID, Level: r.Level, Requirement: r.Requirement, Outcome: Pass})
		}
		v.Strength = f
		return v
	}
	carried, err := strength.Current()
	if err != nil {
		t.Fatal(err)
	}
	hostileFigures := &strength.Figures{Measured: "<b>2026</b>", Plantcheck: `v1 <script>alert("x")</script>`, Mutants: 3, Caught: 2,
		Rules: []strength.Rule{{ID: rules.AuthNearMiss, Mutants: 2, Caught: 1}, {ID: rules.Create200, Mutants: 1, Caught: 1}}}
	tests := []struct {
		name    string
		figures *strength.Figures
		want    []string // in the page
		notWant []string
	}{
		{"the carried figures", carried, []string{
			"<dt>Suite strength</dt><dd>" + template.HTMLEscapeString(carried.Line()) + "</dd>", "<th title=", ">Mutants caught</th>"}, nil},
		{"a survivor and hostile text", hostileFigures, []string{
			"<dt>Suite strength</dt><dd>2 of 3 mutants caught, selftest of &lt;b&gt;2026&lt;/b&gt;, plantcheck v1 &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</dd>",
			`<td class="short gap">1 of 2</td>`, `<td class="short">1 of 1</td>`, `<td class="short gap">no mutant</td>`},
			[]string{"<script>", "<b>"}},
		{"no strength carried", nil, nil, []string{"Suite strength", "Mutants caught", "no mutant"}},
	}
	row := regexp.MustCompile(`<tr class="[^"]*" data-rule="([^"]+)">(.*?)</tr>`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := withRules(tt.figures).WriteFiles(dir); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, ReportHTML))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("report.html lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(page, w) {
					t.Errorf("report.html has %q", w)
				}
			}
			table := page[strings.Index(page, `<table id="rules">`):]
			table = table[:strings.Index(table, "</table>")]
			rows := row.FindAllStringSubmatch(table, -1)
			if len(rows) != len(rules.Catalog) {
				t.Fatalf("the rules table has %d rows, want %d", len(rows), len(rules.Catalog))
			}
			if tt.figures == nil {
				return
			}
			for _, m := range rows {
				want := strength.NoMutant
				if r, ok := tt.figures.Rule(rules.RuleID(m[1])); ok {
					want = fmt.Sprintf("%d of %d", r.Caught, r.Mutants)
				}
				if !strings.Contains(m[2], `">`+want+`</td>`) {
					t.Errorf("rule %s's row lacks its strength %q: %s", m[1], want, m[2])
				}
			}
		})
	}
}
