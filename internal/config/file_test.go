package config

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// configFlags is a flag set shaped like run's: strings, an int, a bool, a
// duration, a uint64 and the repeatable --header.
type configFlags struct {
	fs          *flag.FlagSet
	baseURL     string
	token       string
	timeout     time.Duration
	concurrency int
	strict      bool
	seed        uint64
	headers     headerFlag
}

// configGot is what a flag set holds after loading, comparable with ==.
type configGot struct {
	baseURL, token string
	timeout        time.Duration
	concurrency    int
	strict         bool
	seed           uint64
	headers        string // joined with "|"
}

func newConfigFlags(t *testing.T, args ...string) (*configFlags, map[string]bool) {
	t.Helper()
	f := &configFlags{fs: newFlagSet(cli{stderr: io.Discard}, "run", "[flags]", "test")}
	f.fs.StringVar(&f.baseURL, "base-url", "", "")
	f.fs.StringVar(&f.token, "token", "", "")
	f.fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "")
	f.fs.IntVar(&f.concurrency, "concurrency", 1, "")
	f.fs.BoolVar(&f.strict, "strict", false, "")
	f.fs.Uint64Var(&f.seed, "seed", 0, "")
	f.fs.Var(&f.headers, "header", "")
	var config string
	f.fs.StringVar(&config, "config", "", "")
	if err := f.fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return f, set
}

func (f *configFlags) got() configGot {
	return configGot{f.baseURL, f.token, f.timeout, f.concurrency, f.strict, f.seed, strings.Join(f.headers, "|")}
}

// defaults is what newConfigFlags holds before any file.
var defaults = configGot{timeout: 10 * time.Second, concurrency: 1}

// with returns defaults changed by change.
func with(change func(*configGot)) configGot {
	g := defaults
	change(&g)
	return g
}

func writeConfig(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfigFile(t *testing.T) {
	env := map[string]string{
		"PLANT_STORE_TOKEN": "env-token-value",
		"GATEWAY_KEY":       "env-gateway-key",
		"HOST":              "plants.example.com",
		"EMPTY":             "",
	}
	tests := []struct {
		name    string
		args    []string // the command line
		yaml    string
		want    configGot
		wantErr []string // substrings of the error; nil: no error
	}{
		{
			name: "scalar keys",
			yaml: "base-url: https://plants.example.com/api\ntoken: file-token\ntimeout: 2s\nconcurrency: 4\nstrict: true\nseed: 42\n",
			want: with(func(g *configGot) {
				g.baseURL, g.token, g.timeout, g.concurrency, g.strict, g.seed = "https://plants.example.com/api", "file-token", 2*time.Second, 4, true, 42
			}),
		},
		{
			name: "list for the repeatable flag",
			yaml: "header:\n  - 'X-Api-Key: one'\n  - 'X-Tenant: two'\n",
			want: with(func(g *configGot) { g.headers = "X-Api-Key: one|X-Tenant: two" }),
		},
		{
			name: "flow list for the repeatable flag",
			yaml: `header: ["X-Api-Key: one"]`,
			want: with(func(g *configGot) { g.headers = "X-Api-Key: one" }),
		},
		{
			name: "scalar for the repeatable flag",
			yaml: "header: 'X-Api-Key: one'\n",
			want: with(func(g *configGot) { g.headers = "X-Api-Key: one" }),
		},
		{
			name: "aliases are followed",
			yaml: "base-url: &u https://plants.example.com\ntoken: *u\n",
			want: with(func(g *configGot) { g.baseURL, g.token = "https://plants.example.com", "https://plants.example.com" }),
		},
		{
			name: "variables expanded",
			yaml: "base-url: https://${HOST}/api\ntoken: ${PLANT_STORE_TOKEN}\nheader: [\"X-Api-Key: ${GATEWAY_KEY}\"]\n",
			want: with(func(g *configGot) {
				g.baseURL, g.token, g.headers = "https://plants.example.com/api", "env-token-value", "X-Api-Key: env-gateway-key"
			}),
		},
		{
			name: "a lone dollar stays as written",
			yaml: "token: 'a$b$HOST$'\n",
			want: with(func(g *configGot) { g.token = "a$b$HOST$" }),
		},
		{
			name: "the command line wins",
			args: []string{"--token", "cli-token", "--header", "X-Cli: yes"},
			yaml: "token: file-token\nheader: ['X-File: no']\nconcurrency: 3\n",
			want: with(func(g *configGot) { g.token, g.headers, g.concurrency = "cli-token", "X-Cli: yes", 3 }),
		},
		{
			name: "a variable of a value the command line overrides need not be set",
			args: []string{"--token", "cli-token"},
			yaml: "token: ${NOT_SET}\n",
			want: with(func(g *configGot) { g.token = "cli-token" }),
		},
		{name: "empty file", yaml: "", want: defaults},
		{name: "comments only", yaml: "# nothing yet\n", want: defaults},
		{name: "null document", yaml: "~\n", want: defaults},
		{
			name:    "list for a flag that takes one value",
			yaml:    "token: [a, b]\n",
			wantErr: []string{`line 1`, `key "token"`, `a list, but --token takes one value`},
		},
		{
			name:    "mapping refused",
			yaml:    "base-url:\n  host: x\n",
			wantErr: []string{`key "base-url"`, `not a mapping`},
		},
		{
			name:    "list of mappings refused",
			yaml:    "header:\n  - name: X-Api-Key\n",
			wantErr: []string{`key "header"`, `item 1 of the list is not a string, number or bool`},
		},
		{
			name:    "unset variable refused",
			yaml:    "token: ${PLANT_STORE_TOKN}\n",
			wantErr: []string{`key "token"`, `environment variable PLANT_STORE_TOKN is unset or empty`},
		},
		{
			name:    "empty variable refused",
			yaml:    "header: ['X-Api-Key: ${EMPTY}']\n",
			wantErr: []string{`key "header"`, `environment variable EMPTY is unset or empty`},
		},
		{
			name:    "unclosed reference refused",
			yaml:    "token: ${PLANT_STORE_TOKEN\n",
			wantErr: []string{`key "token"`, `does not start a ${NAME} reference`},
		},
		{
			name:    "unknown key refused",
			yaml:    "base-url: http://x\ntokn: y\n",
			wantErr: []string{`line 2`, `unknown key "tokn"`, `base-url, concurrency, header, seed, strict, timeout, token`},
		},
		{
			name:    "config key refused",
			yaml:    "config: other.yaml\n",
			wantErr: []string{`key "config"`},
		},
		{
			name:    "key given twice",
			yaml:    "token: a\ntoken: b\n",
			wantErr: []string{`line 2`, `key "token" given twice`},
		},
		{
			name:    "duration without a unit",
			yaml:    "timeout: 2\n",
			wantErr: []string{`key "timeout"`, `2: a duration needs its unit, such as 2s or 2ms`},
		},
		{
			name:    "bool not a bool",
			yaml:    "strict: maybe\n",
			wantErr: []string{`key "strict"`, `not a valid bool`},
		},
		{
			name:    "a variable without braces",
			yaml:    "base-url: https://plants.example.com\ntoken: $PLANT_STORE_TOKEN\n",
			wantErr: []string{`line 2`, `key "token"`, `$PLANT_STORE_TOKEN names a variable without braces`, `write ${PLANT_STORE_TOKEN}`},
		},
		{
			name: "a dollar before a digit stays as written",
			yaml: "token: '$2b$10$abc'\n",
			want: with(func(g *configGot) { g.token = "$2b$10$abc" }),
		},
		{
			name:    "every unset variable at once",
			yaml:    "base-url: https://${NO_HOST}/api\ntoken: ${NO_TOKEN}\nheader: ['X-Api-Key: ${GATEWAY_KEY}', 'X-Tenant: $TENANT']\n",
			wantErr: []string{`line 1`, `NO_HOST is unset`, `line 2`, `NO_TOKEN is unset`, `line 3`, `write ${TENANT}`},
		},
		{
			name:    "int not an int",
			yaml:    "concurrency: 1.5\n",
			wantErr: []string{`key "concurrency"`, `not a valid int`},
		},
		{
			name:    "key without a value",
			yaml:    "token:\n",
			wantErr: []string{`key "token"`, `no value`},
		},
		{
			name:    "not a mapping",
			yaml:    "- token\n",
			wantErr: []string{`want a mapping of flag names to values`},
		},
		{
			name:    "not YAML",
			yaml:    "token: \"unclosed\n",
			wantErr: []string{`not valid YAML`, `line `},
		},
		{
			name:    "two documents",
			yaml:    "token: a\n---\ntoken: b\n",
			wantErr: []string{`a second YAML document`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, set := newConfigFlags(t, tt.args...)
			path := writeConfig(t, t.TempDir(), "plantcheck-test.yaml", tt.yaml)
			used, err := loadConfigFile(f.fs, path, set, func(k string) string { return env[k] })
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, want one holding %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not hold %q", err, w)
					}
				}
				if !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name the file %s", err, path)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if used != path {
				t.Errorf("used = %q, want %q", used, path)
			}
			if got := f.got(); got != tt.want {
				t.Errorf("flags = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// The lead's precedence (a variable only for a flag neither the command line
// nor the file set) rests on fs.Set marking a flag as set.
func TestConfigValuesCountAsSet(t *testing.T) {
	f, set := newConfigFlags(t, "--strict")
	path := writeConfig(t, t.TempDir(), "c.yaml", "token: file-token\n")
	if _, err := loadConfigFile(f.fs, path, set, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	after := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { after[fl.Name] = true })
	for name, want := range map[string]bool{"strict": true, "token": true, "base-url": false} {
		if got := after[name]; got != want {
			t.Errorf("after loading, %s set = %v, want %v", name, got, want)
		}
	}
}

func TestConfigDefaultFile(t *testing.T) {
	t.Chdir(t.TempDir())
	getenv := func(string) string { return "" }

	f, set := newConfigFlags(t)
	used, err := loadConfigFile(f.fs, "", set, getenv)
	if err != nil {
		t.Fatalf("no plantcheck.yaml: error %v, want none", err)
	}
	if used != "" {
		t.Errorf("no plantcheck.yaml: used = %q, want \"\"", used)
	}
	if got := f.got(); got != defaults {
		t.Errorf("no plantcheck.yaml: flags = %+v, want the defaults", got)
	}

	writeConfig(t, ".", "plantcheck.yaml", "token: from-default-file\n")
	f, set = newConfigFlags(t)
	used, err = loadConfigFile(f.fs, "", set, getenv)
	if err != nil {
		t.Fatalf("plantcheck.yaml: error %v", err)
	}
	if used != "plantcheck.yaml" {
		t.Errorf("plantcheck.yaml: used = %q, want plantcheck.yaml", used)
	}
	if got, want := f.token, "from-default-file"; got != want {
		t.Errorf("plantcheck.yaml: token = %q, want %q", got, want)
	}

	writeConfig(t, ".", "plantcheck.yaml", "tokn: x\n")
	f, set = newConfigFlags(t)
	if _, err := loadConfigFile(f.fs, "", set, getenv); err == nil || !strings.Contains(err.Error(), `unknown key "tokn"`) {
		t.Errorf("a broken plantcheck.yaml: error %v, want the unknown key named", err)
	}
}

func TestConfigExplicitMissingFile(t *testing.T) {
	f, set := newConfigFlags(t)
	path := filepath.Join(t.TempDir(), "missing.yaml")
	used, err := loadConfigFile(f.fs, path, set, func(string) string { return "" })
	if err == nil {
		t.Fatalf("--config %s (missing): no error, want one", path)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
	if used != "" {
		t.Errorf("used = %q, want \"\"", used)
	}
}

// No error may quote a value: a file holds tokens and gateway keys.
func TestConfigErrorsNeverHoldAValue(t *testing.T) {
	const secret = "s3cr3t-9d41c0de"
	env := map[string]string{"SECRET": secret}
	tests := []struct {
		name string
		args []string
		yaml string
	}{
		{name: "list for a scalar flag", yaml: "token: [" + secret + "]\n"},
		{name: "mapping", yaml: "token: {" + secret + ": x}\n"},
		{name: "bad bool", yaml: "strict: " + secret + "\n"},
		{name: "bad duration", yaml: "timeout: " + secret + "\n"},
		{name: "bad duration from a variable", yaml: "timeout: ${SECRET}\n"},
		{name: "bad int", yaml: "concurrency: '" + secret + "'\n"},
		{name: "bad uint", yaml: "seed: ${SECRET}\n"},
		{name: "unclosed reference", yaml: "token: ${" + secret + "\n"},
		{name: "not a variable's name", yaml: "token: ${" + secret + "}\n"},
		{name: "unset variable after a secret", yaml: "header: ['X-Api-Key: " + secret + "${UNSET}']\n"},
		{name: "unclosed quote", yaml: "token: \"" + secret + "\n"},
		{name: "bad indentation", yaml: "token: " + secret + "\n  header: x\n"},
		{name: "tab", yaml: "token:\t" + secret + "\n\theader: x\n"},
		{name: "unknown anchor", yaml: "token: *" + secret + "\n"},
		{name: "bad tag", yaml: "token: !<" + secret + "\x01> x\n"},
		{name: "unknown key after a secret", yaml: "token: " + secret + "\ntokn: x\n"},
		{name: "second document", yaml: "token: " + secret + "\n---\n" + secret + "\n"},
		{name: "null item", yaml: "header: [" + secret + ", ~]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, set := newConfigFlags(t, tt.args...)
			path := writeConfig(t, t.TempDir(), "c.yaml", tt.yaml)
			_, err := loadConfigFile(f.fs, path, set, func(k string) string { return env[k] })
			if err == nil {
				t.Fatal("no error, want one")
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), secret[:6]) {
				t.Errorf("error %q holds the value", err)
			}
		})
	}
}
