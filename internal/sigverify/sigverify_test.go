package sigverify_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/sigverify"
	"github.com/plantcheck/plantcheck/internal/sigverify/sigtest"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

const workflow = "https://github.com/acme/plant-store/.github/workflows/conformance.yml@refs/heads/main"

// written writes a small verdict's reports into a folder and returns it.
func written(t *testing.T) string {
	t.Helper()
	v := &verdict.Verdict{Driver: verdict.Run, Target: "https://plants.example/", Seed: 7,
		Started: time.Unix(0, 0).UTC(), Ended: time.Unix(1, 0).UTC(), Scope: "certified"}
	v.Stamp("Plant Store API", "1.0.0")
	v.Rules = []verdict.Rule{{ID: "CREATE-200", Level: "must", Outcome: verdict.Pass}, {ID: "AUTH-MISSING", Level: "must", Outcome: verdict.Fail}}
	v.Finish()
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// asAttest is the statement actions/attest builds and signs: its own
// subjects (each file of subject-path, by its base name), the predicate
// extracted from the folder's statement; other bytes than the folder's.
func asAttest(t *testing.T, dir string, files ...string) []byte {
	t.Helper()
	var st struct {
		Predicate json.RawMessage `json:"predicate"`
	}
	if err := json.Unmarshal(read(t, dir, verdict.StatementJSON), &st); err != nil {
		t.Fatal(err)
	}
	var subjects []map[string]any
	for _, name := range files {
		h := sha256.Sum256(read(t, dir, name))
		subjects = append(subjects, map[string]any{"name": name, "digest": map[string]string{"sha256": hex.EncodeToString(h[:])}})
	}
	b, err := json.Marshal(map[string]any{
		"_type": "https://in-toto.io/Statement/v1", "subject": subjects,
		"predicateType": verdict.PredicateType, "predicate": st.Predicate,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// editStatement changes a statement's JSON through change.
func editStatement(t *testing.T, b []byte, change func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheck: a bundle verifies when a trusted Sigstore signed the folder's
// statement (or, as actions/attest does, its predicate and reports) by the
// identity given; a signature by another, over other bytes or of another
// statement is named and does not hold; what cannot be read is an error.
func TestCheck(t *testing.T) {
	t.Parallel()
	ss, err := sigtest.New()
	if err != nil {
		t.Fatal(err)
	}
	other, err := sigtest.New()
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := ss.TrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	otherRoot, err := other.TrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	withCT, err := ss.TrustedRootWithCTLog()
	if err != nil {
		t.Fatal(err)
	}
	sign := func(s *sigtest.Sigstore, identity, issuer string, opt sigtest.Options) func(t *testing.T, statement []byte) []byte {
		return func(t *testing.T, statement []byte) []byte {
			t.Helper()
			b, err := s.Attest(identity, issuer, statement, opt)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	byWorkflow := sign(ss, workflow, sigtest.Issuer, sigtest.Options{})
	type setup struct {
		dir, statement string // the folder, and its statement's bytes
	}
	tests := []struct {
		name string
		// bundle returns the bundle's bytes; nil: no bundle file.
		bundle func(t *testing.T, s setup) []byte
		root   []byte
		cfg    func(c *config.Verify)
		change func(t *testing.T, dir string)
		// want: what must be named; cannot: an error, not a verdict.
		holds  bool
		cannot bool
		want   []string
	}{
		{name: "the folder's statement, signed", holds: true, want: []string{"signed: ", workflow, sigtest.Issuer, "(transparency log)", "(timestamp authority)"},
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) }},
		{name: "as actions/attest signs it: the reports and the predicate", holds: true,
			bundle: func(t *testing.T, s setup) []byte {
				return byWorkflow(t, asAttest(t, s.dir, verdict.SummaryJSON, verdict.JUnitXML, verdict.ReportHTML, verdict.BadgeSVG))
			}},
		{name: "with a signed timestamp and no log, as GitHub's own Sigstore signs", holds: true, want: []string{"(timestamp authority)"},
			bundle: func(t *testing.T, s setup) []byte {
				return sign(ss, workflow, sigtest.Issuer, sigtest.Options{NoTlog: true})(t, []byte(s.statement))
			}},
		{name: "the identity by a regular expression", holds: true,
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) },
			cfg: func(c *config.Verify) {
				c.Identity, c.IdentityRegexp = "", `^https://github\.com/acme/plant-store/\.github/workflows/.*@refs/heads/main$`
			}},
		{name: "trusted roots as JSON lines, the signer's second", holds: true,
			root:   append(append(append([]byte{}, otherRoot...), '\n'), trusted...),
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) }},
		{name: "bundles as JSON lines, the second the folder's", holds: true,
			bundle: func(t *testing.T, s setup) []byte {
				b := sign(ss, "https://evil.example/", sigtest.Issuer, sigtest.Options{})(t, []byte(s.statement))
				return append(append(b, '\n'), byWorkflow(t, []byte(s.statement))...)
			}},
		{name: "signed by another identity", want: []string{"identity: signed by https://github.com/mallory/fork/", "not by the identity given"},
			bundle: func(t *testing.T, s setup) []byte {
				return sign(ss, "https://github.com/mallory/fork/.github/workflows/c.yml@refs/heads/main", sigtest.Issuer, sigtest.Options{})(t, []byte(s.statement))
			}},
		{name: "an identity vouched for by another issuer", want: []string{"identity: signed by", "issuer https://accounts.example"},
			bundle: func(t *testing.T, s setup) []byte {
				return sign(ss, workflow, "https://accounts.example", sigtest.Options{})(t, []byte(s.statement))
			}},
		{name: "a regular expression the identity does not match", want: []string{"identity: "},
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) },
			cfg:    func(c *config.Verify) { c.Identity, c.IdentityRegexp = "", `^https://github\.com/acme/other/` }},
		{name: "signed by a Sigstore the trusted root does not name", want: []string{"signature: "},
			bundle: func(t *testing.T, s setup) []byte {
				return sign(other, workflow, sigtest.Issuer, sigtest.Options{})(t, []byte(s.statement))
			}},
		{name: "a root that names a CT log, a certificate without an SCT", root: withCT, want: []string{"signature: ", "certificate timestamp"},
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) }},
		{name: "one byte of the signed statement", want: []string{"signature: "},
			bundle: func(t *testing.T, s setup) []byte {
				b, err := sigtest.Tamper(byWorkflow(t, []byte(s.statement)))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}},
		{name: "one byte of the folder's statement", want: []string{`predicate.target: the signed statement says "https://plants.example/", conformance.intoto.json says "https://plants.examplf/"`},
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) },
			change: func(t *testing.T, dir string) {
				b := read(t, dir, verdict.StatementJSON)
				i := strings.Index(string(b), "plants.example/")
				b[i+len("plants.exampl")] = 'f'
				write(t, filepath.Join(dir, verdict.StatementJSON), b)
			}},
		{name: "one byte of summary.json", want: []string{"summary.json: its sha256 is "},
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) },
			change: func(t *testing.T, dir string) {
				b := read(t, dir, verdict.SummaryJSON)
				b[len(b)-1] = ' '
				write(t, filepath.Join(dir, verdict.SummaryJSON), b)
			}},
		{name: "a signed statement of another rule outcome", want: []string{`predicate.rules[AUTH-MISSING].outcome: the signed statement says "pass", conformance.intoto.json says "fail"`},
			bundle: func(t *testing.T, s setup) []byte {
				return byWorkflow(t, editStatement(t, []byte(s.statement), func(m map[string]any) {
					for _, r := range m["predicate"].(map[string]any)["rules"].([]any) {
						if r := r.(map[string]any); r["id"] == "AUTH-MISSING" {
							r["outcome"] = "pass"
						}
					}
				}))
			}},
		{name: "a signed statement that leaves junit.xml out", want: []string{"junit.xml: the signed statement does not vouch for it"},
			bundle: func(t *testing.T, s setup) []byte {
				return byWorkflow(t, asAttest(t, s.dir, verdict.SummaryJSON, verdict.ReportHTML))
			}},
		{name: "a signed statement of another predicate type", want: []string{"no plantcheck conformance statement"},
			bundle: func(t *testing.T, s setup) []byte {
				return byWorkflow(t, editStatement(t, []byte(s.statement), func(m map[string]any) {
					m["predicateType"] = "https://slsa.dev/provenance/v1"
				}))
			}},
		{name: "no bundle file", cannot: true, want: []string{"--bundle: ", "no such file"}},
		{name: "a bundle that is not JSON", cannot: true, want: []string{"--bundle: ", "not JSON"},
			bundle: func(*testing.T, setup) []byte { return []byte("{not json") }},
		{name: "JSON that is no bundle", cannot: true, want: []string{"--bundle: ", "not a Sigstore bundle"},
			bundle: func(*testing.T, setup) []byte { return []byte(`{"mediaType":"text/plain"}`) }},
		{name: "a trusted root that is none", cannot: true, root: []byte(`{"mediaType":"x"}`), want: []string{"--trusted-root: ", "not a Sigstore trusted root"},
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) }},
		{name: "a folder without a statement", cannot: true, want: []string{verdict.StatementJSON},
			bundle: func(t *testing.T, s setup) []byte { return byWorkflow(t, []byte(s.statement)) },
			change: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, verdict.StatementJSON)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := written(t)
			s := setup{dir: dir, statement: string(read(t, dir, verdict.StatementJSON))}
			files := t.TempDir()
			cfg := config.Verify{Bundle: filepath.Join(files, "bundle.json"), Identity: workflow, Issuer: sigtest.Issuer}
			if tt.bundle != nil {
				write(t, cfg.Bundle, tt.bundle(t, s))
			}
			root := tt.root
			if root == nil {
				root = trusted
			}
			cfg.TrustedRoot = write(t, filepath.Join(files, "trusted_root.json"), root)
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			if tt.change != nil {
				tt.change(t, dir)
			}
			sig, err := sigverify.Check(dir, cfg)
			var out strings.Builder
			switch {
			case tt.cannot:
				if !errors.Is(err, history.ErrCannotCheck) {
					t.Fatalf("got %v, %v; want could not check", sig, err)
				}
				out.WriteString(err.Error())
			case err != nil:
				t.Fatalf("could not check: %v", err)
			default:
				sig.WriteText(&out)
				if sig.Holds() != tt.holds {
					t.Errorf("holds %v, want %v:\n%s", sig.Holds(), tt.holds, out.String())
				}
			}
			t.Log(out.String())
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
