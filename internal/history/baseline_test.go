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
// evidence cites, what it says came back, and the status and media type
// that came back (0: none).
type fail struct {
	scenario string
	rule     rules.RuleID
	actual   string
	status   int
	media    string
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
			Scenario: f.scenario, Evidence: []verdict.Evidence{{Rule: f.rule, Level: r.Level, Actual: f.actual, Status: f.status, MediaType: f.media, NoAnswer: noAnswer(f.status)}}})
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

// noAnswer is what a synthetic failure without a status met.
func noAnswer(status int) string {
	if status == 0 {
		return "time limit"
	}
	return ""
}

// TestBaselineGate: the exit status against a baseline, on synthetic
// verdicts. A known failure passes the gate; a failure of the same rule in
// another scenario, or of another kind in the same scenario, fails it; a
// MUST rule not judged now and then is no reason for 2, one judged then is;
// the verdict's status and sentence never read conformant while a MUST
// rule fails.
func TestBaselineGate(t *testing.T) {
	t.Parallel()
	const scenario = "The Plant record carries the name that was sent"
	caseChanged := fail{scenario, "CREATE-NAME", `name is "MONSTERA": its letter case changed`, 200, "application/json"}
	authScenario := "A request without an Authorization header is rejected with an Error record"
	base := synthetic([]fail{caseChanged}, "CREATE-TAG")
	b, err := NewBaseline(base, "base.json", verdict.Run)
	if err != nil {
		t.Fatal(err)
	}
	auth := &verdict.Baseline{File: "team.json", Entries: []verdict.BaselineEntry{{Rule: "AUTH-MISSING", Kind: "201 application/json"}}}
	ruleOnly := &verdict.Baseline{File: "team.json", Entries: []verdict.BaselineEntry{{Rule: "AUTH-MISSING"}}}
	for _, tc := range []struct {
		name      string
		base      *verdict.Baseline
		fails     []fail
		notJudged []rules.RuleID
		tags      string
		exit      int
		without   int
		newRules  []rules.RuleID
		stale     string // what the first stale entry's message says ("": none)
		newKind   string // what the first new kind's message says
	}{
		{"the known failure, another name drawn", b, []fail{{scenario, "CREATE-NAME", `name is "FICUS": its letter case changed`, 200, "application/json"}}, []rules.RuleID{"CREATE-TAG"}, "", 0, 1, nil, "", ""},
		{"the same rule in another scenario", b, []fail{caseChanged, {"A valid request is answered with status 200 and a Plant record", "CREATE-NAME", `name is "X": its letter case changed`, 200, "application/json"}}, []rules.RuleID{"CREATE-TAG"}, "", 1, 1, []rules.RuleID{"CREATE-NAME"}, "", ""},
		{"the same scenario, a new kind", b, []fail{{scenario, "CREATE-NAME", `name is "X": its letter case changed`, 500, "application/json"}}, []rules.RuleID{"CREATE-TAG"}, "", 1, 1, []rules.RuleID{"CREATE-NAME"},
			`stale entry: rule CREATE-NAME (200 application/json, in scenario "` + scenario + `") no longer fails so: it fails now with 500 application/json, a new kind of failure`,
			"CREATE-NAME fails with 500 application/json, a new kind of failure: the baseline holds it with 200 application/json"},
		{"another rule", b, []fail{caseChanged, {authScenario, "AUTH-MISSING", "status 200", 200, "application/json"}}, []rules.RuleID{"CREATE-TAG"}, "", 1, 1, []rules.RuleID{"AUTH-MISSING"}, "", ""},
		{"a rule judged in the baseline, not now", b, []fail{caseChanged}, []rules.RuleID{"CREATE-TAG", "GEN-VALID"}, "", 2, 1, nil, "", ""},
		{"fixed: a stale entry", b, nil, nil, "", 1, 0, nil, `stale entry: rule CREATE-NAME passes now; remove its entry (200 application/json, in scenario "` + scenario + `") from the baseline`, ""},
		{"fixed, its scenario not run (--tags)", b, nil, []rules.RuleID{}, "@AUTH-MISSING", 0, 0, nil, "", ""},
		{"not judged is not stale", b, nil, []rules.RuleID{"CREATE-NAME"}, "", 2, 2, nil, "", ""},
		{"a kind: known", auth, []fail{{authScenario, "AUTH-MISSING", "status 201", 201, "application/json"}}, nil, "", 0, 1, nil, "", ""},
		{"a kind: 201 became 200", auth, []fail{{authScenario, "AUTH-MISSING", "status 200", 200, "application/json"}}, nil, "", 1, 1, []rules.RuleID{"AUTH-MISSING"},
			"stale entry: rule AUTH-MISSING (201 application/json) no longer fails so: it fails now with 200 application/json, a new kind of failure",
			"AUTH-MISSING fails with 200 application/json, a new kind of failure: the baseline holds it with 201 application/json"},
		{"a kind: passes now", auth, nil, nil, "", 1, 0, nil, "stale entry: rule AUTH-MISSING passes now; remove its entry (201 application/json) from the baseline", ""},
		{"a rule alone: any kind", ruleOnly, []fail{{authScenario, "AUTH-MISSING", "no answer", 0, ""}}, nil, "", 0, 1, nil, "", ""},
		{"a rule alone: passes now", ruleOnly, nil, nil, "", 1, 0, nil, "stale entry: rule AUTH-MISSING passes now; remove it from the baseline", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := synthetic(tc.fails, tc.notJudged...)
			for _, sc := range []string{scenario, authScenario} {
				outcome := verdict.Pass
				if slices.ContainsFunc(tc.fails, func(f fail) bool { return f.scenario == sc }) {
					outcome = verdict.Fail
				}
				v.Scenarios = append(v.Scenarios, verdict.Scenario{Name: sc, Outcome: outcome})
			}
			if tc.tags != "" {
				// A partial run: the rules not selected are not run.
				v.Config.Tags = tc.tags
				for i := range v.Rules {
					if v.Rules[i].ID != "AUTH-MISSING" {
						v.Rules[i].Outcome = verdict.Skip
					}
				}
			}
			v.Base = tc.base
			v.Finish()
			if v.ExitCode != tc.exit || v.Baseline.ExitCodeWithout != tc.without {
				t.Errorf("exit %d (%d without the baseline), want %d (%d); stale %q", v.ExitCode, v.Baseline.ExitCodeWithout, tc.exit, tc.without, v.Baseline.Stale)
			}
			if !slices.Equal(v.Baseline.New, tc.newRules) {
				t.Errorf("new %v, want %v", v.Baseline.New, tc.newRules)
			}
			switch {
			case tc.stale == "" && len(v.Baseline.Stale) > 0:
				t.Errorf("stale %q, want none", v.Baseline.Stale)
			case tc.stale != "" && (len(v.Baseline.Stale) == 0 || !strings.HasPrefix(v.Baseline.Stale[0], tc.stale)):
				t.Errorf("stale %q, want one beginning %q", v.Baseline.Stale, tc.stale)
			case tc.stale != "" && !strings.Contains(v.Verdict, "stale baseline entries: 1"):
				t.Errorf("verdict %q does not count the stale entry", v.Verdict)
			}
			if tc.newKind != "" && !slices.Contains(v.Baseline.NewKinds, tc.newKind) {
				t.Errorf("new kinds %q, want %q", v.Baseline.NewKinds, tc.newKind)
			}
			var out strings.Builder
			v.WriteText(&out, verdict.TextOptions{})
			for _, want := range append(v.Baseline.Stale, v.Baseline.NewKinds...) {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the console does not say %q", want)
				}
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

// TestBaselineFile: --baseline-update's file follows baseline.schema.json,
// and read back as a baseline it passes the verdict it was written from
// (an entry for each rule, scenario and kind); a hand-made file with an
// unknown rule, another driver's, or a summary.json whose failures carry
// no typed kind, is refused with the reason.
func TestBaselineFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v := synthetic([]fail{
		{"The Plant record carries the name that was sent", "CREATE-NAME", `name is "A": its letter case changed`, 200, "application/json"},
		{"A request without an Authorization header is rejected with an Error record", "AUTH-MISSING", "no answer", 0, ""},
	}, "CREATE-TAG")
	v.Finish()
	name := filepath.Join(dir, "baseline.json")
	if err := WriteBaseline(name, v); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(name)
	if err := verdict.CheckBaseline(b); err != nil {
		t.Fatalf("the written baseline does not follow its schema: %v\n%s", err, b)
	}
	for _, want := range []string{`"kind": "200 application/json"`, `"kind": "no answer (time limit)"`, `"notJudged": [`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the baseline lacks %s:\n%s", want, b)
		}
	}
	bl, err := LoadBaseline(name, verdict.Run)
	if err != nil {
		t.Fatal(err)
	}
	again := synthetic([]fail{
		{"The Plant record carries the name that was sent", "CREATE-NAME", `name is "B": its letter case changed`, 200, "application/json"},
		{"A request without an Authorization header is rejected with an Error record", "AUTH-MISSING", "no answer", 0, ""},
	}, "CREATE-TAG")
	again.Base = bl
	withScenarios(again)
	if again.ExitCode != 0 || len(again.Baseline.Stale) > 0 {
		t.Errorf("the run its baseline was written from: exit %d, stale %q; want 0", again.ExitCode, again.Baseline.Stale)
	}
	// Written again against a baseline, the reasons stay.
	bl.Entries = []verdict.BaselineEntry{{Rule: "CREATE-NAME", Reason: "PLAT-7"}}
	if err := WriteBaseline(name, again); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); strings.Count(string(b), `"reason": "PLAT-7"`) != 1 {
		t.Errorf("the reason of CREATE-NAME's entry is not kept once:\n%s", b)
	}

	untyped := synthetic([]fail{{"The Plant record carries the name that was sent", "CREATE-NAME", "x", 0, ""}})
	untyped.Failures[0].Evidence[0].NoAnswer, untyped.Failures[0].Evidence[0].Response = "", `200 application/json, body "{}" (after 1ms)`
	untyped.Scope = "certified"
	for _, tc := range []struct{ name, body, want string }{
		{"unknown.json", `{"schema":"https://plantcheck.dev/baseline.schema.json","driver":"run","entries":[{"rule":"NO-SUCH-RULE"}]}`, "which this plantcheck's catalog lacks"},
		{"proxy.json", `{"schema":"https://plantcheck.dev/baseline.schema.json","driver":"proxy","entries":[]}`, "a baseline of 'plantcheck proxy', not of 'plantcheck run'"},
		{"bad.json", `{"schema":"https://plantcheck.dev/baseline.schema.json","driver":"run","entries":[{"kind":"200 application/json"}]}`, "does not follow baseline.schema.json"},
		{"old-summary.json", string(summaryJSON(t, untyped)), "make a new baseline with --baseline-update"},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.body), 0o644)
		_, err := LoadBaseline(p, verdict.Run)
		if !errors.Is(err, ErrBaseline) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: %v, want ErrBaseline naming it and %q", tc.name, err, tc.want)
		}
	}
}

// summaryJSON is v's summary.json as written.
func summaryJSON(t *testing.T, v *verdict.Verdict) []byte {
	dir := t.TempDir()
	v.Finish()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, verdict.SummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
