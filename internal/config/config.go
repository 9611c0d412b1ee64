// Package config reads plantcheck's configuration, every command's, from
// the command line, the environment and a config file (in that order of
// precedence, then the defaults), and validates it: the one place where a
// flag is defined and a setting's range and rules are written. It holds
// plain settings and imports no package of the engine (the engines read
// its constants); run, proxy and judge take a Run, a Proxy or a Judge
// from here as validated, with what the process lends them (a writer,
// the environment) in their own options.
package config

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Environment variables read beside the flags. A flag given on the command
// line wins over its variable.
const (
	EnvBaseURL  = "PLANTCHECK_BASE_URL"
	EnvToken    = "PLANTCHECK_TOKEN"
	EnvUpstream = "PLANTCHECK_UPSTREAM"
)

// The ranges of run's settings.
const (
	// DefaultTimeout is the time limit of one exchange.
	DefaultTimeout = 10 * time.Second
	// MaxConcurrency bounds how many scenarios run at once.
	MaxConcurrency = 64
	// DefaultConcurrency is how many scenarios, and requests, a run has in
	// flight at once. A run is a few hundred small requests, most of a
	// distant server's time is its latency, and a scenario's verdict does
	// not depend on what else runs: at 50 ms a request, one at a time took
	// 14 s and this takes about a second (README, Performance).
	DefaultConcurrency = 16
	// DefaultExamples is how many valid bodies of each kind a generated
	// scenario sends; MaxExamples bounds it. The steps read both here.
	DefaultExamples = 25
	MaxExamples     = 10000
)

// The checks a run can be made without (Run.Without), to prove that each
// is needed: with one removed, the self-test shows a broken server that
// then passes. The steps read these names here.
const (
	// WithoutMustEcho judges the echo under the scenario's own rule, at
	// its level, as plantcheck did before: a SHOULD scenario then hides a
	// MUST breach.
	WithoutMustEcho = "must-echo"
)

// Removable lists the checks Run.Without may name.
var Removable = []string{WithoutMustEcho}

// PaddingHeader is the header that makes a request's header long
// (HEADER-SIZE): a name no service gives a meaning.
const PaddingHeader = "X-Plantcheck-Padding"

// ReservedHeaders are the headers scenarios set or leave out on purpose:
// an extra header (--header) may not name one.
var ReservedHeaders = []string{"Authorization", "Content-Type", "Accept", "Content-Length", "Transfer-Encoding", "Host", PaddingHeader}

// ErrConfig is what every error of a configuration is (errors.Is): the run
// could not be made as configured (exit status 2).
var ErrConfig = errors.New("configuration error")

// configError is an error of the configuration: its text says what to fix,
// and it is ErrConfig.
type configError string

func (e configError) Error() string        { return string(e) }
func (e configError) Is(target error) bool { return target == ErrConfig }

// Errorf returns an ErrConfig whose text is the message formatted: the
// engine's own checks of a configuration at start (run's tags) use it, so
// that their errors are configuration errors too.
func Errorf(format string, a ...any) error { return configError(fmt.Sprintf(format, a...)) }

// headerName is what an extra header's name may be: letters, digits and
// hyphens (a reproduction writes it into a shell word).
var headerName = regexp.MustCompile(`^[A-Za-z0-9-]+$`)

// Run is one run's configuration (plantcheck run, and run.Run,
// whose Config it is).
type Run struct {
	// BaseURL is the target; "" certifies the bundled reference server.
	BaseURL string
	// Token is the bearer token the target issued; never printed.
	Token string
	// Timeout is the time limit of one exchange; 0 means DefaultTimeout.
	Timeout time.Duration
	// Tags is a godog tag expression selecting scenarios ("" runs all);
	// the run checks it against the features at start.
	Tags string
	// Strict makes a failed SHOULD rule fail the run.
	Strict bool
	// Concurrency is how many scenarios run at once, and how many
	// requests may be in flight; 0 means DefaultConcurrency.
	Concurrency int
	// Rate is the most requests a second the run sends, the ceiling of a
	// pace that throttling lowers; 0: no limit.
	Rate float64
	// Format is the console format: pretty or progress.
	Format string
	// Color prints the console's verdict in colour (a terminal).
	Color bool
	// Verbose prints every failure block whole on the console, with its
	// curl command, and the whole rule table, as the reports do; else the
	// console leads with what to fix and shows each rule's first failure.
	Verbose bool
	// ReportDir, when set, receives the reports: summary.json, summary.md,
	// report.html, badge.svg, junit.xml and (from godog) cucumber.json.
	ReportDir string
	// HAR, when set, is a file that receives every exchange the run
	// makes, as HAR 1.2, secrets hidden (package har).
	HAR string
	// CACert is a PEM file of certificate authorities to trust for https,
	// beside the system's.
	CACert string
	// Cert and Key are the client certificate and its key (PEM files), for
	// a server that asks for one (mutual TLS).
	Cert, Key string
	// Proxy is the proxy every request goes through; "" follows
	// HTTP_PROXY, HTTPS_PROXY and NO_PROXY as net/http does (a loopback
	// target never through a proxy). The verdict says which it was.
	Proxy string
	// Headers are sent on every request; their values are secrets.
	Headers http.Header
	// Examples is how many valid bodies each generated scenario sends; 0
	// means DefaultExamples.
	Examples int
	// AllStrings sends every string of the catalog of hostile strings,
	// not the fixed ones and one drawn of each category.
	AllStrings bool
	// Without names checks to leave out (Removable), to prove that
	// each is needed; never for a verdict.
	Without []string
	// Seed makes fresh ids reproducible; 0 draws one.
	Seed uint64
	// Reference says the target is the bundled reference server (the
	// verdict says so, and a reproduction needs no --base-url). With
	// Reference and no BaseURL, the configuration is valid: the caller
	// starts the reference and fills BaseURL and Token.
	Reference bool
	// ConfigFile is the config file the settings came from, if any: the
	// verdict names it, and a rerun reads it again.
	ConfigFile string
	// TokenFrom says, in words, where the token came from ("--token",
	// "--token-file t.txt", "PLANTCHECK_TOKEN", "the config file
	// plantcheck.yaml (key token)"): a likely cause that doubts the token
	// names it, and the reproductions say how to set PLANTCHECK_TOKEN
	// from it. "" when unknown.
	TokenFrom string
	// BaselineFile is --baseline, the failures known (a baseline file or
	// an earlier summary.json), which do not fail the exit status (the run
	// reads it at start); BaselineUpdate is --baseline-update, the file
	// that receives the baseline the verdict passes with.
	BaselineFile, BaselineUpdate string
}

// Defaults fills each setting left zero that has a default: a library
// caller's Run need only name its target (then Validate it, or call
// Complete). The command line's flags carry the defaults already, so that
// a zero given there is refused by Validate, never silently replaced.
func (r *Run) Defaults() {
	if r.Timeout == 0 {
		r.Timeout = DefaultTimeout
	}
	if r.Concurrency == 0 {
		r.Concurrency = DefaultConcurrency
	}
	if r.Examples == 0 {
		r.Examples = DefaultExamples
	}
	if r.Format == "" {
		r.Format = "progress"
	}
	if r.Seed == 0 {
		r.Seed = NewSeed()
	}
}

// NewSeed draws a fresh seed (never 0, which means "draw one").
func NewSeed() uint64 {
	var b [8]byte
	rand.Read(b[:])
	var seed uint64
	for _, c := range b {
		seed = seed<<8 | uint64(c)
	}
	return seed | 1
}

// Complete fills r's defaults and validates it: for a library caller
// (selftest, docgen, a test) what Resolve is for the command line. The
// run takes a Run completed and fills and checks nothing again.
func (r Run) Complete() (Run, error) {
	r.Defaults()
	return r, r.Validate()
}

// Validate checks every setting against its range and rules, and returns
// the first it breaks (an ErrConfig). It is the one check: the packages
// that take a Run do not check it again.
func (r *Run) Validate() error {
	switch {
	case r.Timeout <= 0:
		return Errorf("--timeout %s: it must be more than 0 (such as 2s or 500ms)", r.Timeout)
	case r.Concurrency < 1 || r.Concurrency > MaxConcurrency:
		return Errorf("--concurrency %d: it must be between 1 and %d", r.Concurrency, MaxConcurrency)
	case r.Examples < 1 || r.Examples > MaxExamples:
		return Errorf("--examples %d: it must be between 1 and %d", r.Examples, MaxExamples)
	case r.Rate < 0:
		return Errorf("--rate %g: it must be more than 0 (or 0, no limit)", r.Rate)
	}
	switch r.Format {
	case "pretty", "progress":
	default:
		return Errorf("--format: unknown format %q (pretty or progress)", r.Format)
	}
	for _, w := range r.Without {
		if !slices.Contains(Removable, w) {
			return Errorf("no check %q to leave out (%s)", w, strings.Join(Removable, ", "))
		}
	}
	for name := range r.Headers {
		if !headerName.MatchString(name) {
			return Errorf("the header name %q: letters, digits and hyphens only", name)
		}
		if slices.ContainsFunc(ReservedHeaders, func(h string) bool { return strings.EqualFold(h, name) }) {
			return Errorf("--header %s: the scenarios set this header themselves (%s cannot be given)", name, strings.Join(ReservedHeaders, ", "))
		}
	}
	if r.Proxy != "" {
		u, err := url.Parse(r.Proxy)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5") {
			return Errorf("the proxy %s is not an http, https or socks5 URL", redactURL(r.Proxy, u, err))
		}
	}
	if r.BaseURL == "" && r.Reference {
		return nil // the caller starts the reference server
	}
	if r.BaseURL == "" {
		return Errorf("no target: a base URL is required")
	}
	if err := checkURL("the base URL", "--base-url", r.BaseURL); err != nil {
		return err
	}
	if r.Token == "" {
		return Errorf("a target needs its bearer token (--token or %s)", EnvToken)
	}
	return nil
}

// checkURL checks a target's URL: http or https, a host, no query or
// fragment (the suite adds its own paths). what names it in the error,
// flag in the suggestion for a URL without its scheme.
func checkURL(what, flag, s string) error {
	u, err := url.Parse(s)
	switch {
	case !strings.Contains(s, "://") && strings.Contains(s, "@"):
		// url.Parse reads user:password@host as a scheme and an opaque
		// part, which RedactedURL would show whole.
		return Errorf("%s %s has no scheme: give it as %s https://... or http://...", what, redactURL(s, nil, errNoScheme), flag)
	case !strings.Contains(s, "://"):
		// plants.example.com, localhost:8080: url.Parse reads a host
		// and port as a scheme and an opaque part.
		return Errorf("%s %q has no scheme: did you mean %s %s?", what, s, flag, WithScheme(s))
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return Errorf("%s %s is not an http or https URL with a host", what, redactURL(s, u, err))
	case u.RawQuery != "" || u.Fragment != "":
		return Errorf("%s %s: a query or fragment is not allowed", what, redactURL(s, u, err))
	}
	return nil
}

// errNoScheme stands for the error of a URL without its scheme, which
// url.Parse may not give.
var errNoScheme = errors.New("no scheme")

// RedactedURL is a proxy URL as plantcheck prints it: its user and
// password, when it has them, replaced by <redacted>.
func RedactedURL(u *url.URL) string {
	c := *u
	c.User = nil
	s := c.String()
	if u.User != nil {
		s = strings.Replace(s, "://", "://<redacted>@", 1)
	}
	return s
}

// redactURL is a URL given that may not parse, for an error: its
// credentials never shown.
func redactURL(raw string, u *url.URL, err error) string {
	if err == nil {
		return fmt.Sprintf("%q", RedactedURL(u))
	}
	if at := strings.LastIndex(raw, "@"); at >= 0 {
		return "(credentials redacted) " + fmt.Sprintf("%q", raw[at+1:])
	}
	return fmt.Sprintf("%q", raw)
}

// WithScheme is a URL given without its scheme, with the one it likely
// lacks: http:// for a loopback host, which rarely speaks TLS, https://
// for any other.
func WithScheme(s string) string {
	host := strings.TrimPrefix(s, "//")
	h, _, _ := strings.Cut(host, "/")
	if hn, _, err := net.SplitHostPort(h); err == nil {
		h = hn
	}
	if h == "localhost" || strings.HasPrefix(h, "127.") || h == "[::1]" || h == "::1" {
		return "http://" + host
	}
	return "https://" + host
}
