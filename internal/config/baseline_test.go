package config

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/verdict"
)

// summaryOf writes the summary.json of a verdict of driver d, every rule
// passed, and returns its path.
func summaryOf(t *testing.T, d verdict.Driver) string {
	t.Helper()
	v := &verdict.Verdict{Driver: d, Scope: "certified"}
	if d == verdict.Proxy {
		v.Scope = "traffic"
	}
	v.Stamp("Plant Store API", "1.0.0")
	v.Rules = verdict.NewTally().Rules()
	v.Finish()
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, verdict.SummaryJSON)
}

// TestBaselineFlag: --baseline (and the config file's key baseline) is
// read for run and proxy alike; a file that cannot be a baseline is a
// configuration error (exit 2) with the reason.
func TestBaselineFlag(t *testing.T) {
	runs, proxies := summaryOf(t, verdict.Run), summaryOf(t, verdict.Proxy)
	file := filepath.Join(t.TempDir(), "plantcheck.yaml")
	os.WriteFile(file, []byte("baseline: "+runs+"\n"), 0o644)
	env := Env{Getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		name, cmd string
		args      []string
		want      string // "" a baseline is read; else a part of the error
	}{
		{"run", "run", []string{"--baseline", runs}, ""},
		{"run, from the config file", "run", []string{"--config", file, "--base-url", "http://127.0.0.1:1", "--token", "t0ken-of-the-test"}, ""},
		{"proxy", "proxy", []string{"--upstream", "http://127.0.0.1:1", "--baseline", proxies}, ""},
		{"run, a proxy's baseline", "run", []string{"--baseline", proxies}, "not by 'plantcheck run'"},
		{"proxy, a run's baseline", "proxy", []string{"--upstream", "http://127.0.0.1:1", "--baseline", runs}, "not by 'plantcheck proxy'"},
		{"run, no such file", "run", []string{"--baseline", "nowhere/summary.json"}, "nowhere/summary.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet(tc.cmd, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var got *verdict.Baseline
			var err error
			if tc.cmd == "run" {
				f := DefineRun(fs)
				if err := fs.Parse(tc.args); err != nil {
					t.Fatal(err)
				}
				var cfg Run
				cfg, _, err = f.Resolve(env)
				got = cfg.Baseline
			} else {
				f := DefineProxy(fs)
				if err := fs.Parse(tc.args); err != nil {
					t.Fatal(err)
				}
				var cfg Proxy
				cfg, err = f.Resolve(env)
				got = cfg.Baseline
			}
			switch {
			case tc.want == "" && (err != nil || got == nil):
				t.Errorf("no baseline read: %v", err)
			case tc.want != "" && (!errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--baseline")):
				t.Errorf("error %v, want a configuration error naming --baseline and %q", err, tc.want)
			}
		})
	}
}
