package proxy

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// TestRunBaseline: the proxy reads --baseline at start: a proxy's verdict
// is its baseline; a run's, or no file, is a configuration error (exit 2)
// naming --baseline and why, before anything listens.
func TestRunBaseline(t *testing.T) {
	t.Parallel()
	summaryOf := func(d verdict.Driver, scope string) string {
		v := &verdict.Verdict{Driver: d, Scope: scope}
		v.Stamp("Plant Store API", "1.0.0")
		v.Rules = verdict.NewTally().Rules()
		v.Finish()
		dir := t.TempDir()
		if err := v.WriteFiles(dir); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, verdict.SummaryJSON)
	}
	runs, proxies := summaryOf(verdict.Run, "certified"), summaryOf(verdict.Proxy, "traffic")
	for _, tt := range []struct {
		name, file, want string // want "": accepted
	}{
		{"a proxy's baseline", proxies, ""},
		{"a run's baseline", runs, "not by 'plantcheck proxy'"},
		{"no such file", "nowhere/summary.json", "nowhere/summary.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // the verdict at once
			cfg := config.Proxy{Addr: "127.0.0.1:0", Upstream: &url.URL{Scheme: "http", Host: "127.0.0.1:1"},
				Timeout: time.Second, MaxJudge: config.DefaultMaxJudge, BaselineFile: tt.file}
			var out, errOut bytes.Buffer
			v, err := Run(ctx, cfg, Streams{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "1" }})
			switch {
			case tt.want == "" && (err != nil || v.Baseline == nil):
				t.Fatalf("Run: %v, baseline %v; want the baseline read", err, v)
			case tt.want != "" && (!errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--baseline")):
				t.Fatalf("Run: %v, want a configuration error naming --baseline and %q", err, tt.want)
			case tt.want != "" && errOut.Len() > 0:
				t.Fatalf("refused, yet it said: %s", errOut.String())
			}
		})
	}
}
