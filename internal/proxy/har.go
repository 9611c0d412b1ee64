package proxy

import (
	"github.com/plantcheck/plantcheck/internal/har"
)

// With Config.HAR, every exchange the upstream answered is written to a
// HAR file (package har), its secrets hidden by the proxy's own memory of
// them (secrets.go), as in every report: the bodies of POST /plants as
// kept for judging, up to har.MaxBody (a longer one cut and marked), the
// others' headers alone (their bodies are never kept).

// writeHAR writes one exchange; bodies: its bodies were kept.
func (h *Handler) writeHAR(x *flight, bodies bool) {
	hx := har.Exchange{
		Started: x.start, Duration: x.duration, Method: x.method, URL: x.to.Scheme + "://" + x.to.Host + x.to.RequestURI(),
		Header: x.header, Status: x.status, RespHeader: x.respHeader,
		BodyNotKept: !bodies, RespNotKept: !bodies, BodyTotal: -1, RespTotal: -1,
	}
	if bodies {
		hx.Body, hx.BodyTotal, hx.BodyCut = x.reqBody.body, x.reqBody.total, x.reqBody.why != ""
		hx.RespBody, hx.RespTotal, hx.RespCut = x.respBody.body, x.respBody.total, x.respBody.why != ""
	}
	own := har.Secrets(hx, nil)
	h.secrets.add(own)
	h.har.Add(har.NewEntry(hx, har.NewHider("", h.secrets.redactor(own)), min(h.maxJudge, har.MaxBody)))
}
