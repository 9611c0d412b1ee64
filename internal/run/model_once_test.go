package run

import (
	"bytes"
	"testing"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// TestModelOnce: a report's verdict is built once and read by every
// writer and the exit status; the console's colour does not reach it, and
// a report counted again (finish) is built again.
func TestModelOnce(t *testing.T) {
	t.Parallel()
	rule, _ := rules.Lookup(rules.Create200)
	r := &Report{Config: Config{Color: true}, Scenarios: []steps.Result{{Name: "a scenario", Rule: rule, Outcome: steps.Failed, Judged: true,
		Failures:   []*steps.Failure{{Rule: rule, Expected: "status 200", Actual: "status 400"}},
		Judgements: []judge.Result{{Rule: rule.ID, Judgement: judge.Judgement{Expected: "status 200", Actual: "status 400"}}}}}}
	r.finish()
	v := r.Model()
	if got := r.Model(); got != v {
		t.Fatalf("Model built twice")
	}
	var out bytes.Buffer
	r.WriteVerdict(&out)
	if got, want := r.ExitCode(), 1; got != want || r.Model() != v {
		t.Errorf("exit %d (the same verdict: %v), want %d", got, r.Model() == v, want)
	}
	var plain bytes.Buffer
	if v.WriteText(&plain, verdict.TextOptions{}); bytes.Contains(plain.Bytes(), []byte("\x1b[")) {
		t.Errorf("the console's colour reached the verdict the files are written from")
	}
	if !bytes.Contains(out.Bytes(), []byte("\x1b[")) {
		t.Errorf("the console's verdict is not coloured:\n%s", out.String())
	}
	r.finish()
	if r.Model() == v {
		t.Errorf("a report counted again kept its old verdict")
	}
}
