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
// flag's (Settings).
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
	if p.UpstreamText == "" {
		return Errorf("no upstream: give --upstream URL (or %s)", EnvUpstream)
	}
	if err := checkRanges("proxy", p); err != nil {
		return err
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

// ProxyFlags are the proxy's flags (Define[ProxyFlags]).
type ProxyFlags struct {
	Proxy
	ConfigPath string
}

// Resolve reads the proxy's settings as run's are read, but from no file
// unless --config names one (plantcheck.yaml is run's).
func (f *ProxyFlags) Resolve(fs *flag.FlagSet, env Env) (Proxy, error) {
	cli := visited(fs)
	if f.ConfigPath != "" {
		used, err := loadConfigFile(fs, f.ConfigPath, cli, env.Getenv)
		if err != nil {
			return Proxy{}, err
		}
		f.ConfigFile = used
	}
	if _, err := readEnv(fs, "proxy", cli, env); err != nil {
		return Proxy{}, err
	}
	cfg := f.Proxy
	err := cfg.Validate()
	return cfg, err
}
