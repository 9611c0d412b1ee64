package conformance

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

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

var quoted = mdQuote{span: codeSpan, cell: cellSpan, block: codeBlock}

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

// cleanText makes text from the target fit to show: valid UTF-8 (each run
// of bad bytes a U+FFFD), and the characters that would act rather than
// show (C0 and C1 controls, DEL, bidirectional overrides and isolates,
// which reorder what a reader sees) written as Go escapes, such as \x1b and
// \u202e. Tab and line feed stay: they are layout. A carriage return does
// not: Markdown would take it for a line ending.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			q := strconv.QuoteRune(r) // '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || 0x7f <= r && r <= 0x9f:
		return true
	case 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			n = 0
			continue
		}
		n++
		longest = max(longest, n)
	}
	return longest
}

// codeSpan writes s as a CommonMark code span on one line. Its fence is a
// run of backticks longer than any in s, so that nothing in s closes it; a
// space pads s when s starts or ends with a backtick (which would join the
// fence) or with spaces at both ends (CommonMark strips one from each). A
// line break would let the next line start a block of its own (a heading,
// an HTML block), so it is written \n.
func codeSpan(s string) string {
	s = strings.ReplaceAll(cleanText(s), "\n", `\n`)
	if s == "" {
		return "(empty)"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cellSpan writes s as a code span in a table cell, its pipes escaped:
// GFM splits a row at every pipe not escaped, even inside a code span (and
// shows an escaped pipe in a code span as a pipe).
func cellSpan(s string) string {
	return strings.ReplaceAll(codeSpan(s), "|", `\|`)
}

// codeBlock writes s as a fenced code block: its fence is at least three
// backticks and longer than any run of them in s, so that no line of s
// closes it.
func codeBlock(s, info, indent string) string {
	s = cleanText(s)
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	var b strings.Builder
	b.WriteString(indent + fence + info + "\n")
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(indent + line + "\n")
	}
	b.WriteString(indent + fence + "\n")
	return b.String()
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
