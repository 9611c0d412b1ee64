package selftest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// One answer, one verdict per rule: a run's own traffic, recorded (--har)
// and judged again as `plantcheck judge` judges it, or watched by a
// `plantcheck proxy` the run went through (Config.ViaProxy), must give no
// rule `pass` where the run gave `fail`, or the other way round. A rule
// traffic cannot show may read "not judged" in the judgement from traffic.

// disagreements judges the recording of a run in file again, as
// `plantcheck judge` does, from its traffic alone, and names each rule
// whose outcome there contradicts the run's (pass against fail).
func disagreements(file string, ran []verdict.Rule) ([]string, error) {
	v, err := proxy.JudgeFiles(config.Judge{Files: []string{file}, MaxJudge: config.DefaultMaxJudge, MaxFile: config.MaxFile}, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("judge the run's recording: %w", err)
	}
	return contradictions(ran, v.Rules, "judge"), nil
}

// contradictions names each rule the run passed and the other judgement
// (called by name) failed, or the other way round.
func contradictions(ran, other []verdict.Rule, name string) []string {
	judged := map[string]verdict.Outcome{}
	for _, r := range other {
		judged[string(r.ID)] = r.Outcome
	}
	var out []string
	for _, r := range ran {
		j := judged[string(r.ID)]
		if r.Outcome == verdict.Pass && j == verdict.Fail || r.Outcome == verdict.Fail && j == verdict.Pass {
			out = append(out, fmt.Sprintf("%s: run %s, %s %s", r.ID, r.Outcome, name, j))
		}
	}
	return out
}

// proxyGrace is how long the exchanges still in flight when a run is over
// may take to end once its proxy is stopped: none should be (the run
// waited for each answer, or gave up on it and closed its connection).
const proxyGrace = 5 * time.Second

// startProxy serves a `plantcheck proxy`, configured as its defaults
// configure it, on loopback in front of upstream. stop stops it, once
// every exchange it forwarded is counted, and returns its verdict, as its
// reports would give it.
func startProxy(upstream string) (base string, stop func() (*verdict.Verdict, error), err error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return "", nil, err
	}
	h, err := proxy.New(proxy.Config{Upstream: u, MaxJudge: config.DefaultMaxJudge, Timeout: config.ProxyTimeout})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen on loopback: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- proxy.Serve(ctx, ln, h, proxyGrace, 0, nil) }()
	return "http://" + ln.Addr().String(), func() (*verdict.Verdict, error) {
		cancel()
		if err := <-served; err != nil {
			return nil, fmt.Errorf("the proxy: %w", err)
		}
		return h.Verdict(proxy.Options{}), nil
	}, nil
}
