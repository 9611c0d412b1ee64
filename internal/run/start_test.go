package run

import (
	"errors"
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

// TestStart: what the run checks of its configuration at start, the tags
// against the features and the baseline's file, is a configuration error
// (exit 2) that says what to fix.
func TestStart(t *testing.T) {
	t.Parallel()
	runs, proxies := summaryOf(t, verdict.Run), summaryOf(t, verdict.Proxy)
	for _, tt := range []struct {
		name string
		cfg  Config
		want string // "" accepted; else a part of the error
	}{
		{"all scenarios", Config{}, ""},
		{"a tag", Config{Tags: "@must"}, ""},
		{"no such tag", Config{Tags: "@NO-SUCH-RULE"}, "--tags"},
		{"a tag of no scenario", Config{Tags: "@must && @should"}, `--tags "@must && @should" selects no scenario`},
		{"or as ||", Config{Tags: "@must || @should"}, "--tags"},
		{"a run's baseline", Config{BaselineFile: runs}, ""},
		{"a proxy's baseline", Config{BaselineFile: proxies}, "not by 'plantcheck run'"},
		{"no such baseline", Config{BaselineFile: "nowhere/summary.json"}, "nowhere/summary.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, _, err := start(tt.cfg)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("start: %v, want nil", err)
			case tt.want == "" && (b != nil) != (tt.cfg.BaselineFile != ""):
				t.Fatalf("start read baseline %v from %q", b, tt.cfg.BaselineFile)
			case tt.want != "" && (!errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("start: %v, want a configuration error with %q", err, tt.want)
			case tt.cfg.BaselineFile != "" && err != nil && !strings.Contains(err.Error(), "--baseline"):
				t.Fatalf("start: %v does not name --baseline", err)
			}
		})
	}
}
