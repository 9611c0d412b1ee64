package history

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// MaxSummary bounds a summary.json plantcheck reads.
const MaxSummary = 64 << 20

// ReadFile reads one summary.json: bounded, checked against the published
// schema (summary.schema.json), decoded. It is the one reader of the
// verdicts plantcheck wrote before (merge, --baseline, diff, compare); an
// error says why the file is refused, with nothing of it unescaped.
func ReadFile(name string) (*verdict.Verdict, error) {
	b, err := ReadBounded(name, MaxSummary)
	if err != nil {
		return nil, err
	}
	return Read(b)
}

// Read is ReadFile on a document already in memory.
func Read(b []byte) (*verdict.Verdict, error) {
	if len(b) > MaxSummary {
		return nil, fmt.Errorf("larger than %d MiB: not a summary.json", MaxSummary>>20)
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) == nil && top["log"] != nil && top["schema"] == nil {
		return nil, fmt.Errorf("a HAR recording, not a summary.json: judge it first (plantcheck judge --report-dir DIR FILE.har) and give the summary.json it writes")
	}
	if err := verdict.CheckSummary(b); err != nil {
		return nil, fmt.Errorf("not a summary.json plantcheck wrote (it does not follow summary.schema.json): %s", schemaWhy(err))
	}
	var v verdict.Verdict
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// schemaWhy is a schema's refusal on one line, bounded and escaped: its
// error is lines of "- at 'path': why".
func schemaWhy(err error) string {
	return evidence.Text(evidence.Cut(strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "), 1<<9))
}
