package run

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/har"
)

// recordHAR has the client record every exchange into cfg.HAR (none when
// it is ""), the token written <token> and every other secret <redacted>
// (package har); the function returned ends the file, once.
func recordHAR(c *http.Client, cfg *Config) (func() error, error) {
	if cfg.HAR == "" {
		return func() error { return nil }, nil
	}
	w, err := har.Create(cfg.HAR, "plantcheck", buildinfo.Version())
	if err != nil {
		return nil, fmt.Errorf("%w: --har: %v", ErrConfig, err)
	}
	secrets := []string{cfg.Token}
	for _, vs := range cfg.Headers {
		secrets = append(secrets, vs...)
	}
	t := &har.Transport{Base: c.Transport, W: w, Token: cfg.Token, Known: evidence.NewSet(secrets...)}
	t.Start()
	c.Transport = t
	var once sync.Once
	var cerr error
	return func() error {
		once.Do(func() {
			t.Stop()
			_, cerr = w.Close()
		})
		return cerr
	}, nil
}
