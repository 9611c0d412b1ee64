package proxy

import (
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// `plantcheck judge` judges recorded traffic (a HAR file's) as the proxy
// judges live traffic: each exchange goes through the same tally, the same
// judge and the same evidence, and the verdict is the proxy's. This file is
// the one place where a recorded exchange (har.Record) becomes the
// proxy's (a flight). What a recording hides is said, never judged: an
// exchange not to the operation is counted as outside the document, a
// body the recording cut (or left out) as not judged, and an Authorization
// header it redacted is read as a Bearer credential (the proxy never knows
// which tokens were issued anyway), so that the AUTH rules are not judged
// on it and the reason is counted.

// RecordingConfig configures a Recording.
type RecordingConfig struct {
	// Base is the service's base URL: an exchange is to the operation when
	// its URL's path is Base's path then /plants (and, when Base names a
	// host, to that host). nil: any host, no base path.
	Base *url.URL
	// Source names the recording in the verdict (its files).
	Source string
	// Validator judges; nil means spec.Default().
	Validator *spec.Validator
	// MaxJudge bounds the bytes of each body judged, as the proxy's
	// --max-judge: positive (config.Judge's, validated).
	MaxJudge    int64
	MaxFailures int
	// AuthStripped: the recorder stripped the Authorization headers (as
	// Chrome's "Export HAR (sanitized)" does): a request to the operation
	// without one is read as one with a Bearer credential, and said.
	AuthStripped bool
}

// Recording judges recorded exchanges, one at a time, in order.
type Recording struct {
	h            *Handler
	host, path   string
	authStripped bool
	first, last  time.Time
	// toOp and withAuth count the requests to the operation, and those
	// with an Authorization header, for the likely cause of a recording
	// that stripped them.
	toOp, withAuth int64
}

// The reasons a part of a recorded exchange is not judged.
const (
	whyAuthRedacted = "the recording redacted the Authorization header: read as a Bearer credential, the AUTH rules not judged on it"
	whyAuthStripped = "no Authorization header, which the recording stripped (--auth-stripped): read as a Bearer credential, the AUTH rules not judged on it"
	whyNoAnswer     = "the recording holds no answer"
	whyRedacted     = "the recording redacted a header's value that no rule reads (a cookie, a key): nothing judged on it"
)

// NewRecording returns a Recording for cfg.
func NewRecording(cfg RecordingConfig) (*Recording, error) {
	up := &url.URL{Scheme: "http", Host: "recording"}
	r := &Recording{authStripped: cfg.AuthStripped}
	if cfg.Base != nil {
		if cfg.Base.Host != "" {
			up = cfg.Base
			r.host = strings.ToLower(cfg.Base.Host)
		}
		r.path = strings.TrimSuffix(cfg.Base.Path, "/")
	}
	// No exchange is forwarded: the timeout is only the one the verdict states.
	h, err := New(Config{Upstream: up, Validator: cfg.Validator, MaxJudge: cfg.MaxJudge, MaxFailures: cfg.MaxFailures, Timeout: DefaultTimeout})
	if err != nil {
		return nil, err
	}
	h.tally.upstream = cfg.Source
	r.h = h
	return r, nil
}

// Judge judges one recorded exchange, or counts it as not to the
// operation, or as one the recording holds no answer for.
func (r *Recording) Judge(rec har.Record) Seen {
	h := r.h
	if !rec.Started.IsZero() {
		if r.first.IsZero() || rec.Started.Before(r.first) {
			r.first = rec.Started
		}
		if end := rec.Started.Add(rec.Duration); end.After(r.last) {
			r.last = end
		}
	}
	to, err := url.Parse(rec.URL)
	if err != nil {
		to = &url.URL{} // har.Entry.Exchange read it as an absolute URL
	}
	target := to.RequestURI()
	sum := Seen{Method: rec.Method, Target: safeTarget(target), Status: rec.Status, Duration: rec.Duration}
	switch {
	case rec.Method != opMethod || to.Path != r.path+opPath || r.host != "" && strings.ToLower(to.Host) != r.host:
		h.tally.outside()
		return sum
	case rec.RespHeader.Get(MarkerHeader) != "":
		// The proxy's own answer, recorded: never the service's.
		sum.Own = rec.RespHeader.Get(MarkerHeader)
		h.tally.own(sum.Own)
		return sum
	case rec.Status < 100 && !unframed(rec.Comment):
		h.tally.gone()
		sum.Unjudged = whyNoAnswer
		return sum
	}
	x := &flight{method: rec.Method, target: target, to: to, status: rec.Status, duration: rec.Duration, h: h}
	if rec.Status < 100 {
		// An answer HTTP cannot frame, which the recording's client
		// refused to read (`run --har` says so): judged as run judged it.
		x.err = errors.New(strings.TrimPrefix(rec.Comment, har.NoAnswer))
	}
	x.header = rec.Header.Clone()
	x.header.Del("Host") // net/http's server keeps it apart, as the proxy's judge reads it
	dropHopByHop(x.header)
	x.respHeader = rec.RespHeader.Clone()
	x.reqBody = r.snapshot("request body", rec.Body, rec.BodyTotal, rec.BodyIncomplete)
	x.respBody = r.snapshot("response body", rec.RespBody, rec.RespTotal, rec.RespIncomplete)
	var why []string
	r.toOp++
	switch _, ok := x.header["Authorization"]; {
	case ok && har.Redacted(x.header.Get("Authorization")):
		// Redacted whole: its scheme is not known.
		r.withAuth++
		x.header.Set("Authorization", "Bearer "+strings.TrimSpace(x.header.Get("Authorization")))
		why = append(why, whyAuthRedacted)
	case ok:
		r.withAuth++
	case r.authStripped:
		x.header.Set("Authorization", "Bearer <stripped>")
		why = append(why, whyAuthStripped)
	}
	for _, name := range rec.Redacted {
		if name != "Authorization" {
			why = append(why, whyRedacted)
			break
		}
	}
	o := h.judge(x, nil)
	o.Unjudged = append(o.Unjudged, why...)
	h.record(x, o, &sum)
	return sum
}

// unframed reports whether a recording's comment on an exchange says its
// answer could not be framed (judge.BrokenFraming): an answer, and the
// service's, though no status was read.
func unframed(comment string) bool {
	if !strings.HasPrefix(comment, har.NoAnswer) {
		return false
	}
	_, broken := judge.BrokenFraming(errors.New(comment))
	return broken
}

// snapshot bounds a recorded body as the proxy bounds a live one.
func (r *Recording) snapshot(what string, b []byte, total int64, why string) snapshot {
	s := snapshot{body: b, total: max(total, int64(len(b))), why: why}
	if int64(len(b)) > r.h.maxJudge {
		s.body, s.why = b[:r.h.maxJudge], what+" past "+sizeOf(r.h.maxJudge)
	}
	return s
}

// Verdict is the verdict on the exchanges judged so far: the proxy's, its
// times those of the recording.
func (r *Recording) Verdict(opts Options) *verdict.Verdict {
	v := r.h.Verdict(opts)
	if !r.first.IsZero() {
		v.Started, v.Ended = r.first, r.last
		v.Duration = verdict.Ms(r.last.Sub(r.first))
	}
	v.Config.Timeout = ""
	if r.toOp > 0 && r.withAuth == 0 && !r.authStripped && failed(v, rules.AuthMissing) {
		v.LikelyCause = "no request of the recording carries an Authorization header: if the recorder stripped them " +
			"(as Chrome's \"Export HAR (sanitized)\" does), judge it again with --auth-stripped"
	}
	return v
}

func failed(v *verdict.Verdict, id rules.RuleID) bool {
	for _, r := range v.Rules {
		if r.ID == id && r.Failures > 0 {
			return true
		}
	}
	return false
}

// ErrNothingRecorded: the recording holds no exchange at all.
var ErrNothingRecorded = errors.New("the recording holds no exchange")

// Exchanges is how many exchanges were counted so far.
func (r *Recording) Exchanges() int64 {
	r.h.tally.mu.Lock()
	defer r.h.tally.mu.Unlock()
	return r.h.tally.exchanges
}
