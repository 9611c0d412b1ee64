package verdict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// answered is a block of a rule whose exchange came back with status and
// media, with a RESPONSE-DOCUMENTED failure on it when undocumented.
func answered(id rules.RuleID, status int, media string, undocumented bool) Block {
	b := Block{Rule: id, Level: rules.Must, Side: "server", Evidence: []Evidence{{Rule: id, Status: status, MediaType: media}}}
	if undocumented {
		b.Evidence = append(b.Evidence, Evidence{Rule: rules.ResponseDocumented, Status: status, MediaType: media})
	}
	return b
}

// errorRecordWithout is a block of a refusal rule answered 400 as JSON,
// its Error record lacking a member.
func errorRecordWithout(id rules.RuleID, member string) Block {
	b := answered(id, 400, "application/json", true)
	b.Evidence = append(b.Evidence, Evidence{Rule: rules.ErrorRecord, Status: 400, MediaType: "application/json", Actual: member + " is missing"})
	return b
}

// TestCommonCause: a cause is named when two failures in three, and at
// least three, share one answer that breaks the document in itself (its
// status, its media type or its body); never a documented status called
// undocumented, and never for answers the document has (validation gaps
// answered 200 with a Plant record share nothing one fix mends).
func TestCommonCause(t *testing.T) {
	t.Parallel()
	rep := func(n int, b Block) []Block {
		out := make([]Block, n)
		for i := range out {
			out[i] = b
		}
		return out
	}
	tests := []struct {
		name   string
		blocks []Block
		want   string // "" for none
	}{
		{"every refusal 422", rep(5, answered(rules.BodyJSON, 422, "application/json", true)),
			"5 of 5 failures came back with status 422 Unprocessable Entity (application/json), a status the document does not have, where 400 was expected"},
		{"every refusal an HTML page", rep(4, answered(rules.AuthMissing, 400, "text/html", true)),
			"4 of 4 failures came back with status 400 Bad Request (text/html), a media type the document does not have (its answers are application/json):"},
		{"refusals and acceptances answered 500", append(rep(3, answered(rules.BodyJSON, 500, "", true)), answered(rules.Create200, 500, "", true)),
			"4 of 4 failures came back with status 500 Internal Server Error (no media type), a status the document does not have:"},
		{"every Error record without its code", rep(4, errorRecordWithout(rules.BodyJSON, "error")),
			"4 of 4 failures came back with status 400 Bad Request (application/json), a body that is not the document's Error record (error is missing):"},
		{"Plant records not the document's", rep(3, answered(rules.Create200, 200, "application/json", true)),
			"3 of 3 failures came back with status 200 OK (application/json), a body that is not the document's Plant record:"},
		{"validation gaps, each answered 200 with a Plant record", []Block{
			answered(rules.BodyNameRequired, 200, "application/json", false), answered(rules.BodyIDInteger, 200, "application/json", false),
			answered(rules.BodyTagString, 200, "application/json", false), answered(rules.BodyJSON, 200, "application/json", false),
			answered(rules.BodyObject, 200, "application/json", false)}, ""},
		{"refusals the document has", rep(4, answered(rules.AuthMissing, 400, "application/json", false)), ""},
		{"two of three", append(rep(2, answered(rules.BodyJSON, 422, "application/json", true)), answered(rules.Create200, 200, "application/json", false)), ""},
		{"a majority short of two in three", append(rep(3, answered(rules.BodyJSON, 422, "application/json", true)),
			answered(rules.Create200, 200, "application/json", false), answered(rules.Create200, 201, "application/json", true)), ""},
		{"no answer", rep(5, Block{Rule: rules.ResponseTimely, Level: rules.Must, Error: "timeout"}), ""},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, status := CommonCause(tt.blocks)
			if tt.want == "" {
				if got != "" || status != 0 {
					t.Errorf("cause %q (%d), want none", got, status)
				}
				return
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("cause %q, want it to begin %q", got, tt.want)
			}
			for _, st := range []string{"200 OK", "400 Bad Request"} {
				if strings.Contains(got, st) && strings.Contains(got, "a status the document does not have") {
					t.Errorf("cause %q calls the documented %s undocumented", got, st)
				}
			}
		})
	}
}

// TestFailureOrder: the console prints the blocks of MUST rules first, in
// catalog order, numbered as the verdict numbers them (OrderFailures), the
// first failure of each rule, and says how many more each rule had; it
// points at summary.md and report.html only when they were written.
func TestFailureOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, dir string
		want      []string
		never     []string
	}{
		{"no report folder", "", []string{"(and 4 more failures of AUTH-MISSING)", "Shown: the first failure of each rule broken (3 of 7 blocks).", "No report was written: run again with --report-dir DIR"},
			[]string{"is in summary.md", "summary.md keeps", "summary.md lists"}},
		{"a report folder", "out", []string{"(and 4 more failures of AUTH-MISSING)", "Every failure block is in summary.md and report.html in out."},
			[]string{"No report was written"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Verdict{Driver: Run, Reference: true, ReportDir: tt.dir}
			should := answered(rules.BodyNameAny, 0, "", false)
			should.Level, should.Heading = rules.Should, "should"
			v.Failures = append(v.Failures, should)
			for i := 0; i < 5; i++ {
				b := answered(rules.AuthMissing, 0, "", false)
				b.Heading = "auth"
				v.Failures = append(v.Failures, b)
			}
			b := answered(rules.BodyJSON, 0, "", false)
			b.Heading = "json"
			v.Failures = append(v.Failures, b)
			v.Scenarios = []Scenario{{Name: "the SHOULD one", Failure: 1}, {Name: "the JSON one", Failure: 7}}
			v.Finish()
			if got := v.Scenarios[1].Failure; v.Failures[got-1].Heading != "json" || v.Failures[got-1].Number != got {
				t.Errorf("the scenario points at block %d, %q", got, v.Failures[got-1].Heading)
			}
			var out strings.Builder
			v.WriteFailures(&out, TextOptions{})
			got := out.String()
			if i, j, k := strings.Index(got, "1) json"), strings.Index(got, "2) auth"), strings.Index(got, "7) should"); !(i >= 0 && i < j && j < k) {
				t.Errorf("blocks out of order (1 BODY-JSON, 2 AUTH-MISSING, then 7 the SHOULD rule):\n%s", got)
			}
			if n := strings.Count(got, ") auth"); n != 1 {
				t.Errorf("%d blocks of AUTH-MISSING, want its first alone", n)
			}
			for _, want := range append(tt.want, "Failures (7 scenarios)") {
				if !strings.Contains(got, want) {
					t.Errorf("no %q:\n%s", want, got)
				}
			}
			for _, never := range tt.never {
				if strings.Contains(got, never) {
					t.Errorf("%q:\n%s", never, got)
				}
			}
			v.Failures = v.Failures[:1]
			out.Reset()
			v.WriteFailures(&out, TextOptions{})
			if got := out.String(); !strings.Contains(got, "Failures (1 scenario):") || strings.Contains(got, "Shown:") {
				t.Errorf("one block:\n%s", got)
			}
		})
	}
}

// TestConsoleCutsLongValues: a value longer than a console line is cut on
// the console, saying its size, and kept whole in the verdict.
func TestConsoleCutsLongValues(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ab", 3440) // a 6,880-byte generated name
	tests := []struct {
		name, dir, where string
	}{
		{"no report folder", "", "run with --report-dir for it whole"},
		{"a report folder", "out", "summary.md has it whole"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := answered(rules.CreateName, 200, "application/json", false)
			b.Evidence[0].Expected = "name " + long
			b.Evidence[0].Reproduce = "curl -sS -X POST 'http://x/plants' \\\n  --data-binary '{\"name\":\"" + long + "\"}'"
			v := &Verdict{Driver: Run, Reference: true, ReportDir: tt.dir, Failures: []Block{b}}
			v.Finish()
			var out strings.Builder
			v.WriteFailures(&out, TextOptions{})
			for _, l := range strings.Split(out.String(), "\n") {
				if len(l) > consoleLine+200 {
					t.Errorf("a console line of %d bytes", len(l))
				}
			}
			if want := "6,885 bytes in all; " + tt.where; !strings.Contains(out.String(), want) {
				t.Errorf("no %q:\n%s", want, out.String())
			}
			if !strings.Contains(v.Failures[0].Evidence[0].Expected, long) {
				t.Error("the verdict lost the whole value")
			}
		})
	}
}

// TestOpenRuleNeverFails: the rule table shows an open rule's outcome as
// noted, whatever its scenarios met; never FAIL.
func TestOpenRuleNeverFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		level   rules.Level
		outcome Outcome
		want    string
	}{
		{"an open rule with a failure", rules.Open, Fail, "noted"},
		{"an open rule that passed", rules.Open, Pass, "noted"},
		{"a MUST rule with a failure", rules.Must, Fail, "FAIL (1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Verdict{Driver: Run, Rules: []Rule{{ID: rules.OpenReusedID, Level: tt.level, Outcome: tt.outcome, Failures: 1, Scenarios: 1}}}
			v.Finish()
			if got := v.Rules[0].Result; got != tt.want {
				t.Errorf("result %q, want %q", got, tt.want)
			}
			var out strings.Builder
			v.WriteText(&out, TextOptions{Verbose: true}) // the whole table (the brief console lists a broken rule under To fix)
			if row := tableRow(out.String(), rules.OpenReusedID); !strings.Contains(row, tt.want) {
				t.Errorf("table row %q, want %q", row, tt.want)
			}
		})
	}
}

// tableRow is the console's rule-table row of a rule.
func tableRow(console string, id rules.RuleID) string {
	for _, l := range strings.Split(console, "\n") {
		if strings.HasPrefix(l, string(id)+" ") {
			return l
		}
	}
	return ""
}

// TestNotRunIsExplained: the count of scenarios not run is followed by
// why, on the run it is met, even when their rule failed otherwise (the
// list of rules not judged leaves such a rule out).
func TestNotRunIsExplained(t *testing.T) {
	t.Parallel()
	why := "the issued token has 15 bytes, fewer than the 72 that bcrypt reads: give a token of 72 bytes or more to run it"
	tests := []struct {
		name    string
		outcome Outcome
	}{
		{"its rule failed", Fail},
		{"its rule passed", Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Verdict{Driver: Run, Counts: Counts{Scenarios: 3, NotRun: 1},
				Rules: []Rule{{ID: rules.AuthNearMiss, Level: rules.Must, Outcome: tt.outcome, Failures: 1, Scenarios: 3, Judged: 2}},
				Scenarios: []Scenario{
					{Rule: rules.AuthNearMiss, Outcome: Skip, Note: "not run: " + why},
					{Rule: rules.AuthNearMiss, Outcome: tt.outcome},
				}}
			v.Finish()
			var out strings.Builder
			v.WriteText(&out, TextOptions{})
			if want := "not run: 1 scenario of AUTH-NEAR-MISS: " + why; !strings.Contains(out.String(), want) {
				t.Errorf("no %q:\n%s", want, out.String())
			}
		})
	}
	// A run stopped early leaves most rules not run: a count, not a
	// line of thirty names.
	v := &Verdict{Driver: Run}
	for _, r := range rules.Catalog {
		v.Rules = append(v.Rules, Rule{ID: r.ID, Level: r.Level, Outcome: Fail, Failures: 1, Scenarios: 1})
		v.Scenarios = append(v.Scenarios, Scenario{Rule: r.ID, Outcome: Skip, Note: "not run: throttled"})
	}
	v.Finish()
	var out strings.Builder
	v.WriteText(&out, TextOptions{})
	if want := fmt.Sprintf("not run: %d scenarios of %d rules: throttled\n", len(rules.Catalog), len(rules.Catalog)); !strings.Contains(out.String(), want) {
		t.Errorf("no %q:\n%s", want, out.String())
	}
}
