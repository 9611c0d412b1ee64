package proxy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	xchg "github.com/plantcheck/plantcheck/exchange"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/shell"
	"github.com/plantcheck/plantcheck/rules"
)

// Bounds of the evidence kept of one failure.
const (
	// evidenceText bounds an expected or actual value, a detail.
	evidenceText = 2 << 10
	// excerptBytes bounds the part of a body quoted on a line.
	excerptBytes = 512
	// valueBytes bounds a header value shown.
	valueBytes = 256
	// reproduceBytes bounds a body a reproduction sends: a longer one is
	// not reproduced.
	reproduceBytes = 4 << 10
)

// failure makes the evidence of one failure of an exchange: every string
// redacted with red, cut, and escaped.
func (h *Handler) failure(x *exchange, red *evidence.Redactor, side, rule, expected, actual string, ds []string) Failure {
	level := "" // a client's request breaks the document, not a rule's level
	if r, ok := rules.Lookup(rules.RuleID(rule)); ok && side == "server" {
		level = strings.ToUpper(string(r.Level))
	}
	f := Failure{
		Rule: rule, Level: level, Side: side,
		Expected: red.Safe(expected, evidenceText),
		Actual:   red.Safe(actual, evidenceText),
		Request:  requestLine(x, red),
		Response: responseLine(x, red),
		At:       time.Now().UTC(),
	}
	for _, d := range ds {
		f.Details = append(f.Details, red.Safe(d, evidenceText))
	}
	f.Reproduce = h.curl(x, red)
	return f
}

// requestLine summarises a request on one line: its method and target, the
// headers that matter to the rules (credentials described, never shown),
// its body.
func requestLine(x *exchange, red *evidence.Redactor) string {
	var b strings.Builder
	b.WriteString(evidence.Text(x.method) + " " + red.Safe(x.target, excerptBytes))
	var hs []string
	if v := x.header.Get("Authorization"); v != "" || len(x.header["Authorization"]) > 0 {
		desc, _ := xchg.AuthShape(v)
		hs = append(hs, "Authorization: "+desc)
	}
	if ct, ok := x.header["Content-Type"]; ok && len(ct) > 0 {
		hs = append(hs, "Content-Type: "+red.Safe(ct[0], valueBytes))
	} else {
		hs = append(hs, "no Content-Type")
	}
	if x.chunked {
		hs = append(hs, "Transfer-Encoding: chunked")
	}
	for _, name := range slices.Sorted(maps.Keys(x.header)) {
		if name != "Authorization" && xchg.IsCredential(name) {
			hs = append(hs, evidence.Text(evidence.Cut(name, valueBytes))+": <redacted>")
		}
	}
	fmt.Fprintf(&b, " [%s] body %s", strings.Join(hs, "; "), quoteBody(red, x.reqBody))
	return b.String()
}

// responseLine summarises the answer on one line.
func responseLine(x *exchange, red *evidence.Redactor) string {
	ct := "no Content-Type"
	if v := x.respHeader.Get("Content-Type"); v != "" {
		ct = red.Safe(v, valueBytes)
	}
	d := x.duration.Round(time.Millisecond)
	if x.duration < 10*time.Millisecond {
		d = x.duration.Round(10 * time.Microsecond)
	}
	return fmt.Sprintf("%d %s, body %s (after %s)", x.status, ct, quoteBody(red, x.respBody), d)
}

// quoteBody quotes the start of a body: redacted (with a margin past the
// cut, so that a secret across it is found whole), cut, then Go-quoted, so
// that no byte of it acts on a terminal or starts a line.
func quoteBody(red *evidence.Redactor, s snapshot) string {
	if s.total == 0 {
		return "(empty)"
	}
	b := s.body
	if limit := excerptBytes + red.Margin(); len(b) > limit {
		b = b[:limit]
	}
	text := red.String(string(b))
	cut := len(text) > excerptBytes
	if cut {
		n := excerptBytes
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	q := strconv.Quote(text)
	if cut || int64(len(s.body)) < s.total {
		q += fmt.Sprintf(" … (%d bytes in all)", s.total)
	}
	return q
}

// safeTarget is a request-target fit to print.
func safeTarget(t string) string { return evidence.Text(evidence.Cut(t, excerptBytes)) }

// curl writes a command that sends the request again, straight to the
// upstream: its method, target, headers and body bytes. The credentials
// are read from environment variables, never written: the Authorization
// header's from $PLANTCHECK_TOKEN, each other credential header's from
// PLANTCHECK_HEADER_<NAME>. A body that held a secret is sent with the
// secret hidden; a body too long, or not kept whole, is not reproduced.
func (h *Handler) curl(x *exchange, red *evidence.Redactor) string {
	if !x.reqBody.whole || len(x.reqBody.body) > reproduceBytes {
		return ""
	}
	var b strings.Builder
	body := red.Bytes(x.reqBody.body)
	data := ""
	if x.reqBody.total > 0 {
		if shell.Printable(body) {
			data = "--data-binary " + shell.Quote(string(body))
		} else {
			// Bytes a shell word cannot carry as they are (line breaks,
			// controls, bytes that are not UTF-8) go through printf's
			// octal escapes, so that the command is one printable text.
			fmt.Fprintf(&b, "printf '%s' | ", shell.PrintfEscape(body))
			data = "--data-binary @-"
		}
	}
	method := x.method
	if strings.Trim(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		method = shell.Quote(evidence.Text(method))
	}
	fmt.Fprintf(&b, "curl -sS -i -X %s %s", method, shell.Quote(red.Safe(x.to.Scheme+"://"+x.to.Host+x.to.RequestURI(), reproduceBytes)))
	if vs := x.header["Authorization"]; len(vs) > 0 {
		for _, v := range vs {
			_, shell := xchg.AuthShape(v)
			fmt.Fprintf(&b, " \\\n  -H \"Authorization: %s\"", shell)
		}
	}
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(x.header)) {
		switch name {
		case "Authorization", "Host", "Content-Length":
			continue
		}
		for i, v := range x.header[name] {
			switch {
			case xchg.IsCredential(name):
				variable := shell.HeaderVar(name)
				if i > 0 {
					variable += "_" + strconv.Itoa(i+1)
				}
				lines = append(lines, "-H "+shell.Quote(evidence.Text(name)+": ")+"\"${"+variable+"}\"")
			case name == "User-Agent" && v == "":
				lines = append(lines, "-H 'User-Agent:'") // none was sent
			default:
				lines = append(lines, "-H "+shell.Quote(evidence.Text(name)+": "+red.Safe(v, valueBytes)))
			}
		}
	}
	for _, name := range []string{"User-Agent", "Content-Type", "Accept"} {
		if _, ok := x.header[name]; !ok {
			lines = append(lines, "-H '"+name+":'") // curl would send one of its own
		}
	}
	if x.chunked {
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
