package run

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
)

// sharedReference names the bundled reference among the shared runs.
const sharedReference = "reference"

// sharedRun is one whole run, made once for every test that only reads
// what it made (its report, its console, its report files): a whole run
// costs a quarter of a second of CPU, and several tests assert the same
// run of the reference or of one mutant in ways of their own.
type sharedRun struct {
	once    sync.Once
	rep     *Report
	console string // the verdict, as the command prints it
	dir     string // the report folder, made by the run (reports/nested)
	err     error
}

var (
	sharedMu   sync.Mutex
	sharedRuns = map[string]*sharedRun{}
	sharedRoot string // every shared run's report folder; TestMain removes it
)

// shared returns the whole run, default configuration and every report
// written, against the reference (sharedReference, as the CLI starts it)
// or the mutant of that name, made the first time a test asks for it. The
// tests that call it must not change what it returns.
func shared(t *testing.T, name string) (rep *Report, console, dir string) {
	t.Helper()
	sharedMu.Lock()
	s := sharedRuns[name]
	if s == nil {
		s = &sharedRun{}
		sharedRuns[name] = s
	}
	if sharedRoot == "" {
		root, err := os.MkdirTemp("", "plantcheck-run-shared-")
		if err != nil {
			sharedMu.Unlock()
			t.Fatal(err)
		}
		sharedRoot = root
	}
	root := sharedRoot
	sharedMu.Unlock()
	s.once.Do(func() { s.make(root, name) })
	if s.err != nil {
		t.Fatalf("the shared run against %s: %v", name, s.err)
	}
	return s.rep, s.console, s.dir
}

func (s *sharedRun) make(root, name string) {
	cfg, stop, err := sharedTarget(name)
	if err != nil {
		s.err = err
		return
	}
	defer stop()
	// A folder the run makes, two levels deep (TestReportFiles).
	s.dir = filepath.Join(root, name, "reports", "nested")
	cfg.ReportDir = s.dir
	var out bytes.Buffer
	if s.rep, s.err = runWith(context.Background(), cfg, Options{Output: &out}); s.err != nil {
		return
	}
	out.Reset() // the progress dots
	s.rep.WriteVerdict(&out)
	s.console = out.String() // the model built: the readers after only read it
}

// sharedTarget starts a fresh target of the kind the shared run of that
// name meets: the reference as the CLI starts it (sharedReference), or the
// mutant of that name around a reference of its own, with the token of the
// shared run. cfg holds what a run needs to reach it; stop stops it.
func sharedTarget(name string) (cfg Config, stop func(), err error) {
	if name == sharedReference {
		url, token, stop, err := reference.StartLoopback()
		if err != nil {
			return Config{}, nil, err
		}
		return Config{BaseURL: url, Token: token, Reference: true}, stop, nil
	}
	m, ok := mutants.Lookup(name)
	if !ok {
		return Config{}, nil, fmt.Errorf("no mutant %s", name)
	}
	token := "t0ken-shared-" + name
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		return Config{}, nil, err
	}
	srv := httptest.NewServer(http.Handler(m.Wrap(ref, token)))
	return Config{BaseURL: srv.URL, Token: token}, srv.Close, nil
}

// removeShared removes the shared runs' report folders.
func removeShared() {
	if sharedRoot != "" {
		os.RemoveAll(sharedRoot)
	}
}
