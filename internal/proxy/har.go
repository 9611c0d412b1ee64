package proxy

import (
	"github.com/plantcheck/plantcheck/internal/har"
)

// With Config.HAR, every exchange the upstream answered is written to a
// HAR file (package har), its secrets hidden by the proxy's own memory of
// them (an evidence.Set), as in every report: the bodies of POST /plants as
// kept for judging, up to har.MaxBody (a longer one cut and marked), the
// others' headers alone (their bodies are never kept).

// writeHAR writes one exchange; bodies: its bodies were kept.
func (h *Handler) writeHAR(x *flight, bodies bool) {
	hx := har.Record{Exchange: x.exchange(), Started: x.start, NotKept: !bodies}
	if x.err != nil {
		// As `run --har` records an answer its client could not frame.
		hx.Comment = har.NoAnswer + x.err.Error()
	}
	if !bodies {
		hx.Body, hx.RespBody, hx.BodyTotal, hx.RespTotal = nil, nil, -1, -1
		hx.BodyIncomplete, hx.RespIncomplete = "", ""
	}
	own := har.Secrets(&hx.Exchange, nil)
	h.secrets.Add(own...)
	h.har.Add(har.NewEntry(hx, har.NewHider("", h.secrets.Redactor(own)), min(h.maxJudge, har.MaxBody)))
}
