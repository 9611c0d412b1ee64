package exchange

import (
	"strings"
	"testing"
)

// BenchmarkBodySecrets reads the size probe's body, which names no
// credential, as every recorded exchange's is read.
func BenchmarkBodySecrets(b *testing.B) {
	body := []byte(`{"name":"` + strings.Repeat("Monstera deliciosa ", 1040000/19+1)[:1040000] + `"}`)
	b.SetBytes(maxSecretScan)
	b.ReportAllocs()
	for b.Loop() {
		BodySecrets(body, nil)
	}
}
