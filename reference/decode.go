package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeNewPlant reads a request body as a NewPlant record: one JSON object
// with id (an int64 integer, required), name (a string, required) and tag (a
// string, optional). Unknown fields are ignored: the schema does not forbid
// them.
//
// The body is decoded by hand, into raw values per field, rather than into a
// struct: encoding/json would match "ID" to id, turn null into "" and read
// numbers as float64, where 9223372036854775808 and 9223372036854775807 are
// the same number.
func decodeNewPlant(body []byte) (Plant, *requestError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return Plant{}, fail(errMalformedJSON, "The request body is empty; it must be a JSON object with the fields id and name.")
	}
	if !utf8.Valid(body) {
		return Plant{}, fail(errMalformedJSON, "The request body is not valid UTF-8, as JSON must be.")
	}
	// Unmarshal checks the whole text before it decodes any of it, so a
	// body it takes is valid JSON; only a body it refuses needs a closer
	// look to say what is wrong with it.
	var fields map[string]json.RawMessage
	if bytes.TrimSpace(body)[0] != '{' || json.Unmarshal(body, &fields) != nil {
		return Plant{}, whyNotAnObject(body)
	}

	var p Plant
	var problems []string
	if raw, ok := fields["id"]; !ok {
		problems = append(problems, `The field "id" is required.`)
	} else if id, msg := parseInt64(raw); msg != "" {
		problems = append(problems, msg)
	} else {
		p.ID = id
	}
	if raw, ok := fields["name"]; !ok {
		problems = append(problems, `The field "name" is required.`)
	} else if name, ok := parseString(raw); !ok {
		problems = append(problems, `The field "name" must be a JSON string.`)
	} else {
		p.Name = name
	}
	if raw, ok := fields["tag"]; ok {
		if tag, ok := parseString(raw); !ok {
			problems = append(problems, `The field "tag" must be a JSON string when present.`)
		} else {
			p.Tag = &tag
		}
	}
	if len(problems) > 0 {
		// Every problem is reported, not only the first, so that a client
		// can fix its request in one go.
		return Plant{}, fail(errInvalidField, strings.Join(problems, " "))
	}
	return p, nil
}

// whyNotAnObject says why a body is not one JSON object: it is not JSON,
// it has data after its JSON value, or its JSON value is not an object.
func whyNotAnObject(body []byte) *requestError {
	if json.Valid(body) {
		return fail(errNotAnObject, "The request body must be a JSON object with the fields id and name.")
	}
	var first json.RawMessage
	if json.NewDecoder(bytes.NewReader(body)).Decode(&first) == nil {
		return fail(errMalformedJSON, "The request body has data after its JSON value; it must hold exactly one JSON object.")
	}
	return fail(errMalformedJSON, "The request body is not valid JSON.")
}

// parseString reads a raw JSON value that must be a string. null is not a
// string.
func parseString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		// The body is valid JSON and UTF-8, so a string without escapes
		// is the very text between its quotes.
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// Messages for an id that is a number but not an int64 integer.
const (
	msgIDNotInteger = `The field "id" must be an integer (a JSON number).`
	msgIDFraction   = `The field "id" must be an integer; it has a fraction.`
	msgIDRange      = `The field "id" must be an int64 integer, from -9223372036854775808 to 9223372036854775807.`
)

// parseInt64 reads a raw JSON value that must be an integer within int64. It
// judges the text exactly, never through float64, and in time linear in its
// length: 1e999999999 is out of range without anyone computing it.
//
// A number with a zero fraction is an integer: JSON Schema 2020-12, which
// OpenAPI 3.1 uses, defines integers by value, not by spelling. So 1.0 is 1,
// 1e3 is 1000, 1.5e1 is 15 and -0 is 0; 1.5 and 1e-1 are fractions.
//
// It returns the integer, or a message for the client.
func parseInt64(raw json.RawMessage) (int64, string) {
	lit := string(raw)
	if lit == "" || lit[0] != '-' && (lit[0] < '0' || lit[0] > '9') {
		return 0, msgIDNotInteger // a string, true, false, null, an object or an array
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err == nil {
		return n, ""
	}
	if errors.Is(err, strconv.ErrRange) && !strings.ContainsAny(lit, ".eE") {
		// (ParseInt reports a range error as soon as the digits overflow,
		// before it meets an exponent that may bring them back in range.)
		return 0, msgIDRange
	}

	// The literal has a fraction or an exponent. The JSON grammar, which
	// json.Valid has already checked, makes it -?int(.frac)?([eE][+-]?exp)?.
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(lit), "e")
	intPart, fracPart, _ := strings.Cut(mant, ".")

	// The value is digits × 10^shift.
	digits := strings.TrimLeft(intPart+fracPart, "0")
	if digits == "" {
		return 0, "" // 0.0, -0.0e5 and the like: zero, an integer
	}
	shift := -int64(len(fracPart))
	if hasExp {
		exp, err := strconv.ParseInt(expText, 10, 64)
		// An exponent beyond ±2^50 swamps any body that fits in memory:
		// the value is far too large, or a fraction far below 1.
		const far = 1 << 50
		switch {
		case err != nil && strings.HasPrefix(expText, "-"), err == nil && exp < -far:
			return 0, msgIDFraction
		case err != nil, exp > far:
			return 0, msgIDRange
		}
		shift += exp
	}
	trimmed := strings.TrimRight(digits, "0")
	shift += int64(len(digits) - len(trimmed))
	digits = trimmed
	if shift < 0 {
		// digits ends in a non-zero digit, so moving the point left leaves
		// a fraction.
		return 0, msgIDFraction
	}
	if int64(len(digits))+shift > 19 {
		return 0, msgIDRange // more digits than any int64 has
	}
	text := digits + strings.Repeat("0", int(shift))
	if neg {
		text = "-" + text
	}
	n, err = strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, msgIDRange
	}
	return n, ""
}
