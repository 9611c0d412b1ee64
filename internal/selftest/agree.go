package selftest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// One answer, one verdict per rule: a run's own traffic, recorded (--har)
// and judged again as `plantcheck judge` judges it, must give no rule
// `pass` where the run gave `fail`, or the other way round. A rule traffic
// cannot show may read "not judged" in the judgement of the recording.

// maxRecording bounds the recording of one run read back.
const maxRecording = 256 << 20

// disagreements judges the recording of a run in file again, from its
// traffic alone, and names each rule whose outcome there contradicts
// the run's (pass against fail).
func disagreements(file string, ran []verdict.Rule) ([]string, error) {
	rec, err := proxy.NewRecording(proxy.RecordingConfig{Source: "the run's recording"})
	if err != nil {
		return nil, err
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	err = har.Read(f, maxRecording, func(e har.Entry) error {
		x, err := e.Exchange()
		if err != nil {
			return err
		}
		rec.Judge(x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the run's recording: %w", err)
	}
	judged := map[string]verdict.Outcome{}
	for _, r := range rec.Verdict(proxy.Options{}).Rules {
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
