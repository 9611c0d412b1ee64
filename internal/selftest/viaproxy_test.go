package selftest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestMutantsAgreeWithTheProxy: one answer, one verdict per rule,
// whichever driver saw it. The suite runs through a proxy in front of the
// reference and a sample of the mutants, and no rule passes in the run and
// fails in the proxy's verdict, or the other way round; the reference
// passes both, and the proxy, from the suite's traffic alone, catches
// mutants of its own. The whole sweep through the proxy costs more CPU
// than TestEveryMutantIsCaught's (68 s against 50, user and system): CI
// runs it (`plantcheck selftest --via-proxy`), and this test every ninth
// mutant, every twenty-seventh under the race detector, so that `go test
// ./...` stays within a minute.
func TestMutantsAgreeWithTheProxy(t *testing.T) {
	t.Parallel()
	sample := every(9, 4)
	if raceEnabled {
		sample = every(27, 4)
	}
	res, err := Run(context.Background(), Config{ViaProxy: true, Mutants: sample})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, ref := range res.Reference {
		if !ref.passes() {
			t.Errorf("seed %d: the reference through the proxy does not pass: %v, the run failed %v, the proxy %v", ref.Seed, ref.Err, ref.Failed, ref.ProxyFailed)
		}
		if len(ref.Disagree) > 0 {
			t.Errorf("seed %d: the reference's run and the proxy's verdict disagree: %v", ref.Seed, ref.Disagree)
		}
	}
	for _, row := range res.Rows {
		for _, run := range row.Trials {
			if run.Err != nil {
				t.Errorf("%s, seed %d: %v", row.Mutant.Name, run.Seed, run.Err)
			}
			if len(run.Disagree) > 0 {
				t.Errorf("%s, seed %d: the run and the proxy's verdict disagree: %v; rerun: %s", row.Mutant.Name, run.Seed, run.Disagree,
					res.cfg.rerun(&row.Mutant, run.Seed))
			}
		}
	}
	if res.ProxyCaught() == 0 {
		t.Errorf("the proxy caught none of %d mutants: did it see the suite's traffic?", len(res.Rows))
	}
	if res.Disagreements() != 0 {
		t.Errorf("%d runs disagree with the proxy's verdict", res.Disagreements())
	}
}

// TestContradictions: a rule passed by one judgement and failed by the
// other is named, with both outcomes; a rule they agree on, or one the
// other judgement could not judge, is not.
func TestContradictions(t *testing.T) {
	t.Parallel()
	ran := []verdict.Rule{
		{ID: rules.ResponseMedia, Outcome: verdict.Pass},
		{ID: rules.BodyIDRequired, Outcome: verdict.Fail},
		{ID: rules.ErrorRecord, Outcome: verdict.Fail},
		{ID: rules.Create200, Outcome: verdict.Pass},
		{ID: rules.CreateTag, Outcome: verdict.Pass},
	}
	other := []verdict.Rule{
		{ID: rules.ResponseMedia, Outcome: verdict.Fail},
		{ID: rules.BodyIDRequired, Outcome: verdict.Pass},
		{ID: rules.ErrorRecord, Outcome: verdict.Fail},
		{ID: rules.Create200, Outcome: verdict.NotJudged},
	}
	got := strings.Join(contradictions(ran, other, "proxy"), "|")
	if want := "RESPONSE-MEDIA: run pass, proxy fail|BODY-ID-REQUIRED: run fail, proxy pass"; got != want {
		t.Errorf("contradictions = %q, want %q", got, want)
	}
}

// TestViaProxyWrite: under --via-proxy the self-test's output counts the
// runs that agree with the proxy's verdict, names each disagreement (the
// mutant, the seed, the rule, both outcomes) with the rerun that replays
// it, counts the mutants the proxy caught, and fails.
func TestViaProxyWrite(t *testing.T) {
	t.Parallel()
	m := mutants.Mutant{Name: "error-as-text", Defect: "answers errors as text", Rules: []rules.RuleID{rules.ErrorRecord}}
	other := mutants.Mutant{Name: "drop-tag", Defect: "leaves the tag out", Rules: []rules.RuleID{rules.CreateTag}}
	res := &Result{
		Seeds:     []uint64{7},
		Reference: []Trial{{Seed: 7, Scenarios: 3, Exchanges: 5}},
		Rows: []Row{
			{Mutant: m, Trials: []Trial{{Seed: 7, Verdict: Caught, Failed: []rules.RuleID{rules.ErrorRecord}, ProxyFailed: []rules.RuleID{rules.ErrorRecord, rules.ResponseMedia},
				Disagree: []string{"BODY-ID-REQUIRED: run fail, proxy pass"}}}},
			{Mutant: other, Trials: []Trial{{Seed: 7, Verdict: Caught, Failed: []rules.RuleID{rules.CreateTag}}}},
		},
		cfg: Config{ViaProxy: true},
	}
	var out bytes.Buffer
	res.Write(&out)
	for _, want := range []string{
		"reference server, through the proxy: passes (3 scenarios, 5 exchanges)",
		"ERROR-RECORD (+1 other rule)",
		"the proxy alone, from the suite's traffic, catches 1 of 2 mutants",
		`contradiction: mutant "error-as-text" under seed 7: the proxy's verdict disagrees with its run: BODY-ID-REQUIRED: run fail, proxy pass; rerun: plantcheck selftest --via-proxy --mutant error-as-text --seed 7`,
		"one verdict per answer: 2 of 3 runs agree with the proxy's verdict, rule by rule",
		"SELFTEST: FAIL",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if res.OK() {
		t.Error("OK() = true with a disagreement, want false")
	}
}
