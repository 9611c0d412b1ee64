package run

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// mutantsWrap wraps the reference in several mutants, each around the
// last: a server with several mistakes.
func mutantsWrap(names ...string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		h := ref
		for _, n := range names {
			h = mutantWrap(n)(h, token)
		}
		return h
	}
}

// TestHeadlinesNameTheRealCause: the headlines (LIKELY CAUSE, COMMON
// CAUSE) name what the answers share, and each rule is judged on its own
// aspect, in real runs against mutants: a 201 is an answer, not a refusal
// of the token; a documented status is never called undocumented; five
// validation gaps answered 200 share no cause; a 422 with the right media
// type is not RESPONSE-MEDIA's failure; a setup's create answered 201 is
// CREATE-200's failure, not the auth rule's or an open rule's.
func TestHeadlinesNameTheRealCause(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		shared      string // the shared run read, or "" for a run against wrap
		wrap        func(http.Handler, string) http.Handler
		likely      string // "" none
		common      string // "" none
		notCommon   string // a phrase the cause must not hold
		notFailed   []rules.RuleID
		failed      []rules.RuleID
		setupBlocks bool // a CREATE-200 block found by a scenario's setup
	}{
		{name: "every valid create answered 201", shared: "status-201",
			common:    "came back with status 201 Created (application/json), a status the document does not have, where 200 was expected",
			notFailed: []rules.RuleID{rules.AuthMissing, rules.OpenReusedID, rules.CreateName, rules.CreateTag, rules.CreateNoTag, rules.CreateNoID},
			failed:    []rules.RuleID{rules.Create200}, setupBlocks: true},
		{name: "every valid create refused with 400", wrap: mutantWrap("reject-valid"), likely: "no answer says why (the first: status 400 with the body",
			failed: []rules.RuleID{rules.Create200}, setupBlocks: true},
		{name: "every refusal 422", shared: "status-422",
			common:    "came back with status 422 Unprocessable Entity (application/json), a status the document does not have, where 400 was expected",
			notFailed: []rules.RuleID{rules.ResponseMedia}, failed: []rules.RuleID{rules.ResponseDocumented}},
		{name: "every Error record without its code", wrap: mutantWrap("error-without-code"),
			common:    "came back with status 400 Bad Request (application/json), a body that is not the document's Error record (error is missing)",
			notCommon: "a status the document does not have", failed: []rules.RuleID{rules.ErrorRecord}},
		{name: "five validation gaps, each answered 200",
			wrap:      mutantsWrap("accept-missing-name", "accept-string-id", "drop-bad-tag", "lenient-json", "unwrap-array"),
			notFailed: []rules.RuleID{rules.ResponseMedia},
			failed:    []rules.RuleID{rules.BodyNameRequired, rules.BodyIDInteger, rules.BodyTagString, rules.BodyJSON, rules.BodyObject}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rep *Report
			if tt.shared != "" {
				rep, _, _ = shared(t, tt.shared)
			} else {
				url, token := startTarget(t, tt.wrap)
				var out bytes.Buffer
				var err error
				if rep, err = runWith(context.Background(), Config{BaseURL: url, Token: token, Timeout: time.Minute}, Options{Output: &out}); err != nil {
					t.Fatal(err)
				}
			}
			v := rep.Model()
			if got := v.ExitCode; got != 1 {
				t.Fatalf("exit %d, want 1", got)
			}
			if tt.likely == "" && v.LikelyCause != "" || !strings.Contains(v.LikelyCause, tt.likely) {
				t.Errorf("likely cause %q, want %q", v.LikelyCause, tt.likely)
			}
			common, _ := verdict.CommonCause(serverBlocks(v))
			switch {
			case tt.common == "" && common != "":
				t.Errorf("a common cause where the failures share none: %q", common)
			case !strings.Contains(common, tt.common):
				t.Errorf("common cause %q, want one holding %q", common, tt.common)
			case tt.notCommon != "" && strings.Contains(common, tt.notCommon):
				t.Errorf("common cause %q says %q", common, tt.notCommon)
			}
			outcome := map[rules.RuleID]verdict.Rule{}
			for _, r := range v.Rules {
				outcome[r.ID] = r
				if r.Level == rules.Open && strings.Contains(r.Result, "FAIL") {
					t.Errorf("the open rule %s reads %q", r.ID, r.Result)
				}
			}
			for _, id := range tt.notFailed {
				if r := outcome[id]; r.Outcome == verdict.Fail {
					t.Errorf("%s failed (%s), want it not failed", id, r.Result)
				}
			}
			for _, id := range tt.failed {
				if r := outcome[id]; r.Outcome != verdict.Fail {
					t.Errorf("%s %s, want it failed", id, r.Outcome)
				}
			}
			setup := 0
			for _, b := range v.Failures {
				for _, e := range b.Evidence {
					if strings.Contains(strings.Join(e.Details, " "), "the scenario's setup") {
						setup++
						if e.Rule != rules.Create200 || b.Rule != rules.Create200 {
							t.Errorf("a setup's failure in block %q is laid to %s (block %s), want CREATE-200", b.Heading, e.Rule, b.Rule)
						}
					}
				}
			}
			if (setup > 0) != tt.setupBlocks {
				t.Errorf("%d setup failures, want some: %v", setup, tt.setupBlocks)
			}
			if r := outcome[rules.AuthMissing]; tt.setupBlocks && !strings.Contains(r.NotJudgedBecause, NotJudgedSetup) {
				t.Errorf("AUTH-MISSING not judged because %q, want %q", r.NotJudgedBecause, NotJudgedSetup)
			}
		})
	}
}

// serverBlocks are a verdict's blocks of the service's, as the console
// reads them for a common cause.
func serverBlocks(v *verdict.Verdict) []verdict.Block {
	var out []verdict.Block
	for _, b := range v.Failures {
		if b.Side != "client" {
			out = append(out, b)
		}
	}
	return out
}

// TestProgressCountsToTheTotal: progress ends each row with the scenarios
// done of the run's total, the last row with every one of them.
func TestProgressCountsToTheTotal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tags string
		want int
	}{
		{"@CREATE-TAG", 1},
		{"@area-auth", selected("@area-auth")},
		{"", selected("")},
	}
	url, token := startTarget(t, nil)
	for _, tt := range tests {
		t.Run(tt.tags, func(t *testing.T) {
			var out bytes.Buffer
			rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Format: "progress", Tags: tt.tags}, Options{Output: &out})
			if err != nil {
				t.Fatal(err)
			}
			if tt.want < 1 || tt.want != rep.Model().Counts.Scenarios {
				t.Fatalf("%d scenarios selected, the run ran %d", tt.want, rep.Model().Counts.Scenarios)
			}
			rows := strings.Split(strings.TrimSpace(out.String()), "\n")
			if last, want := rows[len(rows)-1], fmt.Sprintf(" %d/%d scenarios", tt.want, tt.want); !strings.HasSuffix(last, want) {
				t.Errorf("the last row %q does not end %q", last, want)
			}
		})
	}
}

// selected counts the scenarios a tag expression selects, as start does.
func selected(tags string) int {
	_, n, _ := start(Config{Tags: tags})
	return n
}
