package proxy

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
)

// readyDial bounds the connection readiness makes to the upstream.
const readyDial = 2 * time.Second

// Admin is the proxy's admin endpoints, for an orchestrator and a
// monitoring system, served on a listener of their own (so that nothing
// under the service's paths is shadowed):
//
//   - GET /healthz: 200 while the proxy runs.
//   - GET /readyz: 200 while the upstream accepts connections, 503 with a
//     one-line reason while it does not (a TCP connection, made on each
//     probe; an https upstream's TLS handshake is not made).
//   - GET /metrics: Prometheus's text exposition (metrics.go).
func (h *Handler) Admin() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		plain(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := h.Ready(r.Context()); err != nil {
			plain(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		plain(w, http.StatusOK, "ok")
	})
	mux.Handle("GET /metrics", h.metrics.handler())
	return mux
}

// Ready reports whether the upstream accepts connections now, and if not,
// why, in one line that names no credential (the upstream's URL carries
// none).
func (h *Handler) Ready(ctx context.Context) error {
	addr := UpstreamAddr(h.upstream)
	d := net.Dialer{Timeout: h.dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("the upstream %s does not accept connections: %s", addr, evidence.Text(evidence.Cut(err.Error(), exchange.ExcerptBytes)))
	}
	conn.Close()
	return nil
}

func plain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintln(w, text)
}
