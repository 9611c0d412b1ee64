package steps

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/generate"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/shell"
)

// credential is what a request presents in its Authorization header: its
// value ("" sends none), and as evidence its description and a POSIX shell
// word that reads the token from $PLANTCHECK_TOKEN.
type credential struct {
	value string
	exchange.Credential
	issued bool // the user's token in the Bearer scheme, the one credential the service must accept
}

// token is the credential of the user's token after pre, the evidence
// saying note after it.
func (s *Suite) token(pre, note string, issued bool) *credential {
	return &credential{value: pre + s.cfg.Token, Credential: exchange.Credential{Desc: strings.ReplaceAll(pre, "\t", "<tab>") + evidence.TokenMark + note, Shell: shellTabs(pre) + shell.TokenVar}, issued: issued}
}

// shellTabs writes text for a double-quoted shell word, a tab as printf
// makes it.
func shellTabs(text string) string { return strings.ReplaceAll(text, "\t", `$(printf '\011')`) }

// tokenPlace is where a request carries the token other than in its
// Authorization header.
type tokenPlace string

// The places, as the features name them.
const (
	tokenInQuery  tokenPlace = "in the query string"      // a parameter of the query string
	tokenInBody   tokenPlace = "in the body"              // a member of the body
	tokenInHeader tokenPlace = "in a header"              // a header of another name
	tokenInCookie tokenPlace = "in a cookie"              // a cookie
	tokenInBearer tokenPlace = "after Bearer in a header" // a header of another name, after "Bearer "
)

// tokenHeader is the header that carries the token at place under name,
// and what goes before the token; false for a place that is no header.
func tokenHeader(place tokenPlace, name string) (header, prefix string, ok bool) {
	switch place {
	case tokenInHeader:
		return http.CanonicalHeaderKey(name), "", true
	case tokenInCookie:
		return "Cookie", name + "=", true
	case tokenInBearer:
		return http.CanonicalHeaderKey(name), "Bearer ", true
	}
	return "", "", false
}

// tokenCmd writes a shell command substitution that prints the token
// through filter, for variants no parameter expansion can make.
func tokenCmd(filter string) string {
	return `$(printf '%s' "$PLANTCHECK_TOKEN" | ` + filter + `)`
}

// changed is a character that differs from c in a way no decoding of the
// token can undo. The last character of a base64 text may carry bits that
// decode to nothing (Go's and Python's lenient decoders read "...w" and
// "...x" as the same bytes), so the one put in its place differs in the
// highest of its six bits, always data: 'x' for the lower half of the
// alphabet (and any other character), 'A' for the upper half.
func changed(c byte) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_"
	if strings.IndexByte(alphabet, c) >= 32 {
		return "A"
	}
	return "x"
}

// nearMiss is a credential near the issued token, which a check that
// compares too little accepts: a prefix match, a comparison without regard
// to case, bcrypt's first 72 bytes, a search for the token inside the value.
type nearMiss struct {
	// name follows "the issued token" in the feature.
	name string
	// make returns the variant and its shell form, or why it cannot be.
	make func(tok string) (variant, shell, impossible string)
}

// nearMisses is every variant the features may name, in their order.
var nearMisses = []nearMiss{
	{"with one character appended", around("", "x")},
	{"with one character put before it", around("x", "")},
	{"with its last character dropped", func(t string) (string, string, string) {
		// The base64 padding at its end is kept: a lenient decoder reads
		// "abc" as "abc=", the same bytes.
		body := strings.TrimRight(t, "=")
		pad := t[len(body):]
		if len(body) < 2 {
			return "", "", "the issued token has one character before its padding: without it, it is empty (AUTH-EMPTY)"
		}
		_, n := utf8.DecodeLastRuneInString(body)
		return body[:len(body)-n] + pad, "${PLANTCHECK_TOKEN%?" + pad + "}" + pad, ""
	}},
	{"with its last character changed", func(t string) (string, string, string) {
		_, n := utf8.DecodeLastRuneInString(t)
		c := changed(t[len(t)-1])
		return t[:len(t)-n] + c, "${PLANTCHECK_TOKEN%?}" + c, ""
	}},
	{"with the case of its letters changed", func(t string) (string, string, string) {
		v := strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, t)
		if v == t {
			return "", "", "the issued token has no letters whose case can change"
		}
		return v, tokenCmd(`tr 'a-zA-Z' 'A-Za-z'`), ""
	}},
	{"written twice", twice("")},
	{"cut to its first half", func(t string) (string, string, string) {
		half := len(strings.TrimRight(t, "=")) / 2 // of what the padding pads
		for half > 0 && !utf8.RuneStart(t[half]) {
			half--
		}
		if half == 0 {
			return "", "", "the issued token is too short to halve"
		}
		return t[:half], tokenCmd(fmt.Sprintf("cut -c1-%d", half)), ""
	}},
	{"changed after its 72nd byte", func(t string) (string, string, string) {
		const limit = 72 // bcrypt reads no more of its input
		switch {
		case len(t) < limit:
			return "", "", fmt.Sprintf("the issued token has %d bytes, fewer than the %d that bcrypt reads: give a token of %d bytes or more to run it", len(t), limit, limit)
		case len(t) == limit:
			return t + "x", shell.TokenVar + "x", ""
		case t[limit] >= utf8.RuneSelf:
			return "", "", "the issued token has no ASCII character after its 72nd byte to change"
		}
		c := changed(t[limit])
		return t[:limit] + c + t[limit+1:], tokenCmd("cut -c1-72") + c + tokenCmd("cut -c74-"), ""
	}},

	// The token as checks that normalise before they compare would take it
	// (issue 27): each form reads as the issued token to such a check, and
	// is another credential to the contract.
	{"with its base64 padding added or removed", func(t string) (string, string, string) {
		// A check that decodes base64 leniently reads "abc" and "abc=" as
		// the same bytes.
		if body := strings.TrimRight(t, "="); body != t {
			pad := t[len(body):]
			if body == "" {
				return "", "", "the issued token is all padding"
			}
			return body, "${PLANTCHECK_TOKEN%" + pad + "}", ""
		}
		return t + "=", shell.TokenVar + "=", ""
	}},
	{"in base64's other alphabet", func(t string) (string, string, string) {
		// A check that decodes both base64 alphabets (RFC 4648's standard
		// +/ and URL-safe -_) reads either spelling as the same bytes.
		if !strings.ContainsAny(t, "+/-_") {
			return "", "", "the issued token has none of the characters base64's two alphabets spell apart (+ / - _)"
		}
		swap := strings.NewReplacer("+", "-", "/", "_", "-", "+", "_", "/")
		return swap.Replace(t), tokenCmd(`tr '\053\057\055\137' '\055\137\053\057'`), ""
	}},
	{"with its first character percent-encoded", func(t string) (string, string, string) {
		// A check that percent-decodes the credential (as a URL's query
		// parameter would be) reads "%41BC" as "ABC".
		if t[0] >= utf8.RuneSelf {
			return "", "", "the issued token begins with a character past ASCII"
		}
		return fmt.Sprintf("%%%02x", t[0]) + t[1:], "%" + tokenCmd(`od -An -tx1 -N1 | tr -d ' \n'`) + "${PLANTCHECK_TOKEN#?}", ""
	}},
	{"with a space inside it", func(t string) (string, string, string) {
		// A check that strips or collapses white space inside a value
		// reads "ab cd" as "abcd".
		half := len(t) / 2
		for half > 0 && !utf8.RuneStart(t[half]) {
			half--
		}
		if half == 0 {
			return "", "", "the issued token is too short to put a space inside"
		}
		return t[:half] + " " + t[half:], tokenCmd(fmt.Sprintf("cut -c1-%d", half)) + " " + tokenCmd(fmt.Sprintf("cut -c%d-", half+1)), ""
	}},
	{"with its first character in its full-width form", func(t string) (string, string, string) {
		// A check that folds width, or applies Unicode's compatibility
		// normalisation (NFKC, NFKD), reads "Ａbc" as "Abc": U+FF01 to
		// U+FF5E are ASCII's ! to ~, full width.
		c := t[0]
		if c < '!' || c > '~' {
			return "", "", "the issued token does not begin with a printable ASCII character"
		}
		// The shell makes the character's UTF-8 bytes, EF BC or EF BD and
		// one more, from the token's first character, which it never shows.
		first := `$(c=$(printf '%d' "'${PLANTCHECK_TOKEN%\"${PLANTCHECK_TOKEN#?}\"}"); ` +
			`if [ "$c" -lt 96 ]; then printf "\\357\\274\\$(printf '%o' $((c+96)))"; ` +
			`else printf "\\357\\275\\$(printf '%o' $((c+32)))"; fi)`
		return string(rune(c)+0xFEE0) + t[1:], first + "${PLANTCHECK_TOKEN#?}", ""
	}},

	// The token with more after or before it, past a separator (issue
	// 33): a check that takes the credential up to the first delimiter
	// (Node's header.split(' ')[1], Python's header.split()[1], an
	// unanchored Bearer (\S+)), or the field's last word, reads these as
	// the issued token; the contract's credential is the whole rest of the
	// field after "Bearer" and its spaces (RFC 6750, section 2.1). The
	// field never ends in white space, which a parser rightly trims (RFC
	// 9110, section 5.5).
	{"followed by a space and more", around("", " x")},
	{"followed by a tab and more", around("", "\tx")},
	{"followed by a comma and more", around("", ",x")},
	{"followed by a semicolon and more", around("", ";x")},
	// Two Authorization fields joined into one, as a list's fields are
	// (RFC 9110, section 5.3; Authorization is not one): a check that
	// splits at the comma and takes the first, the last, or any credential
	// it finds takes the issued token.
	{"followed by a comma and the Bearer scheme with it again", twice(", Bearer ")},
	// Python's header.split()[-1], JavaScript's split(' ').pop().
	{"after a word and a space", around("x ", "")},
	// Python's header.replace("Bearer ", ""), which takes out every
	// "Bearer ", not only the scheme's.
	{"after the Bearer scheme again", around("Bearer ", "")},
}

func around(pre, post string) func(string) (string, string, string) {
	return func(t string) (string, string, string) {
		return pre + t + post, pre + shell.TokenVar + shellTabs(post), ""
	}
}

func twice(sep string) func(string) (string, string, string) {
	return func(t string) (string, string, string) {
		return t + sep + t, shell.TokenVar + sep + shell.TokenVar, ""
	}
}

// nearMissesOf returns every variant that can be made from tok: with the
// token, the secrets a report must never show.
func nearMissesOf(tok string) []string {
	var out []string
	for _, nm := range nearMisses {
		if v, _, why := nm.make(tok); why == "" {
			out = append(out, v)
		}
	}
	return out
}

func (s *Suite) theRequestCarriesTheIssuedToken(ctx context.Context, variant string) error {
	st := stateOf(ctx)
	i := slices.IndexFunc(nearMisses, func(nm nearMiss) bool { return nm.name == variant })
	if i < 0 {
		return &HarnessError{fmt.Errorf("%w: no credential variant %q", ErrSuiteDefect, variant)}
	}
	v, shell, why := nearMisses[i].make(s.cfg.Token)
	if why != "" {
		return st.skipFor(ErrNotApplicable, "not run: "+why)
	}
	st.req.cred = &credential{value: "Bearer " + v, Credential: exchange.Credential{Desc: "Bearer <the issued token " + variant + ">", Shell: "Bearer " + shell}}
	return nil
}

// theRequestCarriesOnlyTheCookies sends no credentials but the cookies the
// service set earlier in the scenario: a service that trusts a session (or
// the address or connection the token came from) lets such a request in.
func (s *Suite) theRequestCarriesOnlyTheCookies(ctx context.Context) {
	st := stateOf(ctx)
	st.req.cred = &credential{}
	seen, cookies := map[string]bool{}, &http.Request{Header: http.Header{}}
	for _, x := range st.Exchanges {
		for _, c := range (&http.Response{Header: x.header}).Cookies() {
			if !seen[c.Name] {
				seen[c.Name] = true
				cookies.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
			}
		}
	}
	if v, ok := cookies.Header["Cookie"]; ok {
		st.req.setHeader("Cookie", v...)
	}
}

func (s *Suite) theRequestCarriesAForeignToken(ctx context.Context) {
	st := stateOf(ctx)
	var b [24]byte
	for i := range b {
		b[i] = byte(st.rng.Uint32())
	}
	foreign := "Bearer plantcheck-foreign-" + hex.EncodeToString(b[:])
	st.req.cred = &credential{value: foreign, Credential: exchange.Credential{Desc: foreign, Shell: foreign}}
}

// theRequestCarriesTheTokenElsewhere sends no Authorization header, but
// the issued token under name in a query parameter or a body member (RFC
// 6750's access_token), a header of its own (an API gateway's) or a cookie.
// The token goes as it is, so that the reproduction can read it from
// $PLANTCHECK_TOKEN: where it would need escaping, or the run sends that
// header itself (--header), the scenario is not run and says why.
func (s *Suite) theRequestCarriesTheTokenElsewhere(ctx context.Context, where, name string) error {
	st := stateOf(ctx)
	tok := s.cfg.Token
	place := tokenPlace(where)
	header, prefix, inHeader := tokenHeader(place, name)
	why := ""
	switch {
	case place == tokenInQuery && url.QueryEscape(tok) != tok:
		why = "the token has characters a query string must escape, so it cannot be sent there as it is"
	case place == tokenInBody && strings.ContainsFunc(tok, func(r rune) bool { return r < 0x20 || r >= 0x7f || r == '"' || r == '\\' }):
		why = "the token has characters a JSON string must escape, so it cannot be sent there as it is"
	case place == tokenInCookie && strings.ContainsFunc(tok, func(r rune) bool { return r <= 0x20 || r >= 0x7f || strings.ContainsRune("\",;\\", r) }):
		why = "the token has characters a cookie cannot carry as they are"
	case inHeader && slices.ContainsFunc(slices.Collect(maps.Keys(s.cfg.Headers)), func(k string) bool { return strings.EqualFold(k, header) }):
		why = "the run sends a " + header + " header of its own (--header)"
	}
	if why != "" {
		return st.skipFor(ErrNotApplicable, "not run: "+why)
	}
	st.req.cred = &credential{}
	st.req.tokenIn, st.req.tokenName = place, name
	if inHeader {
		st.req.setHeader(header, prefix+tok)
	}
	if place == tokenInBody {
		st.req.Members = append(st.req.Members, generate.Member{Name: name, Raw: json.RawMessage(`"` + tok + `"`)})
	}
	return nil
}

// State keyed by the request (issue 33): a response cache, an idempotency
// store or a de-duplication table consulted before the credential answers
// a request it has seen with 200, whatever its credentials. These steps
// build the request such state would know: the accepted one again, or one
// that shares its id, its name or its Idempotency-Key.

// accepted is the scenario's last request sent with the issued token and
// answered 200 (under a fresh name when the scenario's was refused, see
// resendUnderAFreshName); nil when none was.
func accepted(st *state) *Sent {
	for i := len(st.Exchanges) - 1; i >= 0; i-- {
		if x := st.Exchanges[i]; x.issued && x.Err == nil && x.Status == http.StatusOK {
			return x
		}
	}
	return nil
}

// theRequestRepeatsTheAcceptedOne makes the request the accepted one, byte
// for byte: its body as sent, its headers and its credential; a later step
// changes the credential alone.
func (s *Suite) theRequestRepeatsTheAcceptedOne(ctx context.Context) error {
	st := stateOf(ctx)
	x := accepted(st)
	if x == nil {
		return &HarnessError{fmt.Errorf("%w: no request was accepted before this step", ErrSuiteDefect)}
	}
	st.req.setRaw(bytes.Clone(x.Body))
	st.req.cred = nil
	st.req.label = "the accepted request sent again byte for byte"
	return nil
}

// aNewPlantWithTheAcceptedName is a plant with a fresh id and the name of
// the accepted request, as it was written.
func (s *Suite) aNewPlantWithTheAcceptedName(ctx context.Context) error {
	x := accepted(stateOf(ctx))
	var name json.RawMessage
	if x != nil {
		judge.EachMember(x.Body, func(key string, raw json.RawMessage) bool {
			if key == "name" {
				name = raw
			}
			return name == nil
		})
	}
	if name == nil {
		return &HarnessError{fmt.Errorf("%w: no request with a name was accepted before this step", ErrSuiteDefect)}
	}
	s.aNewPlantNamed(ctx, "")
	stateOf(ctx).req.Set("name", name)
	return nil
}
