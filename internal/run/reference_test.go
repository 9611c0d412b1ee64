package run

import (
	"context"
	"sync"
	"testing"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/reference"
)

// withReference points cfg at the bundled reference server, started on a
// loopback port for the test, as the CLI does when no target is named.
func withReference(t testing.TB, cfg Config) Config {
	t.Helper()
	url, token, stop, err := reference.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	cfg.BaseURL, cfg.Token, cfg.Reference = url, token, true
	return cfg
}

// runWith runs cfg with its defaults filled and validated, as config
// completes a library caller's Run (a configuration it refuses is
// Complete's error).
func runWith(ctx context.Context, cfg Config, opts Options) (*Report, error) {
	c, err := config.Run(cfg).Complete()
	if err != nil {
		return nil, err
	}
	return Run(ctx, Config(c), opts)
}

// atOnce runs f for each case as a subtest of t, all of them at once,
// without waiting for a slot of -parallel (GOMAXPROCS by default, 2 on a
// two-core machine), and returns when every one has ended. It is for
// subtests that wait on the clock (a gateway's rate, a Retry-After, a
// target that takes its time), not on the processor, which -parallel
// rations: each has its own target, and its outcome does not depend on
// how many run beside it.
func atOnce[C any](t *testing.T, cases []C, name func(C) string, f func(*testing.T, C)) {
	t.Helper()
	var wg sync.WaitGroup
	for _, c := range cases {
		wg.Go(func() { t.Run(name(c), func(t *testing.T) { f(t, c) }) })
	}
	wg.Wait()
}
