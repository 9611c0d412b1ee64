package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/tlsconf"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// envUpstream is read by proxy when --upstream is not given.
const envUpstream = config.EnvUpstream

// proxyGrace is how long exchanges in flight may take to end once proxy is
// told to stop.
const proxyGrace = 10 * time.Second

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
	flags := config.DefineProxy(fs)
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(c.stderr, "plantcheck proxy: "+format+"\n", a...)
		return exitCannotRun
	}
	cfg, err := flags.Resolve(c.env())
	if err != nil {
		return fail("%v", err)
	}
	u := cfg.Upstream
	tlsConf, err := tlsconf.Client(cfg.CACert, cfg.Cert, cfg.Key)
	if err != nil {
		return fail("%v", err)
	}
	events, closeEvents, err := openEvents(c, cfg.Events)
	if err != nil {
		return fail("--events: %v", err)
	}
	defer closeEvents()
	harFile, closeHAR, err := openHAR(cfg.HAR)
	if err != nil {
		return fail("--har: %v", err)
	}
	defer closeHAR()
	h, err := proxy.New(proxy.Config{Upstream: u, Timeout: cfg.Timeout, MaxJudge: cfg.MaxJudge, TLS: tlsConf, Events: events, HAR: harFile})
	if err != nil {
		return fail("%v", err)
	}
	opts := proxy.Options{Strict: cfg.Strict, StrictClients: cfg.StrictClients, Baseline: cfg.Baseline}
	// Listen before serving, so that a bad or busy address fails at once.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fail("%v", err)
	}
	var admin net.Listener
	if cfg.AdminAddr != "" {
		if admin, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			ln.Close()
			return fail("--admin-addr: %v", err)
		}
	}
	stopReports := func() {}
	if cfg.ReportDir != "" {
		// The reports at once (before the proxy says it listens), then
		// the verdict so far every period: a proxy killed outright loses
		// at most one period.
		stopReports = rewriteReports(c, h, opts, cfg.ReportDir, cfg.ReportEvery)
	}
	defer stopReports()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(c.stderr, "plantcheck proxy: listening on %s, forwarding to %s; stop with SIGINT (Ctrl-C) or SIGTERM for the verdict\n", base, u.Redacted())
	if admin != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: admin on http://%s: /healthz, /readyz, /metrics\n", admin.Addr())
		stopAdmin := serveAdmin(admin, h)
		defer stopAdmin()
	}
	if conn, err := net.DialTimeout("tcp", proxy.UpstreamAddr(u), cfg.Timeout); err != nil {
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
	serveErr := proxy.Serve(ctx, ln, h, proxyGrace, cfg.Progress, c.stderr)
	if serveErr != nil && !errors.Is(serveErr, proxy.ErrCut) {
		fmt.Fprintf(c.stderr, "plantcheck proxy: %v\n", serveErr)
		return exitCannotRun
	}
	if serveErr != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: %v\n", serveErr)
	}
	stopReports() // before the last write, which no periodic one may follow
	if n, err := closeHAR(); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: --har: %v (after %d exchanges)\n", err, n)
		return exitCannotRun
	}
	v := h.Verdict(opts)
	if n, err := h.EventsErr(); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: warning: the event log stopped after %d events: %v\n", n, err)
	}
	if err := v.WriteText(c.stdout, verdict.TextOptions{}); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck proxy: write the verdict: %v\n", err)
		return exitCannotRun
	}
	if cfg.ReportDir != "" {
		if err := v.WriteFiles(cfg.ReportDir); err != nil {
			fmt.Fprintf(c.stderr, "plantcheck proxy: %v\n", err)
			return exitCannotRun
		}
	}
	return v.ExitCode
}
