// Package exchange is one request and its answer, plantcheck's one
// exchange type, whichever driver saw it (`plantcheck run`'s steps embed
// it, `plantcheck proxy` builds it): what the judge judges, and how it is
// shown: the request line, the response line and a curl command that sends
// the request again, each with every secret hidden once, here. Which values are
// secrets it says too (secrets.go): credential headers, query parameters
// and body members, at any depth. The hiding itself (every form a target
// may echo a secret in), the bounds and the escapes are package evidence's;
// the shell words are package shell's.
package exchange

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/shell"
)

// Bounds of what the evidence of one exchange shows.
const (
	// ExcerptBytes bounds the part of a body quoted on a line.
	ExcerptBytes = 512
	// ValueBytes bounds a header value or a target shown.
	ValueBytes = 256
	// ReproduceBytes bounds a body a reproduction writes out: a longer one
	// is reproduced only when runs of one letter make it long (shell.Runs).
	ReproduceBytes = 16 << 10
	// RunsFrom is the length from which a body's runs are made by commands.
	RunsFrom = 1 << 10
)

// CookieVar names the environment variable a reproduction reads a Cookie
// header from: a session's cookies are credentials.
const CookieVar = "PLANTCHECK_COOKIE"

// Exchange is one request and what came back, secrets included: every
// rendering hides them.
type Exchange struct {
	Method string
	// URL is where the request went, as a reproduction sends it again;
	// Target is what the request line shows ("" shows URL).
	URL, Target string
	// Header is the request's header as sent.
	Header http.Header
	// Body is the request's body, or its first bytes when BodyTotal (its
	// length in all; 0 means len(Body)) is larger.
	Body      []byte
	BodyTotal int64
	// BodyIncomplete says why Body is not known whole ("" when it is):
	// such a body is neither judged nor reproduced.
	BodyIncomplete string
	Chunked        bool // the body went in chunks, without a Content-Length
	// Auth shows the Authorization header where the sender knows more
	// than the value says; nil reads the value with AuthShape.
	Auth *Credential
	// Token is the user's token where the request carried it outside its
	// Authorization header: shown as <token>, reproduced from
	// $PLANTCHECK_TOKEN (URL may hold evidence.TokenMark already).
	Token         string
	SecretHeaders []string // headers whose values are secrets, whatever their names
	CurlFlags     []string // the connection's settings for a reproduction

	Status int
	// RespHeader and RespBody are the answer; RespTotal is the body's
	// length in all (0 means len(RespBody)).
	RespHeader http.Header
	RespBody   []byte
	RespTotal  int64
	// RespIncomplete says why RespBody is not known whole ("" when it
	// is): such an answer is not judged.
	RespIncomplete string
	Duration       time.Duration
	// Err is how the exchange failed when no whole answer came (nil when
	// one did): judge.Answered judges it alone.
	Err error
}

// Credential is an Authorization value without its secret: what a report
// shows (Desc) and what a shell sends (Shell).
type Credential struct{ Desc, Shell string }

// RequestLine summarises the request on one line: method, target, the
// headers that matter to the rules (credentials described), body.
func (x *Exchange) RequestLine(red *evidence.Redactor) string {
	var b strings.Builder
	b.WriteString(x.requestTarget(red))
	var hs []string
	for _, a := range x.auths() {
		hs = append(hs, "Authorization: "+a.Desc)
	}
	if ct, ok := x.Header["Content-Type"]; ok && len(ct) > 0 {
		hs = append(hs, "Content-Type: "+red.Safe(ct[0], ValueBytes))
	} else {
		hs = append(hs, "no Content-Type")
	}
	switch a, ok := x.Header["Accept"]; {
	case !ok || len(a) == 0 || a[0] == "":
		hs = append(hs, "no Accept")
	case a[0] != "application/json":
		hs = append(hs, "Accept: "+red.Safe(a[0], ValueBytes))
	}
	if x.Chunked {
		hs = append(hs, "Transfer-Encoding: chunked")
	}
	if ua := x.Header["User-Agent"]; len(ua) == 0 || ua[0] == "" {
		hs = append(hs, "no User-Agent")
	}
	for _, name := range slices.Sorted(maps.Keys(x.Header)) {
		if name == "Authorization" {
			continue
		}
		for _, v := range x.Header[name] {
			if pre, post, ok := x.cutToken(v); ok {
				hs = append(hs, evidence.Text(evidence.Cut(name, ValueBytes))+": "+red.Safe(pre+evidence.TokenMark+post, ValueBytes))
			} else if x.secret(name) {
				hs = append(hs, evidence.Text(evidence.Cut(name, ValueBytes))+": "+evidence.Redacted)
				break
			}
		}
	}
	fmt.Fprintf(&b, " [%s] body %s", strings.Join(hs, "; "), Quote(red, []byte(x.hideToken(string(x.Body))), x.BodyTotal))
	return b.String()
}

// requestTarget is the method and target (Target, else URL).
func (x *Exchange) requestTarget(red *evidence.Redactor) string {
	return evidence.Text(x.Method) + " " + red.Safe(x.hideToken(cmp.Or(x.Target, x.URL)), ExcerptBytes)
}

// ResponseLine summarises the answer on one line.
func (x *Exchange) ResponseLine(red *evidence.Redactor) string {
	ct := "no Content-Type"
	if v := x.RespHeader.Get("Content-Type"); v != "" {
		ct = red.Safe(v, ValueBytes)
	}
	d := x.Duration.Round(time.Millisecond)
	if x.Duration < 10*time.Millisecond {
		d = x.Duration.Round(10 * time.Microsecond)
	}
	return fmt.Sprintf("%d %s, body %s (after %s)", x.Status, ct, Quote(red, x.RespBody, x.RespTotal), d)
}

// Message writes the exchange as the HTTP messages it was, for the living
// documentation: the request line, the headers a client set (secrets
// hidden) and body, then the status line, the answer's Content-Type and
// body, each value and body bounded, redacted and escaped onto one line.
func (x *Exchange) Message(red *evidence.Redactor) (request, response string) {
	var b strings.Builder
	b.WriteString(x.requestTarget(red) + " HTTP/1.1\n")
	for _, a := range x.auths() {
		b.WriteString("Authorization: " + a.Desc + "\n")
	}
	for _, name := range slices.Sorted(maps.Keys(x.Header)) {
		if name == "Authorization" {
			continue
		}
		for _, v := range x.Header[name] {
			switch pre, post, ok := x.cutToken(v); {
			case ok:
				v = red.Safe(pre+evidence.TokenMark+post, ValueBytes)
			case x.secret(name):
				v = evidence.Redacted
			default:
				v = red.Safe(v, ValueBytes)
			}
			b.WriteString(evidence.Text(evidence.Cut(name, ValueBytes)) + ": " + v + "\n")
		}
	}
	if x.Chunked {
		b.WriteString("Transfer-Encoding: chunked\n")
	}
	if body := x.hideToken(string(x.Body)); body != "" {
		b.WriteString("\n" + messageBody(red, body, x.BodyTotal) + "\n")
	}
	request = b.String()
	b.Reset()
	status := strconv.Itoa(x.Status)
	if text := http.StatusText(x.Status); text != "" {
		status += " " + text
	}
	b.WriteString("HTTP/1.1 " + status + "\n")
	for _, v := range x.RespHeader.Values("Content-Type") {
		b.WriteString("Content-Type: " + red.Safe(v, ValueBytes) + "\n")
	}
	if len(x.RespBody) > 0 {
		b.WriteString("\n" + messageBody(red, string(x.RespBody), x.RespTotal) + "\n")
	}
	return request, b.String()
}

// messageBody is a body as Message shows it, its final line feed dropped.
func messageBody(red *evidence.Redactor, body string, total int64) string {
	s := red.Safe(strings.TrimSuffix(body, "\n"), ExcerptBytes)
	if n := max(total, int64(len(body))); n > int64(len(body)) && !strings.Contains(s, "bytes in all)") {
		s += fmt.Sprintf("… (%d bytes in all)", n)
	}
	return s
}

// Quote quotes the start of a body of total bytes (0: len(b)): redacted,
// cut, then Go-quoted, so that no byte of it acts on a terminal.
func Quote(red *evidence.Redactor, b []byte, total int64) string {
	total = max(total, int64(len(b)))
	if total == 0 {
		return "(empty)"
	}
	text, cut := evidence.Prefix(red, b, ExcerptBytes)
	q := strconv.Quote(string(text))
	if cut || int64(len(b)) < total {
		q += fmt.Sprintf(" … (%d bytes in all)", total)
	}
	return q
}

// Curl writes a command that sends the request again. Credentials are read
// from environment variables, never written ($PLANTCHECK_TOKEN,
// PLANTCHECK_HEADER_<NAME>, $PLANTCHECK_COOKIE); any other secret is
// hidden. A body too long (but for runs of one letter), or not kept whole,
// is not reproduced: the command is then "".
func (x *Exchange) Curl(red *evidence.Redactor) string {
	if x.BodyIncomplete != "" || x.BodyTotal > int64(len(x.Body)) {
		return ""
	}
	var b strings.Builder
	data := ""
	pre, post, inBody := x.cutToken(string(x.Body))
	var runs []string
	if len(x.Body) >= RunsFrom && !inBody {
		runs, _ = shell.Runs([]byte(red.String(string(x.Body))), ReproduceBytes)
	}
	switch {
	case len(x.Body) > ReproduceBytes && runs == nil:
		return ""
	case runs != nil:
		// A body long for runs of one text: each run made by a command.
		fmt.Fprintf(&b, "{ %s; } | ", strings.Join(runs, "; "))
		data = "--data-binary @-"
	case inBody && shell.Printable(x.Body):
		// The token, double-quoted for the shell, between the other parts.
		data = "--data-binary " + shell.Quote(red.String(pre)) + `"` + shell.TokenVar + `"` + shell.Quote(red.String(post))
	case len(x.Body) == 0:
	default:
		body := []byte(red.String(string(x.Body)))
		if shell.Printable(body) {
			data = "--data-binary " + shell.Quote(string(body))
		} else {
			// Bytes a shell word cannot carry go through printf's escapes.
			fmt.Fprintf(&b, "printf '%s' | ", shell.PrintfEscape(body))
			data = "--data-binary @-"
		}
	}
	method := x.Method
	if method == "" || strings.Trim(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		method = shell.Quote(evidence.Text(method))
	}
	fmt.Fprintf(&b, "curl -sS -i -X %s %s", method, x.shellWord(red, x.URL, ReproduceBytes))
	var lines []string
	if len(x.CurlFlags) > 0 {
		lines = append(lines, strings.Join(x.CurlFlags, " "))
	}
	for _, a := range x.auths() {
		// Double quotes, so that the shell expands the variable.
		lines = append(lines, `-H "Authorization: `+a.Shell+`"`)
	}
	for _, name := range slices.Sorted(maps.Keys(x.Header)) {
		switch name {
		case "Authorization", "Host", "Content-Length", "Transfer-Encoding":
			continue
		}
		for i, v := range x.Header[name] {
			if _, _, ok := x.cutToken(v); ok {
				lines = append(lines, "-H "+x.shellWord(red, evidence.Text(name)+": "+v, ValueBytes))
				continue
			}
			switch {
			case x.secret(name):
				variable := shell.HeaderVar(name)
				if strings.EqualFold(name, "Cookie") {
					variable = CookieVar
				}
				if i > 0 {
					variable += "_" + strconv.Itoa(i+1)
				}
				if plainName(name) {
					lines = append(lines, `-H "`+name+`: ${`+variable+`}"`)
				} else {
					// A name a shell could read as code ($, `) stays in
					// single quotes.
					lines = append(lines, "-H "+shell.Quote(evidence.Text(name)+": ")+`"${`+variable+`}"`)
				}
			case v == "":
				lines = append(lines, "-H "+shell.Quote(evidence.Text(name)+":")) // none was sent
			default:
				if cmds, ok := shell.Runs([]byte(v), 0); ok && len(cmds) == 1 && plainName(name) && len(v) > ValueBytes {
					// A long value of one letter (a padding): made, not written.
					lines = append(lines, `-H "`+name+`: $(`+cmds[0]+`)"`)
					continue
				}
				lines = append(lines, "-H "+shell.Quote(evidence.Text(name)+": "+red.Safe(v, ValueBytes)))
			}
		}
	}
	for _, name := range []string{"User-Agent", "Content-Type", "Accept"} {
		if _, ok := x.Header[name]; !ok {
			lines = append(lines, "-H '"+name+":'") // curl would send one of its own
		}
	}
	if x.Chunked {
		lines = append(lines, "-H 'Transfer-Encoding: chunked'")
	}
	if data != "" {
		lines = append(lines, data)
	}
	for _, l := range lines {
		b.WriteString(" \\\n  " + l)
	}
	return b.String()
}

// auths are the Authorization headers sent, without their secrets.
func (x *Exchange) auths() []Credential {
	if x.Auth != nil {
		return []Credential{*x.Auth}
	}
	var out []Credential
	for _, v := range x.Header["Authorization"] {
		desc, sh := AuthShape(v)
		out = append(out, Credential{desc, sh})
	}
	return out
}

// secret reports whether a header's value is a secret.
func (x *Exchange) secret(name string) bool {
	return IsCredential(name) || slices.ContainsFunc(x.SecretHeaders, func(s string) bool { return strings.EqualFold(s, name) })
}

// cutToken splits s around the last place it holds the user's token.
func (x *Exchange) cutToken(s string) (before, after string, ok bool) {
	if x.Token == "" {
		return "", "", false
	}
	i := strings.LastIndex(s, x.Token)
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+len(x.Token):], true
}

// hideToken writes the user's token in s as <token>.
func (x *Exchange) hideToken(s string) string {
	if x.Token == "" {
		return s
	}
	return strings.ReplaceAll(s, x.Token, evidence.TokenMark)
}

// shellWord writes s as shell words: the user's token (or its mark) read
// from $PLANTCHECK_TOKEN, the rest quoted, redacted and bounded.
func (x *Exchange) shellWord(red *evidence.Redactor, s string, n int) string {
	if x.Token == "" && !strings.Contains(s, evidence.TokenMark) {
		return shell.Quote(red.Safe(s, n))
	}
	parts := strings.Split(x.hideToken(s), evidence.TokenMark)
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(`"` + shell.TokenVar + `"`)
		}
		if p != "" {
			b.WriteString(shell.Quote(red.Safe(p, n)))
		}
	}
	return b.String()
}

// plainName reports whether a header name is letters, digits and hyphens
// only: safe between double quotes.
func plainName(name string) bool {
	return name != "" && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") == ""
}
