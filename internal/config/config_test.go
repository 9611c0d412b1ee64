package config

import (
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// valid is a Run that passes Validate; each case changes one setting.
func valid() Run {
	r := Run{BaseURL: "http://127.0.0.1:1", Token: "t0ken-of-the-test"}
	r.Defaults()
	return r
}

func TestRunValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Run)
		want   string // "" valid; else a part of the error
	}{
		{"the defaults", func(*Run) {}, ""},
		{"zero timeout", func(r *Run) { r.Timeout = 0 }, "--timeout 0s: it must be more than 0"},
		{"negative timeout", func(r *Run) { r.Timeout = -time.Second }, "--timeout -1s"},
		{"zero concurrency", func(r *Run) { r.Concurrency = 0 }, "--concurrency 0: it must be between 1 and 64"},
		{"most concurrency", func(r *Run) { r.Concurrency = MaxConcurrency }, ""},
		{"too much concurrency", func(r *Run) { r.Concurrency = MaxConcurrency + 1 }, "--concurrency 65"},
		{"zero examples", func(r *Run) { r.Examples = 0 }, "--examples 0: it must be between 1 and 10000"},
		{"most examples", func(r *Run) { r.Examples = MaxExamples }, ""},
		{"too many examples", func(r *Run) { r.Examples = MaxExamples + 1 }, "--examples 10001"},
		{"negative rate", func(r *Run) { r.Rate = -1 }, "--rate -1: it must be 0 or more"},
		{"no rate", func(r *Run) { r.Rate = 0 }, ""},
		{"a format", func(r *Run) { r.Format = "pretty" }, ""},
		{"unknown format", func(r *Run) { r.Format = "xml" }, `unknown format "xml"`},
		{"a tag", func(r *Run) { r.Tags = "@must" }, ""},
		{"a check to leave out", func(r *Run) { r.Without = []string{"no-such-check"} }, `no check "no-such-check"`},
		{"a header", func(r *Run) { r.Headers = http.Header{"X-Api-Key": {"k"}} }, ""},
		{"a reserved header", func(r *Run) { r.Headers = http.Header{"authorization": {"k"}} }, "the scenarios set this header"},
		{"a header name with a space", func(r *Run) { r.Headers = http.Header{"X Key": {"k"}} }, "letters, digits and hyphens"},
		{"a proxy", func(r *Run) { r.Proxy = "socks5://proxy.example:1080" }, ""},
		{"a proxy that is not one", func(r *Run) { r.Proxy = "ftp://alice:s3cret@proxy.example:21" }, `the proxy "ftp://<redacted>@proxy.example:21" is not`},
		{"a proxy that does not parse", func(r *Run) { r.Proxy = "http://alice:s3cret@proxy example:3128" }, `(credentials redacted) "proxy example:3128"`},
		{"no target", func(r *Run) { r.BaseURL = "" }, "no target"},
		{"no target for the reference", func(r *Run) { r.BaseURL, r.Token, r.Reference = "", "", true }, ""},
		{"an ftp target", func(r *Run) { r.BaseURL = "ftp://example.com" }, "not an http or https URL"},
		{"a target without a host", func(r *Run) { r.BaseURL = "http://" }, "not an http or https URL"},
		{"a target with a query", func(r *Run) { r.BaseURL = "http://example.com/?a=1" }, "a query or fragment"},
		{"a target with a fragment", func(r *Run) { r.BaseURL = "http://example.com/#x" }, "a query or fragment"},
		{"a target with credentials, not shown", func(r *Run) { r.BaseURL = "ftp://alice:s3cret@example.com" }, `"ftp://<redacted>@example.com" is not`},
		{"a target without a token", func(r *Run) { r.Token = "" }, "bearer token"},
		{"a host without a scheme", func(r *Run) { r.BaseURL = "plants.example.com/api/v1" }, `"plants.example.com/api/v1" has no scheme: did you mean --base-url https://plants.example.com/api/v1?`},
		{"a host and port without a scheme", func(r *Run) { r.BaseURL = "plants.example.com:8443" }, "did you mean --base-url https://plants.example.com:8443?"},
		{"localhost without a scheme", func(r *Run) { r.BaseURL = "localhost:8080" }, "did you mean --base-url http://localhost:8080?"},
		{"a loopback address without a scheme", func(r *Run) { r.BaseURL = "127.0.0.1:8080" }, "did you mean --base-url http://127.0.0.1:8080?"},
		{"credentials without a scheme, not shown", func(r *Run) { r.BaseURL = "alice:s3cret@example.com" }, `(credentials redacted) "example.com" has no scheme`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := valid()
			tt.change(&r)
			err := r.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Fatalf("Validate: nil, want an error with %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("Validate: %v, want %q in it", err, tt.want)
			case err != nil && !errors.Is(err, ErrConfig):
				t.Fatalf("Validate: %v is not ErrConfig", err)
			case err != nil && strings.Contains(err.Error(), "s3cret"):
				t.Fatalf("Validate: %v shows a password", err)
			}
		})
	}
}

// TestDefaultsFillOnlyZero: a library caller's zero is a default, a value
// given stays.
func TestDefaultsFillOnlyZero(t *testing.T) {
	var r Run
	r.Defaults()
	if r.Timeout != DefaultTimeout || r.Concurrency != DefaultConcurrency || r.Examples != DefaultExamples || r.Format != "progress" || r.Seed == 0 {
		t.Errorf("Defaults left %+v", r)
	}
	g := Run{Timeout: time.Second, Concurrency: 3, Examples: 2, Format: "pretty", Seed: 7}
	g.Defaults()
	if g.Timeout != time.Second || g.Concurrency != 3 || g.Examples != 2 || g.Format != "pretty" || g.Seed != 7 {
		t.Errorf("Defaults changed a value given: %+v", g)
	}
}

func envOf(m map[string]string) Env {
	return Env{
		Getenv: func(k string) string { return m[k] },
		Lookup: func(k string) (string, bool) { v, ok := m[k]; return v, ok },
	}
}

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plantcheck.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunPrecedence: the command line wins over the environment, which
// wins over the file, which wins over the defaults.
func TestRunPrecedence(t *testing.T) {
	file := write(t, "base-url: http://file.example\ntoken: file-token-123\nconcurrency: 3\ntimeout: 3s\n")
	tests := []struct {
		name        string
		args        []string
		env         map[string]string
		wantURL     string
		wantToken   string
		wantConc    int
		wantTimeout time.Duration
		wantFrom    string
	}{
		{"the file", []string{"--config", file}, nil, "http://file.example", "file-token-123", 3, 3 * time.Second, "the config file " + file + " (key token)"},
		{"the environment over the file", []string{"--config", file}, map[string]string{EnvBaseURL: "http://env.example", EnvToken: "env-token-123"},
			"http://env.example", "env-token-123", 3, 3 * time.Second, EnvToken},
		{"the command line over both", []string{"--config", file, "--base-url", "http://cli.example", "--token", "cli-token-123", "--concurrency", "5"},
			map[string]string{EnvBaseURL: "http://env.example", EnvToken: "env-token-123"}, "http://cli.example", "cli-token-123", 5, 3 * time.Second, "--token"},
		{"the defaults", []string{"--base-url", "http://cli.example", "--token", "cli-token-123"}, nil, "http://cli.example", "cli-token-123", DefaultConcurrency, DefaultTimeout, "--token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := Define[RunFlags](fs, "run")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			cfg, _, err := f.Resolve(fs, envOf(tt.env))
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if cfg.BaseURL != tt.wantURL || cfg.Token != tt.wantToken || cfg.Concurrency != tt.wantConc || cfg.Timeout != tt.wantTimeout || cfg.TokenFrom != tt.wantFrom {
				t.Errorf("got %s %s %d %s %q, want %s %s %d %s %q", cfg.BaseURL, cfg.Token, cfg.Concurrency, cfg.Timeout, cfg.TokenFrom,
					tt.wantURL, tt.wantToken, tt.wantConc, tt.wantTimeout, tt.wantFrom)
			}
		})
	}
}

// TestConsoleFormatDefault: the console is progress, a terminal or not:
// pretty prints every scenario, hundreds of lines before the verdict that
// leads with what to fix; only --format pretty asks for it.
func TestConsoleFormatDefault(t *testing.T) {
	for _, tc := range []struct {
		name     string
		terminal bool
		args     []string
		want     string
	}{
		{"a pipe", false, nil, "progress"},
		{"a terminal", true, nil, "progress"},
		{"asked for", true, []string{"--format", "pretty"}, "pretty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := Define[RunFlags](fs, "run")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			env := envOf(nil)
			env.IsTerminal = tc.terminal
			cfg, _, err := f.Resolve(fs, env)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if cfg.Format != tc.want {
				t.Errorf("format %q, want %q", cfg.Format, tc.want)
			}
		})
	}
}

// TestRunResolveRefuses: what the command line or the file gives out of
// range is refused, not replaced by a default.
func TestRunResolveRefuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		file string
		want string
	}{
		{"zero concurrency on the command line", []string{"--concurrency", "0"}, "", "--concurrency 0"},
		{"zero examples in the file", nil, "base-url: http://x.example\ntoken: abcdefghij\nexamples: 0\n", "--examples 0"},
		{"a bad colour", []string{"--color", "pink"}, "", `--color "pink"`},
		{"a token with no target", []string{"--token", "abcdefghij"}, "", "--token given, but no target"},
		{"--require-target and no target", []string{"--require-target"}, "", "--require-target refuses"},
		{"PLANTCHECK_TOKEN set empty", []string{"--base-url", "http://x.example"}, "", "PLANTCHECK_TOKEN is set but empty"},
		// An empty variable is never passed over for the file's value.
		{"PLANTCHECK_TOKEN set empty over the file's token", nil, "base-url: http://x.example\ntoken: abcdefghij\n", "PLANTCHECK_TOKEN is set but empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := Define[RunFlags](fs, "run")
			args := tt.args
			if tt.file != "" {
				args = append([]string{"--config", write(t, tt.file)}, args...)
			}
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			var env map[string]string
			if strings.Contains(tt.want, EnvToken) {
				env = map[string]string{EnvToken: ""}
			}
			_, _, err := f.Resolve(fs, envOf(env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Resolve: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestProxyResolve: the proxy's own keys, from --config, under the
// command line and PLANTCHECK_UPSTREAM, and its ranges.
func TestProxyResolve(t *testing.T) {
	file := write(t, "upstream: http://file.example\nmax-judge: 2048\nstrict-clients: true\nreport-every: 1s\n")
	tests := []struct {
		name         string
		args         []string
		env          map[string]string
		wantUpstream string
		wantMaxJudge int64
		wantStrictC  bool
		wantErr      string
	}{
		{"the file", []string{"--config", file}, nil, "http://file.example", 2048, true, ""},
		{"the environment over the file", []string{"--config", file}, map[string]string{EnvUpstream: "http://env.example"}, "http://env.example", 2048, true, ""},
		{"the command line over both", []string{"--config", file, "--upstream", "http://cli.example", "--max-judge", "10"}, map[string]string{EnvUpstream: "http://env.example"}, "http://cli.example", 10, true, ""},
		{"no file, the defaults", []string{"--upstream", "http://cli.example"}, nil, "http://cli.example", 1 << 20, false, ""},
		{"no upstream", nil, nil, "", 0, false, "no upstream"},
		{"an ftp upstream", []string{"--upstream", "ftp://x.example"}, nil, "", 0, false, "must be an http or https URL"},
		{"an upstream with credentials", []string{"--upstream", "http://u:p@x.example"}, nil, "", 0, false, "must not carry credentials"},
		{"an upstream without a scheme", []string{"--upstream", "x.example:8080"}, nil, "", 0, false, "has no scheme: did you mean --upstream https://x.example:8080?"},
		{"zero timeout", []string{"--upstream", "http://x.example", "--timeout", "0s"}, nil, "", 0, false, "--timeout 0s: it must be more than 0 (such as 2s or 500ms)"},
		{"zero max-judge", []string{"--upstream", "http://x.example", "--max-judge", "0"}, nil, "", 0, false, "--max-judge 0: it must be more than 0"},
		{"negative report-every", []string{"--upstream", "http://x.example", "--report-every", "-1s"}, nil, "", 0, false, "--report-every -1s: it must be 0 or more"},
		{"PLANTCHECK_UPSTREAM set empty over the file", []string{"--config", file}, map[string]string{EnvUpstream: ""}, "", 0, false, "PLANTCHECK_UPSTREAM is set but empty"},
		{"PLANTCHECK_UPSTREAM set empty, and the flag", []string{"--upstream", "http://cli.example"}, map[string]string{EnvUpstream: ""}, "http://cli.example", 1 << 20, false, ""},
		{"a run key in the proxy's file", []string{"--config", write(t, "base-url: http://x.example\n")}, nil, "", 0, false, `unknown key "base-url"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := Define[ProxyFlags](fs, "proxy")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := f.Resolve(fs, envOf(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve: %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "u:p") {
					t.Errorf("the error shows the credentials: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got := cfg.Upstream.String(); got != tt.wantUpstream || cfg.MaxJudge != tt.wantMaxJudge || cfg.StrictClients != tt.wantStrictC {
				t.Errorf("got %s %d %v, want %s %d %v", got, cfg.MaxJudge, cfg.StrictClients, tt.wantUpstream, tt.wantMaxJudge, tt.wantStrictC)
			}
		})
	}
}
