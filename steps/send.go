package steps

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// theClientPostsIt sends the scenario's request and keeps the exchange; an
// answer that does not come fails the steps that read it (RESPONSE-TIMELY).
func (s *Suite) theClientPostsIt(ctx context.Context) error {
	st := stateOf(ctx)
	x, err := s.sendRequest(ctx, &st.req)
	st.req.setup = false // the request sent again is the one the scenario is about
	if err != nil {
		return err
	}
	st.Exchanges = append(st.Exchanges, x)
	return nil
}

// sendRequest sends r through the run's client, has the one judge judge
// the exchange, and keeps it as evidence.
func (s *Suite) sendRequest(ctx context.Context, r *request) (*Sent, error) {
	body := r.Body()
	cred := *s.token("Bearer ", "", true)
	if r.cred != nil {
		cred = *r.cred
	}
	target, shown := s.plantsURL, s.plantsURL
	if r.tokenIn == tokenInQuery {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		target += sep + url.QueryEscape(r.tokenName) + "=" + s.cfg.Token // a token a query need not escape
		shown += sep + url.QueryEscape(r.tokenName) + "=" + evidence.TokenMark
	}
	// The exchange is timed from its last try: the run's pauses are not
	// the target's.
	var start time.Time
	req, err := http.NewRequestWithContext(client.WithTry(ctx, func() { start = time.Now() }), http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, &HarnessError{fmt.Errorf("build request: %w", err)}
	}
	if r.chunked {
		// A reader of unknown length: net/http sends the body in chunks,
		// without a Content-Length.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(io.MultiReader(bytes.NewReader(body))), nil }
		req.Body, _ = req.GetBody()
		req.ContentLength = 0
	}
	req.Header = s.header(r, cred.value)
	x := &Sent{
		Exchange: exchange.Exchange{
			Method: req.Method, URL: shown, Header: req.Header, Body: body, Chunked: r.chunked,
			SecretHeaders: slices.Sorted(maps.Keys(s.cfg.Headers)), CurlFlags: s.cfg.CurlFlags,
		},
		Label: r.label, issued: cred.issued, red: s.red,
	}
	if cred.Desc != "" || cred.Shell != "" {
		x.Auth = &cred.Credential
	}
	if r.tokenIn != "" {
		x.Token = s.cfg.Token
	}
	resp, err := s.client.Do(req)
	if errors.Is(err, client.ErrThrottled) {
		s.tripped.Store(true)
		return nil, &HarnessError{err}
	}
	if err == nil {
		x.Status, x.RespHeader = resp.StatusCode, resp.Header
		x.RespBody, err = readBounded(resp.Body, resp.ContentLength, DefaultMaxBody)
		resp.Body.Close()
	}
	x.Duration = time.Since(start)
	var dns *net.DNSError
	switch {
	case err == nil:
		s.silent.Store(0)
	case errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dns) && dns.IsNotFound:
		return nil, &HarnessError{fmt.Errorf("%w: %s", ErrUnreachable, s.Redact(err.Error()))}
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return nil, &HarnessError{fmt.Errorf("the run was cancelled: %w", err)}
	default:
		x.Err = err
		// A body past the read bound counts as no answer too: a target
		// that streams endlessly would otherwise cost a megabyte a scenario.
		// An answer whose framing HTTP forbids is an answer, judged as such
		// (judge.Answered), and never says the target stopped answering.
		if _, broken := judge.BrokenFraming(err); !broken && s.silent.Add(1) >= breakerThreshold {
			s.tripped.Store(true)
		}
	}
	// The one judge judges every exchange, as the proxy does, with what the
	// suite knows of the request: its bounds and intent.
	st := stateOf(ctx)
	in := judge.Sender{Timeout: s.cfg.Client.Timeout, MaxBody: DefaultMaxBody}
	in.Intent = judge.Intent{Issued: cred.issued, MayRefuse: cmp.Or(r.probeRefusal, st.mayRefuse), Case: r.caseOf}
	if !r.setup && (judge.AcceptedUnder(st.Rule.ID) || st.Rule.Level == rules.Open) {
		in.Accept = st.Rule.ID
	}
	if r.caseOf != "" && r.caseOf != rules.GenInvalid {
		in.Accept = r.caseOf
	}
	if !cred.issued && rules.Expects(st.Rule.ID) == http.StatusBadRequest {
		in.Refuse = st.Rule.ID
	}
	x.judged = judge.Judge(s.cfg.Validator, &x.Exchange, in, s.Redact)
	if why := s.mayBeStored(ctx, r, x); why != "" {
		// What the target refuses is now known: judged again knowing it.
		in.Unsure = why
		x.judged = judge.Judge(s.cfg.Validator, &x.Exchange, in, s.Redact)
	}
	x.Violations = x.judged.ResponseViolations
	s.scrub(x)
	return x, nil
}

// header is a request's header: the scenario's own first, so that neither
// --header nor a default replaces what a scenario sets or leaves out on
// purpose; then each --header (its cookies joined before the scenario's);
// then the suite's defaults. A name set to no value sends none.
func (s *Suite) header(r *request, auth string) http.Header {
	h := http.Header{}
	if auth != "" {
		h["Authorization"] = []string{auth}
	}
	maps.Copy(h, r.header)
	for name, vs := range s.cfg.Headers {
		name = http.CanonicalHeaderKey(name)
		switch own, set := h[name]; {
		case !set:
			h[name] = vs
		case name == "Cookie":
			h[name] = []string{strings.Join(append(slices.Clone(vs), own...), "; ")}
		}
	}
	for name, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "plantcheck"} {
		if _, set := h[name]; !set {
			h[name] = []string{v}
		}
	}
	maps.DeleteFunc(h, func(_ string, vs []string) bool { return vs == nil })
	return h
}

func (r *request) setHeader(name string, vs ...string) {
	if r.header == nil {
		r.header = http.Header{}
	}
	r.header[name] = vs
}

// mayBeStored says why the refusal of a valid create with the issued token
// may be due to a stored id the request fixed, or a stored name ("": not).
func (s *Suite) mayBeStored(ctx context.Context, r *request, x *Sent) string {
	switch {
	case r.probe || x.Status/100 != 4 || !x.issued || !x.judged.Valid ||
		!slices.ContainsFunc(x.judged.Results, func(res judge.Result) bool { return res.Status == http.StatusOK && !res.OK() }):
		return ""
	case r.fixedID && s.refusesStored(ctx, true) == x.Status:
		return UnsureReusedID
	case s.refusesStored(ctx, false) == x.Status:
		return NoteNameReused
	}
	return ""
}

// UnsureReusedID is why a refusal of a valid create whose id the scenario
// fixed is not judged.
const UnsureReusedID = "inconclusive: this scenario's id is fixed, the target refuses an id it has stored, " +
	"and an earlier run may have stored this one"

// Bounds of the evidence kept of one response, judged as sent.
const (
	evidenceBytes   = 4 << 10 // of the body
	evidenceHeaders = 32      // header fields
	evidenceValue   = 256     // of each header value
)

// scrub makes the evidence of an exchange's response: every secret hidden
// first, then each piece cut to its bound and escaped. The header as sent
// stays in x.header for the steps (cookies).
func (s *Suite) scrub(x *Sent) {
	x.header = x.RespHeader
	x.RespTotal = int64(len(x.RespBody))
	keep, _ := evidence.Prefix(s.red, x.RespBody, evidenceBytes)
	x.RespBody = bytes.Clone(keep)

	x.RespHeader = make(http.Header, min(len(x.header), evidenceHeaders))
	for _, k := range slices.Sorted(maps.Keys(x.header)) {
		if len(x.RespHeader) == evidenceHeaders {
			break
		}
		vs := x.header[k]
		out := make([]string, 0, min(len(vs), 4))
		for _, v := range vs[:min(len(vs), 4)] {
			if k == "Set-Cookie" {
				// A cookie may be a session's credential: its name is kept.
				name, _, _ := strings.Cut(v, "=")
				v = name + "=<redacted>"
			}
			out = append(out, s.red.Safe(v, evidenceValue))
		}
		x.RespHeader[evidence.Text(evidence.Cut(k, evidenceValue))] = out
	}

	x.Violations = s.boundViolations(x.Violations)
	// The judge's outcome is bounded evidence too (s.fail makes each detail
	// safe); its findings on the request stay for checkIntent.
	x.judged.ResponseViolations = nil
	for i := range x.judged.Results {
		j := &x.judged.Results[i].Judgement
		j.Details = bounded(j.Details, func(more string) string { return more })
	}
}

// bounded cuts xs to evidence.MaxDetails, the last saying how many more.
func bounded[T any](xs []T, more func(string) T) []T {
	if n := len(xs) - evidence.MaxDetails; n > 0 {
		return append(xs[:evidence.MaxDetails:evidence.MaxDetails], more(fmt.Sprintf("and %d more violations", n)))
	}
	return xs
}

// boundViolations bounds the validator's messages and makes each safe
// (they quote the target's headers).
func (s *Suite) boundViolations(vs []spec.Violation) []spec.Violation {
	vs = bounded(vs, func(more string) spec.Violation { return spec.Violation{Message: more} })
	for i := range vs {
		v := &vs[i]
		v.Message, v.Reason, v.Field, v.HowToFix = s.safe(v.Message), s.safe(v.Reason), s.safe(v.Field), s.safe(v.HowToFix)
	}
	return vs
}

// readBounded reads a body up to limit bytes; more is an error. The length
// declared sizes the buffer, up to the bound.
func readBounded(r io.Reader, length, limit int64) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(length, 0), limit)+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	b := buf.Bytes()
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("%w: more than %d bytes", judge.ErrBodyTooLarge, limit)
	}
	return b, nil
}

// response returns the scenario's last answer, or the failure of one that
// did not come.
func (s *Suite) response(st *state) (*Sent, error) {
	if len(st.Exchanges) == 0 {
		return nil, &HarnessError{fmt.Errorf("%w: no request was sent before this step", ErrSuiteDefect)}
	}
	x := st.last()
	if x.Err == nil {
		return x, nil
	}
	// An exchange with no whole answer has one judgement (judge.Answered).
	r := x.judged.Results[0]
	return nil, s.fail(st, r.Rule, x, r.Expected, r.Actual)
}
