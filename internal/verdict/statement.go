package verdict

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// StatementJSON is the conformance statement a verdict writes beside its
// reports: an in-toto Statement v1 whose subjects are the reports it
// vouches for and the OpenAPI document, and whose predicate is the
// verdict's (Predicate).
const StatementJSON = "conformance.intoto.json"

// PredicateType is the type of the statement's predicate; its schema is
// conformance.schema.json. A change that a reader of v1 cannot read is v2.
const PredicateType = "https://plantcheck.dev/conformance/v1"

// OpenAPIName is the subject's name for the OpenAPI document judged
// against (plantcheck spec prints it).
const OpenAPIName = "openapi.yaml"

// Subjects are the files of the report folder the statement vouches for,
// by sha256 of the bytes written.
var Subjects = []string{SummaryJSON, JUnitXML, ReportHTML}

// Predicate is what the statement says of a verdict: who judged, with
// which suite, against which target, with which outcome, and how strong
// the suite is. conformance.schema.json is its schema.
type Predicate struct {
	Plantcheck struct {
		Version string `json:"version"`
	} `json:"plantcheck"`
	Spec  SpecID         `json:"spec"`
	Suite PredicateSuite `json:"suite"`
	// Target is the target as given, its credentials stripped.
	Target    string `json:"target"`
	Reference bool   `json:"reference"`
	// Driver is the command that judged: run, proxy, judge or merge.
	Driver string         `json:"driver"`
	Scope  PredicateScope `json:"scope"`
	// Seed is a string: a 64-bit seed does not survive a JSON number in
	// every reader (the statement's own protobuf Struct among them).
	Seed    string          `json:"seed"`
	Started string          `json:"started"`
	Ended   string          `json:"ended"`
	Rules   []PredicateRule `json:"rules"`
	Verdict struct {
		Status   string `json:"status"`
		Sentence string `json:"sentence"`
		ExitCode int    `json:"exitCode"`
	} `json:"verdict"`
	// Strength is the suite's strength as this build carries it; absent
	// when the build carries none.
	Strength *strength.Figures `json:"strength,omitempty"`
}

// PredicateSuite names the suite: the features and the rule catalog, and
// the digest over both (SuiteDigest).
type PredicateSuite struct {
	SHA256   string     `json:"sha256"`
	Features FeaturesID `json:"features"`
	Rules    struct {
		SHA256 string `json:"sha256"`
		Count  int    `json:"count"`
	} `json:"rules"`
}

// PredicateScope is what was judged: certified (every rule), partial
// (run --tags, Tags then says which), traffic (proxy, judge, merge) or
// none (could not run).
type PredicateScope struct {
	Kind string `json:"kind"`
	Tags string `json:"tags"`
}

// PredicateRule is one rule's level and outcome.
type PredicateRule struct {
	ID      rules.RuleID `json:"id"`
	Level   rules.Level  `json:"level"`
	Outcome Outcome      `json:"outcome"`
}

// Predicate is the predicate of the statement about v.
func (v *Verdict) Predicate() Predicate {
	var p Predicate
	p.Plantcheck, p.Spec, p.Suite.Features = v.Plantcheck, v.Spec, v.Features
	p.Suite.Rules.SHA256, p.Suite.Rules.Count = CatalogDigest(), len(rules.Catalog)
	p.Suite.SHA256 = SuiteDigestOf(p.Suite.Features.SHA256, p.Suite.Rules.SHA256)
	p.Target, p.Reference = StripCredentials(v.Target), v.Reference
	p.Driver = cmp.Or(v.Command, string(v.Driver))
	p.Scope = PredicateScope{Kind: v.Scope, Tags: v.Config.Tags}
	p.Seed = strconv.FormatUint(v.Seed, 10)
	p.Started, p.Ended = v.Started.UTC().Format(time.RFC3339Nano), v.Ended.UTC().Format(time.RFC3339Nano)
	p.Rules = make([]PredicateRule, len(v.Rules))
	for i, r := range v.Rules {
		p.Rules[i] = PredicateRule{r.ID, r.Level, r.Outcome}
	}
	p.Verdict.Status, p.Verdict.Sentence, p.Verdict.ExitCode = v.Status, v.Verdict, v.ExitCode
	p.Strength = v.Strength
	return p
}

// StripCredentials is a target URL without its user information and with
// the values of its credential query parameters (token=, api_key=, ...)
// replaced; a target that is no URL (recorded traffic, the reference) is
// left as it is.
func StripCredentials(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return target
	}
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		for name := range q {
			if exchange.IsCredential(name) {
				q[name] = []string{"REDACTED"}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Statement is the in-toto Statement v1 about v, whose subjects are the
// report files given (name to the bytes written) and the OpenAPI
// document, written as indented JSON.
func (v *Verdict) Statement(files map[string][]byte) ([]byte, error) {
	st := &intoto.Statement{Type: intoto.StatementTypeUri, PredicateType: PredicateType}
	for _, name := range Subjects {
		b, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("no %s to vouch for", name)
		}
		st.Subject = append(st.Subject, &intoto.ResourceDescriptor{Name: name, Digest: map[string]string{"sha256": SHA256Hex(b)}})
	}
	st.Subject = append(st.Subject, &intoto.ResourceDescriptor{
		Name: OpenAPIName, Digest: map[string]string{"sha256": SHA256Hex(spec.Document())}, MediaType: "application/yaml",
	})
	pred, err := json.Marshal(v.Predicate())
	if err != nil {
		return nil, err
	}
	st.Predicate = &structpb.Struct{}
	if err := protojson.Unmarshal(pred, st.Predicate); err != nil {
		return nil, fmt.Errorf("predicate: %w", err)
	}
	if err := st.Validate(); err != nil {
		return nil, err
	}
	b, err := protojson.Marshal(st)
	if err != nil {
		return nil, err
	}
	// protojson varies its spacing on purpose; indent it the one way.
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// ReadStatement reads a statement written by Statement: an in-toto
// Statement v1 with a predicate of PredicateType that follows
// conformance.schema.json. It returns the statement's subjects (name to
// sha256) and its predicate.
func ReadStatement(b []byte) (map[string]string, *Predicate, error) {
	var st intoto.Statement
	if err := protojson.Unmarshal(b, &st); err != nil {
		return nil, nil, fmt.Errorf("not an in-toto statement: %w", err)
	}
	if err := st.Validate(); err != nil {
		return nil, nil, fmt.Errorf("not a valid in-toto Statement: %w", err)
	}
	if st.GetPredicateType() != PredicateType {
		return nil, nil, fmt.Errorf("predicate type %q, not %s", st.GetPredicateType(), PredicateType)
	}
	subjects := map[string]string{}
	for _, s := range st.GetSubject() {
		subjects[s.GetName()] = s.GetDigest()["sha256"]
	}
	pred, err := protojson.Marshal(st.GetPredicate())
	if err != nil {
		return nil, nil, err
	}
	if err := CheckPredicate(pred); err != nil {
		return nil, nil, fmt.Errorf("the predicate does not follow conformance.schema.json: %w", err)
	}
	var p Predicate
	if err := json.Unmarshal(pred, &p); err != nil {
		return nil, nil, fmt.Errorf("predicate: %w", err)
	}
	return subjects, &p, nil
}
