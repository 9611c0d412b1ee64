package steps

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/plantcheck/plantcheck/spec"
)

// theClientPostsIt sends the scenario's request and keeps the exchange. A
// response that does not arrive is not a step failure here: the steps that
// read the response report it, under RESPONSE-TIMELY.
func (s *Suite) theClientPostsIt(ctx context.Context) error {
	st := stateOf(ctx)
	x, err := s.send(ctx, st)
	if err != nil {
		return err
	}
	st.last = x
	st.exchanges = append(st.exchanges, x)
	return nil
}

func (s *Suite) send(ctx context.Context, st *state) (*Exchange, error) {
	body := st.req.body()
	cred := s.credentialOf(st)
	ct := "application/json"
	if st.req.contentType != "" {
		ct = st.req.contentType
	}
	if st.req.noCT {
		ct = ""
	}
	accept := "application/json"
	if st.req.accept != nil {
		accept = *st.req.accept
	}
	var reader io.Reader = bytes.NewReader(body)
	if st.req.chunked {
		// A reader of unknown length: net/http sends the body in chunks,
		// without a Content-Length.
		reader = io.MultiReader(bytes.NewReader(body))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.plantsURL, reader)
	if err != nil {
		return nil, &HarnessError{fmt.Errorf("build request: %w", err)}
	}
	if cred.value != "" {
		req.Header.Set("Authorization", cred.value)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	req.Header.Set("User-Agent", "plantcheck")

	x := &Exchange{
		Method: req.Method, URL: s.plantsURL, Auth: cred.desc, authShell: cred.shell, ContentType: ct,
		Accept: accept, Chunked: st.req.chunked, Label: st.req.label, Body: body, reqHeader: req.Header, issued: cred.issued,
	}
	start := time.Now()
	resp, err := s.cfg.Client.Do(req)
	if err == nil {
		x.Status, x.header = resp.StatusCode, resp.Header
		x.body, err = readBounded(resp.Body, s.cfg.MaxBody)
		resp.Body.Close()
	}
	x.Duration = time.Since(start)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || isNotFound(err) {
			return nil, &HarnessError{fmt.Errorf("%w: %s", ErrUnreachable, s.redact(err.Error()))}
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil, &HarnessError{fmt.Errorf("the run was cancelled: %w", err)}
		}
		x.Err = err
		s.scrub(x)
		// A body past the read bound counts as no answer too: a target
		// that streams endlessly would otherwise cost a megabyte a scenario.
		if s.silent.Add(1) >= breakerThreshold {
			s.tripped.Store(true)
		}
		return x, nil
	}
	s.silent.Store(0)
	x.Violations = s.validator.CheckResponse(spec.Request{Method: req.Method, Path: "/plants", Header: req.Header, Body: body},
		spec.Response{Status: x.Status, Header: x.header, Body: x.body})
	s.scrub(x)
	return x, nil
}

// evidenceBytes bounds the part of an oversize response body kept as
// evidence: the rest is never needed, and a run must not hold a megabyte
// per exchange.
const evidenceBytes = 4 << 10

// scrub makes the evidence of an exchange's response: the user's token,
// should the target echo it in a header or the body, replaced wherever it
// appears, and an oversize body cut to its first few kilobytes (which the
// steps never judge: it is no answer). The response as sent stays for the
// steps to judge.
func (s *Suite) scrub(x *Exchange) {
	if errors.Is(x.Err, errBodyTooLarge) && len(x.body) > evidenceBytes {
		x.body = bytes.Clone(x.body[:evidenceBytes])
	}
	x.RespHeader, x.RespBody = x.header, x.body
	for _, sec := range s.secrets {
		if b := []byte(sec); bytes.Contains(x.RespBody, b) {
			x.RespBody = bytes.ReplaceAll(x.RespBody, b, []byte(redacted))
		}
	}
	for _, vs := range x.header {
		for _, v := range vs {
			if s.redact(v) != v {
				x.RespHeader = s.redactHeader(x.header)
				return
			}
		}
	}
}

// redactHeader returns a copy of h with every secret hidden in every value.
func (s *Suite) redactHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, vs := range out {
		for i, v := range vs {
			vs[i] = s.redact(v)
		}
	}
	return out
}

var errBodyTooLarge = errors.New("response body too large")

// readBounded reads a body up to max bytes; more is an error.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > max {
		return b[:max], fmt.Errorf("%w: more than %d bytes", errBodyTooLarge, max)
	}
	return b, nil
}

func isNotFound(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}

// response returns the scenario's last response, or the failure of an answer
// that did not come.
func (s *Suite) response(st *state) (*Exchange, error) {
	x := st.last
	if x == nil {
		return nil, &HarnessError{fmt.Errorf("%w: no request was sent before this step", ErrSuiteDefect)}
	}
	if x.Err == nil {
		return x, nil
	}
	if errors.Is(x.Err, errBodyTooLarge) {
		return nil, s.fail(st, "RESPONSE-DOCUMENTED", x,
			fmt.Sprintf("a response body of at most %d bytes (the bound plantcheck reads)", s.cfg.MaxBody),
			fmt.Sprintf("status %d with a body longer than %d bytes", x.Status, s.cfg.MaxBody))
	}
	actual := "no answer: " + x.Err.Error()
	var ne net.Error
	if errors.As(x.Err, &ne) && ne.Timeout() {
		actual = fmt.Sprintf("no complete answer within %s", s.timeout)
	}
	return nil, s.fail(st, "RESPONSE-TIMELY", x,
		fmt.Sprintf("a complete HTTP response within %s", s.timeout), actual)
}
