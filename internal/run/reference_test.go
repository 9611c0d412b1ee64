package run

import (
	"testing"

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
