package client

import (
	"net/http"
	"testing"

	"github.com/plantcheck/plantcheck/internal/har"
)

// TestFreshClientKeepsTheRecorder: with --har the client's transport is
// package har's recorder; a request sent again on a fresh connection
// (connection faults) goes through a recorder too, around a transport
// that keeps no connection alive.
func TestFreshClientKeepsTheRecorder(t *testing.T) {
	t.Parallel()
	base := &http.Transport{}
	c := &http.Client{Transport: &har.Transport{Base: base}}
	fresh := freshClient(c)
	rec, ok := fresh.Transport.(*har.Transport)
	if !ok {
		t.Fatalf("the fresh client's transport is %T, not the recorder", fresh.Transport)
	}
	tr, ok := rec.Base.(*http.Transport)
	if !ok || tr == base || !tr.DisableKeepAlives {
		t.Fatalf("the recorder's transport is %T (the same: %v), keep-alives disabled: %v", rec.Base, tr == base, ok && tr.DisableKeepAlives)
	}
	if c.Transport.(*har.Transport).Base != base {
		t.Fatal("the run's own client changed")
	}
}
