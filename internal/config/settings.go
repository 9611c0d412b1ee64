package config

import (
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Setting is one setting of plantcheck, declared once. Every command's
// flags are made from Settings (Define), the environment is read from it
// (readEnv), a config file's keys are its flags' long names (for run, and
// proxy with --config: loadConfigFile), and docs/usage.md's table of flags
// is written from it. The kind of value is the field's type, which the
// flag parses; a duration needs its unit (Unitless); a number's range is
// its row's, which each command's Validate checks (checkRanges).
type Setting struct {
	// Name is the flag's long name, and its key in a config file.
	Name string
	// Commands are the commands that take it, space-separated.
	Commands string
	// Field is the field it fills in the command's settings (Define's T).
	Field string
	// Default is its value when not given, of the field's type (nil: the
	// zero value).
	Default any
	// Env is the variable read when the command line does not give the
	// flag (readEnv); help says "(env NAME)". Unset is what unsetting it
	// does, for the error of a variable set empty.
	Env, Unset string
	// Range bounds a number: Positive, NotNegative or "MIN..MAX".
	Range string
	// Own: only a server of one's own uses it; run refuses it with no
	// target rather than certify the bundled reference (missingTarget).
	Own   bool
	Usage string
}

// The ranges of a number but MIN..MAX.
const (
	Positive    = ">0"
	NotNegative = ">=0"
)

// The help of the settings several commands share.
const (
	reportsUsage        = "write the reports into this folder (created if missing): summary.json, summary.md, summary-short.md, report.html, badge.svg, junit.xml"
	baselineUsage       = "a baseline file (written by --baseline-update) or a summary.json of this plantcheck, whose failures are known: exit 1 only on a failure it does not hold (a rule newly failing, a new scenario or a new kind of answer) or on a stale entry (one that holds no failure of a rule judged now: remove it); the reports still show every failure, the known ones marked"
	baselineUpdateUsage = "write the baseline this verdict passes with to this file (an entry for each rule and kind of answer that failed), for --baseline; edit it by hand to broaden or explain entries"
)

// Settings are every setting of every command. A name several commands
// share means one thing in each (Alias says which).
var Settings = []Setting{
	// run
	{Name: "base-url", Commands: "run", Field: "BaseURL", Env: EnvBaseURL, Unset: "to certify the bundled reference server", Usage: "the target's base URL; POST <base-url>/plants is tested"},
	{Name: "token", Commands: "run", Field: "Token", Env: EnvToken, Own: true, Usage: "the bearer token the target issued, never printed; the variable keeps it out of the process list"},
	{Name: "config", Commands: "run", Field: "ConfigPath", Usage: "read settings from this YAML file: its keys are these flags' long names (default: ./plantcheck.yaml when there is one); the command line wins"},
	{Name: "token-file", Commands: "run", Field: "TokenFile", Own: true, Usage: "read the bearer token from this file (a mounted secret); one trailing line break is dropped"},
	{Name: "header", Commands: "run", Field: "HeaderLines", Own: true, Usage: "'Name: value' sent on every request, such as a gateway's key (repeatable); the value is a secret, never printed"},
	{Name: "timeout", Commands: "run", Field: "Timeout", Default: DefaultTimeout, Range: Positive, Usage: "time limit of one HTTP exchange"},
	{Name: "tags", Commands: "run", Field: "Tags", Usage: "scenarios to run, by tag: '&&' and, ',' or, '~' not; such as '@AUTH-MISSING', '@area-auth,@area-media' or '@must && ~@AUTH-NEAR-MISS' (plantcheck rules lists the tags)"},
	{Name: "strict", Commands: "run", Field: "Strict", Usage: "fail the run when a SHOULD rule fails, too"},
	{Name: "concurrency", Commands: "run", Field: "Concurrency", Default: DefaultConcurrency, Range: fmt.Sprintf("1..%d", MaxConcurrency), Usage: fmt.Sprintf("scenarios, and requests, in flight at once (1-%d); the verdict does not depend on it", MaxConcurrency)},
	{Name: "examples", Commands: "run", Field: "Examples", Default: DefaultExamples, Range: fmt.Sprintf("1..%d", MaxExamples), Usage: fmt.Sprintf("valid bodies each generated scenario sends (1-%d)", MaxExamples)},
	{Name: "rate", Commands: "run", Field: "Rate", Range: NotNegative, Usage: "send at most this many requests a second: the ceiling of the pace, which a throttling target lowers on its own (0: no limit)"},
	{Name: "format", Commands: "run", Field: "Format", Usage: "console format: progress (a character a scenario, then the verdict) or pretty (every scenario and its steps, then the verdict)"},
	{Name: "verbose", Commands: "run", Field: "Verbose", Usage: "print every failure block whole, with its curl command, and the whole rule table, as summary.md does (default: what to fix, and the first failure of each rule broken)"},
	{Name: "color", Commands: "run", Field: "ColorMode", Default: "auto", Usage: "colour the verdict: auto (on a terminal, unless NO_COLOR is set), always or never"},
	{Name: "report-dir", Commands: "run", Field: "ReportDir", Usage: reportsUsage + ", cucumber.json"},
	{Name: "har", Commands: "run", Field: "HAR", Usage: "write every exchange the run makes to this file as HAR 1.2 (the token as <token>, other secrets <redacted>), for a browser's developer tools, an API client or 'plantcheck judge'"},
	{Name: "ca-cert", Commands: "run", Field: "CACert", Own: true, Usage: "PEM file of certificate authorities to trust for an https target, beside the system's"},
	{Name: "cert", Commands: "run", Field: "Cert", Own: true, Usage: "PEM file of a client certificate, for a server that asks for one (with --key)"},
	{Name: "key", Commands: "run proxy", Field: "Key", Own: true, Usage: "PEM file of the client certificate's private key (with --cert)"},
	{Name: "proxy", Commands: "run", Field: "Proxy", Own: true, Usage: "send every request through this proxy (http, https or socks5 URL); default: HTTP_PROXY, HTTPS_PROXY and NO_PROXY"},
	{Name: "all-strings", Commands: "run", Field: "AllStrings", Usage: "send every string of the catalog of hostile strings as a name and as a tag, not the fixed ones and one drawn from each category"},
	{Name: "seed", Commands: "run", Field: "Seed", Usage: "seed of the run's random ids and values; 0 draws one (printed with the verdict)"},
	{Name: "baseline", Commands: "run proxy", Field: "BaselineFile", Usage: baselineUsage},
	{Name: "baseline-update", Commands: "run proxy", Field: "BaselineUpdate", Usage: baselineUpdateUsage},
	{Name: "require-target", Commands: "run", Field: "RequireTarget", Usage: "refuse (exit 2) to certify the bundled reference server: a CI gate must name its target (--base-url, " + EnvBaseURL + " or the config file)"},

	// serve
	{Name: "addr", Commands: "serve", Field: "Addr", Default: "127.0.0.1:8080", Usage: "address to listen on (host:port; port 0 picks a free one)"},
	{Name: "token", Commands: "serve", Field: "Token", Env: EnvToken, Unset: "to have one made up", Usage: "the bearer token clients must present"},
	{Name: "max-body", Commands: "serve", Field: "MaxBody", Default: int64(1 << 20), Range: Positive, Usage: "largest request body accepted, in bytes"},
	{Name: "log", Commands: "serve", Field: "Log", Usage: "log one line per request to stderr (method, path, status, duration; never a token or a body)"},
	{Name: "mutant", Commands: "serve", Field: "Mutant", Usage: "serve a deliberately broken variant instead (see 'plantcheck selftest --list'), to see what a failure report looks like; several, comma-separated, make a server with several mistakes"},

	// proxy, judge and merge: traffic judged into a verdict
	{Name: "addr", Commands: "proxy", Field: "Addr", Default: "127.0.0.1:8081", Usage: "address to listen on (host:port; port 0 picks a free one)"},
	{Name: "upstream", Commands: "proxy", Field: "UpstreamText", Env: EnvUpstream, Usage: "the service's base URL, http or https"},
	{Name: "config", Commands: "proxy", Field: "ConfigPath", Usage: "read settings from this YAML file: its keys are these flags' long names; the command line wins"},
	{Name: "report-dir", Commands: "proxy judge merge", Field: "ReportDir", Usage: reportsUsage},
	{Name: "strict", Commands: "proxy judge merge", Field: "Strict", Usage: "a failed SHOULD rule fails the verdict too"},
	{Name: "strict-clients", Commands: "proxy judge merge", Field: "StrictClients", Usage: "a client request that breaks the document fails the verdict too (exit 1)"},
	{Name: "ca-cert", Commands: "proxy", Field: "CACert", Usage: "PEM file of certificate authorities to trust for an https upstream, beside the system's"},
	{Name: "cert", Commands: "proxy", Field: "Cert", Usage: "PEM file of a client certificate, for an https upstream that asks for one (with --key)"},
	{Name: "timeout", Commands: "proxy", Field: "Timeout", Default: ProxyTimeout, Range: Positive, Usage: "time limit to connect to the upstream and for it to begin its answer"},
	{Name: "max-judge", Commands: "proxy", Field: "MaxJudge", Default: int64(DefaultMaxJudge), Range: Positive, Usage: "bytes of each body kept for judging; a longer body is forwarded whole and not judged"},
	{Name: "report-every", Commands: "proxy", Field: "ReportEvery", Default: 5 * time.Second, Range: NotNegative, Usage: "with --report-dir, rewrite the reports (atomically) this often while running, and at exit (0: only at exit)"},
	{Name: "progress", Commands: "proxy", Field: "Progress", Default: 5 * time.Second, Range: NotNegative, Usage: "how often a progress line goes to stderr (0: never)"},
	{Name: "admin-addr", Commands: "proxy", Field: "AdminAddr", Usage: "serve /healthz, /readyz and /metrics (Prometheus) on this address (host:port), apart from --addr"},
	{Name: "har", Commands: "proxy", Field: "HAR", Usage: "write every exchange the upstream answered to this file as HAR 1.2, secrets <redacted> (bodies of POST /plants up to --max-judge; others' headers only), for 'plantcheck judge' or a browser's developer tools"},
	{Name: "events", Commands: "proxy", Field: "Events", Usage: "write one line of JSON to this file (- for standard output) for each failed judgement, as it is judged"},
	{Name: "base-url", Commands: "judge", Field: "BaseText", Usage: "the service's base URL (or base path, /v1): POST <base-url>/plants is judged, other exchanges counted apart (default: any host, POST /plants)"},
	{Name: "max-judge", Commands: "judge", Field: "MaxJudge", Default: int64(DefaultMaxJudge), Range: Positive, Usage: "bytes of each body judged; a longer body is not judged"},
	{Name: "max-file", Commands: "judge", Field: "MaxFile", Default: int64(MaxFile), Range: Positive, Usage: "bytes of each file read at most; a larger file is refused"},
	{Name: "auth-stripped", Commands: "judge", Field: "AuthStripped", Usage: "the recorder stripped the Authorization headers (Chrome's sanitized export): read a request without one as carrying a Bearer credential, and say so"},

	// diff, compare, docs, rules
	{Name: "format", Commands: "diff", Field: "Format", Default: "text", Usage: "output: text (the console), markdown (a pull request) or json (tools)"},
	{Name: "strict", Commands: "diff", Field: "Strict", Usage: "a SHOULD rule's regression fails the diff too"},
	{Name: "report-dir", Commands: "compare", Field: "ReportDir", Usage: "write compare.html, compare.md, compare.json and the badges into this folder (created if missing)"},
	{Name: "format", Commands: "compare", Field: "Format", Default: "markdown", Usage: "without --report-dir, what to print: markdown or json"},
	{Name: "report-dir", Commands: "docs", Field: "ReportDir", Usage: "folder to write the documentation into (created if missing)"},
	{Name: "format", Commands: "rules", Field: "Format", Default: "text", Usage: "output: text (a table) or json (the catalog and its scenarios)"},
	{Name: "verbose", Commands: "rules", Field: "Verbose", Usage: "list each rule's scenarios and requirement"},

	// selftest
	{Name: "mutant", Commands: "selftest", Field: "Only", Usage: "run only these mutants (names, comma-separated)"},
	{Name: "list", Commands: "selftest", Field: "List", Usage: "list the mutants and the rules each breaks, and run nothing"},
	{Name: "concurrency", Commands: "selftest", Field: "Parallel", Default: 2, Usage: "runs at once"},
	{Name: "tags", Commands: "selftest", Field: "Tags", Usage: "restrict every run to some rules (a godog tag expression)"},
	{Name: "without", Commands: "selftest", Field: "WithoutList", Usage: "leave these checks out of every run, to see what they catch (" + strings.Join(Removable, ", ") + ")"},
	{Name: "seeds", Commands: "selftest", Field: "Seeds", Default: 1, Range: fmt.Sprintf("1..%d", MaxSeeds), Usage: fmt.Sprintf("run every server under this many fresh seeds (1 to %d): a mutant is caught only if caught under each", MaxSeeds)},
	{Name: "seed", Commands: "selftest", Field: "Seed", Usage: "run every server under this one seed, to replay a miss (the gap line names it); 0 draws one"},
	{Name: "via-proxy", Commands: "selftest", Field: "ViaProxy", Usage: "run the suite through a plantcheck proxy in front of each server, and hold each run's verdict to the proxy's, rule by rule"},

	// verify: the flags that check a bundle, in the order Verify.Validate checks them
	{Name: "bundle", Commands: "verify", Field: "Bundle", Usage: "a Sigstore bundle (as actions/attest or cosign attest-blob --new-bundle-format write it) whose signed statement must match DIR's; needs --trusted-root and the signer's identity"},
	{Name: "trusted-root", Commands: "verify", Field: "TrustedRoot", Usage: "the Sigstore trusted root the bundle is checked against (trusted_root.json, or the JSON lines of gh attestation trusted-root); read from this file, never fetched"},
	{Name: "certificate-identity", Commands: "verify", Field: "Identity", Usage: "the signer's identity the bundle's certificate must name (for actions/attest: the workflow's URL, https://github.com/OWNER/REPO/.github/workflows/FILE@REF)"},
	{Name: "certificate-identity-regexp", Commands: "verify", Field: "IdentityRegexp", Usage: "a regular expression the signer's identity must match, instead of --certificate-identity"},
	{Name: "certificate-oidc-issuer", Commands: "verify", Field: "Issuer", Usage: "the OIDC issuer the bundle's certificate must name (for GitHub Actions: https://token.actions.githubusercontent.com)"},
	{Name: "certificate-oidc-issuer-regexp", Commands: "verify", Field: "IssuerRegexp", Usage: "a regular expression the OIDC issuer must match, instead of --certificate-oidc-issuer"},
}

// Takes reports whether command takes s.
func (s Setting) Takes(command string) bool {
	return slices.Contains(strings.Fields(s.Commands), command)
}

// Define defines command's flags on fs, each filling its field of the T
// returned (a field's type and a default's must agree: a mismatch is a
// defect, which panics at once), and the deprecated names (Aliases).
func Define[T any](fs *flag.FlagSet, command string) *T {
	cfg := new(T)
	v := reflect.ValueOf(cfg).Elem()
	for _, s := range Settings {
		if !s.Takes(command) {
			continue
		}
		field := v.FieldByName(s.Field)
		if !field.IsValid() {
			panic(fmt.Sprintf("config: %s --%s fills %s, which %T lacks", command, s.Name, s.Field, *cfg))
		}
		usage := s.Usage
		if s.Env != "" {
			usage += " (env " + s.Env + ")"
		}
		switch p := field.Addr().Interface().(type) {
		case *string:
			fs.StringVar(p, s.Name, deflt[string](s), usage)
		case *bool:
			fs.BoolVar(p, s.Name, deflt[bool](s), usage)
		case *int:
			fs.IntVar(p, s.Name, deflt[int](s), usage)
		case *int64:
			fs.Int64Var(p, s.Name, deflt[int64](s), usage)
		case *uint64:
			fs.Uint64Var(p, s.Name, deflt[uint64](s), usage)
		case *float64:
			fs.Float64Var(p, s.Name, deflt[float64](s), usage)
		case *time.Duration:
			fs.DurationVar(p, s.Name, deflt[time.Duration](s), usage)
		case flag.Value:
			fs.Var(p, s.Name, usage)
		default:
			panic(fmt.Sprintf("config: %s --%s: a field of type %s", command, s.Name, field.Type()))
		}
	}
	defineAliases(fs, command)
	return cfg
}

// deflt is s's default as a V (a defect when it is another type).
func deflt[V any](s Setting) V {
	v, ok := s.Default.(V)
	if !ok && s.Default != nil {
		panic(fmt.Sprintf("config: --%s: a default of type %T", s.Name, s.Default))
	}
	return v
}

// readEnv sets each of command's settings that has a variable from it,
// unless the command line gave the flag (cli; --NAME-file gives --NAME
// too). It returns the names set so. A variable set counts, whatever its
// value: set empty or blank (an unset CI secret, say) it is an error that
// names it, never the default, the config file's value or a made-up one,
// since nothing the user forgot to set may turn a gate green.
func readEnv(fs *flag.FlagSet, command string, cli map[string]bool, env Env) (map[string]bool, error) {
	read := map[string]bool{}
	for _, s := range Settings {
		if s.Env == "" || !s.Takes(command) || cli[s.Name] || cli[s.Name+"-file"] {
			continue
		}
		v, ok := env.lookup(s.Env)
		switch {
		case !ok:
			continue
		case strings.TrimSpace(v) == "":
			pass := "--" + s.Name
			if fs.Lookup(s.Name+"-file") != nil {
				pass += " or --" + s.Name + "-file"
			}
			msg := fmt.Sprintf("%s is set but empty (an unset CI variable or secret?): set it, or pass %s", s.Env, pass)
			if s.Unset != "" {
				msg += "; unset " + s.Env + " " + s.Unset
			}
			return nil, Errorf("%s", msg)
		}
		if err := fs.Lookup(s.Name).Value.Set(v); err != nil {
			return nil, Errorf("%s: not a valid value of --%s", s.Env, s.Name)
		}
		read[s.Name] = true
	}
	return read, nil
}

// checkRanges returns the first number of cfg, command's settings, out of
// its row's Range (an ErrConfig), in the order of Settings.
func checkRanges(command string, cfg any) error {
	v := reflect.Indirect(reflect.ValueOf(cfg))
	for _, s := range Settings {
		f := v.FieldByName(s.Field)
		if s.Range == "" || !s.Takes(command) || !f.IsValid() {
			continue
		}
		n := f.Convert(reflect.TypeFor[float64]()).Float()
		lo, hi, between := strings.Cut(s.Range, "..")
		switch {
		case between && (n < atof(lo) || n > atof(hi)):
			return Errorf("--%s %v: it must be between %s and %s", s.Name, f, lo, hi)
		case s.Range == NotNegative && n < 0:
			return Errorf("--%s %v: it must be 0 or more", s.Name, f)
		case s.Range == Positive && n <= 0 && f.Type() == reflect.TypeFor[time.Duration]():
			return Errorf("--%s %v: it must be more than 0 (such as 2s or 500ms)", s.Name, f)
		case s.Range == Positive && n <= 0:
			return Errorf("--%s %v: it must be more than 0", s.Name, f)
		}
	}
	return nil
}

func atof(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
