package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
)

const serveHelp = "Serve the bundled reference Plant Store server, the plainest honest\n" +
	"implementation of the spec, until SIGINT or SIGTERM (then requests in flight\n" +
	"finish). With --log, one line per request goes to stderr: never a token or a body.\n\n" +
	"The token is --token, else " + config.EnvToken + ", else a random one printed once on stderr."

func cmdServe(ctx context.Context, c cli, flags *config.Serve, _ []string) int {
	cfg, err := flags.Resolve(c.fs, c.env())
	if err != nil {
		return c.fail("%v", err)
	}
	generated := cfg.Token == ""
	if generated {
		cfg.Token = rand.Text()
	}
	// Warnings and errors always; the request lines (level info) only with
	// --log, and then only do they cost anything per request.
	level := slog.LevelWarn
	if cfg.Log {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: level}))
	srv, err := reference.New(reference.Config{Token: cfg.Token, MaxBodyBytes: cfg.MaxBody, Logger: log})
	if err != nil {
		return c.fail("%v", err)
	}
	var h http.Handler = srv
	for name := range strings.SplitSeq(cfg.Mutant, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		m, ok := mutants.Lookup(name)
		if !ok {
			return c.fail("no mutant %q (see 'plantcheck selftest --list')", name)
		}
		// Each mutant wraps the server so far: their defects add up.
		h = m.Wrap(h, cfg.Token)
		fmt.Fprintf(c.stderr, "plantcheck serve: BROKEN ON PURPOSE: this server %s\n", m.Defect)
	}
	hs := srv.HTTPServer()
	hs.Handler = h
	// Listen before serving, so that a bad or busy address fails at once.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return c.fail("%v", err)
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(c.stderr, "plantcheck serve: the reference Plant Store server listens on %s (POST %s/plants)\n", base, base)
	if generated {
		// The one place plantcheck shows a token, once: one it made up
		// itself, which the user needs in order to call the server at all.
		fmt.Fprintf(c.stderr, "plantcheck serve: no token given; made one up. Clients send it as Authorization: Bearer $%s, with\n", config.EnvToken)
		fmt.Fprintf(c.stderr, "  export %s=%s\n", config.EnvToken, cfg.Token)
	}
	fmt.Fprintf(c.stderr, "plantcheck serve: certify it with: plantcheck run --base-url %s (token in $%s)\n", base, config.EnvToken)
	// Requests in flight have 10 s to finish once serve is told to stop.
	if err := reference.Serve(ctx, ln, hs, 10*time.Second); err != nil {
		return c.fail("%v", err)
	}
	fmt.Fprintln(c.stderr, "plantcheck serve: stopped")
	return exitOK
}
