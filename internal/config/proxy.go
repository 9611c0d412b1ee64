package config

import (
	"flag"
	"net/url"
	"strings"
	"time"
)

// The defaults of the proxy's own settings (package proxy reads them here).
const (
	// ProxyTimeout bounds the connection to the upstream and the wait for
	// its answer's header section.
	ProxyTimeout    = 10 * time.Second
	DefaultMaxJudge = 1 << 20
)

// Proxy is the configuration of plantcheck proxy: each setting is its
// flag's (DefineProxy).
type Proxy struct {
	Addr string
	// Upstream is the service's base URL, parsed; UpstreamText as given.
	Upstream              *url.URL
	UpstreamText          string
	ReportDir             string
	CACert, Cert, Key     string
	Timeout               time.Duration
	Strict, StrictClients bool
	MaxJudge              int64
	// Progress and ReportEvery are how often a progress line is written
	// and the reports rewritten (0: never, only at exit).
	Progress, ReportEvery time.Duration
	AdminAddr             string
	// Events is where the event log goes ("" none, "-" standard output).
	Events     string
	HAR        string
	ConfigFile string
	// BaselineFile is --baseline, which the proxy reads at start;
	// BaselineUpdate is --baseline-update, written at exit.
	BaselineFile, BaselineUpdate string
}

// Validate returns the first rule a setting breaks, and parses the upstream.
func (p *Proxy) Validate() error {
	switch {
	case p.UpstreamText == "":
		return Errorf("no upstream: give --upstream URL (or %s)", EnvUpstream)
	case p.Timeout <= 0:
		return Errorf("--timeout must be positive")
	case p.MaxJudge <= 0:
		return Errorf("--max-judge must be positive")
	case p.ReportEvery < 0:
		return Errorf("--report-every must not be negative")
	case p.Progress < 0:
		return Errorf("--progress must not be negative")
	}
	// The URL is not quoted: it may carry credentials.
	u, err := url.Parse(p.UpstreamText)
	switch {
	case !strings.Contains(p.UpstreamText, "://") && !strings.Contains(p.UpstreamText, "@"):
		return Errorf("--upstream: the upstream has no scheme: did you mean --upstream %s?", withScheme(p.UpstreamText))
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return Errorf("--upstream: the upstream must be an http or https URL with a host")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return Errorf("--upstream: the upstream URL must not carry credentials, a query or a fragment")
	}
	p.Upstream = u
	return nil
}

// ProxyFlags are the proxy's flags on a flag set.
type ProxyFlags struct {
	fs         *flag.FlagSet
	cfg        Proxy
	configPath string
}

// DefineProxy defines the proxy's flags on fs.
func DefineProxy(fs *flag.FlagSet) *ProxyFlags {
	f := &ProxyFlags{fs: fs}
	p := &f.cfg
	fs.StringVar(&p.Addr, "addr", "127.0.0.1:8081", "address to listen on (host:port; port 0 picks a free one)")
	fs.StringVar(&p.UpstreamText, "upstream", "", "the service's base URL, http or https (env "+EnvUpstream+")")
	fs.StringVar(&f.configPath, "config", "", "read settings from this YAML file: its keys are these flags' long names; the command line wins")
	verdictFlags(fs, &p.ReportDir, &p.Strict, &p.StrictClients)
	fs.StringVar(&p.CACert, "ca-cert", "", "PEM file of certificate authorities to trust for an https upstream, beside the system's")
	fs.StringVar(&p.Cert, "cert", "", "PEM file of a client certificate, for an https upstream that asks for one (with --key)")
	fs.StringVar(&p.Key, "key", "", "PEM file of the client certificate's private key (with --cert)")
	fs.DurationVar(&p.Timeout, "timeout", ProxyTimeout, "time limit to connect to the upstream and for it to begin its answer")
	fs.Int64Var(&p.MaxJudge, "max-judge", DefaultMaxJudge, "bytes of each body kept for judging; a longer body is forwarded whole and not judged")
	fs.DurationVar(&p.Progress, "progress", 5*time.Second, "how often a progress line goes to stderr (0: never)")
	fs.StringVar(&p.AdminAddr, "admin-addr", "", "serve /healthz, /readyz and /metrics (Prometheus) on this address (host:port), apart from --addr")
	fs.DurationVar(&p.ReportEvery, "report-every", 5*time.Second, "with --report-dir, rewrite the reports (atomically) this often while running, and at exit (0: only at exit)")
	fs.StringVar(&p.HAR, "har", "", "write every exchange the upstream answered to this file as HAR 1.2, secrets <redacted> (bodies of POST /plants up to --max-judge; others' headers only), for 'plantcheck judge' or a browser's developer tools")
	fs.StringVar(&p.BaselineFile, "baseline", "", baselineUsage)
	fs.StringVar(&p.BaselineUpdate, "baseline-update", "", baselineUpdateUsage)
	fs.StringVar(&p.Events, "events", "", "write one line of JSON to this file (- for standard output) for each failed judgement, as it is judged")
	return f
}

// Resolve reads the proxy's settings as run's are read, but from no file
// unless --config names one (plantcheck.yaml is run's).
func (f *ProxyFlags) Resolve(env Env) (Proxy, error) {
	cli := visited(f.fs)
	if f.configPath != "" {
		used, err := loadConfigFile(f.fs, f.configPath, cli, env.Getenv)
		if err != nil {
			return Proxy{}, err
		}
		f.cfg.ConfigFile = used
	}
	cfg := f.cfg
	if v := env.Getenv(EnvUpstream); !cli["upstream"] && v != "" {
		cfg.UpstreamText = v
	}
	if err := cfg.Validate(); err != nil {
		return Proxy{}, err
	}
	return cfg, nil
}

// reportsUsage is --report-dir's help where it receives a verdict's reports.
const reportsUsage = "write the reports into this folder (created if missing): summary.json, summary.md, summary-short.md, report.html, badge.svg, junit.xml"

// verdictFlags defines the flags of the commands that judge traffic into a
// verdict (proxy, judge, merge), which mean the same in each.
func verdictFlags(fs *flag.FlagSet, reportDir *string, strict, strictClients *bool) {
	fs.StringVar(reportDir, "report-dir", "", reportsUsage)
	fs.BoolVar(strict, "strict", false, "a failed SHOULD rule fails the verdict too")
	fs.BoolVar(strictClients, "strict-clients", false, "a client request that breaks the document fails the verdict too (exit 1)")
}
