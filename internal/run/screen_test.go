package run

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// fiveMistakes is a Plant Store as a user writes one on net/http, with
// five mistakes of different kinds planted in it:
//
//  1. a created plant is answered 201 Created, not the spec's 200;
//  2. an error's Content-Type is set after WriteHeader, so net/http
//     sniffs the JSON body as text/plain;
//  3. the tag is never echoed: the answer is built from the name alone;
//  4. a missing name is accepted: it decodes into a string, whose zero
//     value is "";
//  5. the token is compared by prefix, so any credential that starts
//     with it is accepted.
//
// Everything else keeps the contract.
func fiveMistakes(token string) http.Handler {
	var mu sync.Mutex
	stored := map[int64]bool{}
	refuse := func(w http.ResponseWriter, code int, message string) {
		body, _ := json.Marshal(map[string]any{"error": code, "message": message})
		w.WriteHeader(http.StatusBadRequest)
		w.Header().Set("Content-Type", "application/json") // mistake 2: too late
		w.Write(body)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/plants" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			refuse(w, 3, "The request body is too large.")
			return
		}
		auth := r.Header.Values("Authorization")
		if len(auth) != 1 || !strings.HasPrefix(auth[0], "Bearer "+token) { // mistake 5
			refuse(w, 1, "The bearer token is not valid.")
			return
		}
		if ct := r.Header.Values("Content-Type"); len(ct) != 1 {
			refuse(w, 2, "The request body must be sent as application/json.")
			return
		} else if media, _, err := mime.ParseMediaType(ct[0]); err != nil || media != "application/json" {
			refuse(w, 2, "The request body must be sent as application/json.")
			return
		}
		if !utf8.Valid(raw) || !json.Valid(raw) {
			refuse(w, 5, "The request body is not valid JSON.")
			return
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
			refuse(w, 6, "The request body must be a JSON object.")
			return
		}
		var plant struct {
			ID   int64
			Name string // mistake 4: a missing name reads as ""
			Tag  *string
		}
		id, ok := fields["id"]
		if !ok || json.Unmarshal(id, &plant.ID) != nil || bytes.Equal(id, []byte("null")) {
			refuse(w, 7, `The field "id" must be an int64 integer.`)
			return
		}
		if name, ok := fields["name"]; ok && (bytes.Equal(name, []byte("null")) || json.Unmarshal(name, &plant.Name) != nil) {
			refuse(w, 7, `The field "name" must be a string.`)
			return
		}
		if tag, ok := fields["tag"]; ok && (bytes.Equal(tag, []byte("null")) || json.Unmarshal(tag, &plant.Tag) != nil) {
			refuse(w, 7, `The field "tag" must be a string.`)
			return
		}
		mu.Lock()
		dup := stored[plant.ID]
		stored[plant.ID] = true
		mu.Unlock()
		if dup {
			refuse(w, 8, `A plant with this "id" is already stored.`)
			return
		}
		body, _ := json.Marshal(map[string]string{"name": plant.Name}) // mistake 3: no tag
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated) // mistake 1
		w.Write(body)
	})
}

// consoleBound is the screen lines, at 100 columns, the console of the
// five-mistake server may take (progress, verdict and failures): 310
// before the brief console (213 lines), about 135 with it; about 165 since
// its headings and values are wrapped whole, never cut inside a bracket,
// and a ninth MUST rule (MEDIA-ACCEPT) is broken by the 201.
const consoleBound = 170

// TestConsoleFitsAScreenOrTwo: for a server with five mistakes the console
// leads with what to fix and stays within consoleBound screen lines, yet
// names every MUST rule broken in a block of its first failure with the
// requirement, expected, actual and the rerun; a rule broken with two
// kinds of answer (201 and 400 text/plain) shows both; the reports keep
// every block; --verbose prints them all.
func TestConsoleFitsAScreenOrTwo(t *testing.T) {
	t.Parallel()
	const token = "s3cret-plant-token"
	srv := httptest.NewServer(fiveMistakes(token))
	defer srv.Close()
	var out bytes.Buffer
	dir := t.TempDir()
	rep, err := runWith(context.Background(), Config{BaseURL: srv.URL, Token: token, Timeout: time.Minute, ReportDir: dir}, Options{Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteVerdict(&out)
	console := out.String()
	if f := os.Getenv("PLANTCHECK_CONSOLE_OUT"); f != "" {
		os.WriteFile(f, out.Bytes(), 0o644)
	}
	n := screenLines(console, 100)
	t.Logf("%d lines, %d screen lines at 100 columns", strings.Count(console, "\n"), n)
	if n > consoleBound {
		t.Errorf("the console takes %d lines of a 100-column screen, want at most %d:\n%s", n, consoleBound, console)
	}
	if rep.ExitCode() != 1 {
		t.Fatalf("exit %d, want 1", rep.ExitCode())
	}
	fix := strings.Index(console, "To fix: ")
	if fix < 0 || fix > strings.Index(console, "Failures (") {
		t.Errorf("the console does not lead with what to fix:\n%s", console)
	}
	blocks := regexp.MustCompile(`\n\n\d+\) `).Split(console, -1)
	v := rep.Model()
	for _, r := range v.Rules {
		if r.Outcome != verdict.Fail || r.Level != rules.Must {
			continue
		}
		shown := false
		for _, b := range blocks[1:] {
			heading, _, _ := strings.Cut(b, "\n")
			if !strings.Contains(heading, string(r.ID)+" (MUST)") {
				continue
			}
			shown = true
			for _, want := range []string{"\n   expected:    ", "\n   actual:      ", "\n   rerun:       plantcheck run "} {
				if !strings.Contains(b, want) {
					t.Errorf("the block of %s's first failure lacks %q:\n%s", r.ID, want, b)
				}
			}
			if !strings.Contains(b, "\n   requirement: ") && !strings.Contains(b, "\n   rule:        "+string(r.ID)) {
				t.Errorf("the block of %s's first failure lacks its requirement:\n%s", r.ID, b)
			}
			break
		}
		if !shown {
			t.Errorf("%s (MUST) failed, and no block of the console shows it:\n%s", r.ID, console)
		}
	}
	// The mistakes, as the list of what to fix names them.
	for _, want := range []string{
		"expected status 200 with a Plant record; got status 201", // 1: 201 on create
		"answered 400 text/plain (block ",                         // 2: the media type of a 400
		"BODY-NAME-REQUIRED",                                      // 4: a missing name accepted
		"AUTH-NEAR-MISS",                                          // 5: the token compared by prefix
		"Every failure block, with its curl command, is in summary.md and report.html in " + dir,
	} {
		if !strings.Contains(console, want) {
			t.Errorf("the console lacks %q:\n%s", want, console)
		}
	}
	if strings.Contains(console, "curl -sS") {
		t.Errorf("the brief console prints curl commands, which the reports keep:\n%s", console)
	}
	md, err := os.ReadFile(filepath.Join(dir, verdict.SummaryMD))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(string(md), "curl -sS"), rep.Model().Counts.Failed; got < want {
		t.Errorf("summary.md holds %d curl commands, want one a failed scenario at least (%d)", got, want)
	}
	var verbose bytes.Buffer
	full := rep.Model()
	full.WriteText(&verbose, verdict.TextOptions{Verbose: true})
	if got, want := strings.Count(verbose.String(), "\n   rerun:       "), len(full.Failures); got != want {
		t.Errorf("--verbose prints %d blocks, want every one (%d)", got, want)
	}
}

// screenLines counts the lines s takes on a terminal width columns wide
// (a character a column).
func screenLines(s string, width int) int {
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		n += max(1, (utf8.RuneCountInString(l)+width-1)/width)
	}
	return n
}
