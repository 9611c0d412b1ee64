package history

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

const hostileTarget = `http://x/</th><script>alert(1)</script>|![x](http://evil/i.png)`

// withScenarios gives a synthetic verdict a scenario for each failure, and
// one that passes.
func withScenarios(v *verdict.Verdict) *verdict.Verdict {
	for i, b := range v.Failures {
		v.Scenarios = append(v.Scenarios, verdict.Scenario{Name: b.Scenario, Rule: b.Rule, Level: b.Level, Outcome: verdict.Fail, Failure: i + 1})
	}
	v.Scenarios = append(v.Scenarios, verdict.Scenario{Name: "A valid request is answered with status 200 and a Plant record", Rule: "CREATE-200", Level: rules.Must, Outcome: verdict.Pass})
	v.Finish()
	return v
}

func TestDiff(t *testing.T) {
	t.Parallel()
	name := fail{"The Plant record carries the name that was sent", "CREATE-NAME", `name is "A": its letter case changed`, 200, "application/json"}
	auth := fail{"A request without an Authorization header is rejected with an Error record", "AUTH-MISSING", "status 200", 200, "application/json"}
	should := fail{"A body whose id is zero is accepted", "BODY-ID-RANGE", "status 400", 400, "application/json"}
	for _, tc := range []struct {
		name     string
		old, new []fail
		strict   bool
		exit     int
		rule     rules.RuleID
		change   string
	}{
		{"newly failing", []fail{name}, []fail{name, auth}, false, 1, "AUTH-MISSING", NewlyFailing},
		{"fixed", []fail{name, auth}, []fail{name}, false, 0, "AUTH-MISSING", Fixed},
		{"still failing", []fail{name}, []fail{{name.scenario, name.rule, `name is "B": its letter case changed`, 200, "application/json"}}, false, 0, "CREATE-NAME", StillFailing},
		{"changed evidence", []fail{name}, []fail{{name.scenario, name.rule, "status 500", 500, "application/json"}}, false, 1, "CREATE-NAME", ChangedEvidence},
		{"a SHOULD rule newly failing", nil, []fail{should}, false, 0, "BODY-ID-RANGE", NewlyFailing},
		{"a SHOULD rule newly failing, strict", nil, []fail{should}, true, 1, "BODY-ID-RANGE", NewlyFailing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Compare(withScenarios(synthetic(tc.old)), withScenarios(synthetic(tc.new)), "old.json", "new.json", tc.strict)
			if err != nil {
				t.Fatal(err)
			}
			if d.ExitCode != tc.exit {
				t.Errorf("exit %d, want %d: %+v", d.ExitCode, tc.exit, d.Rules)
			}
			i := slices.IndexFunc(d.Rules, func(c Change) bool { return c.Rule == tc.rule })
			if i < 0 || d.Rules[i].Change != tc.change {
				t.Fatalf("%s not named %q: %+v", tc.rule, tc.change, d.Rules)
			}
			var text bytes.Buffer
			d.WriteText(&text)
			if !strings.Contains(text.String(), tc.change) || !strings.Contains(text.String(), string(tc.rule)) {
				t.Errorf("the text does not name the change:\n%s", text.String())
			}
		})
	}
	t.Run("the headline's counts add up", func(t *testing.T) {
		// A MUST rule and a SHOULD rule newly failing, each rule and its
		// scenario: two regressions, and the bracket after them counts
		// those alone (it said "4 newly failing").
		d, err := Compare(withScenarios(synthetic(nil)), withScenarios(synthetic([]fail{auth, should})), "a", "b", false)
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		d.WriteText(&text)
		if want := "REGRESSED: 2 regressions (2 newly failing); every change of rules and scenarios: 4 newly failing"; !strings.Contains(text.String(), want) {
			t.Errorf("the headline lacks %q:\n%s", want, text.String())
		}
	})
	t.Run("a newly not judged MUST rule", func(t *testing.T) {
		d, _ := Compare(synthetic(nil), synthetic(nil, "GEN-VALID"), "a", "b", false)
		if d.ExitCode != 1 || d.Counts[NewlyNotJudged] != 1 {
			t.Errorf("exit %d, counts %v", d.ExitCode, d.Counts)
		}
	})
}

func TestDiffRefusesAndNotes(t *testing.T) {
	t.Parallel()
	old, other := synthetic(nil), synthetic(nil)
	other.Spec.SHA256, other.Spec.Version = strings.Repeat("0", 64), "2.0.0"
	if _, err := Compare(old, other, "old.json", "new.json", false); !errors.Is(err, ErrNotComparable) || !strings.Contains(err.Error(), "2.0.0") {
		t.Errorf("another spec: %v, want ErrNotComparable naming it", err)
	}
	newer := synthetic(nil)
	newer.Plantcheck.Version, newer.Target = "v9.9.9", hostileTarget
	d, err := Compare(old, newer, "old.json", "new.json", false)
	if err != nil || len(d.Notes) < 2 || !strings.Contains(d.Notes[0], "different suites") {
		t.Fatalf("another suite is compared, and said: %v %v", err, d.Notes)
	}
	var md bytes.Buffer
	d.WriteMarkdown(&md, verdict.Quoted)
	if out := outsideSpans(md.String()); strings.Contains(out, "<script>") || strings.Contains(out, "![x](") {
		t.Errorf("the target went into the Markdown unquoted:\n%s", md.String())
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	name := fail{"The Plant record carries the name that was sent", "CREATE-NAME", `name is "A": its letter case changed`, 200, "application/json"}
	hostile := synthetic([]fail{name})
	hostile.Finish()
	in := []CompareInput{
		{Name: "reference", File: "ref.json", Verdict: synthetic(nil)},
		{Name: "flaky", File: "f1.json", Verdict: synthetic(nil)},
		{Name: "flaky", File: "f2.json", Report: "f2/report.html", Verdict: synthetic([]fail{name})},
		{Name: hostileTarget, File: "h.json", Verdict: hostile},
	}
	for _, x := range in {
		x.Verdict.Finish()
	}
	c, err := CompareAll(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Implementations) != 3 || c.Implementations[1].Runs != 2 {
		t.Fatalf("implementations %+v", c.Implementations)
	}
	row := c.Rules[slices.IndexFunc(c.Rules, func(r Row) bool { return r.ID == "CREATE-NAME" })]
	if got := []string{row.Cells[0].Result, row.Cells[1].Result, row.Cells[2].Result}; !slices.Equal(got, []string{CellPass, CellUnstable, CellFail}) {
		t.Errorf("CREATE-NAME cells %v", got)
	}
	if l := row.Cells[1].Link; l != "f2/report.html#failure-1" {
		t.Errorf("the unstable cell links to %q", l)
	}
	var html, md bytes.Buffer
	if err := c.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	c.WriteMarkdown(&md, verdict.Quoted)
	if strings.Contains(html.String(), "<script>") || !strings.Contains(html.String(), "&lt;script&gt;") {
		t.Errorf("the target's name went into the page unescaped")
	}
	if out := outsideSpans(md.String()); strings.Contains(out, "<script>") || strings.Contains(out, "![x](") {
		t.Errorf("the target's name went into the Markdown unquoted")
	}
	other := synthetic(nil)
	other.Spec.SHA256 = strings.Repeat("0", 64)
	if _, err := CompareAll(append(in, CompareInput{Name: "x", File: "x.json", Verdict: other})); !errors.Is(err, ErrNotComparable) {
		t.Errorf("another spec: %v", err)
	}
	taken := map[string]bool{}
	if a, b := badgeFile("../a b", taken), badgeFile("a-b", taken); a != "badge-a-b.svg" || b != "badge-a-b-2.svg" {
		t.Errorf("badge files %q %q", a, b)
	}
}

// outsideSpans is Markdown with its code spans taken out: what a renderer
// reads as markup.
func outsideSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		end := strings.Index(s[i+n:], fence)
		if end < 0 {
			b.WriteString(s[i:])
			break
		}
		i += n + end + n
	}
	return b.String()
}

// TestStanding: a failing run that its baseline turned to exit 0 says
// so in words, never "non-conformant (exit 0)" alone.
func TestStanding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, status string
		exit         int
		baseline     bool
		want         string
	}{
		{"conformant", "conformant", 0, false, "conformant (exit 0)"},
		{"failing", "non-conformant", 1, false, "non-conformant (exit 1)"},
		{"failing with a baseline, a new failure", "non-conformant", 1, true, "non-conformant (exit 1)"},
		{"gated by its baseline", "non-conformant", 0, true, "non-conformant, gated green by its baseline: every failure known (exit 0)"},
		{"conformant with a baseline", "conformant", 0, true, "conformant (exit 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := standing(tt.status, tt.exit, tt.baseline); got != tt.want {
				t.Errorf("standing(%q, %d, %v) = %q, want %q", tt.status, tt.exit, tt.baseline, got, tt.want)
			}
		})
	}
}
