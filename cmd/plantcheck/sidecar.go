package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/plantcheck/plantcheck/internal/proxy"
)

// What `plantcheck proxy` needs to live as a sidecar, beside the proxy
// itself: its admin endpoints, its reports rewritten while it runs, and
// its event log.

// openEvents opens the event log: "" none, "-" standard output, else a
// file, created or appended to (a restarted sidecar adds to its log).
func openEvents(c cli, name string) (io.Writer, func(), error) {
	switch name {
	case "":
		return nil, func() {}, nil
	case "-":
		return c.stdout, func() {}, nil
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// serveAdmin serves the proxy's admin endpoints on ln until the returned
// stop is called.
func serveAdmin(ln net.Listener, h *proxy.Handler) (stop func()) {
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
// (0: never again) until the returned stop is called, which waits for a
// write under way: the last write, at exit, is the caller's. Each write is
// atomic (verdict.WriteFiles), so summary.json on disk is always whole:
// after a SIGKILL, it holds the judgements made up to the last period.
func rewriteReports(c cli, h *proxy.Handler, opts proxy.Options, dir string, every time.Duration) (stop func()) {
	write := func() {
		if err := h.Verdict(opts).WriteFiles(dir); err != nil {
			fmt.Fprintf(c.stderr, "plantcheck proxy: warning: rewrite the reports: %v\n", err)
		}
	}
	write()
	if every <= 0 {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				write()
			case <-quit:
				return
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-done }) }
}
