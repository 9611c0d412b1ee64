package judge

import "github.com/plantcheck/plantcheck/spec/rules"

// FromTraffic are the rules that traffic alone can show, which the proxy
// judges: a new rule goes here or into NotFromTraffic, with the reason
// (TestCatalogCovered holds every rule of the catalog to exactly one).
var FromTraffic = []rules.RuleID{
	rules.ResponseDocumented, rules.ResponseMedia, rules.ErrorRecord,
	rules.CreateName, rules.CreateTag, rules.CreateNoTag, rules.CreateNoID,
	rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty,
	rules.MediaRequest,
	rules.BodyJSON, rules.BodyObject, rules.BodyIDRequired, rules.BodyIDInteger, rules.BodyIDInt64,
	rules.BodyNameRequired, rules.BodyNameString, rules.BodyTagString,
	rules.GenInvalid, rules.HeaderSize,
}

// The reasons a rule cannot be judged from traffic.
const (
	whyTokens  = "the proxy does not know which tokens the service issued"
	whyRefusal = "a refusal of a valid request may be for a token the service did not issue, or an id it already stores (which the spec leaves open): traffic cannot tell them from a wrongful refusal"
	whyOpen    = "the spec leaves it open: noted by `plantcheck run`, never failed"
)

// NotFromTraffic are the rules traffic cannot show, each with the reason
// the proxy gives for leaving it not judged.
var NotFromTraffic = map[rules.RuleID]string{
	rules.Create200:          whyRefusal,
	rules.BodyIDRange:        whyRefusal,
	rules.BodyNameAny:        whyRefusal,
	rules.BodyTagAny:         whyRefusal,
	rules.BodyExtraFields:    whyRefusal,
	rules.MediaRequestParams: whyRefusal,
	rules.GenValid:           "it judges bodies the suite generates; the clients' accepted bodies are judged under CREATE-NAME, CREATE-TAG and CREATE-NO-TAG",
	rules.GenBoundary:        "it judges bodies the suite generates; the clients' accepted bodies are judged under CREATE-NAME, CREATE-TAG and CREATE-NO-TAG",
	rules.AuthNearMiss:       whyTokens,
	rules.AuthUnknown:        whyTokens,
	rules.AuthSchemeCase:     whyTokens,
	rules.ResponseTimely:     "a time limit is the suite's to set; an upstream that does not answer within --timeout gets the proxy's own 502, counted apart and never as the service's",
	rules.OpenReusedID:       whyOpen,
	rules.OpenJSONReader:     whyOpen,
	rules.OpenIntegralID:     whyOpen,
}
