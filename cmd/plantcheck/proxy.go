package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"runtime/debug"
	"time"

	"github.com/plantcheck/plantcheck/internal/tlsconf"
	"github.com/plantcheck/plantcheck/proxy"
)

// envUpstream is read by proxy when --upstream is not given.
const envUpstream = "PLANTCHECK_UPSTREAM"

// proxyGrace is how long exchanges in flight may take to end once proxy is
// told to stop; proxyProgress how often it says how many it has seen.
const (
	proxyGrace    = 10 * time.Second
	proxyProgress = 5 * time.Second
	// proxyReportEvery is how often the reports are rewritten while the
	// proxy runs: a kill loses at most this much.
	proxyReportEvery = 5 * time.Second
)

// The proxy allocates about 20 KB an exchange (most of it judging) over a
// live heap of a few megabytes: at the collector's default target it would
// collect every couple of hundred exchanges. A target of 400 costs it
// about a fifth less CPU an exchange (measured under wrk); the soft limit
// keeps a busy proxy's heap in bounds all the same. GOGC and GOMEMLIMIT,
// when set, win.
const (
	proxyGCPercent   = 400
	proxyMemoryLimit = 1 << 30
)

func cmdProxy(ctx context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "proxy", "--upstream URL [flags]",
		"Certify a deployment, and its clients, from the traffic that passes through:\n"+
			"a reverse proxy that forwards every exchange as it comes and judges each\n"+
			"exchange of POST /plants by every rule traffic can show. Point the clients (or\n"+
			"'plantcheck run --base-url') at --addr. On SIGINT or SIGTERM it stops accepting,\n"+
			"lets the exchanges in flight end, and prints the verdict; a second signal ends\n"+
			"it at once. Its own answers (the upstream cannot be reached, does not answer\n"+
			"within --timeout, or fails) are 502s marked with the header Plantcheck-Proxy.\n\n"+
			"Exit status: 0 no server-side violation seen, 1 the service broke a MUST rule\n"+
			"(or, with --strict, a SHOULD rule; or, with --strict-clients, a client sent a\n"+
			"request that breaks the document), 2 could not run, or had traffic and could\n"+
			"judge none of it (an upstream down the whole time).")
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on (host:port; port 0 picks a free one)")
	upstream := fs.String("upstream", "", "the service's base URL, http or https (env "+envUpstream+")")
	reportDir := fs.String("report-dir", "", "write the reports into this folder (created if missing): summary.json, summary.md, summary-short.md, report.html, badge.svg, junit.xml")
	caCert := fs.String("ca-cert", "", "PEM file of certificate authorities to trust for an https upstream, beside the system's")
	cert := fs.String("cert", "", "PEM file of a client certificate, for an https upstream that asks for one (with --key)")
	key := fs.String("key", "", "PEM file of the client certificate's private key (with --cert)")
	timeout := fs.Duration("timeout", proxy.DefaultTimeout, "time limit to connect to the upstream and for it to begin its answer")
	strictClients := fs.Bool("strict-clients", false, "a client request that breaks the document fails the verdict too (exit 1)")
	strict := fs.Bool("strict", false, "a failed SHOULD rule fails the verdict too")
	maxJudge := fs.Int64("max-judge", proxy.DefaultMaxJudge, "bytes of each body kept for judging; a longer body is forwarded whole and not judged")
	progress := fs.Duration("progress", proxyProgress, "how often a progress line goes to stderr (0: never)")
	adminAddr := fs.String("admin-addr", "", "serve /healthz, /readyz and /metrics (Prometheus) on this address (host:port), apart from --addr")
	reportEvery := fs.Duration("report-every", proxyReportEvery, "with --report-dir, rewrite the reports (atomically) this often while running, and at exit (0: only at exit)")
	eventsTo := fs.String("events", "", "write one line of JSON to this file (- for standard output) for each failed judgement, as it is judged")
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "upstream" })
	if !set {
		*upstream = c.getenv(envUpstream)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(c.stderr, "plantcheck proxy: "+format+"\n", a...)
		return exitCannotRun
	}
	switch {
	case *upstream == "":
		return fail("no upstream: give --upstream URL (or %s)", envUpstream)
	case *timeout <= 0:
		return fail("--timeout must be positive")
	case *maxJudge <= 0:
		return fail("--max-judge must be positive")
	case *reportEvery < 0:
		return fail("--report-every must not be negative")
	}
	u, err := url.Parse(*upstream)
	if err != nil {
		return fail("--upstream: %v", err)
	}
	tlsConf, err := tlsconf.Client(*caCert, *cert, *key)
	if err != nil {
		return fail("%v", err)
	}
	events, closeEvents, err := openEvents(c, *eventsTo)
	if err != nil {
		return fail("--events: %v", err)
	}
	defer closeEvents()
	h, err := proxy.New(proxy.Config{Upstream: u, Timeout: *timeout, MaxJudge: *maxJudge, TLS: tlsConf, Events: events})
	if err != nil {
		return fail("%v", err)
	}
	opts := proxy.Options{Strict: *strict, StrictClients: *strictClients}
	// Listen before serving, so that a bad or busy address fails at once.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fail("%v", err)
	}
	var admin net.Listener
	if *adminAddr != "" {
		if admin, err = net.Listen("tcp", *adminAddr); err != nil {
			ln.Close()
			return fail("--admin-addr: %v", err)
		}
	}
	stopReports := func() {}
	if *reportDir != "" {
		// The reports at once (before the proxy says it listens), then
		// the verdict so far every period: a proxy killed outright loses
		// at most one period.
		stopReports = rewriteReports(c, h, opts, *reportDir, *reportEvery)
	}
	defer stopReports()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(c.stderr, "plantcheck proxy: listening on %s, forwarding to %s; stop with SIGINT (Ctrl-C) or SIGTERM for the verdict\n", base, u.Redacted())
	if admin != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: admin on http://%s: /healthz, /readyz, /metrics\n", admin.Addr())
		stopAdmin := serveAdmin(admin, h)
		defer stopAdmin()
	}
	if conn, err := net.DialTimeout("tcp", proxy.UpstreamAddr(u), *timeout); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: warning: the upstream does not accept connections yet (%v); until it does, clients get 502s marked %s\n",
			err, proxy.MarkerHeader)
	} else {
		conn.Close()
	}

	if c.getenv("GOGC") == "" {
		debug.SetGCPercent(proxyGCPercent)
	}
	if c.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(proxyMemoryLimit)
	}
	serveErr := proxy.Serve(ctx, ln, h, proxyGrace, *progress, c.stderr)
	if serveErr != nil && !errors.Is(serveErr, proxy.ErrCut) {
		fmt.Fprintf(c.stderr, "plantcheck proxy: %v\n", serveErr)
		return exitCannotRun
	}
	if serveErr != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: %v\n", serveErr)
	}
	stopReports() // before the last write, which no periodic one may follow
	v := h.Verdict(opts)
	if n, err := h.EventsErr(); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: warning: the event log stopped after %d events: %v\n", n, err)
	}
	if err := v.WriteText(c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: write the verdict: %v\n", err)
		return exitCannotRun
	}
	if *reportDir != "" {
		if err := v.WriteFiles(*reportDir); err != nil {
			fmt.Fprintf(c.stderr, "plantcheck proxy: %v\n", err)
			return exitCannotRun
		}
	}
	return v.ExitCode
}
