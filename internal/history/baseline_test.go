package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// fail is one failure of a synthetic verdict: a scenario, the rule its
// evidence cites, and what came back.
type fail struct {
	scenario string
	rule     rules.RuleID
	actual   string
}

// synthetic is a run's verdict, stamped by this plantcheck, in which every
// rule of the catalog passed but those the failures cite, and the rules
// notJudged name were not judged.
func synthetic(fails []fail, notJudged ...rules.RuleID) *verdict.Verdict {
	v := &verdict.Verdict{Driver: verdict.Run}
	v.Stamp("Plant Store API", "1.0.0")
	failures := map[rules.RuleID]int64{}
	for _, f := range fails {
		failures[f.rule]++
		r, _ := rules.Lookup(f.rule)
		v.Failures = append(v.Failures, verdict.Block{Heading: string(f.rule) + " " + f.scenario, Rule: f.rule, Level: r.Level, Side: "server", Outcome: verdict.Fail,
			Scenario: f.scenario, Evidence: []verdict.Evidence{{Rule: f.rule, Level: r.Level, Actual: f.actual}}})
	}
	for _, r := range rules.Catalog {
		rule := verdict.Rule{ID: r.ID, Level: r.Level, Outcome: verdict.Pass, Scenarios: 1, Judged: 1, Passed: 1}
		if n := failures[r.ID]; n > 0 {
			rule.Outcome, rule.Failures, rule.Passed = verdict.Fail, n, 0
		}
		if slices.Contains(notJudged, r.ID) {
			rule.Outcome, rule.Judged, rule.Passed, rule.NotJudgedBecause = verdict.NotJudged, 0, 0, "stopped by another rule's failure"
		}
		v.Rules = append(v.Rules, rule)
	}
	return v
}

func TestShape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b string }{
		{`name is "MONSTERA": its letter case changed`, `name is "FICUS \" LYRATA": its letter case changed`},
		{`status 200 with id 9223372036854775807`, `status 200 with id 12`},
		{`no answer within 10s (after 10.02s)`, `no answer within 3s (after 3.5s)`},
		{`name is "x…" … (1234 bytes in all)`, `name is "yy…" … (950 bytes in all)`},
	} {
		if Shape(tc.a) != Shape(tc.b) {
			t.Errorf("what a run draws changes the shape: %q is %q, %q is %q", tc.a, Shape(tc.a), tc.b, Shape(tc.b))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{`status 200`, `status 500`},
		{`name is "X": its letter case changed`, `name is missing`},
	} {
		if Shape(tc.a) == Shape(tc.b) {
			t.Errorf("two kinds of failure share the shape %q: %q and %q", Shape(tc.a), tc.a, tc.b)
		}
	}
}

// TestBaselineGate: the exit status against a baseline, on synthetic
// verdicts. A known failure passes the gate; a failure of the same rule in
// another scenario, or of another kind in the same scenario, fails it; a
// MUST rule not judged now and then is no reason for 2, one judged then is;
// the verdict's status and sentence never read conformant while a MUST
// rule fails.
func TestBaselineGate(t *testing.T) {
	t.Parallel()
	caseChanged := fail{"The Plant record carries the name that was sent", "CREATE-NAME", `name is "MONSTERA": its letter case changed`}
	base := synthetic([]fail{caseChanged}, "CREATE-TAG")
	b, err := NewBaseline(base, "base.json", verdict.Run)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		fails     []fail
		notJudged []rules.RuleID
		exit      int
		without   int
		newRules  []rules.RuleID
		fixed     []rules.RuleID
	}{
		{"the known failure, another name drawn", []fail{{caseChanged.scenario, "CREATE-NAME", `name is "FICUS": its letter case changed`}}, []rules.RuleID{"CREATE-TAG"}, 0, 1, nil, nil},
		{"the same rule in another scenario", []fail{caseChanged, {"A valid request is answered with status 200 and a Plant record", "CREATE-NAME", `name is "X": its letter case changed`}}, []rules.RuleID{"CREATE-TAG"}, 1, 1, []rules.RuleID{"CREATE-NAME"}, nil},
		{"the same scenario, a new kind", []fail{{caseChanged.scenario, "CREATE-NAME", `status 500`}}, []rules.RuleID{"CREATE-TAG"}, 1, 1, []rules.RuleID{"CREATE-NAME"}, nil},
		{"another rule", []fail{caseChanged, {"A request without an Authorization header is rejected with an Error record", "AUTH-MISSING", "status 200"}}, []rules.RuleID{"CREATE-TAG"}, 1, 1, []rules.RuleID{"AUTH-MISSING"}, nil},
		{"a rule judged in the baseline, not now", []fail{caseChanged}, []rules.RuleID{"CREATE-TAG", "GEN-VALID"}, 2, 1, nil, nil},
		{"fixed", nil, nil, 0, 0, nil, []rules.RuleID{"CREATE-NAME"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := synthetic(tc.fails, tc.notJudged...)
			v.Base = b
			v.Finish()
			if v.ExitCode != tc.exit || v.Baseline.ExitCodeWithout != tc.without {
				t.Errorf("exit %d (%d without the baseline), want %d (%d)", v.ExitCode, v.Baseline.ExitCodeWithout, tc.exit, tc.without)
			}
			if !slices.Equal(v.Baseline.New, tc.newRules) || !slices.Equal(v.Baseline.Fixed, tc.fixed) {
				t.Errorf("new %v fixed %v, want %v %v", v.Baseline.New, v.Baseline.Fixed, tc.newRules, tc.fixed)
			}
			if tc.without == 1 && (v.Status != "non-conformant" || !strings.HasPrefix(v.Verdict, "NON-CONFORMANT") || badgeWord(v) != "non-conformant" || pageClass(t, v) != "bad") {
				t.Errorf("a MUST rule fails, yet status %q, verdict %q, badge %q, page %q", v.Status, v.Verdict, badgeWord(v), pageClass(t, v))
			}
		})
	}
}

// badgeWord is the word of v's badge.
func badgeWord(v *verdict.Verdict) string {
	for _, w := range []string{"non-conformant", "conformant", "incomplete"} {
		if bytes.Contains(v.Badge(), []byte(">"+w+"<")) {
			return w
		}
	}
	return ""
}

// pageClass is the class report.html gives v's verdict.
func pageClass(t *testing.T, v *verdict.Verdict) string {
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, verdict.ReportHTML))
	_, after, _ := bytes.Cut(page, []byte(`<header class="verdict `))
	class, _, _ := bytes.Cut(after, []byte(`"`))
	return string(class)
}

// TestBaselineRefused: a baseline that cannot be compared is refused with
// the reason: another driver, a run that could not be made, another spec,
// another release, other features; a devel build compares what it can
// and says so.
func TestBaselineRefused(t *testing.T) {
	t.Parallel()
	ok := func(v *verdict.Verdict) {}
	for _, tc := range []struct {
		name   string
		change func(*verdict.Verdict)
		driver verdict.Driver
		want   string
	}{
		{"a proxy's verdict for run", ok, verdict.Proxy, "not by 'plantcheck proxy'"},
		{"a run that could not be made", func(v *verdict.Verdict) { v.Error = "the target cannot be reached" }, verdict.Run, "could not be made"},
		{"another spec", func(v *verdict.Verdict) { v.Spec.SHA256 = strings.Repeat("0", 64); v.Spec.Version = "0.9.0" }, verdict.Run, "judged by the spec Plant Store API 0.9.0"},
		{"other features", func(v *verdict.Verdict) { v.Features.SHA256 = strings.Repeat("1", 64) }, verdict.Run, "the scenarios differ"},
		{"another release", func(v *verdict.Verdict) { v.Plantcheck.Version = "v0.0.1-other" }, verdict.Run, "written by plantcheck v0.0.1-other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := synthetic(nil)
			tc.change(v)
			_, err := NewBaseline(v, "base.json", tc.driver)
			if tc.name == "another release" && buildinfo.Version() == "devel" {
				// This build has no release to compare: the features
				// decide, and they are the same.
				if err != nil {
					t.Fatalf("a devel build refused a baseline with the same features: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrBaseline) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "base.json") {
				t.Errorf("error %v, want ErrBaseline naming the file and %q", err, tc.want)
			}
		})
	}
	b, err := NewBaseline(synthetic(nil), "base.json", verdict.Run)
	if err != nil {
		t.Fatal(err)
	}
	if buildinfo.Version() == "devel" && !strings.Contains(b.Compared, "not compared") {
		t.Errorf("a devel build must say what it compared: %q", b.Compared)
	}
}

// TestReadRefusesWithTheReason: a file that does not follow the schema, or
// is not JSON, is refused with the reason, as a baseline too.
func TestReadRefusesWithTheReason(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"missing.json", `{"driver":"run"}`, "does not follow summary.schema.json"},
		{"garbage.json", `not json`, "not JSON"},
		{"empty.json", ``, "summary.schema.json"},
		{"run.har", `{"log":{"version":"1.2","entries":[]}}`, "a HAR recording, not a summary.json: judge it first"},
		{"one-line.json", `{"a":1}`, "'client'; - at '': additional properties 'a' not allowed"},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.body), 0o644)
		_, err := LoadBaseline(p, verdict.Run)
		if !errors.Is(err, ErrBaseline) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: %v, want ErrBaseline naming it and %q", tc.name, err, tc.want)
		}
	}
	if _, err := LoadBaseline(filepath.Join(dir, "none.json"), verdict.Run); !errors.Is(err, ErrBaseline) {
		t.Errorf("a file that is not there: %v", err)
	}
}

// TestKind: a failure's kind is its answer's status and media type, never
// how its "actual" reads: which of a scenario's failures a run meets first
// (and so its wording) is the draw's and the order's. Another status or
// media type is another kind.
func TestKind(t *testing.T) {
	t.Parallel()
	ok200 := `200 application/json, body "{\"name\":\"X\"}" (after 20ms)`
	for _, tc := range []struct{ a, b verdict.Evidence }{
		{verdict.Evidence{Actual: `name is "SANSEVIERIA": its letter case changed`, Response: ok200},
			verdict.Evidence{Actual: `name is "ǅ…": character 3 differs: U+01C5 sent, U+01C4 answered`, Response: `200 application/json; charset=utf-8, body "…" (after 3ms)`}},
		{verdict.Evidence{Actual: `status 500`}, verdict.Evidence{Actual: `status 500 with an Error record`}},
	} {
		if Kind(tc.a) != Kind(tc.b) {
			t.Errorf("what a run draws changes the kind: %q and %q", Kind(tc.a), Kind(tc.b))
		}
	}
	for _, tc := range []struct{ a, b verdict.Evidence }{
		{verdict.Evidence{Actual: `x`, Response: ok200}, verdict.Evidence{Actual: `x`, Response: `500 application/json, body "" (after 1ms)`}},
		{verdict.Evidence{Actual: `x`, Response: `400 application/json, body "" (after 1ms)`}, verdict.Evidence{Actual: `x`, Response: `400 text/plain, body "" (after 1ms)`}},
		{verdict.Evidence{Actual: `status 200`}, verdict.Evidence{Actual: `status 500`}},
		{verdict.Evidence{Actual: `the connection was reset`}, verdict.Evidence{Actual: `no answer within 10s`}},
	} {
		if Kind(tc.a) == Kind(tc.b) {
			t.Errorf("two kinds of failure share the kind %q", Kind(tc.a))
		}
	}
}
