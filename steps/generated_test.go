package steps

import (
	"encoding/json"
	"testing"
)

func TestSameJSON(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"the same bytes", `"Monstera"`, `"Monstera"`, true},
		{"an escape for a character", `"Caf\u00e9"`, `"Café"`, true},
		{"an escaped solidus", `"a\/b"`, `"a/b"`, true},
		{"another text", `"Monstera"`, `"monstera"`, false},
		{"a trailing space inside the string", `"Monstera"`, `"Monstera "`, false},
		{"space around the value", ` "Fern" `, `"Fern"`, true},
		{"a number and its string", `42`, `"42"`, false},
		{"the same number written otherwise", `1e2`, `100`, true},
		{"not JSON, the same bytes", `{`, `{`, true},
		{"not JSON, other bytes", `{`, `[`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameJSON(json.RawMessage(tt.a), json.RawMessage(tt.b)); got != tt.want {
				t.Errorf("sameJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
