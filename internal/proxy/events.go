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
// is judged (Config.Events): for a log shipper that follows a proxy which
// runs for days. Every string in it is redacted, bounded and escaped as
// the reports' evidence is (it is made by the same code).
type Event struct {
	Time time.Time `json:"time"`
	// Rule is the rule's ID; for a client's request that breaks the
	// document in no rule's way in particular, OTHER.
	Rule string `json:"rule"`
	// Level is the rule's (MUST, SHOULD) for a server-side failure; ""
	// for a client's request, which breaks the document, not a level.
	Level string `json:"level,omitempty"`
	// Side is "server" (the service broke the rule) or "client" (the
	// request broke the document).
	Side   string `json:"side"`
	Status int    `json:"status"`
	// Summary is the exchange and the judgement on one line: the request
	// line, the response line, what was expected and what came.
	Summary string `json:"summary"`
}

// eventSummary bounds an event's summary.
const eventSummary = 1 << 10

// eventOf makes the event of one failure's evidence, seen on side
// ("server" or "client"; a client's request breaks the document, not a
// rule's level).
func eventOf(f verdict.Evidence, side string, status int) Event {
	s := f.Request + " -> " + f.Response + ": expected " + f.Expected
	if f.Actual != "" {
		s += "; got " + f.Actual
	}
	at, _ := time.Parse(time.RFC3339Nano, f.At) // count wrote it
	return Event{Time: at, Rule: verdict.ClientGroup{Rule: f.Rule}.Label(), Level: verdict.Upper(f.Level),
		Side: side, Status: status, Summary: evidence.Cut(s, eventSummary)}
}

// eventLog writes events, one whole line a write, in the order they are
// judged, unbuffered: a line is in the writer (a file, standard output)
// as soon as it is judged. A write that fails stops the log (the proxy goes on forwarding
// and judging); Err says why.
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
	// One Write a line: Encode writes the line whole, ended with '\n'.
	enc := json.NewEncoder(l.w)
	enc.SetEscapeHTML(false) // a shipper's reader sees <html>, not \u003chtml\u003e
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
