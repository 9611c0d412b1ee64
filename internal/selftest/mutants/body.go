package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// The mutants of the request body: its members and their types, text that
// is not JSON read by lenient readers, and the classes of values the
// generated scenarios exercise.

var bodyMutants = []Mutant{
	mutant("accept-missing-id", "accepts a body without an id",
		"an id the server makes up when none is sent (an auto-increment key)",
		onJSONRequest(ifMissing("id", func() any { return freshID() })), rules.BodyIDRequired),
	mutant("accept-string-id", "accepts an id written as a JSON string",
		"lenient scalar coercion (Jackson's coercion of scalars, Pydantic's lax mode, Go's `,string` option)",
		onJSONRequest(func(obj map[string]any) {
			if s, ok := obj["id"].(string); ok {
				if _, err := strconv.ParseInt(s, 10, 64); err == nil {
					obj["id"] = json.Number(s)
				}
			}
		}), rules.BodyIDInteger),
	mutant("truncate-fraction-id", "reads an id of 1.5 as 1 instead of rejecting it",
		"a decoded float cast to an integer (int(x) in Python, (long) in Java, parseInt in JavaScript)",
		onJSONRequest(func(obj map[string]any) {
			if n, ok := obj["id"].(json.Number); ok {
				if whole, _, found := strings.Cut(n.String(), "."); found && !strings.ContainsAny(n.String(), "eE") {
					obj["id"] = json.Number(whole)
				}
			}
		}), rules.BodyIDInteger),
	mutant("float64-id", "reads the id as a float64, so ids just outside int64 are accepted",
		"JSON numbers read as float64 (encoding/json into any, JavaScript's Number), which rounds near 2^63",
		onJSONRequest(func(obj map[string]any) {
			if n, ok := obj["id"].(json.Number); ok {
				if f, err := n.Float64(); err == nil && (f >= math.MaxInt64 || f <= math.MinInt64) {
					obj["id"] = json.Number(strconv.FormatInt(freshID(), 10))
				}
			}
		}), rules.BodyIDInt64),
	mutant("accept-missing-name", "accepts a body without a name",
		"a default value for a missing field (a struct or column default)",
		onJSONRequest(ifMissing("name", func() any { return "unnamed" })), rules.BodyNameRequired),
	mutant("stringify-name", "accepts a name of any JSON type, turned into text",
		"any value coerced to text (fmt.Sprint, String(x), Pydantic's lax str)",
		onJSONRequest(func(obj map[string]any) {
			if v, ok := obj["name"]; ok {
				if _, isString := v.(string); !isString {
					obj["name"] = fmt.Sprint(v)
				}
			}
		}), rules.BodyNameString),
	mutant("null-name-is-empty", "reads a null name as the empty string",
		`Go's encoding/json leaves a string field untouched on null, so null reads as ""`,
		onJSONRequest(func(obj map[string]any) {
			if v, ok := obj["name"]; ok && v == nil {
				obj["name"] = ""
			}
		}), rules.BodyNameString),
	mutant("drop-bad-tag", "ignores a tag that is not a string instead of rejecting it",
		"a binder that skips fields it cannot convert instead of failing the request",
		onJSONRequest(func(obj map[string]any) {
			if v, ok := obj["tag"]; ok {
				if _, isString := v.(string); !isString {
					delete(obj, "tag")
				}
			}
		}), rules.BodyTagString),
	mutant("lenient-json", "accepts a malformed or empty body as a plant",
		"the error of json.Unmarshal unchecked: a body that does not parse leaves the defaults",
		asPlant(func(body []byte) bool { return !json.Valid(body) }, "salvaged"), rules.BodyJSON),
	mutant("unwrap-array", "accepts a body that is not an object, taking its first plant or a default",
		"a single-or-batch endpoint that takes the first element (Jackson's UNWRAP_SINGLE_VALUE_ARRAYS)",
		asPlant(func(body []byte) bool {
			var v any
			if json.Unmarshal(body, &v) != nil {
				return false
			}
			_, isObject := v.(map[string]any)
			return !isObject
		}, "unwrapped"), rules.BodyObject),

	// Narrow siblings (issue 41): the defects above on the footprint real
	// readers give them, each caught by a fixed scenario whatever the seed.
	mutant("null-tag-is-absent", "reads a tag of null as no tag, instead of rejecting it",
		"an optional field read into a pointer or an Optional (Go's *string, which null leaves nil; Pydantic's Optional[str] = None), so null is taken for a tag not sent",
		onJSONRequest(func(obj map[string]any) {
			if v, ok := obj["tag"]; ok && v == nil {
				delete(obj, "tag")
			}
		}), rules.BodyTagString),
	mutant("empty-body-as-defaults", "accepts an empty body as a plant with an empty name",
		"Go's json.NewDecoder(r.Body).Decode(&p) with io.EOF let through (err != nil && err != io.EOF), to make the body optional: an empty body leaves the zero plant",
		asPlant(func(body []byte) bool { return len(bytes.TrimSpace(body)) == 0 }, ""), rules.BodyJSON),
	mutant("null-body-as-defaults", "accepts the body null as a plant with an empty name",
		"Go's json.Unmarshal of null into a struct, which succeeds and leaves it zero, so the body null is the zero plant",
		asPlant(func(body []byte) bool { return string(bytes.TrimSpace(body)) == "null" }, ""), rules.BodyObject),
	lenient("strip-json-comments", "accepts comments in the body (/* */ and //), read as white space",
		"strip-json-comments (npm) run on the body before JSON.parse, or Jackson's ALLOW_COMMENTS alone, to let clients annotate their bodies",
		stripComments),

	// The request body: text that is not JSON, read by lenient readers.
	lenient("trailing-data", "reads the first JSON value of the body and ignores what follows it ({...}x, {...}{...})",
		"a streaming decoder that reads one value and never checks for the end (Go's json.Decoder.Decode, Jackson without FAIL_ON_TRAILING_TOKENS)",
		firstValue),
	lenient("lenient-json5", "accepts comments, trailing commas, single-quoted strings and unquoted keys",
		"a JSON5 or YAML parser, or Jackson's ALLOW_COMMENTS, ALLOW_SINGLE_QUOTES and ALLOW_UNQUOTED_FIELD_NAMES, used for JSON",
		json5),
	lenient("nan-infinity", "accepts NaN, Infinity and -Infinity as values (a member holding one is ignored)",
		"Python's json.loads, which accepts NaN, Infinity and -Infinity by default",
		pythonFloats),
	lenient("loose-numbers", "reads id with strconv.ParseInt(s, 0, 64): +5, 0x1F and 0123 (octal) are accepted",
		"numbers read with strconv.ParseInt(s, 0, 64) or C's strtol(s, NULL, 0) instead of a JSON number grammar",
		looseID),
	lenient("raw-control-chars", "accepts raw control characters (U+0000 to U+001F) inside strings",
		"Python's json.loads(strict=False) and other lenient parsers take unescaped control characters in strings",
		escapeControls),
	lenient("unclosed-object", "accepts a body cut off before the closing brace of its object",
		"a hand-rolled or repairing parser (in the manner of json_repair, dirty-json) that takes the end of input as the end of the object",
		closeObject),
	mutant("case-insensitive-keys", `reads keys without regard to case: {"ID":1,"Name":"x"} is a plant`,
		"Go's encoding/json matches object keys to struct fields without regard to case",
		onJSONRequest(func(obj map[string]any) {
			keys := slices.Sorted(maps.Keys(obj))
			for _, field := range []string{"id", "name", "tag"} {
				if _, ok := obj[field]; ok {
					continue
				}
				if i := slices.IndexFunc(keys, func(k string) bool { return strings.EqualFold(k, field) }); i >= 0 {
					obj[field] = obj[keys[i]]
					delete(obj, keys[i])
				}
			}
		}), rules.BodyIDRequired, rules.BodyNameRequired),

	// Classes of values that the generated scenarios exercise beyond the
	// hand-written examples.
	mutant("int32-id", "keeps ids in an int32: a valid id beyond it is refused",
		"an id kept in 32 bits (an INT column, an int32 or Integer field) where the contract says int64",
		onRequestRefused(func(obj map[string]any) bool {
			n, ok := obj["id"].(json.Number)
			if !ok {
				return false
			}
			v, err := strconv.ParseInt(n.String(), 10, 64)
			return err == nil && (v > math.MaxInt32 || v < math.MinInt32)
		}), rules.GenValid, rules.Create200),
	mutant("loose-tag-type", "takes a boolean tag as text instead of rejecting it",
		"booleans coerced to strings (Jackson's scalar coercion, PHP's loose typing)",
		onJSONRequest(func(obj map[string]any) {
			if b, ok := obj["tag"].(bool); ok {
				obj["tag"] = strconv.FormatBool(b)
			}
		}), rules.BodyTagString, rules.GenInvalid),
	mutant("ascii-names-only", "refuses a name that is not plain ASCII",
		"an ASCII or latin1 column, or a validation pattern such as [A-Za-z ]+, for names",
		onRequestRefused(func(obj map[string]any) bool {
			name, ok := obj["name"].(string)
			return ok && strings.IndexFunc(name, func(r rune) bool { return r > 0x7e }) >= 0
		}), rules.GenValid, rules.GenBoundary, rules.BodyNameAny),
	mutant("tag-required", "treats the optional tag as required",
		"an optional field made required in the model (a NOT NULL column, a Pydantic field without a default)",
		onRequestRefused(func(obj map[string]any) bool {
			_, ok := obj["tag"]
			return !ok
		}), rules.GenValid, rules.CreateNoTag, rules.Create200),
}

// ifMissing sets the member key, when the object lacks it, to value().
func ifMissing(key string, value func() any) func(map[string]any) {
	return func(obj map[string]any) {
		if _, ok := obj[key]; !ok {
			obj[key] = value()
		}
	}
}

// lenient is a mutant that reads a body that is not JSON as a lenient
// reader does, repair making JSON of it.
func lenient(name, defect, origin string, repair func([]byte) []byte) Mutant {
	return Mutant{Name: name, Defect: defect, Origin: origin, Rules: []rules.RuleID{rules.BodyJSON}, Wrap: onInvalidJSON(repair)}
}
