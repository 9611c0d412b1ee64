package reference

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Limits of the http.Server that HTTPServer returns. A create request is
// small and quick: these bound slow or idle clients, not real work.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second // headers and a body of up to MaxBodyBytes
	writeTimeout      = 15 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 32 << 10
)

// HTTPServer returns an http.Server for s with timeouts and a header limit
// set, so that a slow or idle client cannot hold a connection forever. The
// server's own errors (such as a failed TLS handshake) go to the request log.
func (s *Server) HTTPServer() *http.Server {
	hs := limited(s)
	hs.ErrorLog = slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)
	return hs
}

// limited is an http.Server for h with the limits above.
func limited(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// Serve serves srv on ln, which the caller has already opened (so that a bad
// or busy address fails before anything starts), until ctx is done. Then it
// shuts srv down, letting requests in flight finish within grace, and
// returns nil. It returns an error when serving fails or when the requests in
// flight outlast grace (they are then cut off).
func Serve(ctx context.Context, ln net.Listener, srv *http.Server, grace time.Duration) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		// Serve returned before ctx was done: someone else closed srv, or
		// the listener failed.
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		<-served
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
