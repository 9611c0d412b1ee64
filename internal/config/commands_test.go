package config

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestServeResolve: serve's token is --token, else PLANTCHECK_TOKEN (""
// when neither: serve makes one up); a body bound must be positive.
func TestServeResolve(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{EnvToken: "env-token"})
	for _, tt := range []struct {
		name      string
		args      []string
		env       Env
		wantToken string
		wantErr   string
	}{
		{"the flag wins", []string{"--token", "flag-token"}, env, "flag-token", ""},
		{"the variable", nil, env, "env-token", ""},
		{"neither", nil, envOf(nil), "", ""},
		{"a flag given empty", []string{"--token", ""}, env, "", ""},
		{"the variable set empty", nil, envOf(map[string]string{EnvToken: ""}), "", "PLANTCHECK_TOKEN is set but empty (an unset CI variable or secret?): set it, or pass --token; unset PLANTCHECK_TOKEN to have one made up"},
		{"the variable set empty, and the flag", []string{"--token", "flag-token"}, envOf(map[string]string{EnvToken: ""}), "flag-token", ""},
		{"no body", []string{"--max-body", "0"}, env, "", "--max-body 0: it must be more than 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := Define[Serve](fs, "serve")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := f.Resolve(fs, tt.env)
			switch {
			case tt.wantErr != "" && (!errors.Is(err, ErrConfig) || err.Error() != tt.wantErr):
				t.Fatalf("Resolve: %v, want %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Resolve: %v", err)
			case tt.wantErr == "" && cfg.Token != tt.wantToken:
				t.Errorf("token %q, want %q", cfg.Token, tt.wantToken)
			}
		})
	}
}

// TestSelftestResolve: the lists of names are split as given.
func TestSelftestResolve(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
	f := Define[SelftestFlags](fs, "selftest")
	if err := fs.Parse([]string{"--mutant", "a, b", "--without", WithoutMustEcho, "--concurrency", "3", "--via-proxy"}); err != nil {
		t.Fatal(err)
	}
	cfg := f.Resolve()
	if !slices.Equal(cfg.Mutants, []string{"a", " b"}) || !slices.Equal(cfg.Without, []string{WithoutMustEcho}) || cfg.Parallel != 3 || !cfg.ViaProxy {
		t.Errorf("Resolve: %+v", cfg)
	}
	if none := Define[SelftestFlags](flag.NewFlagSet("selftest", flag.ContinueOnError), "selftest").Resolve(); none.Mutants != nil || none.Without != nil || none.Parallel != 2 || none.Seeds != 1 || none.Seed != 0 || none.ViaProxy {
		t.Errorf("the defaults: %+v", none)
	}
}

// TestSelftestValidate: --seeds is 1 to MaxSeeds, and --seed replays one
// seed, so it comes without more.
func TestSelftestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr string // "" for valid
	}{
		{"the defaults", nil, ""},
		{"one seed", []string{"--seeds", "1"}, ""},
		{"the most seeds", []string{"--seeds", "1000"}, ""},
		{"no seed", []string{"--seeds", "0"}, "--seeds 0: it must be between 1 and 1000"},
		{"fewer than none", []string{"--seeds", "-3"}, "--seeds -3: it must be between 1 and 1000"},
		{"too many seeds", []string{"--seeds", "1001"}, "--seeds 1001: it must be between 1 and 1000"},
		{"a seed to replay", []string{"--seed", "7"}, ""},
		{"a seed to replay and one fresh", []string{"--seed", "7", "--seeds", "1"}, ""},
		{"a seed to replay and fresh ones", []string{"--seed", "7", "--seeds", "20"}, "--seed 7 replays one seed, and --seeds 20 asks for 20 fresh ones: give one of them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
			f := Define[SelftestFlags](fs, "selftest")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := f.Resolve().Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate: %v, want nil", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrConfig)):
				t.Errorf("Validate: %v, want the configuration error %q", err, tt.wantErr)
			}
		})
	}
}

// TestFormats: diff, compare and docs refuse what they cannot write, and
// quote it escaped.
func TestFormats(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		err  error
		want string // "" valid
	}{
		{"diff text", Diff{Format: "text"}.Validate(), ""},
		{"diff json", Diff{Format: "json"}.Validate(), ""},
		{"diff html", Diff{Format: "html"}.Validate(), `--format "html": text, markdown or json`},
		{"diff escaped", Diff{Format: "\x1b[31m"}.Validate(), `\x1b`},
		{"compare markdown", Compare{Format: "markdown"}.Validate(), ""},
		{"compare text", Compare{Format: "text"}.Validate(), `--format "text": markdown or json`},
		{"docs", Docs{ReportDir: "out"}.Validate(), ""},
		{"rules text", Rules{Format: "text"}.Validate(), ""},
		{"rules json", Rules{Format: "json"}.Validate(), ""},
		{"rules markdown", Rules{Format: "markdown"}.Validate(), `--format "markdown": text or json`},
		{"docs without a folder", Docs{}.Validate(), "--report-dir is required"},
	} {
		switch {
		case tt.want == "" && tt.err != nil:
			t.Errorf("%s: %v", tt.name, tt.err)
		case tt.want != "" && (!errors.Is(tt.err, ErrConfig) || !strings.Contains(tt.err.Error(), tt.want)):
			t.Errorf("%s: %v, want %q", tt.name, tt.err, tt.want)
		}
	}
}
