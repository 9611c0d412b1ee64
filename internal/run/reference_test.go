package run

import (
	"context"
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
