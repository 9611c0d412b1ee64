package verdict

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Stamp records what judged: plantcheck's version, the spec's title,
// version and digest, the features' digest and scenario count, and the
// suite's strength this build carries.
func (v *Verdict) Stamp(specTitle, specVersion string) {
	v.Schema = SchemaID
	v.Plantcheck.Version = buildinfo.Version()
	v.Spec.Title, v.Spec.Version, v.Spec.SHA256 = specTitle, specVersion, SHA256Hex(spec.Document())
	v.Features.SHA256 = featuresDigest()
	if scs, err := features.Scenarios(); err == nil {
		v.Features.Scenarios = len(scs)
	}
	v.Strength = nil
	if f, err := strength.Current(); err == nil {
		v.Strength = f.Brief()
	}
}

// SHA256Hex is b's sha256, in hex, as a statement names a subject's.
func SHA256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// featuresDigest hashes the feature files, names and contents, in name
// order.
func featuresDigest() string {
	h := sha256.New()
	names, _ := fs.Glob(features.FS, "*.feature")
	slices.Sort(names)
	for _, n := range names {
		b, _ := fs.ReadFile(features.FS, n)
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CatalogDigest hashes the rule catalog: every rule's ID, level, source
// and requirement, in catalog order, as JSON.
func CatalogDigest() string {
	b, _ := json.Marshal(rules.Catalog)
	return SHA256Hex(b)
}

// SuiteDigest names the suite a verdict was judged with: the features and
// the rule catalog, the one digest over both of theirs.
func SuiteDigest() string {
	return SuiteDigestOf(featuresDigest(), CatalogDigest())
}

// SuiteDigestOf is the suite digest of the features' and the catalog's digests.
func SuiteDigestOf(features, catalog string) string {
	return SHA256Hex([]byte("features " + features + "\nrules " + catalog + "\n"))
}
