package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestUsageAsTyped: what users type by habit or by slip gets the reason
// and, where one is close, what they meant; every case is exit 2 but
// --version.
func TestUsageAsTyped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	underscore := config("underscore.yaml", "base_url: http://127.0.0.1:1\n")
	typo := config("typo.yaml", "timout: 5s\n")
	far := config("far.yaml", "flavour: mint\n")
	bareSeconds := config("seconds.yaml", "timeout: 10\n")
	_, version, _ := invoke(t, nil, "version")
	tests := []struct {
		name       string
		env        map[string]string
		args       []string
		wantCode   int
		wantStdout string // a regular expression; "" for nothing asked
		wantStderr []string
		notStderr  string
	}{
		{name: "--version", args: []string{"--version"}, wantCode: 0, wantStdout: "^" + regexp.QuoteMeta(version) + "$"},
		{name: "-version", args: []string{"-version"}, wantCode: 0, wantStdout: "^" + regexp.QuoteMeta(version) + "$"},
		{name: "-v", args: []string{"-v"}, wantCode: 2, wantStderr: []string{`unknown command "-v"\ndid you mean --version\?`}},
		{name: "a mistyped command", args: []string{"runn"}, wantCode: 2, wantStderr: []string{`unknown command "runn"\ndid you mean run\?`}},
		{name: "a command far from any", args: []string{"publish"}, wantCode: 2, wantStderr: []string{`unknown command "publish"\nRun 'plantcheck help' for the commands\.\n$`}},
		{name: "a flag of run for a command", args: []string{"--base-url", "http://x", "--token", canary}, wantCode: 2, wantStderr: []string{`unknown command "--base-url"\ndid you mean plantcheck run --base-url \.\.\.\? The command comes first\.\n`}, notStderr: canary},
		{name: "help for a command", args: []string{"-h"}, wantCode: 0, wantStdout: `Commands:`},
		{name: "a command with two letters swapped", args: []string{"rnu"}, wantCode: 2, wantStderr: []string{`unknown command "rnu"\ndid you mean run\?\nRun 'plantcheck help' for the commands\.\n$`}},
		{name: "a URL for a command", args: []string{"http://127.0.0.1:8080"}, wantCode: 2, wantStderr: []string{`did you mean plantcheck run --base-url http://127\.0\.0\.1:8080\?`}},
		{name: "a flag one letter short", args: []string{"run", "--base-ur", "http://x"}, wantCode: 2, wantStderr: []string{`not defined: --base-ur\ndid you mean --base-url\?`}},
		{name: "a flag typed with one dash is echoed so", args: []string{"run", "-base-ulr", "http://x"}, wantCode: 2, wantStderr: []string{`not defined: -base-ulr\ndid you mean --base-url\?`}},
		{name: "a flag=value is echoed as its name", args: []string{"run", "--base-ulr=http://x"}, wantCode: 2, wantStderr: []string{`not defined: --base-ulr\n`}},
		{name: "a bad value is echoed as typed", args: []string{"run", "--timeout", "soon"}, wantCode: 2, wantStderr: []string{`invalid value "soon" for flag --timeout: `}},
		{name: "a bad boolean is echoed as typed", args: []string{"run", "--strict=maybe"}, wantCode: 2, wantStderr: []string{`for --strict: `}},
		{name: "a URL without its scheme", args: []string{"run", "--base-url", "plants.example.com", "--token", "abcdefghij"}, wantCode: 2, wantStderr: []string{`has no scheme: did you mean --base-url https://plants\.example\.com\?`}},
		{name: "an upstream without its scheme", args: []string{"proxy", "--upstream", "localhost:8080"}, wantCode: 2, wantStderr: []string{`did you mean --upstream http://localhost:8080\?`}},
		{name: "PLANTCHECK_TOKEN set empty", env: map[string]string{"PLANTCHECK_TOKEN": ""}, args: []string{"run", "--base-url", "http://127.0.0.1:1"}, wantCode: 2, wantStderr: []string{`PLANTCHECK_TOKEN is set but empty`}, notStderr: `needs its bearer token`},
		{name: "flags after judge's file", args: []string{"judge", "missing.har", "--report-dir", "r2"}, wantCode: 2, wantStderr: []string{`missing\.har`}, notStderr: `open --report-dir`},
		{name: "flags after diff's files", args: []string{"diff", "old.json", "new.json", "--format", "xml"}, wantCode: 2, wantStderr: []string{`--format "xml": text, markdown or json`}},
		{name: "flags between compare's files", args: []string{"compare", "a.json", "--format", "xml", "b.json"}, wantCode: 2, wantStderr: []string{`--format "xml": markdown or json`}},
		{name: "a flag after merge's file", args: []string{"merge", "a.json", "--no-such"}, wantCode: 2, wantStderr: []string{`not defined: --no-such\n`}},
		{name: "after --, a file", args: []string{"merge", "--", "--strict"}, wantCode: 2, wantStderr: []string{`plantcheck merge: --strict: `}},
		{name: "-- as a flag's value", args: []string{"diff", "--format", "--", "a", "b"}, wantCode: 2, wantStderr: []string{`--format "--": text, markdown or json`}},
		{name: "docs --out, deprecated", args: []string{"docs", "--out", ""}, wantCode: 2, wantStderr: []string{`^--out is deprecated; use --report-dir \(removed in v2\.0\.0\)\n`, `--report-dir is required`}},
		{name: "compare --out, deprecated", args: []string{"compare", "--out", "x", "missing.json"}, wantCode: 2, wantStderr: []string{`^--out is deprecated; use --report-dir \(removed in v2\.0\.0\)\nplantcheck compare: missing\.json: `}},
		{name: "rules --json, deprecated", args: []string{"rules", "--json"}, wantCode: 0, wantStdout: `"id": "AUTH-EMPTY"`, wantStderr: []string{`^--json is deprecated; use --format json \(removed in v2\.0\.0\)\n$`}},
		{name: "rules -v, deprecated", args: []string{"rules", "-v"}, wantCode: 0, wantStdout: `(?m)^AUTH-UNKNOWN \(MUST\), from Authentication$`, wantStderr: []string{`^-v is deprecated; use --verbose \(removed in v2\.0\.0\)\n$`}},
		{name: "rules a bad format", args: []string{"rules", "--format", "xml"}, wantCode: 2, wantStderr: []string{`--format "xml": text or json\nRun 'plantcheck rules -h'`}},
		{name: "selftest --parallel, deprecated", args: []string{"selftest", "--parallel", "1", "--list", "--mutant", "drop-tag"}, wantCode: 0, wantStdout: `^drop-tag `, wantStderr: []string{`^--parallel is deprecated; use --concurrency \(removed in v2\.0\.0\)\n$`}},
		{name: "underscores for hyphens", args: []string{"run", "--base_url", "http://x"}, wantCode: 2, wantStderr: []string{`did you mean --base-url\?`}},
		{name: "capitals", args: []string{"run", "--Base-URL", "http://x"}, wantCode: 2, wantStderr: []string{`did you mean --base-url\?`}},
		{name: "a flag's beginning", args: []string{"run", "--report", "x"}, wantCode: 2, wantStderr: []string{`did you mean --report-dir\?`}},
		{name: "a flag of proxy", args: []string{"proxy", "--upstrem", "http://x"}, wantCode: 2, wantStderr: []string{`did you mean --upstream\?`}},
		{name: "a flag far from any", args: []string{"run", "--flavour"}, wantCode: 2, wantStderr: []string{`not defined: --flavour\nRun 'plantcheck run -h'`}, notStderr: `did you mean`},
		{name: "a URL as run's argument", args: []string{"run", "http://127.0.0.1:8080"}, wantCode: 2, wantStderr: []string{`unexpected argument "http://127\.0\.0\.1:8080"\ndid you mean --base-url http://127\.0\.0\.1:8080\?`}},
		{name: "a URL as proxy's argument", args: []string{"proxy", "https://plants.example.com"}, wantCode: 2, wantStderr: []string{`did you mean --upstream https://plants\.example\.com\?`}},
		{name: "a word as run's argument", args: []string{"run", "now"}, wantCode: 2, wantStderr: []string{`unexpected argument "now"\nRun 'plantcheck run -h'`}},
		{name: "a duration without its unit", args: []string{"run", "--timeout", "10"}, wantCode: 2, wantStderr: []string{`--timeout 10: a duration needs its unit, such as 10s or 10ms`}, notStderr: `parse error`},
		{name: "a fraction without its unit", args: []string{"run", "--timeout=2.5"}, wantCode: 2, wantStderr: []string{`--timeout 2\.5: a duration needs its unit`}},
		{name: "a duration of proxy without its unit", args: []string{"proxy", "--report-every", "30"}, wantCode: 2, wantStderr: []string{`--report-every 30: a duration needs its unit`}},
		{name: "a flag for a folder", args: []string{"run", "--report-dir", "--strict"}, wantCode: 2, wantStderr: []string{`--report-dir needs a value, and was followed by the flag --strict`}},
		{name: "a flag for a token", args: []string{"run", "--token", "-h"}, wantCode: 2, wantStderr: []string{`--token needs a value, and was followed by the flag -h`}},
		{name: "a flag=value for a value", args: []string{"run", "--tags", "--seed=4"}, wantCode: 2, wantStderr: []string{`--tags needs a value, and was followed by the flag --seed`}},
		{name: "a flag with no value at the end", args: []string{"run", "--report-dir"}, wantCode: 2, wantStderr: []string{`plantcheck run: --report-dir needs a value\n`}},
		{name: "a negative number stays a value", args: []string{"run", "--rate", "-1"}, wantCode: 2, wantStderr: []string{`--rate -1: it must be 0 or more`}},
		{name: "a config key with an underscore", args: []string{"run", "--config", underscore}, wantCode: 2, wantStderr: []string{`unknown key "base_url"; did you mean base-url\?`}},
		{name: "a mistyped config key", args: []string{"run", "--config", typo}, wantCode: 2, wantStderr: []string{`unknown key "timout"; did you mean timeout\?`}},
		{name: "a config key far from any", args: []string{"run", "--config", far}, wantCode: 2, wantStderr: []string{`unknown key "flavour"; the keys are`}},
		{name: "a config duration without its unit", args: []string{"run", "--config", bareSeconds}, wantCode: 2, wantStderr: []string{`key "timeout": 10: a duration needs its unit, such as 10s or 10ms`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := invoke(t, tt.env, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tt.wantCode, stderr)
			}
			if tt.wantStdout != "" && !regexp.MustCompile(tt.wantStdout).MatchString(stdout) {
				t.Errorf("stdout %q does not match %q", stdout, tt.wantStdout)
			}
			for _, re := range tt.wantStderr {
				if !regexp.MustCompile(re).MatchString(stderr) {
					t.Errorf("stderr does not match %q:\n%s", re, stderr)
				}
			}
			if tt.notStderr != "" && regexp.MustCompile(tt.notStderr).MatchString(stderr) {
				t.Errorf("stderr matches %q:\n%s", tt.notStderr, stderr)
			}
		})
	}
}

// TestUndefinedFlagMessage pins the flag package's message that
// undefinedFlag reads, which it exports no error type for.
func TestUndefinedFlagMessage(t *testing.T) {
	t.Parallel()
	fs := newFlagSet(cli{stderr: nilWriter{}}, "x", "", "")
	fs.SetOutput(nilWriter{})
	err := fs.Parse([]string{"--nope"})
	if err == nil {
		t.Fatal("no error for an undefined flag")
	}
	if got := undefinedFlag(err); got != "nope" {
		t.Errorf("undefinedFlag(%q) = %q, want nope", err, got)
	}
}

type nilWriter struct{}

func (nilWriter) Write(p []byte) (int, error) { return len(p), nil }
