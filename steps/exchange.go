package steps

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/shell"
	"github.com/plantcheck/plantcheck/spec"
)

// excerptBytes bounds how much of a body a message quotes.
const excerptBytes = 512

// Exchange is one request the suite sent and what came back, as evidence.
// Nothing in it holds the user's token: the Authorization header is kept as
// a description ("Bearer <token>").
type Exchange struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	// Auth describes the Authorization header sent, without any secret.
	Auth string `json:"authorization,omitempty"`
	// authShell is the Authorization value for a shell, the user's token
	// written as $PLANTCHECK_TOKEN.
	authShell   string
	ContentType string `json:"contentType,omitempty"`
	// Accept is the Accept header sent ("" when none was).
	Accept string `json:"accept,omitempty"`
	// Chunked: the body went in chunks, without a Content-Length.
	Chunked bool `json:"chunked,omitempty"`
	// NoUserAgent: no User-Agent was sent (else "plantcheck" was).
	NoUserAgent bool `json:"noUserAgent,omitempty"`
	// Cookies is how many cookies the request sent back to the service
	// (their values, a session's credentials, are never kept).
	Cookies int `json:"cookies,omitempty"`
	// tokenIn is where the request carried the token instead of its
	// Authorization header; token is then the token, which URL never
	// holds (it shows tokenMark) and the evidence never shows.
	tokenIn   tokenPlace
	tokenName string
	token     string
	// Label says what the request is, where the scenario does not (a
	// generated case, a presentation of a valid request).
	Label     string `json:"label,omitempty"`
	Body      []byte `json:"-"`
	reqHeader http.Header
	// issued: the request carried the user's token in the Bearer scheme.
	issued bool
	// extra names the extra headers sent, whose values are secrets.
	extra []string
	// curlFlags are the connection's settings for a reproduction.
	curlFlags []string
	// conforms: the document is known to accept the request's body (a
	// generated case checked before it was sent), so it is not checked again.
	conforms bool

	Status int `json:"status,omitempty"`
	// RespHeader and RespBody are the response as evidence: every secret
	// hidden, then cut to a bound (RespBodyLen is the body's length as
	// sent), header values escaped.
	RespHeader  http.Header `json:"-"`
	RespBody    []byte      `json:"-"`
	RespBodyLen int         `json:"-"`
	// header and body are the response as the target sent it, which the
	// steps judge (a short token may well occur in an honest answer).
	header http.Header
	body   []byte

	Duration   time.Duration    `json:"durationNs"`
	Err        error            `json:"-"`
	Violations []spec.Violation `json:"violations,omitempty"`
}

// Issued reports whether the request carried the user's token in the
// Bearer scheme.
func (x *Exchange) Issued() bool { return x.issued }

// Answered reports whether a whole answer came.
func (x *Exchange) Answered() bool { return x.Err == nil && x.Status != 0 }

// RequestLine summarises the request on one line.
func (x *Exchange) RequestLine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", x.Method, x.URL)
	var hs []string
	if x.Auth != "" {
		hs = append(hs, "Authorization: "+x.Auth)
	}
	if x.ContentType != "" {
		hs = append(hs, "Content-Type: "+x.ContentType)
	}
	switch x.Accept {
	case "application/json":
	case "":
		hs = append(hs, "no Accept")
	default:
		hs = append(hs, "Accept: "+x.Accept)
	}
	if x.Chunked {
		hs = append(hs, "Transfer-Encoding: chunked")
	}
	if x.NoUserAgent {
		hs = append(hs, "no User-Agent")
	}
	if x.Cookies > 0 {
		hs = append(hs, fmt.Sprintf("Cookie: <the %d cookie(s) the service set>", x.Cookies))
	}
	if name, prefix, ok := tokenHeader(x.tokenIn, x.tokenName); ok {
		hs = append(hs, name+": "+prefix+tokenMark)
	}
	for _, name := range x.extra {
		hs = append(hs, http.CanonicalHeaderKey(name)+": <redacted>")
	}
	if len(hs) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(hs, "; "))
	}
	body := x.Body
	if before, after, ok := x.splitBodyAtToken(); ok {
		body = []byte(before + tokenMark + after)
	}
	fmt.Fprintf(&b, " body %s", excerpt(body))
	return b.String()
}

// tokenMark stands for the token where a request carried it outside its
// Authorization header.
const tokenMark = "<token>"

// splitBodyAtToken returns the body before and after the token, when the
// request carried it in its body.
func (x *Exchange) splitBodyAtToken() (before, after string, ok bool) {
	if x.tokenIn != tokenInBody || x.token == "" {
		return "", "", false
	}
	i := bytes.LastIndex(x.Body, []byte(`"`+x.token+`"`))
	if i < 0 {
		return "", "", false
	}
	return string(x.Body[:i+1]), string(x.Body[i+1+len(x.token):]), true
}

// ResponseLine summarises the response on one line.
func (x *Exchange) ResponseLine() string {
	ct := x.RespHeader.Get("Content-Type")
	if ct == "" {
		ct = "no Content-Type"
	}
	total := len(x.RespBody)
	if x.RespBodyLen > evidenceBytes {
		total = x.RespBodyLen // cut when it was kept
	}
	return fmt.Sprintf("%d %s, body %s (after %s)", x.Status, evidence.Text(ct), excerptOf(x.RespBody, total), x.Duration.Round(time.Millisecond))
}

// excerpt quotes a body up to a bound, as text where it is text.
func excerpt(b []byte) string { return excerptOf(b, len(b)) }

// excerptOf quotes the start of a body of total bytes.
func excerptOf(b []byte, total int) string {
	if len(b) == 0 {
		return "(empty)"
	}
	cut := b
	if len(cut) > excerptBytes {
		cut = cut[:excerptBytes]
	}
	var s string
	if utf8.Valid(cut) || len(b) > excerptBytes && utf8.Valid(cut[:len(cut)-utf8.UTFMax]) {
		s = strings.ToValidUTF8(string(cut), "\uFFFD")
		s = fmt.Sprintf("%q", s)
	} else {
		s = fmt.Sprintf("%q (not UTF-8)", cut)
	}
	if total > len(cut) {
		s += fmt.Sprintf(" … (%d bytes in all)", total)
	}
	return s
}

// Curl returns a paste-ready curl command that sends the same request: the
// method, URL, Authorization (the user's token read from
// $PLANTCHECK_TOKEN), Content-Type (or none) and the exact body bytes.
func (x *Exchange) Curl() string {
	var b strings.Builder
	var dataArg string
	before, after, inBody := x.splitBodyAtToken()
	switch {
	case inBody:
		// The token, in double quotes for the shell to expand, between
		// the body's two other parts.
		dataArg = "--data-binary " + shell.Quote(before) + `"` + shell.TokenVar + `"` + shell.Quote(after)
	case shell.Printable(x.Body):
		dataArg = "--data-binary " + shell.Quote(string(x.Body))
	default:
		// Bytes a shell argument cannot carry (invalid UTF-8, control
		// characters) go through printf's octal escapes.
		fmt.Fprintf(&b, "printf '%s' | ", shell.PrintfEscape(x.Body))
		dataArg = "--data-binary @-"
	}
	target := shell.Quote(x.URL)
	if pre, post, ok := strings.Cut(x.URL, tokenMark); ok && x.tokenIn == tokenInQuery {
		target = shell.Quote(pre) + `"` + shell.TokenVar + `"`
		if post != "" {
			target += shell.Quote(post)
		}
	}
	fmt.Fprintf(&b, "curl -sS -i -X %s %s", x.Method, target)
	if len(x.curlFlags) > 0 {
		fmt.Fprintf(&b, " \\\n  %s", strings.Join(x.curlFlags, " "))
	}
	if x.authShell != "" {
		// Double quotes, so that the shell expands the variable; the
		// credential's shell form is written for them.
		fmt.Fprintf(&b, " \\\n  -H \"Authorization: %s\"", x.authShell)
	}
	for _, name := range x.extra {
		// The value is a secret: the shell reads it from a variable.
		fmt.Fprintf(&b, " \\\n  -H \"%s: ${%s}\"", http.CanonicalHeaderKey(name), HeaderVar(name))
	}
	if x.Cookies > 0 {
		// A session's cookies are credentials: the shell reads them from
		// a variable, which the user fills from the answer before.
		fmt.Fprintf(&b, " \\\n  -H \"Cookie: ${%s}\"", CookieVar)
	}
	if name, prefix, ok := tokenHeader(x.tokenIn, x.tokenName); ok {
		fmt.Fprintf(&b, " \\\n  -H \"%s: %s%s\"", name, prefix, shell.TokenVar)
	}
	if x.ContentType != "" {
		fmt.Fprintf(&b, " \\\n  -H %s", shell.Quote("Content-Type: "+x.ContentType))
	} else {
		b.WriteString(" \\\n  -H 'Content-Type:'") // curl would add one of its own
	}
	if x.Accept != "" {
		fmt.Fprintf(&b, " \\\n  -H %s", shell.Quote("Accept: "+x.Accept))
	} else {
		b.WriteString(" \\\n  -H 'Accept:'") // curl would send */* of its own
	}
	if x.NoUserAgent {
		b.WriteString(" \\\n  -H 'User-Agent:'") // curl would send its own
	}
	if x.Chunked {
		b.WriteString(" \\\n  -H 'Transfer-Encoding: chunked'")
	}
	fmt.Fprintf(&b, " \\\n  %s", dataArg)
	return b.String()
}
