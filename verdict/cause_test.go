package verdict

import (
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/rules"
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

// TestCommonCause: a cause is named when two failures in three, and at
// least three, share one answer; never otherwise.
func TestCommonCause(t *testing.T) {
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
		{"every refusal an HTML page", rep(4, answered(rules.AuthMissing, 400, "text/html", false)),
			"4 of 4 failures came back with status 400 Bad Request (text/html):"},
		{"refusals and acceptances answered 500", append(rep(3, answered(rules.BodyJSON, 500, "", true)), answered(rules.Create200, 500, "", true)),
			"4 of 4 failures came back with status 500 Internal Server Error (no media type), a status the document does not have:"},
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
		})
	}
}

// TestFailureOrder: the console prints the blocks of MUST rules first, in
// catalog order, at most ConsoleBlocksPerRule of a rule, and says how
// many it left out.
func TestFailureOrder(t *testing.T) {
	v := &Verdict{Driver: Run, Reference: true}
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
	var out strings.Builder
	v.WriteFailures(&out)
	got := out.String()
	if i, j, k := strings.Index(got, ") json"), strings.Index(got, ") auth"), strings.Index(got, ") should"); !(i >= 0 && i < j && j < k) {
		t.Errorf("blocks out of order (BODY-JSON, AUTH-MISSING, then the SHOULD rule):\n%s", got)
	}
	if n := strings.Count(got, ") auth"); n != ConsoleBlocksPerRule {
		t.Errorf("%d blocks of AUTH-MISSING, want %d", n, ConsoleBlocksPerRule)
	}
	for _, want := range []string{"(2 more failure blocks of AUTH-MISSING not shown here)", "Every failure block, those not shown here included, is in summary.md and report.html", "Failures (7 scenarios)"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q:\n%s", want, got)
		}
	}
	v.Failures = v.Failures[:1]
	out.Reset()
	v.WriteFailures(&out)
	if got := out.String(); !strings.Contains(got, "Failures (1 scenario):") || strings.Contains(got, "not shown here") {
		t.Errorf("one block:\n%s", got)
	}
}
