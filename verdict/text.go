package verdict

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plantcheck/plantcheck/rules"
)

// WriteText prints the verdict for a console: what was judged, every rule
// with its level and outcome, the notes, each failure with its evidence,
// the counts and, last, the verdict's line. Nothing a target sent can
// stand on a line of its own (package evidence escapes every line break),
// so the verdict is the last line.
func (v *Verdict) WriteText(w io.Writer) error {
	var b strings.Builder
	v.writeText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (v *Verdict) writeText(w *strings.Builder) {
	fmt.Fprintf(w, "\nplantcheck verdict: %s %s\n", v.Spec.Title, v.Spec.Version)
	target := v.Target
	if v.Reference {
		target += " (the bundled reference server, in-process)"
	}
	switch v.Driver {
	case Proxy:
		fmt.Fprintf(w, "upstream: %s (traffic from %s to %s)\n", target, v.Started.Format(time.RFC3339), v.Ended.Format(time.RFC3339))
	default:
		fmt.Fprintf(w, "target: %s\n", target)
	}
	if v.Config.ConfigFile != "" {
		fmt.Fprintf(w, "config: %s\n", v.Config.ConfigFile)
	}
	if v.LikelyCause != "" {
		fmt.Fprintf(w, "\nLIKELY CAUSE: %s\n", v.LikelyCause)
	}
	if v.Partial() {
		fmt.Fprintf(w, "scope:  partial, scenarios selected by --tags %q\n", v.Config.Tags)
	}
	if v.Driver == Proxy {
		fmt.Fprintf(w, "%s\n", v.trafficLine())
		for _, c := range v.NotJudgedInPart {
			fmt.Fprintf(w, "  not judged in %s: %s\n", plural(c.N, "exchange"), c.Reason)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "RULE\tLEVEL\tRESULT\t%s\tREQUIREMENT\n", strings.ToUpper(v.countedBy()))
	for _, r := range v.Rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.ID, upper(r.Level), r.Result, v.counted(r), truncate(r.Requirement, 70))
	}
	tw.Flush()

	// The reasons too long for the table, each once, with its rules.
	var whys []string
	byWhy := map[string][]string{}
	for _, r := range v.Rules {
		if r.Outcome == NotJudged && len(r.NotJudgedBecause) > maxWhyInTable {
			if _, ok := byWhy[r.NotJudgedBecause]; !ok {
				whys = append(whys, r.NotJudgedBecause)
			}
			byWhy[r.NotJudgedBecause] = append(byWhy[r.NotJudgedBecause], fmt.Sprintf("%s (%s)", r.ID, upper(r.Level)))
		}
	}
	if len(whys) > 0 {
		fmt.Fprintln(w, "\nNot judged:")
		for _, why := range whys {
			fmt.Fprintf(w, "  %s: %s\n", strings.Join(byWhy[why], ", "), why)
		}
	}

	var foundBy []string
	for _, r := range v.Rules {
		for _, by := range r.FoundBy {
			foundBy = append(foundBy, fmt.Sprintf("  %s (%s) found by %s", r.ID, upper(r.Level), by))
		}
	}
	if len(foundBy) > 0 {
		fmt.Fprintln(w, "\nRules broken in scenarios of other rules:")
		fmt.Fprintln(w, strings.Join(foundBy, "\n"))
	}

	var notes []string
	for _, r := range v.Rules {
		for _, n := range r.Notes {
			notes = append(notes, fmt.Sprintf("  %s: %s", r.ID, n))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNoted, never failed (the spec leaves these open), and inconclusive scenarios:")
		fmt.Fprintln(w, strings.Join(notes, "\n"))
	}

	v.WriteFailures(w)
	v.writeClients(w)

	c := v.Counts
	if v.Driver == Run {
		fmt.Fprintf(w, "\n%d scenarios: %d passed, %d failed, %d errors, %d not run; %d HTTP exchanges in %s (seed %d)\n",
			c.Scenarios, c.Passed, c.Failed, c.Errors, c.NotRun, c.Exchanges, v.Ended.Sub(v.Started).Round(time.Millisecond), v.Seed)
	} else {
		fmt.Fprintf(w, "\n%s in %s; %s, %s\n", plural(int64(c.Exchanges), "exchange"), v.Ended.Sub(v.Started).Round(time.Millisecond),
			plural(c.ServerViolations, "server-side violation"), plural(c.ClientViolations, "client-side violation"))
	}
	fmt.Fprintf(w, "MUST rules: %s; SHOULD rules: %s\n", v.levelSummary(rules.Must), v.levelSummary(rules.Should))
	if v.Throttling.Summary != "" {
		fmt.Fprintf(w, "Throttled: %s\n", v.Throttling.Summary)
	}
	if v.ReportDir != "" {
		fmt.Fprintf(w, "Reports: %s (%s)\n", v.ReportDir, strings.Join(v.files(), ", "))
	}
	fmt.Fprintf(w, "VERDICT: %s\n", v.Verdict)
}

// files names the report files the verdict's driver writes.
func (v *Verdict) files() []string {
	names := []string{SummaryJSON, SummaryMD, ReportHTML, BadgeSVG, JUnitXML}
	if v.Driver == Run {
		names = append(names, "cucumber.json")
	}
	return names
}

// countedBy is what the rule table's count column counts.
func (v *Verdict) countedBy() string {
	if v.Driver == Proxy {
		return "judged"
	}
	return "scenarios"
}

func (v *Verdict) counted(r Rule) int64 {
	if v.Driver == Proxy {
		return r.Judged
	}
	return int64(r.Scenarios)
}

// trafficLine says what traffic passed through a proxy.
func (v *Verdict) trafficLine() string {
	c := v.Counts
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of POST /plants judged", plural(int64(c.Exchanges), "exchange"), c.Judged)
	if c.JudgedInPart > 0 {
		fmt.Fprintf(&b, " (%d in part)", c.JudgedInPart)
	}
	fmt.Fprintf(&b, ", %d outside the document (forwarded, not judged)", c.OutsideDocument)
	for _, k := range slices.Sorted(maps.Keys(c.ProxyAnswers)) {
		fmt.Fprintf(&b, ", %d answered by the proxy (%s)", c.ProxyAnswers[k], k)
	}
	if c.ClientGone > 0 {
		fmt.Fprintf(&b, ", %d whose client went away", c.ClientGone)
	}
	if c.UpstreamBrokeOff > 0 {
		fmt.Fprintf(&b, ", %d whose answer broke off", c.UpstreamBrokeOff)
	}
	return b.String()
}

// WriteFailures prints each failure block of the service's: its rule, the
// requirement, what was expected and what came back, the evidence, the
// exchange, and how to reproduce it.
func (v *Verdict) WriteFailures(w io.Writer) {
	var server []Block
	for _, b := range v.Failures {
		if b.Side != "client" {
			server = append(server, b)
		}
	}
	if len(server) == 0 {
		return
	}
	switch v.Driver {
	case Proxy:
		fmt.Fprintf(w, "\nServer-side failures (the service's):\n")
	default:
		fmt.Fprintf(w, "\nFailures (%s):\n", plural(int64(len(server)), "scenario"))
	}
	for i, b := range server {
		fmt.Fprintf(w, "\n%d) %s\n", i+1, b.Heading)
		if b.Where != "" {
			fmt.Fprintf(w, "   scenario:    features/%s\n", b.Where)
		}
		if r, ok := rules.Lookup(b.Rule); ok {
			fmt.Fprintf(w, "   requirement: %s (spec: %s)\n", r.Requirement, r.Source)
		}
		if b.Error != "" && len(b.Evidence) == 0 {
			fmt.Fprintf(w, "   error:       %s\n", indent(b.Error, "                "))
		}
		for _, e := range b.Evidence {
			writeEvidence(w, b, e)
		}
		if b.More > 0 {
			fmt.Fprintf(w, "   (and %s of %s, counted, not kept)\n", plural(b.More, "more failure"), b.Rule)
		}
		if b.Rerun != "" {
			fmt.Fprintf(w, "   rerun:       %s\n", b.Rerun)
		}
	}
	if !v.Reference {
		fmt.Fprintln(w, "\n(The curl commands read the token from $PLANTCHECK_TOKEN; plantcheck never prints it.)")
	}
}

func writeEvidence(w io.Writer, b Block, e Evidence) {
	if e.Rule != b.Rule && e.Rule != "" {
		fmt.Fprintf(w, "   rule:        %s (%s): %s\n", e.Rule, upper(e.Level), e.Requirement)
	}
	fmt.Fprintf(w, "   expected:    %s\n", e.Expected)
	fmt.Fprintf(w, "   actual:      %s\n", e.Actual)
	for _, d := range e.Details {
		fmt.Fprintf(w, "   - %s\n", d)
	}
	if e.Request != "" {
		fmt.Fprintf(w, "   request:     %s\n", e.Request)
	}
	if e.Response != "" {
		fmt.Fprintf(w, "   response:    %s\n", e.Response)
	}
	if e.Reproduce != "" {
		fmt.Fprintf(w, "   reproduce:   %s\n", indent(e.Reproduce, "                "))
	}
}

// writeClients prints what client requests broke (proxy): a count by the
// rule their refusal exercises, and one example of each (the clients'
// requests are not the verdict's matter, and the reports keep more).
func (v *Verdict) writeClients(w io.Writer) {
	if v.Counts.ClientViolations == 0 {
		return
	}
	effect := "reported; they fail the verdict only with --strict-clients"
	if v.Config.StrictClients {
		effect = "they fail the verdict (--strict-clients)"
	}
	fmt.Fprintf(w, "\nClient-side: %s broke the document (the clients', not the service's: %s); by what they break (a request may break several):\n",
		plural(v.Counts.ClientViolations, "request"), effect)
	for _, g := range v.Client {
		fmt.Fprintf(w, "  %-22s %8d\n", g.Label(), g.Requests)
	}
	n := 0
	for _, b := range v.Failures {
		if b.Side != "client" || len(b.Evidence) == 0 {
			continue
		}
		n++
		fmt.Fprintf(w, "\n%d) %s\n", n, b.Heading)
		writeEvidence(w, b, b.Evidence[0])
		if more := int64(len(b.Evidence)) - 1 + b.More; more > 0 {
			fmt.Fprintf(w, "   (and %s more of %s; the reports keep up to %d)\n", plural(more, "request"), label(b.Rule), len(b.Evidence))
		}
	}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
