// Package run is `plantcheck run`: it runs the Plant Store features against a target and
// turns the scenarios' results into a verdict: each rule of the catalog with
// its level and outcome, and whether the target keeps the contract. It
// knows the target by its URL and token alone: the CLI, which certifies the
// bundled reference server when no target is named, starts it and hands the
// run its address.
package run

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/shell"
	"github.com/plantcheck/plantcheck/internal/tlsconf"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/steps"
)

// GCPercent is the GOGC of a process that runs the suite many times over
// (selftest): 16% faster than Go's default (docs/benchmarks.md). A single
// run keeps Go's default: at 200 its size probes took its peak memory past
// the 60 MB budget.
const GCPercent = 200

// MaxResponseHeaderBytes bounds the header section of an answer that is
// read: one with more is no answer (RESPONSE-TIMELY), and costs the run no
// more than this.
const MaxResponseHeaderBytes = 256 << 10

// Errors that mean the run could not be made (exit status 2).
var (
	ErrConfig      = config.ErrConfig     // bad flag, bad URL, bad tags
	ErrUnreachable = steps.ErrUnreachable // connection refused, name not resolved, TLS failed
	// ErrReport: the run was made, but its reports could not be written;
	// Run returns the report with it.
	ErrReport = errors.New("the reports could not be written")
)

// Config is one run's configuration, completed and validated by config
// (Resolve, or Complete for a library caller); Run checks none of it again.
type Config config.Run

// Options are what a run is given beside its configuration: the process's
// streams and environment, and the engine's own knobs that no user sets.
type Options struct {
	Output io.Writer           // the console report; nil means os.Stdout
	Getenv func(string) string // reads the proxy variables; nil means os.Getenv
	// Godog, when set, adjusts godog's options before the run (a test sets
	// TestingT there, to run each scenario as a subtest).
	Godog    func(*godog.Options)
	Throttle client.Throttle // the bounds of the waits for a throttling target; one left zero is the default's
	// Clock is the time the run paces and waits out throttling by; nil:
	// the wall clock (a test's fake clock measures a pause exactly).
	Clock client.Clock
	// IDSalt is steps.Config's: 0 (every run's) draws one, so that two runs
	// with one seed send different ids.
	IDSalt uint64
}

// Run runs the suite and returns its report. An error means the run could
// not be made (ErrConfig, ErrUnreachable); a target that breaks rules is not
// an error but a report whose Conformant is false. With a report folder,
// a run that could not be made still writes summary.json, summary.md and
// junit.xml there, saying why, so that a CI job shows the reason; a
// configuration refused at start (its tags, its baseline) writes nothing.
func Run(ctx context.Context, cfg Config, opts Options) (*Report, error) {
	baseline, total, err := start(cfg)
	if err != nil {
		return nil, err
	}
	opts.Output = cmp.Or[io.Writer](opts.Output, os.Stdout)
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	rep, err := run(ctx, &cfg, opts, baseline, total)
	if err != nil && rep == nil && cfg.ReportDir != "" {
		if werr := WriteCannotRun(cfg.ReportDir, cfg.BaseURL, err); werr != nil {
			return nil, fmt.Errorf("%w (and the reports could not be written: %v)", err, werr)
		}
	}
	return rep, err
}

// start checks the tags against the features and reads the baseline:
// ErrConfig errors. total is the scenarios the tags select (0: unknown).
func start(cfg Config) (baseline *verdict.Baseline, total int, err error) {
	filter, err := features.ParseTags(cfg.Tags)
	if err != nil {
		return nil, 0, config.Errorf("--tags: %v", err)
	}
	if scs, err := features.Scenarios(); err == nil {
		if total = len(filter.Select(scs)); total == 0 {
			return nil, 0, config.Errorf("--tags %q selects no scenario", cfg.Tags)
		}
	}
	if cfg.BaselineFile == "" {
		return nil, total, nil
	}
	if baseline, err = history.LoadBaseline(cfg.BaselineFile, verdict.Run); err != nil {
		return nil, 0, config.Errorf("--baseline: %v", err)
	}
	return baseline, total, nil
}

func run(ctx context.Context, cfg *Config, opts Options, baseline *verdict.Baseline, total int) (*Report, error) {
	v, err := spec.Default()
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	rep := &Report{Config: *cfg, Target: cfg.BaseURL, SpecTitle: v.Info().Title, SpecVersion: v.Info().Version, Baseline: baseline}
	rep.Config.Token, rep.Config.Headers = "", nil // its secrets: the report needs none
	tlsConf, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	base, _ := url.Parse(cfg.BaseURL) // Validate has parsed it
	rt, err := cfg.route(base, opts.Getenv)
	if err != nil {
		return nil, err
	}
	rep.Proxy = rt.says
	rep.rerunFlags = cfg.rerunFlags(rt)
	if err := preflight(ctx, base, cfg.Timeout, tlsConf, rt); err != nil {
		return nil, err
	}

	client := NewClient(cfg.Timeout, tlsConf, rt.proxy)
	defer client.CloseIdleConnections()
	closeHAR, err := recordHAR(client, cfg)
	if err != nil {
		return nil, err
	}
	defer closeHAR()
	notes, suite, forget := noticesFor(opts.Output)
	defer forget()
	notes.total = total
	var mu sync.Mutex
	st, err := steps.New(steps.Config{
		BaseURL: cfg.BaseURL, Token: cfg.Token, Client: client, Validator: v, Seed: cfg.Seed, IDSalt: opts.IDSalt, Examples: cfg.Examples,
		AllStrings: cfg.AllStrings, Without: cfg.Without, Headers: cfg.Headers, CurlFlags: cfg.curlFlags(rt),
		Rate: cfg.Rate, InFlight: cfg.Concurrency, Throttle: opts.Throttle, Notice: notes.notice, Clock: opts.Clock,
		OnScenario: func(r steps.Result) {
			mu.Lock()
			rep.Scenarios = append(rep.Scenarios, r)
			mu.Unlock()
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	rep.Target = st.PlantsURL()
	if strings.HasSuffix(rep.Target, "/plants/plants") {
		// Said before any request: the run goes on, to the address given.
		notes.notice("warning: --base-url ends in /plants, which plantcheck adds itself: every request goes to " + evidence.Text(rep.Target))
	}

	format := map[string]string{"progress": progressFormat, "pretty": prettyFormat}[cfg.Format]
	closeCucumber := func() error { return nil }
	if cfg.ReportDir != "" {
		err := os.MkdirAll(cfg.ReportDir, 0o755)
		var f *os.File
		if err == nil {
			f, err = os.Create(filepath.Join(cfg.ReportDir, "cucumber.json"))
		}
		if err != nil {
			return nil, fmt.Errorf("%w: report folder: %v", ErrConfig, err)
		}
		defer f.Close()
		bw := bufio.NewWriterSize(f, 64<<10)
		notes.cucumber = bw
		closeCucumber = func() error { return cmp.Or(bw.Flush(), f.Close()) }
		format += "," + cucumberFormat
	}
	gopts := &godog.Options{Format: format, Output: opts.Output, FS: features.FS, Paths: features.Paths(), Tags: cfg.Tags,
		Strict: true, Concurrency: cfg.Concurrency, NoColors: true, DefaultContext: ctx}
	if opts.Godog != nil {
		opts.Godog(gopts)
	}
	rep.Started = time.Now()
	status := godog.TestSuite{Name: suite, TestSuiteInitializer: st.InitializeSuite, Options: gopts}.Run()
	rep.Ended = time.Now()
	rep.Interrupted = ctx.Err() != nil
	rep.Throttling = st.Throttling()
	rep.Faults = st.Faults()
	if status == 2 && !rep.Interrupted {
		return nil, fmt.Errorf("%w: godog could not run the features (tags %q)", ErrConfig, cfg.Tags)
	}
	harErr := closeHAR()
	cukeErr := closeCucumber()
	rep.finish()
	rep.LikelyCause = likelyCause(rep, v, st.Redact)
	if cfg.ReportDir != "" {
		if err := rep.WriteFiles(cfg.ReportDir); err != nil {
			return rep, fmt.Errorf("%w: %v", ErrReport, err)
		}
	}
	if cfg.BaselineUpdate != "" {
		if err := history.WriteBaseline(cfg.BaselineUpdate, rep.Model()); err != nil {
			return rep, fmt.Errorf("%w: --baseline-update: %v", ErrReport, err)
		}
	}
	if cukeErr != nil {
		return rep, fmt.Errorf("%w: cucumber.json: %v", ErrReport, cukeErr)
	}
	if harErr != nil {
		return rep, fmt.Errorf("%w: --har: %v", ErrReport, harErr)
	}
	return rep, nil
}

// rerunFlags are the flags a rerun needs to send what this run sent, to
// the same target, the same way: the seed, the scenarios' sizes, the
// connection's settings. Secrets are read from the variables they came
// from (the token from PLANTCHECK_TOKEN, a header from the variable its
// name gives, a proxy's user:password from PLANTCHECK_PROXY_USERINFO);
// --tags is the rule's own.
func (cfg *Config) rerunFlags(rt route) []string {
	var out []string
	add := func(flag, value string) { out = append(out, flag+" "+shell.Quote(value)) }
	if cfg.ConfigFile != "" {
		add("--config", cfg.ConfigFile)
	}
	if !cfg.Reference {
		add("--base-url", cfg.BaseURL)
	}
	out = append(out, fmt.Sprintf("--seed %d", cfg.Seed))
	if cfg.Examples != 0 && cfg.Examples != config.DefaultExamples {
		out = append(out, fmt.Sprintf("--examples %d", cfg.Examples))
	}
	if cfg.AllStrings {
		out = append(out, "--all-strings")
	}
	if cfg.Rate > 0 {
		out = append(out, fmt.Sprintf("--rate %g", cfg.Rate))
	}
	if cfg.Timeout != config.DefaultTimeout {
		out = append(out, "--timeout "+cfg.Timeout.String())
	}
	if cfg.CACert != "" {
		add("--ca-cert", cfg.CACert)
	}
	if cfg.Cert != "" {
		add("--cert", cfg.Cert)
		add("--key", cfg.Key)
	}
	if cfg.Proxy != "" {
		out = append(out, "--proxy "+shellProxy(rt.via))
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Headers)) {
		out = append(out, fmt.Sprintf(`--header "%s: ${%s}"`, http.CanonicalHeaderKey(name), shell.HeaderVar(name)))
	}
	return out
}

// curlFlags are the connection's settings a curl reproduction needs.
func (cfg *Config) curlFlags(rt route) []string {
	var out []string
	if cfg.CACert != "" {
		out = append(out, "--cacert "+shell.Quote(cfg.CACert))
	}
	if cfg.Cert != "" {
		out = append(out, "--cert "+shell.Quote(cfg.Cert), "--key "+shell.Quote(cfg.Key))
	}
	return append(out, rt.curlFlags()...)
}

func (cfg *Config) tlsConfig() (*tls.Config, error) {
	conf, err := tlsconf.Client(cfg.CACert, cfg.Cert, cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return conf, nil
}

// NewClient returns the client of a run: one time limit per exchange,
// redirects not followed (a 3xx is an undocumented status), a connection
// for each exchange, through proxy (nil: none).
func NewClient(timeout time.Duration, tlsConf *tls.Config, proxy func(*http.Request) (*url.URL, error)) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = proxy
	// Each exchange has a connection of its own, closed after its answer
	// (no "Connection: close" is sent): bytes a target leaves on a
	// connection (a request body it did not read, an answer longer than its
	// Content-Length) can never be read as another request's answer, which
	// would make the verdict depend on which request happened to reuse it.
	tr.MaxIdleConnsPerHost = -1
	// No Plant Store answer needs more; Go would read 10 MB of headers.
	tr.MaxResponseHeaderBytes = MaxResponseHeaderBytes
	// A TLS session resumed spares each new connection the certificate's
	// verification.
	tlsConf = cmp.Or(tlsConf, &tls.Config{}).Clone()
	tlsConf.ClientSessionCache = tls.NewLRUClientSessionCache(0)
	tr.TLSClientConfig = tlsConf
	tr.ResponseHeaderTimeout = timeout
	tr.DialContext = (&net.Dialer{Timeout: min(timeout, 5*time.Second)}).DialContext
	return &http.Client{
		Timeout:       timeout,
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// preflight says within seconds whether the target can be reached, so that
// a wrong address fails at once. Through a proxy it reaches the proxy (which
// may alone resolve the target). Over TLS it reads the server's first word
// after the handshake: TLS 1.3 refuses a missing client certificate only
// then, a fault of the setup, never of the service.
func preflight(ctx context.Context, u *url.URL, timeout time.Duration, tlsConf *tls.Config, rt route) error {
	d := &net.Dialer{Timeout: min(timeout, 5*time.Second)}
	if rt.via != nil {
		host := tlsconf.Addr(rt.via)
		conn, err := d.DialContext(ctx, "tcp", host)
		if err != nil {
			return fmt.Errorf("%w: the proxy %s (from %s): %v", ErrUnreachable, host, rt.from, err)
		}
		conn.Close()
		return nil
	}
	host := tlsconf.Addr(u)
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, host, err)
	}
	defer conn.Close()
	if u.Scheme != "https" {
		conn.Close()
		if speaksTLS(ctx, d, host, u.Hostname(), min(timeout, 2*time.Second)) {
			https := *u
			https.Scheme = "https"
			return fmt.Errorf("%w: %s speaks TLS, not plain HTTP: use https:// (--base-url %s)", ErrUnreachable, host, https.Redacted())
		}
		return nil
	}
	conf := tlsConf.Clone()
	conf.ServerName = u.Hostname()
	conf.NextProtos = []string{"http/1.1"}
	tc := tls.Client(conn, conf)
	tc.SetDeadline(time.Now().Add(min(timeout, 5*time.Second)))
	hint := "use --ca-cert to trust a private certificate authority, and --cert and --key if the server asks for a client certificate"
	if err := tc.HandshakeContext(ctx); err != nil {
		var plain tls.RecordHeaderError
		if errors.As(err, &plain) {
			// What came back is no TLS record: a plain HTTP server's
			// answer to the handshake, most likely.
			plainURL := *u
			plainURL.Scheme = "http"
			what := "does not speak TLS"
			if bytes.HasPrefix(plain.RecordHeader[:], []byte("HTTP/")) {
				what = "answers plain HTTP, not TLS"
			}
			return fmt.Errorf("%w: %s %s: use http:// (--base-url %s)", ErrUnreachable, host, what, plainURL.Redacted())
		}
		return fmt.Errorf("%w: TLS with %s: %v (%s)", ErrUnreachable, host, err, hint)
	}
	fmt.Fprintf(tc, "HEAD %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: plantcheck\r\nConnection: close\r\n\r\n", cmp.Or(u.EscapedPath(), "/"), u.Host)
	var one [1]byte
	if _, err := tc.Read(one[:]); err != nil && !errors.Is(err, io.EOF) {
		var ne net.Error
		if !(errors.As(err, &ne) && ne.Timeout()) {
			return fmt.Errorf("%w: TLS with %s: the server ended the connection after the handshake: %v (%s)", ErrUnreachable, host, err, hint)
		}
	}
	return nil
}

// speaksTLS reports whether the server at addr, named in an http:// URL,
// completes a TLS handshake or answers it with a TLS alert. A plain HTTP
// server's 400, a closed connection or no answer within limit is plain.
func speaksTLS(ctx context.Context, d *net.Dialer, addr, name string, limit time.Duration) bool {
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(limit))
	// Only a probe: the handshake is made to see whether one comes back,
	// and the connection is closed without a byte of a request.
	tc := tls.Client(conn, &tls.Config{ServerName: name, InsecureSkipVerify: true}) //nolint:gosec // a probe; nothing is sent
	err = tc.HandshakeContext(ctx)
	var alert tls.AlertError
	return err == nil || errors.As(err, &alert)
}

// recordHAR has the client record every exchange into cfg.HAR (none when
// it is ""), the token written <token> and every other secret <redacted>
// (package har); the function returned ends the file, once.
func recordHAR(c *http.Client, cfg *Config) (func() error, error) {
	if cfg.HAR == "" {
		return func() error { return nil }, nil
	}
	w, err := har.Create(cfg.HAR, "plantcheck", buildinfo.Version())
	if err != nil {
		return nil, fmt.Errorf("%w: --har: %v", ErrConfig, err)
	}
	secrets := []string{cfg.Token}
	for _, vs := range cfg.Headers {
		secrets = append(secrets, vs...)
	}
	t := &har.Transport{Base: c.Transport, W: w, Token: cfg.Token, Known: evidence.NewSet(secrets...)}
	t.Start()
	c.Transport = t
	var once sync.Once
	var cerr error
	return func() error {
		once.Do(func() {
			t.Stop()
			_, cerr = w.Close()
		})
		return cerr
	}, nil
}
