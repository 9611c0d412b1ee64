package proxy

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// `plantcheck judge` judges a HAR file's exchanges as the proxy judges live
// ones. What a recording hides is said, never judged: a body it cut as not
// judged, an Authorization header it redacted as a Bearer credential (the
// proxy never knows which tokens were issued anyway), the AUTH rules not
// judged on it.

// recording judges recorded exchanges, one at a time, in order.
type recording struct {
	*judging
	// --base-url's: an exchange is to the operation when its URL's path is
	// path then /plants (and, when host is set, to that host).
	host, path   string
	maxJudge     int64
	authStripped bool
	first, last  time.Time
	// The requests to the operation, and those with an Authorization
	// header: a recording may have stripped them.
	toOp, withAuth int64
	// faulted counts, by request, the tries the target gave no answer to
	// that no later try was answered after: a fault a retry of `run` cured
	// is no more the judge's than the run's.
	faulted map[[sha256.Size]byte]int64
}

// request is what tells a request from every other: a try sent again is
// the same method, URL, header fields and body.
func request(rec *har.Record) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", rec.Method, rec.URL)
	for _, k := range slices.Sorted(maps.Keys(rec.Header)) {
		fmt.Fprintf(h, "%s: %q\n", k, rec.Header[k])
	}
	fmt.Fprintf(h, "%d\n", rec.BodyTotal)
	h.Write(rec.Body)
	return [sha256.Size]byte(h.Sum(nil))
}

// The reasons a part of a recorded exchange is not judged.
const (
	whyAuthRedacted = "the recording redacted the Authorization header: read as a Bearer credential, the AUTH rules not judged on it"
	whyAuthStripped = "no Authorization header, which the recording stripped (--auth-stripped): read as a Bearer credential, the AUTH rules not judged on it"
	whyRedacted     = "the recording redacted a header's value that no rule reads (a cookie, a key): nothing judged on it"
)

// JudgeFiles is plantcheck judge: it judges the exchanges of cfg.Files,
// writes the verdict to stdout and the reports, and returns it. An error
// means the recording could not be judged, or the verdict written (exit 2).
func JudgeFiles(cfg config.Judge, stdout io.Writer) (*verdict.Verdict, error) {
	started := time.Now()
	j, err := newJudging()
	if err != nil {
		return nil, err
	}
	r := &recording{judging: j, maxJudge: cfg.MaxJudge, authStripped: cfg.AuthStripped, faulted: map[[sha256.Size]byte]int64{}}
	names := make([]string, len(cfg.Files))
	for i, f := range cfg.Files {
		names[i] = filepath.Base(f)
	}
	source := "recorded traffic in " + strings.Join(names, ", ")
	if b := cfg.Base; b != nil {
		if b.Host != "" {
			source, r.host = b.Redacted()+", recorded in "+strings.Join(names, ", "), strings.ToLower(b.Host)
		}
		r.path = strings.TrimSuffix(b.Path, "/")
	}
	for _, path := range cfg.Files {
		if err := r.file(path, cfg.MaxFile); err != nil {
			return nil, fmt.Errorf("%s: %v", evidence.Text(path), err)
		}
	}
	for _, n := range r.faulted {
		for range n {
			r.tally.BrokeOff()
		}
	}
	if r.tally.Counts().Exchanges == 0 {
		return nil, errors.New("the recording holds no exchange: nothing to judge")
	}
	if r.first.IsZero() {
		r.first, r.last = started, time.Now() // no time recorded
	}
	v := r.verdict(Options{Strict: cfg.Strict, StrictClients: cfg.StrictClients}, evidence.Cut(source, 1<<10), r.first, r.last, "", r.maxJudge)
	v.Command = "judge"
	authMissing := slices.ContainsFunc(v.Rules, func(r verdict.Rule) bool { return r.ID == rules.AuthMissing && r.Failures > 0 })
	if r.toOp > 0 && r.withAuth == 0 && !r.authStripped && authMissing {
		v.LikelyCause = "no request of the recording carries an Authorization header: if the recorder stripped them " +
			"(as Chrome's \"Export HAR (sanitized)\" does), judge it again with --auth-stripped"
	}
	return v, write(v, stdout, cfg.ReportDir)
}

// file judges the exchanges of one HAR file.
func (r *recording) file(path string, maxFile int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > maxFile {
		return fmt.Errorf("%w: %d bytes, more than %d (--max-file)", har.ErrTooLarge, fi.Size(), maxFile)
	}
	n := 0
	return har.Read(f, maxFile, func(e har.Entry) error {
		n++
		rec, err := e.Exchange()
		if err != nil {
			return fmt.Errorf("%w: entry %d: %v", har.ErrNotHAR, n, err)
		}
		r.add(rec)
		return nil
	})
}

// add judges or counts one recorded exchange.
func (r *recording) add(rec har.Record) {
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
	// An answer HTTP cannot frame is the service's, though no status was
	// read: judged as run judged it.
	var unframed error
	if why, ok := strings.CutPrefix(rec.Comment, har.NoAnswer); ok {
		if _, broken := judge.BrokenFraming(errors.New(rec.Comment)); broken {
			unframed = errors.New(why)
		}
	}
	switch {
	case rec.Method != judge.OpMethod || to.Path != r.path+judge.OpPath || r.host != "" && strings.ToLower(to.Host) != r.host:
		r.tally.Outside()
		return
	case rec.RespHeader.Get(MarkerHeader) != "":
		// The proxy's own answer, recorded: never the service's.
		r.tally.Own(rec.RespHeader.Get(MarkerHeader))
		return
	case rec.Status < 100 && unframed == nil && targetFault(rec.Comment):
		// No answer from the target: counted at the end, unless a later
		// try of it was answered.
		r.faulted[request(&rec)]++
		return
	case rec.Status < 100 && unframed == nil:
		r.tally.Gone() // the recording holds no answer
		return
	}
	if len(r.faulted) > 0 {
		if fp := request(&rec); r.faulted[fp] > 0 {
			// The fault a retry cured: one exchange, this one.
			if r.faulted[fp]--; r.faulted[fp] == 0 {
				delete(r.faulted, fp)
			}
		}
	}
	e := rec.Exchange
	e.Target = to.RequestURI()
	e.URL = to.Scheme + "://" + to.Host + e.Target
	if rec.Status < 100 {
		e.Err = unframed
	}
	e.Header.Del("Host") // net/http's server keeps it apart, as the proxy's judge reads it
	e.Header = forwarded(e.Header)
	e.Body, e.BodyTotal, e.BodyIncomplete = r.bound("request body", rec.Body, rec.BodyTotal, rec.BodyIncomplete)
	e.RespBody, e.RespTotal, e.RespIncomplete = r.bound("response body", rec.RespBody, rec.RespTotal, rec.RespIncomplete)
	var why []string
	r.toOp++
	switch _, ok := e.Header["Authorization"]; {
	case ok && har.Redacted(e.Header.Get("Authorization")):
		// Redacted whole: its scheme is not known.
		r.withAuth++
		e.Header.Set("Authorization", "Bearer "+strings.TrimSpace(e.Header.Get("Authorization")))
		why = append(why, whyAuthRedacted)
	case ok:
		r.withAuth++
	case r.authStripped:
		e.Header.Set("Authorization", "Bearer <stripped>")
		why = append(why, whyAuthStripped)
	}
	if slices.ContainsFunc(rec.Redacted, func(name string) bool { return name != "Authorization" }) {
		why = append(why, whyRedacted)
	}
	r.count(&e, why, "")
}

// bound bounds a recorded body as the proxy bounds a live one.
func (r *recording) bound(what string, b []byte, total int64, why string) ([]byte, int64, string) {
	total = max(total, int64(len(b)))
	if int64(len(b)) > r.maxJudge {
		return b[:r.maxJudge], total, exchange.Past(what, r.maxJudge)
	}
	return b, total, why
}

// targetFault reports whether a recorded exchange's comment says that the
// target gave no answer: any error but the run's own cancellation.
func targetFault(comment string) bool {
	why, ok := strings.CutPrefix(comment, har.NoAnswer)
	return ok && !strings.Contains(why, context.Canceled.Error())
}
