package history

import (
	"bytes"
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/htmlpage"
	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// The files compare writes into its folder, beside a badge for each
// implementation (BadgeFile).
const (
	CompareHTML = "compare.html"
	CompareMD   = "compare.md"
	CompareJSON = "compare.json"
)

// The results of a cell of the comparison: a rule in the runs of one
// implementation.
const (
	CellPass      = "pass"
	CellFail      = "fail"
	CellNotJudged = "not judged"
	CellNoted     = "noted"
	CellNotRun    = "not run"
	// CellUnstable: the runs of one implementation disagree on the rule.
	CellUnstable = "unstable"
)

// CompareInput is one verdict to compare: the implementation it is of,
// the file it was read from, and the report beside it, if known (a link
// from the page: a path relative to the page, or "").
type CompareInput struct {
	Name, File, Report string
	Verdict            *verdict.Verdict
}

// Implementation is one implementation of the comparison: its runs'
// files and reports, its last run's standing, and its badge's file.
type Implementation struct {
	Name     string   `json:"name"`
	Files    []string `json:"files"`
	Reports  []string `json:"reports"`
	Runs     int      `json:"runs"`
	Status   string   `json:"status"`
	Verdict  string   `json:"verdict"`
	ExitCode int      `json:"exitCode"`
	// Standing says the status and the exit status in words, a baseline
	// that turned a non-conformant run's exit status to 0 said plainly:
	// "non-conformant (exit 0)" alone reads as a contradiction, and a
	// reader may stop at its first word.
	Standing string `json:"standing"`
	Badge    string `json:"badge"`
	// Pass, Fail, NotJudged and Unstable count its cells.
	Pass      int `json:"pass"`
	Fail      int `json:"fail"`
	NotJudged int `json:"notJudged"`
	Unstable  int `json:"unstable"`
	last      *verdict.Verdict
}

// Cell is one rule in the runs of one implementation.
type Cell struct {
	Result string `json:"result"`
	// Runs is the rule's result in each run, in the order given.
	Runs []string `json:"runs"`
	// Failure is the number of the first failure block citing the rule
	// in the first run it failed in (0: none), Link where it is (the
	// report's page, when known; "" else).
	Failure int    `json:"failure"`
	Link    string `json:"link"`
}

// Row is one rule of the catalog across the implementations.
type Row struct {
	ID          rules.RuleID `json:"id"`
	Level       rules.Level  `json:"level"`
	Requirement string       `json:"requirement"`
	Cells       []Cell       `json:"cells"`
}

// Comparison is one table of rules by implementations.
type Comparison struct {
	Spec            verdict.SpecID   `json:"spec"`
	Notes           []string         `json:"notes"`
	Implementations []Implementation `json:"implementations"`
	Rules           []Row            `json:"rules"`
}

// CompareAll puts verdicts of implementations in one table: the inputs of
// one name are runs of one implementation, in the order given; the
// implementations are in the order their first run is given. Verdicts
// judged by different documents are refused (ErrNotComparable);
// different plantcheck versions are said in Notes.
func CompareAll(in []CompareInput) (*Comparison, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("%w: no verdict to compare", ErrNotComparable)
	}
	first := in[0].Verdict
	c := &Comparison{Notes: []string{}, Implementations: []Implementation{}, Rules: []Row{}}
	c.Spec.Title, c.Spec.Version, c.Spec.SHA256 = evidence.Text(first.Spec.Title), evidence.Text(first.Spec.Version), evidence.Text(first.Spec.SHA256)
	runs := map[string][]CompareInput{}
	var versions []string
	for _, x := range in {
		if x.Verdict.Spec.SHA256 != first.Spec.SHA256 {
			return nil, fmt.Errorf("%w: %s judged by the spec %s %s (sha256 %.12s…), %s by %s %s (sha256 %.12s…)", ErrNotComparable,
				evidence.Text(x.File), evidence.Text(x.Verdict.Spec.Title), evidence.Text(x.Verdict.Spec.Version), evidence.Text(x.Verdict.Spec.SHA256),
				evidence.Text(in[0].File), c.Spec.Title, c.Spec.Version, c.Spec.SHA256)
		}
		name := evidence.Text(x.Name)
		if _, ok := runs[name]; !ok {
			c.Implementations = append(c.Implementations, Implementation{Name: name, Files: []string{}, Reports: []string{}})
		}
		runs[name] = append(runs[name], x)
		if v := evidence.Text(x.Verdict.Plantcheck.Version) + " (features " + evidence.Text(evidence.Cut(x.Verdict.Features.SHA256, 12)) + ")"; !slices.Contains(versions, v) {
			versions = append(versions, v)
		}
	}
	if len(versions) > 1 {
		c.Notes = append(c.Notes, "made by different suites: plantcheck "+strings.Join(versions, ", ")+": their scenarios and judgements may differ")
	}
	badges := map[string]bool{}
	for i := range c.Implementations {
		im := &c.Implementations[i]
		for _, x := range runs[im.Name] {
			im.Files = append(im.Files, evidence.Text(x.File))
			im.Reports = append(im.Reports, evidence.Text(x.Report))
		}
		last := runs[im.Name][len(runs[im.Name])-1].Verdict
		im.Runs, im.last = len(runs[im.Name]), last
		im.Status, im.Verdict, im.ExitCode = evidence.Text(last.Status), evidence.Text(last.Verdict), last.ExitCode
		im.Standing = standing(im.Status, im.ExitCode, last.Baseline != nil)
		im.Badge = badgeFile(im.Name, badges)
	}
	for _, r := range rules.Catalog {
		row := Row{ID: r.ID, Level: r.Level, Requirement: r.Requirement, Cells: []Cell{}}
		for i := range c.Implementations {
			im := &c.Implementations[i]
			cell := Cell{Runs: []string{}}
			for _, x := range runs[im.Name] {
				word, n := cellOf(x.Verdict, r)
				cell.Runs = append(cell.Runs, word)
				if n > 0 && cell.Failure == 0 {
					cell.Failure = n
					if rep := evidence.Text(x.Report); rep != "" {
						cell.Link = rep + fmt.Sprintf("#failure-%d", n)
					}
				}
			}
			cell.Result = cell.Runs[0]
			if slices.ContainsFunc(cell.Runs, func(w string) bool { return w != cell.Runs[0] }) {
				cell.Result = CellUnstable
			}
			if n := map[string]*int{CellPass: &im.Pass, CellFail: &im.Fail, CellNotJudged: &im.NotJudged, CellUnstable: &im.Unstable}[cell.Result]; n != nil {
				*n++
			}
			row.Cells = append(row.Cells, cell)
		}
		c.Rules = append(c.Rules, row)
	}
	return c, nil
}

// cellOf is rule r's result in v, and the number of the first of v's
// service's failure blocks that cites it (0: none).
func cellOf(v *verdict.Verdict, r rules.Rule) (string, int) {
	word := string(ruleOutcome(v, r.ID, r.Level))
	if word == string(verdict.Skip) {
		word = CellNotRun
	}
	if word != CellFail {
		return word, 0
	}
	n := 0
	for _, b := range v.Failures {
		if b.Side == "client" || b.Outcome != verdict.Fail {
			continue
		}
		cites := b.Rule == r.ID || slices.ContainsFunc(b.Evidence, func(e verdict.Evidence) bool { return e.Rule == r.ID })
		if cites && b.Number > 0 && (n == 0 || b.Number < n) {
			n = b.Number
		}
	}
	return word, n
}

// badgeFile is the name of an implementation's badge: badge-NAME.svg, the
// name's letters and digits kept, made unique among taken.
func badgeFile(name string, taken map[string]bool) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	slug := cmp.Or(strings.Trim(evidence.Cut(b.String(), 40), "-"), "implementation")
	file := "badge-" + slug + ".svg"
	for i := 2; taken[file]; i++ {
		file = fmt.Sprintf("badge-%s-%d.svg", slug, i)
	}
	taken[file] = true
	return file
}

//go:embed compare.html.tmpl
var compareTemplate string

var comparePage = template.Must(template.New("compare").Funcs(htmlpage.Funcs()).Funcs(template.FuncMap{
	"upper":     verdict.Upper,
	"cellClass": func(s string) string { return strings.ReplaceAll(s, " ", "-") },
	"mark":      cellMark,
	"runsOf":    runsOf,
	"add":       func(a, b int) int { return a + b },
}).Parse(compareTemplate))

// cellMark is a cell's result as a mark and a word, readable without
// colour.
func cellMark(result string) string {
	marks := map[string]string{CellPass: "✓ pass", CellFail: "✗ FAIL", CellNotJudged: "? not judged", CellNoted: "• noted", CellUnstable: "≈ unstable"}
	return cmp.Or(marks[result], "– not run")
}

// runsOf says a cell's runs in a few words ("2 pass, 1 fail"); "" for a
// single run.
func runsOf(c Cell) string {
	if len(c.Runs) < 2 {
		return ""
	}
	var order []string
	n := map[string]int{}
	for _, w := range c.Runs {
		if n[w] == 0 {
			order = append(order, w)
		}
		n[w]++
	}
	var parts []string
	for _, w := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[w], w))
	}
	return strings.Join(parts, ", ")
}

// WriteHTML writes the comparison as a page a team can publish: no
// script, everything read from the files escaped by html/template.
func (c *Comparison) WriteHTML(w io.Writer) error {
	var b bytes.Buffer
	if err := comparePage.Execute(&b, c); err != nil {
		return err
	}
	_, err := io.WriteString(w, mdquote.Clean(b.String()))
	return err
}

// WriteMarkdown writes the comparison as one Markdown table, every name
// and link read from the files quoted with q.
func (c *Comparison) WriteMarkdown(w io.Writer, q verdict.Quote) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s %s: %s compared\n\n", c.Spec.Title, c.Spec.Version, verdict.Plural(int64(len(c.Implementations)), "implementation"))
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "> **Note:** %s\n\n", q.Span(n))
	}
	fmt.Fprintf(&b, "| implementation | status | runs | pass | fail | not judged | unstable |\n|---|---|---|---|---|---|---|\n")
	for _, im := range c.Implementations {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d |\n", q.Cell(im.Name), q.Cell(im.Standing), im.Runs, im.Pass, im.Fail, im.NotJudged, im.Unstable)
	}
	fmt.Fprintf(&b, "\n| rule | level |")
	for i := range c.Implementations {
		fmt.Fprintf(&b, " %d |", i+1)
	}
	fmt.Fprintf(&b, "\n|---|---|%s\n", strings.Repeat("---|", len(c.Implementations)))
	for _, r := range c.Rules {
		fmt.Fprintf(&b, "| %s | %s |", r.ID, verdict.Upper(r.Level))
		for _, cell := range r.Cells {
			s := cellMark(cell.Result)
			if cell.Failure > 0 {
				s += fmt.Sprintf(" (failure %d)", cell.Failure)
			}
			if rs := runsOf(cell); rs != "" && cell.Result == CellUnstable {
				s += " (" + rs + ")"
			}
			fmt.Fprintf(&b, " %s |", s)
		}
		b.WriteString("\n")
	}
	columns := make([]string, len(c.Implementations))
	for i, im := range c.Implementations {
		columns[i] = fmt.Sprintf("%d = %s", i+1, q.Span(im.Name))
	}
	fmt.Fprintf(&b, "\nColumns: %s. A failure's number is its block in that implementation's report.\n", strings.Join(columns, "; "))
	_, err := io.WriteString(w, mdquote.Clean(b.String()))
	return err
}

// WriteJSON writes the comparison as JSON, for tools.
func (c *Comparison) WriteJSON(w io.Writer) error { return writeJSON(w, c) }

// WriteFiles writes compare.html, compare.md, compare.json and each
// implementation's badge (its last run's, as its report writes it) into
// dir, creating it.
func (c *Comparison) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create the folder: %w", err)
	}
	var errs []error
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{CompareHTML, c.WriteHTML},
		{CompareMD, func(w io.Writer) error { return c.WriteMarkdown(w, verdict.Quoted) }},
		{CompareJSON, c.WriteJSON},
	} {
		var buf bytes.Buffer
		if err := f.write(&buf); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.name, err))
			continue
		}
		if err := verdict.WriteAtomic(dir, f.name, buf.Bytes()); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", f.name, err))
		}
	}
	for _, im := range c.Implementations {
		if err := verdict.WriteAtomic(dir, im.Badge, []byte(mdquote.Clean(string(im.last.Badge())))); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", im.Badge, err))
		}
	}
	return errors.Join(errs...)
}

// ReportBeside is the report.html written beside a summary.json, as a
// path relative to dir (where the page goes), "" when there is none.
func ReportBeside(summary, dir string) string {
	rep := filepath.Join(filepath.Dir(summary), verdict.ReportHTML)
	if _, err := os.Stat(rep); err != nil {
		return ""
	}
	absRep, err1 := filepath.Abs(rep)
	absDir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(absDir, absRep)
	if err != nil {
		return filepath.ToSlash(absRep)
	}
	return filepath.ToSlash(rel)
}

// standing is an implementation's status and exit status in words: a
// failing run whose baseline held every failure exits 0, and says so.
func standing(status string, exit int, baseline bool) string {
	if baseline && exit == 0 && status != "conformant" {
		return fmt.Sprintf("%s, gated green by its baseline: every failure known (exit 0)", status)
	}
	return fmt.Sprintf("%s (exit %d)", status, exit)
}
