package conformance

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/steps"
)

// summary.md is read where GitHub renders it: a job summary, a pull-request
// comment, raw HTML allowed. Much of its text came from the target under
// test (response bodies and headers, the failures quoting them, notes,
// errors), and the target may have written it to be read as Markdown: an
// image that calls home, a link, a script, a heading or a table row of its
// own. So every such text goes in a code span or a fenced code block that it
// cannot close, where nothing is markup and nothing is autolinked.

// mdQuote puts text that may come from the target into summary.md. Reports
// always use quoted; a test swaps in one that writes the text as it is, to
// show what quoting prevents.
type mdQuote struct {
	// span writes s on one line, where inline Markdown goes.
	span func(s string) string
	// cell writes s on one line, in a table cell.
	cell func(s string) string
	// block writes s as a fenced code block with the info string info,
	// every line after indent (to keep the block in a list item).
	block func(s, info, indent string) string
}

var quoted = mdQuote{span: mdquote.Span, cell: mdquote.Cell, block: mdquote.Block}

// item writes a list item: marker ("-", or "  -" in a nested list), label
// ("Expected:", or none), then s: a code span on the same line if s is one
// line, else a fenced code block indented to stay in the item.
func (q mdQuote) item(b *bytes.Buffer, marker, label, s string) {
	indent := strings.Repeat(" ", len(marker)+1)
	head := marker + " "
	if label != "" {
		head += label + " "
	}
	switch {
	case !strings.Contains(s, "\n"):
		b.WriteString(head + q.span(s) + "\n")
	case label != "":
		// A fence may interrupt the label's paragraph, on the next line.
		b.WriteString(strings.TrimSuffix(head, " ") + "\n" + q.block(s, "", indent))
	default:
		// With no label the fence opens the item.
		b.WriteString(head + strings.TrimPrefix(q.block(s, "", indent), indent))
	}
}

var mdMarks = map[string]string{"passed": "✅", "failed": "❌", "error": "⚠️", "skipped": "➖", string(NotJudged): "❔"}

// writeMarkdown writes summary.md, quoting with q what may come from the
// target (or from the user: the URL, the tags). Plantcheck's own text (the
// spec's title, the rules, the scenarios' names) is written as it is.
func writeMarkdown(b *bytes.Buffer, s *summary, q mdQuote) {
	fmt.Fprintf(b, "# plantcheck: %s\n\n", s.Status)
	fmt.Fprintf(b, "**%s**\n\n", s.Verdict)
	if s.LikelyCause != "" {
		fmt.Fprintf(b, "**Likely cause:** %s\n\n", q.span(s.LikelyCause))
	}
	fmt.Fprintf(b, "| | |\n|---|---|\n")
	target := q.cell(s.Target)
	if s.Reference {
		target += " (bundled reference server)"
	}
	fmt.Fprintf(b, "| Target | %s |\n", target)
	fmt.Fprintf(b, "| Spec | %s %s (sha256 `%.12s`) |\n", s.Spec.Title, s.Spec.Version, s.Spec.SHA256)
	fmt.Fprintf(b, "| plantcheck | %s (features sha256 `%.12s`) |\n", s.Plantcheck.Version, s.Features.SHA256)
	scope := s.Scope
	if s.Config.Tags != "" {
		scope += " (" + q.cell("--tags "+s.Config.Tags) + ")"
	}
	fmt.Fprintf(b, "| Scope | %s |\n", scope)
	c := s.Counts
	fmt.Fprintf(b, "| Scenarios | %d: %d passed, %d failed, %d errors, %d not run |\n", c.Total, c.Passed, c.Failed, c.Errored, c.Skipped)
	fmt.Fprintf(b, "| Exchanges | %d in %.0f ms (seed %d) |\n", c.Exchanges, s.Duration, s.Seed)
	if s.Throttling != nil {
		fmt.Fprintf(b, "| Throttled | %s |\n", strings.ReplaceAll(s.Throttling.Summary, "|", `\|`))
	}
	b.WriteString("\n")

	// The rules table holds plantcheck's text only: the notes, which may
	// quote the target, follow it as a list.
	fmt.Fprintf(b, "| Rule | Level | Result | Scenarios | Requirement |\n|---|---|---|---|---|\n")
	for _, v := range s.Rules {
		req := v.Requirement
		for _, by := range v.FoundBy {
			req += "<br>found by " + by
		}
		fmt.Fprintf(b, "| %s %s | %s | %s | %d | %s |\n", mdMarks[v.Outcome], v.ID, strings.ToUpper(string(v.Level)), v.Word, v.Scenarios,
			strings.ReplaceAll(req, "|", `\|`))
	}
	noted := false
	for _, v := range s.Rules {
		for _, n := range v.Notes {
			if !noted {
				fmt.Fprintf(b, "\nNoted, never failed (the spec leaves these open), and inconclusive scenarios:\n\n")
				noted = true
			}
			q.item(b, "-", string(v.ID)+":", n)
		}
	}

	var failed []summaryScene
	for _, sc := range s.Scenarios {
		if sc.Outcome == steps.Failed || sc.Outcome == steps.Errored {
			failed = append(failed, sc)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(b, "\n## Failures\n")
	}
	for _, sc := range failed {
		fmt.Fprintf(b, "\n### %s %s\n\n`features/%s`\n\n", mdMarks[string(sc.Outcome)], sc.Heading, sc.Where)
		if sc.Error != "" && len(sc.Failures) == 0 {
			q.item(b, "-", "Error:", sc.Error)
		}
		for _, f := range sc.Failures {
			fmt.Fprintf(b, "- **%s (%s)**: %s\n", f.Rule, strings.ToUpper(string(f.Level)), f.Requirement)
			q.item(b, "-", "Expected:", f.Expected)
			q.item(b, "-", "Actual:", f.Actual)
			if len(f.Details) > 0 {
				b.WriteString("- Evidence:\n")
				for _, d := range f.Details {
					q.item(b, "  -", "", d)
				}
			}
			if f.Request != "" {
				q.item(b, "-", "Request:", f.Request)
			}
			if f.Response != "" {
				q.item(b, "-", "Response:", f.Response)
			}
			if f.Curl != "" {
				fmt.Fprintf(b, "\nReproduce (with `PLANTCHECK_TOKEN` set):\n\n%s", q.block(f.Curl, "sh", ""))
			}
		}
		fmt.Fprintf(b, "\nRerun the rule:\n\n%s", q.block(sc.Rerun, "sh", ""))
	}
}
