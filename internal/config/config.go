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
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
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

// The ranges of run's settings; the steps read the examples' here.
const (
	DefaultTimeout = 10 * time.Second
	MaxConcurrency = 64
	// DefaultConcurrency: a run is a few hundred small requests, most of
	// a distant server's time is its latency, and a scenario's verdict
	// does not depend on what else runs: at 50 ms a request, one at a
	// time took 14 s and this takes about a second (README, Performance).
	DefaultConcurrency = 16
	DefaultExamples    = 25
	MaxExamples        = 10000
)

// WithoutMustEcho is a check a run can be made without (Run.Without), to
// prove that it is needed: with it removed, the echo is judged under the
// scenario's own rule, at its level, as plantcheck did before, and the
// self-test shows a SHOULD scenario hiding a MUST breach. Removable lists
// every such check.
const WithoutMustEcho = "must-echo"

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

// configError is an ErrConfig whose text says what to fix.
type configError string

func (e configError) Error() string        { return string(e) }
func (e configError) Is(target error) bool { return target == ErrConfig }

// Errorf returns an ErrConfig: the engine's own checks of a configuration
// at start (run's tags) use it too.
func Errorf(format string, a ...any) error { return configError(fmt.Sprintf(format, a...)) }

// headerName is what an extra header's name may be: letters, digits and
// hyphens (a reproduction writes it into a shell word).
var headerName = regexp.MustCompile(`^[A-Za-z0-9-]+$`)

// Run is one run's configuration (plantcheck run, and run.Run, whose
// Config it is): each setting is its flag's (Settings), and Defaults
// fills those left zero that have a default.
type Run struct {
	// BaseURL is the target; "" certifies the bundled reference server.
	BaseURL string
	// Token is the bearer token the target issued; never printed.
	Token   string
	Timeout time.Duration
	// Tags is a godog tag expression, which the run checks against the
	// features at start.
	Tags        string
	Strict      bool
	Concurrency int
	Rate        float64
	Format      string
	Color       bool
	Verbose     bool
	ReportDir   string
	HAR         string
	// CACert, Cert and Key are PEM files.
	CACert, Cert, Key string
	// Proxy "" follows HTTP_PROXY, HTTPS_PROXY and NO_PROXY as net/http
	// does (a loopback target never through a proxy).
	Proxy string
	// Headers are sent on every request; their values are secrets.
	Headers    http.Header
	Examples   int
	AllStrings bool
	// Without names checks to leave out (Removable); never for a verdict.
	Without []string
	// Seed makes fresh ids reproducible; 0 draws one.
	Seed uint64
	// Reference: the target is the bundled reference server. With no
	// BaseURL the configuration is valid: the caller starts the
	// reference and fills BaseURL and Token.
	Reference bool
	// ConfigFile is the config file the settings came from, if any: the
	// verdict names it, and a rerun reads it again.
	ConfigFile string
	// TokenFrom says where the token came from ("--token"; "" unknown), for
	// a likely cause that doubts it and the reproductions.
	TokenFrom string
	// BaselineFile is --baseline, which the run reads at start;
	// BaselineUpdate is --baseline-update.
	BaselineFile, BaselineUpdate string
}

// Defaults fills each setting left zero that has a default, for a library
// caller. The command line's flags carry the defaults already, so that a
// zero given there is refused by Validate, never silently replaced.
func (r *Run) Defaults() {
	r.Timeout = cmp.Or(r.Timeout, DefaultTimeout)
	r.Concurrency = cmp.Or(r.Concurrency, DefaultConcurrency)
	r.Examples = cmp.Or(r.Examples, DefaultExamples)
	r.Format = cmp.Or(r.Format, "progress")
	r.Seed = cmp.Or(r.Seed, NewSeed())
}

// NewSeed draws a fresh seed (never 0, which means "draw one").
func NewSeed() uint64 {
	return rand.Uint64() | 1
}

// Complete fills r's defaults and validates it: for a library caller what
// Resolve is for the command line.
func (r Run) Complete() (Run, error) {
	r.Defaults()
	return r, r.Validate()
}

// Validate returns the first rule a setting breaks (an ErrConfig): the one
// check, which the packages that take a Run do not make again.
func (r *Run) Validate() error {
	if err := checkRanges("run", r); err != nil {
		return err
	}
	if r.Format != "pretty" && r.Format != "progress" {
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
			return Errorf("the proxy %s is not an http, https or socks5 URL", redactURL(r.Proxy, u))
		}
	}
	if r.BaseURL == "" {
		if r.Reference {
			return nil // the caller starts the reference server
		}
		return Errorf("no target: a base URL is required")
	}
	// The base URL: http or https, a host, no query or fragment (the
	// suite adds its own paths).
	s := r.BaseURL
	u, err := url.Parse(s)
	switch {
	case !strings.Contains(s, "://") && strings.Contains(s, "@"):
		// url.Parse reads user:password@host as a scheme and an opaque
		// part, which RedactedURL would show whole.
		return Errorf("the base URL %s has no scheme: give it as --base-url https://... or http://...", redactURL(s, nil))
	case !strings.Contains(s, "://"):
		// plants.example.com, localhost:8080: url.Parse reads a host
		// and port as a scheme and an opaque part.
		return Errorf("the base URL %q has no scheme: did you mean --base-url %s?", s, withScheme(s))
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return Errorf("the base URL %s is not an http or https URL with a host", redactURL(s, u))
	case u.RawQuery != "" || u.Fragment != "":
		return Errorf("the base URL %s: a query or fragment is not allowed", redactURL(s, u))
	case r.Token == "":
		return Errorf("a target needs its bearer token (--token or %s)", EnvToken)
	}
	return nil
}

// RedactedURL is a proxy URL as plantcheck prints it: its credentials
// replaced by <redacted>.
func RedactedURL(u *url.URL) string {
	c := *u
	c.User = nil
	s := c.String()
	if u.User != nil {
		s = strings.Replace(s, "://", "://<redacted>@", 1)
	}
	return s
}

// redactURL is a URL for an error (u nil: it did not parse): its
// credentials never shown.
func redactURL(raw string, u *url.URL) string {
	if u != nil {
		return fmt.Sprintf("%q", RedactedURL(u))
	}
	if at := strings.LastIndex(raw, "@"); at >= 0 {
		return "(credentials redacted) " + fmt.Sprintf("%q", raw[at+1:])
	}
	return fmt.Sprintf("%q", raw)
}

// withScheme is a URL given without its scheme, with the one it likely
// lacks: http:// for a loopback host, which rarely speaks TLS, else https://.
func withScheme(s string) string {
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
