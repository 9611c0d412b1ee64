package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// ErrCannotCheck is what every failure to check a statement is
// (errors.Is): a file missing or unreadable, a statement that is no
// plantcheck conformance statement (exit status 2).
var ErrCannotCheck = errors.New("could not check")

// BundleName is the name the GitHub Action keeps its attestation's Sigstore
// bundle under, in the report folder beside the statement it signs
// (plantcheck verify --bundle checks it).
const BundleName = "conformance.sigstore.json"

// MaxStatement bounds a conformance statement plantcheck reads.
const MaxStatement = 4 << 20

// Verification is what plantcheck verify found of a report folder: the
// statement's predicate, and each thing in which the statement and the
// reports (or this build) differ.
type Verification struct {
	Dir       string
	Predicate *verdict.Predicate
	// Differences name each thing that differs, a line each; none: the
	// statement holds.
	Differences []string
}

// Holds reports whether the statement and the reports agree.
func (v *Verification) Holds() bool { return len(v.Differences) == 0 }

func (v *Verification) differ(format string, args ...any) {
	v.Differences = append(v.Differences, fmt.Sprintf(format, args...))
}

// Verify checks, offline, that the conformance statement in dir
// (conformance.intoto.json) and the reports beside it agree: every
// subject's sha256 against the file, the OpenAPI document's against the
// spec the predicate names, the verdict and every rule's level and outcome
// against summary.json; and that the suite and the spec it names are the
// ones this build carries (when not, the difference names the plantcheck
// version that made the statement). An error (ErrCannotCheck) means it
// could not check at all.
func Verify(dir string) (*Verification, error) {
	raw, err := ReadBounded(filepath.Join(dir, verdict.StatementJSON), MaxStatement)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotCheck, err)
	}
	subjects, p, err := verdict.ReadStatement(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrCannotCheck, verdict.StatementJSON, evidence.Text(evidence.Cut(err.Error(), 1<<9)))
	}
	res := &Verification{Dir: dir, Predicate: p}
	files := map[string][]byte{}
	for _, name := range verdict.Subjects {
		want, ok := subjects[name]
		if !ok {
			res.differ("%s: the statement does not vouch for it", name)
			continue
		}
		b, err := ReadBounded(filepath.Join(dir, name), MaxSummary)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCannotCheck, err)
		}
		files[name] = b
		if got := verdict.SHA256Hex(b); got != want {
			res.differ("%s: its sha256 is %s, the statement vouches for %s", name, Short(got), Short(want))
		}
	}
	if got, ok := subjects[verdict.OpenAPIName]; !ok {
		res.differ("%s: the statement does not vouch for the OpenAPI document", verdict.OpenAPIName)
	} else if got != p.Spec.SHA256 {
		res.differ("%s: the subject's sha256 %s is not the predicate's spec, %s", verdict.OpenAPIName, Short(got), Short(p.Spec.SHA256))
	}
	sum, err := Read(files[verdict.SummaryJSON])
	switch {
	case err != nil && res.Holds():
		return nil, fmt.Errorf("%w: %s: %v", ErrCannotCheck, verdict.SummaryJSON, err)
	case err != nil:
		// It is not the file vouched for, which the digest said.
		res.differ("%s: not readable as a summary.json: %v", verdict.SummaryJSON, err)
	default:
		res.against(sum, p)
	}
	res.againstBuild(p)
	return res, nil
}

// against names each thing in which summary.json and the predicate differ.
func (res *Verification) against(v *verdict.Verdict, p *verdict.Predicate) {
	q := v.Predicate()
	pairs := []struct {
		what        string
		got, stated any
	}{
		{"plantcheck version", q.Plantcheck.Version, p.Plantcheck.Version},
		{"spec", q.Spec, p.Spec},
		{"features", q.Suite.Features, p.Suite.Features},
		{"target", q.Target, p.Target},
		{"reference", q.Reference, p.Reference},
		{"scope", q.Scope, p.Scope},
		{"seed", q.Seed, p.Seed},
		{"started", q.Started, p.Started},
		{"ended", q.Ended, p.Ended},
		{"verdict status", q.Verdict.Status, p.Verdict.Status},
		{"verdict", q.Verdict.Sentence, p.Verdict.Sentence},
		{"exit status", q.Verdict.ExitCode, p.Verdict.ExitCode},
		{"suite strength", jsonText(q.Strength), jsonText(p.Strength)},
	}
	for _, pr := range pairs {
		if got, stated := jsonText(pr.got), jsonText(pr.stated); got != stated {
			res.differ("%s: summary.json says %s, the statement %s", pr.what, quote(got), quote(stated))
		}
	}
	if d := verdict.Driver(p.Driver); d != v.Driver && !(v.Driver == verdict.Proxy && (p.Driver == "judge" || p.Driver == "merge")) {
		res.differ("driver: summary.json says %s, the statement %s", quote(string(v.Driver)), quote(p.Driver))
	}
	stated := map[rules.RuleID]verdict.PredicateRule{}
	for _, r := range p.Rules {
		stated[r.ID] = r
	}
	for _, r := range q.Rules {
		s, ok := stated[r.ID]
		delete(stated, r.ID)
		switch {
		case !ok:
			res.differ("rule %s: summary.json gives it %s, the statement does not name it", r.ID, r.Outcome)
		case s.Outcome != r.Outcome:
			res.differ("rule %s: summary.json says %s, the statement %s", r.ID, r.Outcome, s.Outcome)
		case s.Level != r.Level:
			res.differ("rule %s: summary.json gives level %s, the statement %s", r.ID, r.Level, s.Level)
		}
	}
	for _, r := range p.Rules {
		if _, ok := stated[r.ID]; ok {
			res.differ("rule %s: the statement says %s, summary.json does not name it", evidence.Text(string(r.ID)), r.Outcome)
		}
	}
}

// againstBuild names the suite and the spec the statement was judged
// with when they are not this build's: this plantcheck cannot vouch for
// another suite's verdict; the plantcheck version that made it can.
func (res *Verification) againstBuild(p *verdict.Predicate) {
	made := "plantcheck " + quote(p.Plantcheck.Version)
	if got := verdict.SuiteDigestOf(p.Suite.Features.SHA256, p.Suite.Rules.SHA256); got != p.Suite.SHA256 {
		res.differ("suite: the statement's suite digest %s is not the digest of its features and rules (%s)", Short(p.Suite.SHA256), Short(got))
	}
	if own := verdict.SuiteDigest(); p.Suite.SHA256 != own {
		res.differ("suite: judged with suite %s by %s; this build carries suite %s: verify with that version", Short(p.Suite.SHA256), made, Short(own))
	}
	if own := verdict.SHA256Hex(spec.Document()); p.Spec.SHA256 != own {
		res.differ("spec: judged against an OpenAPI document of sha256 %s by %s; this build carries %s: verify with that version", Short(p.Spec.SHA256), made, Short(own))
	}
}

// WriteText writes what verify found: each difference, then one line.
func (res *Verification) WriteText(w io.Writer) {
	p := res.Predicate
	if !res.Holds() {
		for _, d := range res.Differences {
			fmt.Fprintf(w, "differs: %s\n", evidence.Text(d))
		}
		fmt.Fprintf(w, "DOES NOT HOLD: %s: %s\n", evidence.Text(filepath.Join(res.Dir, verdict.StatementJSON)), verdict.Plural(int64(len(res.Differences)), "difference"))
		return
	}
	fmt.Fprintf(w, "subjects: %s and %s match the statement's sha256\n", strings.Join(verdict.Subjects, ", "), verdict.OpenAPIName)
	fmt.Fprintf(w, "judged by: plantcheck %s, suite %s, %s (%s)\n", evidence.Text(p.Plantcheck.Version), Short(p.Suite.SHA256), evidence.Text(p.Driver), evidence.Text(p.Scope.Kind))
	fmt.Fprintf(w, "target: %s\n", evidence.Text(p.Target))
	if s := p.Strength; s != nil {
		fmt.Fprintf(w, "suite strength: %s\n", evidence.Text(s.Line()))
	}
	fmt.Fprintf(w, "HOLDS: the statement and the reports agree: %s (exit status %d)\n", evidence.Text(p.Verdict.Sentence), p.Verdict.ExitCode)
}

// ReadBounded reads a file of at most max bytes.
func ReadBounded(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, max)
	}
	return b, nil
}

// Short is a digest's first 12 hex digits, enough to tell two apart.
func Short(d string) string { return d[:min(len(d), 12)] }

func jsonText(x any) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// quote is a value read from a file, bounded and escaped.
func quote(s string) string { return evidence.Text(evidence.Cut(s, 200)) }
