// Package steps holds the godog step definitions that drive the Plant Store
// features against any base URL, known only by that URL and a bearer token
// (it never imports the reference server). A step builds and sends a
// request (package client) and asks the one judge (package judge) about the
// rules its scenario names; the judge holds every request to the document,
// so that a scenario meant as valid sends a valid request, and every
// response whatever the scenario.
package steps

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cucumber/godog"

	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/generate"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// DefaultMaxBody bounds how much of a response body is read: a larger or
// endless body is a failure, not a memory problem.
const DefaultMaxBody = 1 << 20

// Why a scenario was not run, as its note says.
const (
	NotRunInterrupted = "the run was interrupted"
	NotRunSilent      = "the target failed to answer"
	NotRunThrottled   = "the target throttled the run past plantcheck's bound"
)

// The kinds of a skip (Result.Skip), with client.ErrThrottled, for errors.Is:
// why a scenario was not judged, whatever its note says.
var (
	ErrInterrupted = errors.New(NotRunInterrupted)
	ErrSilent      = errors.New(NotRunSilent)
	// ErrInconclusive: the answers could not decide the rule.
	ErrInconclusive = errors.New("inconclusive")
	// ErrNotApplicable: a reason of the scenario's own (a token too short
	// for a variant), said in its note.
	ErrNotApplicable = errors.New("not applicable")
	// ErrNameReused is the kind of a judged scenario's note (Result.Noted):
	// the target refused a valid request for a name it had stored, and
	// accepted it under another.
	ErrNameReused = errors.New(NoteNameReused)
)

// Throttling reports the throttling the run met.
func (s *Suite) Throttling() client.Throttling { return s.client.Throttling() }

// Faults reports the connection faults the run met.
func (s *Suite) Faults() client.Faults { return s.client.Faults() }

// breakerThreshold is how many answers in a row may fail to arrive before
// the remaining scenarios are not run: a target that never answers ends
// the run in a few time limits, not one per scenario.
const breakerThreshold = 3

// Config is what the steps need to drive one target.
type Config struct {
	// BaseURL is the target's base address; the operation's path is
	// appended to its path ("https://host/api" → "https://host/api/plants").
	BaseURL string
	Token   string // the bearer token the target issued: never printed
	// Client sends every request; its Timeout is the time limit of one
	// exchange. It must not follow redirects.
	Client    *http.Client
	Validator *spec.Validator
	Seed      uint64 // makes fresh ids and foreign tokens reproducible
	// IDSalt keeps this run's fresh ids apart from another run's with the
	// same seed; 0 draws one (docgen's examples fix it).
	IDSalt   uint64
	Examples int // valid bodies per generated scenario; 0: config.DefaultExamples
	// Headers are sent on every request (a gateway's key): secrets, never
	// printed, that never replace a header a scenario sets or leaves out.
	Headers http.Header
	// AllStrings sends every string of the hostile-string catalog.
	AllStrings bool
	Without    []string // checks to leave out (config.Removable)
	// Rate, InFlight, Throttle, Notice and Clock are client.Config's.
	Rate     float64
	InFlight int
	Throttle client.Throttle
	Notice   func(line string)
	Clock    client.Clock
	// CurlFlags are the connection's settings a curl reproduction needs
	// (--cacert FILE, --cert FILE --key FILE, --proxy URL), shell-quoted.
	CurlFlags  []string
	OnScenario func(Result) // each scenario's result, possibly concurrently
}

// Result is how one scenario ended and the evidence for it.
type Result struct {
	ID       string // godog's pickle id: its order in the features
	Name     string
	URI      string
	Rule     rules.Rule
	Outcome  Outcome
	Failures []*Failure
	Err      error
	Note     string
	// Skip and Noted are the kinds, for errors.Is, of a skip (ErrSilent
	// and the rest) and of a judged scenario's note (ErrNameReused).
	Skip, Noted error
	Duration    time.Duration
	Exchanges   []*Sent
	// Judgements are the one judge's of every exchange: what the verdict
	// counts.
	Judgements []judge.Result
	// Judged: the scenario passed or failed, and one of its exchanges has
	// a judgement by its own rule (not so when another rule's failure, or
	// an answer that did not come, stopped it).
	Judged bool
	// SetupFailed: the create the scenario needs first was not accepted,
	// so its own rule was not judged.
	SetupFailed bool
}

// Suite registers the steps for one run against one target.
type Suite struct {
	cfg       Config
	plantsURL string
	shape     *generate.Shape // what the document asks of a request body
	// red hides the token and every credential near it that the suite
	// sends.
	red *evidence.Redactor
	// silent counts answers in a row that did not arrive; at
	// breakerThreshold the remaining scenarios are skipped (tripped).
	silent  atomic.Int32
	tripped atomic.Bool
	// storedIDs and storedNames: whether the target refuses a reused id,
	// and a reused name (refusesStored).
	storedIDs, storedNames struct {
		once    sync.Once
		refuses int // the status of the refusal (a 4xx); 0: none
	}
	client *client.Client
}

// New prepares a suite. Its configuration comes validated
// (config.Run.Validate).
func New(cfg Config) (*Suite, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("base URL: %w", err)
	}
	switch {
	case cfg.Client == nil:
		return nil, errors.New("an HTTP client is required")
	case cfg.Validator == nil:
		return nil, errors.New("a validator is required (spec.Default)")
	}
	cfg.Examples = cmp.Or(cfg.Examples, config.DefaultExamples)
	cfg.IDSalt = cmp.Or(cfg.IDSalt, rand.Uint64()|1)
	u.Path, u.RawPath = strings.TrimSuffix(u.Path, "/")+"/plants", ""
	s := &Suite{cfg: cfg, plantsURL: u.String()}
	secrets := []string{cfg.Token}
	// A variant that holds the token whole is hidden by the token's own
	// windows; as a secret of its own it would hide the text beside it too.
	for _, v := range nearMissesOf(cfg.Token) {
		if !strings.Contains(v, cfg.Token) {
			secrets = append(secrets, v)
		}
	}
	for _, vs := range cfg.Headers {
		secrets = append(secrets, vs...)
	}
	s.red = evidence.New(secrets...)
	s.client = client.New(cfg.Client, client.Config{
		Rate: cfg.Rate, InFlight: cfg.InFlight, Throttle: cfg.Throttle, MaxBody: DefaultMaxBody, Notice: cfg.Notice, Redactor: s.red, Clock: cfg.Clock,
	})
	if s.shape, err = generate.Of(cfg.Validator, http.MethodPost, "/plants"); err != nil {
		return nil, fmt.Errorf("read the request schema: %w", err)
	}
	return s, nil
}

// PlantsURL is the address the suite posts to.
func (s *Suite) PlantsURL() string { return s.plantsURL }

// request is the request a scenario is building. A new plant starts a new
// one as a whole, so that no field of it outlives its request.
type request struct {
	generate.Case      // the body: its members, or Raw when set
	fixedID       bool // id set by the scenario, not drawn fresh: may be reused
	// setup: a create the scenario needs first, or a probe's (its refusal
	// is CREATE-200's); probe: one whose refusal is never for what the
	// target stored; probeRefusal: why the probe may be refused; caseOf:
	// the generated rule it is a case of.
	setup        bool
	probe        bool
	probeRefusal string
	caseOf       rules.RuleID

	cred    *credential // nil: the user's bearer token
	chunked bool        // the body without a Content-Length
	// header is every header the scenario sets (but Authorization), by its
	// canonical name; nil values send none.
	header http.Header
	// tokenIn says where the token goes instead of the Authorization
	// header, and tokenName under what name.
	tokenIn   tokenPlace
	tokenName string
	label     string // what the request is, for the evidence
}

// state is one scenario's, kept in its context.
type state struct {
	// Result as the steps make it; the after-hook completes it.
	Result
	rng *rand.Rand
	ids *rand.Rand // fresh ids: the seed's stream, salted per run
	// idsMu guards ids: a scenario's generated cases go at once.
	idsMu sync.Mutex
	req   request

	cases []*generate.Case // generated bodies, and their exchanges
	caseX []*Sent

	// defects are the suite's own faults met in the scenario: the scenario
	// is then an error, whatever else it saw.
	defects []string
	skipped string // a skip's note and kind (skipFor)
	skip    error
	started time.Time
	// mayRefuse: why a refusal of the scenario's valid requests is the
	// service's right, as its tags say.
	mayRefuse string
	// probes are the exchanges sent to learn what the target refuses
	// while this scenario asked: judged with the scenario's.
	mu     sync.Mutex
	probes []*Sent
}

type stateKey struct{}

func (st *state) last() *Sent {
	if len(st.Exchanges) == 0 {
		return nil
	}
	return st.Exchanges[len(st.Exchanges)-1]
}

func stateOf(ctx context.Context) *state {
	st, _ := ctx.Value(stateKey{}).(*state)
	if st == nil {
		st = &state{}
	}
	return st
}

// stepDef is one step: its pattern and its function.
type stepDef struct {
	pattern string
	fn      any
}

// stepDefs lists every step of the features, area by area: the functions
// live in the area's file; a step that only sets a value of the request,
// or asks the judge about named rules, is written here, in its row.
func (s *Suite) stepDefs() []stepDef {
	req := func(ctx context.Context) *request { return &stateOf(ctx).req }
	return []stepDef{
		// body.go
		{`^a new plant with a fresh id and the name "([^"]*)"$`, s.aNewPlantNamed},
		// A name drawn afresh, as an id is: no plant another scenario, or
		// another run, stored can change how a request is answered (a
		// service that de-duplicates by name before it checks the rest).
		{`^a new plant with a fresh id and a fresh name beginning "([^"]*)"$`, func(ctx context.Context, name string) {
			s.aNewPlantNamed(ctx, name+" #"+strconv.FormatInt(stateOf(ctx).freshID(), 36))
		}},
		{`^a new plant with a fresh id, the name "([^"]*)" and the tag "([^"]*)"$`, func(ctx context.Context, name, tag string) {
			s.aNewPlantNamed(ctx, name)
			req(ctx).Set("tag", jsonString(tag))
		}},
		{`^a plant with a fresh id and the name "([^"]*)" has been created$`, func(ctx context.Context, name string) error { return s.created(ctx, name, false) }},
		{`^a new plant with the same id and the name "([^"]*)"$`, s.aNewPlantWithTheSameID},
		{`^the field "(\w+)" is left out$`, func(ctx context.Context, name string) {
			req(ctx).Members = slices.DeleteFunc(req(ctx).Members, func(m generate.Member) bool { return m.Name == name })
		}},
		{`^the field "(\w+)" is the JSON value (.+)$`, s.theFieldIsTheJSONValue},
		{`^the field "id" is a fresh negative id$`, func(ctx context.Context) { s.setID(ctx, "-", "") }},
		{`^the field "id" is the fresh id written with a zero fraction$`, func(ctx context.Context) { s.setID(ctx, "", ".0") }},
		// A value of the wrong type that a lenient reader makes an id or a
		// name of (a string's digits, a number, an array's one member, a
		// fraction cut) is fresh too: refused on a later run as a duplicate
		// of what the first stored, it would pass.
		{`^the field "id" is the fresh id written as a JSON string$`, func(ctx context.Context) { s.setID(ctx, `"`, `"`) }},
		{`^the field "id" is the fresh id in a JSON array$`, func(ctx context.Context) { s.setID(ctx, "[", "]") }},
		{`^the field "id" is the fresh id with the fraction \.5$`, func(ctx context.Context) { s.setID(ctx, "", ".5") }},
		{`^the field "name" is a fresh number$`, func(ctx context.Context) {
			req(ctx).Set("name", json.RawMessage(strconv.FormatInt(stateOf(ctx).freshID(), 10)))
		}},
		{`^the field "name" is an array of one fresh name$`, func(ctx context.Context) {
			req(ctx).Set("name", json.RawMessage(`["Fern #`+strconv.FormatInt(stateOf(ctx).freshID(), 36)+`"]`))
		}},
		{`^the field "(\w+)" is a string of (\d+) characters$`, func(ctx context.Context, name string, n int) {
			const pattern = "Monstera deliciosa "
			req(ctx).Set(name, jsonString(strings.Repeat(pattern, n/len(pattern)+1)[:n]))
		}},
		{`^the field "(\w+)" is "(.)" written (\d+) times$`, func(ctx context.Context, name, char string, n int) {
			req(ctx).Set(name, jsonString(strings.Repeat(char, n)))
		}},
		{`^the body is cut short after its first (\d+) bytes$`, func(ctx context.Context, n int) { b := req(ctx).Body(); req(ctx).setRaw(b[:min(n, len(b))]) }},
		{`^the body is empty$`, func(ctx context.Context) { req(ctx).setRaw(nil) }},
		{`^the body is wrapped in a JSON array$`, func(ctx context.Context) { req(ctx).setRaw(append(append([]byte("["), req(ctx).Body()...), ']')) }},
		{`^the body is the JSON text (.+)$`, s.theBodyIsTheJSONText},
		{`^nothing else is changed$`, func() {}},
		{`^the body carries (\d+) more members of (\d+) characters each$`, s.theBodyCarriesMoreMembers},
		// n arrays, each in the one before: the document leaves other
		// members free, and the depth of their values too.
		{`^the body carries a member nested (\d+) levels deep$`, func(ctx context.Context, n int) {
			req(ctx).Members = append(req(ctx).Members, generate.Member{Name: "nested", Raw: json.RawMessage(strings.Repeat("[", n) + strings.Repeat("]", n))})
		}},
		// A config.PaddingHeader of n characters: a header as long as real
		// requests' cookies and tokens grow.
		{`^the request carries a header of (\d+) characters that the contract does not name$`, func(ctx context.Context, n int) { req(ctx).setHeader(config.PaddingHeader, strings.Repeat("x", n)) }},
		// spelling.go
		{`^the field "(\w+)" is sent under the key "([^"]*)"$`, s.theFieldIsSentUnderTheKey},
		{`^the body is written with (.+)$`, s.theBodyIsWrittenWith},
		{`^the request is presented with (.+)$`, s.theRequestIsPresentedWith},
		// auth.go
		{`^the request carries no Authorization header$`, func(ctx context.Context) { req(ctx).cred = &credential{} }},
		{`^the request carries no Authorization header, only the cookies the service set$`, s.theRequestCarriesOnlyTheCookies},
		{`^the request carries no Authorization header, only the valid token (in the query string|in the body|in a header|after Bearer in a header|in a cookie), as ([A-Za-z0-9_-]+)$`, s.theRequestCarriesTheTokenElsewhere},
		{`^the request carries the valid token in the "(\w+)" scheme$`, func(ctx context.Context, scheme string) { req(ctx).cred = s.token(scheme+" ", "", false) }},
		{`^the request carries the valid token without a scheme$`, func(ctx context.Context) { req(ctx).cred = s.token("", " (no scheme)", false) }},
		{`^the request carries the valid token right after "Bearer", without a space$`, func(ctx context.Context) { req(ctx).cred = s.token("Bearer", " (no space)", false) }},
		{`^the request carries the valid token after "Bearer" and a tab, not a space$`, func(ctx context.Context) { req(ctx).cred = s.token("Bearer\t", " (a tab, no space)", false) }},
		{`^the request carries the issued token (.+)$`, s.theRequestCarriesTheIssuedToken},
		{`^the request carries the Bearer scheme with an empty credential$`, func(ctx context.Context) {
			req(ctx).cred = &credential{value: "Bearer ", Credential: exchange.Credential{Desc: "Bearer (empty credential)", Shell: "Bearer "}}
		}},
		{`^the request carries a bearer token the service did not issue$`, s.theRequestCarriesAForeignToken},
		{`^a plant with a fresh id and the name "([^"]*)" has been created under a fresh Idempotency-Key$`, func(ctx context.Context, name string) error { return s.created(ctx, name, true) }},
		{`^the request repeats the accepted one byte for byte$`, s.theRequestRepeatsTheAcceptedOne},
		{`^a new plant with a fresh id and the name of the accepted one$`, s.aNewPlantWithTheAcceptedName},
		// The issued token under the Bearer scheme in another letter case
		// (AUTH-SCHEME-CASE): the credential the service issued, as HTTP
		// reads it, so an accepted answer is judged as any accepted create.
		{`^the request writes the scheme "(bearer|BEARER)" before the issued token$`, func(ctx context.Context, scheme string) { req(ctx).cred = s.token(scheme+" ", "", true) }},
		// media.go
		{`^the request declares the media type "(.*)"$`, func(ctx context.Context, mt string) { req(ctx).setHeader("Content-Type", mt) }},
		{`^the request declares no media type$`, func(ctx context.Context) { req(ctx).setHeader("Content-Type") }},
		{`^the request accepts "(.*)"$`, func(ctx context.Context, accept string) { req(ctx).setHeader("Accept", accept) }},
		{`^the plant is sent as (a URL-encoded form|a multipart form)$`, s.thePlantIsSentAsAForm},
		// RESPONSE-MEDIA's whichever scenario asks; the judge judges a refusal
		// of a valid request for a long header at HEADER-SIZE's level.
		{`^the response media type is application/json$`, s.asks(rules.ResponseMedia, rules.HeaderSize)},
		// send.go
		{`^the client posts it to /plants$`, s.theClientPostsIt},
		// generated.go
		{`^generated valid plants with (typical|boundary) values$`, s.generatedValidPlants},
		{`^generated bodies that each break one rule of the schema$`, func(ctx context.Context) {
			st := stateOf(ctx)
			st.req.caseOf, st.cases = rules.GenInvalid, s.generator(st).Invalid()
		}},
		{`^each is posted to /plants$`, s.eachIsPosted},
		{`^each is (?:accepted and echoed exactly|rejected with an Error record)$`, s.eachIsAnsweredAsItShould},
		// hostile.go
		{`^the fixed (name|tag)s and a drawn (?:name|tag) of each category of the catalog of hostile strings$`, s.aStringFromEachCategory},
		// records.go: a valid request with a long header is judged at
		// HEADER-SIZE's level in ERROR-RECORD's place; a request of a size
		// the spec sets no limit on may get 200 with a Plant record or 400
		// with an Error record, any other answer being undocumented.
		{`^the response status is (\d+)$`, func(ctx context.Context, want int) error { return s.statusIs(ctx, want, false) }},
		{`^the response is a Plant record$`, s.asks(rules.Create200)},
		{`^the plant has no id$`, s.asks(rules.CreateNoID)},
		{`^the response is an Error record$`, s.asks(rules.HeaderSize, rules.ErrorRecord)},
		{`^the response conforms to the document$`, s.asks(rules.ResponseDocumented)},
		{`^the response arrived within the time limit$`, func(ctx context.Context) error { _, err := s.response(stateOf(ctx)); return err }},
		{`^the answer is noted for information$`, s.theAnswerIsNoted},
		{`^the response is a Plant record echoing the plant, or an Error record$`, s.asks(rules.HeaderSize, rules.ErrorRecord, rules.ResponseDocumented)},
		// echo.go
		{`^the plant's name is the name sent$`, func(ctx context.Context) error { return s.echoStep(ctx, rules.CreateName) }},
		{`^the plant's tag is the tag sent$`, func(ctx context.Context) error { return s.echoStep(ctx, rules.CreateTag) }},
		{`^the plant has no tag$`, func(ctx context.Context) error { return s.echoStep(ctx, rules.CreateNoTag) }},
	}
}

// patterns holds every step pattern compiled, once per process: a process
// that runs the suite many times (selftest, the tests) compiles none again.
var patterns sync.Map // string → *regexp.Regexp

func compiled(pattern string) *regexp.Regexp {
	re, ok := patterns.Load(pattern)
	if !ok {
		re, _ = patterns.LoadOrStore(pattern, regexp.MustCompile(pattern))
	}
	return re.(*regexp.Regexp)
}

// InitializeSuite registers every step and hook once for the whole run:
// godog copies them into each scenario, where registering them per scenario
// would cost a runtime.Caller and a reflection check per step definition
// and scenario, 15% of godog's own time.
func (s *Suite) InitializeSuite(ctx *godog.TestSuiteContext) {
	sc := ctx.ScenarioContext()
	sc.Before(s.before)
	sc.After(s.after)
	for _, d := range s.stepDefs() {
		sc.Step(compiled(d.pattern), d.fn)
	}
}

// skipFor skips the scenario for a reason of kind (ErrSilent and the
// rest), which its note says.
func (st *state) skipFor(kind error, note string) error {
	st.skipped, st.skip = note, kind
	return fmt.Errorf("%w: %s", godog.ErrSkip, note)
}

// sizeTag marks the scenarios whose request is of a size the spec sets no
// limit on: a refusal of it, 400 with an Error record, is the service's
// right, so neither acceptance nor such a refusal is judged.
const (
	sizeTag       = "@size"
	mayRefuseSize = "a size the spec sets no limit on (Limits: not shown)"
)

func (s *Suite) before(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
	st := &state{started: time.Now(), rng: s.scenarioRand(sc, s.cfg.Seed), ids: s.scenarioRand(sc, s.cfg.Seed^s.cfg.IDSalt)}
	for _, t := range sc.Tags {
		if t.Name == sizeTag {
			st.mayRefuse = mayRefuseSize
		}
		if r, ok := rules.Lookup(rules.RuleID(strings.TrimPrefix(t.Name, "@"))); ok && st.Rule.ID == "" {
			st.Rule = r
		}
	}
	if st.Rule.ID == "" {
		st.Rule = rules.Rule{ID: "UNTAGGED", Level: rules.Must, Requirement: "(the scenario names no rule of the catalog)"}
	}
	ctx = context.WithValue(ctx, stateKey{}, st)
	if ctx.Err() != nil {
		return ctx, st.skipFor(ErrInterrupted, "not run: "+NotRunInterrupted)
	}
	if s.tripped.Load() {
		if t := s.client.Throttling(); t.Exceeded != "" {
			return ctx, st.skipFor(client.ErrThrottled, "not run: "+NotRunThrottled+" ("+t.Exceeded+")")
		}
		return ctx, st.skipFor(ErrSilent, fmt.Sprintf("not run: %s %d requests in a row", NotRunSilent, breakerThreshold))
	}
	return ctx, nil
}

// scenarioRand gives each scenario its own generator, from the seed and the
// scenario's identity, so that concurrency does not change what is sent.
func (s *Suite) scenarioRand(sc *godog.Scenario, seed uint64) *rand.Rand {
	h := fnv.New64a()
	io.WriteString(h, sc.Uri)
	io.WriteString(h, "\x00"+sc.Name+"\x00")
	io.WriteString(h, strings.Join(sc.AstNodeIds, ","))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

func (s *Suite) after(ctx context.Context, sc *godog.Scenario, err error) (context.Context, error) {
	st := stateOf(ctx)
	st.Exchanges = append(st.Exchanges, st.probes...)
	if slices.Contains(s.cfg.Without, config.WithoutMustEcho) {
		// The echo under the scenario's own rule, at its level, as
		// plantcheck judged it before the echo was a MUST: the self-test's
		// proof that a SHOULD scenario then hides a MUST breach.
		for _, x := range st.Exchanges {
			for i, r := range x.judged.Results {
				if slices.Contains(echoRules, r.Rule) {
					x.judged.Results[i].Rule = st.Rule.ID
				}
			}
		}
	}
	hookErr := s.unreported(st)
	res := st.Result
	res.ID, res.Name, res.URI, res.Duration = sc.Id, sc.Name, sc.Uri, time.Since(st.started)
	if err != nil {
		// The error may quote the target (a malformed answer): kept as
		// safe text, its kind kept for errors.Is and errors.As.
		err = &safeError{msg: s.safe(err.Error()), err: err}
	}
	var he *HarnessError
	switch {
	case len(st.defects) > 0:
		res.Outcome = Errored
		res.Err = &HarnessError{fmt.Errorf("%w: %s", ErrSuiteDefect, strings.Join(st.defects, "; "))}
	case len(st.Failures) > 0:
		res.Outcome = Failed
	case errors.As(err, &he):
		res.Outcome, res.Err = Errored, he
	case st.skipped != "" || errors.Is(err, godog.ErrSkip):
		res.Outcome, res.Note, res.Skip = Skipped, st.skipped, st.skip
	case err != nil:
		res.Outcome, res.Err = Errored, err
	default:
		res.Outcome = Passed
	}
	for _, x := range st.Exchanges {
		_, ok := x.JudgedBy(st.Rule.ID)
		res.Judged = res.Judged || ok && (res.Outcome == Passed || res.Outcome == Failed)
		res.Judgements = append(res.Judgements, x.judged.Results...)
		// Judged: only the bounded evidence outlives the scenario, so that
		// a run holds a few kilobytes an exchange whatever the target sends.
		x.header, x.judged.Violations = nil, nil
	}
	if s.cfg.OnScenario != nil {
		s.cfg.OnScenario(res)
	}
	return ctx, hookErr
}

// unreported lays every failed judgement no step reported, the first of
// each rule with how many exchanges broke it, so that a scenario shows
// every rule the one judge found broken, whichever step ran. It returns
// the first.
func (s *Suite) unreported(st *state) error {
	laid := map[rules.RuleID]bool{}
	for _, f := range st.Failures {
		laid[f.Rule.ID] = true
	}
	var first error
	for _, fd := range firstFailures(st.Exchanges, func(x *Sent) []judge.Result {
		return slices.DeleteFunc(slices.Clone(x.judged.Results), func(r judge.Result) bool { return r.OK() || laid[r.Rule] })
	}) {
		details := slices.Clone(fd.r.Details)
		if fd.x.Label != "" {
			details = append(details, "request: "+fd.x.Label)
		}
		if fd.n > 1 {
			details = append(details, fmt.Sprintf("%d of the %d exchanges of this scenario broke %s", fd.n, len(st.Exchanges), fd.r.Rule))
		}
		if f := s.fail(st, fd.r.Rule, fd.x, fd.r.Expected, fd.r.Actual, details...); first == nil {
			first = f
		}
	}
	return first
}

// firstFailure is a rule's first failed judgement among a scenario's
// exchanges, its exchange (the i-th), and how many the rule had.
type firstFailure struct {
	i int
	x *Sent
	r judge.Result
	n int
}

// firstFailures groups the failed judgements of each of xs (failed says
// which they are) by rule, in the order first met.
func firstFailures(xs []*Sent, failed func(*Sent) []judge.Result) []*firstFailure {
	var out []*firstFailure
	byRule := map[rules.RuleID]*firstFailure{}
	for i, x := range xs {
		for _, r := range failed(x) {
			if byRule[r.Rule] == nil {
				byRule[r.Rule] = &firstFailure{i: i, x: x, r: r}
				out = append(out, byRule[r.Rule])
			}
			byRule[r.Rule].n++
		}
	}
	return out
}

// fail records and returns a failure of rule (the scenario's own when ""),
// its evidence made safe. A rule the catalog lacks is a defect of the
// suite, an error: blaming another rule would be a wrong verdict.
func (s *Suite) fail(st *state, rule rules.RuleID, x *Sent, expected, actual string, details ...string) *Failure {
	r := st.Rule
	if rule != "" {
		cr, ok := rules.Lookup(rule)
		if !ok {
			st.defects = append(st.defects, fmt.Sprintf("a failure cites rule %q, which is not in the catalog", rule))
			cr = rules.Rule{ID: rule, Level: rules.Must, Requirement: "(not in the catalog: a defect of the suite)"}
		}
		r = cr
	}
	for i := range details {
		details[i] = s.safe(details[i])
	}
	f := &Failure{Rule: r, Expected: s.safe(expected), Actual: s.safe(actual), Details: details, Exchange: x}
	st.Failures = append(st.Failures, f)
	return f
}

// Redact hides the user's token, and every credential near it, in text
// that may quote the target.
func (s *Suite) Redact(text string) string { return s.red.String(text) }

// safe is a string that may hold what the target sent, made fit to keep
// and print: redacted, then cut, then escaped (package evidence).
func (s *Suite) safe(text string) string { return s.red.Safe(text, evidence.MaxText) }

// setRaw makes b the body sent, whatever the members say.
func (r *request) setRaw(b []byte) {
	if b == nil {
		b = []byte{} // an empty body, not the members'
	}
	r.Raw = b
}

// safeError is an error whose text is fit to print (redacted, cut,
// escaped) and whose chain is the original's.
type safeError struct {
	msg string
	err error
}

func (e *safeError) Error() string { return e.msg }
func (e *safeError) Unwrap() error { return e.err }
