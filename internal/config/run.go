package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
)

// Env is what the configuration reads of the process beside its flags.
type Env struct {
	Getenv func(string) string
	// Lookup tells a variable set empty from one unset (nil: set when
	// Getenv gives a value).
	Lookup     func(string) (string, bool)
	IsTerminal bool // the console is one (--color auto)
}

func (e Env) lookup(k string) (string, bool) {
	if e.Lookup != nil {
		return e.Lookup(k)
	}
	v := e.Getenv(k)
	return v, v != ""
}

// RunFlags are run's flags on a flag set.
type RunFlags struct {
	fs                           *flag.FlagSet
	cfg                          Run
	tokenFile, configPath, color string
	headers                      headerFlag
	requireTarget                bool
}

// DefineRun defines run's flags on fs.
func DefineRun(fs *flag.FlagSet) *RunFlags {
	f := &RunFlags{fs: fs}
	cfg := &f.cfg
	fs.StringVar(&cfg.BaseURL, "base-url", "", "the target's base URL; POST <base-url>/plants is tested (env "+EnvBaseURL+")")
	fs.StringVar(&cfg.Token, "token", "", "the bearer token the target issued, never printed (env "+EnvToken+", which keeps it out of the process list)")
	fs.StringVar(&f.configPath, "config", "", "read settings from this YAML file: its keys are these flags' long names (default: ./plantcheck.yaml when there is one); the command line wins")
	fs.StringVar(&f.tokenFile, "token-file", "", "read the bearer token from this file (a mounted secret); one trailing line break is dropped")
	fs.DurationVar(&cfg.Timeout, "timeout", DefaultTimeout, "time limit of one HTTP exchange")
	fs.StringVar(&cfg.Tags, "tags", "", "scenarios to run, by tag: '&&' and, ',' or, '~' not; such as '@AUTH-MISSING', '@area-auth,@area-media' or '@must && ~@AUTH-NEAR-MISS' (plantcheck rules lists the tags)")
	fs.BoolVar(&cfg.Strict, "strict", false, "fail the run when a SHOULD rule fails, too")
	fs.IntVar(&cfg.Concurrency, "concurrency", DefaultConcurrency, fmt.Sprintf("scenarios, and requests, in flight at once (1-%d); the verdict does not depend on it", MaxConcurrency))
	fs.Float64Var(&cfg.Rate, "rate", 0, "send at most this many requests a second: the ceiling of the pace, which a throttling target lowers on its own (0: no limit)")
	fs.StringVar(&cfg.Format, "format", "", "console format: progress (a character a scenario, then the verdict) or pretty (every scenario and its steps, then the verdict)")
	fs.BoolVar(&cfg.Verbose, "verbose", false, "print every failure block whole, with its curl command, and the whole rule table, as summary.md does (default: what to fix, and the first failure of each rule broken)")
	fs.StringVar(&f.color, "color", "auto", "colour the verdict: auto (on a terminal, unless NO_COLOR is set), always or never")
	fs.StringVar(&cfg.ReportDir, "report-dir", "", reportsUsage+", cucumber.json")
	fs.StringVar(&cfg.HAR, "har", "", "write every exchange the run makes to this file as HAR 1.2 (the token as <token>, other secrets <redacted>), for a browser's developer tools, an API client or 'plantcheck judge'")
	fs.StringVar(&cfg.CACert, "ca-cert", "", "PEM file of certificate authorities to trust for an https target, beside the system's")
	fs.StringVar(&cfg.Cert, "cert", "", "PEM file of a client certificate, for a server that asks for one (with --key)")
	fs.StringVar(&cfg.Key, "key", "", "PEM file of the client certificate's private key (with --cert)")
	fs.StringVar(&cfg.Proxy, "proxy", "", "send every request through this proxy (http, https or socks5 URL); default: HTTP_PROXY, HTTPS_PROXY and NO_PROXY")
	fs.Var(&f.headers, "header", "'Name: value' sent on every request, such as a gateway's key (repeatable); the value is a secret, never printed")
	fs.IntVar(&cfg.Examples, "examples", DefaultExamples, fmt.Sprintf("valid bodies each generated scenario sends (1-%d)", MaxExamples))
	fs.BoolVar(&cfg.AllStrings, "all-strings", false, "send every string of the catalog of hostile strings as a name and as a tag, not the fixed ones and one drawn from each category")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed of the run's random ids and values; 0 draws one (printed with the verdict)")
	fs.StringVar(&cfg.BaselineFile, "baseline", "", baselineUsage)
	fs.StringVar(&cfg.BaselineUpdate, "baseline-update", "", baselineUpdateUsage)
	fs.BoolVar(&f.requireTarget, "require-target", false, "refuse (exit 2) to certify the bundled reference server: a CI gate must name its target (--base-url, "+EnvBaseURL+" or the config file)")
	return f
}

// Resolve reads the settings, after fs has parsed the command line: the
// command line, then the environment, then a config file, then the
// defaults. It returns the Run validated (Reference set when no target is
// named), and warnings to print beside it.
func (f *RunFlags) Resolve(env Env) (Run, []string, error) {
	cli := visited(f.fs)
	used, err := loadConfigFile(f.fs, f.configPath, cli, env.Getenv)
	if err != nil {
		return Run{}, nil, err
	}
	cfg := f.cfg // the command line's and the file's settings
	cfg.ConfigFile = used
	set := visited(f.fs) // the command line's and the file's
	if envURL, ok := env.lookup(EnvBaseURL); !cli["base-url"] && ok {
		cfg.BaseURL = envURL
	}
	if msg := missingTarget(env, cli, set, cfg.BaseURL, used, f.requireTarget); msg != "" {
		return Run{}, nil, errors.New(msg)
	}
	if err := f.token(env, &cfg, cli, set, used); err != nil {
		return Run{}, nil, err
	}
	if len(f.headers) > 0 {
		cfg.Headers = http.Header{}
		for _, h := range f.headers {
			name, value, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(name) == "" {
				return Run{}, nil, errors.New("--header wants 'Name: value'")
			}
			cfg.Headers[strings.TrimSpace(name)] = append(cfg.Headers[strings.TrimSpace(name)], strings.TrimSpace(value))
		}
	}
	switch f.color {
	case "auto":
		// https://no-color.org: NO_COLOR set and not empty turns colour off.
		cfg.Color = env.IsTerminal && env.Getenv("NO_COLOR") == ""
	case "always":
		cfg.Color = true
	case "never":
	default:
		return Run{}, nil, Errorf("--color %q: it is auto, always or never", f.color)
	}
	if cfg.Format == "" {
		// progress on a terminal too: pretty prints every scenario, a few
		// hundred lines before the verdict, and a console is read from
		// its top, which leads with what to fix.
		cfg.Format = "progress"
	}
	cfg.Reference = strings.TrimSpace(cfg.BaseURL) == ""
	if cfg.Reference {
		cfg.BaseURL = ""
	}
	if err := cfg.Validate(); err != nil {
		return Run{}, nil, err
	}
	cfg.Defaults() // the seed: every other default the flags carry
	var warnings []string
	if n := len(cfg.Token); n > 0 && n < 8 { // likely to occur in ordinary text, and its hiding to garble the evidence
		warnings = append(warnings, "the token is shorter than 8 characters: it is hidden wherever it occurs in the evidence, which it may garble (the verdict is taken on the answers as sent)")
	}
	return cfg, warnings, nil
}

// The help of --baseline and --baseline-update, run's and proxy's.
const (
	baselineUsage       = "a baseline file (written by --baseline-update) or a summary.json of this plantcheck, whose failures are known: exit 1 only on a failure it does not hold (a rule newly failing, a new scenario or a new kind of answer) or on a stale entry (one that holds no failure of a rule judged now: remove it); the reports still show every failure, the known ones marked"
	baselineUpdateUsage = "write the baseline this verdict passes with to this file (an entry for each rule and kind of answer that failed), for --baseline; edit it by hand to broaden or explain entries"
)

// token reads the token from where it was given, and says where in
// cfg.TokenFrom.
func (f *RunFlags) token(env Env, cfg *Run, cli, set map[string]bool, used string) error {
	fromEnv := env.Getenv(EnvToken)
	fromFile := ""
	inFile := "the config file " + evidence.Text(used)
	switch {
	case cli["token"] && cli["token-file"], !cli["token"] && !cli["token-file"] && fromEnv == "" && set["token"] && set["token-file"]:
		return errors.New("give --token or --token-file, not both")
	case cli["token"]:
		cfg.TokenFrom = "--token"
	case cli["token-file"]:
		fromFile = f.tokenFile
		cfg.TokenFrom = "--token-file " + evidence.Text(f.tokenFile)
	case fromEnv != "":
		cfg.Token = fromEnv
		cfg.TokenFrom = EnvToken
	case set["token-file"]:
		fromFile = f.tokenFile
		cfg.TokenFrom = "--token-file " + evidence.Text(f.tokenFile) + ", named in " + inFile
	case set["token"]:
		cfg.TokenFrom = inFile + " (key token)"
	}
	if _, ok := env.lookup(EnvToken); ok && fromEnv == "" && cfg.TokenFrom == "" {
		// Without this the run would say only that the target needs its
		// token, and the user look for a variable they did set.
		return Errorf("%s is set but empty (an unset CI secret?): set it to the token your server issued, or pass --token-file", EnvToken)
	}
	if fromFile != "" {
		token, err := readTokenFile(fromFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		cfg.Token = token
	}
	return nil
}

// targetFlags are the settings only a server of one's own can use.
var targetFlags = []string{"token", "token-file", "header", "ca-cert", "cert", "key", "proxy"}

// missingTarget returns why run must not certify the bundled reference
// server ("" when it may, or a target is named): a target given empty (an
// unset CI variable, say), or a setting meant for a server of one's own
// given without one, which would turn a gate green having tested nothing
// of the user's.
func missingTarget(env Env, flagged, set map[string]bool, baseURL, configFile string, require bool) string {
	if strings.TrimSpace(baseURL) != "" {
		return ""
	}
	const certify = "certify the bundled reference server"
	inFile := "the config file " + evidence.Text(configFile)
	_, envURLSet := env.lookup(EnvBaseURL)
	switch {
	case flagged["base-url"]:
		return "--base-url is empty: give your server's base URL (such as --base-url https://plants.example.com), or leave --base-url out to " + certify
	case envURLSet:
		return EnvBaseURL + " is set but empty (an unset CI variable or secret?): set it to your server's base URL, or pass --base-url; unset " + EnvBaseURL + " to " + certify
	case set["base-url"]:
		return inFile + " gives an empty base-url: give your server's base URL there, or remove the key to " + certify
	}
	var given, undo []string
	for _, name := range targetFlags {
		switch {
		case flagged[name]:
			given, undo = append(given, "--"+name), append(undo, "leave out --"+name)
		case set[name]:
			given, undo = append(given, name+" in "+inFile), append(undo, "remove the key "+name+" from the config file")
		}
	}
	if _, ok := env.lookup(EnvToken); ok {
		given, undo = append(given, EnvToken), append(undo, "unset "+EnvToken)
	}
	if flagged["config"] {
		given, undo = append(given, "--config"), append(undo, "leave out --config")
	}
	switch {
	case require && len(given) == 0:
		return "no target: --require-target refuses to " + certify + ": pass --base-url with your server's URL, or set " + EnvBaseURL +
			" (in the GitHub Action: the base-url input, or certify-reference: true to " + certify + ")"
	case len(given) == 0:
		return ""
	}
	return fmt.Sprintf("%s given, but no target: pass --base-url with your server's URL (or set %s); to %s instead, %s",
		strings.Join(given, ", "), EnvBaseURL, certify, strings.Join(undo, " and "))
}

// maxTokenFile bounds a token file: a token is a line, not a document.
const maxTokenFile = 64 << 10

// readTokenFile reads a token kept in a file, as secrets are mounted: one
// trailing line break (LF or CRLF) is dropped, nothing else; its content
// never appears in an error.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("%s holds more than %d bytes: not a token", path, maxTokenFile)
	}
	token := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	switch {
	case token == "":
		return "", fmt.Errorf("%s is empty", path)
	case strings.ContainsAny(token, "\r\n"):
		return "", fmt.Errorf("%s holds more than one line: a token is one line", path)
	}
	return token, nil
}

// visited is the set of names of the flags fs was given.
func visited(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
