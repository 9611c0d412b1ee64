package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/plantcheck/plantcheck/conformance"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/steps"
)

// Environment variables read by run (and, for the token, serve). A flag
// given on the command line wins over its variable.
const (
	envBaseURL = "PLANTCHECK_BASE_URL"
	envToken   = "PLANTCHECK_TOKEN"
	// shortToken is the length under which a token is likely to occur in
	// ordinary text, and its hiding to garble the evidence.
	shortToken = 8
)

func cmdRun(ctx context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "run", "[flags]",
		"Certify a Plant Store implementation: run every rule of the spec against it and\n"+
			"print the verdict. With no --base-url, certify the bundled reference server,\n"+
			"started in-process on a loopback port with a random token.\n\n"+
			"Exit status: 0 conformant, 1 non-conformant, 2 could not run.")
	var cfg conformance.Config
	fs.StringVar(&cfg.BaseURL, "base-url", "", "the target's base URL; POST <base-url>/plants is tested (env "+envBaseURL+")")
	fs.StringVar(&cfg.Token, "token", "", "the bearer token the target issued, never printed (env "+envToken+", which keeps it out of the process list)")
	var tokenFile, configPath string
	fs.StringVar(&configPath, "config", "", "read settings from this YAML file: its keys are these flags' long names (default: ./plantcheck.yaml when there is one); the command line wins")
	fs.StringVar(&tokenFile, "token-file", "", "read the bearer token from this file (a mounted secret); one trailing line break is dropped")
	fs.DurationVar(&cfg.Timeout, "timeout", conformance.DefaultTimeout, "time limit of one HTTP exchange")
	fs.StringVar(&cfg.Tags, "tags", "", "scenarios to run, by tag: '&&' and, ',' or, '~' not; such as '@AUTH-MISSING', '@area-auth,@area-media' or '@must && ~@AUTH-NEAR-MISS' (plantcheck rules lists the tags)")
	fs.BoolVar(&cfg.Strict, "strict", false, "fail the run when a SHOULD rule fails, too")
	fs.IntVar(&cfg.Concurrency, "concurrency", conformance.DefaultConcurrency, fmt.Sprintf("scenarios, and requests, in flight at once (1-%d); the verdict does not depend on it", conformance.MaxConcurrency))
	fs.Float64Var(&cfg.Rate, "rate", 0, "send at most this many requests a second: the ceiling of the pace, which a throttling target lowers on its own (0: no limit)")
	fs.StringVar(&cfg.Format, "format", "", "console format: pretty or progress (default pretty on a terminal, progress otherwise)")
	color := fs.String("color", "auto", "colour the verdict: auto (on a terminal, unless NO_COLOR is set), always or never")
	fs.StringVar(&cfg.ReportDir, "report-dir", "", "write the reports into this folder (created if missing): summary.json, summary.md, summary-short.md, report.html, badge.svg, junit.xml, cucumber.json")
	fs.StringVar(&cfg.CACert, "ca-cert", "", "PEM file of certificate authorities to trust for an https target, beside the system's")
	fs.StringVar(&cfg.Cert, "cert", "", "PEM file of a client certificate, for a server that asks for one (with --key)")
	fs.StringVar(&cfg.Key, "key", "", "PEM file of the client certificate's private key (with --cert)")
	fs.StringVar(&cfg.Proxy, "proxy", "", "send every request through this proxy (http, https or socks5 URL); default: HTTP_PROXY, HTTPS_PROXY and NO_PROXY")
	var headers headerFlag
	fs.Var(&headers, "header", "'Name: value' sent on every request, such as a gateway's key (repeatable); the value is a secret, never printed")
	fs.IntVar(&cfg.Examples, "examples", steps.DefaultExamples, fmt.Sprintf("valid bodies each generated scenario sends (1-%d)", steps.MaxExamples))
	fs.BoolVar(&cfg.AllStrings, "all-strings", false, "send every string of the catalog of hostile strings as a name and as a tag, not one drawn from each category")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed of the run's random ids and values; 0 draws one (printed with the verdict)")
	var requireTarget bool
	fs.BoolVar(&requireTarget, "require-target", false, "refuse (exit 2) to certify the bundled reference server: a CI gate must name its target (--base-url, "+envBaseURL+" or the config file)")
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	// Settings come from the command line, then the environment, then a
	// config file, then the defaults.
	cli := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { cli[f.Name] = true })
	used, err := loadConfigFile(fs, configPath, cli, c.getenv)
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck run: %v\n", err)
		return exitCannotRun
	}
	cfg.ConfigFile = used
	set := map[string]bool{} // the command line's and the file's
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	envURL, envURLSet := c.lookup(envBaseURL)
	if !cli["base-url"] && envURLSet {
		cfg.BaseURL = envURL
	}
	if msg := missingTarget(c, cli, set, cfg.BaseURL, used, requireTarget); msg != "" {
		fmt.Fprintf(c.stderr, "plantcheck run: %s\n", msg)
		return exitCannotRun
	}
	if msg := outOfRange(set, cfg); msg != "" {
		fmt.Fprintf(c.stderr, "plantcheck run: %s\n", msg)
		return exitCannotRun
	}
	env := c.getenv(envToken)
	fromFile := ""
	inFile := "the config file " + evidence.Text(used)
	switch {
	case cli["token"] && cli["token-file"], !cli["token"] && !cli["token-file"] && env == "" && set["token"] && set["token-file"]:
		fmt.Fprintln(c.stderr, "plantcheck run: give --token or --token-file, not both")
		return exitCannotRun
	case cli["token"]:
		cfg.TokenFrom = "--token"
	case cli["token-file"]:
		fromFile = tokenFile
		cfg.TokenFrom = "--token-file " + evidence.Text(tokenFile)
	case env != "":
		cfg.Token = env
		cfg.TokenFrom = envToken
	case set["token-file"]:
		fromFile = tokenFile
		cfg.TokenFrom = "--token-file " + evidence.Text(tokenFile) + ", named in " + inFile
	case set["token"]:
		cfg.TokenFrom = inFile + " (key token)"
	}
	if fromFile != "" {
		token, err := readTokenFile(fromFile)
		if err != nil {
			fmt.Fprintf(c.stderr, "plantcheck run: --token-file: %v\n", err)
			return exitCannotRun
		}
		cfg.Token = token
	}
	if len(headers) > 0 {
		cfg.Headers = http.Header{}
		for _, h := range headers {
			name, value, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(name) == "" {
				fmt.Fprintf(c.stderr, "plantcheck run: --header wants 'Name: value'\n")
				return exitCannotRun
			}
			cfg.Headers[strings.TrimSpace(name)] = append(cfg.Headers[strings.TrimSpace(name)], strings.TrimSpace(value))
		}
	}
	switch *color {
	case "auto":
		// https://no-color.org: NO_COLOR set and not empty turns colour off.
		cfg.Color = c.isTerminal && c.getenv("NO_COLOR") == ""
	case "always":
		cfg.Color = true
	case "never":
	default:
		fmt.Fprintf(c.stderr, "plantcheck run: --color %q: it is auto, always or never\n", *color)
		fmt.Fprintln(c.stderr, "Run 'plantcheck run -h' for the flags.")
		return exitCannotRun
	}
	if cfg.Format == "" {
		cfg.Format = "progress"
		if c.isTerminal {
			cfg.Format = "pretty"
		}
	}
	if n := len(cfg.Token); n > 0 && n < shortToken {
		fmt.Fprintf(c.stderr, "plantcheck run: the token is shorter than %d characters: it is hidden wherever it occurs in the evidence, which it may garble (the verdict is taken on the answers as sent)\n", shortToken)
	}
	cfg.Output, cfg.Getenv = c.stdout, c.getenv

	if cfg.BaseURL == "" {
		url, token, stop, err := reference.StartLoopback()
		if err != nil {
			fmt.Fprintf(c.stderr, "plantcheck run: start the reference server: %v\n", err)
			return exitCannotRun
		}
		defer stop()
		cfg.BaseURL, cfg.Token, cfg.Reference = url, token, true
	}
	rep, err := conformance.Run(ctx, cfg)
	if rep != nil {
		rep.WriteVerdict(c.stdout)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck run: %v\n", err)
		if errors.Is(err, conformance.ErrConfig) {
			fmt.Fprintln(c.stderr, "Run 'plantcheck run -h' for the flags.")
		}
		return exitCannotRun
	}
	return rep.ExitCode()
}

// targetFlags are the settings that only a server of one's own can use:
// given with no target, they mean the user forgot to name it, and a run
// of the bundled reference would pass for a run of theirs.
var targetFlags = []string{"token", "token-file", "header", "ca-cert", "cert", "key", "proxy"}

// missingTarget returns why run must not certify the bundled reference
// server ("" when it may, or a target is named): a target given empty (an
// unset CI variable, say), or a setting meant for a server of one's own
// given without one. Certifying the reference is what run does with
// nothing set at all; anything else would turn a gate green having tested
// nothing of the user's.
func missingTarget(c cli, flagged, set map[string]bool, baseURL, configFile string, require bool) string {
	if strings.TrimSpace(baseURL) != "" {
		return ""
	}
	const certify = "certify the bundled reference server"
	inFile := "the config file " + evidence.Text(configFile)
	_, envURLSet := c.lookup(envBaseURL)
	switch {
	case flagged["base-url"]:
		return "--base-url is empty: give your server's base URL (such as --base-url https://plants.example.com), or leave --base-url out to " + certify
	case envURLSet:
		return envBaseURL + " is set but empty (an unset CI variable or secret?): set it to your server's base URL, or pass --base-url; unset " + envBaseURL + " to " + certify
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
	if _, ok := c.lookup(envToken); ok {
		given, undo = append(given, envToken), append(undo, "unset "+envToken)
	}
	if flagged["config"] {
		given, undo = append(given, "--config"), append(undo, "leave out --config")
	}
	switch {
	case require && len(given) == 0:
		return "no target: --require-target refuses to " + certify + ": pass --base-url with your server's URL, or set " + envBaseURL +
			" (in the GitHub Action: the base-url input, or certify-reference: true to " + certify + ")"
	case len(given) == 0:
		return ""
	}
	return fmt.Sprintf("%s given, but no target: pass --base-url with your server's URL (or set %s); to %s instead, %s",
		strings.Join(given, ", "), envBaseURL, certify, strings.Join(undo, " and "))
}

// headerFlag collects a repeatable --header.
type headerFlag []string

func (h *headerFlag) String() string     { return "" } // values are secrets
func (h *headerFlag) Set(v string) error { *h = append(*h, v); return nil }

// outOfRange names a number given outside its range: a zero or a negative
// would otherwise fall back to a default without a word.
func outOfRange(set map[string]bool, cfg conformance.Config) string {
	switch {
	case set["concurrency"] && (cfg.Concurrency < 1 || cfg.Concurrency > conformance.MaxConcurrency):
		return fmt.Sprintf("--concurrency %d: it must be between 1 and %d", cfg.Concurrency, conformance.MaxConcurrency)
	case set["examples"] && (cfg.Examples < 1 || cfg.Examples > steps.MaxExamples):
		return fmt.Sprintf("--examples %d: it must be between 1 and %d", cfg.Examples, steps.MaxExamples)
	case set["rate"] && cfg.Rate < 0:
		return fmt.Sprintf("--rate %g: it must be more than 0 (or 0, no limit)", cfg.Rate)
	case set["timeout"] && cfg.Timeout <= 0:
		return fmt.Sprintf("--timeout %s: it must be more than 0 (such as 2s or 500ms)", cfg.Timeout)
	}
	return ""
}

// maxTokenFile bounds a token file: a token is a line, not a document.
const maxTokenFile = 64 << 10

// readTokenFile reads a token kept in a file, as secrets are mounted: one
// trailing line break (LF or CRLF) is dropped; nothing else is trimmed.
// Its content never appears in an error.
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
