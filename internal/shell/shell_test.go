package shell

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"name":"Fern"}`, true},
		{"Ficus lyrata 🌿 ñ", true},
		{"a\nb", false},            // a line break would split the printed command
		{"right\u202eleft", false}, // a bidi override would reorder what a terminal shows
		{"\x1b[2J", false},
		{"\xff", false},
	}
	for _, tt := range tests {
		if got := Printable([]byte(tt.in)); got != tt.want {
			t.Errorf("Printable(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestQuoteAndPrintfRoundTrip: what Quote and PrintfEscape write, a POSIX
// shell reads back as the very bytes.
func TestQuoteAndPrintfRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, in := range []string{"it's", `$HOME "x" \n`, "a\nb\x00c\xff%d"} {
		out, err := exec.Command(sh, "-c", "printf '%s' "+Quote(in)).Output()
		if in != "a\nb\x00c\xff%d" && (err != nil || string(out) != in) {
			t.Errorf("Quote(%q) reads back as %q (%v)", in, out, err)
		}
		out, err = exec.Command(sh, "-c", "printf '"+PrintfEscape([]byte(in))+"'").Output()
		if err != nil || string(out) != in {
			t.Errorf("PrintfEscape(%q) prints %q (%v)", in, out, err)
		}
	}
}

func TestHeaderVar(t *testing.T) {
	if got := HeaderVar("X-Api-Key"); got != "PLANTCHECK_HEADER_X_API_KEY" {
		t.Errorf("HeaderVar = %q", got)
	}
}

// TestRuns: what Runs writes as a command that makes it, and what it
// leaves.
func TestRuns(t *testing.T) {
	tests := []struct {
		name string
		b    string
		want []string // nil: not written so
	}{
		{"no run", strings.Repeat("ab", 100), nil},
		{"a run too short", strings.Repeat("x", RunBytes-1), nil},
		{"one letter", strings.Repeat("x", RunBytes), []string{"yes 'x' | head -n 256 | tr -d '\\n'"}},
		{"a text, then the rest of it", "{" + strings.Repeat("ab c", 100) + "ab}", []string{"printf '%s' '{'", "yes 'ab c' | head -n 100 | tr -d '\\n'", "printf '%s' 'ab}'"}},
		{"a run of a text that starts with -, taken one byte on", strings.Repeat("-x", 200), []string{"printf '%s' '-'", "yes 'x-' | head -n 199 | tr -d '\\n'", "printf '%s' 'x'"}},
		{"a run of line breaks", strings.Repeat("\n", 300), nil},
		{"what is left, too long", strings.Repeat("x", 300) + strings.Repeat("ab", 20), nil},
		{"what is left, not printable", strings.Repeat("x", 300) + "\x1b", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Runs([]byte(tc.b), 32)
			if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
				t.Errorf("Runs = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

// TestSplit: a line splits into words as a shell splits them, quotes and
// backslashes honoured, nothing expanded; a line that does not split says
// why and where.
func TestSplit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string // a substring of the error; "" for none
	}{
		{name: "empty", in: "", want: nil},
		{name: "blanks only", in: " \t\n ", want: nil},
		{name: "plain words", in: "  --strict   --rate 5 ", want: []string{"--strict", "--rate", "5"}},
		{name: "a tag expression in single quotes", in: `--tags '@must && ~@AUTH-NEAR-MISS'`, want: []string{"--tags", "@must && ~@AUTH-NEAR-MISS"}},
		{name: "a tag expression in double quotes", in: `--tags "@must && ~@AUTH-NEAR-MISS" --strict`, want: []string{"--tags", "@must && ~@AUTH-NEAR-MISS", "--strict"}},
		{name: "a single quote in double quotes", in: `--header "X-Note: it's"`, want: []string{"--header", "X-Note: it's"}},
		{name: "a quote closed inside a word", in: `--tags='@a,@b'x`, want: []string{"--tags=@a,@b" + "x"}},
		{name: "an escaped blank", in: `a\ b c`, want: []string{"a b", "c"}},
		{name: "empty quotes are a word", in: `'' a""b`, want: []string{"", "ab"}},
		{name: "escapes in double quotes", in: `"a\"b\\c\$d\` + "`" + `e\xf"`, want: []string{`a"b\c$d` + "`" + `e\xf`}},
		{name: "line breaks and a continuation", in: "--tags \\\n@must\n--strict\r\n", want: []string{"--tags", "@must", "--strict"}},
		{
			name: "nothing is expanded", in: "\"$(touch /tmp/x)\" $(id) `id` \"`id`\" $HOME ${HOME} ~ * '$HOME'",
			want: []string{"$(touch /tmp/x)", "$(id)", "`id`", "`id`", "$HOME", "${HOME}", "~", "*", "$HOME"},
		},
		{name: "a single quote never closed", in: `--tags '@must`, err: `the single quote at byte 8 ("'@must") is never closed`},
		{name: "a double quote never closed", in: `--tags "@must`, err: `the double quote at byte 8 ("\"@must") is never closed`},
		{name: "an escaped closing quote", in: `"abc\"`, err: "the double quote at byte 1"},
		{name: "a backslash at the end", in: `--strict \`, err: "ends with a backslash"},
		{name: "a NUL byte", in: "a\x00b", err: "a NUL byte at byte 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.in)
			if tt.err != "" {
				if !errors.Is(err, ErrSplit) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Split(%q) = %q, %v; want ErrSplit saying %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("Split(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestSplitAsAShellSplits: a line without anything a shell would expand
// splits as bash splits it, and Quote's words split back to themselves.
func TestSplitAsAShellSplits(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, in := range []string{
		`--tags '@must && ~@AUTH-NEAR-MISS' --strict`,
		`--header "X-Note: it's \"quoted\" \\ here" a\ b 'c'"d"e`,
		"one\ttwo three \\\nfour", // a line break is a blank to Split (the input may be YAML lines), a new command to a shell
		`"a\xb" 'a\xb' a\xb ''`,
		strings.Join([]string{Quote("it's"), Quote(`"x" \ y`), Quote(""), Quote("a\nb")}, " "),
	} {
		out, err := exec.Command(bash, "-c", "printf '%s\\0' "+in).Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		got, err := Split(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, %v; bash splits it into %q", in, got, err, want)
		}
	}
}
