package proxy

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// Event is one failed judgement, written as one line of JSON the moment it
// is judged (Config.Events), for a log shipper; every string in it is made
// safe as the reports' evidence is.
type Event struct {
	Time time.Time `json:"time"`
	// Rule is the rule's ID; for a client's request that breaks the
	// document in no rule's way in particular, OTHER.
	Rule   string `json:"rule"`
	Level  string `json:"level,omitempty"` // MUST, SHOULD; "" for a client's request
	Side   string `json:"side"`            // "server" (the service broke the rule) or "client"
	Status int    `json:"status"`
	// Summary is the request line, the response line, what was expected
	// and what came.
	Summary string `json:"summary"`
}

// eventSummary bounds an event's summary.
const eventSummary = 1 << 10

// eventOf makes the event of one failure's evidence, seen on side at at.
func eventOf(f verdict.Evidence, side string, status int, at time.Time) Event {
	s := f.Request + " -> " + f.Response + ": expected " + f.Expected
	if f.Actual != "" {
		s += "; got " + f.Actual
	}
	return Event{Time: at, Rule: verdict.ClientGroup{Rule: f.Rule}.Label(), Level: verdict.Upper(f.Level),
		Side: side, Status: status, Summary: evidence.Cut(s, eventSummary)}
}

// eventLog writes events, one whole line a write, unbuffered. A write that
// fails stops the log (the proxy goes on); EventsErr says why.
type eventLog struct {
	mu      sync.Mutex
	w       io.Writer
	err     error
	written int64
}

func (l *eventLog) write(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	enc := json.NewEncoder(l.w) // one Write a line
	enc.SetEscapeHTML(false)    // a shipper's reader sees <html>, not \u003chtml\u003e
	if l.err = enc.Encode(e); l.err == nil {
		l.written++
	}
}

// EventsErr reports why the event log stopped, if it did, and how many
// events it wrote.
func (h *Handler) EventsErr() (written int64, err error) {
	if h.events == nil {
		return 0, nil
	}
	h.events.mu.Lock()
	defer h.events.mu.Unlock()
	return h.events.written, h.events.err
}
