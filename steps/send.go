package steps

import (
	"bytes"
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
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

func (s *Suite) sendSteps() []stepPattern {
	return []stepPattern{{`^the client posts it to /plants$`, s.theClientPostsIt}}
}

// theClientPostsIt sends the scenario's request and keeps the exchange. A
// response that does not arrive is not a step failure here: the steps that
// read the response report it, under RESPONSE-TIMELY.
func (s *Suite) theClientPostsIt(ctx context.Context) error {
	st := stateOf(ctx)
	x, err := s.sendRequest(ctx, &st.req)
	st.req.setup = false // the request sent again is the one the scenario is about
	if err != nil {
		return err
	}
	st.last = x
	st.exchanges = append(st.exchanges, x)
	return nil
}

// sendRequest sends r through the run's client (package client: its pace,
// its pauses for a throttling target, its bound on requests in flight and
// its retries of a connection that died) and keeps the exchange.
func (s *Suite) sendRequest(ctx context.Context, r *request) (*Sent, error) {
	body := r.body()
	cred := s.credentialOfRequest(r)
	// The exchange is timed from its last try: the run's pauses are not
	// the target's.
	var start time.Time
	req, shown, err := s.newRequest(client.WithTry(ctx, func() { start = time.Now() }), r, body, cred.value)
	if err != nil {
		return nil, &HarnessError{fmt.Errorf("build request: %w", err)}
	}
	token := ""
	if r.tokenIn != "" {
		token = s.cfg.Token
	}
	x := &Sent{
		Exchange: exchange.Exchange{
			Method: req.Method, URL: shown, Header: req.Header, Body: body, Chunked: r.chunked, Token: token,
			SecretHeaders: slices.Sorted(maps.Keys(s.cfg.Headers)), CurlFlags: s.cfg.CurlFlags,
		},
		Label: r.label, issued: cred.issued, red: s.red,
	}
	if cred.desc != "" || cred.shell != "" {
		x.Auth = &exchange.Credential{Desc: cred.desc, Shell: cred.shell}
	}
	resp, err := s.client.Do(req)
	if errors.Is(err, client.ErrThrottled) {
		s.tripped.Store(true)
		return nil, &HarnessError{err}
	}
	if err == nil {
		x.Status, x.RespHeader = resp.StatusCode, resp.Header
		x.RespBody, err = readBounded(resp.Body, resp.ContentLength, s.cfg.MaxBody)
		resp.Body.Close()
	}
	x.Duration = time.Since(start)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || isNotFound(err) {
			return nil, &HarnessError{fmt.Errorf("%w: %s", ErrUnreachable, s.Redact(err.Error()))}
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil, &HarnessError{fmt.Errorf("the run was cancelled: %w", err)}
		}
		x.Err = err
		// The one judge judges an exchange with no whole answer too:
		// under RESPONSE-TIMELY, or RESPONSE-DOCUMENTED for an answer past
		// the read bound or one HTTP cannot frame (judge.Answered).
		x.judged = judge.Judge(s.validator, &x.Exchange, s.sender(ctx, r, cred), s.Redact)
		s.scrub(x)
		// A body past the read bound counts as no answer too: a target
		// that streams endlessly would otherwise cost a megabyte a scenario.
		// An answer whose framing HTTP forbids is an answer, judged as such
		// (judge.Answered), and never says the target stopped answering.
		if _, broken := judge.BrokenFraming(err); !broken && s.silent.Add(1) >= breakerThreshold {
			s.tripped.Store(true)
		}
		return x, nil
	}
	s.silent.Store(0)
	// The one judge (package judge) judges the exchange, as the proxy
	// judges its clients' exchanges; the steps and the after-hooks read its
	// outcome.
	in := s.sender(ctx, r, cred)
	x.judged = judge.Judge(s.validator, &x.Exchange, in, s.Redact)
	if why := s.mayBeStored(ctx, r, x); why != "" {
		// What the target refuses is now known: the one judge judges the
		// exchange again knowing it.
		in.Unsure = why
		x.judged = judge.Judge(s.validator, &x.Exchange, in, s.Redact)
	}
	x.Violations = x.judged.ResponseViolations
	s.scrub(x)
	return x, nil
}

// newRequest builds the HTTP request r stands for, its body body and its
// Authorization auth, and says where the evidence shows it went (the
// token, when the query carries it, as evidence.TokenMark).
func (s *Suite) newRequest(ctx context.Context, r *request, body []byte, auth string) (req *http.Request, shown string, err error) {
	ct := "application/json"
	if r.contentType != "" {
		ct = r.contentType
	}
	if r.noCT {
		ct = ""
	}
	target := s.plantsURL
	shown = target
	if r.tokenIn == tokenInQuery {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		target += sep + url.QueryEscape(r.tokenName) + "=" + s.cfg.Token // a token a query need not escape
		shown += sep + url.QueryEscape(r.tokenName) + "=" + evidence.TokenMark
	}
	accept := "application/json"
	if r.accept != nil {
		accept = *r.accept
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	if r.chunked {
		// A reader of unknown length: net/http sends the body in chunks,
		// without a Content-Length.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(io.MultiReader(bytes.NewReader(body))), nil }
		req.Body, _ = req.GetBody()
		req.ContentLength = 0
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	// An empty User-Agent is sent as none (net/http then adds none of its
	// own).
	ua := "plantcheck"
	if r.noUA {
		ua = ""
	}
	req.Header.Set("User-Agent", ua)
	for name, vs := range s.cfg.Headers {
		req.Header[http.CanonicalHeaderKey(name)] = vs
	}
	for _, c := range r.cookies {
		req.AddCookie(c)
	}
	if r.padding > 0 {
		req.Header.Set(config.PaddingHeader, strings.Repeat("x", r.padding))
	}
	if r.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", r.idempotencyKey)
	}
	if name, prefix, ok := tokenHeader(r.tokenIn, r.tokenName); ok {
		req.Header.Set(name, prefix+s.cfg.Token)
	}
	return req, shown, nil
}

// bounds are the limits the suite puts on an answer, which the judge names
// when none came whole.
func (s *Suite) bounds() judge.Sender {
	return judge.Sender{Timeout: s.timeout, MaxBody: s.cfg.MaxBody}
}

// sender is what the suite knows of a request it sends, for the one
// judge: its bounds, and its intent, read from the scenario's rule and how
// the request was built (package judge decides every rule from it).
func (s *Suite) sender(ctx context.Context, r *request, cred credential) judge.Sender {
	b := s.bounds()
	st := stateOf(ctx)
	rule := st.rule
	b.Intent = judge.Intent{Issued: cred.issued, MayRefuse: st.mayRefuse, Case: r.caseOf}
	if r.probeRefusal != "" {
		b.MayRefuse = r.probeRefusal
	}
	switch {
	case r.setup:
	case judge.AcceptedUnder(rule.ID) || rule.Level == rules.Open:
		b.Accept = rule.ID
	}
	if r.caseOf != "" && r.caseOf != rules.GenInvalid {
		b.Accept = r.caseOf
	}
	if !cred.issued && rules.Expects(rule.ID) == http.StatusBadRequest {
		b.Refuse = rule.ID
	}
	return b
}

// mayBeStored says why the refusal of a valid create may be due to what
// was sent before ("" when not): the target refuses an id it has stored and
// the request's id is fixed, or it refuses a name it has stored. It asks
// the target (once per run) only when a valid create with the issued token
// was refused.
func (s *Suite) mayBeStored(ctx context.Context, r *request, x *Sent) string {
	if r.probe || x.Status != http.StatusBadRequest || !x.issued || !x.judged.Valid {
		return ""
	}
	if !slices.ContainsFunc(x.judged.Results, func(res judge.Result) bool { return res.Status == http.StatusOK && !res.OK() }) {
		return ""
	}
	switch {
	case r.fixedID && s.refusesReusedIDs(ctx):
		return UnsureReusedID
	case s.refusesReusedNames(ctx):
		return NoteNameReused
	}
	return ""
}

// UnsureReusedID is why a refusal of a valid create whose id the scenario
// fixed is not judged: the target refuses an id it has stored, and an
// earlier run may have stored this one.
const UnsureReusedID = "inconclusive: this scenario's id is fixed, the target refuses an id it has stored, " +
	"and an earlier run may have stored this one"

// Bounds of the evidence kept of one response: the steps judge the
// response as sent, then only this outlives the scenario.
const (
	// evidenceBytes bounds the body kept.
	evidenceBytes = 4 << 10
	// evidenceHeaders bounds the header fields kept, and evidenceValue
	// each value; evidenceViolations the validator's messages kept.
	evidenceHeaders    = 32
	evidenceValue      = 256
	evidenceViolations = 16
)

// scrub makes the evidence of an exchange's response: every secret hidden
// first, wherever the target echoed it and in whatever form, then each
// piece cut to its bound with its size said, the validator's messages
// escaped (they quote the target's headers). The response's header as sent
// stays in x.header for the steps (its cookies); its body, judged, goes.
func (s *Suite) scrub(x *Sent) {
	x.header = x.RespHeader
	x.RespTotal = int64(len(x.RespBody))
	// Redact a little past the bound, so that a secret across the cut is
	// whole when it is found; then cut.
	keep := x.RespBody
	if margin := evidenceBytes + s.red.Margin(); len(keep) > margin {
		keep = keep[:margin]
	}
	keep = s.red.Bytes(keep)
	if len(keep) > evidenceBytes {
		keep = keep[:evidenceBytes]
	}
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
	// The judge's outcome outlives the answer as bounded evidence too:
	// its own copy of the answer's findings goes, each judgement's details
	// are cut as the violations are (s.fail makes each one safe). Its
	// findings on the request (why the document refuses it) stay for the
	// steps, as the answer does: the suite's check of its own intent
	// quotes them, bounded and made safe, and the after-hook drops them.
	x.judged.ResponseViolations = nil
	for i := range x.judged.Results {
		j := &x.judged.Results[i].Judgement
		if more := len(j.Details) - evidenceViolations; more > 0 {
			j.Details = append(j.Details[:evidenceViolations:evidenceViolations], fmt.Sprintf("and %d more violations", more))
		}
	}
}

// boundViolations cuts the validator's messages to their bound, the cut
// said, and makes each safe to keep (they quote the target's headers).
func (s *Suite) boundViolations(vs []spec.Violation) []spec.Violation {
	if len(vs) > evidenceViolations {
		more := len(vs) - evidenceViolations
		vs = append(vs[:evidenceViolations], spec.Violation{Message: fmt.Sprintf("and %d more violations", more)})
	}
	for i := range vs {
		v := &vs[i]
		v.Message, v.Reason, v.Field, v.HowToFix = s.safe(v.Message), s.safe(v.Reason), s.safe(v.Field), s.safe(v.HowToFix)
	}
	return vs
}

// readBounded reads a body up to limit bytes; more is an error. length is
// the length the answer declares (-1: none), which sizes the buffer up to
// the bound, so that an answer of a megabyte is read into one allocation;
// a declared length is never trusted further.
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

func isNotFound(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}

// response returns the scenario's last response, or the failure of an answer
// that did not come.
func (s *Suite) response(st *state) (*Sent, error) {
	x := st.last
	if x == nil {
		return nil, &HarnessError{fmt.Errorf("%w: no request was sent before this step", ErrSuiteDefect)}
	}
	if x.Err == nil {
		return x, nil
	}
	r := x.fault()
	return nil, s.fail(st, r.Rule, x, r.Expected, r.Actual)
}
