package judge

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

func TestReadSent(t *testing.T) {
	tests := []struct {
		name            string
		body            string
		wantName        string
		wantTag         string
		hasName, hasTag bool
		unjudged        string // a part of the reason, "" when judged
	}{
		{"name and tag", `{"id":1,"name":"Fern","tag":"green"}`, "Fern", "green", true, true, ""},
		{"escapes decoded", `{"name":"\u0046ern \"x\" \ud83c\udf3f","id":1}`, "Fern \"x\" 🌿", "", true, false, ""},
		{"white space between tokens", "{ \"id\" : 1 ,\n \"name\" : \" Fern \" }", " Fern ", "", true, false, ""},
		{"empty tag", `{"id":1,"name":"","tag":""}`, "", "", true, true, ""},
		{"name not a string", `{"id":1,"name":42}`, "", "", false, false, ""},
		{"name null", `{"id":1,"name":null}`, "", "", false, false, ""},
		{"a key in other case is not the key", `{"id":1,"Name":"Fern"}`, "", "", false, false, ""},
		{"name given twice", `{"id":1,"name":"a","name":"b"}`, "", "", false, false, "twice"},
		{"escaped high surrogate alone", `{"id":1,"name":"a\ud800b"}`, "", "", false, false, "lone surrogate"},
		{"escaped low surrogate alone", `{"id":1,"name":"\udc00"}`, "", "", false, false, "lone surrogate"},
		{"high surrogate at the end", `{"id":1,"tag":"x\ud83c","name":"a"}`, "", "", false, false, "lone surrogate"},
		{"an escaped backslash before u is no escape", `{"id":1,"name":"\\ud800"}`, `\ud800`, "", true, false, ""},
		{"trailing bytes", `{"id":1,"name":"a"}x`, "", "", false, false, "not JSON"},
		{"a second object after the first", `{"id":1,"name":"a"}{}`, "", "", false, false, "not JSON"},
		{"cut short", `{"id":1,"name":"a"`, "", "", false, false, "not JSON"},
		{"cut in a value", `{"id":1,"name":"abc`, "", "", false, false, "not JSON"},
		{"white space after the object", "{\"id\":1,\"name\":\"a\"} \r\n\t", "a", "", true, false, ""},
		{"a long name without escapes", `{"id":1,"name":"` + strings.Repeat("é", 5000) + `"}`, strings.Repeat("é", 5000), "", true, false, ""},
		{"control character raw in a string", "{\"id\":1,\"name\":\"a\x01\"}", "", "", false, false, "not JSON"},
		{"not an object", `["a"]`, "", "", false, false, "not a JSON object"},
		{"invalid UTF-8", "{\"id\":1,\"name\":\"\xff\"}", "", "", false, false, "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ReadSent([]byte(tt.body))
			if tt.unjudged != "" {
				if !strings.Contains(s.Unjudged, tt.unjudged) {
					t.Fatalf("Unjudged = %q, want it to mention %q", s.Unjudged, tt.unjudged)
				}
				return
			}
			if s.Unjudged != "" {
				t.Fatalf("Unjudged = %q, want a judgement", s.Unjudged)
			}
			if s.Name != tt.wantName || s.HasName != tt.hasName || s.Tag != tt.wantTag || s.HasTag != tt.hasTag {
				t.Errorf("got name %q (%v) tag %q (%v), want %q (%v) %q (%v)",
					s.Name, s.HasName, s.Tag, s.HasTag, tt.wantName, tt.hasName, tt.wantTag, tt.hasTag)
			}
		})
	}
}

func TestEcho(t *testing.T) {
	tests := []struct {
		name   string
		sent   string
		answer string
		want   []string // "RULE: a part of Actual", in order
	}{
		{"exact echo", `{"id":1,"name":"Fern","tag":"green"}`, `{"name":"Fern","tag":"green"}`, nil},
		{"exact echo, escaped differently", `{"id":1,"name":"<é>"}`, `{"name":"\u003c\u00e9\u003e"}`, nil},
		{"extra properties are the document's business", `{"id":1,"name":"F"}`, `{"name":"F","x":null}`, nil},
		{"the id echoed: noID judges it", `{"id":1,"name":"F"}`, `{"name":"F","id":1}`, nil},
		{"an id of its own: noID judges it", `{"id":1,"name":"F","tag":"t"}`, `{"id":"p-1","name":"F","tag":"t"}`, nil},
		{"name trimmed", `{"id":1,"name":" Fern "}`, `{"name":"Fern"}`, []string{"CREATE-NAME: trimmed"}},
		{"name as a number", `{"id":1,"name":"42"}`, `{"name":42}`, []string{"CREATE-NAME: not a string"}},
		{"name HTML-escaped", `{"id":1,"name":"a<b"}`, `{"name":"a&lt;b"}`, []string{"CREATE-NAME: HTML-escaped"}},
		{"name cut", `{"id":1,"name":"abcdef"}`, `{"name":"abc"}`, []string{"CREATE-NAME: cut to its first 3 of 6"}},
		{"name missing", `{"id":1,"name":"a"}`, `{"tag":"a"}`, []string{"CREATE-NAME: missing", `CREATE-NO-TAG: tag is the string "a"`}},
		{"name case", `{"id":1,"name":"Fern"}`, `{"name":"FERN"}`, []string{"CREATE-NAME: case"}},
		{"NUL removed", `{"id":1,"name":"a\u0000b"}`, `{"name":"ab"}`, []string{"CREATE-NAME: NUL"}},
		{"one code point changed", `{"id":1,"name":"🌵x"}`, `{"name":"?x"}`, []string{"CREATE-NAME: character 1 differs: U+1F335 sent, U+003F"}},
		{"NFC is not NFD", `{"id":1,"name":"e\u0301"}`, `{"name":"\u00e9"}`, []string{"CREATE-NAME: character 1 differs"}},
		{"empty tag dropped", `{"id":1,"name":"a","tag":""}`, `{"name":"a"}`, []string{"CREATE-TAG: tag is missing"}},
		{"tag null", `{"id":1,"name":"a","tag":"x"}`, `{"name":"a","tag":null}`, []string{"CREATE-TAG: not a string"}},
		{"tag invented", `{"id":1,"name":"a"}`, `{"name":"a","tag":""}`, []string{`CREATE-NO-TAG: tag is the string ""`}},
		{"tag null where none was sent", `{"id":1,"name":"a"}`, `{"name":"a","tag":null}`, []string{"CREATE-NO-TAG: null"}},
		{"not an object", `{"id":1,"name":"a","tag":"t"}`, `["a"]`, []string{"CREATE-NAME: not a JSON object", "CREATE-TAG: not a JSON object"}},
		{"a long name echoed as sent", `{"id":1,"name":"` + strings.Repeat("ab", 4000) + `"}`, `{"name":"` + strings.Repeat("ab", 4000) + `"}`, nil},
		{"a long name cut by one", `{"id":1,"name":"` + strings.Repeat("ab", 4000) + `"}`, `{"name":"` + strings.Repeat("ab", 4000)[1:] + `"}`, []string{"CREATE-NAME: character 1 differs"}},
		// What departs leads a long value, so that a cut never hides it.
		{"a long name broken deep inside", `{"id":1,"name":"` + strings.Repeat("森", 30000) + `"}`, `{"name":"` + strings.Repeat("森", 21000) + "\ufffd\ufffd" + strings.Repeat("森", 8999) + `"}`, []string{`CREATE-NAME: name: character 21001 differs: U+68EE sent, U+FFFD answered; it is "森森`}},
		{"a short name, the value first", `{"id":1,"name":"Fern"}`, `{"name":"FERN"}`, []string{`CREATE-NAME: name is "FERN": its letter case changed`}},
		{"the text sent, one escape in it", `{"id":1,"name":"a\\b"}`, `{"name":"a\\b"}`, nil},
		{"the text sent, its escape changed", `{"id":1,"name":"a\\nb"}`, `{"name":"a\nb"}`, []string{"CREATE-NAME: character 2 differs: U+005C sent, U+000A"}},
		{"unjudged: name twice", `{"id":1,"name":"a","name":"b"}`, `{"name":"c"}`, nil},
		{"invalid request: nothing due", `{"id":1,"name":7}`, `{"name":"7"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Echo(ReadSent([]byte(tt.sent)), []byte(tt.answer), nil)
			if len(got) != len(tt.want) {
				t.Fatalf("%d failures %+v, want %d %v", len(got), got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				rule, part, _ := strings.Cut(w, ": ")
				if string(got[i].Rule) != rule || !strings.Contains(got[i].Actual, part) {
					t.Errorf("failure %d = %s %q, want %s containing %q", i, got[i].Rule, got[i].Actual, rule, part)
				}
			}
		})
	}
}

// TestEchoNotUTF8: a name that is not UTF-8 (which ReadSent never gives)
// is not the answer's string of the same bytes, which a JSON reader takes
// as U+FFFD.
func TestEchoNotUTF8(t *testing.T) {
	for _, name := range []string{"a\xffb", "\xc3"} {
		got := Echo(Sent{Name: name, HasName: true}, []byte(`{"name":"`+name+`"}`), nil)
		if len(got) != 1 || got[0].Rule != rules.CreateName {
			t.Errorf("Echo(%q) = %+v, want a CREATE-NAME failure", name, got)
		}
	}
}

func TestQuote(t *testing.T) {
	long := strings.Repeat("é", 300) // 600 bytes: the cut falls inside no rune
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Fern", `"Fern"`},
		{"controls escaped", "a\x1b[2Jb\u202e", `"a\x1b[2Jb\u202e"`},
		{"invalid byte escaped", "a\xffb", `"a\xffb"`},
		{"long, cut on a rune boundary", long, `"` + strings.Repeat("é", 256) + `" … (600 bytes in all)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Errorf("Quote = %s, want %s", got, tt.want)
			}
		})
	}
}

// FuzzReadSent holds the one-Unmarshal reading of a plain body to the
// member walk: wherever it reads a body at all, it reads what the walk
// reads; and given the body as the document's check decoded it, it reads
// what it reads without.
func FuzzReadSent(f *testing.F) {
	v, err := spec.Default()
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"id":1,"name":"Fern","tag":"green"}`,
		`{"id":1,"name":"a","name":"b"}`,
		`{"id":1,"name":{"name":"x"}}`,
		`{"id":1,"tag":["tag"],"name":"tag"}`,
		`{"id":1e400,"name":"a"}`,
		`{"id":1,"Name":"a","NAME":"b"}`,
		`{"id":1,"name":"a"} {}`,
		`{"id":1,"name":null,"tag":7}`,
		`{"id":1,"name":"` + strings.Repeat("é", 100) + `"}`,
		`[{"name":"a"}]`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) {
			return
		}
		plain, ok := readSentPlain(body, nil)
		if _, decoded := v.ReadBody(OpMethod, OpPath, body); decoded != nil {
			if again, okAgain := readSentPlain(body, decoded); again != plain || okAgain != ok {
				t.Errorf("%q: read from the check's decoding as %+v (%v), alone as %+v (%v)", body, again, okAgain, plain, ok)
			}
		}
		if !ok {
			return
		}
		if walk := readSentWalk(body); plain != walk {
			t.Errorf("%q: read as %+v, the walk reads %+v", body, plain, walk)
		}
	})
}

// Echo is echoIn of an answer's bytes, as the judge reads them (judgeEcho
// judges no echo of a request unjudged or with no name).
func Echo(sent Sent, answer []byte, redact func(string) string) []EchoFailure {
	if sent.Unjudged != "" || !sent.HasName {
		return nil
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	obj, ok := object(answer)
	return echoIn(sent, obj, ok, redact)
}

// TestEchoedReadsAsObject holds the byte-for-byte reading of an echo to
// the decoder: wherever echoed reads an answer, object reads it as the
// same members with the same text, on every pair of a sent body and an
// answer below (names with escapes, quotes, non-ASCII, case, white space,
// a prefix of the name sent; answers reordered, spaced, cut, extended).
func TestEchoedReadsAsObject(t *testing.T) {
	names := []string{"", "Fern", "fern", "Fer", "Ferns", "a b", " Fern ", "é森🌿", "<b>&amp;", "a\u2028b", "\x7f", "ab" + strings.Repeat("森", 2000)}
	var bodies []string
	for _, n := range names {
		bodies = append(bodies, `{"id":1,"name":"`+n+`"}`, `{"name":"`+n+`","id":1,"tag":"`+n+`"}`, `{ "id" : 1 , "tag" : "x" , "name" : "`+n+`" }`)
	}
	bodies = append(bodies,
		`{"id":1,"name":"a\"b"}`, `{"id":1,"name":"a\\b"}`, `{"id":1,"name":"\u0041"}`, `{"id":1,"name":"a","name":"b"}`,
		`{"id":1,"name":"a","x":{"tag":"t"}}`, `{"id":1,"name":7}`, `{"id":1,"name":"a","tag":null}`, `["name"]`, `{"id":1,"name":"a"`)
	var answers []string
	for _, n := range names {
		for _, tag := range []string{"", ",\"tag\":\"" + n + "\"", `,"tag":"x"`, `,"tag":""`, `,"tag":null`, `,"id":1`, `,"tag":"x","id":1`} {
			answers = append(answers, `{"name":"`+n+`"`+tag+`}`, " \t\r\n{\"name\":\""+n+"\""+tag+"}\n", `{"name": "`+n+`"`+tag+`}`, `{"name":"`+n+`"`+tag+`}x`, `{"name":"`+n+`"`+tag)
		}
		answers = append(answers, `{"tag":"x","name":"`+n+`"}`, `{"NAME":"`+n+`"}`, `{"name":"`+n+`"}{}`, `[{"name":"`+n+`"}]`)
	}
	answers = append(answers, `{"name":"a\"b"}`, `{"name":"a\\b"}`, `{"name":"\u0041"}`, `{"name":"A"}`, `{"name":"a","name":"b"}`, `{"name":"a\"}`, "{\"name\":\"a\xffb\"}", `null`, ``)
	fast := 0
	for _, body := range bodies {
		sent, plain := readSent([]byte(body), nil)
		if !plain {
			continue
		}
		for _, answer := range answers {
			got, ok := echoed([]byte(answer), sent)
			if !ok {
				continue
			}
			fast++
			want, wantOK := object([]byte(answer))
			if !wantOK || len(got) != len(want) {
				t.Errorf("sent %q, answer %q: echoed reads %q, object %q (%v)", body, answer, got, want, wantOK)
				continue
			}
			for k, raw := range want {
				if string(got[k]) != string(raw) {
					t.Errorf("sent %q, answer %q: %s is %q, object reads %q", body, answer, k, got[k], raw)
				}
			}
		}
	}
	// One name with its tag and one without, each in three wrappings.
	if want := 3 * 2 * len(names); fast < want {
		t.Errorf("echoed read %d answers, want at least %d", fast, want)
	}
}

// FuzzEchoed holds echoed to object on any pair of a sent body and an
// answer.
func FuzzEchoed(f *testing.F) {
	f.Add([]byte(`{"id":1,"name":"Fern","tag":"t"}`), []byte(`{"name":"Fern","tag":"t"}`))
	f.Add([]byte(`{"id":1,"name":"a"}`), []byte("\n{\"name\":\"a\"} "))
	f.Add([]byte(`{"id":1,"name":"a"}`), []byte(`{"name":"a"}{"name":"a"}`))
	f.Fuzz(func(t *testing.T, body, answer []byte) {
		sent, plain := readSent(body, nil)
		if !plain {
			return
		}
		got, ok := echoed(answer, sent)
		if !ok {
			return
		}
		want, wantOK := object(answer)
		if !wantOK || len(got) != len(want) {
			t.Fatalf("sent %q, answer %q: echoed reads %q, object %q (%v)", body, answer, got, want, wantOK)
		}
		for k, raw := range want {
			if string(got[k]) != string(raw) {
				t.Errorf("sent %q, answer %q: %s is %q, object reads %q", body, answer, k, got[k], raw)
			}
		}
	})
}

// TestEchoedReadsTheReferencesAnswer: the answer the reference writes to a
// plain body, and one that drops its tag, are read without decoding; others
// are left to object.
func TestEchoedReadsTheReferencesAnswer(t *testing.T) {
	tests := []struct {
		name, sent, answer string
		want               bool
	}{
		{"name", `{"id":1,"name":"Fern"}`, "{\"name\":\"Fern\"}\n", true},
		{"name and tag", `{"id":1,"tag":"green","name":"Fern"}`, "{\"name\":\"Fern\",\"tag\":\"green\"}\n", true},
		{"a megabyte name", `{"id":1,"name":"` + strings.Repeat("M", 1<<20) + `"}`, `{"name":"` + strings.Repeat("M", 1<<20) + `"}`, true},
		{"a tag not sent", `{"id":1,"name":"Fern"}`, `{"name":"Fern","tag":"green"}`, false},
		{"a tag not answered", `{"id":1,"name":"Fern","tag":"green"}`, `{"name":"Fern"}`, true},
		{"a name changed", `{"id":1,"name":"Fern"}`, `{"name":"FERN"}`, false},
		{"spaced", `{"id":1,"name":"Fern"}`, `{"name": "Fern"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent, plain := readSent([]byte(tt.sent), nil)
			if !plain {
				t.Fatalf("%q is not read as plain", tt.sent)
			}
			if _, ok := echoed([]byte(tt.answer), sent); ok != tt.want {
				t.Errorf("echoed = %v, want %v", ok, tt.want)
			}
		})
	}
}
