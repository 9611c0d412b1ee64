package judge

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// A Rule is one rule of the catalog as the judge judges it, declared once:
// its ID; its check of an answer (nil: read from the request by Classify,
// or from the sender's Intent); and why traffic alone cannot show it.
type Rule struct {
	ID    rules.RuleID
	check func(e *exam) (Judgement, bool)
	// NotFromTraffic says why traffic cannot show the rule ("": it can);
	// with a check too, traffic shows it in part (CREATE-200).
	NotFromTraffic string
	// Accepts: a refusal of the valid requests its scenarios send fails
	// this rule, not CREATE-200 (their Intent.Accept).
	Accepts bool
}

// AcceptedUnder reports whether rule's Accepts is set.
func AcceptedUnder(rule rules.RuleID) bool {
	return slices.ContainsFunc(Rules, func(r Rule) bool { return r.ID == rule && r.Accepts })
}

// The reasons a rule cannot be judged from traffic.
const (
	whyTokens   = "the proxy does not know which tokens the service issued"
	whyRefusal  = "a refusal of a valid request may be for a token the service did not issue, or an id it already stores (which the spec leaves open): traffic cannot tell them from a wrongful refusal"
	whyOpen     = "the spec leaves it open: noted by `plantcheck run`, never failed"
	whyGenValid = "it judges bodies the suite generates; the clients' accepted bodies are judged under CREATE-NAME, CREATE-TAG and CREATE-NO-TAG"
)

// Rules are every rule of the catalog, once, in the order of the judge's
// results.
var Rules = []Rule{
	{ID: rules.ResponseMedia, check: responseMedia},
	{ID: rules.ResponseJSONText, check: func(e *exam) (Judgement, bool) {
		j := Judgement{Expected: "a body that begins with its JSON text, with no byte order mark before it (RFC 8259, section 8.1)"}
		// The mark in UTF-8 (EF BB BF), or a UTF-16 text's (FE FF, FF FE).
		for _, mark := range []string{"\xef\xbb\xbf", "\xfe\xff", "\xff\xfe"} {
			if bytes.HasPrefix(e.RespBody, []byte(mark)) {
				j.Actual = fmt.Sprintf("a body that begins with a byte order mark (the bytes % X)", mark)
			}
		}
		return j, e.answered() && len(e.RespBody) > 0
	}},
	{ID: rules.ResponseDocumented, check: responseDocumented},
	{ID: rules.ResponseTimely, check: responseTimely, NotFromTraffic: "a time limit is the suite's to set; an upstream that does not answer within --timeout gets the proxy's own 502, counted apart and never as the service's"},
	{ID: rules.HeaderSize, check: headerSize},
	{ID: rules.ErrorRecord, check: errorRecord},
	{ID: rules.Create200, check: plantRecord, NotFromTraffic: whyRefusal, Accepts: true},
	{ID: rules.CreateNoID, check: noID},
	{ID: rules.CreateName, check: echoOf(rules.CreateName)},
	{ID: rules.CreateTag, check: echoOf(rules.CreateTag)},
	{ID: rules.CreateNoTag, check: echoOf(rules.CreateNoTag)},

	// Read from the request (Classify): the rule a refusal is due under.
	{ID: rules.AuthMissing},
	{ID: rules.AuthScheme},
	{ID: rules.AuthEmpty},
	{ID: rules.MediaRequest},
	{ID: rules.BodyJSON},
	{ID: rules.BodyObject},
	{ID: rules.BodyIDRequired},
	{ID: rules.BodyIDInteger},
	{ID: rules.BodyIDInt64},
	{ID: rules.BodyNameRequired},
	{ID: rules.BodyNameString},
	{ID: rules.BodyTagString},

	// Read from the sender's Intent, which only `plantcheck run` knows.
	{ID: rules.GenInvalid, NotFromTraffic: "it judges bodies the suite generates; the clients' refused bodies are judged under the rule of what they break"},
	{ID: rules.BodyIDRange, NotFromTraffic: whyRefusal, Accepts: true},
	{ID: rules.BodyNameAny, NotFromTraffic: whyRefusal, Accepts: true},
	{ID: rules.BodyTagAny, NotFromTraffic: whyRefusal, Accepts: true},
	{ID: rules.BodyExtraFields, NotFromTraffic: whyRefusal, Accepts: true},
	{ID: rules.MediaRequestParams, NotFromTraffic: whyRefusal, Accepts: true},
	{ID: rules.MediaAccept, NotFromTraffic: whyRefusal, Accepts: true},
	{ID: rules.GenValid, NotFromTraffic: whyGenValid, Accepts: true},
	{ID: rules.GenBoundary, NotFromTraffic: whyGenValid, Accepts: true},
	{ID: rules.AuthNearMiss, NotFromTraffic: whyTokens},
	{ID: rules.AuthUnknown, NotFromTraffic: whyTokens},
	{ID: rules.AuthSchemeCase, NotFromTraffic: whyTokens, Accepts: true},
	{ID: rules.OpenReusedID, NotFromTraffic: whyOpen},
	{ID: rules.OpenJSONReader, NotFromTraffic: whyOpen},
	{ID: rules.OpenIntegralID, NotFromTraffic: whyOpen},
	{ID: rules.OpenAcceptOther, NotFromTraffic: whyOpen},
}

// FromTraffic are the rules traffic alone can show; NotFromTraffic the
// others, each with its reason. Both are read from Rules.
var FromTraffic, NotFromTraffic = func() ([]rules.RuleID, map[rules.RuleID]string) {
	var from []rules.RuleID
	not := map[rules.RuleID]string{}
	for _, r := range Rules {
		if r.NotFromTraffic == "" {
			from = append(from, r.ID)
		} else {
			not[r.ID] = r.NotFromTraffic
		}
	}
	return from, not
}()
