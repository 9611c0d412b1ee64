package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestProxyMutantsTable runs the suite through the proxy against every
// mutant and prints which the proxy catches from the suite's traffic, by
// which rules, and which it cannot. It takes a minute or two, so it runs
// only when asked:
//
//	PLANTCHECK_PROXY_MUTANTS=1 go test -run ProxyMutantsTable -v ./cmd/plantcheck/
//
// or, for some mutants, PLANTCHECK_PROXY_MUTANTS=name,name.
func TestProxyMutantsTable(t *testing.T) {
	t.Parallel()
	only := os.Getenv("PLANTCHECK_PROXY_MUTANTS")
	if only == "" {
		t.Skip("set PLANTCHECK_PROXY_MUTANTS=1 to run it")
	}
	ms := mutants.All
	if only != "1" {
		ms = nil
		for _, name := range strings.Split(only, ",") {
			m, ok := mutants.Lookup(strings.TrimSpace(name))
			if !ok {
				t.Fatalf("no mutant %q", name)
			}
			ms = append(ms, m)
		}
	}
	var rows []string
	caught := 0
	for _, m := range ms {
		token := reference.RandomToken(12)
		if m.LongToken {
			token = reference.RandomToken(40)
		}
		ref, err := reference.New(reference.Config{Token: token})
		if err != nil {
			t.Fatal(err)
		}
		up, stopUp, err := reference.Loopback(m.Wrap(ref, token))
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(up)
		h, err := proxy.New(proxy.Config{Upstream: u, MaxJudge: proxy.DefaultMaxJudge, Timeout: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- proxy.Serve(ctx, ln, h, 2*time.Second, 0, nil) }()
		cfg, err := config.Run{BaseURL: "http://" + ln.Addr().String(), Token: token, Timeout: 5 * time.Second, Seed: 1}.Complete()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := run.Run(t.Context(), run.Config(cfg), run.Options{Output: io.Discard})
		cancel()
		<-served
		stopUp()
		suite := "error"
		if err == nil {
			suite = map[int]string{0: "passes", 1: "caught", 2: "error"}[rep.ExitCode()]
		}
		v := h.Verdict(proxy.Options{Strict: true})
		var failed []string
		for _, r := range v.Rules {
			if r.Failures > 0 {
				failed = append(failed, string(r.ID))
			}
		}
		verdict := "not caught"
		if len(failed) > 0 {
			caught++
			verdict = "caught: " + strings.Join(failed, ", ")
			if !slices.ContainsFunc(m.Rules, func(id rules.RuleID) bool { return slices.Contains(failed, string(id)) }) {
				verdict += " (not the mutant's own rule)"
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", m.Name, m.Defect, suite, verdict))
	}
	t.Logf("\n| mutant | defect | suite | proxy, from the suite's traffic |\n|---|---|---|---|\n%s\n%d of %d caught by the proxy",
		strings.Join(rows, "\n"), caught, len(ms))
}
