package config

import (
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
)

// The settings of the commands beside run, proxy and judge: each is
// defined on its flag set here, and read by the command once it has parsed.

// Serve is plantcheck serve's configuration.
type Serve struct {
	Addr string
	// Token is --token, else PLANTCHECK_TOKEN; "" when neither is given
	// (serve makes one up).
	Token   string
	MaxBody int64
	Log     bool
	// Mutant names the deliberately broken variants to serve instead,
	// comma-separated.
	Mutant string
}

// ServeFlags are serve's flags on a flag set.
type ServeFlags struct {
	fs  *flag.FlagSet
	cfg Serve
}

// DefineServe defines serve's flags on fs.
func DefineServe(fs *flag.FlagSet) *ServeFlags {
	f := &ServeFlags{fs: fs}
	s := &f.cfg
	fs.StringVar(&s.Addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	fs.StringVar(&s.Token, "token", "", "the bearer token clients must present (env "+EnvToken+")")
	fs.Int64Var(&s.MaxBody, "max-body", 1<<20, "largest request body accepted, in bytes")
	fs.BoolVar(&s.Log, "log", false, "log one line per request to stderr (method, path, status, duration; never a token or a body)")
	fs.StringVar(&s.Mutant, "mutant", "", "serve a deliberately broken variant instead (see 'plantcheck selftest --list'), to see what a failure report looks like; several, comma-separated, make a server with several mistakes")
	return f
}

// Resolve reads the token from the environment when --token is not given.
func (f *ServeFlags) Resolve(env Env) (Serve, error) {
	cfg := f.cfg
	if !visited(f.fs)["token"] {
		cfg.Token = env.Getenv(EnvToken)
	}
	if cfg.MaxBody <= 0 {
		return Serve{}, Errorf("--max-body must be positive")
	}
	return cfg, nil
}

// Selftest is plantcheck selftest's configuration.
type Selftest struct {
	// Mutants are the names of the mutants to run (nil: all), as given.
	Mutants  []string
	List     bool
	Parallel int // --concurrency
	Tags     string
	// Without names checks to leave out of every run (Removable).
	Without []string
	// Seeds is how many fresh seeds every server runs under; Seed, when
	// not 0, the one seed they all run under: the rerun of a miss.
	Seeds    int
	Seed     uint64
	ViaProxy bool
}

// MaxSeeds bounds selftest's --seeds: 1000 seeds are 111,000 runs, about
// three hours on two cores (32 seeds took 690 s of CPU).
const MaxSeeds = 1000

// Validate checks --seeds, and that a seed to replay comes alone.
func (s Selftest) Validate() error {
	switch {
	case s.Seeds < 1 || s.Seeds > MaxSeeds:
		return Errorf("--seeds %d: it must be between 1 and %d", s.Seeds, MaxSeeds)
	case s.Seed != 0 && s.Seeds != 1:
		return Errorf("--seed %d replays one seed, and --seeds %d asks for %d fresh ones: give one of them", s.Seed, s.Seeds, s.Seeds)
	}
	return nil
}

// SelftestFlags are selftest's flags on a flag set.
type SelftestFlags struct {
	cfg           Selftest
	only, without string
}

// DefineSelftest defines selftest's flags on fs.
func DefineSelftest(fs *flag.FlagSet) *SelftestFlags {
	f := &SelftestFlags{}
	fs.StringVar(&f.only, "mutant", "", "run only these mutants (names, comma-separated)")
	fs.BoolVar(&f.cfg.List, "list", false, "list the mutants and the rules each breaks, and run nothing")
	fs.IntVar(&f.cfg.Parallel, "concurrency", 2, "runs at once")
	fs.StringVar(&f.cfg.Tags, "tags", "", "restrict every run to some rules (a godog tag expression)")
	fs.StringVar(&f.without, "without", "", "leave these checks out of every run, to see what they catch ("+strings.Join(Removable, ", ")+")")
	fs.IntVar(&f.cfg.Seeds, "seeds", 1, fmt.Sprintf("run every server under this many fresh seeds (1 to %d): a mutant is caught only if caught under each", MaxSeeds))
	fs.Uint64Var(&f.cfg.Seed, "seed", 0, "run every server under this one seed, to replay a miss (the gap line names it); 0 draws one")
	fs.BoolVar(&f.cfg.ViaProxy, "via-proxy", false, "run the suite through a plantcheck proxy in front of each server, and hold each run's verdict to the proxy's, rule by rule")
	defineAliases(fs, "selftest")
	return f
}

// Resolve splits the lists of names given.
func (f *SelftestFlags) Resolve() Selftest {
	cfg := f.cfg
	if f.only != "" {
		cfg.Mutants = strings.Split(f.only, ",")
	}
	if f.without != "" {
		cfg.Without = strings.Split(f.without, ",")
	}
	return cfg
}

// Merge is plantcheck merge's configuration.
type Merge struct {
	ReportDir             string
	Strict, StrictClients bool
}

// DefineMerge defines merge's flags on fs, into the Merge returned.
func DefineMerge(fs *flag.FlagSet) *Merge {
	m := &Merge{}
	verdictFlags(fs, &m.ReportDir, &m.Strict, &m.StrictClients)
	return m
}

// Diff is plantcheck diff's configuration.
type Diff struct {
	Format string
	Strict bool
}

// DefineDiff defines diff's flags on fs, into the Diff returned.
func DefineDiff(fs *flag.FlagSet) *Diff {
	d := &Diff{}
	fs.StringVar(&d.Format, "format", "text", "output: text (the console), markdown (a pull request) or json (tools)")
	fs.BoolVar(&d.Strict, "strict", false, "a SHOULD rule's regression fails the diff too")
	return d
}

// Validate checks the format.
func (d Diff) Validate() error { return formatIn(d.Format, "text", "markdown", "json") }

// Compare is plantcheck compare's configuration.
type Compare struct {
	// ReportDir, when set, receives the table's files; else Format
	// (markdown or json) is printed.
	ReportDir, Format string
}

// DefineCompare defines compare's flags on fs, into the Compare returned.
func DefineCompare(fs *flag.FlagSet) *Compare {
	c := &Compare{}
	fs.StringVar(&c.ReportDir, "report-dir", "", "write compare.html, compare.md, compare.json and the badges into this folder (created if missing)")
	fs.StringVar(&c.Format, "format", "markdown", "without --report-dir, what to print: markdown or json")
	defineAliases(fs, "compare")
	return c
}

// Validate checks the format.
func (c Compare) Validate() error { return formatIn(c.Format, "markdown", "json") }

// Docs is plantcheck docs' configuration.
type Docs struct{ ReportDir string }

// DefineDocs defines docs' flags on fs, into the Docs returned.
func DefineDocs(fs *flag.FlagSet) *Docs {
	d := &Docs{}
	fs.StringVar(&d.ReportDir, "report-dir", "", "folder to write the documentation into (created if missing)")
	defineAliases(fs, "docs")
	return d
}

// Validate checks that a folder is named.
func (d Docs) Validate() error {
	if d.ReportDir == "" {
		return Errorf("--report-dir is required: the folder to write the documentation into")
	}
	return nil
}

// Rules is plantcheck rules' configuration.
type Rules struct {
	Format  string
	Verbose bool
}

// DefineRules defines rules' flags on fs, into the Rules returned.
func DefineRules(fs *flag.FlagSet) *Rules {
	r := &Rules{}
	fs.StringVar(&r.Format, "format", "text", "output: text (a table) or json (the catalog and its scenarios)")
	fs.BoolVar(&r.Verbose, "verbose", false, "list each rule's scenarios and requirement")
	defineAliases(fs, "rules")
	return r
}

// Validate checks the format.
func (r Rules) Validate() error { return formatIn(r.Format, "text", "json") }

// formatIn refuses a --format that is none of names, quoted escaped.
func formatIn(format string, names ...string) error {
	if slices.Contains(names, format) {
		return nil
	}
	last := len(names) - 1
	return Errorf("--format %q: %s or %s", evidence.Text(format), strings.Join(names[:last], ", "), names[last])
}

// Verify is plantcheck verify's configuration: with a Sigstore bundle, the
// signature over the statement is checked too, by the identity given.
type Verify struct {
	// Bundle is the Sigstore bundle signing the statement ("" checks no
	// signature); TrustedRoot the trusted_root.json it is checked against.
	Bundle, TrustedRoot string
	// Identity and IdentityRegexp are the signer's certificate identity
	// (its subject alternative name), exact or a regular expression;
	// Issuer and IssuerRegexp the OIDC issuer that vouched for it.
	Identity, IdentityRegexp string
	Issuer, IssuerRegexp     string
}

// DefineVerify defines verify's flags on fs, into the Verify returned.
func DefineVerify(fs *flag.FlagSet) *Verify {
	v := &Verify{}
	fs.StringVar(&v.Bundle, "bundle", "", "a Sigstore bundle (as actions/attest or cosign attest-blob --new-bundle-format write it) whose signed statement must match DIR's; needs --trusted-root and the signer's identity")
	for _, f := range v.idFlags() {
		fs.StringVar(f.value, f.name, "", f.usage)
	}
	return v
}

// idFlag is one of the flags that check a bundle.
type idFlag struct {
	name, usage string
	value       *string
}

// idFlags are the flags that check a bundle, in the order they are checked.
func (v *Verify) idFlags() []idFlag {
	return []idFlag{
		{"trusted-root", "the Sigstore trusted root the bundle is checked against (trusted_root.json, or the JSON lines of gh attestation trusted-root); read from this file, never fetched", &v.TrustedRoot},
		{"certificate-identity", "the signer's identity the bundle's certificate must name (for actions/attest: the workflow's URL, https://github.com/OWNER/REPO/.github/workflows/FILE@REF)", &v.Identity},
		{"certificate-identity-regexp", "a regular expression the signer's identity must match, instead of --certificate-identity", &v.IdentityRegexp},
		{"certificate-oidc-issuer", "the OIDC issuer the bundle's certificate must name (for GitHub Actions: https://token.actions.githubusercontent.com)", &v.Issuer},
		{"certificate-oidc-issuer-regexp", "a regular expression the OIDC issuer must match, instead of --certificate-oidc-issuer", &v.IssuerRegexp},
	}
}

// Args are the flags of v as given, --name=value, for
// plantcheck-verify-bundle.
func (v *Verify) Args() []string {
	var args []string
	for _, f := range append([]idFlag{{"bundle", "", &v.Bundle}}, v.idFlags()...) {
		if *f.value != "" {
			args = append(args, "--"+f.name+"="+*f.value)
		}
	}
	return args
}

// Validate checks that a bundle comes with a trusted root, one identity
// and one issuer, and the flags that check it with a bundle.
func (v Verify) Validate() error {
	if v.Bundle == "" {
		for _, f := range v.idFlags() {
			if *f.value != "" {
				return Errorf("--%s is given without --bundle: it checks a bundle's signature", f.name)
			}
		}
		return nil
	}
	f := v.idFlags()
	for i, what := range []string{"the signer's identity", "the OIDC issuer"} {
		exact, re := f[1+2*i], f[2+2*i] // the flag and its -regexp
		switch {
		case *exact.value == "" && *re.value == "":
			return Errorf("--bundle needs %s (--%s or --%s): a signature by no one in particular proves nothing", what, exact.name, re.name)
		case *exact.value != "" && *re.value != "":
			return Errorf("give --%s or --%s, not both", exact.name, re.name)
		case *re.value != "":
			if _, err := regexp.Compile(*re.value); err != nil {
				return Errorf("--%s: not a regular expression: %s", re.name, evidence.Text(err.Error()))
			}
		}
	}
	if v.TrustedRoot == "" {
		return Errorf("--bundle needs --trusted-root: the Sigstore trusted root to check it against (gh attestation trusted-root > trusted_root.jsonl); plantcheck fetches none")
	}
	return nil
}
