package shell

import (
	"os/exec"
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
