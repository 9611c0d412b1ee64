package verdict

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/plantcheck/plantcheck/internal/htmlpage"
	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// The files a verdict writes into its report folder.
const (
	SummaryJSON = "summary.json"
	SummaryMD   = "summary.md"
	ReportHTML  = "report.html"
	BadgeSVG    = "badge.svg"
	JUnitXML    = "junit.xml"
)

//go:embed report.html.tmpl
var reportTemplate string

var reportPage = template.Must(template.New("report").Funcs(htmlpage.Funcs()).Funcs(template.FuncMap{
	"upper":       Upper,
	"plural":      Plural,
	"class":       (*Verdict).class,
	"traffic":     (*Verdict).trafficLine,
	"countedBy":   func(v *Verdict) string { return capital(v.words().counted) },
	"counted":     func(v *Verdict, r Rule) int64 { return v.words().count(r) },
	"rowClass":    rowClass,
	"prose":       prose,
	"shownGroups": (*Verdict).shownGroups,
	"short":       (*Verdict).shortWord,
	"ruleNotes":   (*Verdict).ruleNotes,
	"foundBy":     (*Verdict).foundBy,
	"baseline":    (*Verdict).baselineLines,
	"caught":      (*Verdict).caught,
}).Parse(reportTemplate))

// caughtCell is a cell of report.html's strength column: of the mutants
// that break a rule, those the suite caught ("20 of 20"); Gap when some
// survived or no mutant breaks the rule (strength.NoMutant).
type caughtCell struct {
	Text string
	Gap  bool
}

// caught is rule id's strength cell.
func (v *Verdict) caught(id rules.RuleID) caughtCell {
	if r, ok := v.Strength.Rule(id); ok {
		return caughtCell{fmt.Sprintf("%d of %d", r.Caught, r.Mutants), r.Caught < r.Mutants}
	}
	return caughtCell{strength.NoMutant, true}
}

// ruleNote is what report.html says of a rule under the rule table, so
// that the table's cells stay short whatever the reasons and notes hold.
type ruleNote struct {
	ID    rules.RuleID
	Level rules.Level
	Kind  string
	Text  string
	// Prose: Text is plantcheck's own, with commands between backticks.
	Prose bool
}

// ruleNotes are the rules' reasons and notes, in catalog order.
func (v *Verdict) ruleNotes() []ruleNote {
	var out []ruleNote
	for _, r := range v.Rules {
		if v.unjudgedWhy(r) {
			kind := "not judged"
			if r.Outcome == Pass {
				kind = fmt.Sprintf("judged in %d of %d scenarios", r.Judged, r.Scenarios)
			}
			out = append(out, ruleNote{r.ID, r.Level, kind, r.NotJudgedBecause, true})
		}
		for _, n := range r.Notes {
			out = append(out, ruleNote{r.ID, r.Level, "noted", n, false})
		}
	}
	return out
}

// foundBy are the scenarios of other rules that found each rule broken,
// in catalog order.
func (v *Verdict) foundBy() []ruleNote {
	var out []ruleNote
	for _, r := range v.Rules {
		for _, by := range r.FoundBy {
			out = append(out, ruleNote{r.ID, r.Level, "found broken by", by, false})
		}
	}
	return out
}

// rowClass is an outcome's class in report.html (the stylesheet's).
func rowClass(o Outcome) string {
	return cmp.Or(map[Outcome]string{Pass: "passed", Fail: "failed", Error: "error"}[o], "skipped")
}

// class is the verdict's class in report.html: its badge's standing
// (a partial run that could not run is partial).
func (v *Verdict) class() string {
	if word, _ := v.standing(); !v.Partial() {
		return cmp.Or(map[string]string{"nothing judged": "partial", "no violation seen": "ok", "conformant": "ok", "non-conformant": "bad"}[word], "incomplete")
	}
	return "partial"
}

// standing is the verdict's standing as its badge words and colours it.
func (v *Verdict) standing() (word, colour string) {
	switch {
	case v.Error != "":
		return "could not run", htmlpage.Warn
	case v.Partial():
		return "partial", htmlpage.Neutral
	case v.words().traffic && v.truth() == 0 && v.Counts.Judged == 0:
		return "nothing judged", htmlpage.Neutral // traffic counted, none of it judged
	case v.words().traffic && v.truth() == 0:
		return "no violation seen", htmlpage.Pass
	case v.truth() == 0:
		return "conformant", htmlpage.Pass
	case v.truth() == 1 && v.Status == "clients failed":
		return "clients failed", htmlpage.Warn
	case v.truth() == 2:
		return "incomplete", htmlpage.Warn
	}
	return "non-conformant", htmlpage.Fail
}

// prose writes plantcheck's own text for a page: what it quotes between
// backticks (a command, a flag) becomes code, the rest is escaped.
func prose(s string) template.HTML {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 && i < strings.Count(s, "`") {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(template.HTMLEscapeString(part))
	}
	return template.HTML(b.String())
}

// Badge is badge.svg: the spec, the plantcheck that judged, and the
// verdict's standing.
func (v *Verdict) Badge() []byte {
	left := v.Spec.Title + " " + v.Spec.Version + " (plantcheck " + v.suiteVersion() + ")" + v.words().badge
	word, colour := v.standing()
	if v.Reference {
		// A badge of the bundled reference is grey whatever it says: it
		// certifies plantcheck's own server, never the reader's service.
		left, colour = "bundled reference: "+left, htmlpage.Neutral
	}
	return htmlpage.Badge(left, word, colour)
}

// suiteVersion is the version of the plantcheck that judged, bounded: a
// merged summary's is read from a file.
func (v *Verdict) suiteVersion() string {
	const most = 48
	s := strings.ToValidUTF8(v.Plantcheck.Version, "?")
	if s == "" {
		return "unknown"
	}
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "..."
	}
	return s
}

// WriteFiles writes summary.json, summary.md, summary-short.md,
// report.html, badge.svg, junit.xml and the conformance statement
// (conformance.intoto.json) into dir, creating it if missing.
func (v *Verdict) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create the report folder: %w", err)
	}
	v.normalise()
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", SummaryJSON, err)
	}
	var md, short, html, junit bytes.Buffer
	v.WriteMarkdown(&md, Quoted)
	v.WriteShortMarkdown(&short, Quoted)
	if err := reportPage.Execute(&html, v); err != nil {
		return fmt.Errorf("%s: %w", ReportHTML, err)
	}
	if err := v.writeJUnit(&junit); err != nil {
		return fmt.Errorf("%s: %w", JUnitXML, err)
	}
	// Every file is valid UTF-8 without controls or bidirectional
	// overrides, whatever the target sent: summary.json by encoding/json
	// (invalid bytes become U+FFFD, controls \u escapes; a bidi override
	// stays, escaped by nothing, as data for programs), junit.xml by
	// writeJUnit, the others by mdquote.Clean over the whole file, because
	// html/template passes invalid bytes, controls and overrides through.
	// Plantcheck's own text in them holds none of these, so the pass changes
	// only what came from the target.
	written := map[string][]byte{
		SummaryJSON:    append(js, '\n'),
		SummaryMD:      []byte(mdquote.Clean(md.String())),
		SummaryShortMD: []byte(mdquote.Clean(short.String())),
		ReportHTML:     []byte(mdquote.Clean(html.String())),
		BadgeSVG:       []byte(mdquote.Clean(string(v.Badge()))),
		JUnitXML:       junit.Bytes(),
	}
	// The statement vouches for the bytes written: it is made from them,
	// and written last (reportFiles ends with it), so that a reader who
	// finds it finds its subjects.
	statement, err := v.Statement(written)
	if err != nil {
		return fmt.Errorf("%s: %w", StatementJSON, err)
	}
	written[StatementJSON] = statement
	var errs []error
	for _, name := range reportFiles {
		if err := WriteAtomic(dir, name, written[name]); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// WriteAtomic writes a file whole or not at all: into a temporary file in
// the same folder, synced, then renamed over the old one, so that a reader
// (or a proxy killed mid-write) never sees a torn report, only the last
// one written whole.
func WriteAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// normalise writes every list and map of summary.json as [] or {} when it
// is empty, never null, so that both drivers' documents have the same
// members of the same types.
func (v *Verdict) normalise() {
	v.Schema = cmp.Or(v.Schema, SchemaID)
	if v.Throttling.Answers == nil {
		v.Throttling.Answers = map[int]int{}
	}
	if v.Connections.Faults == nil {
		v.Connections.Faults = map[string]int{}
	}
	if v.Counts.ProxyAnswers == nil {
		v.Counts.ProxyAnswers = map[string]int64{}
	}
	a := Analyze(v)
	v.CommonCause, v.ToFix = a.Cause, orEmpty(a.Fix)
	v.NotJudgedInPart = orEmpty(v.NotJudgedInPart)
	v.Rules = orEmpty(v.Rules)
	v.Failures = orEmpty(v.Failures)
	v.Scenarios = orEmpty(v.Scenarios)
	v.Client = orEmpty(v.Client)
	for i := range v.Rules {
		r := &v.Rules[i]
		r.Notes, r.FoundBy = orEmpty(r.Notes), orEmpty(r.FoundBy)
	}
	for i := range v.Failures {
		b := &v.Failures[i]
		b.Evidence = orEmpty(b.Evidence)
		for j := range b.Evidence {
			e := &b.Evidence[j]
			e.Details, e.Violations = orEmpty(e.Details), orEmpty(e.Violations)
		}
	}
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteCannotRun writes the reports of a run that could not be made
// (exit 2) into dir, creating it: every file saying why, so that a CI job
// that shows or uploads the reports shows the reason. why is plantcheck's
// text, naming the user's settings, already escaped by the caller.
func (v *Verdict) WriteCannotRun(dir, why string) error {
	v.Scope, v.Status, v.Verdict, v.ExitCode, v.Error = "none", "could not run", "COULD NOT RUN: "+why, 2, why
	if v.Spec.Title == "" {
		if sv, err := spec.Default(); err == nil {
			v.Spec.Title, v.Spec.Version = sv.Info().Title, sv.Info().Version
		}
	}
	v.Failures = []Block{{Heading: "plantcheck could not run", Side: "server", Outcome: Error, Error: why}}
	v.OrderFailures()
	return v.WriteFiles(dir)
}
