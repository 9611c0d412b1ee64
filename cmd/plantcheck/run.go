package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"

	"github.com/plantcheck/plantcheck/conformance"
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
	fs.DurationVar(&cfg.Timeout, "timeout", conformance.DefaultTimeout, "time limit of one HTTP exchange")
	fs.StringVar(&cfg.Tags, "tags", "", "a godog tag expression selecting rules, such as '@AUTH-MISSING' or '@must && ~@slow'")
	fs.BoolVar(&cfg.Strict, "strict", false, "fail the run when a SHOULD rule fails, too")
	fs.IntVar(&cfg.Concurrency, "concurrency", 1, "scenarios run at once (1-64)")
	fs.StringVar(&cfg.Format, "format", "", "console format: pretty or progress (default pretty on a terminal, progress otherwise)")
	fs.StringVar(&cfg.ReportDir, "report-dir", "", "write the reports into this folder (created if missing): summary.json, summary.md, report.html, badge.svg, junit.xml, cucumber.json")
	fs.StringVar(&cfg.CACert, "ca-cert", "", "PEM file of certificate authorities to trust for an https target, beside the system's")
	fs.StringVar(&cfg.Cert, "cert", "", "PEM file of a client certificate, for a server that asks for one (with --key)")
	fs.StringVar(&cfg.Key, "key", "", "PEM file of the client certificate's private key (with --cert)")
	fs.StringVar(&cfg.Proxy, "proxy", "", "send every request through this proxy (http, https or socks5 URL); default: HTTP_PROXY, HTTPS_PROXY and NO_PROXY")
	var headers headerFlag
	fs.Var(&headers, "header", "'Name: value' sent on every request, such as a gateway's key (repeatable); the value is a secret, never printed")
	fs.IntVar(&cfg.Examples, "examples", 0, fmt.Sprintf("valid bodies each generated scenario sends (default %d)", steps.DefaultExamples))
	fs.BoolVar(&cfg.AllStrings, "all-strings", false, "send every string of the catalog of hostile strings as a name and as a tag, not one drawn from each category")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed of the run's random ids and values; 0 draws one (printed with the verdict)")
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["base-url"] {
		cfg.BaseURL = c.getenv(envBaseURL)
	}
	if !set["token"] {
		cfg.Token = c.getenv(envToken)
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
	if cfg.Format == "" {
		cfg.Format = "progress"
		if c.isTerminal {
			cfg.Format = "pretty"
		}
	}
	if cfg.BaseURL == "" && cfg.Token != "" {
		// The bundled server makes its own token; a user's token is for a
		// target, so say that it is not used rather than silently drop it.
		fmt.Fprintln(c.stderr, "plantcheck run: no --base-url: certifying the bundled reference server; the given token is not used")
		cfg.Token = ""
	}
	if n := len(cfg.Token); n > 0 && n < shortToken {
		fmt.Fprintf(c.stderr, "plantcheck run: the token is shorter than %d characters: it is hidden wherever it occurs in the evidence, which it may garble (the verdict is taken on the answers as sent)\n", shortToken)
	}
	cfg.Output = c.stdout

	if cfg.BaseURL == "" {
		url, token, stop, err := reference.StartLoopback()
		if err != nil {
			fmt.Fprintf(c.stderr, "plantcheck run: start the reference server: %v\n", err)
			return exitCannotRun
		}
		defer stop()
		cfg.BaseURL, cfg.Token, cfg.Reference = url, token, true
	}
	tuneGC(c.getenv)
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

// headerFlag collects a repeatable --header.
type headerFlag []string

func (h *headerFlag) String() string     { return "" } // values are secrets
func (h *headerFlag) Set(v string) error { *h = append(*h, v); return nil }
