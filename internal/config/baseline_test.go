package config

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestBaselineFlag: --baseline (and the config file's key baseline) is
// read for run and proxy alike; the engine reads the file at start
// (run.start, proxy.Run), where a file that cannot be a baseline is
// refused.
func TestBaselineFlag(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.json")
	file := filepath.Join(t.TempDir(), "plantcheck.yaml")
	os.WriteFile(file, []byte("baseline: "+summary+"\n"), 0o644)
	env := Env{Getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		name, cmd string
		args      []string
	}{
		{"run", "run", []string{"--baseline", summary}},
		{"run, from the config file", "run", []string{"--config", file, "--base-url", "http://127.0.0.1:1", "--token", "t0ken-of-the-test"}},
		{"proxy", "proxy", []string{"--upstream", "http://127.0.0.1:1", "--baseline", summary}},
		{"proxy, from the config file", "proxy", []string{"--upstream", "http://127.0.0.1:1", "--config", file}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet(tc.cmd, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var got string
			var err error
			if tc.cmd == "run" {
				f := Define[RunFlags](fs, "run")
				if err := fs.Parse(tc.args); err != nil {
					t.Fatal(err)
				}
				var cfg Run
				cfg, _, err = f.Resolve(fs, env)
				got = cfg.BaselineFile
			} else {
				f := Define[ProxyFlags](fs, "proxy")
				if err := fs.Parse(tc.args); err != nil {
					t.Fatal(err)
				}
				var cfg Proxy
				cfg, err = f.Resolve(fs, env)
				got = cfg.BaselineFile
			}
			if err != nil || got != summary {
				t.Errorf("baseline %q, %v; want %q", got, err, summary)
			}
		})
	}
}
