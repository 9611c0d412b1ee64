package verdict

import (
	"bytes"
	"fmt"
	"slices"
)

// SummaryShortMD is the short summary: what a pull-request comment holds
// (GitHub takes at most 65,536 characters), beside summary.md, which keeps
// every failure block whole.
const SummaryShortMD = "summary-short.md"

// MaxShortSummary bounds summary-short.md in bytes, whatever the target
// sent: under GitHub's 65,536 characters for a comment, with room for a
// line a workflow adds around it.
const MaxShortSummary = 60_000

// shortValue bounds each value a target sent in the short summary, in
// bytes (a curl command and a rerun get four times as much).
const shortValue = 400

// shortEvidence and shortDetails bound the pieces of evidence of a block,
// and the details of a piece, the short summary shows.
const (
	shortEvidence = 3
	shortDetails  = 5
)

// shortBlocks is the byte count past which the short summary adds no more
// blocks; the rest of it (the last lines) is far smaller than the margin
// to MaxShortSummary.
const shortBlocks = MaxShortSummary - 6_000

// WriteShortMarkdown writes summary-short.md: the verdict and its exit
// status, the rules that failed, and the first block of each of them, in
// the order and with the numbers of the console and summary.md, every
// value a target sent cut short. It is never longer than MaxShortSummary
// bytes; what it leaves out it names, and says where it is.
func (v *Verdict) WriteShortMarkdown(b *bytes.Buffer, q Quote) {
	if !v.writeMarkdownTop(b, q, shortValue) {
		return
	}
	failed := v.broken()
	unjudged := slices.DeleteFunc(slices.Clone(v.Rules), func(r Rule) bool {
		return r.Outcome != NotJudged && r.Outcome != Error || !v.decides(r)
	})
	if len(failed) > 0 {
		fmt.Fprintf(b, "**Rules that failed** (%d):\n\n", len(failed))
		for _, r := range failed {
			fmt.Fprintf(b, "- %s **%s** (%s) %s: %s\n", mdMarks[r.Outcome], r.ID, Upper(r.Level), mdTable(r.Result), r.Requirement)
		}
		b.WriteString("\n")
	}
	if len(unjudged) > 0 {
		fmt.Fprintf(b, "**Rules not judged** that decide the verdict (%d):\n\n", len(unjudged))
		for _, r := range unjudged {
			fmt.Fprintf(b, "- %s **%s** (%s): %s\n", mdMarks[r.Outcome], r.ID, Upper(r.Level), q.Span(cutSaid(r.NotJudgedBecause, shortValue)))
		}
		b.WriteString("\n")
	}
	if len(failed) == 0 && len(unjudged) == 0 {
		fmt.Fprintf(b, "MUST rules: %s; SHOULD rules: %s.\n", v.levelSummary("must"), v.levelSummary("should"))
	}

	// One block of each rule, the first of it in the one order.
	groups := v.shownGroups()
	if len(groups) > 0 {
		fmt.Fprintf(b, "## The first failure of each rule\n")
	}
	left := 0
	for i, g := range groups {
		var one bytes.Buffer
		v.writeMarkdownBlock(&one, q, g.Blocks[0], shortValue)
		if b.Len()+one.Len() > shortBlocks {
			left = len(groups) - i
			break
		}
		b.Write(one.Bytes())
	}
	if left > 0 {
		noun := "more rules' blocks"
		if left == 1 {
			noun = "more rule's block"
		}
		fmt.Fprintf(b, "\n(%d %s not shown here, for length.)\n", left, noun)
	}
	if len(v.Failures) > 0 {
		where := ""
		if v.ReportDir != "" {
			where = " in " + q.Span(cutSaid(v.ReportDir, shortValue))
		}
		fmt.Fprintf(b, "\nEvery failure block (%d in all), each whole, is in %s and %s%s.\n", len(v.Failures), SummaryMD, ReportHTML, where)
	}
	if note := v.ReproNote(); note != "" {
		fmt.Fprintf(b, "\n**Variables:** %s\n", q.Span(cutSaid(note, 4*shortValue)))
	}
}
