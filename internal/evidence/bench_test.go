package evidence

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRedact redacts the bodies of the suite's size scenarios, whose
// evidence (the scrub of the answer, the HAR, the reproduction) a run
// makes, with a run's secrets: a token of 26 characters and near misses.
func BenchmarkRedact(b *testing.B) {
	const token = "q3Zk-x9TbLm_Vw2hRf7sPaYdNc"
	r := New(token, strings.ToUpper(token), token[:25]+"X", "Q"+token[1:], token[:13]+token[14:])
	var members strings.Builder
	members.WriteString(`{"id":12345,"name":"Monstera"`)
	for i := range 1000 {
		fmt.Fprintf(&members, `,"m%05d":"%s"`, i, strings.Repeat("x", 100))
	}
	members.WriteString("}")
	long := strings.Repeat("Monstera deliciosa ", 1040000/19+1)[:1040000]
	for name, body := range map[string]string{
		"members": members.String(),
		"name1MB": `{"id":12345,"name":"` + long + `"}`,
		"forest":  `{"id":12345,"name":"` + strings.Repeat("森", 70000) + `"}`,
		"plant":   `{"id":12345,"name":"Monstera deliciosa","tag":"q3Zk-x9TbLm_Vw2hRf7sPaYdNc"}`,
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r.String(body)
			}
		})
	}
}

// BenchmarkNew builds a Redactor as an exchange with secrets of its own
// does: a run's token and near misses, and a credential of the exchange.
func BenchmarkNew(b *testing.B) {
	const token = "q3Zk-x9TbLm_Vw2hRf7sPaYdNc"
	secrets := []string{token, strings.ToUpper(token), token[:25] + "X", "Q" + token[1:], token[:13] + token[14:], "Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng==", "user:password123456"}
	b.ReportAllocs()
	for b.Loop() {
		New(secrets...)
	}
}
