package config

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
)

// Env is what the configuration reads of the process beside its flags.
type Env struct {
	Getenv func(string) string
	// Lookup tells a variable set empty from one unset (nil: set when
	// Getenv gives a value).
	Lookup     func(string) (string, bool)
	IsTerminal bool // the console is one (--color auto)
}

func (e Env) lookup(k string) (string, bool) {
	if e.Lookup != nil {
		return e.Lookup(k)
	}
	v := e.Getenv(k)
	return v, v != ""
}

// RunFlags are run's flags (Define[RunFlags]): its settings, and those
// Resolve reads into them.
type RunFlags struct {
	Run
	TokenFile, ConfigPath, ColorMode string
	HeaderLines                      headerFlag
	RequireTarget                    bool
}

// Resolve reads the settings, after fs, made by Define, has parsed the
// command line: the command line, then the environment, then a config
// file, then the defaults. It returns the Run validated (Reference set
// when no target is named), and warnings to print beside it.
func (f *RunFlags) Resolve(fs *flag.FlagSet, env Env) (Run, []string, error) {
	cli := visited(fs)
	used, err := loadConfigFile(fs, f.ConfigPath, cli, env.Getenv)
	if err != nil {
		return Run{}, nil, err
	}
	set := visited(fs) // the command line's and the file's
	fromEnv, err := readEnv(fs, "run", cli, env)
	if err != nil {
		return Run{}, nil, err
	}
	cfg := f.Run
	cfg.ConfigFile = used
	if msg := missingTarget(fromEnv, cli, set, cfg.BaseURL, used, f.RequireTarget); msg != "" {
		return Run{}, nil, errors.New(msg)
	}
	if err := f.token(&cfg, cli, set, fromEnv, used); err != nil {
		return Run{}, nil, err
	}
	if len(f.HeaderLines) > 0 {
		cfg.Headers = http.Header{}
		for _, h := range f.HeaderLines {
			name, value, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(name) == "" {
				return Run{}, nil, errors.New("--header wants 'Name: value'")
			}
			cfg.Headers[strings.TrimSpace(name)] = append(cfg.Headers[strings.TrimSpace(name)], strings.TrimSpace(value))
		}
	}
	switch f.ColorMode {
	case "auto":
		// https://no-color.org: NO_COLOR set and not empty turns colour off.
		cfg.Color = env.IsTerminal && env.Getenv("NO_COLOR") == ""
	case "always":
		cfg.Color = true
	case "never":
	default:
		return Run{}, nil, Errorf("--color %q: it is auto, always or never", f.ColorMode)
	}
	// progress on a terminal too: pretty prints every scenario, a few
	// hundred lines before the verdict, and a console is read from its
	// top, which leads with what to fix.
	cfg.Format = cmp.Or(cfg.Format, "progress")
	cfg.Reference = strings.TrimSpace(cfg.BaseURL) == ""
	if cfg.Reference {
		cfg.BaseURL = ""
	}
	if err := cfg.Validate(); err != nil {
		return Run{}, nil, err
	}
	cfg.Defaults() // the seed: every other default the flags carry
	var warnings []string
	if n := len(cfg.Token); n > 0 && n < 8 { // likely to occur in ordinary text, and its hiding to garble the evidence
		warnings = append(warnings, "the token is shorter than 8 characters: it is hidden wherever it occurs in the evidence, which it may garble (the verdict is taken on the answers as sent)")
	}
	return cfg, warnings, nil
}

// token reads the token from where it was given (readEnv has read the
// variable), and says where in cfg.TokenFrom.
func (f *RunFlags) token(cfg *Run, cli, set, fromEnv map[string]bool, used string) error {
	fromFile := ""
	inFile := "the config file " + evidence.Text(used)
	switch {
	case cli["token"] && cli["token-file"], !cli["token"] && !cli["token-file"] && !fromEnv["token"] && set["token"] && set["token-file"]:
		return errors.New("give --token or --token-file, not both")
	case cli["token"]:
		cfg.TokenFrom = "--token"
	case cli["token-file"]:
		fromFile = f.TokenFile
		cfg.TokenFrom = "--token-file " + evidence.Text(f.TokenFile)
	case fromEnv["token"]:
		cfg.TokenFrom = EnvToken
	case set["token-file"]:
		fromFile = f.TokenFile
		cfg.TokenFrom = "--token-file " + evidence.Text(f.TokenFile) + ", named in " + inFile
	case set["token"]:
		cfg.TokenFrom = inFile + " (key token)"
	}
	if fromFile != "" {
		token, err := readTokenFile(fromFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		cfg.Token = token
	}
	return nil
}

// missingTarget returns why run must not certify the bundled reference
// server ("" when it may, or a target is named): a target given empty (an
// unset CI variable, say), or a setting meant for a server of one's own
// given without one, which would turn a gate green having tested nothing
// of the user's.
func missingTarget(fromEnv, flagged, set map[string]bool, baseURL, configFile string, require bool) string {
	if strings.TrimSpace(baseURL) != "" {
		return ""
	}
	const certify = "certify the bundled reference server"
	inFile := "the config file " + evidence.Text(configFile)
	switch { // a variable set empty is readEnv's error
	case flagged["base-url"]:
		return "--base-url is empty: give your server's base URL (such as --base-url https://plants.example.com), or leave --base-url out to " + certify
	case set["base-url"]:
		return inFile + " gives an empty base-url: give your server's base URL there, or remove the key to " + certify
	}
	var given, undo []string
	for _, s := range Settings {
		name := s.Name
		switch {
		case !s.Own || !s.Takes("run"):
		case flagged[name]:
			given, undo = append(given, "--"+name), append(undo, "leave out --"+name)
		case set[name]:
			given, undo = append(given, name+" in "+inFile), append(undo, "remove the key "+name+" from the config file")
		}
	}
	if fromEnv["token"] {
		given, undo = append(given, EnvToken), append(undo, "unset "+EnvToken)
	}
	if flagged["config"] {
		given, undo = append(given, "--config"), append(undo, "leave out --config")
	}
	switch {
	case require && len(given) == 0:
		return "no target: --require-target refuses to " + certify + ": pass --base-url with your server's URL, or set " + EnvBaseURL +
			" (in the GitHub Action: the base-url input, or certify-reference: true to " + certify + ")"
	case len(given) == 0:
		return ""
	}
	return fmt.Sprintf("%s given, but no target: pass --base-url with your server's URL (or set %s); to %s instead, %s",
		strings.Join(given, ", "), EnvBaseURL, certify, strings.Join(undo, " and "))
}

// maxTokenFile bounds a token file: a token is a line, not a document.
const maxTokenFile = 64 << 10

// readTokenFile reads a token kept in a file, as secrets are mounted: one
// trailing line break (LF or CRLF) is dropped, nothing else; its content
// never appears in an error.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("%s holds more than %d bytes: not a token", path, maxTokenFile)
	}
	token := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	switch {
	case token == "":
		return "", fmt.Errorf("%s is empty", path)
	case strings.ContainsAny(token, "\r\n"):
		return "", fmt.Errorf("%s holds more than one line: a token is one line", path)
	}
	return token, nil
}

func visited(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
