package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
)

// Serve serves h on ln until ctx is done, then lets the exchanges in flight
// end within grace, cuts the others, and returns once every exchange is
// counted. Every interval (0: never) it writes a progress line to progress.
func Serve(ctx context.Context, ln net.Listener, h *Handler, grace, interval time.Duration, progress io.Writer) error {
	// A body may stream for as long as it lasts: no read or write timeout.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 1 << 20,
		// net/http's own complaints are shown only to progress.
		ErrorLog: log.New(io.Discard, "", 0)}
	if progress != nil {
		// They may quote what a client sent: escaped, one line each.
		srv.ErrorLog = log.New(textWriter{progress}, "", 0)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	var tick <-chan time.Time
	if interval > 0 && progress != nil {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	var last string
	quiet := 0
	for running := true; running; {
		select {
		case err := <-served:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return fmt.Errorf("serve: %w", err)
		case <-tick:
			// A line when anything changed, and one a minute or so
			// while nothing does, so that a quiet proxy is seen alive.
			p := h.tally.Progress()
			quiet++
			if p != last || time.Duration(quiet)*interval >= time.Minute {
				fmt.Fprintf(progress, "plantcheck proxy: %s\n", p)
				last, quiet = p, 0
			}
		case <-ctx.Done():
			running = false
		}
	}

	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		// Cut the exchanges still streaming: each is counted as gone.
		srv.Close()
		err = fmt.Errorf("%w: exchanges still in flight after %s were cut", ErrCut, grace)
	}
	<-served
	// Cut exchanges end at once; wait for each to be counted, in a bound.
	done := make(chan struct{})
	go func() { h.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
	}
	// Judging always ends, so this wait has no bound.
	h.queue.wait()
	h.transport.CloseIdleConnections()
	return err
}

// ErrCut means that exchanges were still in flight when the grace after a
// stop ran out: they were cut, and are counted as unfinished.
var ErrCut = errors.New("shutdown")

// textWriter writes each message as one escaped line.
type textWriter struct{ w io.Writer }

func (t textWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSuffix(string(p), "\n")
	_, err := fmt.Fprintf(t.w, "plantcheck proxy: net/http: %s\n", evidence.Text(evidence.Cut(msg, 4<<10)))
	return len(p), err
}
