package run

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/steps"
)

// minEvidence is how many answers a likely cause needs: fewer say nothing.
const minEvidence = 3

// likelyCause names the setup mistake the answers point to: a wrong token
// (every valid request sent with it refused, 400, 401 or 403, none 2xx) or
// a wrong address (every answer a status the contract lacks, such as 404,
// or one answer whatever was sent). The answers' text is redacted and
// quoted. Such a mistake cannot be told from a service that refuses
// everything, so the run is NON-CONFORMANT all the same.
func likelyCause(r *Report, v *spec.Validator, redact func(string) string) string {
	statuses := map[int]int{}
	answered, accepted := 0, 0
	var refused []*steps.Sent // sent with the token, not accepted
	var first *steps.Sent
	same := true // every answer the same status and body
	for _, sc := range r.Scenarios {
		for _, x := range sc.Exchanges {
			if !x.Answered() {
				continue
			}
			answered++
			statuses[x.Status]++
			if first == nil {
				first = x
			}
			same = same && x.Status == first.Status && bytes.Equal(x.RespBody, first.RespBody)
			switch {
			case !x.Issued():
			case x.Status >= 200 && x.Status < 300:
				// A 2xx, 201 included, is an answer to the token, not a
				// refusal of it: whatever else is wrong with it.
				accepted++
			case x.Status == http.StatusBadRequest || x.Status == http.StatusUnauthorized || x.Status == http.StatusForbidden:
				// Refused for its credentials or its content: 400, as the
				// contract refuses, or 401 and 403, as a gateway does. Any
				// other answer (a 5xx, a 404) says nothing of the token.
				refused = append(refused, x)
			}
		}
	}
	if answered < minEvidence {
		return ""
	}
	if len(statuses) == 1 {
		for status := range statuses {
			if status != http.StatusOK && status != http.StatusBadRequest {
				return fmt.Sprintf("every one of the %d answers was %d %s, which the contract does not have: %s",
					answered, status, http.StatusText(status), statusHint(status, r.Target))
			}
		}
	}
	if accepted > 0 {
		return "" // the token works: no request need be checked again
	}
	if same && notFound.Match(first.RespBody) {
		// One answer whatever was sent, valid or not, with the token or
		// without, and it speaks of a path not found: a server that maps
		// an unknown path to its own 400 Error record, as the contract's
		// rule 2 leads implementers to.
		return fmt.Sprintf("every one of the %d answers was the same, whatever was sent: status %d with the body %s, "+
			"which reads as a path the service does not serve: check --base-url (the requests went to %s)%s",
			answered, first.Status, judge.Quote(redact(string(first.RespBody))), r.Target, plantsTwice(r.Target))
	}
	var valid []*steps.Sent
	for _, x := range refused {
		if x.Header.Get("Content-Type") == "application/json" && v.BodyConforms(x.Method, "/plants", x.Body) {
			valid = append(valid, x)
		}
	}
	if len(valid) < minEvidence {
		return ""
	}
	// The token is blamed only when the answers speak of credentials (a
	// 401 or 403, or a body that says so); answers that speak of a path
	// not found point at the address; answers that say neither, at both.
	creds, missing := 0, 0
	for _, x := range valid {
		if x.Status == http.StatusUnauthorized || x.Status == http.StatusForbidden || credential.Match(x.RespBody) {
			creds++
		}
		if notFound.Match(x.RespBody) {
			missing++
		}
	}
	switch {
	case missing == len(valid):
		return fmt.Sprintf("none of the %d valid requests was accepted, and every answer speaks of a path not found (the first: status %d with the body %s): "+
			"check --base-url (the requests went to %s)%s",
			len(valid), valid[0].Status, judge.Quote(redact(string(valid[0].RespBody))), r.Target, plantsTwice(r.Target))
	case creds > 0:
		from := "--token, --token-file or PLANTCHECK_TOKEN"
		if r.Config.TokenFrom != "" {
			from = "it came from " + r.Config.TokenFrom
		}
		said := fmt.Sprintf("%d of %d answers", creds, len(valid))
		if creds == len(valid) {
			said = fmt.Sprintf("all %d answers", creds)
		}
		return fmt.Sprintf("none of the %d valid requests sent with the given token was accepted (answers: %s), and %s speak of credentials: "+
			"check the token (%s) is one this service issued; if it is, the service refuses every valid create",
			len(valid), statusCounts(statuses), said, from)
	}
	return fmt.Sprintf("none of the %d valid requests sent with the given token was accepted (answers: %s), and no answer says why (the first: status %d with the body %s): "+
		"the service refuses every valid create, or the token or --base-url is not the service's",
		len(valid), statusCounts(statuses), valid[0].Status, judge.Quote(redact(string(valid[0].RespBody))))
}

// credential is how servers and gateways say a credential was refused.
var credential = regexp.MustCompile(`(?i)token|auth|credential|bearer|forbidden|api.?key|permission|denied|log ?in|sign ?in|session`)

// notFound is how servers and frameworks say a path is not theirs.
var notFound = regexp.MustCompile(`(?i)\b404\b|not ?found|no (such )?route|unknown (path|route|endpoint|url)|cannot post`)

func statusHint(status int, target string) string {
	switch {
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		return "check --base-url: the requests went to " + target + " (POST <base-url>/plants)" + plantsTwice(target)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "the service answers 400 to a bad credential; a gateway in front may want its own key (--header) or refuse the token (--token)"
	case status == http.StatusProxyAuthRequired:
		return "a proxy wants credentials: put them in --proxy's URL or HTTPS_PROXY"
	case status >= 300 && status < 400:
		return "the server redirects: check --base-url (https rather than http, or a path with or without a slash)"
	case status == http.StatusTooManyRequests:
		return "the service throttles the run: check --rate"
	case status >= 500:
		return "the service fails every request: it may be down, starting, or misconfigured"
	}
	return "check --base-url"
}

// plantsTwice notes a base URL given with the path plantcheck adds.
func plantsTwice(target string) string {
	if strings.HasSuffix(target, "/plants/plants") {
		return "; --base-url ends in /plants, which plantcheck adds itself"
	}
	return ""
}

func statusCounts(statuses map[int]int) string {
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(statuses)) {
		parts = append(parts, fmt.Sprintf("%d ×%d", st, statuses[st]))
	}
	return strings.Join(parts, ", ")
}
