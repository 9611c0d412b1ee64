package run

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/evidence"
)

// The console formats. godog's own progress and pretty formatters end with
// a summary of their own: the failed steps with their evidence (which the
// verdict prints again, in full, with a reproduction) and counts in which a
// scenario not run reads as passed. These show the run as it goes and
// leave the summary to the verdict, so that each failure is printed once.
const (
	progressFormat = "plantcheck-progress"
	prettyFormat   = "plantcheck-pretty"
	// cucumberFormat is godog's cucumber formatter writing into the run's
	// own buffered cucumber.json (notices.cucumber). Given "cucumber:PATH",
	// godog writes the file through its colour filter, one write (a
	// system call) a rune: seconds for the megabyte of a whole run.
	cucumberFormat = "plantcheck-cucumber"
)

func init() {
	godog.Format(progressFormat, "a character per scenario; the verdict follows", func(suite string, w io.Writer) formatters.Formatter {
		return attach(suite, &console{out: w, marks: map[string]byte{}, left: map[string]int{}})
	})
	godog.Format(prettyFormat, "each scenario and its steps; the verdict follows", func(suite string, w io.Writer) formatters.Formatter {
		return attach(suite, &console{out: w, pretty: true, open: map[string]*scenarioLines{}})
	})
	cucumber := godog.FindFmt("cucumber")
	godog.Format(cucumberFormat, "godog's cucumber JSON, into the run's cucumber.json", func(suite string, w io.Writer) formatters.Formatter {
		if v, ok := runNotices.Load(suite); ok && v.(*notices).cucumber != nil {
			w = v.(*notices).cucumber
		}
		return cucumber(suite, w)
	})
}

// notices carries a run's notices (a pause for throttling) to its console,
// so that each is a line of its own, never inside a row of progress. godog
// hands a formatter's factory the suite's name and nothing of the run:
// each run names its suite apart (noticesFor), and its console finds the
// run's notices by that name.
type notices struct {
	mu  sync.Mutex
	c   *console
	out io.Writer // where a notice goes when no console of ours came
	// total is the scenarios the run selected, which progress counts
	// towards.
	total int
	// cucumber receives cucumberFormat's JSON (nil: no report folder).
	cucumber io.Writer
}

var (
	runNotices sync.Map // suite name → *notices
	runCount   atomic.Uint64
)

// noticesFor makes a run's notices and the suite name that finds them;
// done forgets them.
func noticesFor(out io.Writer) (n *notices, suite string, done func()) {
	n = &notices{out: out}
	suite = fmt.Sprintf("plantcheck#%d", runCount.Add(1))
	runNotices.Store(suite, n)
	return n, suite, func() { runNotices.Delete(suite) }
}

func attach(suite string, c *console) *console {
	if v, ok := runNotices.Load(suite); ok {
		n := v.(*notices)
		n.mu.Lock()
		n.c = c
		c.total = n.total
		n.mu.Unlock()
	}
	return c
}

// notice writes a line, which the steps made safe to print.
func (n *notices) notice(line string) {
	n.mu.Lock()
	c := n.c
	if c == nil {
		fmt.Fprintln(n.out, line)
	}
	n.mu.Unlock()
	if c != nil {
		c.notice(line)
	}
}

// console is both formats: progress writes a character per scenario, pretty
// each scenario with its steps once its last step is reported (scenarios
// that run at once are not interleaved).
type console struct {
	mu     sync.Mutex
	out    io.Writer
	pretty bool
	steps  int
	row    int // the scenarios on progress's current row
	// Progress's: the running scenarios' worst marks so far, and their
	// steps still to come; done the scenarios finished, of total.
	marks       map[string]byte
	left        map[string]int
	done, total int
	open        map[string]*scenarioLines // pretty's
}

type scenarioLines struct {
	b    strings.Builder
	left int
}

const scenariosPerRow = 70

func (c *console) TestRunStarted()                                                            {}
func (c *console) Feature(*messages.GherkinDocument, string, []byte)                          {}
func (c *console) Defined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {}

func (c *console) Pickle(p *messages.Pickle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.pretty {
		if c.left[p.Id] = len(p.Steps); len(p.Steps) == 0 {
			c.mark('.')
			c.finished(p.Id)
		}
		return
	}
	sl := &scenarioLines{left: len(p.Steps)}
	rule := ""
	if i := slices.IndexFunc(p.Tags, func(t *messages.PickleTag) bool { return features.IsRuleTag(t.Name) }); i >= 0 {
		rule = strings.TrimPrefix(p.Tags[i].Name, "@") + ": "
	}
	fmt.Fprintf(&sl.b, "\n%s%s  # %s\n", rule, p.Name, p.Uri)
	c.open[p.Id] = sl
	if sl.left == 0 {
		c.flush(p.Id)
	}
}

func (c *console) Passed(p *messages.Pickle, s *messages.PickleStep, _ *formatters.StepDefinition) {
	c.step(p, s, '.', "ok  ", nil)
}
func (c *console) Skipped(p *messages.Pickle, s *messages.PickleStep, _ *formatters.StepDefinition) {
	c.step(p, s, '-', "--  ", nil)
}
func (c *console) Undefined(p *messages.Pickle, s *messages.PickleStep, _ *formatters.StepDefinition) {
	c.step(p, s, 'U', "??  ", nil)
}
func (c *console) Pending(p *messages.Pickle, s *messages.PickleStep, _ *formatters.StepDefinition) {
	c.step(p, s, 'P', "..  ", nil)
}
func (c *console) Failed(p *messages.Pickle, s *messages.PickleStep, _ *formatters.StepDefinition, err error) {
	c.step(p, s, 'F', "FAIL", err)
}
func (c *console) Ambiguous(p *messages.Pickle, s *messages.PickleStep, _ *formatters.StepDefinition, err error) {
	c.step(p, s, 'A', "AMB ", err)
}

func (c *console) step(p *messages.Pickle, s *messages.PickleStep, mark byte, word string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.pretty {
		// A character a scenario, once it is done: the worst of its
		// steps' marks.
		c.steps++
		if worse(mark, c.marks[p.Id]) {
			c.marks[p.Id] = mark
		}
		if c.left[p.Id]--; c.left[p.Id] <= 0 {
			c.mark(c.marks[p.Id])
			delete(c.marks, p.Id)
			c.finished(p.Id)
		}
		return
	}
	sl := c.open[p.Id]
	if sl == nil {
		return
	}
	fmt.Fprintf(&sl.b, "  %s %s\n", word, s.Text)
	if err != nil {
		// Only the first line: the verdict prints the failure whole,
		// with its evidence and a reproduction. The text is the steps'
		// own, already made safe; escaped once more all the same.
		first, _, _ := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(&sl.b, "       %s (the verdict below has the evidence)\n", evidence.Text(evidence.Cut(first, 300)))
	}
	if sl.left--; sl.left <= 0 {
		c.flush(p.Id)
	}
}

func (c *console) flush(id string) {
	io.WriteString(c.out, c.open[id].b.String())
	delete(c.open, id)
}

// markRank orders the marks of progress: a scenario shows its worst
// step's.
const markRank = ".-PUAF"

func worse(a, b byte) bool {
	return b == 0 || strings.IndexByte(markRank, a) > strings.IndexByte(markRank, b)
}

// mark writes a scenario's character, ending the row when it is full.
func (c *console) mark(m byte) {
	if m == 0 {
		m = '.'
	}
	c.out.Write([]byte{m})
	if c.row++; c.row == scenariosPerRow {
		fmt.Fprintf(c.out, " %s\n", c.count())
		c.row = 0
	}
}

func (c *console) finished(id string) {
	delete(c.left, id)
	c.done++
}

// count is what progress's row ends with: the scenarios done of the
// run's total (the steps, when the total is not known).
func (c *console) count() string {
	if c.total > 0 {
		return fmt.Sprintf("%d/%d scenarios", c.done, c.total)
	}
	return fmt.Sprintf("%d steps", c.steps)
}

func (c *console) endRow() {
	if !c.pretty && c.row != 0 {
		fmt.Fprintf(c.out, "%s %s\n", strings.Repeat(" ", scenariosPerRow-c.row), c.count())
		c.row = 0
	}
}

// notice writes a line of its own: progress's row ends first; pretty's
// scenarios are written whole, so a notice falls between two.
func (c *console) notice(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endRow()
	fmt.Fprintln(c.out, line)
}

// Summary ends the progress line; the verdict is the summary.
func (c *console) Summary() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endRow()
	for id := range c.open {
		c.flush(id)
	}
}
