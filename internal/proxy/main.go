package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/tlsconf"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// Streams are what plantcheck proxy touches of the process: the verdict
// (and an event log of "-") goes to Stdout, what it says while it runs to
// Stderr; Getenv reads GOGC and GOMEMLIMIT, which win over its own tuning.
type Streams struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// grace is how long exchanges in flight may take to end once the proxy is
// told to stop.
const grace = 10 * time.Second

// The proxy allocates about 20 KB an exchange over a live heap of a few
// megabytes: a collector target of 400 costs about a fifth less CPU an
// exchange than the default (measured under wrk); the soft limit keeps a
// busy proxy's heap in bounds all the same.
const (
	gcPercent   = 400
	memoryLimit = 1 << 30
)

// Run is plantcheck proxy: it serves cfg until ctx ends, then writes the
// verdict to s.Stdout and the reports, and returns it. An error means the
// proxy could not run, or its verdict could not be written (exit 2).
func Run(ctx context.Context, cfg config.Proxy, s Streams) (*verdict.Verdict, error) {
	say := func(format string, a ...any) { fmt.Fprintf(s.Stderr, "plantcheck proxy: "+format+"\n", a...) }
	opts := Options{Strict: cfg.Strict, StrictClients: cfg.StrictClients}
	if cfg.BaselineFile != "" {
		b, err := history.LoadBaseline(cfg.BaselineFile, verdict.Proxy)
		if err != nil {
			return nil, config.Errorf("--baseline: %v", err)
		}
		opts.Baseline = b
	}
	u := cfg.Upstream
	tlsConf, err := tlsconf.Client(cfg.CACert, cfg.Cert, cfg.Key)
	if err != nil {
		return nil, err
	}
	// "-" is stdout, else a file appended to (a restarted sidecar adds to
	// its log).
	var events io.Writer
	switch cfg.Events {
	case "":
	case "-":
		events = s.Stdout
	default:
		f, err := os.OpenFile(cfg.Events, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--events: %v", err)
		}
		defer f.Close()
		events = f
	}
	var harFile *har.Writer
	if cfg.HAR != "" {
		if harFile, err = har.Create(cfg.HAR, "plantcheck", buildinfo.Version()); err != nil {
			return nil, fmt.Errorf("--har: %v", err)
		}
		defer harFile.Close()
	}
	h, err := New(Config{Upstream: u, Timeout: cfg.Timeout, MaxJudge: cfg.MaxJudge, TLS: tlsConf, Events: events, HAR: harFile})
	if err != nil {
		return nil, err
	}
	// Listen before serving, so that a bad or busy address fails at once.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	var admin net.Listener
	if cfg.AdminAddr != "" {
		if admin, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			ln.Close()
			return nil, fmt.Errorf("--admin-addr: %v", err)
		}
	}
	stopReports := func() {}
	if cfg.ReportDir != "" {
		// At once, then every period: a proxy killed outright loses one.
		stopReports = rewriteReports(s.Stderr, h, opts, cfg.ReportDir, cfg.ReportEvery)
	}
	defer stopReports()
	say("listening on %s, forwarding to %s; stop with SIGINT (Ctrl-C) or SIGTERM for the verdict", "http://"+ln.Addr().String(), u.Redacted())
	if admin != nil {
		say("admin on http://%s: /healthz, /readyz, /metrics", admin.Addr())
		defer serveAdmin(admin, h)()
	}
	if conn, err := net.DialTimeout("tcp", tlsconf.Addr(u), cfg.Timeout); err != nil {
		say("warning: the upstream does not accept connections yet (%v); until it does, clients get 502s marked %s", err, MarkerHeader)
	} else {
		conn.Close()
	}
	if s.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if s.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	if err := Serve(ctx, ln, h, grace, cfg.Progress, s.Stderr); err != nil {
		if !errors.Is(err, ErrCut) {
			return nil, err
		}
		say("%v", err)
	}
	stopReports() // before the last write, which no periodic one may follow
	if harFile != nil {
		if n, err := harFile.Close(); err != nil {
			return nil, fmt.Errorf("--har: %v (after %d exchanges)", err, n)
		}
	}
	v := h.Verdict(opts)
	if n, err := h.EventsErr(); err != nil {
		say("warning: the event log stopped after %d events: %v", n, err)
	}
	if err := write(v, s.Stdout, cfg.ReportDir); err != nil {
		return v, err
	}
	if cfg.BaselineUpdate != "" {
		if err := history.WriteBaseline(cfg.BaselineUpdate, v); err != nil {
			return v, fmt.Errorf("--baseline-update: %v", err)
		}
		say("wrote the baseline this verdict passes with to %s", cfg.BaselineUpdate)
	}
	return v, nil
}

// write writes the verdict to the console, and the reports into dir.
func write(v *verdict.Verdict, stdout io.Writer, dir string) error {
	if err := v.WriteText(stdout, verdict.TextOptions{}); err != nil {
		return fmt.Errorf("write the verdict: %v", err)
	}
	if dir != "" {
		return v.WriteFiles(dir)
	}
	return nil
}

// serveAdmin serves the admin endpoints on ln until stop is called.
func serveAdmin(ln net.Listener, h *Handler) (stop func()) {
	srv := &http.Server{
		Handler:           h.Admin(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
		<-done
	}
}

// rewriteReports writes the reports into dir at once, then every period
// (0: never again) until stop, which waits for a write under way; the last
// write is the caller's. Each is atomic, so after a SIGKILL summary.json
// holds the judgements up to the last period.
func rewriteReports(stderr io.Writer, h *Handler, opts Options, dir string, every time.Duration) (stop func()) {
	write := func() {
		if err := h.Verdict(opts).WriteFiles(dir); err != nil {
			fmt.Fprintf(stderr, "plantcheck proxy: warning: rewrite the reports: %v\n", err)
		}
	}
	write()
	if every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				write()
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}
