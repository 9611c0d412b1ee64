package verdict

import (
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/internal/shell"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TextOptions are the console's display choices: the verdict's writers
// take them, the verdict never holds them.
type TextOptions struct {
	// Color: print in colour (a terminal, and NO_COLOR not set).
	Color bool
	// Verbose: print every failure block whole, with its curl command,
	// and the whole rule table, as the reports do; else lead with what to
	// fix and show the first failure of each rule (run --verbose).
	Verbose bool
}

// console is a verdict printed for a console with its display choices.
type console struct {
	*Verdict
	TextOptions
	a Analysis
}

// WriteText prints the verdict for a console: what was judged, every rule
// with its level and outcome, the notes, each failure with its evidence,
// the counts and, last, the verdict's line. Nothing a target sent can
// stand on a line of its own (package evidence escapes every line break),
// so the verdict is the last line.
func (v *Verdict) WriteText(w io.Writer, o TextOptions) error {
	var b strings.Builder
	(&console{v, o, Analyze(v)}).writeText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (v *console) writeText(w *strings.Builder) {
	fmt.Fprintf(w, "\nplantcheck verdict: %s %s\n", v.Spec.Title, v.Spec.Version)
	if v.words().traffic {
		fmt.Fprintf(w, "upstream: %s; traffic from %s to %s\n", v.Target, v.Started.Format(time.RFC3339), v.Ended.Format(time.RFC3339))
	} else {
		fmt.Fprintf(w, "target: %s\n", v.Target)
		if strings.HasSuffix(v.Target, "/plants/plants") {
			fmt.Fprintf(w, "        (--base-url ends in /plants, which plantcheck adds itself: is that the service's path?)\n")
		}
	}
	if v.Config.Proxy != "" {
		fmt.Fprintf(w, "proxy:  %s\n", v.Config.Proxy)
	}
	if v.Config.ConfigFile != "" {
		fmt.Fprintf(w, "config: %s\n", v.Config.ConfigFile)
	}
	if v.LikelyCause != "" {
		fmt.Fprintf(w, "\n%s %s\n", v.paint(yellow, "LIKELY CAUSE:"), v.LikelyCause)
	}
	if v.Partial() {
		fmt.Fprintf(w, "scope:  partial, scenarios selected by --tags %q\n", v.Config.Tags)
	}
	if v.words().traffic {
		fmt.Fprintf(w, "%s\n", v.trafficLine())
		for _, c := range v.NotJudgedInPart {
			fmt.Fprintf(w, "  not judged in %s: %s\n", Plural(c.N, "exchange"), c.Reason)
		}
	}
	fix := v.a.Fix
	brief := len(fix) > 0 && !v.Verbose
	if len(fix) > 0 {
		// What to fix leads: a line a rule broken, the first failure's
		// essence, and the block below (or in the reports) that shows it.
		fmt.Fprintf(w, "\n%s\n", v.paint(bold, fmt.Sprintf("To fix: %s broken (blocks numbered as in every report):", Plural(int64(v.a.Broken), "rule"))))
		for _, l := range fix {
			fmt.Fprintf(w, "  %s\n", v.paint(red, l))
		}
	}
	v.writeTable(w, brief)

	// The reasons, which the table leaves out, each once, with its rules.
	var whys []string
	byWhy := map[string][]string{}
	for _, r := range v.Rules {
		if v.unjudgedWhy(r) {
			whys = appendOnce(whys, r.NotJudgedBecause)
			name := fmt.Sprintf("%s (%s)", r.ID, Upper(r.Level))
			if r.Outcome == Pass {
				name = fmt.Sprintf("%s (%s, judged by %d of %d scenarios)", r.ID, Upper(r.Level), r.Judged, r.Scenarios)
			}
			byWhy[r.NotJudgedBecause] = append(byWhy[r.NotJudgedBecause], name)
		}
	}
	if len(whys) > 0 {
		fmt.Fprintln(w, "\nNot judged, or judged in part:")
		for _, why := range whys {
			fmt.Fprintf(w, "  %s: %s\n", strings.Join(byWhy[why], ", "), why)
		}
	}

	var notes, noted []string
	for _, r := range v.Rules {
		for _, n := range r.Notes {
			notes = append(notes, fmt.Sprintf("  %s: %s", r.ID, n))
		}
		if len(r.Notes) > 0 {
			noted = append(noted, fmt.Sprintf("%s (%d)", r.ID, len(r.Notes)))
		}
	}
	switch {
	case brief && len(notes) > 0:
		// What to fix leads; what was noted is said in the reports.
		where := "--verbose prints them"
		if v.ReportDir != "" {
			where = SummaryMD + " has them"
		}
		fmt.Fprintf(w, "\n%s\n", wrapAt("Noted and never failed (what the spec leaves open; inconclusive scenarios; "+where+"): "+strings.Join(noted, ", "), ", ", 0, 100, "  "))
	case len(notes) > 0:
		fmt.Fprintln(w, "\nNoted, never failed (the spec leaves these open), and inconclusive scenarios:")
		fmt.Fprintln(w, strings.Join(notes, "\n"))
	}

	v.writeFailures(w)
	v.writeClients(w)

	c := v.Counts
	if !v.words().traffic {
		fmt.Fprintf(w, "\n%d scenarios: %d passed, %d failed, %d errors, %d not run; %s in %s (seed %d)\n",
			c.Scenarios, c.Passed, c.Failed, c.Errors, c.NotRun, Plural(int64(c.Exchanges), "HTTP exchange"), v.Ended.Sub(v.Started).Round(time.Millisecond), v.Seed)
	} else {
		fmt.Fprintf(w, "\n%s in %s; %s, %s\n", Plural(int64(c.Exchanges), "exchange"), v.Ended.Sub(v.Started).Round(time.Millisecond),
			Plural(c.ServerViolations, "server-side violation"), Plural(c.ClientViolations, "client-side violation"))
	}
	for _, why := range v.notRunReasons() {
		fmt.Fprintf(w, "  %s\n", why)
	}
	fmt.Fprintf(w, "MUST rules: %s; SHOULD rules: %s\n", v.levelSummary(rules.Must), v.levelSummary(rules.Should))
	if v.Strength != nil {
		// What a pass is worth: the mutants this suite is known to catch.
		fmt.Fprintf(w, "Suite strength: %s\n", v.Strength.Line())
	}
	if v.Throttling.Summary != "" {
		fmt.Fprintf(w, "Throttled: %s\n", v.Throttling.Summary)
	}
	if v.Connections.Summary != "" {
		fmt.Fprintf(w, "Connections: %s\n", v.Connections.Summary)
	}
	if v.ReportDir != "" {
		fmt.Fprintf(w, "Reports: %s (%s)\n", v.ReportDir, strings.Join(v.words().files, ", "))
	}
	v.writeBaseline(w)
	style := green
	switch {
	case v.truth() != 0 && v.ExitCode == 0:
		style = yellow // exit 0 against the baseline, but not conformant
	case v.truth() != 0 || v.ExitCode != 0:
		style = red
	}
	fmt.Fprintf(w, "%s\n", v.paint(style, "VERDICT: "+v.Verdict.Verdict))
}

// writeTable prints the rule table: every rule with its level and
// result; on a run with rules broken (brief), the rules that did not
// simply pass, and the others named on a line, so that what to fix stays
// on the first screen. A failed rule's row is red, a rule not judged
// yellow.
func (v *console) writeTable(w *strings.Builder, brief bool) {
	var tb strings.Builder
	tw := tabwriter.NewWriter(&tb, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "RULE\tLEVEL\tRESULT\t%s\tREQUIREMENT\n", strings.ToUpper(v.words().counted))
	var rows []Rule
	var passed []string
	inPart := 0
	for _, r := range v.Rules {
		switch {
		case !brief:
		case r.Outcome == Pass && r.Level == rules.Open:
			continue // noted, never failed: said under its notes
		case r.Outcome == Pass && v.partlyJudged(r):
			inPart++ // said with the rules not judged
			continue
		case r.Outcome == Pass:
			passed = append(passed, string(r.ID))
			continue
		case r.Outcome == Fail && r.Level != rules.Open || v.unjudgedWhy(r):
			continue // said apart: under To fix, or with its reason below
		}
		rows = append(rows, r)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.ID, Upper(r.Level), v.shortWord(r), v.words().count(r), bound(r.Requirement, 70, false))
	}
	tw.Flush()
	lines := strings.Split(tb.String(), "\n")
	if len(rows) > 0 || len(passed) > 0 {
		fmt.Fprintln(w)
	}
	if len(rows) > 0 {
		fmt.Fprintln(w, lines[0])
	}
	for i, r := range rows {
		switch l := lines[i+1]; {
		case r.Outcome == Fail && r.Level != rules.Open:
			fmt.Fprintln(w, v.paint(red, l))
		case r.Outcome == NotJudged || r.Outcome == Error:
			fmt.Fprintln(w, v.paint(yellow, l))
		default:
			fmt.Fprintln(w, l)
		}
	}
	if len(passed) > 0 { // only the brief table lists them apart
		// As many as the MUST and SHOULD counts below say passed.
		n := Plural(int64(len(passed)+inPart), "rule")
		if inPart > 0 {
			n += fmt.Sprintf(", %d of them judged in part", inPart)
		}
		fmt.Fprintf(w, "Passed: %s (the reports, or --verbose, name them)\n", n)
	}
}

// maxNamed bounds the rules a line of reasons not run names.
const maxNamed = 5

// notRunReasons says why the scenarios counted "not run" were not, each
// reason once with its count and rules, so that the count is explained on
// the run it is met (a token too short for AUTH-NEAR-MISS's variants),
// where the list of rules not judged did not say it (it leaves out a rule
// that failed).
func (v *Verdict) notRunReasons() []string {
	var whys []string
	n := map[string]int64{}
	ids := map[string][]rules.RuleID{}
	for _, s := range v.Scenarios {
		if s.Outcome != Skip {
			continue
		}
		why := strings.TrimPrefix(s.Note, "not run: ")
		if why == "" {
			why = "skipped"
		}
		if r, ok := v.rule(s.Rule); ok && v.unjudgedWhy(r) && strings.Contains(r.NotJudgedBecause, why) {
			continue // said with the rules not judged, once
		}
		whys = appendOnce(whys, why)
		n[why]++
		ids[why] = appendOnce(ids[why], s.Rule)
	}
	out := make([]string, len(whys))
	for i, why := range whys {
		of := rules.JoinIDs(ids[why], ", ")
		if len(ids[why]) > maxNamed {
			// A run stopped (throttled, interrupted) leaves most rules
			// not run: the count says it; the table names them.
			of = Plural(int64(len(ids[why])), "rule")
		}
		out[i] = fmt.Sprintf("not run: %s of %s: %s", Plural(n[why], "scenario"), of, why)
	}
	return out
}

// shortWord is a rule's result as the console's table shows it: a word
// and a short count, so that the requirement beside it stays on an
// 80-column screen; the reasons follow the table.
func (v *Verdict) shortWord(r Rule) string {
	switch {
	case r.Outcome == Pass && v.partlyJudged(r):
		w := "pass"
		if r.Level == rules.Open {
			w = "noted"
		}
		return fmt.Sprintf("%s (%d/%d)", w, r.Judged, r.Scenarios)
	case r.Outcome == NotJudged:
		return "not judged"
	}
	return r.Result // an open rule's failure: "noted"
}

// partlyJudged: some of a run's rule's scenarios could not judge it.
func (v *Verdict) partlyJudged(r Rule) bool {
	return !v.words().traffic && r.Judged < int64(r.Scenarios) && r.NotJudgedBecause != ""
}

// unjudgedWhy: the reports give the reason a rule was not judged, or
// judged in part, apart from its row.
func (v *Verdict) unjudgedWhy(r Rule) bool {
	return r.NotJudgedBecause != "" && r.Outcome == NotJudged || r.Outcome == Pass && v.partlyJudged(r)
}

// words are what the writers say differently of a run's scenarios and of
// the traffic a proxy (or judge, or merge) counted: each driver's wording,
// chosen here once.
type words struct {
	traffic bool             // the counts are of exchanges seen, not scenarios sent
	target  string           // what was judged, as the facts name it
	counted string           // what the rule table's count column counts
	count   func(Rule) int64 // and its figure of a rule
	files   []string         // the report files the driver writes
	badge   string           // after the badge's spec
	header  string           // what a PLANTCHECK_HEADER_<NAME> holds
}

var reportFiles = []string{SummaryJSON, SummaryMD, SummaryShortMD, ReportHTML, BadgeSVG, JUnitXML, StatementJSON}

var (
	runWords = words{
		target: "Target", counted: "scenarios", count: func(r Rule) int64 { return int64(r.Scenarios) },
		files:  append(slices.Clip(reportFiles), "cucumber.json"),
		header: "the value of the --header of that name",
	}
	trafficWords = words{
		traffic: true, target: "Upstream", counted: "judged", count: func(r Rule) int64 { return r.Judged },
		files: reportFiles, badge: " traffic",
		header: "the value the client sent in the header of that name, which no report shows",
	}
)

func (v *Verdict) words() words {
	if v.Driver == Proxy {
		return trafficWords
	}
	return runWords
}

// trafficLine says what traffic passed through a proxy.
func (v *Verdict) trafficLine() string {
	c := v.Counts
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of POST /plants judged", Plural(int64(c.Exchanges), "exchange"), c.Judged)
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
		fmt.Fprintf(&b, ", %d with no whole answer from the upstream (a connection refused, reset or closed, an answer late or broken off)", c.UpstreamBrokeOff)
	}
	return b.String()
}

// maxCurlBlocks: the console shows each block's curl command while it shows
// at most this many blocks; past it, the rerun reproduces each failure on
// the console and the reports keep the curl commands.
const maxCurlBlocks = 3

// consoleLine bounds one line of a value on the console (a request, a
// body, a line of a curl command); the reports keep the value whole.
const consoleLine = 300

// consoleRequirement bounds a requirement on the console, its mark "…"
// counted (two lines of a 100-column screen); the reports keep it whole.
const consoleRequirement = 193

// WriteFailures prints the service's failure blocks as the console does
// (writeFailures). Only tests call it (package run's too).
func (v *Verdict) WriteFailures(w io.Writer, o TextOptions) {
	(&console{v, o, Analyze(v)}).writeFailures(w)
}

// writeFailures prints the service's failure blocks, in the one order of
// the failures, each under its number, a common cause first. With Verbose
// it prints every block whole; else, so that a server with a handful of
// mistakes gets a screen or two, the first failure of each rule that
// decides the verdict (writeFirsts) and a count of the rest, which the
// reports keep whole.
func (v *console) writeFailures(w io.Writer) {
	server := v.a.Server
	if len(server) == 0 {
		return
	}
	if v.words().traffic {
		fmt.Fprintf(w, "\nServer-side failures (the service's):\n")
	} else {
		heading := "Failures"
		switch c := v.Counts; {
		case c.Errors > 0 && c.Failed == 0:
			heading = "Errors"
		case c.Errors > 0:
			heading = "Failures and errors"
		}
		fmt.Fprintf(w, "\n%s (%s):\n", heading, Plural(int64(len(server)), "scenario"))
	}
	if c := v.a.Cause; c != "" {
		fmt.Fprintf(w, "\n%s %s\n", v.paint(yellow, "COMMON CAUSE:"), c)
	}
	curl := true
	if v.Verbose {
		for i, b := range server {
			v.writeBlock(w, blockNumber(b, i), b, nil, &blockStyle{})
		}
	} else {
		curl = v.writeFirsts(w, server)
	}
	if note := v.ReproNote(); note != "" {
		if !curl {
			// The compact form prints the reruns alone.
			note = strings.Replace(note, "The curl commands and reruns read", "The reruns, and the curl commands of the reports, read", 1)
		}
		fmt.Fprintln(w, "\n("+note+")")
	}
}

// writeFirsts prints the first failure of each rule and kind of answer
// (chooseFirsts): the rules that decide the verdict, or, when none of
// them failed, every rule broken. It says whether it printed the curl
// commands.
func (v *console) writeFirsts(w io.Writer, server []Block) bool {
	f := v.a.firsts
	curl := len(f.show) <= maxCurlBlocks
	st := &blockStyle{form: form{brief: true, compact: !curl}}
	shown := 0
	for i, b := range server {
		if len(f.show[i]) == 0 {
			continue
		}
		shown++
		v.writeBlock(w, blockNumber(b, i), b, f.show[i], st)
		// The failures of the block's rule counted but not kept (proxy)
		// are said with the kept ones of its kind when it has one kind,
		// else apart: one line either way.
		var more []string
		notKept := b.More
		say := func(n int64, rule rules.RuleID) string {
			if len(more) == 0 {
				return fmt.Sprintf("and %s of %s", Plural(n, "more failure"), rule)
			}
			return fmt.Sprintf("%d more of %s", n, rule)
		}
		for _, rk := range f.shown[i] {
			n := int64(f.count[rk] - 1)
			unkept := int64(0)
			if rk.rule == b.Rule && len(f.kinds[rk.rule]) == 1 {
				unkept, notKept = notKept, 0
			}
			if n+unkept <= 0 {
				continue
			}
			s := say(n+unkept, rk.rule)
			if len(f.kinds[rk.rule]) > 1 {
				s += " " + rk.kind.answered()
			}
			if unkept > 0 {
				s += fmt.Sprintf(", %d of them counted, not kept", unkept)
			}
			more = append(more, s)
		}
		if notKept > 0 {
			more = append(more, say(notKept, b.Rule)+", counted, not kept")
		}
		if len(more) > 0 {
			fmt.Fprintf(w, "   (%s)\n", strings.Join(more, ", "))
		}
	}
	if hidden := len(server) - shown; hidden > 0 || !curl {
		what := fmt.Sprintf("\nShown: the first failure of each rule broken (%d of %s)", shown, Plural(int64(len(server)), "block"))
		if f.also > 0 {
			what = fmt.Sprintf("\nShown: the first failure of each MUST rule broken (%d of %s; the %s: under To fix)", shown, Plural(int64(len(server)), "block"), Plural(int64(f.also), "SHOULD rule"))
		}
		fmt.Fprintf(w, "%s. %s\n", what, v.whereAll(!curl))
	}
	return curl
}

// whereAll says where every failure block is: the reports, when this run
// wrote them; else how to have them written. The console never points at
// files it did not write.
func (v *Verdict) whereAll(curl bool) string {
	with := ""
	if curl {
		with = ", with its curl command,"
	}
	if v.ReportDir != "" {
		return "Every failure block" + with + " is in " + SummaryMD + " and " + ReportHTML + " in " + v.ReportDir + "."
	}
	return "No report was written: run again with --report-dir DIR to have every failure block" + with + " in " + SummaryMD + " and " + ReportHTML + ", or with --verbose."
}

// rule finds a rule of the verdict.
func (v *Verdict) rule(id rules.RuleID) (Rule, bool) {
	i := slices.IndexFunc(v.Rules, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return v.Rules[i], true
}

// reproVar finds the variables a reproduction reads.
var reproVar = regexp.MustCompile(`\$\{?(PLANTCHECK_[A-Z0-9_]+)`)

// ReproNote says which variables the reproductions of the failures (the
// curl commands and the reruns) read, and how to set the token's from
// where it came: "" when they read none (or the target is the bundled
// reference, whose token is its own).
func (v *Verdict) ReproNote() string {
	if v.Reference {
		return ""
	}
	var vars []string
	for _, b := range v.Failures {
		commands := []string{b.Rerun}
		for _, e := range b.Evidence {
			commands = append(commands, e.Reproduce)
		}
		for _, m := range reproVar.FindAllStringSubmatch(strings.Join(commands, "\n"), -1) {
			vars = append(vars, "$"+m[1])
		}
	}
	if len(vars) == 0 {
		return ""
	}
	slices.Sort(vars)
	vars = slices.Compact(vars)
	note := "The curl commands and reruns read " + strings.Join(vars, ", ") + "; plantcheck never prints their values."
	if slices.Contains(vars, "$PLANTCHECK_TOKEN") && v.TokenFrom != "" && v.TokenFrom != "PLANTCHECK_TOKEN" {
		note += " The token came from " + v.TokenFrom + ": set PLANTCHECK_TOKEN to it first"
		if file, ok := strings.CutPrefix(v.TokenFrom, "--token-file "); ok {
			note += " (export PLANTCHECK_TOKEN=\"$(cat " + shell.Quote(file) + ")\")"
		}
		note += "."
	}
	if slices.ContainsFunc(vars, func(s string) bool { return strings.HasPrefix(s, "$PLANTCHECK_HEADER_") }) {
		note += " Each PLANTCHECK_HEADER_<NAME> holds " + v.words().header + "."
	}
	if slices.Contains(vars, "$"+shell.ProxyUserinfoVar) {
		note += " " + shell.ProxyUserinfoVar + " holds the user:password of the proxy's URL."
	}
	return note
}

// levelRank orders levels: MUST, SHOULD, then the rest.
func levelRank(l rules.Level) int {
	if i := slices.Index([]rules.Level{rules.Must, rules.Should}, l); i >= 0 {
		return i
	}
	return 2
}

// CatalogIndex is a rule's place in the catalog (past its end: not in it).
func CatalogIndex(id rules.RuleID) int {
	if i := slices.IndexFunc(rules.Catalog, func(r rules.Rule) bool { return r.ID == id }); i >= 0 {
		return i
	}
	return len(rules.Catalog)
}

// blockStyle is how the console prints failure blocks: its form (walk),
// and in the compact form a failure seen before (its expected, actual and
// kind of answer) is said as seen, by its block. junit.xml prints them
// as the console does, whole.
type blockStyle struct {
	form
	whole bool // junit.xml: no value cut
	seen  map[string]int
}

// headingIndent starts the lines of a compact block's heading past its
// first, apart from the block's fields (three spaces).
const headingIndent = "      "

// screenWidth is the console's width the brief console fits its lines
// to; the block's values start at column 16.
const screenWidth = 100

// fit bounds a value for the console: its lines to consoleLine bytes; in
// the compact form, its first line alone, cut (between words, never
// inside a bracket) to lines lines of the screen and wrapped there.
func (v *console) fit(st *blockStyle, s string, lines int) string {
	if !st.compact {
		return v.value(st, s)
	}
	first, _, _ := strings.Cut(s, "\n")
	return wrapAt(bound(first, lines*(screenWidth-16), true), " ", 16, screenWidth, strings.Repeat(" ", 16))
}

// fit2 is fit for a request or a response, whose body is what tells, cut
// to two lines of the screen (a body is the target's text: its cut is
// marked); a request's URL is its path, the target being said at the top.
func (v *console) fit2(st *blockStyle, s string) string {
	if !st.compact {
		return v.value(st, s)
	}
	first, _, _ := strings.Cut(s, "\n")
	if base := strings.TrimSuffix(v.Target, "/plants"); base != "" {
		if rest, ok := strings.CutPrefix(first, "POST "+base+"/"); ok {
			first = "POST /" + rest
		}
	}
	return cutBody(first, 2*screenWidth-16)
}

// cutBody bounds a request or response line to n bytes by cutting its
// quoted body inside (bound), the quote closed ("<!DOCTYPE…"), so that
// what follows the body (its size, the time of the answer) stays; a line
// without a quoted body is cut at its end.
func cutBody(s string, n int) string {
	i := strings.Index(s, ` body "`)
	if len(s) <= n || i < 0 {
		return bound(s, n, false)
	}
	head := s[:i+len(` body `)]
	q, err := strconv.QuotedPrefix(s[len(head):])
	if err != nil {
		return bound(s, n, false)
	}
	tail := s[len(head)+len(q):]
	body, _ := strconv.Unquote(q)
	quoted := func(m int) string { return strconv.Quote(bound(body, m, false)) }
	// The longest start of the body whose quoted form fits.
	m := sort.Search(len(body)+1, func(m int) bool { return len(head)+len(quoted(m))+len(tail) > n }) - 1
	if m <= len("…") {
		return bound(s, n, false)
	}
	return head + quoted(m) + tail
}

// writeBlock prints one failure block, numbered n, its long values cut:
// the pieces of evidence of only (all: nil; -1 is the block's error).
func (v *console) writeBlock(w io.Writer, n int, b Block, only []int, st *blockStyle) {
	heading := v.cut(b.Title())
	if st.compact {
		heading = wrapAt(heading, " ", len(strconv.Itoa(n))+2, screenWidth, headingIndent)
	}
	fmt.Fprintf(w, "\n%s\n", v.paint(bold, fmt.Sprintf("%d) %s", n, heading)))
	v.writeFields(w, n, b, walk(b, only, st.form), st)
}

// value bounds each line of a value for the console (cut); junit.xml
// keeps it whole.
func (v *console) value(st *blockStyle, s string) string {
	if st.whole {
		return s
	}
	return v.cut(s)
}

// writeFields prints the fields of block n (walk); in the compact form, a
// failure seen before (its expected, actual and kind of answer) is said
// as seen, by its block, with its exchange's request alone when it is
// another.
func (v *console) writeFields(w io.Writer, n int, b Block, fs []field, st *blockStyle) {
	line := func(label, s string) { fmt.Fprintf(w, "   %-13s%s\n", label+":", s) }
	const pad = "                "
	piece, seen := -1, -1 // the piece whose rule field opened it; a piece said as seen
	lastRequest := ""
	for _, f := range fs {
		e := f.E
		switch {
		case f.Piece >= 0 && f.Piece == seen:
			if f.Key == "request" && f.Text != "" && f.Text != lastRequest {
				line("request", v.fit2(st, f.Text))
			}
		case f.Key == "where":
			line("scenario", "features/"+f.Text)
		case f.Key == "requirement":
			line("requirement", v.fit(st, f.Text, 1))
		case f.Key == "error" && f.Text != "":
			line("error", indent(v.value(st, f.Text), pad))
		case f.Key == "rule":
			piece = f.Piece
			if f.Text != "" {
				line("rule", v.fit(st, fmt.Sprintf("%s (%s): %s", e.Rule, Upper(e.Level), f.Text), 1))
			}
		case f.Key == "expected":
			line("expected", v.fit(st, f.Text, 2))
		case f.Key == "actual":
			if st.compact {
				key := e.Expected + "\x00" + e.Actual + "\x00" + kind{e.Status, e.MediaType}.String()
				if at, ok := st.seen[key]; ok && at != n {
					// The same failure as one shown: its exchange alone
					// says what was sent this time.
					line("actual", v.fit(st, fmt.Sprintf("%s, as in block %d", e.Actual, at), 2))
					seen = f.Piece
					continue
				}
				if st.seen == nil {
					st.seen = map[string]int{}
				}
				st.seen[key] = n
			}
			line("actual", v.fit(st, f.Text, 2))
		case f.Key == "details":
			for i, d := range f.List {
				switch {
				case !st.compact:
					fmt.Fprintf(w, "   - %s\n", v.value(st, d))
				case i == 0:
					fmt.Fprintf(w, "   - %s\n", bound(strings.ReplaceAll(d, "\n", " "), screenWidth-5, true))
				}
			}
		case f.Key == "same":
			line("exchange", f.Text)
		case (f.Key == "request" || f.Key == "response") && (f.Text != "" || f.Piece != piece):
			// A piece's own exchange when it has one; one it shows for
			// another (walk's borrowed) whole.
			line(f.Key, v.fit2(st, f.Text))
		case f.Key == "seen" && f.Text != "":
			line("seen", f.Text)
		case f.Key == "reproduce" && f.Text != "":
			line("reproduce", indent(v.value(st, f.Text), pad))
		case f.Key == "more":
			fmt.Fprintf(w, "   (and %s of %s, counted, not kept)\n", Plural(f.More, "more failure"), f.Text)
		case f.Key == "rerun":
			line("rerun", f.Text)
		}
		if f.Key == "request" && f.Text != "" {
			lastRequest = f.Text
		}
	}
}

// cut bounds each line of a value for the console to consoleLine bytes
// (never inside a character), saying how long the line was and where it
// is whole: a 6,880-byte generated name inside a curl command takes a
// line, not a screen. The reports keep every value whole.
func (v *Verdict) cut(s string) string {
	if len(s) <= consoleLine {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) <= consoleLine {
			continue
		}
		end := consoleLine
		for end > 0 && !utf8.RuneStart(l[end]) {
			end--
		}
		where := "run with --report-dir for it whole"
		if v.ReportDir != "" {
			where = SummaryMD + " has it whole"
		}
		lines[i] = l[:end] + fmt.Sprintf(" [… cut on the console: %s bytes in all; %s]", thousands(len(l)), where)
	}
	return strings.Join(lines, "\n")
}

// thousands writes n with commas between its groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ANSI styles of the console, used only with Color.
const (
	bold   = "1"
	red    = "31"
	green  = "32"
	yellow = "33"
)

// paint styles s for a terminal when the verdict is printed in colour.
func (v *console) paint(style, s string) string {
	if !v.Color {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[0m"
}

// writeClients prints what client requests broke (proxy): a count by the
// rule their refusal exercises, and one example of each (the clients'
// requests are not the verdict's matter, and the reports keep more).
func (v *console) writeClients(w io.Writer) {
	if v.Counts.ClientViolations == 0 {
		return
	}
	effect := "reported; they fail the verdict only with --strict-clients"
	if v.Config.StrictClients {
		effect = "they fail the verdict (--strict-clients)"
	}
	fmt.Fprintf(w, "\nClient-side: %s broke the document (the clients', not the service's: %s); by what they break (a request may break several):\n",
		Plural(v.Counts.ClientViolations, "request"), effect)
	for _, g := range v.Client {
		fmt.Fprintf(w, "  %-22s %8d\n", g.Label(), g.Requests)
	}
	n := 0
	for _, b := range v.Failures {
		if b.Side != "client" || len(b.Evidence) == 0 {
			continue
		}
		n++
		fmt.Fprintf(w, "\n%d) %s\n", blockNumber(b, n-1), b.Title())
		st := &blockStyle{form: form{brief: !v.Verbose}}
		v.writeFields(w, blockNumber(b, n-1), b, slices.DeleteFunc(walk(b, nil, st.form), func(f field) bool { return f.Piece != 0 }), st)
		if more := int64(len(b.Evidence)) - 1 + b.More; more > 0 {
			fmt.Fprintf(w, "   (and %s more of %s; the reports keep up to %d)\n", Plural(more, "request"), label(b.Rule), len(b.Evidence))
		}
	}
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// wrapAt breaks s, which starts at column start, at each sep, into lines
// of at most width columns where it can (the sep's comma, if any, ending
// the line), each after the first indented.
func wrapAt(s, sep string, start, width int, indent string) string {
	var b strings.Builder
	n := start
	for i, word := range strings.Split(s, sep) {
		switch {
		case i == 0:
		case n+len(sep)+len(word) > width:
			b.WriteString(strings.TrimSuffix(sep, " ") + "\n" + indent)
			n = len(indent)
		default:
			b.WriteString(sep)
			n += len(sep)
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// bound is the one cut of a value shown: at most n bytes (n 0: whole),
// never inside a character, the cut marked with "…" (counted in n). words:
// the cut falls between two words, never inside a bracket or a quotation
// it opened, where it can (plantcheck's prose; a target's text is cut
// where the bytes end, so as to keep the most of it).
func bound(s string, n int, words bool) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	n = max(n-len("…"), 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	cut := s[:n]
	if words {
		// A bracket or a quotation the cut leaves open goes, with what
		// follows it.
		open := func(c string) bool {
			if strings.Count(c, `"`)%2 == 1 {
				return true
			}
			for _, p := range []string{"()", "[]", "{}"} {
				if strings.Count(c, p[:1]) > strings.Count(c, p[1:]) {
					return true
				}
			}
			return false
		}
		w := cut[:max(strings.LastIndexByte(cut, ' '), 0)]
		for w != "" && open(w) {
			w = w[:max(strings.LastIndexAny(w, `"([{`), 0)]
		}
		if w = strings.TrimRight(w, " ,;:"); w != "" {
			cut = w
		}
	}
	return cut + "…"
}
