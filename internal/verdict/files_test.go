package verdict

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestReportsAreNeverTorn rewrites the reports while a reader reads them,
// as a proxy that rewrites them every few seconds is read by a sidecar's
// shipper: every read of summary.json is a whole document (one of the
// verdicts written), and no temporary file is left behind.
func TestReportsAreNeverTorn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	verdicts := []*Verdict{
		standing(Proxy, Pass, Counts{Exchanges: 1}, Config{}),
		standing(Proxy, Fail, Counts{Exchanges: 2}, Config{}),
	}
	// A long one, so that a write takes more than one system call.
	verdicts[1].Error = strings.Repeat("a reason long enough to need many writes ", 4000)
	if err := verdicts[0].WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(stop)
		// Ten rewrites: the reader reads thousands of times meanwhile,
		// and summary.json written in place (os.WriteFile) is torn in
		// nine reads of ten.
		for i := range 10 {
			if err := verdicts[i%2].WriteFiles(dir); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads, torn := 0, 0
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		b, err := os.ReadFile(filepath.Join(dir, SummaryJSON))
		if err != nil {
			t.Fatalf("read while rewritten: %v", err)
		}
		reads++
		var got Verdict
		if json.Unmarshal(b, &got) != nil || got.Counts.Exchanges < 1 {
			torn++
		}
	}
	wg.Wait()
	if torn > 0 {
		t.Errorf("%d of %d reads saw a torn summary.json", torn, reads)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	for _, name := range []string{SummaryJSON, SummaryMD, ReportHTML, BadgeSVG, JUnitXML} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, mode %v, want a file of mode 0644", name, err, fi)
		}
	}
}
