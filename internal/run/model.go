package run

import (
	"fmt"
	"slices"
	"time"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// outcomes map a scenario's outcome into the verdict's words.
var outcomes = map[steps.Outcome]verdict.Outcome{
	steps.Passed: verdict.Pass, steps.Failed: verdict.Fail, steps.Errored: verdict.Error, steps.Skipped: verdict.Skip,
}

// Model is the run's verdict, every report's data and its exit status,
// built in one pass from the report and decided once (verdict.Finish), the
// first time it is asked for; every report writer, the exit status and
// the console read that one.
func (r *Report) Model() *verdict.Verdict {
	if r.model == nil {
		r.model = r.build()
	}
	return r.model
}

func (r *Report) build() *verdict.Verdict {
	v := &verdict.Verdict{Driver: verdict.Run, Interrupted: r.Interrupted, LikelyCause: r.LikelyCause}
	v.Stamp(r.SpecTitle, r.SpecVersion)
	c := r.Config
	v.Target, v.Seed = r.Target, c.Seed
	v.Started, v.Ended, v.Duration = r.Started, r.Ended, verdict.Ms(r.Ended.Sub(r.Started))
	v.Scope, v.ReportDir = map[bool]string{false: "certified", true: "partial"}[r.Partial()], c.ReportDir
	v.Config = verdict.Config{
		BaseURL: c.BaseURL, Token: "<redacted>", Timeout: c.Timeout.String(), Tags: c.Tags,
		Strict: c.Strict, Concurrency: c.Concurrency, Rate: c.Rate, CACert: c.CACert, ConfigFile: c.ConfigFile,
		Proxy: r.Proxy,
	}
	if c.Reference {
		v.Config.Token = "<generated for the in-process reference server>"
	} else if c.TokenFrom != "" {
		v.Config.Token = "<redacted> (from " + c.TokenFrom + ")"
	}
	v.TokenFrom = c.TokenFrom
	v.Throttling.Exceeded = r.Throttling.Exceeded
	if t := r.Throttling; t.Total() > 0 {
		v.Throttling = verdict.Throttling{
			Answers: t.Answers, PausedMs: verdict.Ms(t.Paused), WaitedMs: verdict.Ms(t.Asked), SlowestPace: t.Slowest,
			Exceeded: t.Exceeded, Summary: r.ThrottleLine(),
		}
	}
	if f := r.Faults; f.Total() > 0 {
		v.Connections = verdict.Connections{
			Faults: f.Kinds, InFlight: f.At, LowestInFlight: f.Lowest, Judged: f.Judged, Summary: f.Summary(),
		}
	}
	t := verdict.NewTally()
	// One exchange's evidence shown in several failures (the rules one
	// answer broke) is rendered once.
	shown := map[*steps.Sent]exchangeShown{}
	counts := map[steps.Outcome]*int{
		steps.Passed: &v.Counts.Passed, steps.Failed: &v.Counts.Failed, steps.Errored: &v.Counts.Errors, steps.Skipped: &v.Counts.NotRun,
	}
	for _, sc := range r.Scenarios {
		tally(t, sc)
		v.Counts.Scenarios++
		v.Counts.Exchanges += len(sc.Exchanges)
		if n := counts[sc.Outcome]; n != nil {
			(*n)++
		}
		where := lineOf(sc)
		out := verdict.Scenario{
			Name: sc.Name, Where: where, Rule: sc.Rule.ID, Level: sc.Rule.Level, Outcome: outcomes[sc.Outcome],
			Duration: verdict.Ms(sc.Duration), Exchanges: len(sc.Exchanges), Note: sc.Note,
		}
		if sc.Err != nil {
			out.Error = sc.Err.Error()
		}
		if sc.Outcome == steps.Failed || sc.Outcome == steps.Errored {
			v.Failures = append(v.Failures, block(r, sc, where, out.Error, shown))
			out.Failure = len(v.Failures)
		}
		v.Scenarios = append(v.Scenarios, out)
	}
	v.Rules = t.Rules()
	for i := range v.Rules {
		v.Rules[i].Rerun = r.Rerun(v.Rules[i].ID)
	}
	v.Base = r.Baseline
	v.Finish()
	if c.Reference {
		v.OnReference(r.Target)
	}
	return v
}

// lineOf is the scenario's file and line, such as create_plant.feature:34.
func lineOf(sc steps.Result) string {
	scs, _ := features.Scenarios()
	for _, s := range scs {
		if s.URI == sc.URI && s.Name == sc.Name {
			return fmt.Sprintf("%s:%d", s.URI, s.Line)
		}
	}
	return sc.URI
}

// exchangeShown is one exchange as the evidence shows it, rendered once.
type exchangeShown struct{ request, reproduce, response string }

// block is a failed or erred scenario as a failure block: what it broke,
// each failure's evidence and reproduction, and the command that reruns it.
// shown holds the exchanges already rendered.
func block(r *Report, sc steps.Result, where, err string, shown map[*steps.Sent]exchangeShown) verdict.Block {
	b := verdict.Block{
		Heading: Heading(sc), Rule: sc.Rule.ID, Level: sc.Rule.Level, Side: "server", Outcome: outcomes[sc.Outcome],
		Scenario: sc.Name, Where: where, Error: err, Rerun: r.Rerun(sc.Rule.ID),
	}
	if failed := FailedRules(sc); len(failed) > 0 {
		// The block is the rule's its heading leads with: its own when it
		// failed at the highest level broken, else the rule it found
		// broken (an open rule never fails; a SHOULD scenario that found
		// a MUST rule broken is a MUST block), and is ordered with it.
		own := slices.ContainsFunc(failed, func(r rules.Rule) bool {
			return r.ID == sc.Rule.ID && r.Level == failed[0].Level
		})
		if !own {
			b.Rule, b.Level = failed[0].ID, failed[0].Level
		}
	}
	for _, f := range sc.Failures {
		e := verdict.Evidence{
			Rule: f.Rule.ID, Level: f.Rule.Level, Requirement: f.Rule.Requirement,
			Expected: f.Expected, Actual: f.Actual, Details: f.Details,
		}
		if x := f.Exchange; x != nil {
			s, ok := shown[x]
			if !ok {
				s = exchangeShown{request: x.RequestLine(), reproduce: x.Curl()}
				if x.Status != 0 {
					s.response = x.ResponseLine()
				}
				shown[x] = s
			}
			e.Request, e.Reproduce, e.Response, e.Violations = s.request, s.reproduce, s.response, x.Violations
			e.AnswerOf(&x.Exchange)
		}
		b.Evidence = append(b.Evidence, e)
	}
	return b
}

// WriteCannotRun writes the reports of a run that could not be made
// (exit 2) into dir, creating it: summary.json, summary.md and the rest
// saying why, with junit.xml one test case in error, so that a CI job that
// shows or uploads the reports shows the reason. err's text is
// plantcheck's, naming the user's settings; it is escaped all the same.
func WriteCannotRun(dir, target string, err error) error {
	now := time.Now()
	v := &verdict.Verdict{Driver: verdict.Run, Target: target, Started: now, Ended: now}
	v.Stamp("", "")
	why := evidence.Text(evidence.Cut(err.Error(), 2<<10))
	if werr := v.WriteCannotRun(dir, why); werr != nil {
		return fmt.Errorf("write the reports: %w", werr)
	}
	return nil
}
