package selftest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// One answer, one verdict per rule: a run's own traffic, recorded (--har)
// and judged again as `plantcheck judge` judges it, must give no rule
// `pass` where the run gave `fail`, or the other way round. A rule traffic
// cannot show may read "not judged" in the judgement of the recording.

// disagreements judges the recording of a run in file again, as
// `plantcheck judge` does, from its traffic alone, and names each rule
// whose outcome there contradicts the run's (pass against fail).
func disagreements(file string, ran []verdict.Rule) ([]string, error) {
	v, err := proxy.JudgeFiles(config.Judge{Files: []string{file}, MaxJudge: config.DefaultMaxJudge, MaxFile: config.MaxFile}, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("judge the run's recording: %w", err)
	}
	judged := map[string]verdict.Outcome{}
	for _, r := range v.Rules {
		judged[string(r.ID)] = r.Outcome
	}
	var out []string
	for _, r := range ran {
		j := judged[string(r.ID)]
		if r.Outcome == verdict.Pass && j == verdict.Fail || r.Outcome == verdict.Fail && j == verdict.Pass {
			out = append(out, fmt.Sprintf("%s: run %s, judge %s", r.ID, r.Outcome, j))
		}
	}
	return out, nil
}

// recording is a file for a run's recording in a folder of its own.
func recording() (file string, done func(), err error) {
	dir, err := os.MkdirTemp("", "plantcheck-selftest-")
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, "run.har"), func() { os.RemoveAll(dir) }, nil
}
