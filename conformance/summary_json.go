package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/steps"
)

// summary is the machine-readable record of a run: summary.json, and the
// data of the other reports.
type summary struct {
	Plantcheck struct {
		Version string `json:"version"`
	} `json:"plantcheck"`
	Spec struct {
		Title   string `json:"title"`
		Version string `json:"version"`
		SHA256  string `json:"sha256"`
	} `json:"spec"`
	Features struct {
		SHA256    string `json:"sha256"`
		Scenarios int    `json:"scenarios"`
	} `json:"features"`
	Target    string        `json:"target"`
	Reference bool          `json:"reference"`
	Config    summaryConfig `json:"config"`
	Seed      uint64        `json:"seed"`
	Started   time.Time     `json:"started"`
	Ended     time.Time     `json:"ended"`
	Duration  float64       `json:"durationMs"`
	Scope     string        `json:"scope"` // certified or partial
	Status    string        `json:"status"`
	Verdict   string        `json:"verdict"`
	ExitCode  int           `json:"exitCode"`
	// LikelyCause names a likely mistake of the setup; Error why a run
	// could not be made at all.
	LikelyCause string `json:"likelyCause,omitempty"`
	Error       string `json:"error,omitempty"`
	ConfigFile  string `json:"configFile,omitempty"`
	// Throttling is what the run met of throttling (429, 503 with
	// Retry-After), when it met any.
	Throttling *summaryThrottling `json:"throttling,omitempty"`
	Counts     Counts             `json:"counts"`
	Rules      []summaryRule      `json:"rules"`
	Scenarios  []summaryScene     `json:"scenarios"`
}

type summaryThrottling struct {
	Answers  map[int]int `json:"answers"`
	WaitedMs float64     `json:"waitedMs"`
	Exceeded string      `json:"exceeded,omitempty"`
	Summary  string      `json:"summary"`
}

type summaryConfig struct {
	BaseURL     string  `json:"baseURL"`
	Token       string  `json:"token"`
	Timeout     string  `json:"timeout"`
	Tags        string  `json:"tags"`
	Strict      bool    `json:"strict"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate,omitempty"`
	CACert      string  `json:"caCert,omitempty"`
}

type summaryRule struct {
	rules.Rule
	Outcome   string   `json:"outcome"`
	Word      string   `json:"result"`
	Scenarios int      `json:"scenarios"`
	Judged    int      `json:"judged"`
	Why       string   `json:"notJudgedBecause,omitempty"`
	Failures  int      `json:"failures"`
	Notes     []string `json:"notes,omitempty"`
	FoundBy   []string `json:"foundBy,omitempty"`
	Rerun     string   `json:"rerun"`
}

type summaryScene struct {
	Name string `json:"name"`
	// Heading names the scenario by what it broke (Heading).
	Heading   string           `json:"heading,omitempty"`
	Where     string           `json:"where"`
	Rule      rules.RuleID     `json:"rule"`
	Level     rules.Level      `json:"level"`
	Outcome   steps.Outcome    `json:"outcome"`
	Duration  float64          `json:"durationMs"`
	Exchanges int              `json:"exchanges"`
	Note      string           `json:"note,omitempty"`
	Error     string           `json:"error,omitempty"`
	Failures  []summaryFailure `json:"failures,omitempty"`
	Rerun     string           `json:"rerun,omitempty"`
}

type summaryFailure struct {
	Rule        rules.RuleID     `json:"rule"`
	Level       rules.Level      `json:"level"`
	Requirement string           `json:"requirement"`
	Expected    string           `json:"expected"`
	Actual      string           `json:"actual"`
	Details     []string         `json:"details,omitempty"`
	Request     string           `json:"request,omitempty"`
	Response    string           `json:"response,omitempty"`
	Violations  []spec.Violation `json:"violations,omitempty"`
	Curl        string           `json:"curl,omitempty"`
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// featuresDigest hashes the feature files, names and contents, in name
// order.
func featuresDigest() string {
	h := sha256.New()
	names, _ := fs.Glob(features.FS, "*.feature")
	slices.Sort(names)
	for _, n := range names {
		b, _ := fs.ReadFile(features.FS, n)
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r *Report) summary() *summary {
	s := &summary{
		Target: r.Target, Reference: r.Reference, Seed: r.Seed,
		Started: r.Started, Ended: r.Ended, Duration: ms(r.Ended.Sub(r.Started)),
		Scope: "certified", Status: r.Status(), Verdict: r.VerdictLine(), ExitCode: r.ExitCode(), Counts: r.Counts,
		LikelyCause: r.LikelyCause, ConfigFile: r.ConfigFile,
	}
	if t := r.Throttling; t.Total() > 0 {
		s.Throttling = &summaryThrottling{Answers: t.Answers, WaitedMs: ms(t.Waited), Exceeded: t.Exceeded, Summary: r.ThrottleLine()}
	}
	if r.Partial() {
		s.Scope = "partial"
	}
	s.Plantcheck.Version = buildinfo.Version()
	s.Spec.Title, s.Spec.Version, s.Spec.SHA256 = r.SpecTitle, r.SpecVersion, digest(spec.Document())
	s.Features.SHA256 = featuresDigest()
	if scs, err := features.Scenarios(); err == nil {
		s.Features.Scenarios = len(scs)
	}
	s.Config = summaryConfig{
		BaseURL: r.BaseURL, Token: "<redacted>", Timeout: r.Timeout.String(), Tags: r.Tags,
		Strict: r.Strict, Concurrency: r.Concurrency, Rate: r.Rate, CACert: r.CACert,
	}
	if r.Reference {
		s.Config.Token = "<generated for the in-process reference server>"
	}
	for _, v := range r.Rules {
		s.Rules = append(s.Rules, summaryRule{
			Rule: v.Rule, Outcome: string(v.Outcome), Word: outcomeWord(v), Scenarios: v.Scenarios, Judged: v.Judged, Why: v.Why,
			Failures: v.Failures, Notes: v.Notes, FoundBy: v.FoundBy, Rerun: r.Rerun(v.Rule.ID),
		})
	}
	for _, sc := range r.Scenarios {
		out := summaryScene{
			Name: sc.Name, Where: FailedScenario{Result: sc}.Where(), Rule: sc.Rule.ID, Level: sc.Rule.Level, Outcome: sc.Outcome,
			Duration: ms(sc.Duration), Exchanges: len(sc.Exchanges), Note: sc.Note,
		}
		if sc.Err != nil {
			out.Error = sc.Err.Error()
		}
		if sc.Outcome == steps.Failed || sc.Outcome == steps.Errored {
			out.Rerun = r.Rerun(sc.Rule.ID)
			out.Heading = Heading(sc)
		}
		for _, f := range sc.Failures {
			sf := summaryFailure{
				Rule: f.Rule.ID, Level: f.Rule.Level, Requirement: f.Rule.Requirement,
				Expected: f.Expected, Actual: f.Actual, Details: f.Details,
			}
			if x := f.Exchange; x != nil {
				sf.Request, sf.Curl, sf.Violations = x.RequestLine(), x.Curl(), x.Violations
				if x.Status != 0 {
					sf.Response = x.ResponseLine()
				}
			}
			out.Failures = append(out.Failures, sf)
		}
		s.Scenarios = append(s.Scenarios, out)
	}
	return s
}
