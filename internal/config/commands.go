package config

import (
	"flag"
	"reflect"
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

// Resolve reads the token from the environment when --token is not given.
func (s *Serve) Resolve(fs *flag.FlagSet, env Env) (Serve, error) {
	if _, err := readEnv(fs, "serve", visited(fs), env); err != nil {
		return Serve{}, err
	}
	return *s, checkRanges("serve", s)
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
	switch err := checkRanges("selftest", s); {
	case err != nil:
		return err
	case s.Seed != 0 && s.Seeds != 1:
		return Errorf("--seed %d replays one seed, and --seeds %d asks for %d fresh ones: give one of them", s.Seed, s.Seeds, s.Seeds)
	}
	return nil
}

// SelftestFlags are selftest's flags (Define[SelftestFlags]): the lists
// of names as given.
type SelftestFlags struct {
	Selftest
	Only, WithoutList string
}

// Resolve splits the lists of names given.
func (f *SelftestFlags) Resolve() Selftest {
	cfg := f.Selftest
	if f.Only != "" {
		cfg.Mutants = strings.Split(f.Only, ",")
	}
	if f.WithoutList != "" {
		cfg.Without = strings.Split(f.WithoutList, ",")
	}
	return cfg
}

// Merge is plantcheck merge's configuration.
type Merge struct {
	ReportDir             string
	Strict, StrictClients bool
}

// Diff is plantcheck diff's configuration.
type Diff struct {
	Format string
	Strict bool
}

// Validate checks the format.
func (d Diff) Validate() error { return formatIn(d.Format, "text", "markdown", "json") }

// Compare is plantcheck compare's configuration.
type Compare struct {
	// ReportDir, when set, receives the table's files; else Format
	// (markdown or json) is printed.
	ReportDir, Format string
}

// Validate checks the format.
func (c Compare) Validate() error { return formatIn(c.Format, "markdown", "json") }

// Docs is plantcheck docs' configuration.
type Docs struct{ ReportDir string }

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

// flags are verify's flags and their values in v, in the order Settings
// declares them: --bundle, then the flags that check it.
func (v *Verify) flags() (names, values []string) {
	r := reflect.ValueOf(v).Elem()
	for _, s := range Settings {
		if s.Takes("verify") {
			names, values = append(names, s.Name), append(values, r.FieldByName(s.Field).String())
		}
	}
	return names, values
}

// Args are the flags of v as given, --name=value, for
// plantcheck-verify-bundle.
func (v *Verify) Args() []string {
	var args []string
	names, values := v.flags()
	for i, value := range values {
		if value != "" {
			args = append(args, "--"+names[i]+"="+value)
		}
	}
	return args
}

// Validate checks that a bundle comes with a trusted root, one identity
// and one issuer, and the flags that check it with a bundle.
func (v Verify) Validate() error {
	names, values := v.flags()
	if v.Bundle == "" {
		for i, value := range values[1:] {
			if value != "" {
				return Errorf("--%s is given without --bundle: it checks a bundle's signature", names[1+i])
			}
		}
		return nil
	}
	for i, what := range []string{"the signer's identity", "the OIDC issuer"} {
		exact, re := 2+2*i, 3+2*i // the flag and its -regexp
		switch {
		case values[exact] == "" && values[re] == "":
			return Errorf("--bundle needs %s (--%s or --%s): a signature by no one in particular proves nothing", what, names[exact], names[re])
		case values[exact] != "" && values[re] != "":
			return Errorf("give --%s or --%s, not both", names[exact], names[re])
		case values[re] != "":
			if _, err := regexp.Compile(values[re]); err != nil {
				return Errorf("--%s: not a regular expression: %s", names[re], evidence.Text(err.Error()))
			}
		}
	}
	if v.TrustedRoot == "" {
		return Errorf("--bundle needs --trusted-root: the Sigstore trusted root to check it against (gh attestation trusted-root > trusted_root.jsonl); plantcheck fetches none")
	}
	return nil
}
