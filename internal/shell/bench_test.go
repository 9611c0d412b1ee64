package shell

import (
	"fmt"
	"strings"
	"testing"
)

// The bodies of the suite's size scenarios, whose reproductions the
// failure blocks of a run write (request_size.feature).
func sizeBodies() map[string][]byte {
	var members strings.Builder
	members.WriteString(`{"id":12345,"name":"Monstera"`)
	for i := range 1000 {
		fmt.Fprintf(&members, `,"m%05d":"%s"`, i, strings.Repeat("x", 100))
	}
	members.WriteString("}")
	long := strings.Repeat("Monstera deliciosa ", 1040000/19+1)[:1040000]
	return map[string][]byte{
		"members": []byte(members.String()),
		"name1MB": []byte(`{"id":12345,"name":"` + long + `"}`),
		"nested":  []byte(`{"id":12345,"name":"Monstera","nested":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + "}"),
	}
}

func BenchmarkRuns(b *testing.B) {
	for name, body := range sizeBodies() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				Runs(body, 16<<10)
			}
		})
	}
}
