package config

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
)

// headerFlag collects --header, which a config file may give as a list
// (the only repeatable flag).
type headerFlag []string

func (h *headerFlag) String() string     { return "" } // values are secrets
func (h *headerFlag) Set(v string) error { *h = append(*h, v); return nil }

// loadConfigFile applies a YAML config file to fs: each key is the long
// name of one of fs's flags, its value a scalar written with fs.Set as
// its text (a list for --header), `${VAR}` in it expanded from getenv (an
// unset or empty variable is an error naming it, never silently an empty
// token). The flags set on the command line (set) win. With path "" it
// reads plantcheck.yaml in the working directory if there is one, so that
// a repository can carry its settings beside its workflow. It returns the
// file used ("" none).
//
// Values may be secrets (tokens, header values), so no error names one:
// errors name the file, the key, its line and the variable.
func loadConfigFile(fs *flag.FlagSet, path string, set map[string]bool, getenv func(string) string) (used string, err error) {
	used = cmp.Or(path, "plantcheck.yaml")
	data, err := os.ReadFile(used)
	if err != nil {
		if path == "" && errors.Is(err, os.ErrNotExist) {
			return "", nil
		}
		return "", fmt.Errorf("config: %w", err)
	}
	root, err := parseConfig(data)
	if err != nil {
		return "", fmt.Errorf("config %s: %w", used, err)
	}
	if root == nil {
		return used, nil
	}
	seen := map[string]bool{}
	// Every variable that is unset, or named without braces, is reported
	// at once, so that one run lists all there are to fix.
	var unset []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		keyNode, valueNode := root.Content[i], resolveAlias(root.Content[i+1])
		if keyNode.Kind != yaml.ScalarNode {
			return "", fmt.Errorf("config %s: line %d: a key must be a flag's name", used, keyNode.Line)
		}
		name := keyNode.Value
		if seen[name] {
			return "", fmt.Errorf("config %s: line %d: key %q given twice", used, keyNode.Line, name)
		}
		seen[name] = true
		if name == "config" {
			return "", fmt.Errorf("config %s: line %d: key \"config\": a config file cannot name another", used, keyNode.Line)
		}
		f := fs.Lookup(name)
		if f == nil {
			keys, mean := configKeys(fs), ""
			if s := Suggest(name, keys); s != "" {
				mean = fmt.Sprintf("; did you mean %s?", s)
			}
			return "", fmt.Errorf("config %s: line %d: unknown key %q%s; the keys are the long names of the flags: %s",
				used, keyNode.Line, name, mean, strings.Join(keys, ", "))
		}
		at := fmt.Sprintf("config %s: line %d: key %q", used, valueNode.Line, name)
		values, err := configValues(f, valueNode)
		if err != nil {
			return "", fmt.Errorf("%s: %w", at, err)
		}
		if set[name] {
			// The command line wins, and a variable the ignored value names
			// need not be set.
			continue
		}
		for _, v := range values {
			// A header's value begins after "Name:".
			if _, hv, ok := strings.Cut(v, ":"); ok && name == "header" && bareVar(strings.TrimSpace(hv)) != "" {
				err = bareVarError(bareVar(strings.TrimSpace(hv)))
			} else {
				v, err = expandVars(v, getenv)
			}
			if errors.As(err, new(varError)) {
				unset = append(unset, fmt.Sprintf("%s: %v", at, err))
				continue
			}
			if err != nil {
				return "", fmt.Errorf("%s: %w", at, err)
			}
			if why := Unitless(f.Value, v); why != "" {
				return "", fmt.Errorf("%s: %s", at, why)
			}
			if err := fs.Set(name, v); err != nil {
				// The flag's own error may quote the value: describe the
				// value wanted instead.
				return "", fmt.Errorf("%s: not a valid %s; the value is not shown, as it may be a secret", at, flagKind(f))
			}
		}
	}
	if len(unset) > 0 {
		return "", errors.New(strings.Join(unset, "\n"))
	}
	return used, nil
}

// varError is a value whose variable cannot be read.
type varError string

func (e varError) Error() string { return string(e) }

// parseConfig returns the mapping of data, one YAML document (nil: empty).
func parseConfig(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, yamlError(err)
		}
		return nil, fmt.Errorf("line %d: a second YAML document; a config file is one mapping", extra.Line)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil, nil
		}
		root = root.Content[0]
	}
	root = resolveAlias(root)
	switch {
	case root.Kind == yaml.ScalarNode && root.Tag == "!!null":
		return nil, nil
	case root.Kind != yaml.MappingNode:
		return nil, fmt.Errorf("line %d: want a mapping of flag names to values", root.Line)
	}
	return root, nil
}

// yamlError reports where the YAML is broken but not the parser's message,
// which may quote what it found there.
func yamlError(err error) error {
	var le *yaml.LoadError
	if errors.As(err, &le) && le.Mark.Line > 0 {
		return fmt.Errorf("line %d, column %d: not valid YAML", le.Mark.Line, le.Mark.Column)
	}
	return errors.New("not valid YAML")
}

// configValues returns the text of each value n gives flag f.
func configValues(f *flag.Flag, n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, errors.New("no value")
		}
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		if _, ok := f.Value.(*headerFlag); !ok {
			return nil, fmt.Errorf("a list, but --%s takes one value", f.Name)
		}
		values := make([]string, 0, len(n.Content))
		for i, item := range n.Content {
			item = resolveAlias(item)
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return nil, fmt.Errorf("item %d of the list is not a string, number or bool", i+1)
			}
			values = append(values, item.Value)
		}
		return values, nil
	default:
		return nil, errors.New("want a string, number or bool (or a list of them for a repeatable flag), not a mapping")
	}
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// expandVars replaces each ${NAME} in s with getenv(NAME), not expanded
// again. A lone "$" (common in tokens) stays as written.
func expandVars(s string, getenv func(string) string) (string, error) {
	if name := bareVar(s); name != "" {
		return "", bareVarError(name)
	}
	var b strings.Builder
	for {
		before, after, found := strings.Cut(s, "${")
		b.WriteString(before)
		if !found {
			return b.String(), nil
		}
		name, rest, closed := strings.Cut(after, "}")
		if !closed || !varName.MatchString(name) {
			// The text after "${" is not shown: it may be part of a secret.
			return "", errors.New("a ${ that does not start a ${NAME} reference (NAME: letters, digits and _)")
		}
		v := getenv(name)
		if v == "" {
			return "", varError(fmt.Sprintf("environment variable %s is unset or empty", name))
		}
		b.WriteString(v)
		s = rest
	}
}

// bareVarError says that $NAME is not read (a token may begin with "$"),
// so that a value written so would be sent as the very text "$NAME".
func bareVarError(name string) error {
	return varError(fmt.Sprintf("$%s names a variable without braces, and would be sent as written: write ${%s}"+
		" (a value that truly begins with $ and a letter goes on the command line or in the environment)", name, name))
}

// bareVar returns NAME when s begins with $NAME, a variable's name
// written without braces ("" otherwise: "$2b$…" and "$" stay text).
func bareVar(s string) string {
	if m := bareName.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

var (
	varName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	bareName = regexp.MustCompile(`^\$([A-Za-z_][A-Za-z0-9_]*)`)
)

func configKeys(fs *flag.FlagSet) []string {
	var keys []string
	fs.VisitAll(func(f *flag.Flag) { // in order
		if f.Name != "config" {
			keys = append(keys, f.Name)
		}
	})
	return keys
}

const durationKind = `duration (such as "2s" or "1m30s")`

// Unitless says why v, a bare number (no secret), is refused for a
// duration flag: seconds or milliseconds? ("" when it is not refused).
func Unitless(value flag.Value, v string) string {
	if g, ok := value.(flag.Getter); ok {
		if _, ok := g.Get().(time.Duration); ok {
			if n, err := strconv.ParseFloat(v, 64); err == nil && n != 0 {
				return fmt.Sprintf("%s: a duration needs its unit, such as %ss or %sms", v, v, v)
			}
		}
	}
	return ""
}

// IsBool reports whether v is a boolean flag's value (given without one).
func IsBool(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagKind names the kind of value f takes, for an error that cannot quote
// the value given.
func flagKind(f *flag.Flag) string {
	if IsBool(f.Value) {
		return "bool (true or false)"
	}
	kind, _ := flag.UnquoteUsage(f)
	switch kind {
	case "duration":
		return durationKind
	case "", "value":
		return "value"
	}
	return kind
}
