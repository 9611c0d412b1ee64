package run

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/shell"
)

// route is how a run reaches its target: the proxy function its client
// uses, the proxy that function chose for the target (nil: none), and
// that choice in words for the verdict.
type route struct {
	proxy func(*http.Request) (*url.URL, error)
	via   *url.URL
	// from names where via came from: "--proxy", "HTTPS_PROXY", ...
	from string
	// says is the verdict's line: the proxy (its credentials redacted)
	// and where it came from, or "none" and, when a proxy variable is set
	// but not used, why Go does not use it.
	says string
	// envSet: a proxy variable of the environment is set (a curl
	// reproduction then says --noproxy where Go went direct, as curl reads
	// more of them, and proxies loopback).
	envSet bool
}

// proxyVars are the variables net/http reads, in its order: the upper
// case first (Go's own copy of golang.org/x/net/http/httpproxy; the
// module's FromEnvironment prefers the lower case).
var proxyVars = map[string][]string{
	"http":  {"HTTP_PROXY", "http_proxy"},
	"https": {"HTTPS_PROXY", "https_proxy"},
	"no":    {"NO_PROXY", "no_proxy"},
}

// curlProxyVars are the variables curl reads a proxy from.
var curlProxyVars = []string{"http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"}

func firstSet(getenv func(string) string, names []string) (string, string) {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return n, v
		}
	}
	return "", ""
}

// route decides how the run reaches base: through --proxy, else as
// HTTP_PROXY, HTTPS_PROXY and NO_PROXY say. The choice is made by calling
// the very proxy function the client uses on the target's URL, so that
// NO_PROXY and Go's rule that a loopback target is never proxied hold as
// net/http applies them; the environment is read as net/http reads it
// (http.ProxyFromEnvironment itself reads it once a process, which a
// library caller or a test that sets it later would not see).
func (cfg *Config) route(base *url.URL, getenv func(string) string) (route, error) {
	if cfg.Proxy != "" {
		u, _ := url.Parse(cfg.Proxy) // config.Run.Validate has checked it
		return route{proxy: http.ProxyURL(u), via: u, from: "--proxy", says: config.RedactedURL(u) + " (from --proxy)"}, nil
	}
	var env httpproxy.Config
	_, env.HTTPProxy = firstSet(getenv, proxyVars["http"])
	_, env.HTTPSProxy = firstSet(getenv, proxyVars["https"])
	noName, noValue := firstSet(getenv, proxyVars["no"])
	env.NoProxy = noValue
	env.CGI = getenv("REQUEST_METHOD") != ""
	forURL := env.ProxyFunc()
	r := route{proxy: func(req *http.Request) (*url.URL, error) { return forURL(req.URL) }}
	r.envSet = slices.ContainsFunc([][]string{proxyVars["http"], proxyVars["https"], curlProxyVars}, func(names []string) bool {
		n, _ := firstSet(getenv, names)
		return n != ""
	})
	name, _ := firstSet(getenv, proxyVars[base.Scheme])
	via, err := forURL(base)
	if err != nil {
		// Only the CGI rule errs: the value is not in the message.
		return route{}, fmt.Errorf("%w: %s is set, but Go will not use it: %v", ErrConfig, name, err)
	}
	if via != nil {
		r.via, r.from, r.says = via, name, config.RedactedURL(via)+" (from "+name+")"
		return r, nil
	}
	r.says = "none"
	if name == "" {
		if other, _ := firstSet(getenv, proxyVars["http"]); other != "" && base.Scheme == "https" {
			r.says += " (" + other + " is set, but Go sends an https target only through HTTPS_PROXY)"
		}
		return r, nil
	}
	// Set, and not used: ask the same function, without NO_PROXY, about
	// a name no rule exempts, then about the target.
	bare := env
	bare.NoProxy, bare.CGI = "", false
	try := bare.ProxyFunc()
	readable, _ := try(&url.URL{Scheme: base.Scheme, Host: "plantcheck.invalid"})
	exempt, _ := try(base)
	switch {
	case readable == nil:
		r.says += " (" + name + " is set, but is not a proxy URL Go can read, so Go ignores it)"
	case exempt == nil:
		r.says += " (" + name + " is set, but Go never proxies a loopback target such as 127.0.0.1 or localhost)"
	default:
		r.says += " (" + name + " is set, but " + noName + " names the target's host)"
	}
	return r, nil
}

// shellProxy writes a proxy URL as a shell word for a reproduction or a
// rerun: quoted, with its user:password read from shell.ProxyUserinfoVar.
func shellProxy(u *url.URL) string {
	if u.User == nil {
		return shell.Quote(u.String())
	}
	c := *u
	c.User = nil
	rest, _ := strings.CutPrefix(c.String(), c.Scheme+"://")
	return `"` + c.Scheme + "://${" + shell.ProxyUserinfoVar + `}@"` + shell.Quote(rest)
}

// curlFlags are the proxy flags a curl reproduction needs to go the way
// the run went: through its proxy, or, where Go went direct although a
// proxy variable is set, --noproxy '*' (curl reads http_proxy and
// ALL_PROXY, which Go does not, and proxies a loopback target).
func (r route) curlFlags() []string {
	switch {
	case r.via != nil:
		return []string{"--proxy " + shellProxy(r.via)}
	case r.envSet:
		return []string{"--noproxy '*'"}
	}
	return nil
}
