package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
)

// shutdownGrace is how long requests in flight may take to finish once
// serve is told to stop.
const shutdownGrace = 10 * time.Second

func cmdServe(ctx context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "serve", "[flags]",
		"Serve the bundled reference Plant Store server, the plainest honest\n"+
			"implementation of the spec, until SIGINT or SIGTERM (then requests in flight\n"+
			"finish). With --log, one line per request goes to stderr: never a token or a body.\n\n"+
			"The token is --token, else "+envToken+", else a random one printed once on stderr.")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	token := fs.String("token", "", "the bearer token clients must present (env "+envToken+")")
	maxBody := fs.Int64("max-body", 1<<20, "largest request body accepted, in bytes")
	logRequests := fs.Bool("log", false, "log one line per request to stderr (method, path, status, duration; never a token or a body)")
	mutant := fs.String("mutant", "", "serve a deliberately broken variant instead (see 'plantcheck selftest --list'), to see what a failure report looks like; several, comma-separated, make a server with several mistakes")
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "token" })
	if !set {
		*token = c.getenv(envToken)
	}
	generated := *token == ""
	if generated {
		*token = rand.Text()
	}
	if *maxBody <= 0 {
		fmt.Fprintln(c.stderr, "plantcheck serve: --max-body must be positive")
		return exitCannotRun
	}

	// Warnings and errors always; the request lines (level info) only with
	// --log, and then only do they cost anything per request.
	level := slog.LevelWarn
	if *logRequests {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: level}))
	srv, err := reference.New(reference.Config{Token: *token, MaxBodyBytes: *maxBody, Logger: log})
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck serve: %v\n", err)
		return exitCannotRun
	}
	var h http.Handler = srv
	for name := range strings.SplitSeq(*mutant, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		m, ok := mutants.Lookup(name)
		if !ok {
			fmt.Fprintf(c.stderr, "plantcheck serve: no mutant %q (see 'plantcheck selftest --list')\n", name)
			return exitCannotRun
		}
		// Each mutant wraps the server so far: their defects add up.
		h = m.Wrap(h, *token)
		fmt.Fprintf(c.stderr, "plantcheck serve: BROKEN ON PURPOSE: this server %s\n", m.Defect)
	}
	hs := srv.HTTPServer()
	hs.Handler = h
	// Listen before serving, so that a bad or busy address fails at once.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck serve: %v\n", err)
		return exitCannotRun
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(c.stderr, "plantcheck serve: the reference Plant Store server listens on %s (POST %s/plants)\n", base, base)
	if generated {
		// The one place plantcheck shows a token, once: one it made up
		// itself, which the user needs in order to call the server at all.
		fmt.Fprintf(c.stderr, "plantcheck serve: no token given; made one up. Clients send it as Authorization: Bearer $%s, with\n", envToken)
		fmt.Fprintf(c.stderr, "  export %s=%s\n", envToken, *token)
	}
	fmt.Fprintf(c.stderr, "plantcheck serve: certify it with: plantcheck run --base-url %s (token in $%s)\n", base, envToken)
	if err := reference.Serve(ctx, ln, hs, shutdownGrace); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck serve: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(c.stderr, "plantcheck serve: stopped")
	return exitOK
}
