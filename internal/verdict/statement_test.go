package verdict_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
)

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// written writes a small proxy verdict's reports into a folder and
// returns it.
func written(t *testing.T) string {
	t.Helper()
	v := &verdict.Verdict{Driver: verdict.Run, Target: "https://user:pw@plants.example/plants?api_key=k1&page=2", Seed: 1<<63 + 5,
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

// TestStatementVouchesForTheReports: the statement's subjects are the
// bytes written and this build's OpenAPI document; its predicate carries
// the verdict, each rule's level and outcome, the seed whole, the target
// without its credentials, and the suite's strength.
func TestStatementVouchesForTheReports(t *testing.T) {
	t.Parallel()
	dir := written(t)
	b, err := os.ReadFile(filepath.Join(dir, verdict.StatementJSON))
	if err != nil {
		t.Fatal(err)
	}
	subjects, p, err := verdict.ReadStatement(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range verdict.Subjects {
		f, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := subjects[name], sha256Hex(f); got != want {
			t.Errorf("subject %s: sha256 %s, the file's is %s", name, got, want)
		}
	}
	if got, want := subjects[verdict.OpenAPIName], sha256Hex(spec.Document()); got != want {
		t.Errorf("subject %s: sha256 %s, want %s", verdict.OpenAPIName, got, want)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"_type", raw["_type"], "https://in-toto.io/Statement/v1"},
		{"predicateType", raw["predicateType"], verdict.PredicateType},
		{"seed", p.Seed, "9223372036854775813"},
		{"target", p.Target, "https://plants.example/plants?api_key=REDACTED&page=2"},
		{"driver", p.Driver, "run"},
		{"scope", p.Scope.Kind, "certified"},
		{"exit status", p.Verdict.ExitCode, 1},
		{"rules", len(p.Rules), 2},
		{"a rule's outcome", p.Rules[1].Outcome, verdict.Fail},
		{"suite digest", p.Suite.SHA256, verdict.SuiteDigest()},
		{"strength carried", p.Strength != nil && p.Strength.Mutants > 0 && len(p.Strength.Rules) > 0, true},
		{"strength without each mutant's line", p.Strength != nil && p.Strength.Each == nil, true},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if strings.Contains(string(b), "pw@") || strings.Contains(string(b), "k1") {
		t.Errorf("the statement holds the target's credentials:\n%s", b)
	}
}

// TestPredicateSchemaRejects: conformance.schema.json can fail.
func TestPredicateSchemaRejects(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(written(t), verdict.StatementJSON))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	good, _ := json.Marshal(st["predicate"])
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		valid  bool
	}{
		{"as written", func(map[string]any) {}, true},
		{"no suite", func(m map[string]any) { delete(m, "suite") }, false},
		{"a member of its own", func(m map[string]any) { m["signed"] = true }, false},
		{"an outcome outside the vocabulary", func(m map[string]any) { m["rules"].([]any)[0].(map[string]any)["outcome"] = "passed" }, false},
		{"a seed as a number", func(m map[string]any) { m["seed"] = 3 }, false},
		{"a driver of no command", func(m map[string]any) { m["driver"] = "curl" }, false},
		{"an exit status of 3", func(m map[string]any) { m["verdict"].(map[string]any)["exitCode"] = 3 }, false},
		{"no strength", func(m map[string]any) { delete(m, "strength") }, true},
		{"a strength without its date", func(m map[string]any) { delete(m["strength"].(map[string]any), "measured") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tc.change(m)
			doc, _ := json.Marshal(m)
			if err := verdict.CheckPredicate(doc); (err == nil) != tc.valid {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tc.valid, err)
			}
		})
	}
}

// TestReadStatementRefuses: what is no plantcheck statement is refused.
func TestReadStatementRefuses(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(written(t), verdict.StatementJSON))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		doc  string
	}{
		{"not JSON", "{"},
		{"another statement type", strings.Replace(string(b), "https://in-toto.io/Statement/v1", "https://in-toto.io/Statement/v9", 1)},
		{"another predicate type", strings.Replace(string(b), verdict.PredicateType, "https://slsa.dev/provenance/v1", 1)},
		{"no subject", `{"_type":"https://in-toto.io/Statement/v1","subject":[],"predicateType":"` + verdict.PredicateType + `","predicate":{}}`},
		{"a predicate off the schema", `{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"a","digest":{"sha256":"` + strings.Repeat("0", 64) + `"}}],"predicateType":"` + verdict.PredicateType + `","predicate":{"x":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := verdict.ReadStatement([]byte(tc.doc)); err == nil {
				t.Error("read, want refused")
			}
		})
	}
}

// TestStripCredentials: a target's user information and credential
// parameters never reach the statement; a target that is no URL stays.
func TestStripCredentials(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"https://plants.example/plants", "https://plants.example/plants"},
		{"https://alice:secret@plants.example/plants", "https://plants.example/plants"},
		{"http://plants.example/plants?token=t0k&x=1", "http://plants.example/plants?token=REDACTED&x=1"},
		{"recorded traffic in a.har", "recorded traffic in a.har"},
		{"the bundled reference server (in-process, http://127.0.0.1:1/plants)", "the bundled reference server (in-process, http://127.0.0.1:1/plants)"},
	} {
		if got := verdict.StripCredentials(tc.in); got != tc.want {
			t.Errorf("StripCredentials(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
