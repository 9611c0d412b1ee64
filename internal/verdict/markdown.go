package verdict

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/mdquote"
)

// summary.md is read where GitHub renders it: a job summary, a pull-request
// comment, raw HTML allowed. Much of its text came from the target under
// test (response bodies and headers, the failures quoting them, notes,
// errors), and the target may have written it to be read as Markdown: an
// image that calls home, a link, a script, a heading or a table row of its
// own. So every such text goes in a code span or a fenced code block that it
// cannot close, where nothing is markup and nothing is autolinked.

// Quote puts text that may come from the target into summary.md. Reports
// always use Quoted; a test swaps in one that writes the text as it is, to
// show what quoting prevents.
type Quote struct {
	// Span writes s on one line, where inline Markdown goes.
	Span func(s string) string
	// Cell writes s on one line, in a table cell.
	Cell func(s string) string
	// Block writes s as a fenced code block with the info string info,
	// every line after indent (to keep the block in a list item).
	Block func(s, info, indent string) string
}

// Quoted is how every report quotes.
var Quoted = Quote{Span: mdquote.Span, Cell: mdquote.Cell, Block: mdquote.Block}

// item writes a list item: marker ("-", or "  -" in a nested list), label
// ("Expected:", or none), then s: a code span on the same line if s is one
// line, else a fenced code block indented to stay in the item.
func (q Quote) item(b *bytes.Buffer, marker, label, s string) {
	indent := strings.Repeat(" ", len(marker)+1)
	head := marker + " "
	if label != "" {
		head += label + " "
	}
	switch {
	case !strings.Contains(s, "\n"):
		b.WriteString(head + q.Span(s) + "\n")
	case label != "":
		// A fence may interrupt the label's paragraph, on the next line.
		b.WriteString(strings.TrimSuffix(head, " ") + "\n" + q.Block(s, "", indent))
	default:
		// With no label the fence opens the item.
		b.WriteString(head + strings.TrimPrefix(q.Block(s, "", indent), indent))
	}
}

var mdMarks = map[Outcome]string{Pass: "✅", Fail: "❌", Error: "⚠️", Skip: "➖", NotJudged: "❔"}

// mdTable escapes plantcheck's own text for a table cell: its bars, and
// its asterisks, which a media range (*/*) in a scenario's name would
// otherwise turn into emphasis.
var mdTable = strings.NewReplacer("|", `\|`, "*", `\*`).Replace

// WriteMarkdown writes summary.md, quoting with q what may come from the
// target, a client or the user (the URL, the tags). Plantcheck's own text
// (the spec's title, the rules, the scenarios' names, its reasons) is
// written as it is.
func (v *Verdict) WriteMarkdown(b *bytes.Buffer, q Quote) {
	if !v.writeMarkdownTop(b, q, 0) {
		return
	}
	c := v.Counts
	for _, n := range v.NotJudgedInPart {
		q.item(b, "-", fmt.Sprintf("Not judged in %s:", Plural(n.N, "exchange")), n.Reason)
	}
	if len(v.NotJudgedInPart) > 0 {
		b.WriteString("\n")
	}

	// The rules table holds plantcheck's text only: the notes, which may
	// quote the target, follow it as a list.
	fmt.Fprintf(b, "| Rule | Level | Result | %s | Requirement |\n|---|---|---|---|---|\n", capital(v.words().counted))
	for _, r := range v.Rules {
		req := r.Requirement
		for _, by := range r.FoundBy {
			req += "<br>found by " + by
		}
		if r.Outcome == NotJudged && len(r.NotJudgedBecause) > maxWhyInTable {
			req += "<br>not judged: " + r.NotJudgedBecause
		}
		fmt.Fprintf(b, "| %s %s | %s | %s | %d | %s |\n", mdMarks[r.Outcome], r.ID, Upper(r.Level), mdTable(r.Result), v.words().count(r), mdTable(req))
	}
	noted := false
	for _, r := range v.Rules {
		for _, n := range r.Notes {
			if !noted {
				fmt.Fprintf(b, "\nNoted, never failed (the spec leaves these open), and inconclusive scenarios:\n\n")
				noted = true
			}
			q.item(b, "-", string(r.ID)+":", n)
		}
	}

	if len(v.Failures) > 0 && v.Error == "" {
		fmt.Fprintf(b, "\n## Failures\n")
		for _, f := range v.shown() {
			v.writeMarkdownBlock(b, q, f, 0)
		}
	}
	if note := v.ReproNote(); note != "" {
		// It names the user's files (the token file, the config file).
		fmt.Fprintf(b, "\n**Variables:** %s\n", q.Span(note))
	}
	if len(v.Client) > 0 {
		fmt.Fprintf(b, "\n## Client-side: %d requests broke the document\n\n", c.ClientViolations)
		b.WriteString("| Rule its refusal exercises | Requests |\n|---|---:|\n")
		for _, g := range v.Client {
			fmt.Fprintf(b, "| %s | %d |\n", g.Label(), g.Requests)
		}
	}
}

// writeMarkdownTop writes what summary.md and the short summary begin
// with (values cut to n bytes, 0: whole), and, of a run that could be
// made, the common cause and what to fix, whose lines quote the answers;
// it reports whether the run could be made.
func (v *Verdict) writeMarkdownTop(b *bytes.Buffer, q Quote, n int) bool {
	v.writeMarkdownHead(b, q, n)
	v.writeMarkdownFacts(b, q, n)
	v.writeMarkdownBaseline(b, q)
	if v.Error != "" {
		return false
	}
	if v.CommonCause != "" {
		fmt.Fprintf(b, "**Common cause:** %s\n\n", q.Span(v.CommonCause))
	}
	if len(v.ToFix) > 0 {
		fmt.Fprintf(b, "**To fix** (blocks numbered as in every report):\n\n")
		for _, l := range v.ToFix {
			q.item(b, "-", "", l)
		}
		b.WriteString("\n")
	}
	return true
}

// capital is a column's word (words.counted, never empty) capitalised.
func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// cutSaid bounds a value of the short summary to n bytes (0: whole), and
// says how long it was: the summary is read where the whole is not.
func cutSaid(s string, n int) string {
	if n <= 0 {
		return s
	}
	return evidence.Cut(s, n)
}

// writeMarkdownHead writes the title, the verdict with its exit status,
// and the likely cause; a run that could not be made says why instead of
// a verdict. Values are cut to n bytes (0: whole).
func (v *Verdict) writeMarkdownHead(b *bytes.Buffer, q Quote, n int) {
	fmt.Fprintf(b, "# plantcheck: %s\n\n", v.Status)
	if v.Error != "" {
		// Why a run could not be made names the user's settings (a URL,
		// tags), which go in a block as the target's text does.
		fmt.Fprintf(b, "**COULD NOT RUN** (exit status 2): plantcheck judged no rule, so this is no verdict on the target.\n\n%s\nRun `plantcheck %s -h` for the flags.\n\n", q.Block(cutSaid(v.Error, n), "text", ""), v.Driver)
		return
	}
	fmt.Fprintf(b, "**%s** (exit status %d)\n\n", v.Verdict, v.ExitCode)
	if v.LikelyCause != "" {
		fmt.Fprintf(b, "**Likely cause:** %s\n\n", q.Span(cutSaid(v.LikelyCause, n)))
	}
}

// writeMarkdownFacts writes the table of what was judged, against what;
// a run that could not be made has no counts to give.
func (v *Verdict) writeMarkdownFacts(b *bytes.Buffer, q Quote, n int) {
	fmt.Fprintf(b, "| | |\n|---|---|\n")
	target := q.Cell(cutSaid(v.Target, n))
	if v.Target == "" {
		target = "(none)"
	}
	fmt.Fprintf(b, "| %s | %s |\n", v.words().target, target)
	if v.Config.Proxy != "" {
		fmt.Fprintf(b, "| Proxy | %s |\n", q.Cell(cutSaid(v.Config.Proxy, n)))
	}
	fmt.Fprintf(b, "| Spec | %s %s (sha256 `%.12s`) |\n", v.Spec.Title, v.Spec.Version, v.Spec.SHA256)
	fmt.Fprintf(b, "| plantcheck | %s (features sha256 `%.12s`) |\n", v.Plantcheck.Version, v.Features.SHA256)
	scope := v.Scope
	if v.Config.Tags != "" {
		scope += " (" + q.Cell(cutSaid("--tags "+v.Config.Tags, n)) + ")"
	}
	fmt.Fprintf(b, "| Scope | %s |\n", scope)
	if v.Error != "" {
		b.WriteString("\n")
		return
	}
	c := v.Counts
	if !v.words().traffic {
		fmt.Fprintf(b, "| Scenarios | %d: %d passed, %d failed, %d errors, %d not run |\n", c.Scenarios, c.Passed, c.Failed, c.Errors, c.NotRun)
		fmt.Fprintf(b, "| Exchanges | %d in %.0f ms (seed %d) |\n", c.Exchanges, v.Duration, v.Seed)
	} else {
		fmt.Fprintf(b, "| Exchanges | %s in %.0f ms |\n", mdTable(v.trafficLine()), v.Duration)
		fmt.Fprintf(b, "| Violations | %d server-side; %d client requests broke the document |\n", c.ServerViolations, c.ClientViolations)
		for _, k := range slices.Sorted(maps.Keys(c.ProxyAnswers)) {
			fmt.Fprintf(b, "| Answered by the proxy | %d (%s, not the service's) |\n", c.ProxyAnswers[k], q.Cell(cutSaid(k, n)))
		}
	}
	if v.Throttling.Summary != "" {
		fmt.Fprintf(b, "| Throttled | %s |\n", mdTable(v.Throttling.Summary))
	}
	if v.Connections.Summary != "" {
		fmt.Fprintf(b, "| Connections | %s |\n", mdTable(v.Connections.Summary))
	}
	b.WriteString("\n")
}

// writeMarkdownBlock writes one failure block, numbered as the console
// numbers it, its fields as walk lists them; values cut to n bytes (0:
// whole; a command to 4n), and the short summary's pieces of evidence and
// details bounded.
func (v *Verdict) writeMarkdownBlock(b *bytes.Buffer, q Quote, f Shown, n int) {
	fmt.Fprintf(b, "\n### %s %s %s\n\n", mdMarks[f.Outcome], f.Label, f.Title())
	names := map[string]string{"error": "Error:", "expected": "Expected:", "actual": "Actual:", "request": "Request:", "response": "Response:", "seen": "Seen:"}
	for _, fd := range f.Fields {
		if n > 0 && fd.Piece >= shortEvidence {
			if fd.Piece == shortEvidence && fd.Key == "rule" {
				fmt.Fprintf(b, "\n(And %s of this block: %s keeps them.)\n", Plural(int64(len(f.Evidence)-shortEvidence), "more piece")+" of evidence", SummaryMD)
			}
			continue
		}
		switch e := fd.E; fd.Key {
		case "where":
			fmt.Fprintf(b, "`features/%s`\n\n", fd.Text)
		case "requirement":
			fmt.Fprintf(b, "- **%s (%s)**: %s\n", f.Rule, Upper(f.Level), fd.Text)
		case "rule":
			if fd.Text != "" {
				fmt.Fprintf(b, "- **%s (%s)**: %s\n", e.Rule, Upper(e.Level), fd.Text)
			}
		case "details":
			if len(fd.List) > 0 {
				b.WriteString("- Evidence:\n")
			}
			for j, d := range fd.List {
				if n > 0 && j == shortDetails {
					fmt.Fprintf(b, "  - (and %d more, in %s)\n", len(fd.List)-j, SummaryMD)
					break
				}
				q.item(b, "  -", "", cutSaid(d, n))
			}
		case "same":
			b.WriteString("- Exchange: the one above\n")
		case "reproduce":
			if fd.Text != "" {
				fmt.Fprintf(b, "\nReproduce (with the `PLANTCHECK_*` variables it reads set):\n\n%s", q.Block(cutSaid(fd.Text, 4*n), "sh", ""))
			}
		case "more":
			fmt.Fprintf(b, "\nAnd %s of %s, counted, not kept.\n", Plural(fd.More, "more failure"), fd.Text)
		case "rerun":
			fmt.Fprintf(b, "\nRerun the rule:\n\n%s", q.Block(cutSaid(fd.Text, 4*n), "sh", ""))
		default: // expected and actual even when empty
			if l := names[fd.Key]; l != "" && (fd.Text != "" || fd.Key == "expected" || fd.Key == "actual") {
				q.item(b, "-", l, cutSaid(fd.Text, n))
			}
		}
	}
}
